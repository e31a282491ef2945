"""The stated accuracy bounds, pinned by hand: a snapshot the tests own (issue 34).

``PINNED``: row name -> ``(ulps, atol)``, the float32 (and float64) bound of every element-wise row whose
op-table entry states one (``accuracy=Accuracy(ulps, atol)``, descriptors/accuracy.py): ``ulps`` units in the
last place of the float64 value plus ``atol`` absolute (per unit of |dd| for the ``ELTWISE_*_GRAD`` rows).
``HALF_ULPS``: float16 and bfloat16 results are computed in float32 and rounded once, so within one ulp of
their own type (descriptors/accuracy.py), for every row here.

The accuracy tests hold each row to these numbers, never to the op table's: loosening a bound in the op
table fails ``tests/unit/test_accuracy_bounds.py`` until this table is changed too, a visible test change.
Written out from the op table at 9c5d52e.
"""

from __future__ import annotations

__all__ = ["HALF_ULPS", "PINNED", "pinned"]

HALF_ULPS: dict[str, float] = {"float16": 1.0, "bfloat16": 1.0}

PINNED: dict[str, tuple[float, float]] = {
    "ELEMENT_WISE_POW": (16.0, 0.0),
    "ELEMENT_WISE_ATAN_YX": (16.0, 0.0),
    "ELEMENT_WISE_EXP": (3.0, 0.0),
    "ELEMENT_WISE_ACOS": (3.0, 0.0),
    "ELEMENT_WISE_ASIN": (4.0, 0.0),
    "ELEMENT_WISE_ATAN": (3.0, 0.0),
    "ELEMENT_WISE_COS": (2.0, 0.0),
    "ELEMENT_WISE_SIN": (2.0, 0.0),
    "ELEMENT_WISE_TAN": (4.0, 0.0),
    "ELEMENT_WISE_LOG": (4.0, 0.0),
    "ELEMENT_WISE_SQRT": (0.5, 0.0),
    "ELEMENT_WISE_RECIP": (0.5, 0.0),
    "ELEMENT_WISE_ERF": (2.0, 0.0),
    "ELEMENT_WISE_SINH": (3.0, 0.0),
    "ELEMENT_WISE_COSH": (3.0, 0.0),
    "ELEMENT_WISE_TANH": (2.0, 0.0),
    "ELEMENT_WISE_ASINH": (3.0, 0.0),
    "ELEMENT_WISE_ACOSH": (4.0, 0.0),
    "ELEMENT_WISE_ATANH": (3.0, 0.0),
    "ELEMENT_WISE_CONSTANT_POW": (4.0, 0.0),
    "ACTIVATION_RELU": (0.0, 0.0),
    "ACTIVATION_ELU": (4.0, 0.0),
    "ACTIVATION_SOFTPLUS": (6.5, 0.0),
    "ACTIVATION_CELU": (4.5, 0.0),
    "ACTIVATION_GELU": (9.5, 0.0),
    "ACTIVATION_HARD_SIGMOID": (1.0, 0.0),
    "ACTIVATION_HARD_SWISH": (2.0, 0.0),
    "ACTIVATION_IDENTITY": (0.0, 0.0),
    "ACTIVATION_LEAKY_RELU": (0.5, 0.0),
    "ACTIVATION_LINEAR": (1.0, 0.0),
    "ACTIVATION_PARAMETERIZED_RELU": (0.5, 0.0),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": (6.5, 0.0),
    "ACTIVATION_SCALED_ELU": (4.5, 0.0),
    "ACTIVATION_SCALED_TANH": (3.5, 0.0),
    "ACTIVATION_SHRINK": (0.5, 0.0),
    "ACTIVATION_SIGMOID": (4.5, 0.0),
    "ACTIVATION_SOFTSIGN": (2.0, 0.0),
    "ACTIVATION_SWISH": (5.0, 0.0),
    "ACTIVATION_TANH": (2.5, 0.0),
    "ACTIVATION_THRESHOLDED_RELU": (0.0, 0.0),
    "ACTIVATION_RELU_GRAD": (0.0, 0.0),
    "ACTIVATION_GELU_TANH": (5.0, 0.0),
    "ACTIVATION_LOG_SIGMOID": (6.0, 0.0),
    "ACTIVATION_MISH": (9.0, 0.0),
    "ACTIVATION_POW": (5.0, 0.0),
    "ACTIVATION_BOUNDED_RELU": (0.0, 0.0),
    "ACTIVATION_CLIP_V2": (0.0, 0.0),
    "ACTIVATION_SQUARE": (0.5, 0.0),
    "ELTWISE_ELU_GRAD": (6.0, 0.0),
    "ELTWISE_ELU_USE_DST_FOR_BWD_GRAD": (4.0, 4e-07),
    "ELTWISE_EXP_GRAD": (4.0, 0.0),
    "ELTWISE_GELU_ERF_GRAD": (8.0, 4e-07),
    "ELTWISE_GELU_TANH_GRAD": (8.0, 2e-06),
    "ELTWISE_HARDSWISH_GRAD": (2.5, 0.0),
    "ELTWISE_LOGISTIC_GRAD": (8.0, 2e-07),
    "ELTWISE_LOGISTIC_USE_DST_FOR_BWD_GRAD": (4.0, 4e-07),
    "ELTWISE_LOGSIGMOID_GRAD": (8.0, 2e-07),
    "ELTWISE_MISH_GRAD": (8.0, 4e-07),
    "ELTWISE_POW_GRAD": (8.0, 0.0),
    "ELTWISE_SOFT_RELU_GRAD": (8.0, 2e-07),
    "ELTWISE_SQRT_GRAD": (2.0, 0.0),
    "ELTWISE_SWISH_GRAD": (8.0, 4e-07),
    "ELTWISE_TANH_GRAD": (8.0, 4e-07),
    "ELTWISE_TANH_USE_DST_FOR_BWD_GRAD": (4.0, 4e-07),
}


def pinned(prefix: str, *, exclude: tuple[str, ...] = ()) -> dict[str, tuple[float, float]]:
    """The pinned ``(ulps, atol)`` of the rows whose names start with ``prefix`` (less those in ``exclude``)."""
    return {k: v for k, v in PINNED.items() if k.startswith(prefix) and k not in exclude}
