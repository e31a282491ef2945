"""The op table's accuracy column: each operator's stated float32 error bound.

``ACCURACY[name] = (ulps, atol)``: a float32 (or float64) result is within ``ulps`` units in
the last place of the exact (float64) value, plus ``atol`` absolute where a formula cancels
(the gradients' ``1 - d^2`` kinds). float16 and bfloat16 results are computed in float32 and
rounded once, so they are within one ulp of their own type. Operators without an entry are
exact (integers, bits, selections) or a single IEEE operation, correctly rounded (0.5 ulp).

The bounds hold on both backends: each is the larger of CUDA's documented bound (CUDA C++
Programming Guide, math functions) and NumPy's documented float32 bound (``ulperrortol`` of
its validation tables), added up through each formula. The tests hold every operator to its
bound (tests/test_nary_generated.py, test_umath_validation.py, test_activation_accuracy.py).
Comments: CUDA bound / NumPy bound / measured max on the NumPy backend; on NumPy's table.

The backward rows (``ELTWISE_*_GRAD``, oneDNN's eltwise backward) compute ds = dd * f'(s), the
factor f'(s) (ds/dd: e^s, 1 - tanh(s)^2, ...) in the compute type; their ``atol`` is per unit
of |dd| (``gradient_scaled``): an absolute error in f'(s), where its formula cancels, is |dd|
times that in ds. The bound is ``ulps`` relative plus ``atol * |dd|``. Where dd is infinite and
|f'(s)| <= atol, f'(s) may come out 0 (or of either sign), and ds NaN (or the other infinity):
the bound promises nothing there.

Domain (``DOMAIN``). Where a formula scales an intermediate by dd or by a parameter (f'(s) above,
softplus(beta * x) in PARAMETRIC_SOFTPLUS, x^beta in POW), the kernel holds that intermediate in
the compute type. The bound holds where the values ``DOMAIN`` names are 0, exactly infinite (from
an infinite input) or within the compute type's normal range (float32 for float16, bfloat16 and
float32). Outside, the result is what the formula gives in the compute type, as oneDNN's own
float32 kernels give it: an intermediate that underflows (e^{-104} is below float32's
subnormals) makes the result too small, 0, or NaN when an infinite dd (or parameter) scales it;
one that overflows (e^{89}) makes it infinite, or NaN for a zero dd. Exact results there would
need a type wider than the compute type in every kernel. Products whose order alone overflowed
(2 * s * dd, alpha * beta * s^(beta - 1), d * d, steepness * x in SOFTPLUS) are computed in an
order, or take the limit, that does not: they are not in ``DOMAIN``.
"""

from __future__ import annotations

__all__ = ["ACCURACY", "BINARY_ACCURACY", "DOMAIN", "gradient_scaled"]

