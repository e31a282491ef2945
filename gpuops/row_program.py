"""When a composite operator runs as one row program (issue 33), and with what: pure planning.

A composite (``descriptors.schema.CompositeRow``) is a plan of parts (``graph_plan.composite_graph``); a GPU
backend runs it in three kernels (max; sum of exp(x - max); the output), reading the input three times. Where
its reduced axes are one contiguous span per row, for the input and the output alike (``reduce_plan.plan_rows``),
and a row fits a group of threads holding at most :data:`MAX_PER_THREAD` elements each, the parts run instead
as ONE kernel (``codegen.row_program``): the input is read once and the output written once. This module decides
that (:func:`plan_row_program`) and gathers what the kernel needs; the backend's
``compile_row_program`` builds it (CuPy, the emulator) or returns None (the CPU: the parts run).

A part qualifies when it is a reduction over the composite's axes: a REDUCE (with an element-wise map, reduce
and post-map: SUM, AVERAGE, MAX, ...) or an ARGMAX/ARGMIN (its map reads ``_J``, the element's column, and its
accumulator is a value and an index); an element-wise part that reads no element index, at the input's sizes
(per element) or at the reduced sizes (once per row, reading only values of that size); or one that reads it
(HARDMAX's FILL_VALUE_SEQUENCE) at the sizes along the axes (1 elsewhere), where the element's index is its
column. The last part is per element.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from descriptors import DataType, OperatorDesc, TensorDesc
from descriptors.graph import GraphDesc
from descriptors.schema import ElementwiseRow

from . import config
from .codegen.reduce import N_PARAM
from .codegen.row_program import RowNode, RowProgramSpec, RowRead, row_program_spec
from .cost import Cost, kernel
from .graph_plan import Ref, composite_graph
from .layout.reduce_plan import RowsPlan, plan_rows
from .lowering import lower

__all__ = ["MAX_PER_THREAD", "RowProgram", "plan_row_program"]

MAX_PER_THREAD = 16  # elements a thread holds in registers: rows up to 256 x 16 = 4096 elements run as one kernel
_COUNT_ONLY = ((N_PARAM, DataType.INT64),)  # a reduction whose only scalar is its count
# The accumulators a part's reduction may have: REDUCE's in the compute type, ARGMAX/ARGMIN's (value, index) pair.
_ACCUMULATORS = {"REDUCE": ("float", "double"), "ARGMAX": ("gpuops_arg<float>", "gpuops_arg<double>")}
_ACCUMULATORS["ARGMIN"] = _ACCUMULATORS["ARGMAX"]
MAX_GRID = 1 << 16  # blocks: a grid-stride loop covers more rows


@dataclasses.dataclass(frozen=True, eq=False)
class RowProgram:
    """One composite as a row program: its parts (``nodes``), the graph-input reads, the rows plan of the input
    (``rows``: rows, columns, the input's row stride, threads per row) and the output's row stride, the elements
    per thread, each read's (size, stride) arguments, and the operator's present input tensors and output."""

    desc: OperatorDesc
    graph: GraphDesc
    nodes: tuple[RowNode, ...]
    reads: tuple[RowRead, ...]
    rows: RowsPlan
    out_stride: int
    per_thread: int
    read_args: tuple[int, ...]
    inputs: tuple[TensorDesc, ...]
    output: TensorDesc

    @functools.cached_property
    def spec(self) -> RowProgramSpec:
        types = tuple(t.data_type for t in self.inputs)
        return row_program_spec(self.nodes, self.reads, types, self.rows.threads, self.per_thread)

    @property
    def row_name(self) -> str:
        return self.desc.row.name

    @property
    def refs(self) -> tuple[tuple[Ref, ...], tuple[Ref, ...]]:
        """The buffers of the one step: every graph input, the graph output."""
        return tuple(Ref("input", g) for g in range(len(self.inputs))), (Ref("output", 0),)

    @functools.cached_property
    def scalars(self) -> tuple[Any, ...]:
        """The scalar arguments in the kernel's order: each part's (``Lowering.scalars``), typed."""
        values = {f"n{k}_{n}": v for k, node in enumerate(self.nodes) for n, v in node.lowering.scalars.items()}
        return tuple(values[n] for n, _ in self.spec.scalar_params)

    @property
    def sizes(self) -> tuple[np.int64, ...]:
        """Rows, columns, the row strides of the input and the output, then each read's (size, stride) pairs."""
        plan = self.rows
        return tuple(np.int64(v) for v in (plan.rows, plan.cols, plan.in_stride, self.out_stride, *self.read_args))

    @property
    def grid(self) -> int:
        """Blocks of the launch: enough for every row (``256 // threads`` per block), at most :data:`MAX_GRID`."""
        return max(1, min(MAX_GRID, -(-self.rows.rows // self.rows.rows_per_block)))

    def cost(self) -> Cost:
        """One kernel reading each input's distinct elements once and writing the output once."""
        return kernel(self.inputs, (self.output,))


def _dims(sizes: tuple[int, ...], strides: tuple[int, ...], dims: list[int]) -> list[tuple[int, int]]:
    """The (size, stride) pairs of ``dims`` (outermost first) merged where they form one stride run, dimensions
    of size 1 dropped, and the outer ones with stride 0 dropped (their index never moves the address)."""
    out: list[tuple[int, int]] = []
    for d in dims:
        if sizes[d] == 1:
            continue
        if out and out[-1][1] == strides[d] * sizes[d]:
            out[-1] = (out[-1][0] * sizes[d], strides[d])
        else:
            out.append((sizes[d], strides[d]))
    while out and out[0][1] == 0:
        out.pop(0)
    return out


def plan_row_program(desc: OperatorDesc) -> RowProgram | None:
    """The row program of a composite descriptor, or None when its parts, axes or layouts do not qualify (see the
    module docstring): then its plan of parts runs."""
    row = desc.row
    if not getattr(row, "is_composite", False) or not config.settings().cupy_fast:
        return None  # GPUOPS_CUPY_FAST=0: CuPy's own kernels only, so the plan of parts
    x, y = desc.input_tensors[0], desc.output_tensors[0]
    if x is None or y is None:
        return None
    axes = tuple(sorted(int(a) for a in getattr(desc, "axes", None) or (x.dimension_count - 1,)))
    sizes = x.sizes
    rows = plan_rows(sizes, x.element_strides, y.element_strides, axes)
    back = plan_rows(sizes, y.element_strides, x.element_strides, axes)  # the output's columns: unit stride too
    if rows is None or back is None:
        return None
    per_thread = 1
    while rows.threads * per_thread < rows.cols:
        per_thread *= 2
    if per_thread > MAX_PER_THREAD:
        return None  # a row longer than 256 x 16 elements: the parts run
    graph = composite_graph(desc)
    present = tuple(t for t in desc.input_tensors if t is not None)
    reduced = tuple(1 if d in axes else s for d, s in enumerate(sizes))
    along = tuple(s if d in axes else 1 for d, s in enumerate(sizes))  # an index over the axes: the column
    kept = [d for d in range(len(sizes)) if d not in axes]
    nodes: list[RowNode] = []
    reads: list[RowRead] = []
    read_of: dict[tuple[int, TensorDesc], int] = {}
    args: list[int] = []
    for i, node in enumerate(graph.nodes):
        op = getattr(node, "desc", None)
        if op is None:
            return None
        low = lower(op)
        operands: list[tuple[str, int] | None] = []
        for src, t in zip(graph.sources[i], op.input_tensors, strict=True):
            if src is None or t is None:
                operands.append(None)
            elif src.node is not None:
                operands.append(("node", src.node))
            else:
                key = (src.index, t)
                if key not in read_of:
                    main = src.index == 0 and t == x
                    rd, cd = _dims(t.sizes, t.element_strides, kept), _dims(t.sizes, t.element_strides, list(axes))
                    read_of[key] = len(reads)
                    reads.append(RowRead(src.index, t.data_type, main, 0 if main else len(rd), 0 if main else len(cd)))
                    if not main:
                        args += [v for pair in (*rd, *cd) for v in pair]
                operands.append(("read", read_of[key]))
        wide = any(s is not None and (s[0] == "read" or not nodes[s[1]].per_row) for s in operands)
        out_sizes = op.output_tensors[0].sizes
        if op.row.is_reduction:
            spec = low.reduction_spec if op.row.name in _ACCUMULATORS else None
            if spec is None or tuple(low.axes) != axes or not wide or spec.scalar_params != _COUNT_ONLY:
                return None
            if out_sizes != reduced or spec.reduce_type not in _ACCUMULATORS[op.row.name]:
                return None  # one not over the composite's axes, or an accumulator the kernel does not hold
            arg = op.row.name != "REDUCE"  # ARGMAX, ARGMIN: only their map reads the element's column
            if "_J" in f"{spec.reduce_expr} {spec.post_map_expr}" or ("_J" in spec.map_expr) != arg:
                return None
            nodes.append(RowNode(low, spec, True, tuple(operands)))
        elif isinstance(op.row, ElementwiseRow) and op.row.reads_index and len(op.output_tensors) == 1:
            if any(operands) or out_sizes != along or low.has_scale_bias or low.fused is not None:
                return None  # its index over ``along`` is the element's column; elsewhere it is not
            nodes.append(RowNode(low, None, False, tuple(operands)))
        elif isinstance(op.row, ElementwiseRow) and len(op.output_tensors) == 1:
            if out_sizes != (sizes if wide else reduced):
                return None
            nodes.append(RowNode(low, None, not wide, tuple(operands)))
        else:
            return None
    if nodes[-1].per_row or nodes[-1].reduce is not None:
        return None
    return RowProgram(desc, graph, tuple(nodes), tuple(reads), rows, back.in_stride, per_thread, tuple(args),
                      present, y)  # fmt: skip
