"""The ``chunk``, ``combine`` and ``aggregate`` steps of ``gpuops.dask.reductions``' tree reductions (the table in
its docstring): functions whose partial is one array (SUM, ..., AVERAGE), LOG_SUM_EXP's pairs (m, s) and
ARGMAX / ARGMIN's pairs (value, global index), each step gpuops operators on blocks (``_block_ops``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from descriptors import (
    ArgmaxOperatorDesc,
    ArgminOperatorDesc,
    AxisDirection,
    ElementWiseAddOperatorDesc,
    ElementWiseDivideOperatorDesc,
    ElementWiseExpOperatorDesc,
    ElementWiseLogOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ElementWiseSqrtOperatorDesc,
    ElementWiseSubtractOperatorDesc,
    ReduceFunction,
)

from ._block_ops import (
    Axes,
    F,
    _binary,
    _cast,
    _clip_finite,
    _drop,
    _empty_kept,
    _is_float,
    _kept,
    _meta_like,
    _reduce_op,
    _run,
    _unary,
    _xp,
)
from .axes import _t

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
