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
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from descriptors import (
    ArgmaxOperatorDesc,
    ArgminOperatorDesc,
    AxisDirection,
    CastOperatorDesc,
    DataType,
    ElementWiseAddOperatorDesc,
    ElementWiseDivideOperatorDesc,
    ElementWiseExpOperatorDesc,
    ElementWiseLogOperatorDesc,
    ElementWiseMaxOperatorDesc,
    ElementWiseMinOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ElementWiseSqrtOperatorDesc,
    ElementWiseSubtractOperatorDesc,
    OperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)
from gpuops.convenience import call

from ._runtime import array_module, backend_of, compiled
from .axes import _arg_whole, _dt, _reduce_whole, _t, checked_axes

__all__ = ["argmax", "argmin", "reduce"]

Axes = tuple[int, ...]
F = ReduceFunction

#: (chunk function, combine function, post step) of the functions whose partial is one array.
_PLAN: dict[ReduceFunction, tuple[ReduceFunction, ReduceFunction, str | None]] = {
    F.SUM: (F.SUM, F.SUM, None),
    F.MULTIPLY: (F.MULTIPLY, F.MULTIPLY, None),
    F.MAX: (F.MAX, F.MAX, None),
    F.MIN: (F.MIN, F.MIN, None),
    F.L1: (F.L1, F.SUM, None),
    F.SUM_SQUARE: (F.SUM_SQUARE, F.SUM, None),
    F.L2: (F.SUM_SQUARE, F.SUM, "sqrt"),
    F.LOG_SUM: (F.SUM, F.SUM, "log"),
    F.AVERAGE: (F.SUM, F.SUM, "average"),
}


# ---------------------------------------------------------------------------------------------
# Running one gpuops operator on a block


def _backend_of(a: Any) -> str:
    return backend_of((a,))


def _xp(a: Any) -> Any:
    return array_module(_backend_of(a))


def _run(desc: OperatorDesc, *inputs: Any) -> Any:
    return call(compiled(_backend_of(inputs[0]), desc), inputs)


def _kept(shape: tuple[int, ...], axes: Axes) -> tuple[int, ...]:
    return tuple(1 if i in axes else int(s) for i, s in enumerate(shape))


def _empty_kept(a: Any, axes: Axes, dtype: Any) -> Any:
    """The partial or result of an empty block ``a``: size 1 on the reduced axes the block has elements along, 0 on
    those it has none along (it concatenates away), the block's sizes elsewhere; no operator runs (DirectML has no
    empty tensors)."""
    shape = tuple(min(int(s), 1) if i in axes else int(s) for i, s in enumerate(a.shape))
    return _xp(a).empty(shape, dtype=dtype)


def _cast(a: Any, dtype: Any) -> Any:
    dtype = np.dtype(dtype)
    if a.dtype == dtype:
        return a
    return _run(CastOperatorDesc(_t(a.dtype, a.shape), _t(dtype, a.shape)), a)


def _reduce_op(a: Any, function: ReduceFunction, axes: Axes) -> Any:
    out = _t(a.dtype, _kept(a.shape, axes))
    return _run(ReduceOperatorDesc(function, _t(a.dtype, a.shape), out, axes=axes), a)


def _unary(cls: Callable[..., OperatorDesc], a: Any, **fields: Any) -> Any:
    t = _t(a.dtype, a.shape)
    return _run(cls(t, t, **fields), a)


def _binary(cls: Callable[..., OperatorDesc], a: Any, b: Any) -> Any:
    shape = tuple(int(s) for s in np.broadcast_shapes(a.shape, b.shape))
    dt = _dt(a.dtype)

    def operand(x: Any) -> TensorDesc:
        return _t(x.dtype, x.shape) if tuple(x.shape) == shape else TensorDesc.broadcast(dt, x.shape, to=shape)

    def buffer(x: Any) -> Any:  # a broadcast operand is bound as its own packed buffer (1-D)
        return x if tuple(x.shape) == shape else _xp(x).ascontiguousarray(x).reshape(-1)

    return _run(cls(operand(a), operand(b), TensorDesc(dt, shape)), buffer(a), buffer(b))


def _clip_finite(a: Any) -> Any:
    """``a`` clipped to its type's finite range, NaN staying NaN: element-wise MAX and MIN with the type's ends (CLIP's
    bounds are FLOAT fields, too narrow for FLOAT64)."""
    big = np.finfo(a.dtype).max
    ends = _xp(a).full((1,) * a.ndim, big, dtype=a.dtype)
    return _binary(ElementWiseMinOperatorDesc, _binary(ElementWiseMaxOperatorDesc, a, -ends), ends)


