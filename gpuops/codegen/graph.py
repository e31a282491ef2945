"""One kernel for a fused group of element-wise graph nodes (``graph_plan.FusedStep``): pure strings.

Each node's statements are those of its single-operator kernel (``codegen.node_body``), in a block of their
own with the node's scalars renamed in (``n<k>_<name>`` arguments, so two nodes' ``alpha`` never meet), and
its result stored into a local ``v<k>`` of the node's *output* type: a float16 intermediate is rounded to
float16 at the node boundary exactly as when the nodes run one by one, and read back into the next node's
compute type. External inputs are ``i<n>``, materialized values ``o<m>``. The kernel is built with
``--fmad=false``: a multiply in one node and an add in the next must not contract into an FMA that running
the nodes one by one would not do.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from descriptors import DataType
from descriptors.optable import HELPERS

from ..graph_plan import FusedStep
from ..lowering import Lowering
from . import C_TYPES, PARAM_TYPES, KernelSpec, node_body
from .reduce import Prologue, ReductionSpec, reduction_kernel_spec

__all__ = ["FMAD_OFF", "fused_kernel_spec", "fused_reduction_spec", "fused_scalars"]

FMAD_OFF = ("--fmad=false",)


def _scalar_name(k: int, name: str) -> str:
    return f"n{k}_{name}"


def _short(name: str) -> str:
    return name.removeprefix("ELEMENT_WISE_").removeprefix("ACTIVATION_").lower()


def fused_scalars(lowerings: Sequence[Lowering]) -> dict[str, object]:
    """The fused kernel's scalar arguments: each node's (``Lowering.scalars``), renamed ``n<k>_<name>``."""
    return {_scalar_name(k, n): v for k, low in enumerate(lowerings) for n, v in low.scalars.items()}


def _scalars(lowerings: Sequence[Lowering]) -> list[tuple[str, DataType]]:
    return [(_scalar_name(k, n), t) for k, low in enumerate(lowerings) for n, t in low.scalar_types]


def _bodies(step: FusedStep, lowerings: Sequence[Lowering]) -> tuple[list[str], list[str]]:
    """Each node's statements in a block of its own, its value in ``v<k>``; and the helpers they call."""
    lines: list[str] = []
    helpers: list[str] = []
    for k, (low, operands) in enumerate(zip(lowerings, step.operands, strict=True)):
        row = low.elementwise_row
        out_type = low.dtypes[row.output_fields[0].name]
        names = {}
        for field, src in zip(row.input_fields, operands, strict=True):
            if src is not None:
                names[field.name] = f"i{src[1]}" if src[0] == "in" else f"v{src[1]}"
        body, used = node_body(row, low.dtypes, low.has_scale_bias, low.fused, names, f"v{k}")
        renames = [f"const {C_TYPES[t]} {n} = {_scalar_name(k, n)};" for n, t in low.scalar_types]
        lines.append(f"{C_TYPES[out_type]} v{k};  // {row.name}")
        lines.append("{ " + " ".join(renames + body) + " }")
        helpers += used
    return lines, helpers


def fused_reduction_spec(step: FusedStep, lowerings: Sequence[Lowering], reduce: Lowering) -> ReductionSpec:
    """The ``ReductionKernel`` of a reduction whose input is computed by a fused group (``step``, whose one
    output is that value): the group becomes a device function the reduction's map expression calls, so the
    value is never stored. One pass (the two-pass split plans one input's layout)."""
    ((k_last, _, _),) = step.outputs
    lines, helpers = _bodies(step, lowerings)
    inputs = tuple((f"i{n}", t.data_type) for n, (_, t) in enumerate(step.inputs))
    scalars = tuple(_scalars(lowerings))
    out_type = lowerings[k_last].dtypes[lowerings[k_last].row.output_fields[0].name]
    params = [f"const {C_TYPES[dt]} {n}" for n, dt in (*inputs, *scalars)]
    body = "\n".join(f"  {line}" for line in lines)
    tag = f"{zlib.crc32(body.encode()):08x}"
    fname = f"gpuops_prologue_{tag}"
    head = f"__device__ __forceinline__ {C_TYPES[out_type]} {fname}({', '.join(params)})"
    function = f"{head} {{\n{body}\n  return v{k_last};\n}}\n"
    call = f"{fname}({', '.join(n for n, _ in (*inputs, *scalars))})"
    short = "_".join(_short(low.row.name) for low in lowerings)[:32]
    prologue = Prologue(f"after_{short}_{tag}", inputs, scalars, call, function, tuple(dict.fromkeys(helpers)))
    assert reduce.variant is not None
    return reduction_kernel_spec(reduce.reduction_row, reduce.dtypes, reduce.variant, prologue)


def fused_kernel_spec(step: FusedStep, lowerings: Sequence[Lowering]) -> KernelSpec:
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
        plan=lowerings[-1].elementwise_spec.plan,
        scalar_types=tuple(t for _, t in scalars),
        tensor_types=tuple((r, types[r]) for r in in_roles + out_roles),
        options=FMAD_OFF,
    )
