"""NumPy implementations of the activation rows: ``f(x[, y], out=out, **parameters)``.

``x`` (and ``y``) are in the compute type (float32 for float16/bfloat16/float32, float64 for
FLOAT64, the tensor's own type for integers); ``out`` is a distinct array of the same type (the
backend guarantees no aliasing unless the row declares a single ufunc); parameters are NumPy
scalars (float32), passed by field name. Formulas mirror the CUDA helpers of
``ops/activation.py`` operation for operation, in the same type, so the two backends differ
only by their libraries' exp/log1p/tanh/erfc (CUDA's ``fma`` is emulated exactly below).

Numerical notes (the CUDA side does the same):

- softplus ``log(1 + e^z)`` is ``max(z, 0) + log1p(e^-|z|)``: no overflow, no loss for large |z|;
  sigmoid is ``1 / (1 + e^-|z|)`` or ``e^-|z| / (1 + e^-|z|)`` by the sign of z.
- When an activation scales its input first (SOFTPLUS steepness, PARAMETRIC_SOFTPLUS beta,
  SWISH scale, GELU's 1/sqrt(2), GELU_TANH's polynomial), the rounding error ``dz`` of the
  scaled argument ``z`` is computed exactly (an FMA) and folded back to first order
  (``f(z + dz) ~ f(z) + dz f'(z)``): in the tails, where ``|z f'(z) / f(z)|`` is large, the
  rounding of ``z`` alone would cost ``|z|`` ulps.
  CELU folds back the remainder of ``x / alpha`` the same way (it matters for alpha < 0).
- ELU/CELU/SCALED_ELU use expm1; GELU uses erfc (``1 + erf(x / sqrt 2) == erfc(-x / sqrt 2)``),
  and ``erfcx(t) e^-t^2`` further out; GELU_TANH uses ``0.5 (1 + tanh(u)) == sigmoid(2u)``;
  no ``1 - something`` cancels.
- No subnormal intermediate is multiplied up: where ``x * e^z`` (SWISH, GELU_TANH, MISH) or
  ``0.5 x erfcx(t) e^-t^2`` (GELU) has a factor below ``e^-K`` (TAIL_K), it is computed as
  ``(x e^(z + K)) e^-K`` with the last product rounded once, so results near and in the
  subnormal range keep their accuracy (a plain ``x * 1e-40f`` would cost ``|x|`` ulps).
- LINEAR, HARD_SIGMOID and HARD_SWISH compute ``alpha * x + beta`` as one fused multiply-add
  (rounded once), so the result is accurate to an ulp even when the two terms cancel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from decimal import Decimal, localcontext
from typing import Any

import numpy as np

from .common_numpy import negative, pow_float

__all__ = [
    "CONSTANTS",
    "GELU_ERFCX_FROM",
    "TAIL_K",
    "bounded_relu",
    "celu",
    "clip_v2",
    "elu",
    "fma",
    "gelu",
    "gelu_tanh",
    "hard_sigmoid",
    "hard_swish",
    "leaky_relu",
    "linear",
    "log_sigmoid",
    "mish",
    "parameterized_relu",
    "parametric_softplus",
    "pow_",
    "prod_err",
    "relu",
    "relu_grad",
    "scaled_elu",
    "scaled_tanh",
    "shrink",
    "sigmoid",
    "softplus",
    "softsign",
    "swish",
    "thresholded_relu",
]

_F32: np.dtype[Any] = np.dtype(np.float32)
_F64: np.dtype[Any] = np.dtype(np.float64)

# --------------------------------------------------------------------------------------------
# Constants, each as (hi, lo) per compute type with hi + lo == the real constant to ~2x the
# type's precision. The CUDA helpers print the same values (float.hex), so both backends agree.

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628")


def _split(value: Decimal) -> dict[np.dtype, tuple[float, float]]:
    out = {}
    for dt in (_F32, _F64):
        hi = dt.type(float(value))
        lo = dt.type(float(value - Decimal(float(hi))))
        out[dt] = (float(hi), float(lo))
    return out


# The tails: where exp(z) would be subnormal, x * exp(z) is computed as x * exp(z + K) * exp(-K)
# (z + K is exact for -2K <= z < -K, and exp(-K) is a double word), so that the only rounding
# into the subnormal range is the last one. K per compute type:
TAIL_K = {_F32: 64.0, _F64: 512.0}
# GELU computes 0.5 x erfcx(t) exp(-t^2) (no erfc of a large t) above these t = -x / sqrt 2:
# float32 needs it only where erfc(t) nears the subnormal range; float64 from t = 2 on, as the
# double erfc of SciPy (Cephes) loses t^2 / 2 ulps to the rounding of t * t.
GELU_ERFCX_FROM = {_F32: 8.0, _F64: 2.0}


def _constants() -> dict[str, dict[np.dtype, tuple[float, float]]]:
    with localcontext() as ctx:
        ctx.prec = 60
        two = Decimal(2)
        inv_sqrt2 = 1 / two.sqrt()
        two_over_sqrt_pi = 2 / _PI.sqrt()
        # GELU_TANH: 0.5 x (1 + tanh(u)) == x * sigmoid(2u), 2u = x * (a + b x^2),
        # a = 2 sqrt(2/pi), b = a * 0.044715 (the oneDNN / Hendrycks constant, exactly).
        a = 2 * (two / _PI).sqrt()
        b = a * Decimal("0.044715")
        return {
            "tail_scale": {dt: _split((-Decimal(k)).exp())[dt] for dt, k in TAIL_K.items()},
            "inv_sqrt2": _split(inv_sqrt2),
            "two_over_sqrt_pi": _split(two_over_sqrt_pi),
            "gelu_tanh_a": _split(a),
            "gelu_tanh_b": _split(b),
        }


CONSTANTS = _constants()


def _c(name: str, dt: np.dtype) -> tuple[np.generic, np.generic]:
    hi, lo = CONSTANTS[name][np.dtype(dt)]
    return dt.type(hi), dt.type(lo)


# --------------------------------------------------------------------------------------------
# CUDA's fma, emulated: exact for float32 (through float64), compensated for float64.

_VELTKAMP = np.float64(134217729.0)  # 2**27 + 1


def _split53(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _VELTKAMP * a
    hi = c - (c - a)
    return hi, a - hi


def prod_err(a: object, b: object) -> np.ndarray:
    """``fma(a, b, -(a * b))``: the rounding error of the product ``a * b`` in its own type.

    float32: exact (the product of two float32 is exact in float64, and so is the error).
    float64: Dekker's two-product (exact unless the operands are beyond 2**995 or the error
    underflows; then NaN or an approximation, which the callers' guards discard).
    """
    a = np.asarray(a)
    b = np.asarray(b)
    dt = np.result_type(a, b)
    p = np.multiply(a, b, dtype=dt)
    if dt == _F32:
        exact = a.astype(np.float64) * b.astype(np.float64)
        return (exact - p.astype(np.float64)).astype(np.float32)
    ah, al = _split53(a.astype(np.float64))
    bh, bl = _split53(b.astype(np.float64))
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma(a: object, b: object, c: object) -> np.ndarray:
    """``a * b + c`` rounded once, as CUDA's ``fma`` (float32: to the last bit, barring a rare
    double-rounding tie; float64: within an ulp, by Dekker's product and Knuth's sum)."""
    a = np.asarray(a)
    b = np.asarray(b)
    c = np.asarray(c)
    dt = np.result_type(a, b, c)
    if dt == _F32:
        wide = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
        return wide.astype(np.float32)
    p = a * b
    e = prod_err(a, b)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    r = s + (t + e)
    naive = p + c
    return np.where(np.isnan(r) & ~np.isnan(naive), naive, r)


def _f(x: np.ndarray, v: object) -> Any:
    """A FLOAT parameter in the compute type (``T(p_v)`` in CUDA)."""
    return x.dtype.type(v)


# --------------------------------------------------------------------------------------------
# Shared pieces (the CUDA helpers of the same names, gpuops_act_*)


def _softplus(z: np.ndarray, out: np.ndarray) -> None:
    """max(z, 0) + log1p(exp(-|z|)), the CUDA helper's order of operations."""
    np.abs(z, out=out)
    negative(out, out)
    np.exp(out, out=out)
    np.log1p(out, out=out)
    np.add(out, np.maximum(z, z.dtype.type(0)), out=out)


