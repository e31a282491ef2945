"""``Lowering``: everything a backend needs to build and run one validated descriptor, worked out once.

Stage 3 of the pipeline (descriptor -> validation -> **lowering** -> layout plan -> codegen -> backend
kernel; README "Architecture"). DirectML's ``IDMLDevice::CompileOperator`` turns an operator into a
compiled operator; here that step is split in two: :func:`lower` reads the descriptor against its op-table
row (data types, ScaleBias, fused activation, reduction variant, tensors, scalar arguments, cache key) into
one frozen value of its row's kind (:class:`RowKind`: element-wise, reduction or scan, one subclass each), and a
backend (``gpuops.backends.base.Backend``) compiles that value into a kernel with the builder its table holds for
the kind. The compute plan (``descriptors.compute``), the implementations it selects and the scalar arguments
are worked out here, once, when the lowering is made (each subclass's ``__post_init__``), and every code
generator and backend reads them from the lowering: a backend's ``compile`` calls no code generator for them
(tests/backends/test_compile_path.py). The layout plans
(``launch_plan.plan_tensors``, ``reduce_plan.plan_two_pass``) and the CUDA kernel spec are computed on first
use, so the NumPy backend never builds CUDA source it does not show.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

from descriptors import DataType, OperatorDesc, TensorDesc
from descriptors.compute import ComputePlan
from descriptors.schema import ElementwiseRow, FieldKind, OpRow, ReductionRow, ScanRow

from .codegen import (
    BIAS,
    FUSED_PREFIX,
    SCALE,
    ElementwiseImpl,
    KernelSpec,
    elementwise_impl,
    elementwise_kernel_spec,
    plan_of,
    scalar_params,
)
from .codegen.graph import fused_kernel_spec, fused_scalars
from .codegen.reduce import ReductionSpec, reduction_kernel_spec, two_pass_specs
from .codegen.scan import ScanSpec, accumulator, scan_kernel_spec
from .layout import reduce_plan as rp
from .layout.launch_plan import FastPlan, plan_tensors
from .layout.reduce_plan import ColumnsPlan, RowsPlan, TwoPassPlan

if TYPE_CHECKING:
    from .graph_plan import FusedStep

__all__ = [
    "KINDS",
    "ElementwiseLowering",
    "FusedLowering",
    "Lowering",
    "ReductionLowering",
    "RowKind",
    "ScanLowering",
    "lower",
]


class RowKind(enum.Enum):
    """What kind of kernel a row has: one :class:`Lowering` subclass each, and the key of every backend's table of
    builders (``Backend.compile`` picks its builder by ``lowering.kind``)."""

    ELEMENTWISE = "element-wise"
    REDUCTION = "reduction"
    SCAN = "scan"


@dataclasses.dataclass(frozen=True, eq=False)
class Lowering:
    """One descriptor, read against its op-table row: what every backend compiles and runs.

    ``inputs``: (position in ``execute``'s inputs list, tensor) for each present input; ``flat``: an
    element-wise operator whose tensors are all packed with one shape (1-D views suffice). Reductions carry
    their ``variant`` (the selector value, e.g. ``"SUM"``), sorted ``axes`` and reduced element ``count``; scans
    (CUMULATIVE_SUMMATION, ...) their ``axes`` (the one Axis) and ``count`` (the axis's size, a line's length).

    :func:`lower` makes one of the subclasses, by the row's kind (:data:`KINDS`): :class:`ElementwiseLowering`,
    :class:`ReductionLowering` or :class:`ScanLowering`; what differs by kind (kernel key, CUDA spec, scalar
    arguments, layout plans) is theirs. ``plan`` (the compute plan) and ``impl`` (an element-wise row's
    implementations) are worked out here, once, and read by codegen and every backend.
    """

    kind: ClassVar[RowKind]

    desc: OperatorDesc
    row: OpRow
    dtypes: Mapping[str, DataType]
    inputs: tuple[tuple[int, TensorDesc], ...]
    output: TensorDesc
    scale_bias: Any = None
    fused_desc: OperatorDesc | None = None
    variant: str | None = None
    flat: bool = False
    axes: tuple[int, ...] = ()
    count: int = 0

    @classmethod
    def read(
        cls,
        desc: OperatorDesc,
        row: OpRow,
        dtypes: Mapping[str, DataType],
        inputs: tuple[tuple[int, TensorDesc], ...],
        output: TensorDesc,
    ) -> Lowering:
        """The lowering of ``desc`` (``row``'s kind is this class's), given what :func:`lower` read for every kind."""
        raise NotImplementedError(f"{cls.__name__} is not a kind of lowering; lower() makes its subclasses")

    @functools.cached_property
    def plan(self) -> ComputePlan:
        """Which type each operand is computed in (``descriptors.compute``): worked out here, once per lowering."""
        return plan_of(self.row, self.dtypes)

    @functools.cached_property
    def impl(self) -> ElementwiseImpl:
        """An element-wise row's plan and the implementations it selects (CUDA expression, NumPy callable,
        single-ufunc flag; ``codegen.ElementwiseImpl``)."""
        return elementwise_impl(self.elementwise_row, self.dtypes, self.plan)

    @property
    def scan_row(self) -> ScanRow:
        if not isinstance(self.row, ScanRow):
            raise TypeError(f"{self.row.name} is not a scan (ScanRow)")
        return self.row

    @functools.cached_property
    def scan_args(self) -> tuple[np.int64, np.int32, np.int32]:
        """A scan kernel's scalar arguments: the line length, reverse (AxisDirection DECREASING), exclusive."""
        desc, row = self.desc, self.scan_row
        reverse = int(desc.axis_direction) == 1  # type: ignore[attr-defined]
        return np.int64(self.count), np.int32(reverse), np.int32(bool(getattr(desc, row.exclusive)))

    @functools.cached_property
    def scan_accumulator(self) -> DataType:
        """The type a scan combines its running value in (``codegen.scan.accumulator`` of its input's type)."""
        return accumulator(self.dtypes[self.scan_row.input_fields[0].name])

    @property
    def elementwise_row(self) -> ElementwiseRow:
        if not isinstance(self.row, ElementwiseRow):
            raise TypeError(f"{self.row.name} is not element-wise (ElementwiseRow)")
        return self.row

    @property
    def reduction_row(self) -> ReductionRow:
        if not isinstance(self.row, ReductionRow):
            raise TypeError(f"{self.row.name} is not a reduction (ReductionRow)")
        return self.row

    @property
    def reduction_variant(self) -> str:
        """The reduction's variant (REDUCE's function name, ``"SUM"``)."""
        if self.variant is None:
            raise TypeError(f"{self.row.name}: a lowering without a reduction variant")
        return self.variant

    @property
    def fused(self) -> ElementwiseRow | None:
        """The fused activation's row (``FusedActivation`` field), if any."""
        if self.fused_desc is None:
            return None
        row = self.fused_desc.row
        if not isinstance(row, ElementwiseRow):
            raise TypeError(f"{self.row.name}: fused activation {row.name} is not element-wise (ElementwiseRow)")
        return row

    @property
    def has_scale_bias(self) -> bool:
        return self.scale_bias is not None

    @functools.cached_property
    def key(self) -> tuple[Any, ...]:
        """What makes two lowerings share a kernel (a backend adds its name): the row, data types and what else
        the kind's kernel depends on. Layouts and scalar values are call arguments, not part of the kernel."""
        raise NotImplementedError(f"{type(self).__name__} has no kernel key")

    @functools.cached_property
    def spec(self) -> KernelSpec | ReductionSpec | ScanSpec:
        """The generated CuPy kernel (``ElementwiseKernel`` or ``ReductionKernel`` source; a scan's
        ``ElementwiseKernel`` over lines, ``codegen.scan``)."""
        raise NotImplementedError(f"{type(self).__name__} has no kernel")

    @property
    def elementwise_spec(self) -> KernelSpec:
        spec = self.spec
        if not isinstance(spec, KernelSpec):
            raise TypeError(f"{self.row.name}: its kernel is a {type(spec).__name__}, not a KernelSpec")
        return spec

    @property
    def scan_spec(self) -> ScanSpec:
        spec = self.spec
        if not isinstance(spec, ScanSpec):
            raise TypeError(f"{self.row.name}: its kernel is a {type(spec).__name__}, not a ScanSpec")
        return spec

    @property
    def reduction_spec(self) -> ReductionSpec:
        spec = self.spec
        if not isinstance(spec, ReductionSpec):
            raise TypeError(f"{self.row.name}: its kernel is a {type(spec).__name__}, not a ReductionSpec")
        return spec

    @functools.cached_property
    def two_pass_specs(self) -> tuple[ReductionSpec, ReductionSpec]:
        """Pass 1 and pass 2 of the GPU's two-pass reduction (``codegen.reduce.two_pass_specs``)."""
        return two_pass_specs(self.reduction_row, self.dtypes, self.reduction_variant, self.plan)

    @functools.cached_property
    def scalars(self) -> dict[str, Any]:
        """The kernel's scalar arguments, name -> NumPy scalar of the argument's type (none but an element-wise
        kernel's: a reduction's count and a scan's :attr:`scan_args` are the backends')."""
        return {}

    @functools.cached_property
    def scalar_types(self) -> tuple[tuple[str, DataType], ...]:
        """The kernel's scalar arguments in order, with their types (``codegen.scalar_params``)."""
        return ()

    @functools.cached_property
    def layout(self) -> FastPlan | None:
        """The GPU's flat or rows kernel plan for these tensors (``launch_plan.plan_tensors``), or None
        where neither applies (reductions, more than one output, layouts that do not coalesce)."""
        return None

    @functools.cached_property
    def two_pass(self) -> TwoPassPlan | None:
        """The two-pass layout of a reduction (``reduce_plan.plan_two_pass``), or None for one launch."""
        return None

    @functools.cached_property
    def rows(self) -> RowsPlan | None:
        """The GPU's rows kernel plan of a reduction over one contiguous span per output (``reduce_plan.plan_rows``;
        each row in parts, ``reduce_plan.split_rows``, where ``two_pass`` would split it), or None (CuPy's
        ``ReductionKernel`` runs it)."""
        return None

    @functools.cached_property
    def columns(self) -> ColumnsPlan | None:
        """The GPU's columns kernel plan of a reduction over an outer or a middle axis (``reduce_plan.plan_columns``;
        its extent in parts, ``reduce_plan.split_columns``, where ``two_pass`` would split it), or None."""
        return None


