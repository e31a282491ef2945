"""Small shared pieces for the reference modules (float64 results, scale-bias, exact ints)."""

from __future__ import annotations

import numpy as np
from reference import Expected

__all__ = ["Expected", "f64", "float_result", "scaled"]


def f64(arr: np.ndarray) -> np.ndarray:
    return np.asarray(arr).astype(np.float64)


def scaled(x: np.ndarray, scale_bias: tuple[float, float] | None) -> np.ndarray:
    """ScaleBias as DirectML applies it, in float32 (two roundings), returned as float64."""
    v = np.asarray(x).astype(np.float32)
    if scale_bias is not None:
        with np.errstate(all="ignore"):
            v = v * np.float32(scale_bias[0])
            v = v + np.float32(scale_bias[1])
    return v.astype(np.float64)


def float_result(values: np.ndarray) -> Expected:
    """A float64 reference compared within a tolerance."""
    return Expected(np.asarray(values, dtype=np.float64), False)
