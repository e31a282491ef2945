"""Axes of the Dask layer's reductions, checked by the core: ``checked_axes`` builds the whole array's descriptor
(REDUCE, ARGMAX/ARGMIN, or a composite's) and lets ``create_operator`` refuse what DirectML refuses, word for word,
when the Dask array is made."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from descriptors import (
    ArgmaxOperatorDesc,
    ArgminOperatorDesc,
    AxisDirection,
    DataType,
    OperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)

from ._runtime import device

__all__ = ["checked_axes"]

Axes = tuple[int, ...]
F = ReduceFunction


def _dt(dtype: Any) -> DataType:
    return DataType.from_numpy(np.dtype(dtype))


def _t(dtype: Any, shape: tuple[int, ...]) -> TensorDesc:
    return TensorDesc(_dt(dtype), tuple(int(s) for s in shape))


_UINT32_MAX = 2**32 - 1


def _is_axis(a: object) -> bool:
    """The core's rule for one axis (``validate``'s REDUCE check, ``check_axes``): an int or a NumPy integer, not a
    bool; a float, a string or anything else is not converted."""
    return isinstance(a, int | np.integer) and not isinstance(a, bool | np.bool_)


def _listed(axes: object) -> tuple[Any, ...]:
    """``axes`` as given, one item per axis: a single value is one axis (a string too: it is not split)."""
    if isinstance(axes, np.ndarray):
        return tuple(axes.reshape(-1).tolist())
    if isinstance(axes, Iterable) and not isinstance(axes, str | bytes):
        return tuple(axes)
    return (axes,)


def checked_axes(
    x: Any, axes: object, what: str, whole: Callable[[tuple[Any, ...], tuple[int, ...]], OperatorDesc]
) -> Axes:
    """``axes`` of the Dask array ``x`` (None: every axis; one axis or an iterable of them; negative ones count from
    the end) as the sorted tuple the descriptors take, checked on the whole array's descriptor ``whole(axes,
    shape)`` by the core (``Device("numpy").create_operator``) so that a mistake raises the core's own
    ``DescriptorError``, word for word, when the Dask array is made: an axis that is not an integer (a bool, a float,
    a string), an empty or repeated list, a size 0 (no empty tensors), a data type the operator's table refuses.
    Only an integer axis outside ``[-rank, rank)`` is said here, as the core counts no negative axes. An array of
    more than 2**32-1 elements (the core's limit for one tensor, not Dask's) is checked at sizes 1."""
    rank = x.ndim
    if rank == 0:
        raise ValueError(f"{what}: takes arrays of rank >= 1 (DirectML's tensors); reshape a scalar to (1,)")
    if any(math.isnan(s) for s in x.shape):
        raise ValueError(f"{what}: the array has unknown chunk sizes; call compute_chunk_sizes() first")
    raw = tuple(range(rank)) if axes is None else _listed(axes)
    for a in raw:
        if _is_axis(a) and not -rank <= a < rank:
            raise ValueError(
                f"{what}: axis {a} is out of range: not an axis of an array of rank {rank} (axes are {-rank} to "
                f"{rank - 1}, negative ones counting from the end)"
            )
    given = tuple(int(a) % rank if _is_axis(a) else a for a in raw)
    shape = tuple(int(s) for s in x.shape)
    probe = shape if 0 in shape or math.prod(shape) <= _UINT32_MAX else (1,) * rank
    device("numpy").create_operator(whole(given, probe))  # the core's DescriptorError, raised here
    return tuple(sorted(int(a) for a in given))


def _reduce_whole(
    f: ReduceFunction, dtype: np.dtype, out: np.dtype | None
) -> Callable[[tuple[Any, ...], tuple[int, ...]], OperatorDesc]:
    """The core's REDUCE of the whole array (the output in the input's type, or ARGMAX/ARGMIN's index type)."""
    arg = f in (F.ARGMAX, F.ARGMIN)  # else ``out_dtype`` is a cast of the result: REDUCE's output is the input's type
    o = dtype if not arg else out if out is not None else np.dtype(np.int64)

    def whole(axes: tuple[Any, ...], shape: tuple[int, ...]) -> OperatorDesc:
        kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
        return ReduceOperatorDesc(f, _t(dtype, shape), _t(o, kept), axes=axes)

    return whole


def _arg_whole(
    is_max: bool, direction: AxisDirection, dtype: np.dtype, out: np.dtype | None
) -> Callable[[tuple[Any, ...], tuple[int, ...]], OperatorDesc]:
    """The core's ARGMAX / ARGMIN of the whole array."""
    cls = ArgmaxOperatorDesc if is_max else ArgminOperatorDesc
    o = out if out is not None else np.dtype(np.int64)

    def whole(axes: tuple[Any, ...], shape: tuple[int, ...]) -> OperatorDesc:
        kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
        return cls(_t(dtype, shape), _t(o, kept), axes=axes, axis_direction=direction)

    return whole
