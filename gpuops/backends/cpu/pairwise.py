"""The pairwise numba tier of reductions: SUM, AVERAGE, L1 and SUM_SQUARE of float32/float64 summed in NumPy's
pairwise order on ``numba_reduce``'s kernels (so NumPy's bits), on this thread, numba's native threads or the
pool's (``CpuPolicy.reduce_numba_*``). ``NumpyReduceKernel.reduce`` tries it before its ufunc tier."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from . import policy as _policy
from . import threads as _threads
from .views import may_overlap

if TYPE_CHECKING:
    from .reductions import NumpyReduceKernel

__all__ = ["PAIRWISE", "pairwise_rows"]

# The map numba_reduce applies before summing, per function (AVERAGE divides the sum afterwards, as NumPy does).
PAIRWISE = {"SUM": 0, "AVERAGE": 0, "L1": 1, "SUM_SQUARE": 2}


def pairwise_rows(kernel: NumpyReduceKernel, x: np.ndarray, out: np.ndarray, axes: tuple[int, ...], n: int) -> bool:
    """The numba tier of ``kernel``: NumPy's pairwise sums of ``x``'s contiguous rows (``numba_reduce``), on this
    thread or, with 2 threads or more, on numba's threads from ``CpuPolicy.reduce_numba_native_min`` elements on
    (``reduce_numba_driver`` "numba", where the launch guard lets it) or on the pool's from
    ``reduce_numba_thread_min`` on; into ``out`` directly, or through a temporary (AVERAGE's division, another
    output type or layout). False, with nothing written, where it does not apply (see ``reduce_numba_min``)."""
    if x.dtype != kernel.compute:
        return False
    from .. import numba_loops

    if not numba_loops.available():
        return False
    from .. import numba_reduce

    p = _policy.POLICY
    view = numba_reduce.rows_view(x, axes)
    if view is None or 1 < view[1] < p.reduce_numba_rows or may_overlap(x, out):
        return False
    flat, rows, length, rstride = view
    target = numba_reduce.out_view(out, rows) if out.dtype == x.dtype and kernel.variant != "AVERAGE" else None
    temp = None
    if target is None:
        temp = np.empty(rows, x.dtype)
        target = (temp, 1)
    tflat, ostride = target
    mode = kernel.pairwise or 0
    threads = _threads._thread_count() if x.size >= min(p.reduce_numba_native_min, p.reduce_numba_thread_min) else 1
    native = (
        p.reduce_numba_driver == "numba"
        and threads > 1
        and x.size >= p.reduce_numba_native_min
        and numba_reduce.parallel_ok()
    )
    # a full reduction: the top levels of NumPy's pairwise tree split it into independent pieces, each
    # summed on its own (raw: no +0.0), then combined in the tree's order (numba_reduce.split)
    levels = max(1, (threads * p.reduce_numba_blocks - 1).bit_length())
    total = None  # a full reduction's sum from numba's threads (None: not run, or the launch guard refused)
    if native and rows == 1 and x.size >= p.reduce_numba_native_full_min:
        total = numba_reduce.sum_pieces(flat, length, mode, threads, levels, kernel)
    if total is not None:
        tflat[0] = total[0]
    elif (
        native
        and rows > 1
        and numba_reduce.sum_rows(flat, rows, length, rstride, tflat, ostride, mode, threads, guard=kernel)
    ):
        pass  # on numba's threads (False: the launch guard refused, nothing written)
    elif threads > 1 and x.size >= p.reduce_numba_thread_min and rows == 1:
        pieces, prog = numba_reduce.split(length, levels)
        sums = np.empty(len(pieces), x.dtype)

        def each(mine: Iterable[int]) -> None:
            for i in mine:
                start, m = pieces[i]
                numba_reduce.sum_rows(flat[start:], 1, m, m, sums[i:], 1, mode, 1, raw=True)

        _threads._parallel(list(range(len(pieces))), each, max(x.size, p.thread_min))
        tflat[0] = numba_reduce.combine(sums, prog)[0]
    elif threads > 1 and x.size >= p.reduce_numba_thread_min:
        count = min(rows, threads * p.reduce_numba_blocks)
        cuts = [i * rows // count for i in range(count + 1)]

        def work(mine: Iterable[tuple[int, int]]) -> None:
            for r0, r1 in mine:
                part = tflat[r0 * ostride :]
                numba_reduce.sum_rows(flat[r0 * rstride :], r1 - r0, length, rstride, part, ostride, mode, 1)

        _threads._parallel(list(itertools.pairwise(cuts)), work, max(x.size, p.thread_min))
    else:
        numba_reduce.sum_rows(flat, rows, length, rstride, tflat, ostride, mode, 1)
    if temp is not None:
        if kernel.variant == "AVERAGE":
            np.divide(temp, temp.dtype.type(n), out=temp)
        np.copyto(out, temp.reshape(out.shape), casting="unsafe")
    return True