def _sigmoid_parts(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sigmoid(z), e, d) with e = exp(-|z|), d = 1 + e."""
    e = np.exp(-np.abs(z))
    d = e + z.dtype.type(1)
    s = np.where(z >= 0, z.dtype.type(1), e) / d
    return s, e, d


def _sigmoid_dz(z: np.ndarray, dz: np.ndarray) -> np.ndarray:
    """sigmoid(z + dz) to first order in dz (sigmoid' = e / d^2); dz is discarded unless finite
    and smaller than |z| (so NaN, infinities and overflow leave the plain value)."""
    s, e, d = _sigmoid_parts(z)
    return np.where(np.abs(dz) < np.abs(z), s + dz * (e / (d * d)), s)


def _softplus_mul(a: np.generic, x: np.ndarray) -> np.ndarray:
    """softplus(a * x) with the product's rounding error folded back (softplus' = sigmoid)."""
    z = x * a
    dz = prod_err(x, a)
    e = np.exp(-np.abs(z))
    r = np.maximum(z, z.dtype.type(0)) + np.log1p(e)
    w = np.where(z >= 0, z.dtype.type(1), e) / (e + z.dtype.type(1))
    return np.where(np.abs(dz) < np.abs(z), r + dz * w, r)


def _mul_limit(x: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
    """x * s, where s == 0 gives a zero of x's sign (so -inf * sigmoid(-inf) is -0.0, not NaN)."""
    np.multiply(x, s, out=out)
    zero = s == 0
    if zero.any():
        np.copyto(out, np.copysign(x.dtype.type(0), x), where=zero)