@dataclasses.dataclass(frozen=True, eq=False)
class ElementwiseLowering(Lowering):
    """An element-wise operator (``ElementwiseRow``): ScaleBias, fused activation, scalar arguments."""

    kind: ClassVar[RowKind] = RowKind.ELEMENTWISE

    def __post_init__(self) -> None:
        _ = self.impl, self.scalars  # the plan, the implementations, the scalar arguments (and their types)

    @classmethod
    def read(
        cls,
        desc: OperatorDesc,
        row: OpRow,
        dtypes: Mapping[str, DataType],
        inputs: tuple[tuple[int, TensorDesc], ...],
        output: TensorDesc,
    ) -> Lowering:
        outputs = [getattr(desc, f.name) for f in row.output_fields]
        tensors = [t for _, t in inputs] + [t for t in outputs if t is not None]
        flat = all(t.is_packed and t.sizes == output.sizes for t in tensors)
        erow = cast(ElementwiseRow, row)
        sb = getattr(desc, "scale_bias", None) if erow.has_scale_bias else None
        fused = getattr(desc, erow.fused_field.name) if erow.fused_field is not None else None
        return cls(desc, row, dtypes, inputs, output, scale_bias=sb, fused_desc=fused, flat=flat)

    @functools.cached_property
    def key(self) -> tuple[Any, ...]:
        """The row, data types, ScaleBias present and fused activation."""
        types = tuple(sorted((k, v.value) for k, v in self.dtypes.items()))
        fused = self.fused
        return (self.row.name, types, self.has_scale_bias, fused.name if fused is not None else None)

    @functools.cached_property
    def spec(self) -> KernelSpec | ReductionSpec | ScanSpec:
        return elementwise_kernel_spec(self.elementwise_row, self.dtypes, self.has_scale_bias, self.fused, self.impl)

    @functools.cached_property
    def scalars(self) -> dict[str, Any]:
        """The kernel's scalar arguments, name -> NumPy scalar of the argument's type.

        Values go to kernels as arguments, never as source text, so NaN, infinities and -0.0 arrive bit
        for bit. A ``FieldKind.SCALAR`` field is a value of the output's type (``DML_SCALAR_UNION``),
        rounded to it first."""
        desc, row = self.desc, self.row
        out_type = self.dtypes[row.output_fields[0].name]
        values: dict[str, Any] = {}
        if self.scale_bias is not None:
            values[SCALE], values[BIAS] = self.scale_bias.scale, self.scale_bias.bias
        for f in row.param_fields:
            v = getattr(desc, f.name)
            if f.kind is FieldKind.SCALAR:
                v = out_type.numpy_dtype.type(v)
            values[f.kernel_name] = v
        if self.fused_desc is not None:
            for f in self.fused_desc.row.param_fields:
                values[FUSED_PREFIX + f.kernel_name] = getattr(self.fused_desc, f.name)
        typed = {}
        for name, dt in self.scalar_types:
            v = values[name]
            typed[name] = dt.numpy_dtype.type(int(v) if dt is DataType.INT32 else v)
        return typed

    @functools.cached_property
    def scalar_types(self) -> tuple[tuple[str, DataType], ...]:
        out_type = self.dtypes[self.row.output_fields[0].name]
        return scalar_params(self.elementwise_row, out_type, self.has_scale_bias, self.fused)

    @functools.cached_property
    def layout(self) -> FastPlan | None:
        if len(self.row.output_fields) != 1:
            return None
        return plan_tensors([t for _, t in self.inputs], self.output, self.elementwise_row.reads_index)


