"""The rows and columns reductions on CuPy (issue 33): one ``cupy.RawKernel`` per (spec, geometry).

A one-pass reduction whose reduced elements are one contiguous span per output (``reduce_plan.plan_rows``: the
inner axes of a packed tensor, the whole of a 1-D one) runs ``codegen.reduce_rows.rows_kernel``: a group
of threads per row reading the span coalesced, in 256-thread blocks, instead of CuPy's ``ReductionKernel``, whose
per-element index arithmetic and one 512-thread block per row held it to ~0.2 of copy bandwidth on an H200. One
over an outer or a middle axis (``reduce_plan.plan_columns``) runs ``reduce_rows.columns_kernel``: neighbouring
outputs side by side (coalesced reads along the inner axes), several lanes each down the reduced axes. The launch
geometry and the arguments are worked out once, when the operator is compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from descriptors import TensorDesc

from .. import kernels
from ..codegen import reduce_rows
from ..codegen.reduce import ReductionSpec
from ..layout.reduce_plan import ROWS_BLOCK, ColumnsPlan, RowsPlan, column_out_strides, column_strides, line_strides
from .array_module import array_module

if TYPE_CHECKING:
    from ..lowering import FusedLowering, Lowering

__all__ = [
    "OPTIONS",
    "ColumnsReduceRun",
    "CupyColumnsReduceKernel",
    "CupyRowsReduceKernel",
    "FusedColumnsReduceRun",
    "FusedRowsReduceRun",
    "RowsReduceRun",
    "SplitRowsReduceRun",
    "CupySplitRowsKernel",
    "fused_run",
]

MAX_GRID = 1 << 16  # blocks: a grid-stride loop covers more rows
# No FMA contraction: a fused prologue's multiply and the sum's add stay two roundings, as when the nodes run one by
# one (codegen.graph.FMAD_OFF), and a plain reduction gives the same bits as a fused one (and as the emulator, which
# compiles with -ffp-contract=off).
OPTIONS = ("--std=c++17", "--fmad=false")
Views = Callable[[TensorDesc, bool], Callable[[Any], Any]]


def _blocks(units: int, per_block: int) -> int:
    return max(1, min(MAX_GRID, -(-units // per_block)))


class CupyRowsReduceKernel:
    """The rows kernel of one reduction spec for ``threads`` threads per row (``strided``: which inputs are read
    through a column stride, ``reduce_rows.rows_kernel``)."""

    def __init__(
        self, spec: ReductionSpec, threads: int, xp: ModuleType | None = None, strided: tuple[bool, ...] | None = None
    ) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.name, self.source = reduce_rows.rows_kernel(spec, threads, strided=strided)
        self.kernel = cupy.RawKernel(self.source, self.name, options=OPTIONS)


class CupySplitRowsKernel:
    """The split rows kernel of one reduction spec (``reduce_rows.split_rows_kernel``; ``strided`` as there)."""

    def __init__(
        self, spec: ReductionSpec, xp: ModuleType | None = None, strided: tuple[bool, ...] | None = None
    ) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.name, self.source = reduce_rows.split_rows_kernel(spec, strided=strided)
        self.kernel = cupy.RawKernel(self.source, self.name, options=OPTIONS)


def split_workspace(xp: ModuleType, plan: RowsPlan | ColumnsPlan) -> tuple[Any, Any]:
    """A split launch's workspace, new for each call (one compiled operator may run on several threads): a 16-byte
    slot per part of each row (each column of each tile), and a ticket per row (per tile), zeroed."""
    if isinstance(plan, RowsPlan):
        return xp.empty(plan.rows * plan.parts * 16, dtype=np.uint8), xp.zeros(plan.rows, dtype=np.uint32)
    slots = plan.tiles * plan.columns * plan.parts
    return xp.empty(slots * 16, dtype=np.uint8), xp.zeros(plan.tiles, dtype=np.uint32)


class CupyColumnsReduceKernel:
    """The columns kernel of one reduction spec for ``columns`` outputs per block (``reduce_rows.columns_kernel``;
    ``split``: its extent in parts)."""

    def __init__(self, spec: ReductionSpec, columns: int, xp: ModuleType | None = None, split: bool = False) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.name, self.source = reduce_rows.columns_kernel(spec, columns, split=split)
        self.kernel = cupy.RawKernel(self.source, self.name, options=OPTIONS)


class RowsReduceRun:
    """``execute`` of a rows reduction: the bound buffers, the count, the plan's sizes and strides."""

    launch_path = "rows reduction"

    def __init__(self, kernel: CupyRowsReduceKernel, position: int, count: int, plan: RowsPlan) -> None:
        self.kernel = kernel.kernel
        self.position = position
        self.grid, self.block = (_blocks(plan.rows, plan.rows_per_block),), (ROWS_BLOCK,)
        self.args = (np.int64(count),)
        self.sizes = tuple(np.int64(v) for v in (plan.rows, plan.cols, plan.in_stride, plan.out_stride))

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        self.kernel(self.grid, self.block, (inputs[self.position], *self.args, outputs[0], *self.sizes))


