"""NumPy forms of the reductions (DML_REDUCE_FUNCTION and the ARGMAX/ARGMIN operators).

Each is ``f(x, axes, n, compute)``: ``x`` is the input view in its stored type, ``axes`` the
reduced axes, ``n`` how many elements each output reduces, ``compute`` the NumPy type of the
compute type ``T`` (float32 for float16 and bfloat16: they accumulate in float32, never in
their own type, which NumPy would otherwise do). The result keeps the reduced axes as size 1
and is cast to the output type by the backend. Integers accumulate in 64 bits, which wraps;
the cast to the output type then reduces modulo 2**bits, exactly as the CUDA kernels do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["ARG", "REDUCE", "UfuncReduce", "fix_max_zeros", "fix_min_zeros"]

Axes = tuple[int, ...]


def _wide(compute: np.dtype) -> np.dtype:
    """The accumulator of a function that adds or multiplies: 64-bit for integers."""
    if compute.kind == "f":
        return compute
    return np.dtype(np.int64 if compute.kind == "i" else np.uint64)


def _as(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return x if x.dtype == dtype else x.astype(dtype)


def _sum(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    return np.add.reduce(x, axis=axes, dtype=_wide(compute), keepdims=True)


def _average(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    s = _sum(x, axes, n, compute)
    if s.dtype.kind == "f":
        return np.divide(s, s.dtype.type(n))
    q = s // s.dtype.type(n)  # floor; DirectML's integer division truncates toward zero
    q += ((s - q * s.dtype.type(n)) != 0) & (s < 0)
    return q


def _l1(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    w = _wide(compute)
    return np.add.reduce(np.abs(_as(x, w)), axis=axes, keepdims=True)


def _sum_square(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    v = _as(x, _wide(compute))
    return np.add.reduce(v * v, axis=axes, keepdims=True)


def _l2(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    return np.sqrt(_sum_square(x, axes, n, compute))


def _log_sum(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    return np.log(_sum(x, axes, n, compute))


def _log_sum_exp(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    """``m + log(sum(exp(x - m)))`` with ``m`` the maximum: no overflow for large inputs."""
    v = _as(x, compute)
    m = np.maximum.reduce(v, axis=axes, keepdims=True)
    shift = np.where(np.isfinite(m), m, compute.type(0))
    s = np.add.reduce(np.exp(v - shift), axis=axes, keepdims=True)
    return np.where(np.isfinite(m), shift + np.log(s), m)


_UINT: dict[int, np.dtype[Any]] = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def _zero_sign(is_max: bool, x: np.ndarray, result: np.ndarray, axes: Axes) -> None:
    """Give the zero results of a float MAX (MIN) the sign IEEE 754-2019 maximum (minimum) gives.

    -0.0 < +0.0 (5.3.1), so a zero maximum is +0.0 if any input is +0.0 and a zero minimum is
    -0.0 if any input is -0.0, whatever the order; NumPy's reduction loops keep either zero.
    Where the maximum is a zero every input is <= 0 (no NaN), so only a +0.0 has its sign bit
    clear: the AND of the sign bits is the result's. For the minimum, the OR. Set with bit
    operations (a masked copy is slow on a scattered mask); other results keep their bits.
    """
    if result.dtype.kind != "f":
        return
    zero = result == 0
    if not zero.any():
        return
    u, ur = _UINT[x.dtype.itemsize], _UINT[result.dtype.itemsize]
    combine = np.bitwise_and if is_max else np.bitwise_or
    negative = combine.reduce(x.view(u), axis=axes, keepdims=True) >> u.type(8 * u.itemsize - 1) != 0
    change = zero & ~negative if is_max else zero & negative  # the sign bit to clear (MAX) or set (MIN)
    bits = np.left_shift(change.astype(ur), ur.type(8 * ur.itemsize - 1))
    rb = result.view(ur)
    if is_max:
        np.bitwise_and(rb, np.invert(bits, out=bits), out=rb)
    else:
        np.bitwise_or(rb, bits, out=rb)


def fix_max_zeros(x: np.ndarray, out: np.ndarray, axes: Axes) -> None:
    """After a plain ``np.maximum.reduce`` into ``out``: the zero signs of :func:`_zero_sign`."""
    _zero_sign(True, x, out, axes)


def fix_min_zeros(x: np.ndarray, out: np.ndarray, axes: Axes) -> None:
    """After a plain ``np.minimum.reduce`` into ``out``: the zero signs of :func:`_zero_sign`."""
    _zero_sign(False, x, out, axes)


@dataclasses.dataclass(frozen=True, slots=True)
class UfuncReduce:
    """A reduction that is one ufunc reduction in the accumulator type (CuPy's reduction of
    ``cupy.sum`` and kin): the NumPy backend may reduce straight into an output of that type,
    with no temporary and no second pass. ``wide``: integers accumulate in 64 bits (the
    function adds or multiplies). ``after(x, out, axes)``: applied to the output afterwards.
    """

    ufunc: np.ufunc
    wide: bool
    after: Callable[[np.ndarray, np.ndarray, Axes], None] | None = None

    def accumulator(self, compute: np.dtype) -> np.dtype:
        """The NumPy accumulator type for compute type ``compute``."""
        return _wide(compute) if self.wide else compute


def _max(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    r = np.maximum.reduce(_as(x, compute), axis=axes, keepdims=True)
    _zero_sign(True, x, r, axes)
    return r


def _min(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    r = np.minimum.reduce(_as(x, compute), axis=axes, keepdims=True)
    _zero_sign(False, x, r, axes)
    return r


def _multiply(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
    return np.multiply.reduce(x, axis=axes, dtype=_wide(compute), keepdims=True)


def _arg(is_max: bool, last: bool) -> Callable[..., np.ndarray]:
    """Index over the reduced axes, row-major; NaN wins (as in NumPy); ties by direction."""

    def arg(x: np.ndarray, axes: Axes, n: int, compute: np.dtype) -> np.ndarray:
        nd = x.ndim
        kept = [i for i in range(nd) if i not in axes]
        moved = np.transpose(_as(x, compute), kept + list(axes))
        flat = moved.reshape(*moved.shape[: len(kept)], n)
        if last:
            flat = flat[..., ::-1]
        pick = np.argmax if is_max else np.argmin
        idx = pick(flat, axis=-1).astype(np.int64)
        if last:
            idx = (n - 1) - idx
        shape = [1 if i in axes else x.shape[i] for i in range(nd)]
        return idx.reshape(shape)

    return arg


REDUCE: dict[str, Callable[..., np.ndarray]] = {
    "AVERAGE": _average,
    "L1": _l1,
    "L2": _l2,
    "LOG_SUM": _log_sum,
    "LOG_SUM_EXP": _log_sum_exp,
    "MAX": _max,
    "MIN": _min,
    "MULTIPLY": _multiply,
    "SUM": _sum,
    "SUM_SQUARE": _sum_square,
}

ARG: dict[tuple[bool, bool], Callable[..., np.ndarray]] = {
    (is_max, last): _arg(is_max, last) for is_max in (True, False) for last in (False, True)
}