@dataclasses.dataclass(frozen=True, eq=False)
class ReductionLowering(Lowering):
    """A reduction (``ReductionRow``): its variant, sorted axes and reduced element count."""

    kind: ClassVar[RowKind] = RowKind.REDUCTION

    def __post_init__(self) -> None:
        _ = self.plan

    @classmethod
    def read(
        cls,
        desc: OperatorDesc,
        row: OpRow,
        dtypes: Mapping[str, DataType],
        inputs: tuple[tuple[int, TensorDesc], ...],
        output: TensorDesc,
    ) -> Lowering:
        variant = cast(ReductionRow, row).variant_of(desc)
        (_, inp), *_ = inputs
        axes = tuple(sorted(int(a) for a in desc.axes))  # type: ignore[attr-defined]
        return cls(
            desc, row, dtypes, inputs, output, variant=variant, axes=axes, count=math.prod(inp.sizes[a] for a in axes)
        )

    @functools.cached_property
    def key(self) -> tuple[Any, ...]:
        """The row, the variant and the data types."""
        types = tuple(sorted((k, v.value) for k, v in self.dtypes.items()))
        return (self.row.name, self.variant, types)

    @functools.cached_property
    def spec(self) -> KernelSpec | ReductionSpec | ScanSpec:
        return reduction_kernel_spec(self.reduction_row, self.dtypes, self.reduction_variant, plan=self.plan)

    @functools.cached_property
    def two_pass(self) -> TwoPassPlan | None:
        (_, inp), *_ = self.inputs
        return rp.plan_two_pass(inp.sizes, inp.element_strides, self.axes)

    # Where two passes would run (few outputs over a long extent), gpuops' kernels split the extent: one launch.
    @functools.cached_property
    def rows(self) -> RowsPlan | None:
        (_, inp), *_ = self.inputs
        plan = rp.plan_rows(inp.sizes, inp.element_strides, self.output.element_strides, self.axes)
        plan = None if len(self.reduction_spec.scalar_params) != 1 else plan
        return rp.split_rows(plan) if plan is not None and self.two_pass is not None else plan

    @functools.cached_property
    def columns(self) -> ColumnsPlan | None:
        (_, inp), *_ = self.inputs
        plan = rp.plan_columns(inp.sizes, inp.element_strides, self.output.element_strides, self.axes)
        plan = None if len(self.reduction_spec.scalar_params) != 1 else plan
        return rp.split_columns(plan) if plan is not None and self.two_pass is not None else plan


