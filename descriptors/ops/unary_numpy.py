"""NumPy implementations of the unary rows that are not a plain ufunc.

Same conventions as ``ops/common_numpy.py``: ``f(x, out=out, **parameters)`` on operands in the
compute type; ``out`` never aliases ``x`` unless the row declares a single ufunc. Each
function gives, bit for bit, what the CUDA helper of the same row computes
(``ops/unary.py``): the same comparisons in the same order, the same integer conversions
of FLOAT bounds.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from .common_numpy import pow_float

__all__ = [
    "cast",
    "dequantize_linear",
    "fill_constant",
    "fill_sequence",
    "quantize_linear",
    "quantized_linear_add",
    "ceil_to",
    "clip1",
    "clip_float",
    "clip_grad_float",
    "clip_grad_int",
    "clip_grad_typed",
    "clip_int",
    "constant_pow",
    "erf",
    "floor_to",
    "identity",
    "is_infinity",
    "round_mode",
    "select",
    "threshold_float",
    "threshold_int",
]


_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def _odd_float32(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to float32 *to odd* (the last bit set when inexact): rounded once more to nearest even into
    float16 or bfloat16, the pair rounds ``x`` correctly (``gpuops_odd_float``, ``gpuops_odd_float_int``)."""
    if x.dtype == np.float32:
        return x
    if x.dtype == np.float64:
        r = x.astype(np.float32)
        back = r.astype(np.float64)
        bits = r.view(np.uint32).copy()
        fix = (back != x) & (x == x) & ((bits & 1) == 0)
        up = np.abs(x) > np.abs(back)
        bits[fix & up] += np.uint32(1)
        bits[fix & ~up] -= np.uint32(1)
        return bits.view(np.float32)
    # Integers (and bool): keep 24 significant bits of |x|, the dropped bits ORed into the last one.
    neg = x < 0
    m = x.astype(np.uint64)
    m = np.where(neg, np.uint64(0) - m, m)
    sticky = np.zeros(m.shape, np.uint64)
    scale = np.ones(m.shape, np.float32)
    while True:
        wide = m >> np.uint64(24) != 0
        if not wide.any():
            break
        sticky |= m & wide.astype(np.uint64)
        m = np.where(wide, m >> np.uint64(1), m)
        scale = np.where(wide, scale * np.float32(2), scale)
    r = (m | sticky).astype(np.float32) * scale
    return np.where(neg, -r, r)


def _float_to_int(x: np.ndarray, out: np.ndarray) -> None:
    """Truncation toward zero, saturated to ``out``'s range, NaN -> 0 (``gpuops_cast_to<O>::from_float``)."""
    info = np.iinfo(out.dtype)
    bits = out.dtype.itemsize * 8
    p = x.dtype.type(2.0 ** (bits - 1 if info.min < 0 else bits))  # a power of two: exact in float32
    low, high = x <= x.dtype.type(info.min), x >= p
    inside = ~(low | high | np.isnan(x))
    np.copyto(out, 0, casting="unsafe")
    np.copyto(out, np.trunc(x), casting="unsafe", where=inside)
    np.copyto(out, info.min, casting="unsafe", where=low)
    np.copyto(out, info.max, casting="unsafe", where=high)


def cast(x: np.ndarray, *, out: np.ndarray) -> None:
    """CAST into ``out``'s own data type (the row converts: ``out`` is never a float32 stand-in for float16)."""
    target = out.dtype
    if target == np.bool_:
        np.not_equal(x, 0, out=out)
    elif target in _HALF:
        np.copyto(out, _odd_float32(x), casting="unsafe")
    elif target.kind == "f" or x.dtype.kind in "biu":  # to float32/float64 (rounded once), or integer to integer
        np.copyto(out, x, casting="unsafe")
    else:
        _float_to_int(x, out)


def fill_constant(*, out: np.ndarray, value: Any, **_: Any) -> None:
    """FILL_VALUE_CONSTANT: every element is ``value`` (already the output's type)."""
    out[...] = value


def fill_sequence(*, out: np.ndarray, value_start: Any, value_delta: Any, index: np.ndarray, **_: Any) -> None:
    """FILL_VALUE_SEQUENCE: ``start + i * delta``, ``i`` the element's logical index (``index``).

    A float ``out`` is the compute type (float32 for 16-bit floats, float64): ``i`` converted to it (to
    nearest), times ``delta`` rounded, plus ``start`` rounded, two separate ufuncs as the CUDA form's
    ``__fmul_rn``/``__fadd_rn``. An integer ``out``: in uint64, wrapping, then cast (modulo 2**bits).
    """
    if out.dtype.kind == "f":
        t = out.dtype.type
        np.multiply(index.astype(out.dtype), t(value_delta), out=out)
        np.add(t(value_start), out, out=out)
        return
    u = index.astype(np.uint64)
    np.multiply(u, np.array(value_delta).astype(np.uint64), out=u)
    np.add(u, np.array(value_start).astype(np.uint64), out=u)
    np.copyto(out, u, casting="unsafe")


