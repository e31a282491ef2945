"""DirectML reductions over Dask arrays as Dask tree reductions (issue 19, part 2).

``reduce(x, function, axes)`` (REDUCE's twelve functions) and ``argmax`` / ``argmin`` (DML_ARGMAX / DML_ARGMIN
with their ``AxisDirection``) over a ``dask.array.Array``, built on ``dask.array.reduction``: its ``chunk``,
``combine`` and ``aggregate`` callables (``split_every`` as Dask does) run gpuops operators on each block, on
``Device("numpy")`` for NumPy blocks and ``Device("cupy")`` for CuPy blocks. DirectML descriptors are shape-specific:
each step makes the descriptor of its block's shape and compiles it once per process (an ``lru_cache`` keyed by
backend and descriptor).

Each function is decomposed into REDUCE operators of the op table (``descriptors/ops/reduce.py``), in the types
gpuops' unchunked REDUCE accumulates in (float32 for FLOAT16/BFLOAT16, the type itself for FLOAT32/FLOAT64):

========================  ===================================  =====================  ==========================
function                  chunk                                combine                aggregate, after combine
========================  ===================================  =====================  ==========================
SUM, MULTIPLY, MAX, MIN   the function                         the function           cast to the output type
L1, SUM_SQUARE            the function                         SUM                    cast
L2                        SUM_SQUARE                           SUM                    SQRT, cast
LOG_SUM                   SUM                                  SUM                    LOG, cast
AVERAGE                   SUM (integers: in 64 bits)           SUM                    DIVIDE by n, cast
LOG_SUM_EXP               (m, s): MAX, SUM(EXP(x - c(m)))      rescaled pairs         c(M) + LOG(s), cast
ARGMAX / ARGMIN           (value, global index)                value, then index      cast the index
========================  ===================================  =====================  ==========================

Integers: SUM, MULTIPLY, L1 and SUM_SQUARE partials stay in the input type, which wraps modulo ``2**bits`` exactly as
gpuops' 64-bit accumulator reduced to the output type does (wrapping is a ring homomorphism); AVERAGE sums in INT64
(UINT64 for unsigned types), as gpuops' accumulator, and DIVIDE truncates toward zero. ``n`` of AVERAGE is the
static count of the reduced axes (Dask knows the shape). LOG_SUM_EXP's pair is the chunk's maximum ``m`` and
``s = Σ exp(x - c(m))`` with ``c`` the clip to the finite range: an all ``-inf`` chunk gives ``s = 0`` (it adds
nothing), an ``+inf`` gives ``s = inf``, so ``c(M) + log(S)`` is ``-inf``, ``+inf`` and NaN where gpuops' REDUCE is,
with no select. Pairs combine as ``M = MAX(m)``, ``S = SUM(s * exp(c(m) - c(M)))``.

ARGMAX / ARGMIN: each block gives its extreme value (REDUCE MAX / MIN) and the ARGMAX / ARGMIN of the block (gpuops,
with the direction), mapped to the index of the *whole* array, row-major over the reduced axes, from the block's
location (``map_blocks``' ``block_info``). Combining keeps, per output, the extreme value (NaN wins, as gpuops' ARGMAX:
REDUCE MAX / MIN propagate NaN) and the smallest (INCREASING) or largest (DECREASING) global index among the partials
holding it: block order is not index order when several axes are reduced, so ties compare the global indices. The
index bookkeeping (unravel, offset, ravel; the tie mask) is integer NumPy/CuPy arithmetic on the small partials.

Axes and sizes follow the core operator's rules, checked when the Dask array is made on the descriptor of the whole
array (``Device("numpy").create_operator``), so a mistake raises the core's own ``DescriptorError`` there and never on
a worker: each axis a Python or NumPy integer (not a bool, float or string; negative ones count from the end, as in
NumPy), unique, not empty; every size >= 1 (DirectML has no empty tensors, so a reduction of an empty array is refused
as the core refuses it). An empty *chunk* (chunks such as ``(2, 0, 2)``) of a non-empty array adds nothing: its
partial is an empty array that concatenates away, and an output block of size 0 comes out empty, of its own shape.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from descriptors import AxisDirection, ReduceFunction

from ._block_ops import Axes, F, _compute, _partial_type, _xp
from ._tree_steps import (
    _arg_aggregate,
    _arg_block,
    _arg_combine,
    _lse_aggregate,
    _lse_chunk,
    _lse_combine,
    _passthrough,
    _simple_aggregate,
    _simple_chunk,
    _simple_combine,
)
from .axes import _arg_whole, _reduce_whole, checked_axes

__all__ = ["argmax", "argmin", "reduce"]

# The steps of each function (the table above): ``_tree_steps``; one operator on a block: ``_block_ops``.


def _function(function: ReduceFunction | str) -> ReduceFunction:
    if isinstance(function, ReduceFunction):
        return function
    return ReduceFunction[str(function).upper()]


def _meta(x: Any, dtype: np.dtype, axes: Axes, keepdims: bool) -> Any:
    meta = getattr(x, "_meta", None)
    xp = _xp(meta) if meta is not None else np
    ndim = x.ndim if keepdims else x.ndim - len(axes)
    return xp.empty((0,) * ndim, dtype=dtype)


def reduce(
    x: Any,
    function: ReduceFunction | str,
    axes: int | Iterable[int] | None = None,
    *,
    keepdims: bool = True,
    out_dtype: Any = None,
    split_every: Any = None,
) -> Any:
    """DirectML's REDUCE of the Dask array ``x`` over ``axes`` (one axis or an iterable of unique ones, Python or
    NumPy integers, negative from the end; None: every axis) with ``function`` (a ``ReduceFunction`` or its name), as
    a Dask tree reduction. What the core's REDUCE refuses on the whole array (a bool, float or string axis, an empty
    array) raises its ``DescriptorError`` here, not on a worker. ``keepdims``: keep the reduced axes as size 1
    (DirectML's output). ``out_dtype``: the output type (default: the input's; INT64 for ARGMAX/ARGMIN).
    The result equals gpuops' unchunked REDUCE exactly for integers, MAX, MIN, ARGMAX and ARGMIN, and within the
    row's stated bound for the other float functions."""
    import dask.array as da

    f = _function(function)
    dtype = np.dtype(x.dtype)
    given = np.dtype(out_dtype) if out_dtype is not None else None
    ax = checked_axes(x, axes, "gpuops.dask.reduce", _reduce_whole(f, dtype, given))
    if f in (F.ARGMAX, F.ARGMIN):
        return _arg(x, ax, f is F.ARGMAX, AxisDirection.INCREASING, keepdims, out_dtype, split_every)
    out = given if given is not None else dtype
    meta = _meta(x, out, ax, keepdims)
    if f is F.LOG_SUM_EXP:
        return da.reduction(
            x,
            functools.partial(_lse_chunk, partial=_compute(dtype)),
            functools.partial(_lse_aggregate, out=out),
            axis=ax,
            keepdims=keepdims,
            dtype=out,
            combine=_lse_combine,
            split_every=split_every,
            concatenate=False,
            meta=meta,
            name="gpuops-reduce-log_sum_exp",
        )
    n = math.prod(int(x.shape[a]) for a in ax)
    return da.reduction(
        x,
        functools.partial(_simple_chunk, function=f, partial=_partial_type(f, dtype)),
        functools.partial(_simple_aggregate, function=f, n=n, out=out),
        axis=ax,
        keepdims=keepdims,
        dtype=out,
        combine=functools.partial(_simple_combine, function=f),
        split_every=split_every,
        meta=meta,
        name=f"gpuops-reduce-{f.name.lower()}",
    )


