"""References for the activation family (see opinfo.py for the contract).

Formulas from docs/reference/directml.md section 3 and, for the oneDNN extensions, the
eltwise page (docs/seeds/003): the textbook forms, rewritten only by exact identities where
float64 itself would fail (``1 + erf(z) == erfc(-z)``, ``log(1 + e^z) == z + log(1 + e^-z)``,
``0.5 (1 + tanh u) == 1 / (1 + e^-2u)``, ``e^x - 1`` as expm1). Where the argument of a
steep function is itself rounded (GELU's ``x / sqrt 2``, GELU_TANH's polynomial), it is
evaluated in long double (x86 Linux: 64-bit significand) so that a float64 result is still
good to about an ulp. Nothing here reads the op table's code or ops/activation_numpy.py.

Parameters arrive as the descriptor holds them and are used as the float32 values DirectML
passes (``_p``). Gpuops' choices where DirectML is silent (NaN in gives NaN out, limits at
infinities, integer SHRINK truncating and saturating, CLIP_V2 with beta < alpha) are encoded
here as such, each marked "gpuops:".

TOLERANCE is the stated float32 accuracy of each operator, in ulps of the float32 result
(``helpers.assert_expected`` reads it as ``ulps * eps * |ref|``), for both backends: the
maximum errors of the library functions used (CUDA Programming Guide appendix; NumPy's
umath validation tolerances) composed through the formula (see the table below).
tests/ops/test_activation_accuracy.py measures the actual float32 errors on a dense grid.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from accuracy_bounds import pinned
from opinfo import from_tables
from reference_common import Expected, compute_type, f64, float_result, outside_normal

from descriptors import DataType

REFERENCES: dict[str, Callable[..., Any]] = {}
DATA: dict[str, tuple[Callable[..., Any], ...]] = {}
PARAMS: dict[str, list[dict[str, Any]]] = {}
TOLERANCE: dict[str, tuple[float, float]] = {}
EDGES: dict[str, list[tuple[Any, ...]]] = {}

_LD = np.longdouble
_SQRT_HALF = _LD("0.707106781186547524400844362104849039284835937688474036588")
_SQRT_2_OVER_PI = _LD("0.797884560802865355879892119868763736951717262329869315331")
_TWO_OVER_SQRT_PI = 1.1283791670955125739  # float64 is plenty for a first-order correction


def _p(params: dict, name: str) -> float:
    """A FLOAT parameter as DirectML receives it (float32), as a Python float."""
    return float(np.float32(params[name]))


def _hp(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(_LD)


def _where_nan(v: np.ndarray, values: np.ndarray) -> np.ndarray:
    """gpuops: NaN in gives NaN out, whatever the formula's comparisons select."""
    return np.where(np.isnan(v), np.nan, values)


def _is_int(x: np.ndarray) -> bool:
    return np.dtype(np.asarray(x).dtype).kind in "iu"


def _wrap(values: list[int], dtype: np.dtype) -> np.ndarray:
    bits = np.dtype(dtype).itemsize * 8
    out = []
    for v in values:
        v %= 1 << bits
        if np.dtype(dtype).kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=dtype)


def _log1p_exp(z: np.ndarray) -> np.ndarray:
    """log(1 + e^z) for any z: the textbook form, or z + log(1 + e^-z) where e^z would overflow."""
    with np.errstate(all="ignore"):
        return np.where(z > 30, z + np.log1p(np.exp(-z)), np.log1p(np.exp(z)))


# --- DirectML activations --------------------------------------------------------------------


def _relu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if _is_int(x):
        return Expected(np.where(x > 0, x, 0).astype(out_dtype), True)
    v = f64(x)
    return float_result(np.where(np.isnan(v) | (v > 0), v, 0.0))


def _elu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    alpha = _p(params, "alpha")
    with np.errstate(all="ignore"):
        return float_result(_where_nan(v, np.where(v >= 0, v, alpha * np.expm1(v))))


