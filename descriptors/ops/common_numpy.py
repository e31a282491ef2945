"""NumPy implementations that need more than one ufunc (the single ufuncs sit in the table).

Each is ``f(x, y, out)``: ``x`` and ``y`` are already in the compute type (see
``descriptors.compute``), ``out`` never aliases them (except in ``maximum_float`` and
``minimum_float``, which the table marks as single ufuncs: ``out`` may be ``x`` or ``y``), and
nothing here warns: the backend runs it under ``numpy.errstate(all="ignore")``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "div_trunc",
    "mean_int",
    "difference_square",
    "int_pow",
    "is_nan",
    "maximum_float",
    "mean_float",
    "minimum_float",
    "negative",
    "pow_float",
]


def negative(x: np.ndarray, out: np.ndarray, where: np.ndarray | bool = True) -> None:
    """``np.negative(x, out=out, where=where)``; ``out`` may alias ``x``. NumPy 2.4's negative loop
    reads an input whose stride is itemsize elements (a float32 view with step 4, a float64 one with
    step 8) as if contiguous when the output is not contiguous (``np.negative(a[::4], out=b[::2])``
    takes a[0], a[1], ...): such an output gets the result through a contiguous temporary."""
    if out.flags.c_contiguous:
        np.negative(x, out=out, where=where)
    else:
        np.copyto(out, np.negative(x), where=where)


def pow_float(x: np.ndarray, y: np.ndarray | np.generic, out: np.ndarray) -> None:
    """IEEE pow (C99 F.9.4.4), as CUDA's ``powf``/``pow``. NumPy's float32/float64 power takes ``x ** 0.5`` as
    ``sqrt(x)`` wherever the exponent is a scalar or a broadcast (stride-0) array, which gives -0.0 at -0.0 and
    NaN at -inf where pow gives +0.0 and +inf; those results are put right. ``out`` may alias ``x``."""
    zero = neg_inf = None
    if np.any(y == 0.5):
        half = y == 0.5
        zero, neg_inf = half & (x == 0), half & (x == -np.inf)
    np.power(x, y, out=out)
    if zero is not None and neg_inf is not None:
        np.copyto(out, out.dtype.type(0), where=zero)
        np.copyto(out, out.dtype.type(np.inf), where=neg_inf)


def is_nan(x: np.ndarray, out: np.ndarray) -> None:
    """``np.isnan(x, out=out)``. NumPy 2.4's isnan (like isinf, isfinite and signbit) writes wrong values into a
    non-contiguous BOOL output (``np.isnan(a, out=b[::2])`` misses NaNs in float32 and float64): such an output
    gets the result through a contiguous temporary."""
    if out.flags.c_contiguous:
        np.isnan(x, out=out)
    else:
        np.copyto(out, np.isnan(x), casting="unsafe")


def div_trunc(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """Integer division toward zero: ``(x - fmod(x, y)) // y`` is exact (x / 0 -> 0)."""
    np.fmod(x, y, out=out)
    np.subtract(x, out, out=out)
    np.floor_divide(out, y, out=out)


