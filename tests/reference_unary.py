"""References for the unary element-wise family (see opinfo.py for the contract).

Formulas from docs/reference/directml.md sections 2.2 and 9, evaluated point by point with
Python's ``math`` module in float64 (an implementation independent of NumPy's float32
loops), or exactly: selections, rounding, integers with Python ints, bits as unsigned ints.

Comparison semantics gpuops chose where DirectML is silent (ops/unary.py's docstring):
``max(Min, x)`` is ``Min if x < Min else x`` and ``min(Max, v)`` is ``Max if v > Max else v``
(NaN x stays NaN, a NaN bound clamps nothing); FLOAT bounds on integer tensors compare as
real numbers; CLIP_GRAD passes the gradient for NaN x.

``TOLERANCE`` is the stated float32 accuracy of each operator, in ulps, on both backends:
the larger of CUDA's documented maximum ulp error for the float32 function (CUDA C++
Programming Guide, "Mathematical Functions", single precision) and NumPy's own documented
bound for its float32 loop (the ``ulperrortol`` column of NumPy's
``umath-validation-set-<fn>.csv``, which covers its SIMD/SVML loops on AVX2 and AVX-512).
Measured maxima on this machine's NumPy backend are in the comments next to each bound.
tests/ops/test_umath_validation.py holds both backends to these bounds on NumPy's tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
from accuracy_bounds import pinned
from opinfo import from_tables
from reference_common import Expected, f64, float_result, scaled

from descriptors import DataType, IsInfinityMode, RoundingMode
from descriptors.optable import ELEMENTWISE_ROWS
from descriptors.schema import Family

REFERENCES: dict[str, Callable[..., Any]] = {}
DATA: dict[str, tuple[Callable[..., Any], ...]] = {}
PARAMS: dict[str, list[dict[str, Any]]] = {}
TOLERANCE: dict[str, tuple[float, float]] = {}
EDGES: dict[str, list[tuple[Any, ...]]] = {}

_INF, _NAN = math.inf, math.nan


def _v(x: np.ndarray, scale_bias: Any) -> np.ndarray:
    """The operand as float64: exact (float64 inputs too), or ScaleBias'ed in float32 first."""
    if scale_bias is None:
        return f64(x)
    return scaled(x, scale_bias)


def _is_int(x: np.ndarray) -> bool:
    return np.dtype(x.dtype).kind in "iu"


def _wrap(vals: list[int], out_dtype: np.dtype) -> np.ndarray:
    """Python ints wrapped to the output's width (two's complement for signed types)."""
    dt = np.dtype(out_dtype)
    bits = dt.itemsize * 8
    out = []
    for v in vals:
        v %= 1 << bits
        if dt.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=dt)


def _exact_float(values: np.ndarray, out_dtype: np.dtype) -> Expected:
    """A float64 result that the output type holds exactly (selections, integers): bit for bit."""
    return Expected(np.asarray(values, dtype=np.float64).astype(out_dtype), True)


def _pointwise(fn: Callable[[float], float], v: np.ndarray) -> np.ndarray:
    return np.array([fn(t) for t in v.ravel().tolist()], dtype=np.float64).reshape(v.shape)


# ---------------------------------------------------------------------------------------------
# Float math, from the definitions (IEEE/C99 Annex F values at the domain edges).


def _acos(t: float) -> float:
    return math.acos(t) if abs(t) <= 1 else _NAN


def _asin(t: float) -> float:
    return math.asin(t) if abs(t) <= 1 else _NAN


def _periodic(fn: Callable[[float], float]) -> Callable[[float], float]:
    return lambda t: _NAN if math.isinf(t) else fn(t)


def _cosh(t: float) -> float:
    try:
        return math.cosh(t)
    except OverflowError:
        return _INF


def _sinh(t: float) -> float:
    try:
        return math.sinh(t)
    except OverflowError:
        return math.copysign(_INF, t)


def _exp1(t: float) -> float:
    try:
        return math.exp(t)
    except OverflowError:
        return _INF


def _acosh(t: float) -> float:
    return math.acosh(t) if t >= 1 else _NAN


def _atanh(t: float) -> float:
    if abs(t) == 1:
        return math.copysign(_INF, t)
    return math.atanh(t) if abs(t) < 1 else _NAN


def _log(t: float) -> float:
    if t == 0:
        return -_INF
    return math.log(t) if t > 0 or math.isnan(t) else _NAN


def _sqrt(t: float) -> float:
    return math.sqrt(t) if t >= 0 or math.isnan(t) else _NAN  # sqrt(-0.0) == -0.0


def _recip(t: float) -> float:
    return math.copysign(_INF, t) if t == 0 else 1.0 / t


_MATH: dict[str, Callable[[float], float]] = {
    "ELEMENT_WISE_EXP": _exp1,
    "ELEMENT_WISE_ACOS": _acos,
    "ELEMENT_WISE_ASIN": _asin,
    "ELEMENT_WISE_ATAN": math.atan,
    "ELEMENT_WISE_COS": _periodic(math.cos),
    "ELEMENT_WISE_SIN": _periodic(math.sin),
    "ELEMENT_WISE_TAN": _periodic(math.tan),
    "ELEMENT_WISE_LOG": _log,
    "ELEMENT_WISE_SQRT": _sqrt,
    "ELEMENT_WISE_RECIP": _recip,
    "ELEMENT_WISE_ERF": math.erf,
    "ELEMENT_WISE_SINH": _sinh,
    "ELEMENT_WISE_COSH": _cosh,
    "ELEMENT_WISE_TANH": math.tanh,
    "ELEMENT_WISE_ASINH": math.asinh,
    "ELEMENT_WISE_ACOSH": _acosh,
    "ELEMENT_WISE_ATANH": _atanh,
}