def _tail_scale(y: np.ndarray) -> np.ndarray:
    """y * exp(-K), rounded once: fma(y, E_hi, y * E_lo), with y's sign (also on a zero)."""
    e_hi, e_lo = _c("tail_scale", y.dtype)
    return np.copysign(fma(y, e_hi, y * e_lo), y)


def _x_exp_tail(x: np.ndarray, z: np.ndarray, dz: np.ndarray) -> np.ndarray:
    """x * exp(z + dz) for z < -K, with no subnormal intermediate (see TAIL_K)."""
    y = np.empty_like(x)
    _mul_limit(x, np.exp(z + x.dtype.type(TAIL_K[x.dtype])), y)
    y = np.where((y != 0) & (np.abs(dz) < np.abs(z)), y + y * dz, y)  # a zero keeps its sign
    return _tail_scale(y)


def _x_sigmoid(x: np.ndarray, z: np.ndarray, dz: np.ndarray, out: np.ndarray) -> None:
    """x * sigmoid(z + dz); below -K sigmoid(z) == exp(z) (1 + e^z == 1), through the tail."""
    _mul_limit(x, _sigmoid_dz(z, dz), out)
    tail = z < -TAIL_K[x.dtype]
    if tail.any():
        np.copyto(out, _x_exp_tail(x, z, dz), where=tail)


def _clamp01(v: np.ndarray) -> np.ndarray:
    """max(0, min(v, 1)) by comparisons: NaN stays NaN, -0.0 gives +0.0."""
    one, zero = v.dtype.type(1), v.dtype.type(0)
    return np.where(v <= zero, zero, np.where(v >= one, one, v))


# --------------------------------------------------------------------------------------------
# DirectML activations


# Up to this many elements, max(x, 0) takes its zero from a cached array: NumPy 2.4's
# np.maximum runs its SIMD loop for two arrays but not for an array and a scalar (0.16 vs
# 0.51 ns per float32 element on 64 Ki elements), which made RELU the slow half of ADD1+RELU.
_ZEROS_MAX = 1 << 16
_ZEROS: dict[np.dtype, np.ndarray] = {}


def _zeros_like(x: np.ndarray) -> np.ndarray | np.generic:
    """Zeros shaped like ``x``: a view of a cached read-only array, or a scalar when ``x`` is large."""
    if x.size > _ZEROS_MAX:
        return x.dtype.type(0)
    zeros = _ZEROS.get(x.dtype)
    if zeros is None:
        zeros = np.zeros(_ZEROS_MAX, x.dtype)
        zeros.flags.writeable = False
        _ZEROS[x.dtype] = zeros
    return zeros[: x.size].reshape(x.shape)


