"""A reduction's input and output as the rows NumPy's pairwise sums run over (``numba_reduce``'s layouts).

:func:`rows_view`: the input as rows of ``n`` contiguous elements, ``rstride`` elements apart, in one flat span;
:func:`out_view`: the output as one element per row, ``ostride`` elements apart. None where the layout is another.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["out_view", "rows_view"]


def rows_view(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, int, int, int] | None:
    """``x`` reduced over ``axes`` as NumPy's reduction sees it: rows of ``n`` contiguous elements, one per
    output element, ``rstride`` elements apart (``rows`` of them): ``(flat, rows, n, rstride)`` with ``flat`` the
    1-D contiguous span holding them all, or None for any other layout (the reduced axes, size-1 axes left
    out, not the innermost ones in position and in memory; kept axes that are not one uniform stride)."""
    item = x.itemsize
    ndim = x.ndim
    if ndim and axes == tuple(range(ndim - len(axes), ndim)) and x.flags.c_contiguous:
        # the common case, the last axes of a packed array: rows of their elements one after the other
        shape = x.shape
        n = math.prod(shape[ndim - len(axes) :])
        if n:
            flat = x.reshape(-1)
            flat.flags.writeable = False  # one numba signature: as as_strided's below
            return flat, x.size // n, n, n
    dims = [(d, x.shape[d], x.strides[d]) for d in range(x.ndim) if x.shape[d] != 1]
    reduced = [t for t in dims if t[0] in axes]
    kept = [t for t in dims if t[0] not in axes]
    if not reduced or (kept and kept[-1][0] > reduced[0][0]):
        return None
    n = 1
    for _, size, stride in reversed(reduced):
        if stride != n * item:
            return None
        n *= size
    rows = 1
    rstride = n  # in elements; any value when there is one row
    if kept:
        _, size, stride = kept[-1]
        if stride % item or stride < n * item:
            return None
        rstride = stride // item
        rows = size
        for _, size, stride in reversed(kept[:-1]):
            if stride != rows * rstride * item:
                return None
            rows *= size
    span = (rows - 1) * rstride + n
    if span == x.size and x.flags.c_contiguous:
        flat = x.reshape(-1)  # the same span, ~10x cheaper than as_strided
        flat.flags.writeable = False  # one numba signature: as as_strided's below
    else:
        flat = np.lib.stride_tricks.as_strided(x, shape=(span,), strides=(item,), writeable=False)
    return flat, rows, n, rstride


def out_view(out: np.ndarray, rows: int) -> tuple[np.ndarray, int] | None:
    """``out`` (the kept axes in ``x``'s order, the reduced ones of size 1) as ``(flat, ostride)``: output ``r`` at
    ``flat[r * ostride]``; None where its elements are not one uniform positive stride apart."""
    item = out.itemsize
    if out.size == rows and out.flags.c_contiguous:
        return out.reshape(-1), 1
    dims = [(size, stride) for size, stride in zip(out.shape, out.strides, strict=True) if size != 1]
    if rows == 1:
        return np.lib.stride_tricks.as_strided(out, shape=(1,), strides=(item,)), 1
    if not dims or dims[-1][1] <= 0 or dims[-1][1] % item:
        return None
    ostride = dims[-1][1] // item
    count = dims[-1][0]
    for size, stride in reversed(dims[:-1]):
        if stride != count * ostride * item:
            return None
        count *= size
    if count != rows:
        return None
    flat = np.lib.stride_tricks.as_strided(out, shape=((rows - 1) * ostride + 1,), strides=(item,))
    return flat, ostride
