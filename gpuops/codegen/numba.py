"""Lowering for the NumPy backend's compiled tier: an op-table row's CUDA expression as one numba loop.

Pure string work: no numba import. The NumPy backend runs an element-wise operator as a chain
of ufunc passes over 64 Ki chunks (float16 and bfloat16 converted in and out of float32 at
every chunk). Where the row's CUDA expression uses only operations that IEEE 754 rounds
exactly (``+ - * /``, ``sqrt``, ``fabs``, comparisons, ``&& || !``, ``?:``, the casts
``T(...)``, CUDA's ``__fadd_rn``-style intrinsics, and gpuops' one-expression helpers made of
those, inlined from their source in ``descriptors/cuda_helpers.py``), the same expression is
translated to Python and compiled by numba into one loop that loads each element once,
converts, scales (ScaleBias), applies the operator and the fused activation in registers and
stores once (docs/reference/performance.md 4.1.6 and 4.1.10). Every such operation gives
the same bits however it is compiled (no FMA contraction, no fast-math), so the loop is
bit-identical to the NumPy path; ``tests/backends/test_numba_loops.py`` checks that for every row and
data type this tier accepts. Rows with any other function (``exp``, ``tanh``, other gpuops
helpers, integer wrapping) are not translated: libm and NumPy's
SIMD loops may differ in the last place, and the NumPy path stays their only CPU path.

Translation follows C's rules where Python's differ: every binary operation is parenthesized
(no chained comparisons), ``c ? a : b`` becomes ``(a if c else b)``, an integer literal
becomes ``T(n)`` (C converts it to the other operand's floating type; numba would widen to
float64), and a floating literal is only accepted as the argument of ``T(...)``. Descriptor
scalars are loop arguments, never literals, as in the CUDA kernels.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from descriptors import DataType
from descriptors.schema import Domain, ElementwiseRow, OpRow

from . import BIAS, FUSED_PREFIX, OPERANDS, SCALE, ElementwiseImpl, elementwise_impl, param_name, scalar_params
from .cuda_to_python import Untranslatable, translate

__all__ = ["LOOP_TYPES", "LoopSpec", "Untranslatable", "fused_loop_spec", "loop_spec", "translate"]

# Names the generated module and loop body use; no argument may take one.
RESERVED = frozenset(
    {"np", "njit", "T", "R", "i", "v", "r", "c", "r0", "r1", "c0", "c1", *OPERANDS}
    | {"prange", "blocks_", "k_", "n_", "nr_", "nc_"}
    | {"lo_", "hi_", "by_rows_"}
    | {"f16_to_f32", "f32_to_f16", "bf16_to_f32", "f32_to_bf16"}
)
# Storage types the loop reads and writes: float16/bfloat16 as their uint16 bits.
LOOP_TYPES = frozenset({DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64})
_LOAD = {
    DataType.FLOAT16: "f16_to_f32({})",
    DataType.BFLOAT16: "bf16_to_f32({})",
    DataType.FLOAT32: "np.float32({})",
    DataType.FLOAT64: "np.float64({})",
}
_STORE = {
    DataType.FLOAT16: "f32_to_f16({})",
    DataType.BFLOAT16: "f32_to_bf16({})",
    DataType.FLOAT32: "np.float32({})",
    DataType.FLOAT64: "np.float64({})",
}
_NP_NAME = {DataType.FLOAT32: "np.float32", DataType.FLOAT64: "np.float64"}


@dataclasses.dataclass(frozen=True, slots=True)
class LoopSpec:
    """One compiled-tier loop: its name, its Python module source and its argument order.

    The module defines two loops. ``name(*inputs, *scalars, output)``: 1-D contiguous arrays
    of equal length (float16/bfloat16 as uint16 views) and the scalars in ``scalar_params``
    order, which is the CUDA kernel's order (``codegen.scalar_params``). ``name + "_rows"``:
    the same, with the bound (flat) buffers, then ``r0, r1, c0, c1`` and each operand's row
    and column strides in elements (inputs, then the output), as ``gpuops.layout.launch_plan`` plans
    the GPU's rows kernel.
    """

    name: str
    source: str
    input_roles: tuple[str, ...]
    scalar_params: tuple[str, ...]
    output_role: str


def loop_spec(
    row: OpRow,
    dtypes: Mapping[str, DataType],
    has_scale_bias: bool = False,
    fused: ElementwiseRow | None = None,
    impl: ElementwiseImpl | None = None,
) -> LoopSpec | None:
    """The compiled-tier loop of ``row`` for ``dtypes``, or None where the tier does not apply.

    Applies to element-wise rows with one output whose tensors all have floating types and
    whose expression (and fused activation's) is in the exactly rounded subset. ``impl``: the
    ``Lowering.impl`` of the operator (else ``codegen.elementwise_impl``).
    """
    if not isinstance(row, ElementwiseRow) or row.domain is Domain.BITS or len(row.output_fields) != 1:
        return None
    # FILL_VALUE_*: no input to read (NumPy fills in one pass), and the loops carry no element index
    if not row.input_fields or row.reads_index:
        return None
    if any(dt not in LOOP_TYPES for dt in dtypes.values()):
        return None
    impl = impl if impl is not None else elementwise_impl(row, dtypes)
    plan = impl.plan
    if plan.value_class != "float" or plan.out_compute not in _NP_NAME:
        return None
    in_roles = tuple(f.name for f in row.input_fields if f.name in dtypes)
    out_role = row.output_fields[0].name
    scalars = scalar_params(row, dtypes[out_role], has_scale_bias, fused)
    operand = {r: row.operand_of(r) for r in in_roles}
    names = {o: o for o in operand.values()}
    names.update(_absent(row, dtypes))
    names.update({f.kernel_name: f.kernel_name for f in row.param_fields})
    try:
        expr = translate(impl.cuda, names)
        act = None
        if fused is not None:
            fnames = {"x": "v", **{f.kernel_name: FUSED_PREFIX + f.kernel_name for f in fused.param_fields}}
            act = translate(fused.exprs.cuda_for("float"), fnames)
    except Untranslatable:
        return None

    type_names = dict.fromkeys(dtypes[f.name].numpy_dtype.name for f in row.tensor_fields if f.name in dtypes)
    name = "loop_" + "_".join([row.name.lower(), *type_names])
    if has_scale_bias:
        name += "_scalebias"
    if fused is not None:
        name += "_fused_" + fused.name.lower()
    arrays = [param_name(r) for r in in_roles]
    out = param_name(out_role)
    args = [*arrays, *(n for n, _ in scalars), out]
    if set(args) & (RESERVED | set(operand.values())) or len(set(args)) != len(args):  # a name the body uses
        return None

    def body(index: Mapping[str, str]) -> list[str]:
        """Load, compute, store for one element; ``index[array]`` is its subscript."""
        lines = []
        for role in in_roles:
            arr = param_name(role)
            value = _LOAD[dtypes[role]].format(f"{arr}[{index[arr]}]")
            if plan.inputs[role] is DataType.FLOAT64 and dtypes[role] is not DataType.FLOAT64:
                value = f"np.float64({value})"
            elif plan.inputs[role] is DataType.FLOAT32 and dtypes[role] is DataType.FLOAT64:
                value = f"np.float32({value})"
            if role == row.primary_role and has_scale_bias:
                # gpuops_scale_bias: x * scale, rounded, + bias, rounded (in T; float scalars widen exactly).
                value = f"{value} * T({SCALE}) + T({BIAS})"
            lines.append(f"{operand[role]} = {value}")
        lines.append(f"v = R({expr})")
        if act is not None:
            lines.append(f"v = R({act})")
        lines.append(f"{out}[{index[out]}] = {_STORE[dtypes[out_role]].format('v')}")
        return lines

    source = _loop_module(
        name,
        f"generated from the op table row {row.name}",
        [f"T = {_NP_NAME[plan.compute]}", f"R = {_NP_NAME[plan.out_compute]}"],
        args,
        [*arrays, out],
        body,
        dtypes.values(),
    )
    return LoopSpec(name, source, in_roles, tuple(n for n, _ in scalars), out_role)


def fused_loop_spec(
    lowerings: Sequence[Any], operands: Sequence[Sequence[tuple[str, int] | None]], outputs: Sequence[int], name: str
) -> LoopSpec | None:
    """One compiled-tier loop for a fused group of graph nodes writing one value (``graph_plan.FusedStep``),
    or None where a node is outside the tier (as :func:`loop_spec` decides) or the group writes several values.

    ``lowerings``: each node's ``Lowering``; ``operands[k][j]``: ``("in", n)`` or ``("node", m)`` for input ``j``
    of node ``k``; ``outputs``: the node positions whose values the loop stores. Each node rounds its result
    to its output type (float16/bfloat16 through their bits) before the next node reads it, as when the
    nodes run one by one; the arguments are the external inputs ``i<n>``, the scalars ``n<k>_<name>``
    (``codegen.graph.fused_scalars``) and the output ``o0``.
    """
    if len(outputs) != 1:
        return None
    inputs: dict[int, DataType] = {}
    scalars: list[str] = []
    body: list[str] = []
    types: list[str] = []
    for k, (low, ops) in enumerate(zip(lowerings, operands, strict=True)):
        row, dtypes = low.row, low.dtypes
        impl: ElementwiseImpl = low.impl
        if loop_spec(row, dtypes, low.has_scale_bias, low.fused, impl) is None:
            return None
        plan = impl.plan
        in_roles = tuple(f.name for f in row.input_fields if f.name in dtypes)
        out_role = row.output_fields[0].name
        names = {row.operand_of(r): f"x{k}_{j}" for j, r in enumerate(in_roles)}
        names.update(_absent(row, dtypes))
        names.update({f.kernel_name: f"n{k}_{f.kernel_name}" for f in row.param_fields})
        expr = translate(impl.cuda, names)
        act = None
        if low.fused is not None:
            fnames = {
                "x": f"v{k}",
                **{f.kernel_name: f"n{k}_{FUSED_PREFIX}{f.kernel_name}" for f in low.fused.param_fields},
            }
            act = translate(low.fused.exprs.cuda_for("float"), fnames)
        scalars += [f"n{k}_{n}" for n, _ in low.scalar_types]
        types.append(f"T{k} = {_NP_NAME[plan.compute]}\nR{k} = {_NP_NAME[plan.out_compute]}")
        field_of = dict(zip((f.name for f in row.input_fields), ops, strict=True))
        for j, role in enumerate(in_roles):
            src = field_of[role]
            if src is None:  # a role in in_roles is a present input: it has an operand
                raise ValueError(f"fused loop: {row.name}'s input {role} is present but has no operand")
            if src[0] == "in":
                inputs[src[1]] = dtypes[role]
                value = _LOAD[dtypes[role]].format(f"i{src[1]}[{{i}}]")
            else:
                value = _LOAD[dtypes[role]].format(f"s{src[1]}")
            if plan.inputs[role] is DataType.FLOAT64 and dtypes[role] is not DataType.FLOAT64:
                value = f"np.float64({value})"
            elif plan.inputs[role] is DataType.FLOAT32 and dtypes[role] is DataType.FLOAT64:
                value = f"np.float32({value})"
            if role == row.primary_role and low.has_scale_bias:
                value = f"{value} * T{k}(n{k}_{SCALE}) + T{k}(n{k}_{BIAS})"
            body.append(f"x{k}_{j} = {value}")
        body.append(f"v{k} = R{k}({_typed(expr, k)})")
        if act is not None:
            body.append(f"v{k} = R{k}({_typed(act, k)})")
        body.append(f"s{k} = {_STORE[dtypes[out_role]].format(f'v{k}')}")  # the node's stored value
    (last,) = outputs
    arrays = [f"i{n}" for n in sorted(inputs)]
    args = [*arrays, *scalars, "o0"]
    all_types = {*inputs.values(), *(low.dtypes[low.row.output_fields[0].name] for low in lowerings)}

    def element(index: Mapping[str, str]) -> list[str]:
        lines = []
        for line in body:
            for a in arrays:
                line = line.replace(f"{a}[{{i}}]", f"{a}[{index[a]}]")
            lines.append(line)
        lines.append(f"o0[{index['o0']}] = s{last}")
        return lines

    source = _loop_module(name, "a fused graph group, generated from its nodes' op-table rows", types, args,
                          [*arrays, "o0"], element, all_types)  # fmt: skip
    return LoopSpec(name, source, tuple(arrays), tuple(scalars), "o0")


def _loop_module(
    name: str,
    origin: str,
    types: Sequence[str],
    args: Sequence[str],
    every: Sequence[str],
    element: Callable[[Mapping[str, str]], list[str]],
    data_types: Iterable[DataType],
) -> str:
    """The module source of a compiled-tier loop pair: ``name`` (flat: 1-D operands of equal length) and
    ``name + "_rows"`` (the bound buffers with row and column strides), with their parallel drivers
    ``name + "_par"`` and ``name + "_rows_par"``. ``every``: the array arguments, output last;
    ``element(index)``: the statements for one element, ``index[array]`` its subscript.

    A driver takes the loop's arguments, then ``blocks_``: it runs the serial loop over ``blocks_`` disjoint
    blocks of the output (contiguous ranges of the flat operands; row ranges, or column ranges where the rows
    do not split evenly and are fewer than 16 a block) in a ``numba.prange`` on numba's threads (as many as
    the calling thread's ``numba.get_num_threads()``, which the caller sets: ``numba.set_num_threads``
    inside jitted code would keep numba from caching it, as a dynamic global). Each block calls the serial
    loop itself (a direct call, compiled for the same contiguous array types, so its loop vectorizes as the
    serial one does: a 2-block float32 add ran 6.4 vs 8.1 us serial at 2**16, 86 vs 179 at 2**20), and
    every element is computed by exactly the statements of the serial loop, loaded before it is stored, by
    one thread: the same bits, and exact in-place aliasing stays safe. Block edges fall on multiples of 64
    elements (128 bytes or more), so the blocks of an aligned buffer share no cache line."""
    half = [dt for dt in set(data_types) if dt in (DataType.FLOAT16, DataType.BFLOAT16)]
    uses = sorted({_LOAD[dt].split("(")[0] for dt in half}) + sorted({_STORE[dt].split("(")[0] for dt in half})
    options = 'nogil=True, cache=True, error_model="numpy", fastmath=False, boundscheck=False'
    decorator = f"@njit({options})"
    strides = [f"{a}_{k}" for a in every for k in ("rs", "cs")]
    out = every[-1]
    flat_args = ", ".join(a + "[lo_:hi_]" if a in every else a for a in args)
    rows_args = f"{', '.join(args)}, r0, r1, c0, c1, {', '.join(strides)}"
    lines = [
        f"# gpuops compiled loops {name}: {origin}; do not edit.",
        "import numpy as np",
        "from numba import njit, prange",
    ]
    if uses:
        lines.append(f"from gpuops.backends.numba_convert import {', '.join(uses)}")
    lines += [
        "",
        *types,
        "",
        "",
        "# flat: every operand packed, of one shape (1-D views of equal length)",
        decorator,
        f"def {name}({', '.join(args)}):",
        f"    for i in range({out}.shape[0]):",
        *(f"        {line}" for line in element(dict.fromkeys(every, "i"))),
        "",
        "",
        "# rows: element (r, c) of operand k at k[r * k_rs + c * k_cs] of its bound buffer, for r0 <= r < r1,",
        "# c0 <= c < c1 (the GPU's rows kernel: gpuops.layout.launch_plan; broadcast operands have zero strides)",
        decorator,
        f"def {name}_rows({', '.join(args)}, r0, r1, c0, c1, {', '.join(strides)}):",
        "    for r in range(r0, r1):",
        *(f"        i_{a} = r * {a}_rs" for a in every),
        "        for c in range(c0, c1):",
        # Unsigned subscripts: numba adds a negative-index wrap-around branch to signed ones, which
        # kept this loop from vectorizing (float16 row broadcast 16.6 vs 1.3 ms at 2**20).
        *(f"            {line}" for line in element({a: f"np.uint64(i_{a} + c * {a}_cs)" for a in every})),
        "",
        "",
        "# the flat loop over blocks_ contiguous blocks (edges on multiples of 64 elements) on numba's threads",
        f"@njit(parallel=True, {options})",
        f"def {name}_par({', '.join(args)}, blocks_):",
        f"    n_ = {out}.shape[0]",
        "    for k_ in prange(blocks_):",
        "        lo_ = (n_ * k_ // blocks_) // 64 * 64",
        "        hi_ = n_ if k_ == blocks_ - 1 else (n_ * (k_ + 1) // blocks_) // 64 * 64",
        f"        {name}({flat_args})",
        "",
        "",
        "# the rows loop over blocks_ row ranges (or column ranges: few rows) on numba's threads",
        f"@njit(parallel=True, {options})",
        f"def {name}_rows_par({rows_args}, blocks_):",
        "    nr_ = r1 - r0",
        "    nc_ = c1 - c0",
        "    by_rows_ = nr_ % blocks_ == 0 or nr_ >= 16 * blocks_",
        "    for k_ in prange(blocks_):",
        "        if by_rows_:",
        f"            {name}_rows({', '.join(args)}, r0 + nr_ * k_ // blocks_, r0 + nr_ * (k_ + 1) // blocks_, c0, c1, "
        f"{', '.join(strides)})",
        "        else:",
        "            lo_ = c0 + (nc_ * k_ // blocks_) // 64 * 64",
        "            hi_ = c1 if k_ == blocks_ - 1 else c0 + (nc_ * (k_ + 1) // blocks_) // 64 * 64",
        f"            {name}_rows({', '.join(args)}, r0, r1, lo_, hi_, {', '.join(strides)})",
        "",
    ]
    return "\n".join(lines)


def _absent(row: ElementwiseRow, dtypes: Mapping[str, DataType]) -> dict[str, str]:
    """An absent optional input reads as ``T(0)``, as in the CUDA kernels (``codegen.node_body``)."""
    return {n: "T(0)" for n, f in zip(row.operand_names, row.input_fields, strict=True) if f.name not in dtypes}


def _typed(expr: str, k: int) -> str:
    """A translated expression with its compute-type casts ``T(...)`` bound to node ``k``'s ``T<k>``."""
    return re.sub(r"\bT\(", f"T{k}(", expr)
