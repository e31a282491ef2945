"""The row program on CuPy (issue 33): a composite operator as one ``cupy.RawKernel`` (``codegen.row_program``).

``gpuops.row_program.plan_row_program`` decides when a composite qualifies and works out the launch (grid, the
scalar arguments, rows, columns, strides) once, when the operator is compiled; a call binds the buffers and
launches. The kernel is built with ``--fmad=false``, as the fused graph kernels whose parts it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from ..codegen.graph import FMAD_OFF
from ..codegen.row_program import BLOCK, RowProgramSpec
from ..row_program import RowProgram
from .array_module import array_module

__all__ = ["CupyRowProgramKernel", "RowProgramRun"]


class CupyRowProgramKernel:
    """The ``RawKernel`` of one row program spec."""

    def __init__(self, spec: RowProgramSpec, xp: ModuleType | None = None) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.name, self.source = spec.name, spec.source
        self.kernel = cupy.RawKernel(spec.source, spec.name, options=("--std=c++17", *FMAD_OFF))


class RowProgramRun:
    """``execute`` of a row program: the graph's inputs (in order) and output, the launch worked out once."""

    launch_path = "row program"
    kernel_count = 1

    def __init__(self, built: CupyRowProgramKernel, program: RowProgram) -> None:
        self.kernel = built.kernel
        self.source = built.source
        self.grid, self.block = (program.grid,), (BLOCK,)
        self.scalars = program.scalars
        self.sizes = program.sizes

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        self.kernel(self.grid, self.block, (*inputs, *self.scalars, outputs[0], *self.sizes))
