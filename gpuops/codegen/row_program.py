"""The row program (issue 33): a composite operator's parts as ONE kernel over rows (pure strings).

A composite (``descriptors.ops.composite``: softmax, log-softmax, mean-variance normalization) whose reduced
axes are one contiguous span per row is computed by a group of ``threads`` threads per row (``256 // threads``
rows per 256-thread block, a grid-stride loop over rows), each thread holding up to ``per_thread`` elements of
its row in registers: element ``e`` of lane ``t`` is column ``t + e * threads``. The kernel is generated from
the composite's own parts (``graph_plan.composite_graph``), in their order:

- a graph input read per element (:class:`RowRead`): loaded once, into registers;
- an element-wise part at full size: computed per element with the statements its single-operator kernel and
  the fused graph kernels use (``codegen.node_body``), its value rounded to the part's output type (``v<k>[e]``);
- an element-wise part reading the element's index (FILL_VALUE_SEQUENCE over the row's axes): ``gpuops_index``
  is the element's column, its row-major index over the axes;
- a reduction over the row's axes (a REDUCE, or ARGMAX/ARGMIN whose map reads ``_J``, the column, and whose
  accumulator is a struct): each thread reduces its elements in column order, then the group combines its
  accumulators in a shared-memory tree (pairs ``(t, t + threads / 2)``, then half as many, ...): the order of
  ``reduce_rows.rows_kernel``, with the reduction's own map, reduce, identity and post-map expressions. Every
  thread of the group then reads the result (``v<k>``, rounded to the part's output type);
- an element-wise part at the reduced size (a reduction's result, the epsilon constant): computed once per row,
  by each thread of the group (the same bits in each);

and the last part's value is stored. Scalars are kernel arguments (``n<k>_<name>``), never source text; the
kernel is built with ``--fmad=false`` as the fused kernels are. No warp shuffles (the CUDA emulator has none).
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Sequence

from descriptors import DataType
from descriptors.optable import HELPERS

from ..layout.reduce_plan import ROWS_BLOCK
from . import _HEADERS, C_TYPES, INDEX, node_body
from .graph import NodeLowering
from .reduce import N_PARAM, ReductionSpec

__all__ = ["BLOCK", "RowNode", "RowProgramSpec", "RowRead", "row_program_spec"]

BLOCK = ROWS_BLOCK  # threads per block, as the rows reduction kernel's


@dataclasses.dataclass(frozen=True, slots=True)
class RowRead:
    """A graph input read per element. ``main``: the composite's input, its row at ``row * in_stride`` with
    unit-stride columns (``reduce_plan.plan_rows``); otherwise (a ScaleTensor, a BiasTensor) its element of
    (row, column) is at the sum of (index along each of ``row_dims`` dimensions of the row index) x (stride) plus
    the same over ``col_dims`` dimensions of the column index, sizes and strides passed as kernel arguments."""

    input: int
    data_type: DataType
    main: bool
    row_dims: int = 0
    col_dims: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class RowNode:
    """One part: its lowering (an element-wise row's, or the reduction's), ``reduce`` the REDUCE's spec (None for
    an element-wise part), ``per_row`` whether it is computed once per row (the reduced size) or per element, and
    where each input comes from: ``("read", r)`` (``reads[r]``), ``("node", m)`` (part ``m``'s value) or None."""

    lowering: NodeLowering
    reduce: ReductionSpec | None
    per_row: bool
    operands: tuple[tuple[str, int] | None, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class RowProgramSpec:
    """The translation unit of one row program and its argument order: ``inputs`` (each graph input's data
    type, in graph order), the scalars ``scalar_params``, the output, then rows, columns, the input's and the
    output's row strides (64-bit), then each non-main read's row and column (size, stride) pairs."""

    name: str
    kernel: str  # the kernel and its device functions: no headers, no helpers (a batch puts those first, once)
    inputs: tuple[DataType, ...]
    scalar_params: tuple[tuple[str, DataType], ...]
    output: DataType
    threads: int
    per_thread: int
    helpers: tuple[str, ...]

    @property
    def source(self) -> str:
        """The translation unit: CuPy's headers, the helpers the parts call, the kernel."""
        headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
        return f"{headers}{HELPERS.source(self.helpers)}\n{self.kernel}"


def _operand(src: tuple[str, int], nodes: Sequence[RowNode]) -> str:
    kind, k = src
    if kind == "read":
        return f"_r{k}[_e]"
    return f"v{k}" if nodes[k].per_row else f"v{k}[_e]"


def _offset(var: str, index: str, dims: int, prefix: str) -> list[str]:
    """``var`` = the offset of ``index`` split over ``dims`` dimensions (innermost last; sizes ``<prefix>s<d>``,
    strides ``<prefix>t<d>``): each dimension's index times its stride (the outermost one too takes its modulus:
    outer dimensions of stride 0 are not passed)."""
    lines = [f"long long {var} = 0;", "{", f"  long long _q = {index};"]
    for d in reversed(range(dims)):
        lines.append(f"  {var} += (_q % {prefix}s{d}) * {prefix}t{d}; _q /= {prefix}s{d};")
    return [*lines, "}"]


def _reads_column(spec: ReductionSpec) -> bool:
    """Whether the reduction's map reads ``_J`` (the element's index over the reduced axes: ARGMAX, ARGMIN)."""
    return "_J" in spec.map_expr


def _reduction_functions(fname: str, k: int, spec: ReductionSpec) -> str:
    """Device functions of part ``k``'s reduction: map (its input value to an accumulator), reduce, post-map
    (the accumulator to the part's output value), each the spec's own expression."""
    ((x, in_dt),), ((y, out_dt),) = spec.inputs, spec.outputs
    acc, cin, cout = spec.reduce_type, C_TYPES[in_dt], C_TYPES[out_dt]
    n = f"const long long {N_PARAM}"
    index = ", const long long _J" if _reads_column(spec) else ""  # ARGMAX's map: the element's column
    return (
        f"__device__ __forceinline__ {acc} {fname}_map{k}(const {cin} {x}, {n}{index}) "
        f"{{ return static_cast<{acc}>({spec.map_expr}); }}\n"
        f"__device__ __forceinline__ {acc} {fname}_reduce{k}(const {acc} a, const {acc} b) "
        f"{{ return ({spec.reduce_expr}); }}\n"
        f"__device__ __forceinline__ {acc} {fname}_identity{k}() {{ return {acc}({spec.identity}); }}\n"
        f"__device__ __forceinline__ void {fname}_post{k}(const {acc} a, {cout}& {y}, {n}) "
        f"{{ {spec.post_map_expr}; }}\n"
    )


def row_program_spec(
    nodes: Sequence[RowNode], reads: Sequence[RowRead], inputs: Sequence[DataType], threads: int, per_thread: int
) -> RowProgramSpec:
    """The row program of ``nodes`` (the composite's parts in order; the last one's value is the output) reading
    ``reads``, for ``threads`` threads per row (a power of two, 32 to 256) holding ``per_thread`` elements each."""
    if threads & (threads - 1) or not 32 <= threads <= BLOCK or per_thread < 1:
        raise ValueError(f"row program: {threads} threads per row, {per_thread} elements per thread")
    last = nodes[-1]
    if last.per_row or last.reduce is not None:
        raise ValueError("row program: the last part must be an element-wise part at the input's size")
    body: list[str] = []
    helpers: list[str] = []
    scalars: list[tuple[str, DataType]] = []
    functions: list[str] = []
    shared: list[str] = []
    loop = f"#pragma unroll\n    for (int _e = 0; _e < {per_thread}; ++_e) if (_live && _lane + _e * {threads} < _cols)"
    for r, read in enumerate(reads):
        ct = C_TYPES[read.data_type]
        body.append(f"{ct} _r{r}[{per_thread}];")
        if read.main:
            at = f"_g{read.input}[_row * _in_stride + _lane + _e * {threads}]"
        else:
            body += _offset(f"_ro{r}", "_row", read.row_dims, f"_a{r}r")
            body.append(f"{loop} {{")
            body += _offset(f"_co{r}", f"(_lane + _e * {threads})", read.col_dims, f"_a{r}c")
            body.append(f"  _r{r}[_e] = _g{read.input}[_ro{r} + _co{r}];")
            body.append("}")
            continue
        body.append(f"{loop} _r{r}[_e] = {at};")
    for k, node in enumerate(nodes):
        low = node.lowering
        if node.reduce is not None:
            spec = node.reduce
            ((_, out_dt),) = spec.outputs
            (src,) = (s for s in node.operands if s is not None)
            functions.append(_reduction_functions("@F@", k, spec))
            helpers += spec.helpers
            acc = spec.reduce_type
            if acc in ("float", "double"):
                shared.append(f"__shared__ {acc} _s{k}[{BLOCK}];")
            else:  # a struct (ARGMAX's value and index) has a constructor: raw memory, 8-byte aligned
                shared.append(f"__shared__ long long _s{k}_raw[({BLOCK} * sizeof({acc}) + 7) / 8];")
                shared.append(f"{acc}* _s{k} = reinterpret_cast<{acc}*>(_s{k}_raw);")
            column = f", static_cast<long long>(_lane + _e * {threads})" if _reads_column(spec) else ""
            body += [
                f"{C_TYPES[out_dt]} v{k};  // {low.row.name} {low.variant}",
                "{",
                f"  {acc} _acc = @F@_identity{k}();",
                f"  {loop} _acc = @F@_reduce{k}(_acc, @F@_map{k}({_operand(src, nodes)}, {N_PARAM}{column}));",
                f"  _s{k}[_tid] = _acc;",
                "  __syncthreads();",
                f"  for (unsigned int _half = {threads // 2}u; _half > 0; _half >>= 1) {{",
                "    if (_lane < _half) {",
                f"      const {acc} _a = _s{k}[_tid], _b = _s{k}[_tid + _half];",
                f"      _s{k}[_tid] = @F@_reduce{k}(_a, _b);",
                "    }",
                "    __syncthreads();",
                "  }",
                f"  @F@_post{k}(_s{k}[_group * {threads}u], v{k}, {N_PARAM});",
                "  __syncthreads();  // every lane has read the result before the next reduction reuses memory",
                "}",
            ]
            continue
        row = low.elementwise_row
        out_type = low.dtypes[row.output_fields[0].name]
        names = {f.name: _operand(src, nodes) for f, src in zip(row.input_fields, node.operands, strict=True) if src}
        target = f"v{k}" if node.per_row else f"v{k}[_e]"
        lines, used = node_body(row, low.dtypes, low.has_scale_bias, low.fused, names, target, low.impl)
        renames = [f"const {C_TYPES[t]} {n} = n{k}_{n};" for n, t in low.scalar_types]
        if row.reads_index:  # FILL_VALUE_SEQUENCE over the row's axes: the element's column is its index
            if node.per_row:
                raise ValueError(f"row program: {row.name} reads the element's index, so it is per element")
            renames.insert(0, f"const long long {INDEX} = static_cast<long long>(_lane + _e * {threads});")
        scalars += [(f"n{k}_{n}", t) for n, t in low.scalar_types]
        helpers += used
        block = "{ " + " ".join(renames + lines) + " }"
        if node.per_row:
            body += [f"{C_TYPES[out_type]} v{k};  // {row.name}", block]
        else:
            body += [f"{C_TYPES[out_type]} v{k}[{per_thread}];  // {row.name}", f"{loop} {block}"]
    k_last = len(nodes) - 1
    out_type = last.lowering.dtypes[last.lowering.elementwise_row.output_fields[0].name]
    body.append(f"{loop} _y[_row * _out_stride + _lane + _e * {threads}] = v{k_last}[_e];")
    text = "\n".join(body) + "".join(functions)
    short = "_".join(
        n.lowering.row.name.removeprefix("ELEMENT_WISE_").removeprefix("ACTIVATION_").lower()
        for n in nodes
        if n.reduce is not None or not n.per_row
    )
    # The kernel's name: what the program computes (its parts and wiring), hashed; the geometry spelled out.
    digest = zlib.crc32("\n".join((text, *map(str, reads), *map(str, inputs))).encode())
    name = f"gpuops_row_{short[:40]}_{digest:08x}_t{threads}_k{per_thread}"
    params = [f"const {C_TYPES[dt]}* __restrict__ _g{g}" for g, dt in enumerate(inputs)]
    params += [f"const {C_TYPES[t]} {n}" for n, t in scalars]
    params.append(f"{C_TYPES[out_type]}* __restrict__ _y")
    params += [f"const long long {v}" for v in ("_rows", "_cols", "_in_stride", "_out_stride")]
    for r, read in enumerate(reads):
        for part, dims in (("r", read.row_dims), ("c", read.col_dims)):
            params += [f"const long long _a{r}{part}{w}{d}" for d in range(dims) for w in ("s", "t")]
    used_helpers = tuple(dict.fromkeys(helpers))
    indented = "\n".join(f"    {line}" for line in body)
    kernel = (
        "".join(functions).replace("@F@", name)
        + f'\nextern "C" __global__ void {name}({", ".join(params)}) {{\n'
        + "".join(f"  {s}\n" for s in shared)
        + "  const unsigned int _tid = threadIdx.x;\n"
        + f"  const unsigned int _lane = _tid & {threads - 1}u;\n"
        + f"  const long long _group = _tid / {threads}u;\n"
        + f"  const long long {N_PARAM} = _cols;\n"
        + f"  for (long long _base = (long long)blockIdx.x * {BLOCK // threads}; _base < _rows;\n"
        + f"       _base += (long long)gridDim.x * {BLOCK // threads}) {{\n"
        + "    const long long _row = _base + _group;\n"
        + "    const bool _live = _row < _rows;\n"
        + indented.replace("@F@", name)
        + "\n  }\n}\n"
    )
    return RowProgramSpec(name, kernel, tuple(inputs), tuple(scalars), out_type, threads, per_thread, used_helpers)