def _arg(
    x: Any, ax: Axes, is_max: bool, direction: AxisDirection, keepdims: bool, out_dtype: Any, split_every: Any
) -> Any:
    import dask.array as da

    out = np.dtype(out_dtype) if out_dtype is not None else np.dtype(np.int64)
    shape = tuple(int(s) for s in x.shape)
    chunks = tuple(tuple(min(n, 1) for n in c) if i in ax else c for i, c in enumerate(x.chunks))
    word = "argmax" if is_max else "argmin"
    pairs = da.map_blocks(
        _arg_block,
        x,
        ax,
        shape,
        is_max,
        direction,
        chunks=chunks,
        dtype=out,
        meta=_meta(x, out, ax, True),
        token=f"gpuops-{word}-block",
    )
    return da.reduction(
        pairs,
        _passthrough,
        functools.partial(_arg_aggregate, is_max=is_max, direction=direction, out=out),
        axis=ax,
        keepdims=keepdims,
        dtype=out,
        combine=functools.partial(_arg_combine, is_max=is_max, direction=direction),
        split_every=split_every,
        concatenate=False,
        meta=_meta(x, out, ax, keepdims),
        name=f"gpuops-{word}",
    )


def _direction(direction: AxisDirection | str | int) -> AxisDirection:
    if isinstance(direction, str):
        return AxisDirection[direction.upper()]
    return AxisDirection(direction)


def argmax(
    x: Any,
    axes: int | Iterable[int] | None = None,
    *,
    direction: AxisDirection | str | int = AxisDirection.INCREASING,
    keepdims: bool = True,
    out_dtype: Any = None,
    split_every: Any = None,
) -> Any:
    """DML_ARGMAX of the Dask array ``x`` over ``axes``: the index of the maximum, row-major over the reduced axes
    of the whole array; ties to the first (INCREASING) or last (DECREASING) index; a NaN is the maximum (the first
    or last NaN by the same rule). ``out_dtype``: INT64 by default (INT32, UINT32, UINT64 as DirectML allows)."""
    d = _direction(direction)
    given = np.dtype(out_dtype) if out_dtype is not None else None
    ax = checked_axes(x, axes, "gpuops.dask.argmax", _arg_whole(True, d, np.dtype(x.dtype), given))
    return _arg(x, ax, True, d, keepdims, out_dtype, split_every)


def argmin(
    x: Any,
    axes: int | Iterable[int] | None = None,
    *,
    direction: AxisDirection | str | int = AxisDirection.INCREASING,
    keepdims: bool = True,
    out_dtype: Any = None,
    split_every: Any = None,
) -> Any:
    """DML_ARGMIN of the Dask array ``x`` over ``axes``: as :func:`argmax` with the minimum (a NaN still wins)."""
    d = _direction(direction)
    given = np.dtype(out_dtype) if out_dtype is not None else None
    ax = checked_axes(x, axes, "gpuops.dask.argmin", _arg_whole(False, d, np.dtype(x.dtype), given))
    return _arg(x, ax, False, d, keepdims, out_dtype, split_every)