@dataclasses.dataclass(frozen=True, eq=False)
class ScanLowering(Lowering):
    """A scan (``ScanRow``: CUMULATIVE_SUMMATION, ...): its one axis and that axis's size."""

    kind: ClassVar[RowKind] = RowKind.SCAN

    def __post_init__(self) -> None:
        _ = self.scan_accumulator

    @classmethod
    def read(
        cls,
        desc: OperatorDesc,
        row: OpRow,
        dtypes: Mapping[str, DataType],
        inputs: tuple[tuple[int, TensorDesc], ...],
        output: TensorDesc,
    ) -> Lowering:
        (_, inp), *_ = inputs
        axis = int(desc.axis)  # type: ignore[attr-defined]
        return cls(desc, row, dtypes, inputs, output, axes=(axis,), count=inp.sizes[axis])

    @functools.cached_property
    def key(self) -> tuple[Any, ...]:
        """The row and the data types."""
        types = tuple(sorted((k, v.value) for k, v in self.dtypes.items()))
        return (self.row.name, types)

    @functools.cached_property
    def spec(self) -> KernelSpec | ReductionSpec | ScanSpec:
        return scan_kernel_spec(self.scan_row, self.dtypes)


#: The rule table of :func:`lower`: a row's class -> the lowering of its kind.
KINDS: tuple[tuple[type[ElementwiseRow | ReductionRow | ScanRow], type[Lowering]], ...] = (
    (ElementwiseRow, ElementwiseLowering),
    (ReductionRow, ReductionLowering),
    (ScanRow, ScanLowering),
)


