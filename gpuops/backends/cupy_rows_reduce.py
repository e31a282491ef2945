"""The rows reduction on CuPy (issue 33): one ``cupy.RawKernel`` per (spec, threads per row).

A one-pass reduction whose reduced elements are one contiguous span per output (``reduce_plan.plan_rows``: the
inner axes of a packed tensor, the whole of a 1-D one) runs ``codegen.reduce.ReductionSpec.rows_kernel``: a group
of threads per row reading the span coalesced, in 256-thread blocks, instead of CuPy's ``ReductionKernel``, whose
per-element index arithmetic and one 512-thread block per row held it to ~0.2 of copy bandwidth on an H200. The
launch geometry and the arguments are worked out once, when the operator is compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from descriptors import TensorDesc

from ..codegen.reduce import ReductionSpec
from ..layout.reduce_plan import ROWS_BLOCK, RowsPlan, line_strides
from .array_module import array_module

__all__ = ["OPTIONS", "CupyRowsReduceKernel", "FusedRowsReduceRun", "RowsReduceRun"]

MAX_GRID = 1 << 16  # blocks: a grid-stride loop covers more rows
# No FMA contraction: a fused prologue's multiply and the sum's add stay two roundings, as when the nodes run one by
# one (codegen.graph.FMAD_OFF), and a plain reduction gives the same bits as a fused one (and as the emulator, which
# compiles with -ffp-contract=off).
OPTIONS = ("--std=c++17", "--fmad=false")


class CupyRowsReduceKernel:
    """The rows kernel of one reduction spec for ``threads`` threads per row (``strided``: which inputs are read
    through a column stride, ``ReductionSpec.rows_kernel``)."""

    def __init__(
        self, spec: ReductionSpec, threads: int, xp: ModuleType | None = None, strided: tuple[bool, ...] | None = None
    ) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.name, self.source = spec.rows_kernel(threads, strided=strided)
        self.kernel = cupy.RawKernel(self.source, self.name, options=OPTIONS)


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


class FusedRowsReduceRun:
    """``execute`` of a graph's reduction with a fused prologue and/or epilogue on the rows kernel: the same rows
    plan (hence the same summation order, and bits) as the reduction run alone on its materialized input.

    Each input is read through its row and column strides (``reduce_plan.line_strides``); one whose kept or reduced
    axes form no stride run is first copied into a packed array (one more copy, the same values). The output is
    written through its row stride, or into a packed array copied into the output's layout when its kept axes form
    no run."""

    launch_path = "rows reduction"
    kernel_count = 1

    def __init__(
        self,
        kernel: CupyRowsReduceKernel,
        inputs: Sequence[TensorDesc],
        output: TensorDesc,
        axes: tuple[int, ...],
        prepared: tuple[Any, ...],
        count: int,
        plan: RowsPlan,
        views: Callable[[TensorDesc, bool], Callable[[Any], Any]],
        xp: ModuleType,
    ) -> None:
        self.kernel, self.xp = kernel.kernel, xp
        self.source = kernel.source
        blocks = max(1, min(MAX_GRID, -(-plan.rows // plan.rows_per_block)))
        self.grid, self.block = (blocks,), (ROWS_BLOCK,)
        self.repack: list[Callable[[Any], Any] | None] = []
        steps: list[np.int64] = []
        for t in inputs:
            found = line_strides(t.sizes, t.element_strides, axes)
            self.repack.append(None if found is not None else views(t, False))
            rs, cs = found if found is not None else (plan.cols, 1)
            steps += [np.int64(rs)] + ([np.int64(cs)] if cs != 1 else [])
        out = line_strides(output.sizes, output.element_strides, axes)
        self.out_view = views(output, False) if out is None else None
        self.out_shape = output.sizes
        self.args = (*prepared, np.int64(count))
        out_stride = np.int64(out[0] if out is not None else 1)
        self.sizes = (np.int64(plan.rows), np.int64(plan.cols), *steps, out_stride)
        self.out_dtype = output.data_type.numpy_dtype

    @staticmethod
    def strided(inputs: Sequence[TensorDesc], axes: tuple[int, ...]) -> tuple[bool, ...]:
        """Which inputs the kernel reads through a column stride (their reduced axes are a run of stride != 1)."""
        found = [line_strides(t.sizes, t.element_strides, axes) for t in inputs]
        return tuple(f is not None and f[1] != 1 for f in found)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        xp = self.xp
        pairs = zip(self.repack, inputs, strict=True)
        ins = [b if make is None else xp.ascontiguousarray(make(b)) for make, b in pairs]
        out = outputs[0] if self.out_view is None else xp.empty(self.out_shape, self.out_dtype)
        self.kernel(self.grid, self.block, (*ins, *self.args, out, *self.sizes))
        if self.out_view is not None:
            self.out_view(outputs[0])[...] = out
