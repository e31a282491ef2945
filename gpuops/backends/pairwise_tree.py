"""NumPy's pairwise summation tree, as plain Python data: what ``numba_reduce``'s kernels run and combine.

The rule (NumPy 2.x ``@TYPE@_pairwise_sum``, numpy/_core/src/umath/loops_utils.h.src, which ``np.add.reduce``
calls once per contiguous run: over the last axis of a C-contiguous float32/float64 array, once per row, the
output first set to the identity +0.0, then ``out += pairwise_sum(row, n)``):

  pw(a, n) = n < 8:      s = -0.0; s += a[i] for i in 0..n-1
             n <= 128:   r[j] = a[j]; r[j] += a[i + j] for i = 8, 16, .. < n - n % 8 (j = 0..7);
                         s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)); s += a[i] for the last n % 8
             else:       n2 = n // 2 - (n // 2) % 8; pw(a, n2) + pw(a + n2, n - n2)
  row sum = +0.0 + pw(row, n)

:func:`plan` flattens the recursion once per row length (the leaves, runs of 64..128 elements, or fewer than 8 for
short rows, and a postfix program combining their sums). Full reductions (one contiguous run): :func:`split` cuts
the top levels of the same tree into pieces whose sums (raw: without the +0.0) :func:`combine` adds in the tree's
order, so the pieces can be summed on several threads with NumPy's bits; :func:`piece_plans` packs the pieces'
plans for ``numba_reduce.pieces_parallel``.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

__all__ = ["PW_BLOCKSIZE", "combine", "piece_plans", "plan", "split"]

PW_BLOCKSIZE = 128  # NumPy's leaf size


def _leaves(start: int, n: int, lo: list[int], ln: list[int], prog: list[int]) -> None:
    if n <= PW_BLOCKSIZE:
        prog.append(len(lo))
        lo.append(start)
        ln.append(n)
        return
    n2 = n // 2
    n2 -= n2 % 8
    _leaves(start, n2, lo, ln, prog)
    _leaves(start + n2, n - n2, lo, ln, prog)
    prog.append(-1)


@functools.lru_cache(maxsize=64)
def plan(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """NumPy's pairwise tree for a run of ``n`` elements: the leaves' offsets and lengths (left to right), the
    postfix program combining their sums (``k >= 0``: push leaf ``k``'s sum; ``-1``: pop right, pop left, push
    left + right) and the stack depth it needs."""
    lo: list[int] = []
    ln: list[int] = []
    prog: list[int] = []
    _leaves(0, n, lo, ln, prog)
    depth = top = 0
    for op in prog:
        top += 1 if op >= 0 else -1
        depth = max(depth, top)
    as64 = functools.partial(np.array, dtype=np.int64)
    return as64(lo), as64(ln), as64(prog), depth


@functools.lru_cache(maxsize=32)
def piece_plans(n: int, levels: int) -> tuple[tuple[np.ndarray, ...], int, list[int]]:
    """The pieces of :func:`split` ``(n, levels)`` with their :func:`plan` s packed for :func:`pieces_parallel`:
    ``(starts, lens, plo, pln, pprog, leaf_at, prog_at)``, the deepest stack, and the program combining the
    pieces' sums."""
    pieces, prog = split(n, levels)
    los, lns, progs, depth = [], [], [], 1
    for _, m in pieces:
        lo, ln, pp, d = plan(m)
        los.append(lo)
        lns.append(ln)
        progs.append(pp)
        depth = max(depth, d)
    as64 = functools.partial(np.array, dtype=np.int64)
    leaf_at = as64([0, *itertools.accumulate(len(x) for x in los)])
    prog_at = as64([0, *itertools.accumulate(len(x) for x in progs)])
    arrays = (
        as64([st for st, _ in pieces]),
        as64([m for _, m in pieces]),
        np.concatenate(los),
        np.concatenate(lns),
        np.concatenate(progs),
        leaf_at,
        prog_at,
    )
    return arrays, depth, prog


def split(n: int, depth: int) -> tuple[list[tuple[int, int]], list[int]]:
    """The top ``depth`` levels of NumPy's pairwise tree for ``n`` elements: its pieces ``(start, length)``, left
    to right (a piece of at most ``PW_BLOCKSIZE`` elements is not split further), and the postfix program
    combining their sums (as :func:`plan`'s). ``pw(a, n)`` is that program over ``pw(a + start, length)``."""
    pieces: list[tuple[int, int]] = []
    prog: list[int] = []

    def walk(start: int, m: int, d: int) -> None:
        if d == 0 or m <= PW_BLOCKSIZE:
            prog.append(len(pieces))
            pieces.append((start, m))
            return
        m2 = m // 2
        m2 -= m2 % 8
        walk(start, m2, d - 1)
        walk(start + m2, m - m2, d - 1)
        prog.append(-1)

    walk(0, n, depth)
    return pieces, prog


def combine(sums: np.ndarray, prog: list[int]) -> np.ndarray:
    """The program of :func:`split` over the pieces' sums (``sums``, 1-D): ``0 + pw`` as a 1-element array of their
    type, each addition one IEEE addition in that type (NumPy's ``add`` on 1-element arrays, no promotion)."""
    stack: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for op in prog:
            if op >= 0:
                stack.append(sums[op : op + 1])
            else:
                right = stack.pop()
                stack.append(np.add(stack.pop(), right))
        return np.add(np.zeros(1, sums.dtype), stack[0])
