"""Which type each operand is computed in: one rule for CUDA codegen and the NumPy backend.

API.md: float16 and bfloat16 arithmetic is done in float32 and rounded once, at the end.
Bit operators read the raw bits (DirectML: "data treated as raw bits"), as unsigned integers
of the same width. Logical operators read truth values in the operand's own type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .enums import DataType
from .schema import Domain, OpRow

__all__ = ["ComputePlan", "compute_plan", "plan_problem", "value_class", "UNSIGNED_OF_WIDTH"]

UNSIGNED_OF_WIDTH = {
    1: DataType.UINT8,
    2: DataType.UINT16,
    4: DataType.UINT32,
    8: DataType.UINT64,
}


def value_class(dt: DataType) -> str:
    """``"float"``, ``"sint"``, ``"uint"`` or ``"bool"``: the key of :class:`schema.Exprs`."""
    if dt.is_float:
        return "float"
    if dt.is_signed_integer:
        return "sint"
    if dt.is_unsigned_integer:
        return "uint"
    return "bool"


def _float_compute(dt: DataType) -> DataType:
    return DataType.FLOAT64 if dt is DataType.FLOAT64 else DataType.FLOAT32


@dataclasses.dataclass(frozen=True, slots=True)
class ComputePlan:
    """How one (operator, data types) pair computes.

    value_class: which expression of the row applies.
    inputs: role -> type the operand is converted to before the expression.
    compute: the expression's type ``T``.
    out_compute: the type the result is produced in before the final store; differs from
        the output's type only for float16/bfloat16 (computed in float32) and for bit ops.
    """

    value_class: str
    inputs: Mapping[str, DataType]
    compute: DataType
    output: DataType
    out_compute: DataType


def compute_plan(row: OpRow, dtypes: Mapping[str, DataType], has_scale_bias: bool = False) -> ComputePlan:
    """The plan for ``row`` with tensor data types ``dtypes`` (role -> DataType)."""
    in_roles = [f.name for f in row.input_fields if f.name in dtypes]
    out_role = row.output_fields[0].name
    primary = dtypes[row.primary_role]
    out = dtypes[out_role]
    if row.domain is Domain.BITS:
        inputs = {r: UNSIGNED_OF_WIDTH[dtypes[r].itemsize] for r in in_roles}
        compute = inputs[row.primary_role]
        return ComputePlan("uint", inputs, compute, out, UNSIGNED_OF_WIDTH[out.itemsize])
    if row.domain is Domain.LOGICAL:
        return ComputePlan(value_class(primary), {r: dtypes[r] for r in in_roles}, primary, out, out)
    cls = value_class(primary)
    if cls == "float":
        compute = _float_compute(primary)
        inputs = dict.fromkeys(in_roles, compute)
    else:
        compute = primary
        inputs = {r: dtypes[r] for r in in_roles}
    half = out in (DataType.FLOAT16, DataType.BFLOAT16) and not getattr(row, "converts", False)
    out_compute = _float_compute(out) if half else out
    return ComputePlan(cls, inputs, compute, out, out_compute)


def plan_problem(row: OpRow, dtypes: Mapping[str, DataType], has_scale_bias: bool) -> tuple[str, str] | None:
    """A (field, reason) when gpuops defines no computation for these types, else None.

    ScaleBias is FLOAT and not supported for 64-bit types (DirectML PR #275); on integer
    inputs DirectML leaves the rounding of the scaled value undefined, so gpuops rejects it.
    An integer input computes exactly in integers, so every other input must be integer too.
    """
    in_roles = [f.name for f in row.input_fields if f.name in dtypes]
    primary_role = row.primary_role
    primary = dtypes[primary_role]
    if has_scale_bias and (primary.itemsize == 8 and not primary.is_float or primary is DataType.FLOAT64):
        return "scale_bias", f"is not supported for 64-bit types ({primary_role} is {primary.name}; DirectML PR #275)"
    if has_scale_bias and not primary.is_float:
        return "scale_bias", f"is not defined on an integer {primary_role} ({primary.name})"
    if row.domain is Domain.ARITH and not primary.is_float and not getattr(row, "converts", False):
        for r in (r for r in in_roles if r != primary_role):
            if dtypes[r].is_float:
                return (
                    f"{r}.data_type",
                    f"is {dtypes[r].name}; a float {r} with an integer {primary_role} ({primary.name}) is not defined; "
                    "use an integer type",
                )
    rule = getattr(row, "type_rule", None)
    return rule(dtypes) if rule is not None else None
