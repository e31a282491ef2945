"""Kernel arguments as the bytes CuPy hands ``cuLaunchKernel``.

- ``ndarray``: CuPy's ``_CArray_from_ndarray`` (``cupy/_core/_carray.pyx``): the data pointer, the element
  count, then ``shape[ndim]`` and ``strides[ndim]`` in bytes, all 64-bit, exactly the layout of
  ``CArray<T, ndim, c_contiguous, use_32bit_indexing>`` in ``cupy/carray.cuh``. A ``RawKernel`` parameter
  declared as a pointer reads the first 8 bytes of it (the data pointer), as on the GPU.
- ``CIndexer<ndim>``: the element count, ``shape[ndim]``, then ``index[ndim]`` (zeros; the kernel sets it).
- scalars of ``ElementwiseKernel``/``ReductionKernel``: CuPy's own ``CScalar`` with the parameter's dtype
  applied (NumPy assignment rules: a Python int out of range raises ``OverflowError``).
- ``RawKernel`` arguments: CuPy's ``function._pointer`` rules (``cupy/cuda/function.pyx``): NumPy scalars of
  the 16 types ``?bhilqBHILQefdFD`` by their bytes, Python ``int`` as int64, ``float`` as float64,
  ``complex`` as complex128, a ``MemoryPointer`` as its address; anything else is ``TypeError``.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from .memory import MemoryPointer, ndarray

__all__ = ["carray_bytes", "cindexer_bytes", "cscalar_bytes", "raw_argument"]

_RAW_SCALAR_TYPES = frozenset(np.dtype(c).type for c in "?bhilqBHILQefdFD")


def carray_bytes(a: ndarray) -> bytes:
    """``CArray<T, ndim, ...>`` of an array: data pointer, size, shape, strides."""
    n = len(a._shape)
    return struct.pack(f"<Qq{n}q{n}q", a.data.ptr, a.size, *a._shape, *a._strides)


def cindexer_bytes(shape: Sequence[int]) -> bytes:
    """``CIndexer<ndim>`` of a shape: size, shape, index (zeros)."""
    n = len(shape)
    size = 1
    for s in shape:
        size *= s
    return struct.pack(f"<q{n}q{n}q", size, *shape, *([0] * n))


def cscalar_bytes(scalar: Any) -> bytes:
    """The value bytes of a ``cupy._core._scalar.CScalar`` (its dtype already applied)."""
    return ctypes.string_at(scalar.ptr, scalar.descr.itemsize)


def raw_argument(x: Any) -> tuple[bytes, bytes | None]:
    """``(bytes, pointer_bytes)`` of one ``RawKernel`` argument: for an ndarray the whole ``CArray`` and its
    first 8 bytes (the pointer a ``T*`` parameter reads), else the value and None."""
    if isinstance(x, ndarray):
        full = carray_bytes(x)
        return full, full[:8]
    if isinstance(x, MemoryPointer):
        return struct.pack("<Q", x.ptr), None
    if type(x) not in _RAW_SCALAR_TYPES:
        if isinstance(x, int):  # bool too: CuPy tests int first
            x = np.int64(x)
        elif isinstance(x, float):
            x = np.float64(x)
        elif isinstance(x, complex):
            x = np.complex128(x)
        else:
            raise TypeError(f"Unsupported type {type(x)}")
    return np.asarray(x).tobytes(), None