def _math_ref(fn: Callable[[float], float]) -> Callable[..., Expected]:
    def ref(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
        return float_result(_pointwise(fn, _v(inputs[0], scale_bias)))

    return ref


REFERENCES.update({name: _math_ref(fn) for name, fn in _MATH.items()})


def _pow(t: float, e: float) -> float:
    """C99 pow (Annex F): a negative finite base needs an integral exponent (else NaN); 0 ** -n is inf."""
    odd = e == math.floor(e) and math.fmod(e, 2) != 0 if math.isfinite(e) else False
    try:
        return math.pow(t, e)
    except ValueError:  # 0 ** negative, or negative ** fractional
        if t == 0:
            return math.copysign(_INF, t) if odd else _INF
        return _NAN
    except OverflowError:
        return -_INF if t < 0 and odd else _INF


def _constant_pow(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    e = float(np.float32(params["exponent"]))
    return float_result(_pointwise(lambda t: _pow(t, e), _v(inputs[0], scale_bias)))


# ---------------------------------------------------------------------------------------------
# Exact operators.


def _identity(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if scale_bias is None:
        return Expected(np.asarray(x).astype(out_dtype), True)  # a copy, bit for bit
    return float_result(scaled(x, scale_bias))


def _abs(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if _is_int(x):
        return Expected(_wrap([abs(int(v)) for v in x.ravel().tolist()], out_dtype).reshape(x.shape), True)
    return float_result(np.abs(_v(x, scale_bias)))


def _negate(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if _is_int(x):
        return Expected(_wrap([-int(v) for v in x.ravel().tolist()], out_dtype).reshape(x.shape), True)
    return _exact_float(-f64(x), out_dtype)


def _sign_of(t: float) -> float:
    if t > 0:
        return 1.0
    if t < 0:
        return -1.0
    return 0.0 if t == 0 else t  # -0.0 -> +0.0, NaN stays


def _sign(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    if _is_int(x):
        return Expected(np.array([(v > 0) - (v < 0) for v in x.ravel().tolist()], out_dtype).reshape(x.shape), True)
    return _exact_float(_pointwise(_sign_of, f64(x)), out_dtype)


def _ceil_floor(fn: Callable[[float], int]) -> Callable[..., Expected]:
    def one(t: float) -> float:
        if math.isnan(t) or math.isinf(t):
            return t
        r = float(fn(t))
        return math.copysign(r, t) if r == 0 else r  # ceil(-0.5) == -0.0

    def ref(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
        return _exact_float(_pointwise(one, _v(inputs[0], scale_bias)), out_dtype)

    return ref


def _round_one(t: float, mode: int) -> float:
    if math.isnan(t) or math.isinf(t):
        return t
    if mode == RoundingMode.TOWARD_ZERO:
        r = float(math.trunc(t))
    elif mode == RoundingMode.TOWARD_INFINITY:  # halves away from zero (not ceil)
        whole = math.floor(abs(t))
        r = math.copysign(float(whole + (1 if abs(t) - whole >= 0.5 else 0)), t)
    else:  # HALVES_TO_NEAREST_EVEN: Python's round() is banker's rounding
        r = float(round(t))
    return math.copysign(r, t) if r == 0 else r


def _round(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    mode = int(params["rounding_mode"])
    return _exact_float(_pointwise(lambda t: _round_one(t, mode), f64(inputs[0])), out_dtype)


def _is_nan(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    return Expected(np.array([math.isnan(t) for t in v.ravel().tolist()]).astype(out_dtype).reshape(v.shape), True)


def _is_infinity(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    v = f64(inputs[0])
    mode = int(params["infinity_mode"])
    want = {IsInfinityMode.EITHER: (_INF, -_INF), IsInfinityMode.POSITIVE: (_INF,), IsInfinityMode.NEGATIVE: (-_INF,)}
    hits = [t in want[IsInfinityMode(mode)] for t in v.ravel().tolist()]
    return Expected(np.array(hits).astype(out_dtype).reshape(v.shape), True)


def _logical_not(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    return Expected(np.array([int(v) == 0 for v in x.ravel().tolist()]).astype(out_dtype).reshape(x.shape), True)


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(x: np.ndarray) -> list[int]:
    x = np.ascontiguousarray(x)
    return [int(b) for b in x.view(_UINT[x.dtype.itemsize]).ravel().tolist()]


def _bit_not(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    width = x.dtype.itemsize * 8
    flipped = np.array([(1 << width) - 1 - b for b in _bits(x)], dtype=_UINT[x.dtype.itemsize])
    return Expected(flipped.view(out_dtype).reshape(x.shape), True)


def _bit_count(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    return Expected(np.array([bin(b).count("1") for b in _bits(x)], dtype=out_dtype).reshape(x.shape), True)


def _if(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    c, a, b = inputs
    picked = [ab if int(cv) != 0 else bb for cv, ab, bb in zip(c.ravel().tolist(), _bits(a), _bits(b), strict=True)]
    return Expected(np.array(picked, dtype=_UINT[a.dtype.itemsize]).view(out_dtype).reshape(a.shape), True)


# FLOAT bounds on integer tensors, as real numbers: Min -> ceil(Min), Max -> floor(Max), saturated;
# a NaN bound clamps nothing.
def _int_bounds(dt: np.dtype, lo: float, hi: float) -> tuple[int, int]:
    info = np.iinfo(dt)
    mn, mx = int(info.min), int(info.max)
    lo_i = mn if math.isnan(lo) or lo < mn else (mx if lo > mx else math.ceil(lo))
    hi_i = mx if math.isnan(hi) or hi > mx else (mn if hi < mn else math.floor(hi))
    return lo_i, hi_i


def _max_of(lo: float, t: float) -> float:
    return lo if t < lo else t  # NaN t stays, NaN lo keeps t


def _min_of(hi: float, t: float) -> float:
    return hi if t > hi else t


def _clip(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    lo, hi = float(np.float32(params["min"])), float(np.float32(params["max"]))
    if _is_int(x):
        lo_i, hi_i = _int_bounds(x.dtype, lo, hi)
        vals = [_min_of(hi_i, _max_of(lo_i, int(t))) for t in x.ravel().tolist()]
        return Expected(np.array(vals, dtype=out_dtype).reshape(x.shape), True)
    return _exact_float(_pointwise(lambda t: _min_of(hi, _max_of(lo, t)), _v(x, scale_bias)), out_dtype)


def _typed(value: Any, out_dtype: np.dtype) -> Any:
    """A DML_SCALAR_UNION value read as the output's type (float16/bfloat16 round)."""
    dt = np.dtype(out_dtype)
    if dt.kind in "iu":
        return int(value)
    return float(np.asarray(value).astype(dt).astype(np.float64))


def _clip1(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    lo, hi = _typed(params["min"], out_dtype), _typed(params["max"], out_dtype)
    if _is_int(x):
        vals = [_max_of(lo, _min_of(hi, int(t))) for t in x.ravel().tolist()]
        return Expected(np.array(vals, dtype=out_dtype).reshape(x.shape), True)
    return _exact_float(_pointwise(lambda t: _max_of(lo, _min_of(hi, t)), _v(x, scale_bias)), out_dtype)


def _threshold(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    lo = float(np.float32(params["min"]))
    if _is_int(x):
        lo_i, _ = _int_bounds(x.dtype, lo, _NAN)
        return Expected(np.array([_max_of(lo_i, int(t)) for t in x.ravel().tolist()], out_dtype).reshape(x.shape), True)
    return _exact_float(_pointwise(lambda t: _max_of(lo, t), _v(x, scale_bias)), out_dtype)


def _clip_grad_with(lo: float, hi: float, inputs: list[np.ndarray], out_dtype: np.dtype) -> Expected:
    x, g = inputs
    # Python compares an int with a float exactly (as real numbers): x <= Min, x >= Max.
    xs = x.ravel().tolist() if _is_int(x) else f64(x).ravel().tolist()
    zero = [t <= lo or t >= hi for t in xs]
    if _is_int(g):
        vals = [0 if z else int(v) for z, v in zip(zero, g.ravel().tolist(), strict=True)]
        return Expected(np.array(vals, dtype=out_dtype).reshape(x.shape), True)
    vals = [0.0 if z else v for z, v in zip(zero, f64(g).ravel().tolist(), strict=True)]
    return _exact_float(np.array(vals).reshape(x.shape), out_dtype)


def _clip_grad(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    return _clip_grad_with(float(np.float32(params["min"])), float(np.float32(params["max"])), inputs, out_dtype)


def _clip_grad1(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    return _clip_grad_with(_typed(params["min"], out_dtype), _typed(params["max"], out_dtype), inputs, out_dtype)


# --- CAST: every pair of data types, exactly (README "Semantics") ---------------------------------------------
# Binary formats as (significant bits, exponent of the smallest normal, exponent of the largest finite).
_FORMATS = {
    np.dtype(np.float32): (24, -126, 127),
    np.dtype(np.float16): (11, -14, 15),
    np.dtype(ml_dtypes.bfloat16): (8, -126, 127),
}


def _round_nearest_even(q: Fraction, fmt: tuple[int, int, int]) -> float:
    """The rational ``q`` rounded once to the nearest value of a binary format, ties to even; beyond the largest
    finite value (by half an ulp or more) it is an infinity (IEEE 754 roundTiesToEven)."""
    p, emin, emax = fmt
    if q == 0:
        return 0.0
    sign, q = (-1.0 if q < 0 else 1.0), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    ulp = Fraction(2) ** (max(e, emin) - p + 1)
    k, rem = divmod(q, ulp)
    if rem * 2 > ulp or (rem * 2 == ulp and k % 2 == 1):
        k += 1
    value = k * ulp
    return sign * (math.inf if value >= Fraction(2) ** (emax + 1) else float(value))


def _cast_one(v: float | int, out: np.dtype) -> float | int | bool:
    if out == np.bool_:
        return bool(v != 0)  # NaN is nonzero
    if out.kind in "iu":
        info = np.iinfo(out)
        if isinstance(v, float):
            if math.isnan(v):
                return 0
            if math.isinf(v):
                return info.max if v > 0 else info.min
            return min(max(math.trunc(v), int(info.min)), int(info.max))
        return (v - int(info.min)) % (int(info.max) - int(info.min) + 1) + int(info.min)  # wraps
    if out == np.float64 or (isinstance(v, float) and (math.isnan(v) or math.isinf(v) or v == 0)):
        return float(v)  # int -> float64: Python rounds to nearest even
    return _round_nearest_even(Fraction(v), _FORMATS[out])


def _cast(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    x = inputs[0]
    out = np.dtype(out_dtype)
    if x.dtype.kind in "biu":
        values: list[float | int] = [int(v) for v in x.ravel().tolist()]
    else:
        values = x.astype(np.float64).ravel().tolist()  # float16/bfloat16/float32 are exact in float64
    flat = [_cast_one(v, out) for v in values]
    holder = object if out.kind in "iu" else np.float64  # Python ints beyond int64 (uint64) stay exact
    with np.errstate(invalid="ignore"):  # NaN into bfloat16 (ml_dtypes warns); every value is representable
        return Expected(np.array(flat, dtype=holder).astype(out).reshape(x.shape), True)


def _cast_data(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """Integers over their whole range; floats: random bit patterns (NaN, infinities, subnormals, every
    magnitude), values around the integer ranges' ends, and halves near zero."""
    if not dt.is_float:
        return _raw_bits(dt, shape, rng)
    n = math.prod(shape)
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        vals = _raw_bits(dt, (n,), rng).astype(np.float64)
    ends = np.array([2.0**k for k in (7, 8, 15, 16, 31, 32, 63, 64)])
    pick = rng.random(n)
    near = pick < 0.3
    vals[near] = rng.choice(np.concatenate([ends, -ends]), int(near.sum())) * rng.choice(
        [0.999, 1.0, 1.001], int(near.sum())
    )
    small = (pick >= 0.3) & (pick < 0.6)
    vals[small] = rng.integers(-600, 600, int(small.sum())) / 4.0
    with np.errstate(over="ignore"):  # 2**64 and friends overflow float16 to infinity, as they should
        return vals.astype(dt.numpy_dtype).reshape(tuple(shape))


# --- QUANTIZE_LINEAR / DEQUANTIZE_LINEAR (DirectML's formulas; README "Semantics") -----------------------------


def _quantize_linear(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """clamp(round(x / scale) + zero_point): the division in float32 (IEEE, what the operator computes in),
    rounding half to even (Python's round), NaN -> 0, saturated to the output type."""
    x, scale, zero = (*inputs, None)[:3]
    zero = np.zeros(x.shape, np.int64) if zero is None else zero  # an absent zero point is 0
    info = np.iinfo(out_dtype)
    with np.errstate(all="ignore"):
        q = (x.astype(np.float32) / scale.astype(np.float32)).astype(np.float64).ravel().tolist()
    flat = []
    for v, zp in zip(q, zero.ravel().tolist(), strict=True):
        if math.isnan(v):
            flat.append(0)
            continue
        total = v + zp if math.isinf(v) else round(v) + int(zp)
        flat.append(int(min(max(total, info.min), info.max)))
    return Expected(np.array(flat, dtype=np.int64).astype(out_dtype).reshape(x.shape), True)


def _dequantize_linear(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
    """(x - zero_point) exactly, rounded once to float32, times the scale in float32 (IEEE), rounded to the output
    type."""
    x, scale, zero = (*inputs, None)[:3]
    zero = np.zeros(x.shape, np.int64) if zero is None else zero  # an absent zero point is 0
    diff = np.array([int(a) - int(b) for a, b in zip(x.ravel().tolist(), zero.ravel().tolist(), strict=True)])
    with np.errstate(all="ignore"):
        prod = diff.astype(np.float64).astype(np.float32) * scale.astype(np.float32).ravel()
        return Expected(prod.astype(out_dtype).reshape(x.shape), True)


def _q_input(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """Quantize inputs: floats over [-400, 400] on a quarter grid (ties after dividing by the scale), specials
    mixed in; INT32 over a range that needs saturation."""
    n = math.prod(shape)
    if not dt.is_float:
        return _as(dt, rng.integers(-2000, 2000, n), shape)
    vals = rng.integers(-1600, 1600, n) / 4.0
    pick = rng.random(n) < 0.1
    vals[pick] = rng.choice(np.array([_NAN, _INF, -_INF, 0.5, 1.5, -2.5, 1e30]), int(pick.sum()))
    with np.errstate(over="ignore"):  # 1e30 is infinite in float16
        return _as(dt, vals, shape)


def _q_scale(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    return _as(dt, rng.choice(np.array([0.25, 0.5, 1.0, 2.0, 3.0, 0.1]), math.prod(shape)), shape)


def _dq_scale(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    return _as(dt, rng.choice(np.array([0.5, 0.25, 1.5, 0.1, -2.0, 3e-3]), math.prod(shape)), shape)


# --- QUANTIZED_LINEAR_ADD: float32 arithmetic worked exactly (fractions), rounded by IEEE 754's rules ----------
#
# The README's semantics: every operand in float32, (a - a_zero_point) exact, then one rounding to float32 for
# each product, the sum and the quotient, in that order; rint half to even; + output_zero_point; CAST's
# saturation (NaN -> 0). Each step below is the exact real result (Fraction) rounded once, by hand, to the
# nearest float32 (ties to even, subnormals, overflow to infinity), with IEEE 754's special cases (NaN,
# infinities, signed zeros) taken from the standard's tables: nothing of NumPy's or the C library's float32.
# The last two steps are integer arithmetic: rint(q) + zo in float32 equals the exact integer sum whenever
# the sum lies within int8/uint8's range (|rint(q)| <= 2**24 there, and float32 holds every integer up to
# 2**24 exactly), and beyond it both saturate to the same end (rounding is monotonic).

_F32_MANT = 24
_F32_EMIN = -126
_F32_OVERFLOW = 2**128  # a rounded magnitude this large is infinite in float32


def _round_f32(q: Fraction) -> float:
    """The float32 nearest the real ``q`` (ties to even; overflow to +-inf), as a Python float; ``q != 0``."""
    sign, a = (-1.0 if q < 0 else 1.0), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2**e <= a < 2**(e + 1), after the fix below
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, _F32_EMIN) - (_F32_MANT - 1))  # below 2**-126: the subnormals' fixed step
    m = a / quantum
    n, rest = divmod(m.numerator, m.denominator)
    half = Fraction(rest, m.denominator) - Fraction(1, 2)
    if half > 0 or (half == 0 and n % 2 == 1):
        n += 1
    v = n * quantum
    return sign * (math.inf if v >= _F32_OVERFLOW else float(v))


def _f32_mul(x: float, y: float) -> float:
    """x * y rounded to float32 (x, y float32 values)."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    sign = math.copysign(1.0, x) * math.copysign(1.0, y)
    if math.isinf(x) or math.isinf(y):
        return math.nan if x == 0 or y == 0 else sign * math.inf  # inf * 0 is invalid
    exact = Fraction(x) * Fraction(y)
    return sign * 0.0 if exact == 0 else _round_f32(exact)


def _f32_add(x: float, y: float) -> float:
    """x + y rounded to float32 (x, y float32 values)."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if math.isinf(x) or math.isinf(y):
        if math.isinf(x) and math.isinf(y) and x != y:
            return math.nan  # inf - inf is invalid
        return x if math.isinf(x) else y
    exact = Fraction(x) + Fraction(y)
    if exact == 0:  # an exact zero sum is +0 in round to nearest, unless both addends are -0
        return -0.0 if math.copysign(1.0, x) < 0 and math.copysign(1.0, y) < 0 else 0.0
    return _round_f32(exact)


def _f32_div(x: float, y: float) -> float:
    """x / y rounded to float32 (x, y float32 values)."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    sign = math.copysign(1.0, x) * math.copysign(1.0, y)
    if math.isinf(x):
        return math.nan if math.isinf(y) else sign * math.inf
    if math.isinf(y):
        return sign * 0.0
    if y == 0:
        return math.nan if x == 0 else sign * math.inf  # 0 / 0 is invalid; x / 0 divides by zero
    exact = Fraction(x) / Fraction(y)
    return sign * 0.0 if exact == 0 else _round_f32(exact)


def _quantized_linear_add(
    inputs: list[np.ndarray | None], out_dtype: np.dtype, params: dict, scale_bias: Any
) -> Expected:
    """saturate(rint(((a - za) * sa + (b - zb) * sb) / so) + zo): float32 steps worked exactly (see above), an
    absent zero point 0, NaN -> 0."""
    a, sa, za, b, sb, zb, so, zo = (*inputs, *[None] * 8)[:8]
    assert a is not None and b is not None and sa is not None and sb is not None and so is not None
    shape = a.shape
    zeros = [0] * a.size

    def ints(v: np.ndarray | None) -> list[int]:
        return zeros if v is None else [int(t) for t in np.asarray(v).ravel().tolist()]

    def f32s(v: np.ndarray) -> list[float]:  # float32 values, exactly, as Python floats
        return np.asarray(v, dtype=np.float32).astype(np.float64).ravel().tolist()

    info = np.iinfo(out_dtype)
    flat = []
    for qa, ta, pa, qb, tb, pb, to, po in zip(
        ints(a), f32s(sa), ints(za), ints(b), f32s(sb), ints(zb), f32s(so), ints(zo), strict=True
    ):
        total = _f32_add(_f32_mul(float(qa - pa), ta), _f32_mul(float(qb - pb), tb))  # qa - pa: exact in float32
        q = _f32_div(total, to)
        if math.isnan(q):
            flat.append(0)
        elif math.isinf(q):
            flat.append(info.max if q > 0 else info.min)
        else:
            flat.append(min(max(round(Fraction(q)) + po, info.min), info.max))  # round(): half to even
    return Expected(np.array(flat, dtype=np.int64).astype(out_dtype).reshape(shape), True)


def _qla_scale(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """A/B scales: powers of two (exact products, so ties after the division), decimals that round, a negative
    one and a tiny one."""
    pool = np.array([0.5, 0.25, 2.0, 0.125, 0.1, 0.3, 1.5, -0.5, 3e-3, 1e-20])
    return _as(dt, rng.choice(pool, math.prod(shape)), shape)


def _qla_out_scale(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """Output scales: powers of two (x.5 quotients: ties), values that make the quotient round, a negative one."""
    return _as(dt, rng.choice(np.array([1.0, 0.5, 2.0, 0.25, 0.7, 0.05, 3.0, -1.0]), math.prod(shape)), shape)


def _qla_zero(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """Zero points near the middle of the type's range (a tenth at its ends)."""
    n = math.prod(shape)
    info = np.iinfo(dt.numpy_dtype)
    mid = (int(info.min) + int(info.max) + 1) // 2
    vals = rng.integers(mid - 20, mid + 20, n)
    pick = rng.random(n) < 0.1
    vals[pick] = rng.choice(np.array([int(info.min), int(info.max)]), int(pick.sum()))
    return _as(dt, vals, shape)


def _scalar_as(value: Any, out_dtype: np.dtype) -> np.ndarray:
    """A DML_SCALAR_UNION value read as the output's type (a float rounded to it once)."""
    with np.errstate(invalid="ignore"):  # NaN into bfloat16
        return np.array(value, dtype=np.float64 if isinstance(value, float) else object).astype(out_dtype)


def _fill_constant(
    inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any, *, shape: tuple[int, ...]
) -> Expected:
    """FILL_VALUE_CONSTANT: Value read as the output's type, in every element."""
    return Expected(np.broadcast_to(_scalar_as(params["value"], out_dtype), shape), True)


def _fill_sequence(
    inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any, *, shape: tuple[int, ...]
) -> Expected:
    """FILL_VALUE_SEQUENCE: start + i * delta, ``i`` the row-major index over ``shape``; bit for bit.

    Integers: Python integers, exact, reduced modulo 2**bits. Floats: the semantics' steps in Python floats
    (IEEE doubles), each rounded once to the compute type with NumPy's scalar conversion: ``i``, the product
    (of two float32 values: exact in a double before that rounding), the sum (a double's rounding first is
    innocuous for one operation on float32 values, 53 >= 2 * 24 + 2), then a 16-bit output once more. No
    gpuops code and no array arithmetic is involved; the tolerance is zero (any NaN matches any NaN).
    """
    out_dtype = np.dtype(out_dtype)
    n = math.prod(shape)
    if out_dtype.kind in "iu":
        bits = 8 * out_dtype.itemsize
        s, d = int(params["value_start"]), int(params["value_delta"])
        vals = [(s + i * d) % 2**bits for i in range(n)]
        if out_dtype.kind == "i":
            vals = [v - 2**bits if v >= 2 ** (bits - 1) else v for v in vals]
        return Expected(np.array(vals, dtype=out_dtype).reshape(shape), True)
    s = float(_scalar_as(params["value_start"], out_dtype))
    d = float(_scalar_as(params["value_delta"], out_dtype))
    if out_dtype == np.float64:
        vals = [s + float(i) * d for i in range(n)]
        return Expected(np.array(vals, dtype=np.float64).reshape(shape), True)

    def r32(v: float) -> float:
        with np.errstate(over="ignore"):
            return float(np.float32(v))

    vals = [r32(s + r32(r32(float(i)) * d)) for i in range(n)]
    with np.errstate(invalid="ignore", over="ignore"):
        return Expected(np.array(vals, dtype=np.float32).astype(out_dtype).reshape(shape), True)


REFERENCES.update(
    {
        "CAST": _cast,
        "FILL_VALUE_CONSTANT": _fill_constant,
        "FILL_VALUE_SEQUENCE": _fill_sequence,
        "ELEMENT_WISE_QUANTIZE_LINEAR": _quantize_linear,
        "ELEMENT_WISE_DEQUANTIZE_LINEAR": _dequantize_linear,
        "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": _quantized_linear_add,
        "ELEMENT_WISE_IDENTITY": _identity,
        "ELEMENT_WISE_ABS": _abs,
        "ELEMENT_WISE_NEGATE": _negate,
        "ELEMENT_WISE_SIGN": _sign,
        "ELEMENT_WISE_CEIL": _ceil_floor(math.ceil),
        "ELEMENT_WISE_FLOOR": _ceil_floor(math.floor),
        "ELEMENT_WISE_ROUND": _round,
        "ELEMENT_WISE_CONSTANT_POW": _constant_pow,
        "ELEMENT_WISE_IS_NAN": _is_nan,
        "ELEMENT_WISE_IS_INFINITY": _is_infinity,
        "ELEMENT_WISE_LOGICAL_NOT": _logical_not,
        "ELEMENT_WISE_BIT_NOT": _bit_not,
        "ELEMENT_WISE_BIT_COUNT": _bit_count,
        "ELEMENT_WISE_IF": _if,
        "ELEMENT_WISE_CLIP": _clip,
        "ELEMENT_WISE_CLIP1": _clip1,
        "ELEMENT_WISE_THRESHOLD": _threshold,
        "ELEMENT_WISE_CLIP_GRAD": _clip_grad,
        "ELEMENT_WISE_CLIP_GRAD1": _clip_grad1,
    }
)

# ---------------------------------------------------------------------------------------------
# Data: where random eighths in [-4, 4] miss the domain or the interesting part of it.


def _as(dt: DataType, vals: np.ndarray, shape: Any) -> np.ndarray:
    return np.asarray(vals).astype(dt.numpy_dtype).reshape(tuple(shape))


def _uniform(lo: float, hi: float, extra: tuple[float, ...] = ()) -> Callable[..., np.ndarray]:
    """Uniform in [lo, hi] (off the eighths grid, so results round), with ``extra`` values mixed in."""

    def gen(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
        n = math.prod(shape)
        vals = rng.uniform(lo, hi, n)
        if extra:
            pick = rng.random(n) < 0.2
            vals[pick] = rng.choice(np.array(extra), int(pick.sum()))
        return _as(dt, vals, shape)

    return gen


def _log_uniform(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """Positives spread over 2**-12 .. 2**12, with some zeros and negatives (-inf, NaN)."""
    n = math.prod(shape)
    vals = np.exp2(rng.uniform(-12, 12, n))
    special = rng.random(n)
    vals[special < 0.1] = 0.0
    vals[(special >= 0.1) & (special < 0.2)] *= -1
    return _as(dt, vals, shape)


def _with_specials(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    n = math.prod(shape)
    vals = rng.uniform(-4, 4, n)
    pick = rng.random(n) < 0.5
    vals[pick] = rng.choice(np.array([_NAN, _INF, -_INF, 0.0, -0.0]), int(pick.sum()))
    return _as(dt, vals, shape)


def _raw_bits(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    n = math.prod(shape)
    raw = rng.integers(0, 256, size=n * dt.numpy_dtype.itemsize, dtype=np.uint8)
    if dt is DataType.BOOL:
        raw &= 1
    return raw.view(dt.numpy_dtype).reshape(tuple(shape)).copy()


def _condition(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    """0, 1 and 2 (nonzero is true, not only 1); bool where the condition is BOOL."""
    n = math.prod(shape)
    if dt is DataType.BOOL:
        return (rng.random(n) < 0.5).reshape(tuple(shape))
    return rng.choice(np.array([0, 1, 2]), n).astype(dt.numpy_dtype).reshape(tuple(shape))


def _logical(dt: DataType, shape: Any, rng: np.random.Generator) -> np.ndarray:
    n = math.prod(shape)
    if dt is DataType.BOOL:
        return (rng.random(n) < 0.5).reshape(tuple(shape))
    return rng.choice(np.array([0, 0, 1, 2, 3, 128]), n).astype(dt.numpy_dtype).reshape(tuple(shape))


DATA.update(
    {
        "ELEMENT_WISE_ACOS": (_uniform(-1.0, 1.0, (-1.0, 1.0, 0.0, 1.5, -2.0)),),
        "ELEMENT_WISE_ASIN": (_uniform(-1.0, 1.0, (-1.0, 1.0, 0.0, 1.5, -2.0)),),
        "ELEMENT_WISE_ATANH": (_uniform(-1.0, 1.0, (-1.0, 1.0, 0.0, 1.5, -2.0)),),
        "ELEMENT_WISE_ACOSH": (_uniform(1.0, 64.0, (1.0, 0.5, 0.0, -3.0)),),
        "ELEMENT_WISE_ATAN": (_uniform(-16.0, 16.0),),
        "ELEMENT_WISE_COS": (_uniform(-8.0, 8.0),),
        "ELEMENT_WISE_SIN": (_uniform(-8.0, 8.0),),
        "ELEMENT_WISE_TAN": (_uniform(-4.0, 4.0),),
        "ELEMENT_WISE_SINH": (_uniform(-8.0, 8.0),),
        "ELEMENT_WISE_COSH": (_uniform(-8.0, 8.0),),
        "ELEMENT_WISE_TANH": (_uniform(-4.0, 4.0),),
        "ELEMENT_WISE_ASINH": (_uniform(-64.0, 64.0),),
        "ELEMENT_WISE_ERF": (_uniform(-3.0, 3.0),),
        "ELEMENT_WISE_EXP": (_uniform(-8.0, 8.0),),
        "ELEMENT_WISE_LOG": (_log_uniform,),
        "ELEMENT_WISE_SQRT": (_log_uniform,),
        "ELEMENT_WISE_RECIP": (_uniform(-4.0, 4.0, (0.0,)),),
        "ELEMENT_WISE_CEIL": (_uniform(-4.0, 4.0, (0.5, -0.5, -0.25)),),
        "ELEMENT_WISE_FLOOR": (_uniform(-4.0, 4.0, (0.5, -0.5, -0.25)),),
        # Ties (eighths include 0.5, 1.5, 2.5, -2.5) plus values off the grid.
        "ELEMENT_WISE_ROUND": (_uniform(-4.0, 4.0, (0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.25, 0.25)),),
        "ELEMENT_WISE_IS_NAN": (_with_specials,),
        "ELEMENT_WISE_IS_INFINITY": (_with_specials,),
        "ELEMENT_WISE_LOGICAL_NOT": (_logical,),
        "ELEMENT_WISE_BIT_NOT": (_raw_bits,),
        "ELEMENT_WISE_BIT_COUNT": (_raw_bits,),
        "ELEMENT_WISE_IF": (_condition, _raw_bits, _raw_bits),
        "CAST": (_cast_data,),
        "ELEMENT_WISE_QUANTIZE_LINEAR": (_q_input, _q_scale, _raw_bits),
        "ELEMENT_WISE_DEQUANTIZE_LINEAR": (_raw_bits, _dq_scale, _raw_bits),
        # A and B over their whole range (saturation at both ends follows), zero points near the middle.
        "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": (
            _raw_bits,
            _qla_scale,
            _qla_zero,
            _raw_bits,
            _qla_scale,
            _qla_zero,
            _qla_out_scale,
            _qla_zero,
        ),
    }
)

PARAMS.update(
    {
        "FILL_VALUE_CONSTANT": [{"value": 13}, {"value": 0}, {"value": 100}],
        # Values every type holds; 100 + 7i and 127 + 127i wrap INT8 (and UINT8) within the tests' sizes, and
        # 127 + 127i passes 2048 in FLOAT16 and 256 in BFLOAT16, where their spacing rounds odd values.
        "FILL_VALUE_SEQUENCE": [
            {"value_start": 3, "value_delta": 2},
            {"value_start": 100, "value_delta": 7},
            {"value_start": 127, "value_delta": 127},
            {"value_start": 0, "value_delta": 0},
        ],
        "ELEMENT_WISE_ROUND": [
            {},  # HALVES_TO_NEAREST_EVEN, DirectML's default
            {"rounding_mode": RoundingMode.TOWARD_ZERO},
            {"rounding_mode": RoundingMode.TOWARD_INFINITY},
            {"rounding_mode": RoundingMode.HALVES_TO_NEAREST_EVEN},
        ],
        "ELEMENT_WISE_IS_INFINITY": [
            {},
            {"infinity_mode": IsInfinityMode.POSITIVE},
            {"infinity_mode": IsInfinityMode.NEGATIVE},
        ],
        # Fractional bounds (ceil/floor on integer tensors), Min > Max, bounds beyond int8.
        "ELEMENT_WISE_CLIP": [
            {"min": -1.5, "max": 2.25},
            {"min": 2.0, "max": -1.0},
            {"min": -200.5, "max": 1000.5},
        ],
        # Typed bounds must hold in every type, unsigned included.
        "ELEMENT_WISE_CLIP1": [{"min": 1, "max": 3}, {"min": 3, "max": 1}, {"min": 0, "max": 100}],
        "ELEMENT_WISE_THRESHOLD": [{"min": -1.0}, {"min": 0.5}, {"min": -1000.0}],
        "ELEMENT_WISE_CONSTANT_POW": [{"exponent": 2.0}, {"exponent": 0.5}, {"exponent": -1.0}, {"exponent": 3.0}],
        "ELEMENT_WISE_CLIP_GRAD": [{"min": -1.0, "max": 2.0}, {"min": -1.5, "max": 2.5}, {"min": 3.0, "max": -3.0}],
        "ELEMENT_WISE_CLIP_GRAD1": [{"min": 1, "max": 3}, {"min": 0, "max": 100}],
    }
)

# (ulps, atol) for float32 (and float64) outputs: the stated accuracy (module docstring).
# Comments: CUDA's documented float32 bound / NumPy's documented float32 bound (ulperrortol of its
# validation table) / measured on this machine's NumPy backend (AVX2): max error against the
# float64 reference on 10**6-point random ranges; max ulps on NumPy's validation table.
# The stated accuracy is the op table's (descriptors/accuracy.py), pinned by hand in accuracy_bounds.PINNED:
# the tests hold each op to the pinned bound (tests/unit/test_accuracy_bounds.py: it equals the op table's).
TOLERANCE.update(pinned("ELEMENT_WISE_", exclude=tuple(r.name for r in ELEMENTWISE_ROWS if r.family is Family.BINARY)))

# ---------------------------------------------------------------------------------------------
# Edge cases: (inputs, params, expected, exact, dtypes per role).


def _io(in_dt: DataType, out_dt: DataType | None = None) -> dict[str, DataType]:
    return {"input_tensor": in_dt, "output_tensor": out_dt or in_dt}


def _seq(dt: DataType, start: Any, delta: Any, expected: list[Any]) -> tuple[Any, ...]:
    """A FILL_VALUE_SEQUENCE edge: a 1-D output of ``len(expected)`` elements, compared bit for bit (integers as
    an array of the type: NumPy reads a list mixing values above and below 2**63 as floats), except where a NaN
    is expected: then by class (a NaN's sign and payload are the hardware's; zeros and infinities keep their
    signs, and the other values are exact floats the test's 4-eps bound cannot confuse)."""
    want: Any = np.array(expected, dt.numpy_dtype) if not dt.is_float else expected
    exact = not any(isinstance(v, float) and math.isnan(v) for v in expected)
    return ([], {"value_data_type": dt, "value_start": start, "value_delta": delta}, want, exact, {"output_tensor": dt})


def _qla_types(a: DataType, b: DataType, out: DataType) -> dict[str, DataType]:
    """QUANTIZED_LINEAR_ADD's tensor types: each zero point has its tensor's type, the scales FLOAT32."""
    f32 = DataType.FLOAT32
    return {
        **{"a_tensor": a, "a_scale_tensor": f32, "a_zero_point_tensor": a},
        **{"b_tensor": b, "b_scale_tensor": f32, "b_zero_point_tensor": b},
        **{"output_scale_tensor": f32, "output_zero_point_tensor": out, "output_tensor": out},
    }


_F32 = _io(DataType.FLOAT32)
_F16 = _io(DataType.FLOAT16)
_I8 = _io(DataType.INT8)
_MAXF = 3.4028234663852886e38
_SUB = 2.0**-149  # the smallest float32 subnormal
_SUB_F = float(np.float32(1e-40))  # a float32 subnormal (rounded to the float32 grid)


def _f32(v: float) -> float:
    return float(np.float32(v))


def _U64(values: list[int]) -> np.ndarray:  # noqa: N802 - reads as a type
    """UINT64 literals (NumPy would make [0, 2**64 - 1] float64)."""
    return np.array(values, dtype=np.uint64)


def _bits_f32(bits: int) -> float:
    return float(np.uint32(bits).view(np.float32))


EDGES.update(
    {
        "ELEMENT_WISE_IDENTITY": [
            ([[_NAN, -0.0, _INF, -_INF, _MAXF, _SUB]], {}, [_NAN, -0.0, _INF, -_INF, _MAXF, _SUB], True, _F32),
        ],
        "ELEMENT_WISE_ABS": [
            ([[-0.0, -_INF, _NAN, -2.5]], {}, [0.0, _INF, _NAN, 2.5], False, _F32),
            ([[-128, -127, 0, 127]], {}, [-128, 127, 0, 127], True, _I8),  # abs(INT_MIN) wraps
        ],
        "ELEMENT_WISE_EXP": [
            ([[-_INF, _INF, _NAN, 0.0, -0.0, 89.0, -104.0]], {}, [0.0, _INF, _NAN, 1.0, 1.0, _INF, 0.0], False, _F32)
        ],
        "ELEMENT_WISE_ACOS": [
            (
                [[1.0, -1.0, 1.0000001, -2.0, _NAN, _INF, 0.0]],
                {},
                [0.0, math.pi, _NAN, _NAN, _NAN, _NAN, math.pi / 2],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_ASIN": [
            (
                [[0.0, -0.0, 1.0, -1.0, 1.5, _NAN, -_INF, _SUB]],
                {},
                [0.0, -0.0, math.pi / 2, -math.pi / 2, _NAN, _NAN, _NAN, _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_ATAN": [
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, _MAXF, _SUB]],
                {},
                [0.0, -0.0, math.pi / 2, -math.pi / 2, _NAN, math.pi / 2, _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_COS": [
            ([[0.0, -0.0, _INF, -_INF, _NAN, _SUB]], {}, [1.0, 1.0, _NAN, _NAN, _NAN, 1.0], False, _F32),
        ],
        "ELEMENT_WISE_SIN": [
            ([[0.0, -0.0, _INF, _NAN, _SUB, -_SUB]], {}, [0.0, -0.0, _NAN, _NAN, _SUB, -_SUB], False, _F32),
            # A huge argument: full argument reduction (sin(2**100) from float64).
            ([[2.0**100]], {}, [math.sin(2.0**100)], False, _F32),
        ],
        "ELEMENT_WISE_TAN": [
            ([[0.0, -0.0, _INF, _NAN, _SUB]], {}, [0.0, -0.0, _NAN, _NAN, _SUB], False, _F32),
        ],
        "ELEMENT_WISE_CEIL": [
            (
                [[-0.5, 0.5, -0.0, _INF, -_INF, _NAN, _MAXF, 2.0**23 + 1, -_SUB, _SUB]],
                {},
                [-0.0, 1.0, -0.0, _INF, -_INF, _NAN, _MAXF, 2.0**23 + 1, -0.0, 1.0],
                False,
                _F32,
            ),
            ([[-0.5, 0.5, -2.5, 65504.0]], {}, [-0.0, 1.0, -2.0, 65504.0], True, _F16),
        ],
        "ELEMENT_WISE_FLOOR": [
            (
                [[-0.5, 0.5, -0.0, _INF, -_INF, _NAN, -_MAXF, -_SUB, _SUB]],
                {},
                [-1.0, 0.0, -0.0, _INF, -_INF, _NAN, -_MAXF, -1.0, 0.0],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_LOG": [
            (
                [[0.0, -0.0, -1.0, _INF, -_INF, _NAN, 1.0, _SUB, _MAXF]],
                {},
                [-_INF, -_INF, _NAN, _INF, _NAN, _NAN, 0.0, math.log(_SUB), math.log(_MAXF)],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_SQRT": [
            (
                [[0.0, -0.0, -1.0, _INF, -_INF, _NAN, 4.0, _SUB, _MAXF]],
                {},
                [0.0, -0.0, _NAN, _INF, _NAN, _NAN, 2.0, math.sqrt(_SUB), math.sqrt(_MAXF)],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_RECIP": [
            # 1 / largest finite is subnormal; 1 / subnormal overflows.
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, 4.0, _MAXF, _SUB_F]],
                {},
                [_INF, -_INF, 0.0, -0.0, _NAN, 0.25, _f32(1 / _MAXF), _INF],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_ERF": [
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, 10.0, _SUB]],
                {},
                [0.0, -0.0, 1.0, -1.0, _NAN, 1.0, 2 / math.sqrt(math.pi) * _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_SINH": [
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, 100.0, -100.0, _SUB]],
                {},
                [0.0, -0.0, _INF, -_INF, _NAN, _INF, -_INF, _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_COSH": [
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, 100.0, -100.0]],
                {},
                [1.0, 1.0, _INF, _INF, _NAN, _INF, _INF],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_TANH": [
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, 20.0, -20.0, _SUB]],
                {},
                [0.0, -0.0, 1.0, -1.0, _NAN, 1.0, -1.0, _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_ASINH": [
            (
                [[0.0, -0.0, _INF, -_INF, _NAN, _MAXF, -_MAXF, _SUB]],
                {},
                [0.0, -0.0, _INF, -_INF, _NAN, math.asinh(_MAXF), -math.asinh(_MAXF), _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_ACOSH": [
            ([[1.0, 0.5, -1.0, _INF, _NAN, _MAXF]], {}, [0.0, _NAN, _NAN, _INF, _NAN, math.acosh(_MAXF)], False, _F32),
        ],
        "ELEMENT_WISE_ATANH": [
            (
                [[1.0, -1.0, 0.0, -0.0, 1.5, _NAN, _INF, _SUB]],
                {},
                [_INF, -_INF, 0.0, -0.0, _NAN, _NAN, _NAN, _SUB],
                False,
                _F32,
            ),
        ],
        "ELEMENT_WISE_CONSTANT_POW": [
            ([[-2.0, -0.0, 0.0, -1.0, _INF, _NAN]], {"exponent": 2.0}, [4.0, 0.0, 0.0, 1.0, _INF, _NAN], False, _F32),
            ([[-4.0, 4.0, -0.0, _INF, 0.0]], {"exponent": 0.5}, [_NAN, 2.0, 0.0, _INF, 0.0], False, _F32),
            ([[0.0, -0.0, 2.0, _INF]], {"exponent": -1.0}, [_INF, -_INF, 0.5, 0.0], False, _F32),
            ([[-2.0, -0.0, _NAN]], {"exponent": 0.0}, [1.0, 1.0, 1.0], False, _F32),  # pow(NaN, 0) == 1
        ],
        "ELEMENT_WISE_ROUND": [
            (
                [[0.5, 1.5, 2.5, -2.5, -0.5, -0.0, 0.49999997, _INF, _NAN]],
                {},
                [0.0, 2.0, 2.0, -2.0, -0.0, -0.0, 0.0, _INF, _NAN],
                False,
                _F32,
            ),
            (
                [[0.5, 1.5, 2.5, -2.5, -0.5, -0.4, 2.9, _INF]],
                {"rounding_mode": RoundingMode.TOWARD_ZERO},
                [0.0, 1.0, 2.0, -2.0, -0.0, -0.0, 2.0, _INF],
                False,
                _F32,
            ),
            (
                [[0.5, 1.5, 2.5, -2.5, -0.5, -0.4, 0.49999997, -_INF, 8388609.0]],
                {"rounding_mode": RoundingMode.TOWARD_INFINITY},
                [1.0, 2.0, 3.0, -3.0, -1.0, -0.0, 0.0, -_INF, 8388609.0],
                False,
                _F32,
            ),
            (
                [[0.5, 1.5, 2.5, -2.5]],
                {"rounding_mode": RoundingMode.HALVES_TO_NEAREST_EVEN},
                [0.0, 2.0, 2.0, -2.0],
                True,
                _F16,
            ),
        ],
        "ELEMENT_WISE_SIGN": [
            (
                [[-0.0, 0.0, -3.5, 2.0, _INF, -_INF, _SUB, -_SUB]],
                {},
                [0.0, 0.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0],
                True,
                _F32,
            ),  # -0.0 gives +0.0
            ([[_NAN]], {}, [_NAN], False, _F32),
            ([[-128, -1, 0, 1, 127]], {}, [-1, -1, 0, 1, 1], True, _I8),
            ([[0, 1, 255]], {}, [0, 1, 1], True, _io(DataType.UINT8)),
        ],
        "ELEMENT_WISE_NEGATE": [
            ([[-128, -1, 0, 127]], {}, [-128, 1, 0, -127], True, _I8),  # -INT_MIN wraps
            ([[-(2**63), 5]], {}, [-(2**63), -5], True, _io(DataType.INT64)),
            ([[0.0, -0.0, _INF, 1.5]], {}, [-0.0, 0.0, -_INF, -1.5], True, _F32),
        ],
        "ELEMENT_WISE_IS_NAN": [
            (
                [[_NAN, _INF, -_INF, 0.0, -0.0, _SUB, _MAXF]],
                {},
                [1, 0, 0, 0, 0, 0, 0],
                True,
                _io(DataType.FLOAT32, DataType.UINT8),
            ),
            ([[_NAN, 1.0]], {}, [1, 0], True, _io(DataType.FLOAT16, DataType.UINT32)),
        ],
        "ELEMENT_WISE_IS_INFINITY": [
            ([[_INF, -_INF, _NAN, _MAXF, 0.0]], {}, [1, 1, 0, 0, 0], True, _io(DataType.FLOAT32, DataType.UINT8)),
            (
                [[_INF, -_INF, _NAN, _MAXF, 0.0]],
                {"infinity_mode": IsInfinityMode.POSITIVE},
                [1, 0, 0, 0, 0],
                True,
                _io(DataType.FLOAT32, DataType.UINT8),
            ),
            (
                [[_INF, -_INF, _NAN, -65504.0, 0.0]],
                {"infinity_mode": IsInfinityMode.NEGATIVE},
                [0, 1, 0, 0, 0],
                True,
                _io(DataType.FLOAT16, DataType.UINT8),
            ),
        ],
        "ELEMENT_WISE_LOGICAL_NOT": [
            ([[0, 1, 2, 255]], {}, [1, 0, 0, 0], True, _io(DataType.UINT8)),
            ([[0, 2**32 - 1]], {}, [1, 0], True, _io(DataType.UINT32)),
        ],
        # directml.md 2.2's examples.
        # CAST (README "Semantics"): values worked out by hand from the rules, not from the code.
        "CAST": [
            # float -> integer: truncation toward zero, saturation, NaN -> 0, infinities to the ends.
            (
                [[_NAN, 1e10, -1e10, 127.9, -128.9, -0.5, 2.5, _INF, -_INF]],
                {},
                [0, 127, -128, 127, -128, 0, 2, 127, -128],
                True,
                _io(DataType.FLOAT32, DataType.INT8),
            ),
            (
                [[-1.0, 255.9, 256.0, _NAN, 1e300]],
                {},
                [0, 255, 255, 0, 255],
                True,
                _io(DataType.FLOAT64, DataType.UINT8),
            ),
            (
                [[2.0**63, -(2.0**63), 9.2233715e18, _NAN]],
                {},
                [2**63 - 1, -(2**63), 9223371487098961920, 0],
                True,
                _io(DataType.FLOAT32, DataType.INT64),
            ),
            ([[65504.0, -65504.0, 0.75]], {}, [32767, -32768, 0], True, _io(DataType.FLOAT16, DataType.INT16)),
            # integer -> integer wraps modulo 2**bits.
            ([[200, -129, 2**31 - 1]], {}, [-56, 127, -1], True, _io(DataType.INT32, DataType.INT8)),
            ([[-1, -(2**63)]], {}, [2**64 - 1, 2**63], True, _io(DataType.INT64, DataType.UINT64)),
            # float64 -> float16: 1 + 2**-11 + 2**-40 is above the midpoint, so it rounds up; through a float32
            # it would become the midpoint itself and round down to 1 (double rounding).
            (
                [[1 + 2**-11 + 2**-40, 1 + 2**-11, 65520.0, 65519.99, 2.0**-25, 2.0**-25 * 1.5, -0.0]],
                {},
                [1 + 2**-10, 1.0, _INF, 65504.0, 0.0, 2.0**-24, -0.0],
                True,
                _io(DataType.FLOAT64, DataType.FLOAT16),
            ),
            # integer -> bfloat16 (8 significant bits): 2**24 + 2**16 + 1 is just above a midpoint, so it rounds
            # up to 2**24 + 2**17; through float32 it would round twice, down to 2**24.
            (
                [[2**24 + 2**16 + 1, 2**24 + 2**16, -(2**31), 3]],
                {},
                [2**24 + 2**17, 2**24, -(2.0**31), 3.0],
                True,
                _io(DataType.INT32, DataType.BFLOAT16),
            ),
            # 64-bit integers -> float32, rounded once to nearest even.
            (
                [_U64([2**64 - 1, 2**24 + 1, 2**24 + 3])],
                {},
                [2.0**64, 2.0**24, 2.0**24 + 4],
                True,
                _io(DataType.UINT64, DataType.FLOAT32),
            ),
            # float32 -> bool: nonzero (NaN included) is true; -0.0 is zero.
            ([[_NAN, 0.0, -0.0, 2.0, -_INF]], {}, [1, 0, 0, 1, 1], True, _io(DataType.FLOAT32, DataType.BOOL)),
            ([[0, 1]], {}, [0.0, 1.0], True, _io(DataType.BOOL, DataType.FLOAT16)),
        ],
        # DirectML's formulas, worked by hand: round half to even, then + zero point, saturated; NaN -> 0.
        # FILL_VALUE_CONSTANT: the value, bit for bit (NaN, -0.0, infinities, the integer extremes).
        "FILL_VALUE_CONSTANT": [
            (
                [],
                {"value_data_type": DataType.FLOAT32, "value": _NAN},
                [_NAN] * 3,
                True,
                {"output_tensor": DataType.FLOAT32},
            ),
            (
                [],
                {"value_data_type": DataType.FLOAT32, "value": -0.0},
                [-0.0] * 3,
                True,
                {"output_tensor": DataType.FLOAT32},
            ),
            (
                [],
                {"value_data_type": DataType.FLOAT16, "value": -_INF},
                [-_INF] * 2,
                True,
                {"output_tensor": DataType.FLOAT16},
            ),
            (
                [],
                {"value_data_type": DataType.FLOAT64, "value": 0.1},
                [0.1] * 2,
                True,
                {"output_tensor": DataType.FLOAT64},
            ),
            (
                [],
                {"value_data_type": DataType.INT64, "value": -(2**63)},
                [-(2**63)] * 2,
                True,
                {"output_tensor": DataType.INT64},
            ),
            (
                [],
                {"value_data_type": DataType.UINT64, "value": 2**64 - 1},
                [2**64 - 1] * 2,
                True,
                {"output_tensor": DataType.UINT64},
            ),
            ([], {"value_data_type": DataType.INT8, "value": -128}, [-128] * 5, True, {"output_tensor": DataType.INT8}),
        ],
        # FILL_VALUE_SEQUENCE, worked by hand: start + i * delta (see _seq).
        "FILL_VALUE_SEQUENCE": [
            # DirectML's two examples (ValueDelta -2 as UINT8 is its two's complement, 254).
            _seq(DataType.FLOAT32, 3.0, 2.0, [3.0, 5.0, 7.0]),
            _seq(DataType.UINT8, 10, 254, [10, 8, 6, 4]),
            # Wrapping modulo 2**bits.
            _seq(DataType.INT8, 120, 5, [120, 125, -126, -121]),
            _seq(DataType.INT8, -128, -1, [-128, 127, 126]),
            _seq(DataType.INT64, -(2**63), -1, [-(2**63), 2**63 - 1, 2**63 - 2]),
            _seq(DataType.UINT64, 2**64 - 1, 2**63, [2**64 - 1, 2**63 - 1, 2**64 - 1, 2**63 - 1]),
            _seq(DataType.UINT64, 2**63, 2**62 + 1, [2**63, 2**63 + 2**62 + 1, 2, 2**62 + 3]),
            # One rounding to a 16-bit output, half to even: 2049 -> 2048, 2051 and 2053 -> 2052 (spacing 2).
            _seq(DataType.FLOAT16, 2048.0, 1.0, [2048.0, 2048.0, 2050.0, 2052.0, 2052.0, 2052.0]),
            _seq(DataType.BFLOAT16, 256.0, 1.0, [256.0, 256.0, 258.0, 260.0]),
            # The sum rounded in float32: 2**24 + 1 -> 2**24, 2**24 + 3 -> 2**24 + 4.
            _seq(DataType.FLOAT32, 2.0**24, 1.0, [2.0**24, 2.0**24, 2.0**24 + 2, 2.0**24 + 4]),
            # The product rounded before the sum (no FMA): 3 * (1 + 2**-23) is 3 + 2**-21 in float32, so element
            # 3 is 2**-21, where one fused multiply-add would give 3 * 2**-23. The same in float64.
            _seq(DataType.FLOAT32, -3.0, 1 + 2.0**-23, [-3.0, -2 + 2.0**-23, -1 + 2.0**-22, 2.0**-21]),
            _seq(DataType.FLOAT64, -3.0, 1 + 2.0**-52, [-3.0, -2 + 2.0**-52, -1 + 2.0**-51, 2.0**-50]),
            # FLOAT64 computes in double: 0.1 + 2 * 0.1 is 0.30000000000000004.
            _seq(DataType.FLOAT64, 0.1, 0.1, [0.1, 0.2, 0.30000000000000004, 0.4]),
            # NaN, infinities and signed zeros reach the kernel bit for bit; IEEE arithmetic does the rest:
            # 0 * inf is NaN; -0.0 + 0 * d is -0.0 only where 0 * d is -0.0 (d negative or -0.0), else +0.0.
            _seq(DataType.FLOAT32, _NAN, 1.0, [_NAN] * 3),
            _seq(DataType.FLOAT32, 0.0, _INF, [_NAN, _INF, _INF]),
            _seq(DataType.FLOAT16, -_INF, 1.0, [-_INF] * 3),
            _seq(DataType.FLOAT32, -0.0, -0.0, [-0.0] * 3),
            _seq(DataType.FLOAT32, -0.0, 0.0, [0.0] * 3),
            _seq(DataType.FLOAT64, -0.0, -1.0, [-0.0, -1.0, -2.0]),
            _seq(DataType.FLOAT64, -0.0, 1.0, [0.0, 1.0, 2.0]),
        ],
        "ELEMENT_WISE_QUANTIZE_LINEAR": [
            (
                [[2.5, 3.5, -1.0, 1000.0, _NAN, -_INF], [1.0] * 6, [0] * 6],
                {},
                [2, 4, 0, 255, 0, 0],
                True,
                {
                    "input_tensor": DataType.FLOAT32,
                    "scale_tensor": DataType.FLOAT32,
                    "zero_point_tensor": DataType.UINT8,
                    "output_tensor": DataType.UINT8,
                },
            ),
            (
                [[-1000.0, 0.5, 1.5, 0.25], [0.5] * 4, [10] * 4],
                {},
                [-128, 11, 13, 10],
                True,
                {
                    "input_tensor": DataType.FLOAT16,
                    "scale_tensor": DataType.FLOAT16,
                    "zero_point_tensor": DataType.INT8,
                    "output_tensor": DataType.INT8,
                },
            ),
            (
                [[7, -7, 2**31 - 1], [2.0] * 3, [-1] * 3],
                {},
                [3, -5, 127],  # 3.5 -> 4 - 1; -3.5 -> -4 - 1
                True,
                {
                    "input_tensor": DataType.INT32,
                    "scale_tensor": DataType.FLOAT32,
                    "zero_point_tensor": DataType.INT8,
                    "output_tensor": DataType.INT8,
                },
            ),
        ],
        # QUANTIZED_LINEAR_ADD, worked by hand. Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point,
        # output_scale, output_zero_point.
        "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": [
            # Ties round half to even: (a + b) / 2 = 0.5, 1.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5.
            (
                [
                    [1, 2, 3, 5, -1, -3, -5, 7],
                    [1.0] * 8,
                    [0] * 8,
                    [0, 1, 0, 0, 0, 0, 0, 0],
                    [1.0] * 8,
                    [0] * 8,
                    [2.0] * 8,
                    [0] * 8,
                ],
                {},
                [0, 2, 2, 2, 0, -2, -2, 4],
                True,
                _qla_types(DataType.INT8, DataType.INT8, DataType.INT8),
            ),
            # int8 saturation at both ends: a - za = 128, -127, 101, -99, 1; sums 255, -255, 128, -127 (- 1 from
            # the zero point: -128, the end itself), 1 (- 128: -127).
            (
                [
                    [127, -128, 100, -100, 0],
                    [1.0] * 5,
                    [-1] * 5,
                    [127, -128, 27, -28, 0],
                    [1.0] * 5,
                    [0] * 5,
                    [1.0] * 5,
                    [0, 0, 0, -1, -128],
                ],
                {},
                [127, -128, 127, -128, -127],
                True,
                _qla_types(DataType.INT8, DataType.INT8, DataType.INT8),
            ),
            # uint8 saturation at both ends: sums 510, 0 - 10, 255 (the end itself), 10 - 20 (+ 10: 0), 0, 3.
            (
                [
                    [255, 0, 200, 10, 128, 3],
                    [1.0] * 6,
                    [0, 0, 0, 0, 128, 0],
                    [255, 0, 55, 0, 0, 0],
                    [1.0] * 6,
                    [0, 10, 0, 20, 0, 0],
                    [1.0] * 6,
                    [0, 0, 0, 10, 0, 0],
                ],
                {},
                [255, 0, 255, 0, 0, 3],
                True,
                _qla_types(DataType.UINT8, DataType.UINT8, DataType.UINT8),
            ),
            # Mixed types, exact steps: (a - 128) * 0.5 + b * 0.25 = -96, 95.25, 0; / 0.75 = -128, 127, 0; + 5.
            (
                [[0, 255, 128], [0.5] * 3, [128] * 3, [-128, 127, 0], [0.25] * 3, [0] * 3, [0.75] * 3, [5] * 3],
                {},
                [-123, 127, 5],
                True,
                _qla_types(DataType.UINT8, DataType.INT8, DataType.INT8),
            ),
            # Scales in IEEE float32 (DirectML leaves a zero scale undefined): 1 * NaN, 1 * inf, 0 * inf (NaN),
            # 1 * -inf, 1 / 0, 1 / inf (0, + 3), 0 / 0 (NaN), 1 / -0.0, 127 * 3e38 (overflows to inf),
            # inf + -inf (NaN). A NaN quotient gives 0 (CAST's rule), not the zero point; +-inf saturate.
            (
                [
                    [1, 1, 0, 1, 1, 1, 0, 1, 127, 1],
                    [_NAN, _INF, _INF, -_INF, 1.0, 1.0, 1.0, 1.0, 3e38, _INF],
                    [0] * 10,
                    [0] * 9 + [1],
                    [1.0] * 9 + [-_INF],
                    [0] * 10,
                    [1.0, 1.0, 1.0, 1.0, 0.0, _INF, 0.0, -0.0, 1.0, 1.0],
                    [3] * 10,
                ],
                {},
                [0, 127, 0, -128, 127, 3, 0, -128, 127, 0],
                True,
                _qla_types(DataType.INT8, DataType.INT8, DataType.INT8),
            ),
            (
                [[1, 1, 1], [_NAN, _INF, -_INF], [0] * 3, [0] * 3, [1.0] * 3, [0] * 3, [1.0] * 3, [7] * 3],
                {},
                [0, 255, 0],
                True,
                _qla_types(DataType.UINT8, DataType.UINT8, DataType.UINT8),
            ),
            # Each step rounds to float32, and no multiply-add is fused: 5 * 0.1f = 0.50000000745... rounds to the
            # float32 0.5, a tie, so 0 (real arithmetic gives 1). Then 0.5 + (-1 * 0.5) = 0 and 0 / 1e-8 = 0, where
            # an FMA would keep 7.45e-9 of the product and give 0.745, so 1.
            (
                [[5, 5], [0.1, 0.1], [0, 0], [0, -1], [1.0, 0.5], [0, 0], [1.0, 1e-8], [0, 0]],
                {},
                [0, 0],
                True,
                _qla_types(DataType.INT8, DataType.INT8, DataType.INT8),
            ),
        ],  # fmt: skip
        "ELEMENT_WISE_DEQUANTIZE_LINEAR": [
            (
                [[0, 255, 128], [0.5] * 3, [128] * 3],
                {},
                [-64.0, 63.5, 0.0],
                True,
                {
                    "input_tensor": DataType.UINT8,
                    "scale_tensor": DataType.FLOAT32,
                    "zero_point_tensor": DataType.UINT8,
                    "output_tensor": DataType.FLOAT32,
                },
            ),
            # The difference is exact in 64 bits: 2**32 - 1, which float32 rounds once, to 2**32.
            (
                [[2**31 - 1, -(2**31)], [1.0, 1.0], [-(2**31), 2**31 - 1]],
                {},
                [2.0**32, -(2.0**32)],
                True,
                {
                    "input_tensor": DataType.INT32,
                    "scale_tensor": DataType.FLOAT32,
                    "zero_point_tensor": DataType.INT32,
                    "output_tensor": DataType.FLOAT32,
                },
            ),
            (
                [[100, -100], [1000.0, 1000.0], [-100, 100]],
                {},
                [_INF, -_INF],  # 200 * 1000 beyond float16's range
                True,
                {
                    "input_tensor": DataType.INT16,
                    "scale_tensor": DataType.FLOAT16,
                    "zero_point_tensor": DataType.INT16,
                    "output_tensor": DataType.FLOAT16,
                },
            ),
        ],
        "ELEMENT_WISE_BIT_NOT": [
            ([[0, 128, 42, 255]], {}, [255, 127, 213, 0], True, _io(DataType.UINT8)),
            # Floats as raw bits: ~0xBF800000 (-1.0) == 0x407FFFFF, ~0x3F800000 (1.0) == 0xC07FFFFF.
            ([[-1.0, 1.0]], {}, [_bits_f32(0x407FFFFF), _bits_f32(0xC07FFFFF)], True, _F32),
        ],
        "ELEMENT_WISE_BIT_COUNT": [
            ([[0, 123, 456, 789]], {}, [0, 6, 4, 5], True, _io(DataType.UINT32)),
            ([[-1, 0]], {}, [64, 0], True, _io(DataType.INT64, DataType.UINT8)),
            ([[-0.0, 1.0]], {}, [1, 7], True, _io(DataType.FLOAT32, DataType.UINT32)),  # 0x80000000, 0x3F800000
        ],
        "ELEMENT_WISE_IF": [
            (
                [[0, 1, 2, 255], [_NAN, -0.0, 1.0, 2.0], [3.0, 4.0, _INF, -_INF]],
                {},
                [3.0, -0.0, 1.0, 2.0],
                True,
                {
                    "condition_tensor": DataType.UINT8,
                    "a_tensor": DataType.FLOAT32,
                    "b_tensor": DataType.FLOAT32,
                    "output_tensor": DataType.FLOAT32,
                },
            ),
            (
                [[1, 0], [_NAN, 1.0], [2.0, _NAN]],
                {},
                [_NAN, _NAN],
                False,
                {
                    "condition_tensor": DataType.UINT8,
                    "a_tensor": DataType.FLOAT64,
                    "b_tensor": DataType.FLOAT64,
                    "output_tensor": DataType.FLOAT64,
                },
            ),
            (
                [[1, 0], [-(2**63), 1], [5, 2**63 - 1]],
                {},
                [-(2**63), 2**63 - 1],
                True,
                {
                    "condition_tensor": DataType.UINT8,
                    "a_tensor": DataType.INT64,
                    "b_tensor": DataType.INT64,
                    "output_tensor": DataType.INT64,
                },
            ),
        ],
        "ELEMENT_WISE_CLIP": [
            ([[_NAN, -5.0, 5.0, 0.5, -0.0]], {"min": 0.0, "max": 1.0}, [_NAN, 0.0, 1.0, 0.5, -0.0], False, _F32),
            ([[-5.0, 5.0, 0.5]], {"min": 2.0, "max": 1.0}, [1.0, 1.0, 1.0], True, _F32),  # Min > Max gives Max
            ([[-5.0, 5.0]], {"min": _NAN, "max": _NAN}, [-5.0, 5.0], True, _F32),  # a NaN bound clamps nothing
            ([[-_INF, _INF]], {"min": -_MAXF, "max": _MAXF}, [-_MAXF, _MAXF], True, _F32),
            # Integer tensors: Min -> ceil, Max -> floor, saturated; NaN clamps nothing.
            ([[-128, -2, -1, 2, 3, 127]], {"min": -1.5, "max": 2.5}, [-1, -1, -1, 2, 2, 2], True, _I8),
            ([[-128, 0, 127]], {"min": -1000.0, "max": 1000.0}, [-128, 0, 127], True, _I8),
            ([[-128, 0, 127]], {"min": _NAN, "max": _INF}, [-128, 0, 127], True, _I8),
            ([[-128, 0, 127]], {"min": 500.0, "max": _NAN}, [127, 127, 127], True, _I8),
            ([[0, 1, 255]], {"min": -1.5, "max": 254.5}, [0, 1, 254], True, _io(DataType.UINT8)),
            (
                [[-(2**31), 2**31 - 1]],
                {"min": -3e9, "max": 2147483648.0},
                [-(2**31), 2**31 - 1],
                True,
                _io(DataType.INT32),
            ),
            ([_U64([0, 2**64 - 1])], {"min": 1e30, "max": 1e30}, [2**64 - 1, 2**64 - 1], True, _io(DataType.UINT64)),
        ],
        "ELEMENT_WISE_CLIP1": [
            (
                [[_NAN, -5.0, 5.0, 0.5]],
                {"min_max_data_type": DataType.FLOAT32, "min": 0.0, "max": 1.0},
                [_NAN, 0.0, 1.0, 0.5],
                False,
                _F32,
            ),
            (
                [[-5.0, 5.0, 0.5]],
                {"min_max_data_type": DataType.FLOAT32, "min": 2.0, "max": 1.0},
                [2.0, 2.0, 2.0],
                True,
                _F32,
            ),  # Min > Max gives Min
            (
                [[-128, 0, 127]],
                {"min_max_data_type": DataType.INT8, "min": -100, "max": 100},
                [-100, 0, 100],
                True,
                _I8,
            ),
            (
                [_U64([0, 2**64 - 1])],
                {"min_max_data_type": DataType.UINT64, "min": 2**63, "max": 2**64 - 2},
                [2**63, 2**64 - 2],
                True,
                _io(DataType.UINT64),
            ),
            (
                [[-(2**63), 2**63 - 1]],
                {"min_max_data_type": DataType.INT64, "min": -(2**63) + 1, "max": 2**62},
                [-(2**63) + 1, 2**62],
                True,
                _io(DataType.INT64),
            ),
        ],
        "ELEMENT_WISE_THRESHOLD": [
            ([[_NAN, -5.0, 5.0, -0.0]], {"min": 0.0}, [_NAN, 0.0, 5.0, -0.0], False, _F32),
            ([[-5.0, 5.0]], {"min": _NAN}, [-5.0, 5.0], True, _F32),
            ([[-128, -1, 0, 127]], {"min": -0.5}, [0, 0, 0, 127], True, _I8),
            ([[-128, 0, 127]], {"min": 1e9}, [127, 127, 127], True, _I8),
            ([[0, 7]], {"min": -_INF}, [0, 7], True, _io(DataType.UINT16)),
        ],
        "ELEMENT_WISE_CLIP_GRAD": [
            (
                [[-1.0, 2.0, 0.5, _NAN, -_INF, _INF], [7.0, 7.0, 7.0, 7.0, 7.0, _NAN]],
                {"min": -1.0, "max": 2.0},
                [0.0, 0.0, 7.0, 7.0, 0.0, 0.0],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.FLOAT32),
            ),
            # Integers against fractional bounds: x <= -1.5 and x >= 2.5 as real numbers.
            (
                [[-2, -1, 2, 3], [9, 9, 9, 9]],
                {"min": -1.5, "max": 2.5},
                [0, 9, 9, 0],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.INT8),
            ),
            (
                [[-128, 127], [9, 9]],
                {"min": -1000.0, "max": 1000.0},
                [9, 9],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.INT8),
            ),
            (
                [[0, 255], [9, 9]],
                {"min": _NAN, "max": _NAN},
                [9, 9],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.UINT8),
            ),
            (
                [[2**31 - 1, -(2**31)], [9, 9]],
                {"min": -2147483648.0, "max": 2147483648.0},
                [9, 0],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.INT32),
            ),
        ],
        "ELEMENT_WISE_CLIP_GRAD1": [
            (
                [[1, 2, 3, 0], [5, 5, 5, 5]],
                {"min_max_data_type": DataType.UINT16, "min": 1, "max": 3},
                [0, 5, 0, 0],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.UINT16),
            ),
            (
                [[1.0, 1.5, 3.0, _NAN], [-2.0, -2.0, -2.0, -2.0]],
                {"min_max_data_type": DataType.FLOAT16, "min": 1.0, "max": 3.0},
                [0.0, -2.0, 0.0, -2.0],
                True,
                dict.fromkeys(("input_tensor", "input_gradient_tensor", "output_gradient_tensor"), DataType.FLOAT16),
            ),
        ],
    }
)


OPINFOS = from_tables(REFERENCES, DATA, PARAMS, TOLERANCE, EDGES)
