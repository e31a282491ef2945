"""The array and kernel module a GPU backend runs on: ``cupy``, or the CUDA emulator's stand-in.

The CuPy backend (``cupy_backend``, ``cupy_fast``) never imports ``cupy`` for its arrays and kernels; it is
handed this module object (``xp``) and calls ``xp.ndarray``, ``xp.empty``, ``xp.expand_dims``,
``xp.RawKernel``, ``xp.ElementwiseKernel`` and ``xp.ReductionKernel`` on it. On ``"cupy"`` that is CuPy
on the GPU; on ``"emulator"`` it is :mod:`gpuops.emulator.runtime`, the same calls over NumPy memory with
kernels compiled by the host C++ compiler. One launch logic, two machines.
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["GPU_BACKENDS", "array_module"]

GPU_BACKENDS = ("cupy", "emulator")


def array_module(backend: str) -> ModuleType:
    """``cupy`` for ``"cupy"``, ``gpuops.emulator.runtime`` for ``"emulator"``."""
    if backend == "cupy":
        import cupy

        return cupy
    if backend == "emulator":
        from ..emulator import runtime

        return runtime
    raise ValueError(f"array_module: {backend!r} is not a GPU backend (one of {', '.join(GPU_BACKENDS)})")
