"""NumPy implementations of the oneDNN eltwise backward rows: ``f(x, y, *, out, alpha, beta)``.

``x`` is src (or dst), ``y`` is diff_dst, ``out`` diff_src; all in the compute type, ``out``
distinct from both. Each mirrors the CUDA expression of ``ops/backward.py`` step by step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common_numpy import negative, pow_float

__all__ = [
    "abs_grad", "bounded_relu_grad", "clip_grad", "clip_v2_grad", "elu_dst_grad", "elu_grad", "exp_dst_grad",
    "exp_grad", "gelu_erf_grad", "gelu_tanh_grad", "hardswish_grad", "linear_grad", "log_grad",
    "logistic_dst_grad", "logistic_grad", "logsigmoid_grad", "mish_grad", "pow_grad", "relu_grad",
    "soft_relu_grad", "sqrt_dst_grad", "sqrt_grad", "square_grad", "swish_grad", "tanh_dst_grad", "tanh_grad",
]  # fmt: skip

Array = np.ndarray


def _t(x: Array, v: Any) -> Any:
    return x.dtype.type(v)


def _sigmoid(s: Array) -> Array:
    """exp(-|s|) based logistic, as gpuops_bwd_sigmoid."""
    e = np.exp(-np.abs(s))
    one = _t(s, 1)
    return np.where(s >= 0, one / (one + e), e / (one + e))


def _pow_m1(s: Array, b: Any) -> Array:
    """s^(b - 1), the exponent's rounding error folded back (as gpuops_bwd_pow_m1)."""
    one = _t(s, 1)
    e = b - one
    bb = e - b
    de = (b - (e - bb)) + (-one - bb)
    p = np.empty(np.broadcast(s, e).shape, np.result_type(s, e))
    pow_float(s, e, p)
    if not abs(de) > 0:  # exact, or NaN for an infinite b
        return p
    fix = (p != 0) & ~np.isinf(p)
    return np.where(fix, p + p * (de * np.log(np.abs(s))), p)


def _softplus(s: Array) -> Array:
    return np.maximum(s, _t(s, 0)) + np.log1p(np.exp(-np.abs(s)))


def _select(out: Array, cond: Array, y: Array) -> None:
    """out = y where cond else 0 (the CUDA ternary ``cond ? y : T(0)``)."""
    out[...] = 0
    np.copyto(out, y, where=cond)


def abs_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    out[...] = 0
    np.copyto(out, y, where=x > 0)
    negative(y, out, where=x < 0)


def bounded_relu_grad(x: Array, y: Array, *, out: Array, alpha: Any, **_: Any) -> None:
    _select(out, (x > 0) & (x <= _t(x, alpha)), y)


def clip_grad(x: Array, y: Array, *, out: Array, alpha: Any, beta: Any, **_: Any) -> None:
    _select(out, (x > _t(x, alpha)) & (x <= _t(x, beta)), y)


def clip_v2_grad(x: Array, y: Array, *, out: Array, alpha: Any, beta: Any, **_: Any) -> None:
    _select(out, (x > _t(x, alpha)) & (x < _t(x, beta)), y)


def elu_grad(x: Array, y: Array, *, out: Array, alpha: Any, **_: Any) -> None:
    np.exp(x, out=out)
    np.multiply(out, _t(x, alpha), out=out)
    np.multiply(y, out, out=out)
    np.copyto(out, y, where=x > 0)


def elu_dst_grad(x: Array, y: Array, *, out: Array, alpha: Any, **_: Any) -> None:
    np.add(x, _t(x, alpha), out=out)
    np.multiply(y, out, out=out)
    np.copyto(out, y, where=x > 0)


def exp_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.exp(x, out=out)
    np.multiply(y, out, out=out)


def exp_dst_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.multiply(y, x, out=out)


def gelu_erf_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    from scipy.special import erf

    half = _t(x, 0.5)
    a = erf(x * _t(x, 0.7071067811865476))
    b = x * _t(x, 0.3989422804014327) * np.exp(_t(x, -0.5) * x * x)
    np.multiply(a, half, out=out)
    np.add(half, out, out=out)
    np.add(out, b, out=out)
    np.multiply(y, out, out=out)


def gelu_tanh_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    """The seed's formula (1); beyond |s| > 10 its limit, 1 or 0 (as gpuops_bwd_gelu_tanh)."""
    k = _t(x, 0.7978845608028654)
    one, half = _t(x, 1), _t(x, 0.5)
    t = np.tanh(k * (x + _t(x, 0.044715) * x * x * x))
    inner = one + k * (x + _t(x, 0.134145) * x * x * x) * (one - t)
    np.multiply(half * (one + t), inner, out=out)
    out[x > 10] = 1
    out[x < -10] = 0
    np.multiply(y, out, out=out)