ACCURACY: dict[str, tuple[float, float]] = {
    "ELEMENT_WISE_EXP": (3.0, 0.0),  # CUDA 2 / NumPy 3 / 2.37; 1
    "ELEMENT_WISE_LOG": (4.0, 0.0),  # CUDA 1 / NumPy 4 / 3.67; 4
    "ELEMENT_WISE_SIN": (2.0, 0.0),  # CUDA 2 / NumPy 2 / 1.38; 1
    "ELEMENT_WISE_COS": (2.0, 0.0),  # CUDA 2 / NumPy 2 / 1.41; 1
    "ELEMENT_WISE_TAN": (4.0, 0.0),  # CUDA 4 / NumPy 4 / 1.15; 1
    "ELEMENT_WISE_ACOS": (3.0, 0.0),  # CUDA 2 / NumPy 3 / 0.88; 1
    "ELEMENT_WISE_ASIN": (4.0, 0.0),  # CUDA 2 / NumPy 4 / 0.85; 1
    "ELEMENT_WISE_ATAN": (3.0, 0.0),  # CUDA 2 / NumPy 3 / 0.84; 1
    "ELEMENT_WISE_SINH": (3.0, 0.0),  # CUDA 3 / NumPy 2 / 1.72; 1
    "ELEMENT_WISE_COSH": (3.0, 0.0),  # CUDA 2 / NumPy 3 / 1.63; 1
    "ELEMENT_WISE_TANH": (2.0, 0.0),  # CUDA 2 / NumPy 2 / 1.35; 1
    "ELEMENT_WISE_ASINH": (3.0, 0.0),  # CUDA 3 / NumPy 2 / 1.60; 1
    "ELEMENT_WISE_ACOSH": (4.0, 0.0),  # CUDA 4 / NumPy 2 / 1.99; 1
    "ELEMENT_WISE_ATANH": (3.0, 0.0),  # CUDA 3 / NumPy 2 / 1.69; 1
    "ELEMENT_WISE_ERF": (2.0, 0.0),  # CUDA 2 / SciPy computes in double: 0.5 / 0.50
    "ELEMENT_WISE_SQRT": (0.5, 0.0),  # correctly rounded on both (CUDA's default -prec-sqrt=true) / 0.50
    "ELEMENT_WISE_RECIP": (0.5, 0.0),  # correctly rounded on both (CUDA's default -prec-div=true) / 0.50
    "ELEMENT_WISE_CONSTANT_POW": (4.0, 0.0),  # CUDA powf 4 / glibc powf < 1 / 0.50 (exponents 2, 0.5, -1, 3, 1.7, -2.5)
    "ACTIVATION_RELU": (0.0, 0.0),
    "ACTIVATION_IDENTITY": (0.0, 0.0),
    "ACTIVATION_THRESHOLDED_RELU": (0.0, 0.0),
    "ACTIVATION_BOUNDED_RELU": (0.0, 0.0),
    "ACTIVATION_CLIP_V2": (0.0, 0.0),
    "ACTIVATION_RELU_GRAD": (0.0, 0.0),
    "ACTIVATION_LEAKY_RELU": (0.5, 0.0),  # one product
    "ACTIVATION_PARAMETERIZED_RELU": (0.5, 0.0),
    "ACTIVATION_SHRINK": (0.5, 0.0),  # one sum
    "ACTIVATION_SQUARE": (0.5, 0.0),
    "ACTIVATION_LINEAR": (1.0, 0.0),  # one FMA (float64 emulation in NumPy: within 1)
    "ACTIVATION_HARD_SIGMOID": (1.0, 0.0),  # one FMA, exact clamps
    "ACTIVATION_HARD_SWISH": (2.0, 0.0),  # FMA + product
    "ACTIVATION_SOFTSIGN": (2.0, 0.0),  # sum + quotient (up to 2 ulps in (0.5, 1))
    "ACTIVATION_TANH": (2.5, 0.0),  # tanh
    "ACTIVATION_SCALED_TANH": (3.5, 0.0),  # product (condition <= 1) + tanh + product
    "ACTIVATION_ELU": (4.0, 0.0),  # expm1 + product
    "ACTIVATION_CELU": (4.5, 0.0),  # quotient (corrected) + expm1 + product
    "ACTIVATION_SCALED_ELU": (4.5, 0.0),  # expm1 + two products
    "ACTIVATION_SIGMOID": (4.5, 0.0),  # exp (passed whole for x < 0) + sum + quotient
    "ACTIVATION_POW": (5.0, 0.0),  # pow + product
    "ACTIVATION_SWISH": (5.0, 0.0),  # sigmoid + product (tail: exp + products)
    "ACTIVATION_GELU_TANH": (5.0, 0.0),  # sigmoid of a double-word argument + product
    "ACTIVATION_LOG_SIGMOID": (6.0, 0.0),  # exp (condition <= 1 through log1p) + log1p
    "ACTIVATION_SOFTPLUS": (6.5, 0.0),  # exp + log1p + correction + quotient
    "ACTIVATION_PARAMETRIC_SOFTPLUS": (6.5, 0.0),
    "ACTIVATION_MISH": (9.0, 0.0),  # softplus 6 + tanh (condition <= 1) + product
    "ACTIVATION_GELU": (9.5, 0.0),  # erfcx + exp + products (near 0: erfc + correction)
    "ELTWISE_GELU_ERF_GRAD": (8.0, 4e-07),
    "ELTWISE_GELU_TANH_GRAD": (8.0, 2e-06),
    "ELTWISE_MISH_GRAD": (8.0, 4e-07),
    "ELTWISE_SWISH_GRAD": (8.0, 4e-07),
    "ELTWISE_LOGISTIC_GRAD": (8.0, 2e-07),
    "ELTWISE_LOGSIGMOID_GRAD": (8.0, 2e-07),
    "ELTWISE_SOFT_RELU_GRAD": (8.0, 2e-07),
    "ELTWISE_TANH_GRAD": (8.0, 4e-07),
    "ELTWISE_TANH_USE_DST_FOR_BWD_GRAD": (4.0, 4e-07),
    "ELTWISE_LOGISTIC_USE_DST_FOR_BWD_GRAD": (4.0, 4e-07),
    "ELTWISE_ELU_USE_DST_FOR_BWD_GRAD": (4.0, 4e-07),
    "ELTWISE_POW_GRAD": (8.0, 0.0),
    "ELTWISE_ELU_GRAD": (6.0, 0.0),
    "ELTWISE_EXP_GRAD": (4.0, 0.0),  # dd * exp(s): EXP's 3 + 0.5 / 3.0 measured (oneDNN front-end tests)
    "ELTWISE_HARDSWISH_GRAD": (2.5, 0.0),  # dd * (2s + 3) / 6, three roundings / 1.9 measured
    "ELTWISE_SQRT_GRAD": (2.0, 0.0),  # dd / (2 sqrt(s)): sqrt, divide, multiply / 1.34 measured
}