def quantize_linear(x: np.ndarray, y: np.ndarray, z: np.ndarray | None = None, *, out: np.ndarray) -> None:
    """rint(x / scale) + zero_point in float32, then CAST's saturation into ``out`` (NaN -> 0); an absent zero
    point is 0."""
    v = np.rint(x / y)
    if z is not None:
        v += z
    cast(v, out=out)


def dequantize_linear(x: np.ndarray, y: np.ndarray, z: np.ndarray | None = None, *, out: np.ndarray) -> None:
    """(x - zero_point) exactly, rounded to float32, times the scale in float32, into ``out`` (rounded once); an
    absent zero point is 0."""
    diff = x.astype(np.int64) - (z.astype(np.int64) if z is not None else 0)
    np.copyto(out, diff.astype(np.float32) * y.astype(np.float32), casting="unsafe")


def quantized_linear_add(
    qa: np.ndarray,
    sa: np.ndarray,
    za: np.ndarray | None,
    qb: np.ndarray,
    sb: np.ndarray,
    zb: np.ndarray | None,
    so: np.ndarray,
    zo: np.ndarray | None = None,
    *,
    out: np.ndarray,
) -> None:
    """((qa - za) * sa + (qb - zb) * sb) / so, every operand and step in float32 (qa - za exact, then one
    rounding per product, the sum and the quotient: NumPy's float32 ufuncs never fuse a multiply-add), rint
    half to even, + zo, then CAST's saturation into ``out`` (NaN -> 0); an absent zero point is 0."""
    da = qa if za is None else np.subtract(qa, za)
    db = qb if zb is None else np.subtract(qb, zb)
    v = np.multiply(da, sa)
    v += np.multiply(db, sb)
    v /= so
    np.rint(v, out=v)
    if zo is not None:
        v += zo
    cast(v, out=out)


def identity(x: np.ndarray, *, out: np.ndarray) -> None:
    """A copy through both tensors' strides (alias-safe: in place it copies onto itself)."""
    np.copyto(out, x, casting="unsafe")


# ---------------------------------------------------------------------------------------------
# FLOAT bounds on integer tensors: compared exactly. A lower bound m becomes ceil(m), an upper
# bound floor(m), saturated to the type's range; a NaN bound clamps nothing.


def ceil_to(dtype: np.dtype, m: float | np.floating[Any]) -> int:
    """ceil(m) saturated to ``dtype``'s range; NaN gives the minimum (as gpuops_ceil_to)."""
    info = np.iinfo(dtype)
    m = float(m)
    if math.isnan(m) or m == -math.inf:
        return int(info.min)
    if m == math.inf:
        return int(info.max)
    return min(max(math.ceil(m), int(info.min)), int(info.max))


def floor_to(dtype: np.dtype, m: float | np.floating[Any]) -> int:
    """floor(m) saturated to ``dtype``'s range; NaN gives the maximum (as gpuops_floor_to)."""
    info = np.iinfo(dtype)
    m = float(m)
    if math.isnan(m) or m == math.inf:
        return int(info.max)
    if m == -math.inf:
        return int(info.min)
    return min(max(math.floor(m), int(info.min)), int(info.max))


def _int_le(x: np.ndarray, m: float | np.floating[Any]) -> np.ndarray | bool:
    """x <= m exactly for integer x and a float m (NaN: False), as gpuops_int_le."""
    m = float(m)
    if math.isnan(m):
        return False
    info = np.iinfo(x.dtype)
    if m >= int(info.max):
        return True
    if m < int(info.min):
        return False
    return x <= x.dtype.type(math.floor(m))


def _int_ge(x: np.ndarray, m: float | np.floating[Any]) -> np.ndarray | bool:
    """x >= m exactly for integer x and a float m (NaN: False), as gpuops_int_ge."""
    m = float(m)
    if math.isnan(m):
        return False
    info = np.iinfo(x.dtype)
    if m > int(info.max):
        return False
    if m <= int(info.min):
        return True
    return x >= x.dtype.type(math.ceil(m))


def _clip(x: np.ndarray, out: np.ndarray, lo: np.generic, hi: np.generic) -> None:
    """CLIP's min(hi, max(lo, x)) by comparisons: NaN x stays, a NaN bound clamps nothing, lo > hi gives hi."""
    np.copyto(out, x)
    np.copyto(out, lo, where=x < lo)
    np.copyto(out, hi, where=out > hi)


