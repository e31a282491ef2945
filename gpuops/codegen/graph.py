"""One kernel for a fused group of element-wise graph nodes (``graph_plan.FusedStep``): pure strings.

Each node's statements are those of its single-operator kernel (``codegen.node_body``), in a block of their
own with the node's scalars renamed in (``n<k>_<name>`` arguments, so two nodes' ``alpha`` never meet), and
its result stored into a local ``v<k>`` of the node's *output* type: a float16 intermediate is rounded to
float16 at the node boundary exactly as when the nodes run one by one, and read back into the next node's
compute type. External inputs are ``i<n>``, materialized values ``o<m>``. The kernel is built with
``--fmad=false``: a multiply in one node and an add in the next must not contract into an FMA that running
the nodes one by one would not do.

Each node comes as a :class:`NodeLowering`: what this module reads of ``gpuops.lowering.Lowering`` (which builds
its fused kernels here, so this module does not import it).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from descriptors import DataType
from descriptors.compute import ComputePlan
from descriptors.optable import HELPERS
from descriptors.schema import ElementwiseRow, OpRow, ReductionRow

from ..graph_plan import FusedStep
from . import C_TYPES, PARAM_TYPES, ElementwiseImpl, KernelSpec, node_body
from .reduce import Epilogue, Prologue, ReductionSpec, reduction_kernel_spec

__all__ = ["FMAD_OFF", "NodeLowering", "fused_kernel_spec", "fused_reduction_spec", "fused_scalars"]

FMAD_OFF = ("--fmad=false",)


class NodeLowering(Protocol):
    """One node as the fused kernels read it: ``gpuops.lowering.Lowering`` (an element-wise node, or the
    reduction of a ``FusedReduceStep``)."""

    @property
    def row(self) -> OpRow: ...
    @property
    def dtypes(self) -> Mapping[str, DataType]: ...
    @property
    def variant(self) -> str | None: ...
    @property
    def elementwise_row(self) -> ElementwiseRow: ...
    @property
    def reduction_row(self) -> ReductionRow: ...
    @property
    def has_scale_bias(self) -> bool: ...
    @property
    def fused(self) -> ElementwiseRow | None: ...
    @property
    def scalars(self) -> dict[str, Any]: ...
    @property
    def scalar_types(self) -> tuple[tuple[str, DataType], ...]: ...
    @property
    def plan(self) -> ComputePlan: ...
    @property
    def impl(self) -> ElementwiseImpl: ...


def _scalar_name(k: int, name: str, prefix: str = "n") -> str:
    return f"{prefix}{k}_{name}"


def _short(name: str) -> str:
    return name.removeprefix("ELEMENT_WISE_").removeprefix("ACTIVATION_").lower()


def fused_scalars(lowerings: Sequence[NodeLowering], prefix: str = "n") -> dict[str, object]:
    """The fused kernel's scalar arguments: each node's (``Lowering.scalars``), renamed ``n<k>_<name>`` (an
    epilogue's ``e<k>_<name>``, so that a reduction's prologue and epilogue never share a name)."""
    return {_scalar_name(k, n, prefix): v for k, low in enumerate(lowerings) for n, v in low.scalars.items()}


def _scalars(lowerings: Sequence[NodeLowering], prefix: str = "n") -> list[tuple[str, DataType]]:
    return [(_scalar_name(k, n, prefix), t) for k, low in enumerate(lowerings) for n, t in low.scalar_types]


def _bodies(step: FusedStep, lowerings: Sequence[NodeLowering], prefix: str = "n") -> tuple[list[str], list[str]]:
    """Each node's statements in a block of its own, its value in ``v<k>``; and the helpers they call."""
    lines: list[str] = []
    helpers: list[str] = []
    for k, (low, operands) in enumerate(zip(lowerings, step.operands, strict=True)):
        row = low.elementwise_row
        if row.reads_index:  # graph_plan never fuses it: a fused loop has no logical index to give
            raise ValueError(f"{row.name} reads the element's index and cannot be fused")
        out_type = low.dtypes[row.output_fields[0].name]
        names = {}
        for field, src in zip(row.input_fields, operands, strict=True):
            if src is not None:
                names[field.name] = f"i{src[1]}" if src[0] == "in" else f"v{src[1]}"
        body, used = node_body(row, low.dtypes, low.has_scale_bias, low.fused, names, f"v{k}", low.impl)
        renames = [f"const {C_TYPES[t]} {n} = {_scalar_name(k, n, prefix)};" for n, t in low.scalar_types]
        lines.append(f"{C_TYPES[out_type]} v{k};  // {row.name}")
        lines.append("{ " + " ".join(renames + body) + " }")
        helpers += used
    return lines, helpers