def lower(desc: OperatorDesc) -> Lowering:
    """The :class:`Lowering` of a validated descriptor: the subclass of its row's kind (:data:`KINDS`)."""
    row = desc.row
    dtypes = {f.name: getattr(desc, f.name).data_type for f in row.tensor_fields if getattr(desc, f.name) is not None}
    inputs = tuple(
        (k, getattr(desc, f.name)) for k, f in enumerate(row.input_fields) if getattr(desc, f.name) is not None
    )
    output: TensorDesc = getattr(desc, row.output_fields[0].name)
    for row_type, kind in KINDS:
        if isinstance(row, row_type):
            return kind.read(desc, row, dtypes, inputs, output)
    raise TypeError(f"lower: {row.name} is not element-wise, a reduction or a scan; it has no kernel of its own")


@dataclasses.dataclass(frozen=True, eq=False)
class FusedLowering:
    """A fused group of element-wise graph nodes (``graph_plan.FusedStep``) and each node's :class:`Lowering`:
    what a backend compiles into one kernel (``Backend.compile_fused``).

    The kernel's inputs are the step's external inputs in order (``inputs``: (position, layout)), its
    outputs the step's materialized values (``outputs``: layouts).
    """

    step: FusedStep
    nodes: tuple[Lowering, ...]

    @property
    def inputs(self) -> tuple[tuple[int, TensorDesc], ...]:
        return tuple((n, layout) for n, (_, layout) in enumerate(self.step.inputs))

    @property
    def outputs(self) -> tuple[TensorDesc, ...]:
        return tuple(layout for _, _, layout in self.step.outputs)

    @property
    def output(self) -> TensorDesc:
        """The one output (the flat/rows kernels write one)."""
        (out,) = self.outputs
        return out

    @property
    def flat(self) -> bool:
        tensors = [t for _, t in self.inputs] + list(self.outputs)
        return all(t.is_packed and t.sizes == tensors[0].sizes for t in tensors)

    @functools.cached_property
    def spec(self) -> KernelSpec:
        return fused_kernel_spec(self.step, self.nodes)

    @property
    def elementwise_spec(self) -> KernelSpec:
        return self.spec

    @functools.cached_property
    def scalars(self) -> dict[str, Any]:
        return fused_scalars(self.nodes)

    @functools.cached_property
    def key(self) -> tuple[Any, ...]:
        """The kernel's identity: its generated text (node rows, data types and wiring all show in it)."""
        spec = self.spec
        return ("fused", spec.name, spec.in_params, spec.out_params, spec.operation)

    @functools.cached_property
    def layout(self) -> FastPlan | None:
        """The flat or rows plan when the group writes one value (``launch_plan.plan_tensors``), else None."""
        if len(self.outputs) != 1:
            return None
        return plan_tensors([t for _, t in self.inputs], self.output)