def clip_float(x: np.ndarray, *, out: np.ndarray, min: np.float32, max: np.float32) -> None:
    _clip(x, out, x.dtype.type(min), x.dtype.type(max))


def clip_int(x: np.ndarray, *, out: np.ndarray, min: np.float32, max: np.float32) -> None:
    _clip(x, out, x.dtype.type(ceil_to(x.dtype, min)), x.dtype.type(floor_to(x.dtype, max)))


def clip1(x: np.ndarray, *, out: np.ndarray, min: object, max: object) -> None:
    """CLIP1's max(lo, min(x, hi)): lo > hi gives lo. Bounds arrive in the output's type."""
    lo = np.asarray(min).astype(x.dtype)[()]
    hi = np.asarray(max).astype(x.dtype)[()]
    np.copyto(out, x)
    np.copyto(out, hi, where=x > hi)
    np.copyto(out, lo, where=out < lo)


def threshold_float(x: np.ndarray, *, out: np.ndarray, min: np.float32) -> None:
    lo = x.dtype.type(min)
    np.copyto(out, x)
    np.copyto(out, lo, where=x < lo)


def threshold_int(x: np.ndarray, *, out: np.ndarray, min: np.float32) -> None:
    lo = x.dtype.type(ceil_to(x.dtype, min))
    np.copyto(out, x)
    np.copyto(out, lo, where=x < lo)


def _grad(y: np.ndarray, out: np.ndarray, zero_where: np.ndarray | bool) -> None:
    np.copyto(out, y)
    np.copyto(out, 0, where=zero_where)


def clip_grad_float(x: np.ndarray, y: np.ndarray, *, out: np.ndarray, min: object, max: object) -> None:
    lo, hi = x.dtype.type(min), x.dtype.type(max)
    _grad(y, out, (x <= lo) | (x >= hi))


def clip_grad_int(x: np.ndarray, y: np.ndarray, *, out: np.ndarray, min: np.float32, max: np.float32) -> None:
    _grad(y, out, np.logical_or(_int_le(x, min), _int_ge(x, max)))


def clip_grad_typed(x: np.ndarray, y: np.ndarray, *, out: np.ndarray, min: object, max: object) -> None:
    """CLIP_GRAD1: bounds already in the tensors' type (float16/bfloat16 widen exactly)."""
    lo = np.asarray(min).astype(x.dtype)[()]
    hi = np.asarray(max).astype(x.dtype)[()]
    _grad(y, out, (x <= lo) | (x >= hi))


def round_mode(x: np.ndarray, *, out: np.ndarray, rounding_mode: object) -> None:
    """DML_ROUNDING_MODE: 0 half to even (rint), 1 toward zero (trunc), 2 half away from zero (C round)."""
    mode = int(rounding_mode)  # type: ignore[call-overload]
    if mode == 1:
        np.trunc(x, out=out)
    elif mode == 2:
        # trunc(x) + copysign(|x - trunc(x)| >= 0.5, x): exact (x - trunc(x) is representable),
        # keeps -0.0 for -0.4 and -0.0, as C's round().
        t = np.trunc(x)
        step = (np.abs(x - t) >= 0.5).astype(x.dtype)
        np.copysign(step, x, out=step)
        np.add(t, step, out=out)
    else:
        np.rint(x, out=out)


def is_infinity(x: np.ndarray, *, out: np.ndarray, infinity_mode: object) -> None:
    """DML_IS_INFINITY_MODE: 0 either sign, 1 +inf only, 2 -inf only."""
    mode = int(infinity_mode)  # type: ignore[call-overload]
    hit = np.isinf(x)
    if mode == 1:
        hit &= x > 0
    elif mode == 2:
        hit &= x < 0
    np.copyto(out, hit, casting="unsafe")


def constant_pow(x: np.ndarray, *, out: np.ndarray, exponent: np.float32) -> None:
    """C's pow(x, exponent), as CUDA's powf/pow (``common_numpy.pow_float``: not NumPy's sqrt for 0.5)."""
    pow_float(x, x.dtype.type(exponent), out)


def erf(x: np.ndarray, *, out: np.ndarray) -> None:
    """scipy.special.erf (NumPy has no erf); imported here so descriptors imports without SciPy."""
    from scipy.special import erf as _erf

    _erf(x, out=out)


def select(c: np.ndarray, a: np.ndarray, b: np.ndarray, *, out: np.ndarray) -> None:
    """IF on raw bits: a where c != 0, else b."""
    np.copyto(out, b)
    np.copyto(out, a, where=c != 0)