def hardswish_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.multiply(x, _t(x, 2), out=out)
    np.add(out, _t(x, 3), out=out)
    np.divide(out, _t(x, 6), out=out)
    np.multiply(y, out, out=out)
    out[~(x > -3)] = 0
    np.copyto(out, y, where=x > 3)


def linear_grad(x: Array, y: Array, *, out: Array, alpha: Any, **_: Any) -> None:
    np.multiply(y, _t(y, alpha), out=out)


def log_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.divide(y, x, out=out)


def logistic_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    s = _sigmoid(x)
    np.subtract(_t(x, 1), s, out=out)
    np.multiply(s, out, out=out)
    np.multiply(y, out, out=out)


def logistic_dst_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    """dd * (d * (1 - d)); beyond |d| > 1e19, where d * (1 - d) overflows, (dd * d) * (1 - d)."""
    one = _t(x, 1)
    np.subtract(one, x, out=out)
    np.multiply(x, out, out=out)
    np.multiply(y, out, out=out)
    big = np.abs(x) > _t(x, 1e19)
    if big.any():
        np.copyto(out, (y * x) * (one - x), where=big)


def logsigmoid_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.multiply(y, _sigmoid(-x), out=out)


def mish_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    t = np.tanh(_softplus(x))
    one = _t(x, 1)
    np.multiply(t, t, out=out)
    np.subtract(one, out, out=out)
    np.multiply(x, out, out=out)
    np.multiply(out, _sigmoid(x), out=out)
    np.add(t, out, out=out)
    np.multiply(y, out, out=out)


def pow_grad(x: Array, y: Array, *, out: Array, alpha: Any, beta: Any, **_: Any) -> None:
    """(alpha * dd) * (beta * s^(beta - 1))."""
    a, b = _t(x, alpha), _t(x, beta)
    np.multiply(b, _pow_m1(x, b), out=out)
    np.multiply(a * y, out, out=out)


def relu_grad(x: Array, y: Array, *, out: Array, alpha: Any, **_: Any) -> None:
    np.multiply(y, _t(y, alpha), out=out)
    np.copyto(out, y, where=x > 0)


def soft_relu_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.multiply(y, _sigmoid(x), out=out)


def sqrt_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.sqrt(x, out=out)
    np.multiply(out, _t(x, 2), out=out)
    np.divide(y, out, out=out)


def sqrt_dst_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    """dd / (2 d); beyond |d| > 1e38, where 2 d overflows, (0.5 dd) / d."""
    np.multiply(x, _t(x, 2), out=out)
    np.divide(y, out, out=out)
    big = np.abs(x) > _t(x, 1e38)
    if big.any():
        np.copyto(out, (_t(x, 0.5) * y) / x, where=big)


def square_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    """dd * (2 s), or (2 dd) * s where |s| > |dd|: the smaller operand is doubled."""
    two = _t(x, 2)
    np.multiply(x, two, out=out)
    np.multiply(y, out, out=out)
    swap = np.abs(x) > np.abs(y)
    if swap.any():
        np.copyto(out, (two * y) * x, where=swap)


def swish_grad(x: Array, y: Array, *, out: Array, alpha: Any, **_: Any) -> None:
    """dd * gpuops_bwd_swish(alpha s): its limits 1 and 0 where alpha s is infinite."""
    a = _t(x, alpha)
    ax = a * x
    s = _sigmoid(ax)
    np.subtract(_t(x, 1), s, out=out)
    np.multiply(ax, out, out=out)
    np.add(_t(x, 1), out, out=out)
    np.multiply(s, out, out=out)
    inf = np.isinf(ax)
    if inf.any():
        np.copyto(out, np.where(ax > 0, _t(x, 1), _t(x, 0)), where=inf)
    np.multiply(y, out, out=out)


def tanh_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    np.tanh(x, out=out)
    np.multiply(out, out, out=out)
    np.subtract(_t(x, 1), out, out=out)
    np.multiply(y, out, out=out)


def tanh_dst_grad(x: Array, y: Array, *, out: Array, **_: Any) -> None:
    """dd * (1 - d * d); beyond |d| > 1e19, where d * d overflows, (dd * d) * -d."""
    np.multiply(x, x, out=out)
    np.subtract(_t(x, 1), out, out=out)
    np.multiply(y, out, out=out)
    big = np.abs(x) > _t(x, 1e19)
    if big.any():
        np.copyto(out, (y * x) * -x, where=big)
