"""References for the activation family (see reference_nary.py for the contract).

Formulas from shared/reference/directml.md section 3, evaluated in float64 with the
textbook (not the stable) forms, so an instability in the implementation would show.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from reference_common import Expected, f64, float_result

from descriptors import DataType

REFERENCES: dict[str, Callable[..., Any]] = {}
DATA: dict[str, tuple[Callable[..., Any], ...]] = {}
PARAMS: dict[str, list[dict[str, Any]]] = {}
TOLERANCE: dict[str, tuple[float, float]] = {}
EDGES: dict[str, list[tuple[Any, ...]]] = {}


def _relu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if np.dtype(x.dtype).kind in "iu":
        return Expected(np.where(x > 0, x, 0).astype(out_dtype), True)
    v = f64(x)
    return float_result(np.where(np.isnan(v) | (v > 0), v, 0.0))


def _elu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    alpha = float(np.float32(params["alpha"]))
    neg = np.array([alpha * math.expm1(t) if t < 0 else t for t in v.ravel().tolist()]).reshape(v.shape)
    return float_result(np.where(np.isnan(v), np.nan, neg))


def _softplus(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    s = float(np.float32(params["steepness"]))
    # Exact-in-float64 textbook form; for large s*x, log(1 + e^z) == z + log1p(e^-z) (an identity).
    z = s * v
    with np.errstate(all="ignore"):
        out = np.where(z > 30, z + np.log1p(np.exp(-z)), np.log1p(np.exp(z))) / s
    return float_result(out)


REFERENCES.update({"ACTIVATION_RELU": _relu, "ACTIVATION_ELU": _elu, "ACTIVATION_SOFTPLUS": _softplus})
PARAMS.update(
    {"ACTIVATION_ELU": [{}, {"alpha": 0.25}], "ACTIVATION_SOFTPLUS": [{}, {"steepness": 3.0}, {"steepness": 0.5}]}
)

# Edge cases: (inputs, params, expected, exact, dtypes per role).
_INF, _NAN = float("inf"), float("nan")
_F32 = {"input_tensor": DataType.FLOAT32, "output_tensor": DataType.FLOAT32}
_I8 = {"input_tensor": DataType.INT8, "output_tensor": DataType.INT8}
EDGES.update(
    {
        "ACTIVATION_RELU": [
            ([[_NAN, -_INF, _INF, -0.0, -1e-45]], {}, [_NAN, 0.0, _INF, 0.0, 0.0], False, _F32),  # gpuops: +0.0
            ([[-128, 0, 5, 127]], {}, [0, 0, 5, 127], True, _I8),
        ],
        # expm1 keeps tiny negatives exact: alpha * (e^x - 1) ~ alpha * x near 0 (no cancellation).
        "ACTIVATION_ELU": [
            ([[-_INF, _INF, _NAN, -1e-10, 0.0]], {"alpha": 2.0}, [-2.0, _INF, _NAN, -2e-10, 0.0], False, _F32)
        ],
        # log(1 + e^x): no overflow for large x, e^x for very negative x.
        "ACTIVATION_SOFTPLUS": [
            (
                [[100.0, 1000.0, -100.0, 0.0, _INF, -_INF]],
                {},
                [100.0, 1000.0, math.exp(-100.0), math.log(2.0), _INF, 0.0],
                False,
                _F32,
            )
        ],
    }
)