class SplitRowsReduceRun:
    """``execute`` of a split rows reduction (``reduce_plan.split_rows``): one launch, its workspace per call."""

    launch_path = "split rows reduction"

    def __init__(self, kernel: CupySplitRowsKernel, position: int, count: int, plan: RowsPlan, xp: ModuleType) -> None:
        self.kernel, self.xp, self.plan = kernel.kernel, xp, plan
        self.position = position
        self.grid, self.block = (_blocks(plan.rows * plan.parts, 1),), (ROWS_BLOCK,)
        self.args = (np.int64(count),)
        values = (plan.rows, plan.cols, plan.in_stride, plan.out_stride, plan.parts, plan.span)
        self.sizes = tuple(np.int64(v) for v in values)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ws, tickets = split_workspace(self.xp, self.plan)
        args = (inputs[self.position], *self.args, outputs[0], *self.sizes, ws, tickets)
        self.kernel(self.grid, self.block, args)


class ColumnsReduceRun:
    """``execute`` of a columns reduction: the bound buffers, the count, the plan's sizes and strides (split: its
    parts and span, and a workspace per call)."""

    def __init__(
        self, kernel: CupyColumnsReduceKernel, position: int, count: int, plan: ColumnsPlan, xp: ModuleType
    ) -> None:
        self.kernel, self.xp, self.plan = kernel.kernel, xp, plan
        self.position = position
        self.launch_path = "split columns reduction" if plan.parts > 1 else "columns reduction"
        self.grid, self.block = (_blocks(plan.tiles * plan.parts, 1),), (ROWS_BLOCK,)
        self.args = (np.int64(count),)
        values: tuple[int, ...] = (plan.outer, plan.reduced, plan.inner, *plan.in_strides, *plan.out_strides)
        values += (plan.parts, plan.span) if plan.parts > 1 else ()
        self.sizes = tuple(np.int64(v) for v in values)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        more = split_workspace(self.xp, self.plan) if self.plan.parts > 1 else ()
        self.kernel(self.grid, self.block, (inputs[self.position], *self.args, outputs[0], *self.sizes, *more))