def _max_zero(x: np.ndarray, *, out: np.ndarray) -> None:
    np.maximum(x, _zeros_like(x), out=out)


@functools.cache
def max_zero_gives_positive_zero(dtype: np.dtype, max_zero: Callable[..., None] = _max_zero) -> bool:
    """Whether ``max_zero(x, out=...)`` turns -0.0 into +0.0 (and keeps NaN) in every loop it runs.

    NumPy's contiguous SIMD bodies, their tails, its strided and in-place loops are separate
    code (and the SIMD ones depend on the CPU), so each is probed: lengths 1..80 at four
    offsets, a strided and a reversed view, in place and not, and one length past the
    cached zeros (the scalar form).
    """
    zero = dtype.type(0)
    lengths = [*range(1, 81), _ZEROS_MAX + 7]
    for n in lengths:
        for offset in range(4) if n <= 80 else (1,):
            x = np.zeros(n + offset, dtype)[offset:]
            x[:] = -0.0
            x[1::3] = np.nan
            x[2::5] = -1.0
            x[::4] = 2.0
            for view in (x, x[::2], x[::-1]):
                want = np.where(view > 0, view, zero)
                want[np.isnan(view)] = np.nan
                for in_place in (False, True):
                    got = view.copy() if in_place else np.empty(view.shape, dtype)
                    max_zero(got if in_place else view, out=got)
                    if not np.array_equal(got, want, equal_nan=True) or np.signbit(got[got == 0]).any():
                        return False
    return True


def relu(x: np.ndarray, *, out: np.ndarray) -> None:
    """max(x, 0), NaN propagating, and +0.0 for -0.0 (as the CUDA expression).

    One ``np.maximum`` where this NumPy's loops give +0.0 for -0.0 (probed once per type);
    else ``np.maximum`` then ``+ 0.0``, which turns -0.0 into +0.0 and leaves every other
    value as is. Alias-safe: the second step reads only ``out``.
    """
    _max_zero(x, out=out)
    if x.dtype.kind == "f" and not max_zero_gives_positive_zero(x.dtype):
        np.add(out, x.dtype.type(0), out=out)


def elu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32) -> None:
    np.expm1(x, out=out)
    np.multiply(out, _f(x, alpha), out=out)
    np.copyto(out, x, where=x >= 0)


def celu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32) -> None:
    """x if x >= 0 else alpha * expm1(u + du), u = x / alpha rounded, du = (x - u alpha) / alpha
    (exact remainder by fma) folded back (expm1' = expm1 + 1): for alpha < 0, u grows. Where
    1 + u rounds to 1 (u tiny, subnormal or underflowed to 0) and alpha is finite, x: alpha * expm1(x / alpha) is x
    within half an ulp there."""
    a = _f(x, alpha)
    u = x / a
    du = fma(-u, a, x) / a
    em = np.expm1(u)
    em = np.where((np.abs(du) < np.abs(u)) & ~np.isinf(em), em + du * (em + x.dtype.type(1)), em)
    np.multiply(em, a, out=out)
    one = x.dtype.type(1)
    np.copyto(out, x, where=(x >= 0) | ((one + u == one) & np.isfinite(a)))


def softplus(x: np.ndarray, *, out: np.ndarray, steepness: np.float32) -> None:
    """softplus(s * x) / s; where s * x overflows (s and x finite), x if s * x > 0 else 0 / s."""
    s = _f(x, steepness)
    np.divide(_softplus_mul(s, x), s, out=out)
    z = x * s
    over = np.isinf(z) & ~np.isinf(x) & ~np.isinf(s)
    if over.any():
        np.copyto(out, np.where(z > 0, x, x.dtype.type(0) / s), where=over)