# ---------------------------------------------------------------------------------------------
# Types


def _compute(dtype: np.dtype) -> np.dtype:
    """gpuops' compute type: float32 for FLOAT16 and BFLOAT16."""
    return np.dtype(np.float32) if _dt(dtype) in (DataType.FLOAT16, DataType.BFLOAT16) else dtype


def _is_float(dtype: np.dtype) -> bool:
    return _dt(dtype).is_float


def _partial_type(function: ReduceFunction, dtype: np.dtype) -> np.dtype:
    """The type the partials of ``function`` over ``dtype`` are kept in."""
    if _is_float(dtype):
        return dtype if function in (F.MAX, F.MIN) else _compute(dtype)
    if function is F.AVERAGE:  # the 64-bit accumulator of gpuops' AVERAGE: its sum must not wrap per block
        return np.dtype(np.int64 if dtype.kind == "i" else np.uint64)
    return dtype  # the rest wrap modulo 2**bits exactly as the output does


def _drop(a: Any, axes: Axes, keepdims: bool) -> Any:
    if keepdims:
        return a
    return a.reshape(tuple(s for i, s in enumerate(a.shape) if i not in axes))


def _meta_like(a: Any, dtype: Any, ndim: int) -> Any:
    return _xp(a).empty((0,) * ndim, dtype=dtype)


# ---------------------------------------------------------------------------------------------
# Functions whose partial is one array


def _simple_chunk(
    block: Any, axis: Axes, keepdims: bool, *, function: ReduceFunction, partial: np.dtype, computing_meta: bool = False
) -> Any:
    if computing_meta:
        return _meta_like(block, partial, block.ndim)
    if block.size == 0:
        return _empty_kept(block, axis, partial)
    first, _, _ = _PLAN[function]
    return _reduce_op(_cast(block, partial), first, axis)


def _simple_combine(
    part: Any, axis: Axes, keepdims: bool, *, function: ReduceFunction, computing_meta: bool = False
) -> Any:
    if computing_meta:
        return part
    if part.size == 0:
        return _empty_kept(part, axis, part.dtype)
    _, then, _ = _PLAN[function]
    return _reduce_op(part, then, axis)


def _simple_aggregate(
    part: Any,
    axis: Axes,
    keepdims: bool,
    *,
    function: ReduceFunction,
    n: int,
    out: np.dtype,
    computing_meta: bool = False,
) -> Any:
    if computing_meta:
        return _drop(_meta_like(part, out, part.ndim), axis, keepdims)
    if part.size == 0:  # an output block of size 0 (an empty chunk along a kept axis)
        return _drop(_empty_kept(part, axis, out), axis, keepdims)
    a = _simple_combine(part, axis, True, function=function)
    post = _PLAN[function][2]
    if post == "sqrt":
        a = _unary(ElementWiseSqrtOperatorDesc, a)
    elif post == "log":
        a = _unary(ElementWiseLogOperatorDesc, a)
    elif post == "average":
        a = _binary(ElementWiseDivideOperatorDesc, a, _xp(a).full((1,) * a.ndim, n, dtype=a.dtype))
    return _drop(_cast(a, out), axis, keepdims)


# ---------------------------------------------------------------------------------------------
# Pairs: LOG_SUM_EXP's (m, s), ARGMAX/ARGMIN's (value, index)


def _gather(parts: Any, key: str, axis: Axes) -> Any:
    """The ``key`` arrays of a (nested list of) partial dicts, concatenated along the reduced axes."""
    from dask.array.core import _concatenate2
    from dask.utils import deepmap

    if isinstance(parts, dict):
        return parts[key]
    return _concatenate2(deepmap(lambda p: p[key], parts), axes=sorted(axis))


def _lse_chunk(block: Any, axis: Axes, keepdims: bool, *, partial: np.dtype, computing_meta: bool = False) -> Any:
    if computing_meta:
        return _meta_like(block, partial, block.ndim)
    if block.size == 0:
        return {"m": _empty_kept(block, axis, partial), "s": _empty_kept(block, axis, partial)}
    v = _cast(block, partial)
    m = _reduce_op(v, F.MAX, axis)
    shifted = _binary(ElementWiseSubtractOperatorDesc, v, _clip_finite(m))
    s = _reduce_op(_unary(ElementWiseExpOperatorDesc, shifted), F.SUM, axis)
    return {"m": m, "s": s}


