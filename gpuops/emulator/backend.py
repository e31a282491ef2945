"""``Device("emulator")``: the CuPy backend's own code path, its kernels run by the CUDA emulator.

:class:`EmulatorBackend` is :class:`gpuops.backends.cupy_backend.CupyBackend` handed the emulator's
stand-in for the ``cupy`` module (``gpuops.emulator.runtime``), so every lowering, layout plan, generated
kernel and launch is the GPU's, and so is binding: ``array_type`` is the emulator's ``ndarray`` (a CuPy-like
array over emulated device memory), addresses come from ``data.ptr`` and overlaps from the pointers' byte ranges,
exactly as ``CupyBackend`` computes them; a host NumPy array is refused with the ``BindingError`` the CuPy backend
gives. Host memory is reached only when a kernel launches, as a device pointer is. Each kernel counts its
executions (``gpuops.emulator.launches``) so a test session can say which (operator, launch path) pairs ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..backends.cupy_backend import CupyBackend
from ..lowering import FusedLowering, Lowering
from ..row_program import RowProgram
from . import kernels as emulated_kernels
from . import launches, memory, runtime

__all__ = ["EmulatorBackend"]


class _EmulatedKernel:
    """A CuPy-path kernel, counted per execution (the bound buffers are emulator arrays, as CuPy's are)."""

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
        if not emulated_kernels.is_recording():  # a dry run's launches do nothing: not counted
            launches.record(self.operator, self.launch_path)
        self.inner(inputs, outputs, aliased)


class EmulatorBackend(CupyBackend):
    """The CuPy backend over ``gpuops.emulator.runtime``: CUDA kernels compiled by the host C++ compiler."""

    name = "emulator"

    def __init__(self) -> None:
        super().__init__(runtime)  # array_type: runtime.ndarray, the emulator's cupy.ndarray

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

    def compile_row_program(self, program: RowProgram) -> Any:
        return _EmulatedKernel(super().compile_row_program(program), program.row_name)

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
