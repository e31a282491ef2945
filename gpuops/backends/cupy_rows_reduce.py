"""The rows reduction on CuPy (issue 33): one ``cupy.RawKernel`` per (spec, threads per row).

A one-pass reduction whose reduced elements are one contiguous span per output (``reduce_plan.plan_rows``: the
inner axes of a packed tensor, the whole of a 1-D one) runs ``codegen.reduce.ReductionSpec.rows_kernel``: a group
of threads per row reading the span coalesced, in 256-thread blocks, instead of CuPy's ``ReductionKernel``, whose
per-element index arithmetic and one 512-thread block per row held it to ~0.2 of copy bandwidth on an H200. The
launch geometry and the arguments are worked out once, when the operator is compiled.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from ..codegen.reduce import ReductionSpec
from ..layout.reduce_plan import ROWS_BLOCK, RowsPlan
from .array_module import array_module

__all__ = ["CupyRowsReduceKernel", "RowsReduceRun"]

MAX_GRID = 1 << 16  # blocks: a grid-stride loop covers more rows


class CupyRowsReduceKernel:
    """The rows kernel of one reduction spec for ``threads`` threads per row."""

    def __init__(self, spec: ReductionSpec, threads: int, xp: ModuleType | None = None) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.name, self.source = spec.rows_kernel(threads)
        self.kernel = cupy.RawKernel(self.source, self.name, options=("--std=c++17",))


class RowsReduceRun:
    """``execute`` of a rows reduction: the bound buffers, the count, the plan's sizes and strides."""

    launch_path = "rows reduction"

    def __init__(self, kernel: CupyRowsReduceKernel, position: int, count: int, plan: RowsPlan) -> None:
        self.kernel = kernel.kernel
        self.position = position
        blocks = max(1, min(MAX_GRID, -(-plan.rows // plan.rows_per_block)))
        self.grid, self.block = (blocks,), (ROWS_BLOCK,)
        self.args = (np.int64(count),)
        self.sizes = tuple(np.int64(v) for v in (plan.rows, plan.cols, plan.in_stride, plan.out_stride))

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        self.kernel(self.grid, self.block, (inputs[self.position], *self.args, outputs[0], *self.sizes))
