"""Operator descriptor dataclasses, one per op-table row, named after DirectML's structs.

``DML_ELEMENT_WISE_ADD_OPERATOR_DESC`` becomes ``ElementWiseAddOperatorDesc`` with fields
``a_tensor``, ``b_tensor``, ``output_tensor`` (DirectML's names in snake_case and order).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from .enums import DataType
from .optable import ROWS, OperatorType, row_of
from .schema import NO_DEFAULT, FieldKind, OpRow
from .tensor import TensorDesc

__all__ = ["DESC_CLASSES", "OperatorDesc", "ScaleBias", "desc_class"]


@dataclasses.dataclass(frozen=True, slots=True)
class ScaleBias:
    """``DML_SCALE_BIAS``: applied to the input before the operator, ``f(x * scale + bias)``."""

    scale: float = 1.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        from .errors import DescriptorError
        from .float_range import float_problem

        for name in ("scale", "bias"):
            v = getattr(self, name)
            problem = float_problem(v)  # DML_SCALE_BIAS holds FLOATs (float32)
            if problem is not None:
                raise DescriptorError(f"ScaleBias.{name} {problem}", name)
            object.__setattr__(self, name, float(v))


class OperatorDesc:
    """Base of every operator descriptor: ``operator_type`` and the tensors in binding order."""

    __slots__ = ()
    operator_type: ClassVar[OperatorType]
    row: ClassVar[OpRow]

    @property
    def input_tensors(self) -> tuple[TensorDesc | None, ...]:
        """The input tensors in DirectML's binding order (None for an absent optional one)."""
        return tuple(getattr(self, f.name) for f in self.row.input_fields)

    @property
    def output_tensors(self) -> tuple[TensorDesc, ...]:
        return tuple(getattr(self, f.name) for f in self.row.output_fields)


_FIELD_TYPES: dict[FieldKind, Any] = {
    FieldKind.INPUT_TENSOR: TensorDesc,
    FieldKind.OUTPUT_TENSOR: TensorDesc,
    FieldKind.OPTIONAL_INPUT_TENSOR: TensorDesc | None,
    FieldKind.SCALE_BIAS: ScaleBias | None,
    FieldKind.FLOAT: float,
    FieldKind.ENUM: Any,
    FieldKind.SCALAR: int | float,
    FieldKind.DATA_TYPE: DataType,
    FieldKind.FUSED_ACTIVATION: OperatorDesc | None,
    FieldKind.SELECTOR: Any,
    FieldKind.AXES: tuple[int, ...],
}
# A SELECTOR before the tensors (REDUCE's Function) is positional too, in DirectML's order.
_POSITIONAL = (
    FieldKind.INPUT_TENSOR,
    FieldKind.OUTPUT_TENSOR,
    FieldKind.OPTIONAL_INPUT_TENSOR,
    FieldKind.SCALE_BIAS,
    FieldKind.SELECTOR,
)
_NONE_DEFAULT = (FieldKind.OPTIONAL_INPUT_TENSOR, FieldKind.SCALE_BIAS, FieldKind.FUSED_ACTIVATION)


def _axes_to_tuple(names: list[str]) -> Any:
    """``axes=[0, 2]`` is stored as ``(0, 2)`` so the descriptor stays hashable and immutable."""

    def post_init(self: Any) -> None:
        for name in names:
            v = getattr(self, name)
            if isinstance(v, list):
                object.__setattr__(self, name, tuple(v))

    return post_init


def _make_class(row: OpRow) -> type[OperatorDesc]:
    """Tensors and ScaleBias positional, in DirectML's order; parameters keyword-only.

    A fused activation's tensors are absent (DirectML: InputTensor = OutputTensor = NULL), so
    every tensor field defaults to None only for activation rows, which may be fused.
    """
    fields: list[Any] = []
    kw_only_started = False
    for f in row.fields:
        typ = _FIELD_TYPES[f.kind]
        if f.kind not in _POSITIONAL and not kw_only_started:
            fields.append(("_", dataclasses.KW_ONLY))
            kw_only_started = True
        if f.default is not NO_DEFAULT:
            default = f.default
        elif f.kind in _NONE_DEFAULT or (row.fusable and f.is_tensor):
            default = None
        else:
            default = dataclasses.MISSING
        if default is dataclasses.MISSING:
            fields.append((f.name, typ))
        else:
            fields.append((f.name, typ, dataclasses.field(default=default)))
    op = OperatorType[row.name]
    namespace: dict[str, Any] = {"operator_type": op, "row": row, "__module__": "descriptors"}
    axes = [f.name for f in row.fields if f.kind is FieldKind.AXES]
    if axes:
        namespace["__post_init__"] = _axes_to_tuple(axes)
    cls = dataclasses.make_dataclass(
        row.class_name,
        fields,
        bases=(OperatorDesc,),
        namespace=namespace,
        frozen=True,
        slots=True,
    )
    cls.__doc__ = f"``{row.struct}``: {row.summary}." + (" (gpuops extension)" if row.extension else "")
    return cls


DESC_CLASSES: dict[OperatorType, type[OperatorDesc]] = {OperatorType[r.name]: _make_class(r) for r in ROWS}


def desc_class(operator_type: OperatorType | str) -> type[OperatorDesc]:
    """The descriptor dataclass of an operator type."""
    return DESC_CLASSES[OperatorType[row_of(operator_type).name]]