_UINT: dict[int, np.dtype[Any]] = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_INT: dict[int, np.dtype[Any]] = {2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _has_negative_zero(a: np.ndarray) -> bool:
    """Whether float array ``a`` holds a -0.0: its bits (the sign bit alone) are the most negative
    integer of the width, so one integer min-reduction finds it (no temporary array)."""
    i = a.view(_INT[a.dtype.itemsize])
    return a.size > 0 and int(np.minimum.reduce(i, axis=None)) == int(np.iinfo(i.dtype).min)


def _ieee_extreme(is_max: bool, x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """IEEE 754-2019 maximum/minimum (5.3.1) of floats; ``out`` may be ``x`` or ``y``.

    ``np.maximum``/``np.minimum`` propagate NaN (x's if both are NaN, as NumPy documents) and are
    right except where both operands are zeros and one is -0.0: their loops pick either operand on
    a tie (the SIMD ones the second), where -0.0 < +0.0 gives max(+0, -0) = +0, min(+0, -0) = -0.
    Without a -0.0 in either operand (one integer reduction each) the ufunc alone is the answer.
    Otherwise those pairs (``x | y`` is the sign bit alone) are found before the ufunc may write
    over an operand, and their results set afterwards with branch-free bit operations over the
    whole array (a masked ``where=`` copy costs 20-70x a pass on a dense random mask): the
    maximum's bits there are ``x & y``, the minimum is -0.0.
    """
    ufunc = np.maximum if is_max else np.minimum
    if not (_has_negative_zero(x) or _has_negative_zero(y)):
        ufunc(x, y, out=out)
        return
    if out.ndim == 0:  # ufuncs give 0-d operands scalars back: work on 1-element views
        x, y, out = np.reshape(x, 1), np.reshape(y, 1), out.reshape(1)
    u = _UINT[out.dtype.itemsize]
    sign = u.type(1 << (8 * u.itemsize - 1))
    xb, yb = x.view(u), y.view(u)
    bits = np.bitwise_or(xb, yb)
    pairs = np.equal(bits, sign)
    if not pairs.any():
        ufunc(x, y, out=out)
        return
    fix = pairs.astype(u)
    np.left_shift(fix, u.type(8 * u.itemsize - 1), out=fix)  # the sign bit at those pairs, 0 elsewhere
    if is_max:  # AND the result with (x & y) | ~fix: its sign survives there only if both are -0.0
        np.bitwise_and(xb, yb, out=bits)
        np.invert(fix, out=fix)
        fix = np.bitwise_or(bits, fix, out=bits)
    ufunc(x, y, out=out)
    ob = out.view(u)
    (np.bitwise_and if is_max else np.bitwise_or)(ob, fix, out=ob)


def maximum_float(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """max(x, y): IEEE 754-2019 maximum, NaN propagating, max(+0.0, -0.0) = +0.0 in either order."""
    _ieee_extreme(True, x, y, out)


def minimum_float(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """min(x, y): IEEE 754-2019 minimum, NaN propagating, min(+0.0, -0.0) = -0.0 in either order."""
    _ieee_extreme(False, x, y, out)


def mean_float(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """(x + y) / 2, one rounding per step as in CUDA."""
    np.add(x, y, out=out)
    np.multiply(out, out.dtype.type(0.5), out=out)


def mean_int(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """trunc((x + y) / 2) without overflow: exact in float64 for the 32-bit types MEAN takes."""
    tmp = np.add(x, y, dtype=np.float64)
    np.multiply(tmp, 0.5, out=tmp)
    np.trunc(tmp, out=tmp)
    np.copyto(out, tmp, casting="unsafe")


def difference_square(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """(x - y) * (x - y), wrapping for integers."""
    np.subtract(x, y, out=out)
    np.multiply(out, out, out=out)


def int_pow(x: np.ndarray, e: np.ndarray, out: np.ndarray) -> None:
    """Exact integer power, wrapping modulo 2**bits; negative exponents truncate (see CUDA)."""
    base = x.astype(np.uint64)  # modular: -3 -> 2**64 - 3
    acc = np.ones(x.shape, np.uint64)
    negative = e < 0 if np.issubdtype(e.dtype, np.signedinteger) else np.zeros(e.shape, bool)
    n = np.where(negative, 0, e).astype(np.uint64)
    one = np.uint64(1)
    while n.any():
        odd = (n & one).astype(bool)
        np.multiply(acc, base, out=acc, where=odd)
        np.multiply(base, base, out=base)
        np.right_shift(n, one, out=n)
    np.copyto(out, acc, casting="unsafe")
    if negative.any():
        neg_result = np.where(x == 1, 1, 0).astype(out.dtype)
        if np.issubdtype(x.dtype, np.signedinteger):
            minus_one = x == -1
            odd_e = (e & 1).astype(bool)
            neg_result[minus_one] = np.where(odd_e[minus_one], -1, 1).astype(out.dtype)
        out[negative] = neg_result[negative]
