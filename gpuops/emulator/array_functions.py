"""The emulator's stand-ins for CuPy's array functions: creation, views, overlap tests and the library functions the
front-ends and ``gpuops.dask`` call (``where``, ``isnan``, ``clip``, ``zeros_like``, ``concatenate``).

Computed by NumPy over the emulated device memory (``memory``), each giving a new emulator array as CuPy gives a
new device array. ``gpuops.emulator.runtime``, the emulator's ``cupy`` module, re-exports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .memory import Allocation, MemoryPointer, _operand, _wrap, asarray, empty, ndarray

__all__ = [
    "array",
    "ascontiguousarray",
    "clip",
    "concatenate",
    "empty_like",
    "expand_dims",
    "from_numpy",
    "full",
    "isnan",
    "may_share_memory",
    "ones",
    "ones_like",
    "shares_memory",
    "where",
    "zeros",
    "zeros_like",
]

# ---------------------------------------------------------------------------------------------- creation


def full(shape: Any, fill_value: Any, dtype: Any = None) -> ndarray:
    out = empty(shape, np.asarray(fill_value).dtype if dtype is None else dtype)
    out._arr.fill(fill_value)
    return out


def zeros(shape: Any, dtype: Any = float) -> ndarray:
    return full(shape, 0, dtype)


def ones(shape: Any, dtype: Any = float) -> ndarray:
    return full(shape, 1, dtype)


def from_numpy(a: np.ndarray) -> ndarray:
    """An ndarray over the memory of a C-contiguous NumPy array: no copy, writes reach ``a``."""
    if not isinstance(a, np.ndarray) or not a.flags.c_contiguous:
        raise ValueError("from_numpy: a C-contiguous numpy.ndarray is needed")
    raw = a.reshape(-1).view(np.uint8) if a.size else np.empty(0, np.uint8)
    mem = Allocation(a, raw)
    out = ndarray(a.shape, a.dtype, memptr=MemoryPointer(mem, 0), strides=a.strides if a.size else None)
    return out


def array(a: Any, dtype: Any = None, copy: bool = True) -> ndarray:
    """``cupy.array``: a copy (or ``asarray`` when ``copy=False``)."""
    if isinstance(a, ndarray) and copy:
        return a.astype(a.dtype if dtype is None else dtype, copy=True)
    return asarray(a, dtype)


def expand_dims(a: ndarray, axis: int | Sequence[int]) -> ndarray:
    """``cupy.expand_dims``: a view with size-1 axes inserted."""
    if not isinstance(a, ndarray):
        raise TypeError(f"expand_dims: expected an emulator ndarray (got {type(a).__name__})")
    return a._from_numpy_view(np.expand_dims(a._arr, axis))


def ascontiguousarray(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.ascontiguousarray``: ``a`` itself when C-contiguous (and of ``dtype``), else a C-contiguous copy."""
    if not isinstance(a, ndarray):
        raise TypeError(f"ascontiguousarray: expected an emulator ndarray (got {type(a).__name__})")
    if a.flags.c_contiguous and (dtype is None or np.dtype(dtype) == a.dtype):
        return a
    out = empty(a.shape, a.dtype if dtype is None else dtype)
    out._arr[...] = a._arr
    return out


def empty_like(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.empty_like`` (C order)."""
    return empty(a.shape, a.dtype if dtype is None else dtype)


def ones_like(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.ones_like`` (C order)."""
    return ones(a.shape, a.dtype if dtype is None else dtype)


def shares_memory(a: ndarray, b: ndarray, max_work: Any = None) -> bool:
    """``cupy.shares_memory``: whether two emulator arrays overlap (exactly, through their NumPy views)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray):
        raise TypeError("shares_memory: both arguments must be emulator ndarrays")
    return bool(np.shares_memory(a._arr, b._arr))


def may_share_memory(a: ndarray, b: ndarray, max_work: Any = None) -> bool:
    """``cupy.may_share_memory``: whether the byte ranges of two emulator arrays overlap (bounds only)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray):
        raise TypeError("may_share_memory: both arguments must be emulator ndarrays")
    return bool(np.may_share_memory(a._arr, b._arr))


# ---------------------------------------------------------------------------------------------- library
# CuPy's own library functions the front-ends call (not gpuops kernels).


def where(condition: ndarray, x: Any, y: Any) -> ndarray:
    """``cupy.where(condition, x, y)``."""
    return _wrap(np.where(_operand(condition, "where"), _operand(x, "where"), _operand(y, "where")))


def isnan(x: ndarray) -> ndarray:
    """``cupy.isnan``."""
    return _wrap(np.isnan(_operand(x, "isnan")))


def clip(a: ndarray, a_min: Any, a_max: Any) -> ndarray:
    """``cupy.clip``."""
    return _wrap(np.clip(_operand(a, "clip"), _operand(a_min, "clip"), _operand(a_max, "clip")))


def zeros_like(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.zeros_like`` (C order)."""
    return zeros(a.shape, a.dtype if dtype is None else dtype)


def concatenate(arrays: Sequence[ndarray], axis: int = 0) -> ndarray:
    """``cupy.concatenate`` (Dask's ``concatenate_lookup`` calls it to join chunks)."""
    return _wrap(np.concatenate([_operand(a, "concatenate") for a in arrays], axis=axis))