def _device_function(
    kind: str, step: FusedStep, lowerings: Sequence[NodeLowering], params: Sequence[tuple[str, DataType]], prefix: str
) -> tuple[str, str, DataType, tuple[str, ...]]:
    """A fused group as a ``__device__`` function of ``params`` returning its one output value: (name, text,
    return type, helpers)."""
    ((k_last, _, _),) = step.outputs
    lines, helpers = _bodies(step, lowerings, prefix)
    out_type = lowerings[k_last].dtypes[lowerings[k_last].row.output_fields[0].name]
    body = "\n".join(f"  {line}" for line in lines)
    fname = f"gpuops_{kind}_{zlib.crc32(body.encode()):08x}"
    args = ", ".join(f"const {C_TYPES[dt]} {n}" for n, dt in params)
    head = f"__device__ __forceinline__ {C_TYPES[out_type]} {fname}({args})"
    return fname, f"{head} {{\n{body}\n  return v{k_last};\n}}\n", out_type, tuple(dict.fromkeys(helpers))


def fused_reduction_spec(
    prologue: FusedStep | None,
    prologue_nodes: Sequence[NodeLowering],
    reduce: NodeLowering,
    epilogue: FusedStep | None = None,
    epilogue_nodes: Sequence[NodeLowering] = (),
) -> ReductionSpec:
    """The ``ReductionKernel`` of a reduction with fused groups around it (``graph_plan.FusedReduceStep``).

    A ``prologue`` (whose one output is the reduction's input value) becomes a device function the map
    expression calls; an ``epilogue`` (whose one external input, ``i0``, is the reduction's result) one the
    post-map expression calls on the result rounded to the reduction's output type. Neither value is stored.
    One pass (the two-pass split plans one input's layout)."""
    variant = reduce.variant
    if variant is None:
        raise TypeError(f"{reduce.row.name}: a reduction's lowering without a variant")
    before = after = None
    if prologue is not None:
        inputs = tuple((f"i{n}", t.data_type) for n, (_, t) in enumerate(prologue.inputs))
        scalars = tuple(_scalars(prologue_nodes))
        fname, function, _, helpers = _device_function("prologue", prologue, prologue_nodes, inputs + scalars, "n")
        call = f"{fname}({', '.join(n for n, _ in (*inputs, *scalars))})"
        short = "_".join(_short(low.row.name) for low in prologue_nodes)[:32]
        tag = fname.removeprefix("gpuops_prologue_")
        before = Prologue(f"after_{short}_{tag}", inputs, scalars, call, function, helpers)
    if epilogue is not None:
        result_type = reduce.dtypes[reduce.row.output_fields[0].name]
        scalars = tuple(_scalars(epilogue_nodes, "e"))
        fname, function, out_type, helpers = _device_function(
            "epilogue", epilogue, epilogue_nodes, (("i0", result_type), *scalars), "e"
        )
        short = "_".join(_short(low.row.name) for low in epilogue_nodes)[:32]
        tag = fname.removeprefix("gpuops_epilogue_")
        after = Epilogue(f"then_{short}_{tag}", scalars, fname, function, helpers, out_type)
    return reduction_kernel_spec(reduce.reduction_row, reduce.dtypes, variant, before, after, reduce.plan)


def fused_kernel_spec(step: FusedStep, lowerings: Sequence[NodeLowering]) -> KernelSpec:
    """The ``ElementwiseKernel`` parts (and, for one output, the flat/rows source) of a fused group."""
    in_roles = tuple(f"i{n}" for n in range(len(step.inputs)))
    out_roles = tuple(f"o{m}" for m in range(len(step.outputs)))
    types = {r: t.data_type for r, (_, t) in zip(in_roles, step.inputs, strict=True)}
    types |= {r: t.data_type for r, (_, _, t) in zip(out_roles, step.outputs, strict=True)}
    scalars = _scalars(lowerings)
    lines, helpers = _bodies(step, lowerings)
    for m, (k, _, _) in enumerate(step.outputs):
        lines.append(f"o{m} = v{k};")
    operation = "\n".join(lines)
    in_params = [f"{PARAM_TYPES[types[r]]} {r}" for r in in_roles] + [f"{PARAM_TYPES[t]} {n}" for n, t in scalars]
    out_params = [f"{PARAM_TYPES[types[r]]} {r}" for r in out_roles]
    short = "_".join(
        low.row.name.removeprefix("ELEMENT_WISE_").removeprefix("ACTIVATION_").lower() for low in lowerings
    )
    name = f"gpuops_fused_{short[:48]}_{zlib.crc32(operation.encode()):08x}"
    return KernelSpec(
        name=name,
        in_params=", ".join(in_params),
        out_params=", ".join(out_params),
        operation=operation,
        preamble=HELPERS.source(dict.fromkeys(helpers)),
        input_roles=in_roles,
        scalar_params=tuple(n for n, _ in scalars),
        output_roles=out_roles,
        plan=lowerings[-1].plan,
        scalar_types=tuple(t for _, t in scalars),
        tensor_types=tuple((r, types[r]) for r in in_roles + out_roles),
        options=FMAD_OFF,
    )
