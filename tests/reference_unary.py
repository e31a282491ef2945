"""References for the unary element-wise family (see reference_nary.py for the contract)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from reference_common import Expected, f64, float_result, scaled

from descriptors import DataType

REFERENCES: dict[str, Callable[..., Any]] = {}
DATA: dict[str, tuple[Callable[..., Any], ...]] = {}
PARAMS: dict[str, list[dict[str, Any]]] = {}
TOLERANCE: dict[str, tuple[float, float]] = {}
EDGES: dict[str, list[tuple[Any, ...]]] = {}


def _identity(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if scale_bias is None:
        return Expected(np.asarray(x).astype(out_dtype), True)  # a copy, bit for bit
    return float_result(scaled(x, scale_bias))


def _abs(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if np.dtype(x.dtype).kind in "iu":
        bits = np.dtype(out_dtype).itemsize * 8
        vals = [abs(int(v)) % (1 << bits) for v in x.ravel().tolist()]
        vals = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in vals]  # abs(INT_MIN) wraps
        return Expected(np.array(vals, dtype=out_dtype).reshape(x.shape), True)
    return float_result(np.abs(scaled(x, scale_bias)))


def _exp(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    with np.errstate(all="ignore"):
        return float_result(np.exp(scaled(inputs[0], scale_bias)))


REFERENCES.update({"ELEMENT_WISE_IDENTITY": _identity, "ELEMENT_WISE_ABS": _abs, "ELEMENT_WISE_EXP": _exp})
_ = f64

# Edge cases: (inputs, params, expected, exact, dtypes per role).
_INF, _NAN = float("inf"), float("nan")
_F32 = {"input_tensor": DataType.FLOAT32, "output_tensor": DataType.FLOAT32}
_I8 = {"input_tensor": DataType.INT8, "output_tensor": DataType.INT8}
EDGES.update(
    {
        "ELEMENT_WISE_IDENTITY": [
            (
                [[_NAN, -0.0, _INF, -_INF, 3.4028234663852886e38, 1e-45]],
                {},
                [_NAN, -0.0, _INF, -_INF, 3.4028234663852886e38, 1e-45],
                True,
                _F32,
            ),
        ],
        "ELEMENT_WISE_ABS": [
            ([[-0.0, -_INF, _NAN, -2.5]], {}, [0.0, _INF, _NAN, 2.5], False, _F32),
            ([[-128, -127, 0, 127]], {}, [-128, 127, 0, 127], True, _I8),  # abs(INT_MIN) wraps
        ],
        "ELEMENT_WISE_EXP": [
            ([[-_INF, _INF, _NAN, 0.0, -0.0, 89.0, -104.0]], {}, [0.0, _INF, _NAN, 1.0, 1.0, _INF, 0.0], False, _F32)
        ],
    }
)
