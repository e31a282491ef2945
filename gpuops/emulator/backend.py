"""``Device("emulator")``: the CuPy backend's own code path, its kernels run by the CUDA emulator.

:class:`EmulatorBackend` is :class:`gpuops.backends.cupy_backend.CupyBackend` handed the emulator's
stand-in for the ``cupy`` module (``gpuops.emulator.runtime``), so every lowering, layout plan, generated
kernel and launch is the GPU's. What differs is memory: it binds NumPy arrays (host memory is what the
emulated kernels read) and its own arrays, through the NumPy views of their memory; each kernel wraps the
bound buffers as emulator arrays over the same memory, and counts the execution
(``gpuops.emulator.launches``) so a test session can say which (operator, launch path) pairs really ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..backends import numpy_backend
from ..backends.cupy_backend import CupyBackend
from ..lowering import FusedLowering, Lowering
from . import kernels as emulated_kernels
from . import launches, memory, runtime

__all__ = ["EmulatorBackend"]


class _EmulatedKernel:
    """A CuPy-path kernel run on emulator arrays over the bound NumPy buffers."""

    def __init__(self, inner: Any, operator: str) -> None:
        self.inner = inner
        self.launch_path: str = inner.launch_path
        self.operator = operator

    @property
    def kernel_count(self) -> int:
        return int(getattr(self.inner, "kernel_count", 1))

    @property
    def source(self) -> str:
        return str(getattr(self.inner, "source", ""))

    @property
    def kernel(self) -> Any:
        """The backend's kernel object (``CupyFastKernel``, ``CupyKernel`` or ``CupyReduceKernel``)."""
        return self.inner.kernel

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [None if b is None else memory.from_numpy(b) for b in inputs]
        outs = [memory.from_numpy(b) for b in outputs]
        if not emulated_kernels.is_recording():  # a dry run's launches do nothing: not counted
            launches.record(self.operator, self.launch_path)
        self.inner(ins, outs, aliased)


class EmulatorBackend(CupyBackend):
    """The CuPy backend over ``gpuops.emulator.runtime``: CUDA kernels compiled by the host C++ compiler."""

    name = "emulator"
    binds_host_memory = True

    def __init__(self) -> None:
        super().__init__(runtime)
        self.array_type = np.ndarray  # what execute binds: host memory (emulator arrays are unwrapped first)

    @staticmethod
    def unavailable_reason() -> str | None:
        return runtime.unavailable_reason()

    def compile(self, lowering: Lowering) -> Any:
        row = lowering.row
        # REDUCE counts per function: each is a kernel of its own ("REDUCE SUM").
        operator = f"{row.name} {lowering.variant}" if row.name == "REDUCE" else row.name
        return _EmulatedKernel(super().compile(lowering), operator)

    def compile_fused(self, fused: FusedLowering) -> Any:
        return _EmulatedKernel(super().compile_fused(fused), "GRAPH (fused)")

    def compile_fused_reduce(
        self, prologue: FusedLowering | None, reduce: Lowering, epilogue: FusedLowering | None = None
    ) -> Any:
        return _EmulatedKernel(super().compile_fused_reduce(prologue, reduce, epilogue), "GRAPH (fused reduction)")

    pointer = staticmethod(numpy_backend.pointer)

    @staticmethod
    def may_overlap(a: Any, b: Any) -> bool:
        return bool(numpy_backend.may_overlap(a, b))

    @staticmethod
    def unwrap(buffers: Sequence[Any]) -> Sequence[Any]:
        """Emulator arrays as the NumPy views of their memory (lists stay lists, other objects pass)."""
        if isinstance(buffers, (list, tuple)) and any(type(b) is memory.ndarray for b in buffers):
            return type(buffers)(b._arr if type(b) is memory.ndarray else b for b in buffers)
        return buffers

    def adopt(self, x: object, what: str) -> Any:
        """``x`` as an emulator array. Host arrays are refused, as CuPy refuses them, so that code passing
        NumPy arrays to a GPU device fails in CI too."""
        if isinstance(x, memory.ndarray):
            return x
        raise TypeError(
            f"{what} is a host array ({type(x).__module__}.{type(x).__name__}) but the device is on the emulator "
            "backend: pass an emulator array (gpuops.emulator.runtime.asarray(x)), as CuPy would need "
            "cupy.asarray(x)"
        )

    def to_device(self, x: Any) -> Any:
        return runtime.asarray(x)

    def to_host(self, x: Any) -> Any:
        return runtime.asnumpy(x)

    def describe(self) -> str:
        return "CUDA emulator (the CuPy backend's kernels compiled by the host C++ compiler)"