def parametric_softplus(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    """alpha * softplus(beta * x); where beta * x overflows to +inf (both finite), (alpha * beta) * x."""
    a, b = _f(x, alpha), _f(x, beta)
    np.multiply(_softplus_mul(b, x), a, out=out)
    z = x * b
    over = (z > 0) & np.isinf(z) & ~np.isinf(x) & ~np.isinf(b)
    if over.any():
        np.copyto(out, (a * b) * x, where=over)


def gelu(x: np.ndarray, *, out: np.ndarray) -> None:
    """0.5 x erfc(t), t = -x / sqrt 2 rounded, its rounding error dt folded back.

    Up to GELU_ERFCX_FROM: erfc(t) - dt 2/sqrt(pi) e^-t^2. Beyond: 0.5 x erfcx(t) e^-t2 with
    t * t = t2 + t2e exact (fma), times (1 - t2e - dt 2/sqrt(pi) / erfcx(t)) for both errors
    (erfc'/erfc = -2/sqrt(pi) / erfcx), through the tail scaling once e^-t2 would be subnormal.
    """
    from scipy.special import erfc, erfcx  # SciPy ufuncs; NumPy has no erf/erfc

    dt_ = x.dtype.type
    c_hi, c_lo = _c("inv_sqrt2", x.dtype)
    k = _c("two_over_sqrt_pi", x.dtype)[0]
    big_k = dt_(TAIL_K[x.dtype])
    nx = -x
    t = nx * c_hi
    dt = prod_err(nx, c_hi) - x * c_lo
    h = x * dt_(0.5)
    # near: erfc
    e = erfc(t)
    e = np.where(np.abs(dt) < np.abs(t), e - dt * k * np.exp(-t * t), e)
    _mul_limit(h, e, out)
    far = t > dt_(GELU_ERFCX_FROM[x.dtype])
    if far.any():
        t2 = t * t
        t2e = prod_err(t, t)
        ex = erfcx(t)
        y = np.empty_like(x)
        _mul_limit(h, ex, y)
        scaled = t2 >= big_k
        y = y * np.exp(np.where(scaled, big_k - t2, -t2))
        delta = t2e + dt * k / ex
        y = np.where((y != 0) & (np.abs(delta) < dt_(1)), y - y * delta, y)
        y = np.where(scaled, _tail_scale(y), y)
        np.copyto(out, y, where=far)


def hard_sigmoid(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    out[...] = _clamp01(fma(_f(x, alpha), x, _f(x, beta)))


def hard_swish(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    h = _clamp01(fma(_f(x, alpha), x, _f(x, beta)))
    np.multiply(x, h, out=out)
    np.copyto(out, x.dtype.type(0), where=h == 0)


def leaky_relu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32) -> None:
    np.multiply(x, _f(x, alpha), out=out)
    np.copyto(out, x, where=x >= 0)


def linear(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    out[...] = fma(_f(x, alpha), x, _f(x, beta))


def parameterized_relu(x: np.ndarray, y: np.ndarray, *, out: np.ndarray) -> None:
    """x if x >= 0 else slope * x; integers wrap (NumPy's integer multiply, as CUDA's)."""
    np.multiply(y, x, out=out)
    np.copyto(out, x, where=x >= 0)


def scaled_elu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, gamma: np.float32) -> None:
    g = _f(x, gamma)
    np.expm1(x, out=out)
    np.multiply(out, _f(x, alpha), out=out)
    np.multiply(out, g, out=out)
    pos = x > 0
    np.copyto(out, x * g, where=pos)


def scaled_tanh(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    np.multiply(x, _f(x, beta), out=out)
    np.tanh(out, out=out)
    np.multiply(out, _f(x, alpha), out=out)


def _shrink_int(x: np.ndarray, out: np.ndarray, bias: np.float32, threshold: np.float32) -> None:
    """trunc(x -+ bias) of the exact real value, saturated to the type; 0 inside the threshold."""
    v = x.astype(np.float64)
    b, th = np.float64(bias), np.float64(threshold)
    lo_b, hi_b = np.floor(b), np.ceil(b)
    down = v - np.where(v >= b, hi_b, lo_b)  # trunc(v - b)
    up = v + np.where(v >= -b, lo_b, hi_b)  # trunc(v + b)
    r = np.where(v > th, down, np.where(v < -th, up, 0.0))
    info = np.iinfo(x.dtype)
    r = np.where(np.isnan(r), 0.0, np.clip(r, float(info.min), float(info.max)))
    out[...] = r.astype(x.dtype)


def shrink(x: np.ndarray, *, out: np.ndarray, bias: np.float32, threshold: np.float32) -> None:
    """x - bias above threshold, x + bias below -threshold, else 0; NaN stays NaN."""
    if x.dtype.kind in "iu":
        _shrink_int(x, out, bias, threshold)
        return
    b, th = _f(x, bias), _f(x, threshold)
    inner = np.where(x == x, x.dtype.type(0), x)
    out[...] = np.where(x > th, x - b, np.where(x < -th, x + b, inner))


def sigmoid(x: np.ndarray, *, out: np.ndarray) -> None:
    out[...] = _sigmoid_parts(x)[0]


def softsign(x: np.ndarray, *, out: np.ndarray) -> None:
    """x / (1 + |x|); +-inf give +-1."""
    np.abs(x, out=out)
    np.add(out, x.dtype.type(1), out=out)
    np.divide(x, out, out=out)
    np.copyto(out, np.sign(x), where=np.isinf(x))


def swish(x: np.ndarray, *, out: np.ndarray, sigmoid_input_scale: np.float32) -> None:
    a = _f(x, sigmoid_input_scale)
    _x_sigmoid(x, x * a, prod_err(x, a), out)


def thresholded_relu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32) -> None:
    """x if x > alpha else 0; NaN stays NaN."""
    inner = np.where(x == x, x.dtype.type(0), x)
    out[...] = np.where(x > _f(x, alpha), x, inner)


def relu_grad(x: np.ndarray, y: np.ndarray, *, out: np.ndarray) -> None:
    """dX = dY where X > 0 else 0 (DirectML's formula: a NaN X gives 0)."""
    out[...] = 0
    np.copyto(out, y, where=x > 0)


# --------------------------------------------------------------------------------------------
# oneDNN eltwise extensions


def gelu_tanh(x: np.ndarray, *, out: np.ndarray) -> None:
    """x * sigmoid(z), z = x (a + b x^2) evaluated with its rounding error carried (double-word)."""
    a_hi, a_lo = _c("gelu_tanh_a", x.dtype)
    b_hi, b_lo = _c("gelu_tanh_b", x.dtype)
    x2 = x * x
    x2e = prod_err(x, x)
    p = x2 * b_hi
    pe = prod_err(x2, b_hi) + (x2e * b_hi + x2 * b_lo)
    s = p + a_hi
    sb = s - a_hi
    se = ((a_hi - (s - sb)) + (p - sb)) + (pe + a_lo)
    z = x * s
    dz = prod_err(x, s) + x * se
    _x_sigmoid(x, z, dz, out)


def log_sigmoid(x: np.ndarray, *, out: np.ndarray) -> None:
    """-softplus(-x) (oneDNN's stable form of log(1 / (1 + e^-x)))."""
    _softplus(-x, out)
    negative(out, out)


def mish(x: np.ndarray, *, out: np.ndarray) -> None:
    """x * tanh(softplus(x)); below -K, where tanh(softplus(x)) == e^x, through the tail."""
    t = np.empty_like(x)
    _softplus(x, t)
    np.tanh(t, out=t)
    _mul_limit(x, t, out)
    tail = x < -TAIL_K[x.dtype]
    if tail.any():
        np.copyto(out, _x_exp_tail(x, x, np.zeros_like(x)), where=tail)


def pow_(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    """alpha * x ** beta (IEEE pow: a negative x with a non-integral beta gives NaN)."""
    pow_float(x, _f(x, beta), out)
    np.multiply(out, _f(x, alpha), out=out)


def bounded_relu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32) -> None:
    """0 if x <= 0, alpha if x > alpha, else x (oneDNN bounded_relu); NaN stays NaN."""
    a = _f(x, alpha)
    out[...] = np.where(x <= 0, x.dtype.type(0), np.where(x > a, a, x))


def clip_v2(x: np.ndarray, *, out: np.ndarray, alpha: np.float32, beta: np.float32) -> None:
    """alpha if x <= alpha, beta if x >= beta, else x (oneDNN clip_v2); NaN stays NaN."""
    a, b = _f(x, alpha), _f(x, beta)
    out[...] = np.where(x <= a, a, np.where(x >= b, b, x))