def _lse_combine(parts: Any, axis: Axes, keepdims: bool, computing_meta: bool = False) -> Any:
    if computing_meta:
        return parts
    m, s = _gather(parts, "m", axis), _gather(parts, "s", axis)
    if m.size == 0:
        return {"m": _empty_kept(m, axis, m.dtype), "s": _empty_kept(s, axis, s.dtype)}
    big_m = _reduce_op(m, F.MAX, axis)
    scale = _unary(
        ElementWiseExpOperatorDesc, _binary(ElementWiseSubtractOperatorDesc, _clip_finite(m), _clip_finite(big_m))
    )
    total = _reduce_op(_binary(ElementWiseMultiplyOperatorDesc, s, scale), F.SUM, axis)
    return {"m": big_m, "s": total}


def _lse_aggregate(parts: Any, axis: Axes, keepdims: bool, *, out: np.dtype, computing_meta: bool = False) -> Any:
    if computing_meta:
        return parts
    pair = _lse_combine(parts, axis, True)
    if pair["m"].size == 0:
        return _drop(_empty_kept(pair["m"], axis, out), axis, keepdims)
    a = _binary(ElementWiseAddOperatorDesc, _clip_finite(pair["m"]), _unary(ElementWiseLogOperatorDesc, pair["s"]))
    return _drop(_cast(a, out), axis, keepdims)


def _arg_block(
    block: Any, axis: Axes, shape: tuple[int, ...], is_max: bool, direction: AxisDirection, block_info: Any = None
) -> Any:
    """A block's (extreme value, index into the whole array row-major over the reduced axes)."""
    if block.size == 0:
        return {"v": _empty_kept(block, axis, block.dtype), "i": _empty_kept(block, axis, np.int64)}
    kept = _kept(block.shape, axis)
    cls = ArgmaxOperatorDesc if is_max else ArgminOperatorDesc
    desc = cls(_t(block.dtype, block.shape), _t(np.int64, kept), axes=axis, axis_direction=direction)
    local = _run(desc, block)
    value = _reduce_op(block, F.MAX if is_max else F.MIN, axis)
    location = block_info[0]["array-location"]
    index = local.astype(np.int64)
    rest = index
    coords = []
    for a in reversed(axis):  # unravel over the block's reduced sizes, last axis fastest
        coords.append(rest % block.shape[a] + location[a][0])
        rest = rest // block.shape[a]
    index = _xp(block).zeros_like(local, dtype=np.int64)
    for a, c in zip(axis, reversed(coords), strict=True):  # ravel over the whole array's reduced sizes
        index = index * shape[a] + c
    return {"v": value, "i": index}


def _passthrough(part: Any, axis: Axes, keepdims: bool, computing_meta: bool = False) -> Any:
    return part


def _arg_combine(
    parts: Any, axis: Axes, keepdims: bool, *, is_max: bool, direction: AxisDirection, computing_meta: bool = False
) -> Any:
    if computing_meta:
        return parts
    v, i = _gather(parts, "v", axis), _gather(parts, "i", axis)
    if v.size == 0:
        return {"v": _empty_kept(v, axis, v.dtype), "i": _empty_kept(i, axis, i.dtype)}
    best = _reduce_op(v, F.MAX if is_max else F.MIN, axis)
    xp = _xp(v)
    hit = v == best
    if _is_float(v.dtype):
        hit |= xp.isnan(v) & xp.isnan(best)
    last = direction is AxisDirection.DECREASING
    sentinel = -1 if last else np.iinfo(np.int64).max
    candidates = xp.where(hit, i, xp.asarray(sentinel, dtype=np.int64))
    return {"v": best, "i": _reduce_op(candidates, F.MAX if last else F.MIN, axis)}


def _arg_aggregate(
    parts: Any,
    axis: Axes,
    keepdims: bool,
    *,
    is_max: bool,
    direction: AxisDirection,
    out: np.dtype,
    computing_meta: bool = False,
) -> Any:
    if computing_meta:
        return parts
    pair = _arg_combine(parts, axis, True, is_max=is_max, direction=direction)
    if pair["i"].size == 0:
        return _drop(_empty_kept(pair["i"], axis, out), axis, keepdims)
    return _drop(_cast(pair["i"], out), axis, keepdims)


# ---------------------------------------------------------------------------------------------
# The API


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
