"""Small shared pieces for the reference modules (float64 results, scale-bias, exact ints)."""

from __future__ import annotations

import numpy as np
from reference import Expected

__all__ = ["Expected", "compute_type", "f64", "float_result", "outside_normal", "scaled"]


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


def compute_type(out_dtype: np.dtype) -> np.dtype:
    """The compute type of a float output: float64 for FLOAT64, else float32."""
    return np.dtype(np.float64 if np.dtype(out_dtype) == np.float64 else np.float32)


def outside_normal(values: list[np.ndarray], compute: np.dtype, *, below_only: bool = False) -> np.ndarray:
    """Elements where one of ``values`` (float64 intermediates of a formula) is finite and nonzero
    but beyond ``compute``'s normal range (below it only, with ``below_only``): outside the domain
    of the stated accuracy (descriptors/accuracy.py, DOMAIN). NaN and infinities are in it."""
    info = np.finfo(compute)
    tiny, big = float(info.smallest_normal), float(info.max)
    out = np.zeros(np.broadcast_shapes(*(np.shape(v) for v in values)), bool)
    with np.errstate(all="ignore"):
        for value in values:
            v = np.abs(np.asarray(value, np.float64))
            out |= np.isfinite(v) & (v != 0) & ((v < tiny) | (~np.bool_(below_only) & (v > big)))
    return out
