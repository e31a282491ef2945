"""The CUDA emulator's stand-in for the ``cupy`` module: the part of CuPy gpuops' CuPy backend uses.

``gpuops.backends.array_module("emulator")`` returns this module where ``"cupy"`` gives ``cupy``, so the
backend's code runs unchanged: ``ndarray`` (with ``data.ptr``, strides, views), ``empty``,
``expand_dims``, ``asarray``/``asnumpy``, ``RawKernel``, ``ElementwiseKernel`` and ``ReductionKernel``,
every kernel compiled by the host C++ compiler (``gpuops.emulator.build``) from exactly the text CuPy
would give NVRTC, and launched with CuPy's grid over NumPy memory.

It needs CuPy installed (its headers and its Python-side kernel generators; no GPU or driver) and a C++
compiler: :func:`is_available` / :func:`unavailable_reason`.
"""

from __future__ import annotations

import functools

import numpy as np

from .array_functions import (
    array,
    ascontiguousarray,
    clip,
    concatenate,
    empty_like,
    expand_dims,
    from_numpy,
    full,
    isnan,
    may_share_memory,
    ones,
    ones_like,
    shares_memory,
    where,
    zeros,
    zeros_like,
)
from .build import CompilerUnavailable, KernelSource, compiler
from .elementwise import ElementwiseKernel
from .kernels import RawKernel, prebuild
from .memory import MemoryPointer, asarray, asnumpy, empty, ndarray
from .reduction import ReductionKernel

__all__ = [
    "ElementwiseKernel",
    "KernelSource",
    "MemoryPointer",
    "RawKernel",
    "ReductionKernel",
    "array",
    "ascontiguousarray",
    "asarray",
    "asnumpy",
    "clip",
    "concatenate",
    "empty",
    "empty_like",
    "expand_dims",
    "from_numpy",
    "full",
    "is_available",
    "isnan",
    "may_share_memory",
    "ndarray",
    "ones",
    "ones_like",
    "prebuild",
    "shares_memory",
    "unavailable_reason",
    "where",
    "zeros",
    "zeros_like",
]

__version__ = "gpuops-emulator"

# CuPy re-exports NumPy's scalar types (``cupy.float32 is numpy.float32``); so does its stand-in.
bool_, int8, int16, int32, int64 = np.bool_, np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64


@functools.cache
def unavailable_reason() -> str | None:
    """None when kernels can be compiled and run here, else why not."""
    try:
        compiler()
    except CompilerUnavailable as exc:
        return str(exc)
    try:
        import cupy._core._kernel  # noqa: F401 - CuPy's generators
        import cupy._core._reduction  # noqa: F401
        from cupy._core._scalar import CScalar  # noqa: F401

        from ..nvrtc import cupy_include_dirs

        cupy_include_dirs()
    except Exception as exc:  # ImportError, NvrtcUnavailable, a broken install
        return f"the CUDA emulator needs CuPy's kernel generators and headers ({type(exc).__name__}: {exc})"
    return None


def is_available() -> bool:
    """``cupy.is_available()``: True when a C++ compiler and CuPy's generators are usable."""
    return unavailable_reason() is None