class _FusedRun:
    """``execute`` of a graph's reduction with a fused prologue and/or epilogue on the rows or columns kernel: the
    same plan (hence the same summation order, and bits) as the reduction run alone on its materialized input.

    Each input is read through its own strides (:meth:`strides`); one whose axes form no stride run in a group is
    first copied into a packed array (one more copy, the same values). The output is written through its strides,
    or into a packed array copied into the output's layout when its kept axes form no run. ``sizes``: the
    reduction input's (the inputs' own)."""

    kernel_count = 1
    grid: tuple[int]
    block: tuple[int]
    sizes: tuple[np.int64, ...]

    def __init__(
        self,
        kernel: Any,
        inputs: Sequence[TensorDesc],
        output: TensorDesc,
        axes: tuple[int, ...],
        prepared: tuple[Any, ...],
        count: int,
        plan: RowsPlan | ColumnsPlan,
        views: Views,
        xp: ModuleType,
        sizes: tuple[int, ...],
    ) -> None:
        self.plan = plan
        self.kernel, self.xp, self.source = kernel.kernel, xp, kernel.source
        self.repack: list[Callable[[Any], Any] | None] = []
        self.steps: list[np.int64] = []
        for t in inputs:
            found = self.strides(t, axes)
            self.repack.append(None if found is not None else views(t, False))
            self.steps += [np.int64(v) for v in (found if found is not None else self.packed())]
        out = self.output_strides(sizes, output, axes)
        self.out_view = views(output, False) if out is None else None
        self.out_steps = tuple(np.int64(v) for v in (out if out is not None else self.packed_output()))
        self.out_shape, self.out_dtype = output.sizes, output.data_type.numpy_dtype
        self.args = (*prepared, np.int64(count))
        self._launch_shape()

    def _launch_shape(self) -> None:
        """Set ``sizes``, ``grid`` and ``block`` (and ``launch_path`` for a split plan) from ``plan``."""
        raise NotImplementedError

    def strides(self, t: TensorDesc, axes: tuple[int, ...]) -> tuple[int, ...] | None:
        raise NotImplementedError

    def workspace(self) -> tuple[Any, ...]:
        """Arguments a launch needs new each call (a split plan's partials and tickets), after the sizes."""
        return split_workspace(self.xp, self.plan) if self.plan.parts > 1 else ()

    def packed(self) -> tuple[int, ...]:
        raise NotImplementedError

    def output_strides(
        self, sizes: tuple[int, ...], output: TensorDesc, axes: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        """The output's strides as the kernel takes them (``sizes``: the reduction input's), or None."""
        raise NotImplementedError

    def packed_output(self) -> tuple[int, ...]:
        """The strides of a packed array of the output's sizes."""
        raise NotImplementedError

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        xp = self.xp
        pairs = zip(self.repack, inputs, strict=True)
        ins = [b if make is None else xp.ascontiguousarray(make(b)) for make, b in pairs]
        out = outputs[0] if self.out_view is None else xp.empty(self.out_shape, self.out_dtype)
        self.kernel(self.grid, self.block, (*ins, *self.args, out, *self.sizes, *self.workspace()))
        if self.out_view is not None:
            self.out_view(outputs[0])[...] = out


class FusedRowsReduceRun(_FusedRun):
    """A fused reduction on the rows kernel: inputs through (row, column) strides (``reduce_plan.line_strides``;
    the kernel takes a column stride only for inputs whose columns are not consecutive, :meth:`strided`)."""

    launch_path = "rows reduction"
    plan: RowsPlan

    def _launch_shape(self) -> None:
        plan = self.plan
        self.sizes = (np.int64(plan.rows), np.int64(plan.cols), *self.steps, *self.out_steps)
        if plan.parts > 1:  # the split rows kernel (reduce_plan.split_rows)
            self.launch_path = "split rows reduction"
            self.grid, self.block = (_blocks(plan.rows * plan.parts, 1),), (ROWS_BLOCK,)
            self.sizes += (np.int64(plan.parts), np.int64(plan.span))
        else:
            self.grid, self.block = (_blocks(plan.rows, plan.rows_per_block),), (ROWS_BLOCK,)

    @staticmethod
    def strided(inputs: Sequence[TensorDesc], axes: tuple[int, ...]) -> tuple[bool, ...]:
        """Which inputs the kernel reads through a column stride (their reduced axes are a run of stride != 1)."""
        found = [line_strides(t.sizes, t.element_strides, axes) for t in inputs]
        return tuple(f is not None and f[1] != 1 for f in found)

    def strides(self, t: TensorDesc, axes: tuple[int, ...]) -> tuple[int, ...] | None:
        found = line_strides(t.sizes, t.element_strides, axes)
        return None if found is None else found if found[1] != 1 else found[:1]

    def packed(self) -> tuple[int, ...]:
        return (self.plan.cols,)

    def output_strides(
        self, sizes: tuple[int, ...], output: TensorDesc, axes: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        found = line_strides(output.sizes, output.element_strides, axes)
        return None if found is None else found[:1]

    def packed_output(self) -> tuple[int, ...]:
        return (1,)


class FusedColumnsReduceRun(_FusedRun):
    """A fused reduction on the columns kernel: inputs through (outer, reduced, inner) strides
    (``reduce_plan.column_strides``)."""

    launch_path = "columns reduction"
    plan: ColumnsPlan

    def _launch_shape(self) -> None:
        plan = self.plan
        self.grid, self.block = (_blocks(plan.tiles * plan.parts, 1),), (ROWS_BLOCK,)
        self.sizes = (np.int64(plan.outer), np.int64(plan.reduced), np.int64(plan.inner), *self.steps, *self.out_steps)
        if plan.parts > 1:  # the split columns kernel (reduce_plan.split_columns)
            self.launch_path = "split columns reduction"
            self.sizes += (np.int64(plan.parts), np.int64(plan.span))

    def strides(self, t: TensorDesc, axes: tuple[int, ...]) -> tuple[int, ...] | None:
        return column_strides(t.sizes, t.element_strides, axes)

    def packed(self) -> tuple[int, ...]:
        plan = self.plan
        return (plan.reduced * plan.inner, plan.inner, 1)

    def output_strides(
        self, sizes: tuple[int, ...], output: TensorDesc, axes: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        return column_out_strides(sizes, output.element_strides, axes)

    def packed_output(self) -> tuple[int, ...]:
        return (self.plan.inner, 1)


def fused_run(
    spec: ReductionSpec,
    prologue: FusedLowering | None,
    reduce: Lowering,
    epilogue: FusedLowering | None,
    backend: tuple[str, Views, ModuleType],
) -> _FusedRun:
    """A fused reduction (``spec``: ``codegen.graph.fused_reduction_spec``) on the rows or the columns kernel, as
    ``reduce`` run alone takes (``Lowering.rows``, ``Lowering.columns``); ``backend``: its name, view maker and
    array module."""
    from ..codegen.graph import fused_scalars

    name, views, xp = backend
    rows, columns = reduce.rows, reduce.columns
    ins = [tensor for _, tensor in (prologue.inputs if prologue is not None else reduce.inputs)]
    texts = (spec.name, spec.map_expr, spec.post_map_expr, spec.preamble, spec.in_params, spec.out_params)
    values = {**(prologue.scalars if prologue is not None else {})}
    values |= fused_scalars(epilogue.nodes, "e") if epilogue is not None else {}
    prepared = tuple(values[n] for n, _ in spec.scalar_params[:-1])  # the count comes last
    output = epilogue.output if epilogue is not None else reduce.output
    (_, inp), *_ = reduce.inputs
    if rows is not None:
        t, strided = rows.threads, FusedRowsReduceRun.strided(ins, reduce.axes)
        key = (name, "fused-reduce-rows", t, rows.parts > 1, strided, *texts)
        if rows.parts > 1:
            built: Any = kernels.get_or_build(key, lambda: CupySplitRowsKernel(spec, xp, strided))
        else:
            built = kernels.get_or_build(key, lambda: CupyRowsReduceKernel(spec, t, xp, strided))
        return FusedRowsReduceRun(built, ins, output, reduce.axes, prepared, reduce.count, rows, views, xp, inp.sizes)
    if columns is None:
        raise TypeError(f"{reduce.row.name}: a fused reduction on gpuops' kernels without a rows or columns plan")
    c, split = columns.columns, columns.parts > 1
    built_c = kernels.get_or_build(
        (name, "fused-reduce-columns", c, split, *texts), lambda: CupyColumnsReduceKernel(spec, c, xp, split)
    )
    return FusedColumnsReduceRun(
        built_c, ins, output, reduce.axes, prepared, reduce.count, columns, views, xp, inp.sizes
    )