def celu_directml(v: np.ndarray, a: float) -> np.ndarray:
    """DirectML's formula, literally: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    with np.errstate(all="ignore"):
        return np.maximum(0.0, v) + np.minimum(0.0, a * np.expm1(v / a))


def _celu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """gpuops: the README's form, x if x >= 0 else alpha * expm1(x / alpha), in IEEE float64.

    It is DirectML's max/min form for every finite nonzero alpha (test_activation_accuracy.py
    checks that); at alpha = 0, NaN or +-inf that form is 0 * inf or x / 0 (NaN, or a min/max of
    NaN that the formula leaves undefined), and the README defines CELU by this one instead."""
    v = f64(inputs[0])
    a = _LD(_p(params, "alpha"))
    with np.errstate(all="ignore"):  # long double: x / alpha's rounding costs |x / alpha| of its ulps
        return float_result(np.where(v >= 0, v, (a * np.expm1(_hp(v) / a)).astype(np.float64)))


def _in_domain(values: np.ndarray, intermediates: list[np.ndarray], out_dtype: np.dtype, **kw: bool) -> Expected:
    """A float64 reference whose elements with an intermediate (the row's accuracy.domain) beyond the compute
    type's normal range are unchecked: a parameter scales what the kernel held in the compute type."""
    unchecked = outside_normal(intermediates, compute_type(out_dtype), **kw)
    return Expected(np.asarray(values, dtype=np.float64), False, unchecked=unchecked)


def _softplus(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    s = _p(params, "steepness")
    with np.errstate(all="ignore"):
        sp = _log1p_exp(s * v)  # s * v is exact: a float32 times a float32
        return _in_domain(sp / s, [sp], out_dtype, below_only=True)


def _parametric_softplus(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    a, b = _p(params, "alpha"), _p(params, "beta")
    with np.errstate(all="ignore"):
        sp = _log1p_exp(b * v)
        return _in_domain(a * sp, [sp], out_dtype, below_only=True)


def _gelu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """0.5 x (1 + erf(x / sqrt 2)) == 0.5 x erfc(t), t = -x / sqrt 2 in long double.

    For t <= 1: erfc(t_hi) with the first-order term of t_lo; beyond: erfc(t) = erfcx(t) e^-t^2
    with e^-t^2 in long double (Cephes' double erfc loses t^2 / 2 ulps to the rounding of t * t).
    """
    from scipy.special import erfc, erfcx

    v = f64(inputs[0])
    t_ld = -_hp(v) * _SQRT_HALF
    with np.errstate(all="ignore"):
        t = t_ld.astype(np.float64)
        dt = np.nan_to_num((t_ld - t).astype(np.float64))
        near = erfc(t) - dt * _TWO_OVER_SQRT_PI * np.exp(-t * t)
        far = (_LD(0.5) * _hp(v) * _hp(erfcx(t)) * np.exp(-t_ld * t_ld)).astype(np.float64)
        e = np.where(t > 1, far, 0.5 * v * near)
        e = np.where(np.isposinf(t), -0.0, e)  # x = -inf
        out = np.where(e == 0, np.copysign(0.0, v), e)  # gpuops: -0.0 at -inf
    return float_result(out)


def _hard_sigmoid_of(v: np.ndarray, params: dict) -> np.ndarray:
    a, b = _LD(_p(params, "alpha")), _LD(_p(params, "beta"))
    with np.errstate(all="ignore"):  # long double: a * v is exact for float32 v, near it for float64 v
        return np.maximum(0.0, np.minimum((a * _hp(v) + b).astype(np.float64), 1.0))


def _hard_sigmoid(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    return float_result(_hard_sigmoid_of(f64(inputs[0]), params))


def _hard_swish(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    h = _hard_sigmoid_of(v, params)
    with np.errstate(all="ignore"):
        return float_result(np.where(h == 0, 0.0, v * h))  # gpuops: 0 where the hard sigmoid is 0


def _identity(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    return Expected(np.asarray(inputs[0]).astype(out_dtype), True)  # a copy, bit for bit


def _leaky_relu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    return float_result(np.where(v >= 0, v, _p(params, "alpha") * v))


def _linear(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    with np.errstate(all="ignore"):  # long double: a * v is exact for float32 v, near it for float64 v
        return float_result((_LD(_p(params, "alpha")) * _hp(v) + _LD(_p(params, "beta"))).astype(np.float64))


def _parameterized_relu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x, slope = inputs
    if _is_int(x):
        vals = [xv if xv >= 0 else sv * xv for xv, sv in zip(x.ravel().tolist(), slope.ravel().tolist(), strict=True)]
        return Expected(_wrap(vals, out_dtype).reshape(np.shape(x)), True)  # gpuops: wraps
    v, s = f64(x), f64(slope)
    return float_result(np.where(v >= 0, v, s * v))


def _scaled_elu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    a, g = _p(params, "alpha"), _p(params, "gamma")
    with np.errstate(all="ignore"):
        inner = np.where(v > 0, 1.0, a * np.expm1(v))
        return _in_domain(_where_nan(v, np.where(v > 0, g * v, g * inner)), [inner], out_dtype, below_only=True)


def _scaled_tanh(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    bv = _p(params, "beta") * v
    with np.errstate(all="ignore"):
        return _in_domain(_p(params, "alpha") * np.tanh(bv), [bv, np.tanh(bv)], out_dtype, below_only=True)


def _shrink(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    b, th = _p(params, "bias"), _p(params, "threshold")
    if _is_int(x):
        # gpuops: the exact real result, truncated toward zero, saturated to the type. README
        # (SHRINK on integers): x compares with the FLOAT threshold exactly (Python compares an
        # int and a float exactly; NaN compares false, so a NaN threshold gives 0 everywhere),
        # an infinite bias gives an infinite x -+ bias (saturated), a NaN bias NaN, which is 0.
        info = np.iinfo(out_dtype)
        lo, hi = int(info.min), int(info.max)
        vals = []
        for xv in x.ravel().tolist():
            sign = -1 if xv > th else 1 if xv < -th else 0
            if sign == 0 or math.isnan(b):
                vals.append(0)
            elif math.isinf(b):
                vals.append(hi if sign * b > 0 else lo)
            else:
                vals.append(min(max(math.trunc(Fraction(xv) + sign * Fraction(b)), lo), hi))
        return Expected(np.array(vals, dtype=out_dtype).reshape(np.shape(x)), True)
    v = f64(x)
    return float_result(_where_nan(v, np.where(v > th, v - b, np.where(v < -th, v + b, 0.0))))


def _sigmoid(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    with np.errstate(all="ignore"):
        return float_result(1.0 / (1.0 + np.exp(-v)))


def _softsign(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    with np.errstate(all="ignore"):
        return float_result(np.where(np.isinf(v), np.sign(v), v / (1.0 + np.abs(v))))  # +-1 at +-inf


def _swish(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    s = _p(params, "sigmoid_input_scale")
    with np.errstate(all="ignore"):
        sig = 1.0 / (1.0 + np.exp(-s * v))
        return float_result(np.where(sig == 0, np.copysign(0.0, v), v * sig))  # gpuops: the limit at inf


def _tanh(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    return float_result(np.tanh(f64(inputs[0])))


def _thresholded_relu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    return float_result(_where_nan(v, np.where(v > _p(params, "alpha"), v, 0.0)))


def _relu_grad(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x, dy = inputs
    return Expected(np.where(np.asarray(x) > 0, dy, 0).astype(out_dtype), True)


# --- oneDNN eltwise extensions (seed 003, forward column) ------------------------------------


def _gelu_tanh(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """0.5 s (1 + tanh(sqrt(2/pi) (s + 0.044715 s^3))) == s / (1 + e^-2u), in long double."""
    v = _hp(f64(inputs[0]))
    with np.errstate(all="ignore"):
        u = _SQRT_2_OVER_PI * (v + _LD("0.044715") * v * v * v)
        sig = 1 / (1 + np.exp(-2 * u))
        out = np.where(sig == 0, np.copysign(_LD(0), v), v * sig)  # gpuops: -0.0 at -inf
    return float_result(out.astype(np.float64))


def _log_sigmoid(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """-log(1 + e^-s)."""
    v = f64(inputs[0])
    with np.errstate(all="ignore"):
        return float_result(-_log1p_exp(-v))


def _mish(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """s tanh(log(1 + e^s))."""
    v = f64(inputs[0])
    with np.errstate(all="ignore"):
        t = np.tanh(_log1p_exp(v))
        return float_result(np.where(t == 0, np.copysign(0.0, v), v * t))  # gpuops: -0.0 at -inf


def _pow(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    with np.errstate(all="ignore"):
        # IEEE pow (C99 F.9.4.4: pow(-inf, 0.5) = +inf, pow(-0, 0.5) = +0): an exponent array of v's shape, since
        # NumPy takes x ** 0.5 with a scalar exponent as sqrt(x) (NaN at -inf, -0 at -0).
        p = np.power(v, np.full(v.shape, _p(params, "beta")))
        return _in_domain(_p(params, "alpha") * p, [p], out_dtype)


def _bounded_relu(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    a = _p(params, "alpha")
    out = np.select([(v > a) & (a >= 0), (v > 0) & (v <= a), v <= 0], [a, v, 0.0], np.nan)
    return float_result(out)


def _clip_v2(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    a, b = _p(params, "alpha"), _p(params, "beta")
    # gpuops: plain comparisons, as CLIP: a NaN bound clamps nothing (README, CLIP_V2's row), as
    # if it were -inf (alpha) or +inf (beta).
    a = -math.inf if math.isnan(a) else a
    b = math.inf if math.isnan(b) else b
    # gpuops: outside the seed's cases (beta < alpha < x) the result is beta; NaN stays NaN.
    beyond = np.where(np.isnan(v), np.nan, b)
    out = np.select([(v >= b) & (b >= a), (a < v) & (v < b), v <= a], [b, v, a], beyond)
    return float_result(out)


def _square(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    with np.errstate(all="ignore"):
        return float_result(v * v)


REFERENCES.update(
    {
        "ACTIVATION_RELU": _relu,
        "ACTIVATION_ELU": _elu,
        "ACTIVATION_SOFTPLUS": _softplus,
        "ACTIVATION_CELU": _celu,
        "ACTIVATION_GELU": _gelu,
        "ACTIVATION_HARD_SIGMOID": _hard_sigmoid,
        "ACTIVATION_HARD_SWISH": _hard_swish,
        "ACTIVATION_IDENTITY": _identity,
        "ACTIVATION_LEAKY_RELU": _leaky_relu,
        "ACTIVATION_LINEAR": _linear,
        "ACTIVATION_PARAMETERIZED_RELU": _parameterized_relu,
        "ACTIVATION_PARAMETRIC_SOFTPLUS": _parametric_softplus,
        "ACTIVATION_SCALED_ELU": _scaled_elu,
        "ACTIVATION_SCALED_TANH": _scaled_tanh,
        "ACTIVATION_SHRINK": _shrink,
        "ACTIVATION_SIGMOID": _sigmoid,
        "ACTIVATION_SOFTSIGN": _softsign,
        "ACTIVATION_SWISH": _swish,
        "ACTIVATION_TANH": _tanh,
        "ACTIVATION_THRESHOLDED_RELU": _thresholded_relu,
        "ACTIVATION_RELU_GRAD": _relu_grad,
        "ACTIVATION_GELU_TANH": _gelu_tanh,
        "ACTIVATION_LOG_SIGMOID": _log_sigmoid,
        "ACTIVATION_MISH": _mish,
        "ACTIVATION_POW": _pow,
        "ACTIVATION_BOUNDED_RELU": _bounded_relu,
        "ACTIVATION_CLIP_V2": _clip_v2,
        "ACTIVATION_SQUARE": _square,
    }
)

# --- data generators --------------------------------------------------------------------------

_GRID = np.arange(-32, 33, dtype=np.float64) / 8.0  # eighths in [-4, 4], exact in every float type


def _slopes(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """PARAMETERIZED_RELU slopes: eighths in [-2, 2] (float); small integers and, now and then,
    the type's extremes (so slope * x wraps)."""
    n = math.prod(shape)
    if dt.is_float:
        return rng.choice(_GRID[np.abs(_GRID) <= 2], size=n).astype(dt.numpy_dtype).reshape(shape)
    info = np.iinfo(dt.numpy_dtype)
    vals = rng.integers(-4, 5, size=n)
    big = rng.random(n) < 0.15
    vals[big] = rng.choice([int(info.min), int(info.max)], size=int(big.sum()))
    return vals.astype(dt.numpy_dtype).reshape(shape)


def _grad_inputs(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """RELU_GRAD's X: a third zeros (and -0.0 for floats), the rest of both signs."""
    n = math.prod(shape)
    if dt.is_float:
        vals = rng.choice(np.array([-2.5, -1.0, -0.125, 0.0, -0.0, 0.125, 1.0, 3.0]), size=n)
        return vals.astype(dt.numpy_dtype).reshape(shape)
    info = np.iinfo(dt.numpy_dtype)
    vals = rng.choice(np.array([int(info.min), -3, -1, 0, 0, 0, 1, 2, int(info.max)]), size=n)
    return vals.astype(dt.numpy_dtype).reshape(shape)


def _grad_values(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """RELU_GRAD's dY: nonzero values (so a passed gradient is told from a zeroed one)."""
    n = math.prod(shape)
    if dt.is_float:
        return rng.choice(_GRID[_GRID != 0], size=n).astype(dt.numpy_dtype).reshape(shape)
    info = np.iinfo(dt.numpy_dtype)
    vals = rng.choice(np.array([int(info.min), -7, -1, 1, 5, int(info.max)]), size=n)
    return vals.astype(dt.numpy_dtype).reshape(shape)


def _pow_bases(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Non-negative eighths in [0, 4] (fractional exponents), some negative ones (NaN/real results)."""
    n = math.prod(shape)
    vals = rng.choice(_GRID[_GRID >= 0], size=n)
    neg = rng.random(n) < 0.2
    vals[neg] = -vals[neg]
    return vals.astype(dt.numpy_dtype).reshape(shape)


DATA.update(
    {
        "ACTIVATION_PARAMETERIZED_RELU": (None, _slopes),  # type: ignore[dict-item]
        "ACTIVATION_RELU_GRAD": (_grad_inputs, _grad_values),
        "ACTIVATION_POW": (_pow_bases,),
    }
)

# --- parameter sets: the defaults first (or, without defaults, a typical set), then others ------

PARAMS.update(
    {
        "ACTIVATION_ELU": [{}, {"alpha": 0.25}],
        "ACTIVATION_SOFTPLUS": [{}, {"steepness": 3.0}, {"steepness": 0.5}, {"steepness": 1.3}],
        "ACTIVATION_CELU": [{}, {"alpha": 0.5}, {"alpha": 1.3}, {"alpha": -1.5}],
        "ACTIVATION_HARD_SIGMOID": [{}, {"alpha": 0.3, "beta": -0.1}, {"alpha": -0.7, "beta": 0.6}],
        "ACTIVATION_HARD_SWISH": [{}, {"alpha": 0.2, "beta": 0.4}, {"alpha": -0.3, "beta": 0.1}],
        "ACTIVATION_LEAKY_RELU": [{}, {"alpha": 0.3}, {"alpha": -1.5}],
        "ACTIVATION_LINEAR": [{"alpha": 1.5, "beta": -0.25}, {"alpha": 0.1, "beta": 0.3}, {"alpha": -3.7, "beta": 2.0}],
        "ACTIVATION_PARAMETRIC_SOFTPLUS": [
            {"alpha": 1.0, "beta": 1.0},
            {"alpha": 0.7, "beta": 2.3},
            {"alpha": -2.0, "beta": -0.6},
        ],
        "ACTIVATION_SCALED_ELU": [{}, {"alpha": 1.5, "gamma": 0.7}],
        "ACTIVATION_SCALED_TANH": [{}, {"alpha": 1.7159, "beta": 0.6666667}],
        "ACTIVATION_SHRINK": [
            {},
            {"bias": 0.25, "threshold": 1.0},
            {"bias": -1.5, "threshold": 0.0},
            {"bias": 2.0, "threshold": -3.0},
        ],
        "ACTIVATION_SWISH": [{}, {"sigmoid_input_scale": 1.702}, {"sigmoid_input_scale": -0.5}],
        "ACTIVATION_THRESHOLDED_RELU": [{}, {"alpha": -0.5}, {"alpha": 2.0}],
        "ACTIVATION_POW": [{"alpha": 1.0, "beta": 2.0}, {"alpha": -0.5, "beta": 3.0}, {"alpha": 2.0, "beta": 0.5}],
        "ACTIVATION_BOUNDED_RELU": [{"alpha": 1.0}, {"alpha": 2.5}, {"alpha": 0.0}],
        "ACTIVATION_CLIP_V2": [{"alpha": -1.0, "beta": 1.0}, {"alpha": -0.5, "beta": 0.0}, {"alpha": 2.0, "beta": 1.0}],
    }
)

# --- stated float32 accuracy (ulps, atol) ----------------------------------------------------
# Composed from the functions' error bounds against the exact value, the larger of the two
# backends: exp 3.5 (NumPy's float32 exp is validated to 3 ulps; CUDA expf 2), expm1 3.5,
# log1p 2.5, tanh 2.5, erfc/erfcx 4.5 (CUDA erfcf/erfcxf 4), pow 4.5 (CUDA powf 4), each basic
# operation 0.5; a function of a computed argument adds the argument's error times its condition
# number (bounded by 1 where used, or removed by the first-order corrections). Exact selections
# state 0. test_activation_accuracy.py measures the float32 errors on a dense grid.
# The stated accuracy is the op table's (descriptors/accuracy.py), pinned by hand in accuracy_bounds.PINNED:
# the tests hold each op to the pinned bound (tests/unit/test_accuracy_bounds.py: it equals the op table's).
TOLERANCE.update(pinned("ACTIVATION_"))

# --- edge cases: (inputs, params, expected, exact, dtypes per role) ---------------------------

_INF, _NAN = float("inf"), float("nan")
_F32 = {"input_tensor": DataType.FLOAT32, "output_tensor": DataType.FLOAT32}
_F64 = {"input_tensor": DataType.FLOAT64, "output_tensor": DataType.FLOAT64}
_I8 = {"input_tensor": DataType.INT8, "output_tensor": DataType.INT8}
_U8 = {"input_tensor": DataType.UINT8, "output_tensor": DataType.UINT8}
_I32 = {"input_tensor": DataType.INT32, "output_tensor": DataType.INT32}
_SPECIAL = [_NAN, _INF, -_INF, -0.0, 0.0]
_BIG = [100.0, -100.0, 1000.0, -1000.0]


def _sp(z: float) -> float:
    """log(1 + e^z) in Python floats."""
    return z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))


def _gelu_exact(x: float) -> float:
    return 0.5 * x * math.erfc(-x / math.sqrt(2.0))


EDGES.update(
    {
        "ACTIVATION_RELU": [
            ([[_NAN, -_INF, _INF, -0.0, -1e-45]], {}, [_NAN, 0.0, _INF, 0.0, 0.0], False, _F32),  # gpuops: +0.0
            ([[-128, 0, 5, 127]], {}, [0, 0, 5, 127], True, _I8),
        ],
        # expm1 keeps tiny negatives exact: alpha * (e^x - 1) ~ alpha * x near 0 (no cancellation).
        "ACTIVATION_ELU": [
            ([[-_INF, _INF, _NAN, -1e-10, 0.0]], {"alpha": 2.0}, [-2.0, _INF, _NAN, -2e-10, 0.0], False, _F32),
            ([[-0.0, -1e-30]], {}, [-0.0, -1e-30], False, _F32),
        ],
        # log(1 + e^x): no overflow for large x, e^x for very negative x.
        "ACTIVATION_SOFTPLUS": [
            (
                [[100.0, 1000.0, -100.0, 0.0, _INF, -_INF, _NAN]],
                {},
                [100.0, 1000.0, math.exp(-100.0), math.log(2.0), _INF, 0.0, _NAN],
                False,
                _F32,
            ),
            ([[-30.0, 30.0]], {"steepness": 3.0}, [_sp(-90.0) / 3, 30.0 + _sp(-90.0) / 3], False, _F32),
        ],
        "ACTIVATION_CELU": [
            ([_SPECIAL], {}, [_NAN, _INF, -1.0, -0.0, 0.0], False, _F32),
            ([[-1e-10, -1e-30, -100.0]], {"alpha": 2.0}, [-1e-10, -1e-30, 2.0 * math.expm1(-50.0)], False, _F32),
        ],
        # The negative tail: 0.5 x erfc(-x/sqrt 2) ~ -phi(x) = -e^(-x^2/2)/sqrt(2 pi) (no cancellation).
        "ACTIVATION_GELU": [
            ([_SPECIAL], {}, [_NAN, _INF, -0.0, -0.0, 0.0], False, _F32),
            (
                [[-10.0, -5.0, -12.0, 100.0, -100.0, 1e-10, -1e-30]],
                {},
                [_gelu_exact(-10.0), _gelu_exact(-5.0), _gelu_exact(-12.0), 100.0, -0.0, 0.5e-10, -0.5e-30],
                False,
                _F32,
            ),
            ([[-30.0, -37.0]], {}, [_gelu_exact(-30.0), _gelu_exact(-37.0)], False, _F64),
        ],
        "ACTIVATION_HARD_SIGMOID": [
            ([_SPECIAL + [-2.5, 2.5]], {}, [_NAN, 1.0, 0.0, 0.5, 0.5, 0.0, 1.0], False, _F32),
            ([[1.0, -_INF]], {"alpha": 0.0, "beta": 0.25}, [0.25, _NAN], False, _F32),  # IEEE 0 * inf
        ],
        "ACTIVATION_HARD_SWISH": [
            ([_SPECIAL + [-3.0, 3.0, 1.5]], {}, [_NAN, _INF, 0.0, -0.0, 0.0, 0.0, 3.0, 1.125], False, _F32),
        ],
        "ACTIVATION_IDENTITY": [
            ([[_NAN, -0.0, _INF, -_INF, 3.4028234663852886e38, 1e-45]], {}, None, True, _F32),
        ],
        "ACTIVATION_LEAKY_RELU": [
            ([_SPECIAL + [-2.0]], {}, [_NAN, _INF, -_INF, -0.0, 0.0, -0.02], False, _F32),
        ],
        "ACTIVATION_LINEAR": [
            ([[_NAN, _INF, -_INF, 2.0]], {"alpha": -1.0, "beta": 0.5}, [_NAN, -_INF, _INF, -1.5], False, _F32),
            # one rounding: 0.1f * 10 - 1 is 1.49e-8, not 0 (two roundings give 0)
            ([[10.0]], {"alpha": 0.1, "beta": -1.0}, [float(np.float32(0.1)) * 10 - 1], False, _F32),
        ],
        "ACTIVATION_PARAMETRIC_SOFTPLUS": [
            (
                [[100.0, -100.0, _INF, _NAN]],
                {"alpha": 2.0, "beta": 1.0},
                [200.0, 2 * math.exp(-100.0), _INF, _NAN],
                False,
                _F32,
            ),
        ],
        "ACTIVATION_SCALED_ELU": [
            (
                [_SPECIAL + [-1e-10]],
                {},
                [
                    _NAN,
                    1.05070102214813232421875 * _INF,
                    -1.67326319217681884765625 * 1.05070102214813232421875,
                    -0.0,
                    0.0,
                    -1e-10 * 1.67326319217681884765625 * 1.05070102214813232421875,
                ],
                False,
                _F32,
            ),
        ],
        "ACTIVATION_SCALED_TANH": [
            ([_SPECIAL + [100.0]], {"alpha": 2.0, "beta": 0.5}, [_NAN, 2.0, -2.0, -0.0, 0.0, 2.0], False, _F32),
        ],
        "ACTIVATION_SHRINK": [
            ([_SPECIAL + [0.5, -0.75, 2.0]], {}, [_NAN, _INF, -_INF, 0.0, 0.0, 0.0, -0.75, 2.0], False, _F32),
            ([[-128, -3, 0, 2, 127]], {"bias": 0.5, "threshold": 1.5}, [-127, -2, 0, 1, 126], True, _I8),
            ([[0, 1, 5, 255]], {"bias": -1.5, "threshold": 0.0}, [0, 2, 6, 255], True, _U8),  # saturates
            (
                [[2147483647, -2147483647, 7]],
                {"bias": 1e-10, "threshold": 0.0},
                [2147483646, -2147483646, 6],
                True,
                _I32,
            ),
        ],
        # e^x / (1 + e^x) for x < 0: no 1 - 1 cancellation, no overflow.
        "ACTIVATION_SIGMOID": [
            (
                [_SPECIAL + _BIG],
                {},
                [_NAN, 1.0, 0.0, 0.5, 0.5, 1.0, math.exp(-100.0), 1.0, 0.0],
                False,
                _F32,
            ),
        ],
        "ACTIVATION_SOFTSIGN": [
            ([_SPECIAL + [3.0, 3.4028234663852886e38]], {}, [_NAN, 1.0, -1.0, -0.0, 0.0, 0.75, 1.0], False, _F32),
        ],
        "ACTIVATION_SWISH": [
            ([_SPECIAL + [-100.0]], {}, [_NAN, _INF, -0.0, -0.0, 0.0, -100.0 * math.exp(-100.0)], False, _F32),
            ([[_INF, -_INF]], {"sigmoid_input_scale": -1.0}, [0.0, -_INF], False, _F32),
        ],
        "ACTIVATION_TANH": [
            ([_SPECIAL + [20.0, -1e-30]], {}, [_NAN, 1.0, -1.0, -0.0, 0.0, 1.0, -1e-30], False, _F32),
        ],
        "ACTIVATION_THRESHOLDED_RELU": [
            ([_SPECIAL + [1.0, 1.5]], {}, [_NAN, _INF, 0.0, 0.0, 0.0, 0.0, 1.5], False, _F32),
            ([[-0.0, -0.25, -1.0]], {"alpha": -0.5}, [-0.0, -0.25, 0.0], False, _F32),
        ],
        "ACTIVATION_RELU_GRAD": [
            (
                [[_NAN, 1.0, -0.0, 0.0, _INF, -_INF], [1.0, _NAN, 2.0, 3.0, -4.0, 5.0]],
                {},
                [0.0, _NAN, 0.0, 0.0, -4.0, 0.0],  # DirectML's formula: a NaN X gives 0
                True,
                {
                    "input_tensor": DataType.FLOAT32,
                    "input_gradient_tensor": DataType.FLOAT32,
                    "output_gradient_tensor": DataType.FLOAT32,
                },
            ),
            (
                [[-128, 0, 1, 127], [5, 6, -7, -128]],
                {},
                [0, 0, -7, -128],
                True,
                {
                    "input_tensor": DataType.INT8,
                    "input_gradient_tensor": DataType.INT8,
                    "output_gradient_tensor": DataType.INT8,
                },
            ),
        ],
        "ACTIVATION_PARAMETERIZED_RELU": [
            (
                [[_NAN, -2.0, -0.0, _INF, -_INF], [0.5, 0.5, 0.5, 0.5, 0.25]],
                {},
                [_NAN, -1.0, -0.0, _INF, -_INF],
                False,
                {"input_tensor": DataType.FLOAT32, "slope_tensor": DataType.FLOAT32, "output_tensor": DataType.FLOAT32},
            ),
            (
                [[-128, -3, 5, -100], [2, -1, 7, 3]],
                {},
                [0, 3, 5, -44],  # gpuops: -128 * 2 and -100 * 3 wrap
                True,
                {"input_tensor": DataType.INT8, "slope_tensor": DataType.INT8, "output_tensor": DataType.INT8},
            ),
        ],
        "ACTIVATION_GELU_TANH": [
            ([_SPECIAL + [100.0, -100.0]], {}, [_NAN, _INF, -0.0, -0.0, 0.0, 100.0, -0.0], False, _F32),
        ],
        "ACTIVATION_LOG_SIGMOID": [
            (
                [_SPECIAL + _BIG],
                {},
                [_NAN, -0.0, -_INF, -math.log(2.0), -math.log(2.0), -math.exp(-100.0), -100.0, -0.0, -1000.0],
                False,
                _F32,
            ),
        ],
        "ACTIVATION_MISH": [
            (
                [_SPECIAL + _BIG + [-20.0]],
                {},
                [
                    _NAN,
                    _INF,
                    -0.0,
                    -0.0,
                    0.0,
                    100.0,
                    -100.0 * math.exp(-100.0),
                    1000.0,
                    -0.0,
                    -20.0 * math.tanh(math.log1p(math.exp(-20.0))),
                ],
                False,
                _F32,
            ),
        ],
        "ACTIVATION_POW": [
            ([[-2.0, 0.0, _NAN, 4.0]], {"alpha": 3.0, "beta": 0.5}, [_NAN, 0.0, _NAN, 6.0], False, _F32),
            ([[_NAN, 0.0]], {"alpha": 1.0, "beta": 0.0}, [1.0, 1.0], False, _F32),  # IEEE pow(x, 0) == 1
        ],
        "ACTIVATION_BOUNDED_RELU": [
            ([_SPECIAL + [0.5, 2.0]], {"alpha": 1.0}, [_NAN, 1.0, 0.0, 0.0, 0.0, 0.5, 1.0], False, _F32),
        ],
        "ACTIVATION_CLIP_V2": [
            # beta if x >= beta: -0.0 against beta 0 gives +0.0 (oneDNN clip would keep -0.0)
            ([[-0.0, 0.0, -1.0, _NAN, _INF]], {"alpha": -0.5, "beta": 0.0}, [0.0, 0.0, -0.5, _NAN, 0.0], True, _F32),
            ([[0.0, 1.5, 3.0]], {"alpha": 2.0, "beta": 1.0}, [2.0, 2.0, 1.0], True, _F32),  # beta < alpha
        ],
        "ACTIVATION_SQUARE": [
            ([_SPECIAL + [1e20, -3.0]], {}, [_NAN, _INF, _INF, 0.0, 0.0, _INF, 9.0], False, _F32),
        ],
    }
)
# Parameters where a formula divides by 0 or multiplies 0 by inf, and arguments beyond float32's range
# (README: CELU, SHRINK on integers, CLIP_V2's row, activation limits); literal values.
_MAX32 = float(np.finfo(np.float32).max)
_IMIN, _IMAX = -(2**31), 2**31 - 1
_INTS = [[_IMIN, -5, -1, 0, 1, 3, _IMAX]]
EDGES["ACTIVATION_CELU"] += [
    # x if x >= 0 else alpha * expm1(x / alpha), in IEEE arithmetic: alpha +0.0 is -0.0 below 0 ...
    ([[-1e4, -3.0, -0.0, 2.0, _INF]], {"alpha": 0.0}, [-0.0, -0.0, -0.0, 2.0, _INF], True, _F32),
    # ... alpha -0.0, NaN, +-inf give NaN below 0 (x / -0.0 = inf, times -0.0; inf * -0.0)
    ([[-1e4, -3.0, -0.0, 2.0]], {"alpha": -0.0}, [_NAN, _NAN, -0.0, 2.0], False, _F32),
    ([[-1e4, -3.0, -0.0, 2.0]], {"alpha": _NAN}, [_NAN, _NAN, -0.0, 2.0], False, _F32),
    ([[-1e4, -3.0, -0.0, 2.0]], {"alpha": _INF}, [_NAN, _NAN, -0.0, 2.0], False, _F32),
    ([[-1e4, -3.0, -0.0, 2.0]], {"alpha": -_INF}, [_NAN, _NAN, -0.0, 2.0], False, _F32),
    # alpha < 0: x / alpha grows without bound; expm1 overflows to inf, and alpha * inf is -inf (not NaN).
    ([[-_INF, -1e4, -3.0]], {"alpha": -1.5}, [-_INF, -_INF, -1.5 * math.expm1(2.0)], False, _F32),
    ([[-_INF, -1e4, -3.0]], {"alpha": -1.5}, [-_INF, -_INF, -1.5 * math.expm1(2.0)], False, _F64),
]
EDGES["ACTIVATION_CLIP_V2"] += [
    # A NaN bound clamps nothing: plain comparisons, as CLIP.
    ([[-0.25, 3.0, -_INF, _INF, _NAN]], {"alpha": _NAN, "beta": 1.0}, [-0.25, 1.0, -_INF, 1.0, _NAN], True, _F32),
    ([[-3.0, 0.5, 3.0, _INF]], {"alpha": -1.0, "beta": _NAN}, [-1.0, 0.5, 3.0, _INF], True, _F32),
    ([[-3.0, 0.5]], {"alpha": _NAN, "beta": _NAN}, [-3.0, 0.5], True, _F32),
]
EDGES["ACTIVATION_SHRINK"] += [
    # Integers: a NaN bias gives 0 where it would be added; a NaN threshold compares false (0 everywhere);
    # an infinite bias or threshold acts as one, saturating.
    (_INTS, {"bias": _NAN, "threshold": 0.5}, [0, 0, 0, 0, 0, 0, 0], True, _I32),
    (_INTS, {"bias": 1.0, "threshold": _NAN}, [0, 0, 0, 0, 0, 0, 0], True, _I32),
    (_INTS, {"bias": _INF, "threshold": 0.5}, [_IMAX, _IMAX, _IMAX, 0, _IMIN, _IMIN, _IMIN], True, _I32),
    (_INTS, {"bias": -_INF, "threshold": 0.5}, [_IMIN, _IMIN, _IMIN, 0, _IMAX, _IMAX, _IMAX], True, _I32),
    (_INTS, {"bias": 1.5, "threshold": -_INF}, [_IMIN, -6, -2, -1, 0, 1, _IMAX - 2], True, _I32),
    (_INTS, {"bias": 1.5, "threshold": _INF}, [0, 0, 0, 0, 0, 0, 0], True, _I32),
]
EDGES["ACTIVATION_SOFTPLUS"] += [
    # steepness * x beyond float32's range: softplus(z) / steepness is x (z -> +inf) or +0.0 (z -> -inf).
    (
        [[2.125, -2.125, 1e30, -1e30, 0.5]],
        {"steepness": _MAX32},
        [2.125, 0.0, float(np.float32(1e30)), 0.0, 0.5],
        False,
        _F32,
    ),
]
EDGES["ACTIVATION_PARAMETRIC_SOFTPLUS"] += [
    # beta * x beyond float32's range: alpha * beta * x (finite for |alpha| < 1), 0 below.
    ([[1.125, -1.125, 2.0]], {"alpha": 0.25, "beta": _MAX32}, [0.25 * _MAX32 * 1.125, 0.0, 0.5 * _MAX32], False, _F32),
    ([[2.0, -2.0]], {"alpha": 0.0, "beta": _MAX32}, [0.0, 0.0], False, _F32),
]
# IDENTITY's expected values are its inputs, bit for bit.
_id = EDGES["ACTIVATION_IDENTITY"][0]
EDGES["ACTIVATION_IDENTITY"][0] = (_id[0], _id[1], _id[0][0], _id[3], _id[4])


OPINFOS = from_tables(REFERENCES, DATA, PARAMS, TOLERANCE, EDGES)