def gradient_scaled(name: str) -> bool:
    """True where ``ACCURACY[name]``'s absolute term is per unit of |dd| (the backward rows)."""
    return name.startswith("ELTWISE_") and name.endswith("_GRAD")


# The domain of the bound (module docstring): for the backward rows f'(s) = ds/dd, which they compute
# before multiplying by dd, and the intermediates of their formulas that can leave the compute
# type's range while f'(s) is inside it; for the activations, what a parameter scales. "In range":
# 0, an exact infinity or within the normal range; "not below": only an underflow leaves the domain
# (an overflow gives the right result there). Other rows have no such value.
DOMAIN: dict[str, str] = {
    "ACTIVATION_POW": "x^beta in range",
    "ACTIVATION_PARAMETRIC_SOFTPLUS": "softplus(beta * x) not below the normal range",
    "ACTIVATION_SCALED_ELU": "alpha * expm1(x) (x <= 0) not below the normal range",
    "ACTIVATION_SCALED_TANH": "beta * x and tanh(beta * x) not below the normal range",
    "ACTIVATION_SOFTPLUS": "softplus(steepness * x) not below the normal range",
    "ELTWISE_ELU_GRAD": "e^s and alpha * e^s (s <= 0) in range",
    "ELTWISE_EXP_GRAD": "e^s in range",
    "ELTWISE_GELU_ERF_GRAD": "f'(s) in range",
    "ELTWISE_GELU_TANH_GRAD": "f'(s) in range",
    "ELTWISE_LOGISTIC_GRAD": "f'(s) in range",
    "ELTWISE_LOGSIGMOID_GRAD": "f'(s) in range",
    "ELTWISE_MISH_GRAD": "f'(s) and sigma(s) in range",
    "ELTWISE_POW_GRAD": "alpha * dd, s^(beta - 1) and beta * s^(beta - 1) in range",
    "ELTWISE_SOFT_RELU_GRAD": "f'(s) in range",
    "ELTWISE_SWISH_GRAD": "f'(s) and sigma(alpha * s) in range",
    "ELTWISE_TANH_GRAD": "f'(s) in range",
}
# Binary operators beyond one correctly rounded operation: pow and atan2 (libm vs CUDA, each
# documented within a few ulps; the generated binary tests allow 16).
BINARY_ACCURACY: dict[str, tuple[float, float]] = {
    "ELEMENT_WISE_POW": (16.0, 0.0),
    "ELEMENT_WISE_ATAN_YX": (16.0, 0.0),
}
ACCURACY.update(BINARY_ACCURACY)
