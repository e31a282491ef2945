"""One gpuops operator on one Dask block, for ``gpuops.dask.reductions``' tree steps: the block's backend (the
registry's, through ``_runtime``), the operator's descriptor made for the block's shape and compiled once per
process, and the types partials are kept in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from descriptors import (
    CastOperatorDesc,
    DataType,
    ElementWiseMaxOperatorDesc,
    ElementWiseMinOperatorDesc,
    OperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)
from gpuops.convenience import call

from ._runtime import array_module, backend_of, compiled
from .axes import _dt, _t

Axes = tuple[int, ...]
F = ReduceFunction


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
