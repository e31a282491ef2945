"""``validate(desc, feature_level)``: every check DirectML's CreateOperator makes, and ours.

Rules (docs/reference/directml.md sections 1.5, 1.7, 9): dimension counts and data types
per the operator's tier at the level in force; sizes >= 1; strides in elements, one per
dimension, 0 meaning broadcast (rejected on outputs: gpuops rule, writes would race, as is
any other output layout that maps two indices to one element); TotalTensorSizeInBytes >=
DMLCalcBufferTensorSize; alignment 0 or a power of two no smaller than the element;
at most 2**32 - 1 elements; identical DimensionCount and Sizes across the tensors of an
element-wise operator; the same DataType where the tier says so.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from .compute import plan_problem
from .descs import OperatorDesc, ScaleBias
from .enums import DataType, FeatureLevel, TensorFlags
from .errors import DescriptorError, count
from .float_range import float_problem, is_number, show_number, show_values
from .optable import row_of
from .schema import CompositeRow, ElementwiseRow, Field, FieldKind, OpRow, ReductionRow, Tier
from .tensor import TensorDesc, calc_buffer_tensor_size

__all__ = ["validate"]

UINT32_MAX = 2**32 - 1


def _names(values: object) -> str:
    return ", ".join(v.name if hasattr(v, "name") else str(v) for v in values)  # type: ignore[attr-defined]


def _a(noun: str) -> str:
    """``noun`` with its indefinite article ("an AxisDirection", "a ReduceFunction")."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


class _Checker:
    def __init__(self, desc: OperatorDesc, level: FeatureLevel, extensions: bool) -> None:
        self.desc = desc
        self.row: OpRow = desc.row
        self.level = level
        self.extensions = extensions
        self.where = f"{self.row.name} ({type(desc).__name__})"
        self.variant: str | None = None  # the selector value that picks the tiers (REDUCE: function)

    def fail(self, field: str, problem: str, hint: str = "") -> DescriptorError:
        msg = f"{self.where}: {field} {problem}"
        if hint:
            msg += f" ({hint})"
        return DescriptorError(msg, field)

    def lowest_level(self, accepts: Callable[[Tier], bool]) -> str:
        for level in FeatureLevel:
            if level <= self.level:
                continue
            tier = self.row.tier_at(level, self.variant)
            if tier is not None and accepts(tier):
                return f"needs {level.name} or later"
        return "not accepted at any feature level"

    def allowed_types(self, tier: Tier, role: str) -> frozenset[DataType]:
        allowed = tier.types[role]
        if self.extensions:
            allowed = allowed | self.extension_types(role)
        return allowed

    def extension_types(self, role: str) -> frozenset[DataType]:
        return self.row.extension_types_for(self.variant).get(role, frozenset())

    def tensor(self, tier: Tier, role: str, t: TensorDesc, is_output: bool) -> None:
        lo, hi = tier.dims
        n = t.dimension_count
        if not tier.allows_dims(n):
            raise self.fail(
                f"{role}.sizes",
                f"has {count(n, 'dimension')} (sizes {t.sizes}); {self.level.name} accepts {lo} to {hi}",
                self.lowest_level(lambda tr: tr.allows_dims(n)),
            )
        allowed = self.allowed_types(tier, role)
        if t.data_type not in allowed:
            ordered = sorted(allowed, key=DataType.doc_order)
            dml_ok = lambda tr: t.data_type in tr.types[role]  # noqa: E731
            hint = self.lowest_level(dml_ok)
            if not self.extensions and t.data_type in self.extension_types(role):
                hint = "a gpuops extension; this device has extensions turned off"
            raise self.fail(
                f"{role}.data_type",
                f"is {t.data_type.name}, not accepted at {self.level.name}; accepted: {_names(ordered)}",
                f"{t.data_type.name} {hint}" if not hint.startswith("a gpuops") else hint,
            )
        for i, s in enumerate(t.sizes):
            if s < 1 or s > UINT32_MAX:
                raise self.fail(
                    f"{role}.sizes", f"has size {s} in dimension {i} (sizes {t.sizes}); sizes must be 1 to 2**32-1"
                )
        elements = math.prod(t.sizes)
        if elements > UINT32_MAX:
            raise self.fail(
                f"{role}.sizes", f"holds {elements} elements (sizes {t.sizes}); at most 2**32-1 are allowed"
            )
        if t.strides is not None:
            if len(t.strides) != n:
                raise self.fail(
                    f"{role}.strides",
                    f"has {count(len(t.strides), 'stride')} for {count(n, 'dimension')} "
                    f"(strides {t.strides}, sizes {t.sizes})",
                )
            for i, st in enumerate(t.strides):
                if st < 0 or st > UINT32_MAX:
                    raise self.fail(
                        f"{role}.strides", f"has stride {st} in dimension {i}; strides are UINT, 0 to 2**32-1"
                    )
            if is_output:
                self.output_layout(role, t)
        needed = calc_buffer_tensor_size(t.data_type, t.sizes, t.strides)
        if t.total_tensor_size_in_bytes is None or t.total_tensor_size_in_bytes < needed:
            raise self.fail(
                f"{role}.total_tensor_size_in_bytes",
                f"is {t.total_tensor_size_in_bytes}; sizes {t.sizes} strides {t.strides} of {t.data_type.name} "
                f"need at least {needed} (DMLCalcBufferTensorSize)",
            )
        align = t.guaranteed_base_offset_alignment
        if align and (align & (align - 1) or align < t.data_type.itemsize):
            raise self.fail(
                f"{role}.guaranteed_base_offset_alignment",
                f"is {align}; it must be 0 or a power of two of at least the element size ({t.data_type.itemsize})",
            )
        if int(t.flags) & ~int(TensorFlags.OWNED_BY_DML):
            raise self.fail(f"{role}.flags", f"is {int(t.flags):#x}; allowed: NONE, OWNED_BY_DML")
        if is_output and t.flags & TensorFlags.OWNED_BY_DML:
            raise self.fail(f"{role}.flags", "is OWNED_BY_DML; the flag applies to input tensors only")

    def output_layout(self, role: str, t: TensorDesc) -> None:
        dims = sorted((st, s, i) for i, (s, st) in enumerate(zip(t.sizes, t.element_strides, strict=True)) if s > 1)
        reach = 1  # one past the largest index the dimensions already seen can reach (index 0 alone)
        for st, s, i in dims:
            if st == 0:
                raise self.fail(
                    f"{role}.strides",
                    f"has stride 0 in dimension {i} (strides {t.strides}); an output cannot broadcast",
                )
            if st < reach:
                raise self.fail(
                    f"{role}.strides",
                    f"{t.strides} with sizes {t.sizes} write some elements twice; output strides must not overlap",
                )
            reach = st * (s - 1) + reach

    def run(self) -> None:
        row, desc = self.row, self.desc
        if row.extension and not self.extensions:
            raise self.fail("operator_type", "is a gpuops extension; this device has extensions turned off")
        selector = row.selector if isinstance(row, ReductionRow) else ""
        if selector:
            self.selector(row.field(selector), getattr(desc, selector))
            self.variant = row.variant_of(desc) if row.variants else None
            if self.variant is not None:
                self.where = f"{row.name} {self.variant} ({type(self.desc).__name__})"
        tier = row.tier_at(self.level, self.variant)
        if tier is None:
            what = "operator_type" if self.variant is None else selector
            shown = "is not available" if self.variant is None else f"{self.variant} is not available"
            raise self.fail(
                what, f"{shown} at {self.level.name}", f"introduced at {row.introduced_for(self.variant).name}"
            )
        tensors: dict[str, TensorDesc] = {}
        for f in row.tensor_fields:
            t = getattr(desc, f.name)
            if t is None and not f.kind.name.startswith("OPTIONAL"):
                raise self.fail(f.name, "is required (got None)")
            if t is None and f.name not in tier.optional:
                since = [x.since for x in row.tiers_for(self.variant) if f.name in x.optional]
                hint = f"optional from {min(since).name} on" if since else "required at every level"
                raise self.fail(f.name, f"is required at {self.level.name} (got None; {hint})")
            if t is not None and not isinstance(t, TensorDesc):
                raise self.fail(f.name, f"must be a TensorDesc (got {type(t).__name__})")
            if t is not None:
                tensors[f.name] = t
        for f in row.tensor_fields:
            if f.name in tensors:
                self.tensor(tier, f.name, tensors[f.name], f.is_output)
        self.shapes(tensors)
        for group in tier.same_type:
            present = [r for r in group if r in tensors]
            first = present[0]
            for r in present[1:]:
                if tensors[r].data_type is not tensors[first].data_type:
                    raise self.fail(
                        f"{r}.data_type",
                        f"is {tensors[r].data_type.name} but {first} is {tensors[first].data_type.name}; "
                        f"{', '.join(present)} must share one DataType at {self.level.name}",
                        self.lowest_level(functools.partial(_apart, r, first)),
                    )
        self.params(row, desc, tensors, "")
        self.fused(desc, tensors)
        sb = getattr(desc, "scale_bias", None) if row.has_scale_bias else None
        if sb is not None and not isinstance(sb, ScaleBias):
            raise self.fail("scale_bias", f"must be a ScaleBias or None (got {type(sb).__name__})")
        problem = plan_problem(row, {r: t.data_type for r, t in tensors.items()}, sb is not None)
        if problem is not None:
            raise self.fail(problem[0], problem[1])

    def params(self, row: OpRow, desc: OperatorDesc, tensors: dict[str, TensorDesc], prefix: str) -> None:
        """FLOAT, ENUM, SCALAR and DATA_TYPE fields, then the row's parameter rules."""
        out_type = next((tensors[f.name].data_type for f in self.row.output_fields if f.name in tensors), None)
        for f in row.fields:
            v = getattr(desc, f.name)
            where = prefix + f.name
            if f.kind is FieldKind.FLOAT:  # a C float: float32
                problem = float_problem(v)
                if problem is not None:
                    raise self.fail(where, f"(FLOAT) {problem}")
            elif f.kind is FieldKind.ENUM:
                enum_type = f.enum_class
                try:
                    enum_type(v)
                except (ValueError, TypeError):
                    raise self.fail(
                        where,
                        f"must be {_a(enum_type.__name__)} (got {show_number(v)}); allowed: {_names(enum_type)}",
                    ) from None
            elif f.kind is FieldKind.DATA_TYPE:
                if not isinstance(v, DataType) or (out_type is not None and v is not out_type):
                    raise self.fail(
                        where,
                        f"must equal the output tensor's DataType ({getattr(out_type, 'name', out_type)}) "
                        f"(got {show_number(v)})",
                    )
            elif f.kind is FieldKind.SCALAR:
                self.scalar(where, v, out_type)
            elif f.kind is FieldKind.BOOL and not isinstance(v, bool | np.bool_):
                raise self.fail(where, f"(BOOL) must be True or False (got {show_number(v)})")
            elif f.kind is FieldKind.AXIS:
                self.axis(where, v, tensors)

        for rule in row.param_rules:
            v = getattr(desc, rule.field)
            if rule.relaxed_at is not None and self.level >= rule.relaxed_at:
                continue
            if not rule.check(v):
                hint = f"other values need {rule.relaxed_at.name} or later" if rule.relaxed_at is not None else ""
                raise self.fail(prefix + rule.field, f"is {v!r}; {row.name} requires {rule.requirement}", hint)

    def axis(self, where: str, v: object, tensors: dict[str, TensorDesc]) -> None:
        """A UINT Axis (CUMULATIVE_SUMMATION's): an integer below the first input's DimensionCount."""
        role = self.row.input_fields[0].name
        rank = tensors[role].dimension_count if role in tensors else 0
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
            raise self.fail(where, f"(UINT) must be an axis number, 0 to {rank - 1} (got {show_number(v)})")
        if not 0 <= int(v) < rank:
            raise self.fail(
                where, f"is {show_number(v)}; {role} has {count(rank, 'dimension')}, so the axis is 0 to {rank - 1}"
            )

    def selector(self, f: Field, v: object) -> None:
        """An enum that picks the computation (REDUCE's Function, ARGMAX's AxisDirection)."""
        enum_type = f.enum_class
        try:
            if isinstance(v, bool):  # bool is an int, but never a DirectML enum value
                raise TypeError
            enum_type(v)
        except (ValueError, TypeError):
            raise self.fail(
                f.name, f"must be {_a(enum_type.__name__)} (got {show_number(v)}); allowed: {_names(enum_type)}"
            ) from None

    def scalar(self, where: str, v: object, dt: DataType | None) -> None:
        """A DML_SCALAR_UNION value, read as ``dt``: an integer type needs an integer in range."""
        if not is_number(v):
            raise self.fail(where, f"must be a number (got {type(v).__name__} {v!r})")
        if dt is not None and dt.is_float:
            problem = float_problem(v, dt)
            if problem is not None:
                raise self.fail(where, f"(read as {dt.name}) {problem}")
        if dt is not None and not dt.is_float and dt is not DataType.BOOL:
            info = np.iinfo(dt.numpy_dtype)
            integral = isinstance(v, (int, np.integer)) or (
                isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer()
            )
            if not integral and getattr(v, "denominator", None) != 1:
                raise self.fail(where, f"must be an integer for {dt.name} (got {v!r})")
            if not info.min <= int(v) <= info.max:  # type: ignore[call-overload]
                raise self.fail(where, f"is {show_number(v)}, outside {dt.name} [{info.min}, {info.max}]")

    def fused(self, desc: OperatorDesc, tensors: dict[str, TensorDesc]) -> None:
        """DirectML's FusedActivation: a fusable activation with null tensors, float output only."""
        field = self.row.fused_field
        if field is None:
            return
        act = getattr(desc, field.name)
        if act is None:
            return
        if field.extension and not self.extensions:
            raise self.fail(field.name, "is a gpuops extension on this operator; this device has extensions turned off")
        from .optable import ELEMENTWISE_ROWS  # the fusable list comes from the table

        fusable = [r.name for r in ELEMENTWISE_ROWS if r.fusable]
        if not isinstance(act, OperatorDesc) or not (isinstance(act.row, ElementwiseRow) and act.row.fusable):
            got = act.row.name if isinstance(act, OperatorDesc) else type(act).__name__
            raise self.fail(field.name, f"is {got}; fusable activations: {', '.join(fusable)}")
        act_row = act.row
        if act_row.introduced > self.level:
            raise self.fail(
                field.name,
                f"{act_row.name} is not available at {self.level.name}",
                f"introduced at {act_row.introduced.name}",
            )
        for f in act_row.tensor_fields:
            if getattr(act, f.name) is not None:
                raise self.fail(f"{field.name}.{f.name}", "must be None in a fused activation (DirectML: NULL)")
        out = tensors[self.row.output_fields[0].name].data_type
        allowed = {DataType.FLOAT32, DataType.FLOAT16}
        if self.extensions:
            allowed |= {DataType.FLOAT64, DataType.BFLOAT16}
        if out not in allowed:
            raise self.fail(
                field.name,
                f"needs a float output tensor; output_tensor is {out.name} "
                f"(allowed: {_names(sorted(allowed, key=DataType.doc_order))})",
            )
        self.params(act_row, act, {}, f"{field.name}.")

    def reduce_shapes(self, tensors: dict[str, TensorDesc]) -> None:
        """DML_REDUCE / ARGMAX / ARGMIN: axes unique and in range; same rank; reduced sizes 1."""
        inp = tensors[self.row.input_fields[0].name]
        out_role = self.row.output_fields[0].name
        out = tensors[out_role]
        axes = self.desc.axes  # type: ignore[attr-defined]
        n = inp.dimension_count
        if not isinstance(axes, (tuple, list)) or any(
            isinstance(a, bool) or not isinstance(a, (int, np.integer)) for a in axes
        ):
            raise self.fail("axes", f"must be a sequence of axis numbers (UINT) (got {show_values(axes)})")
        if not axes:
            raise self.fail(
                "axes", f"is empty; list the axes to reduce, 0 to {n - 1} (all of them reduce to one element)"
            )
        given = tuple(int(a) for a in axes)
        bad = [a for a in given if not 0 <= a < n]
        if bad:
            raise self.fail(
                "axes",
                f"{show_values(given)} has {show_number(bad[0])}; input_tensor has {count(n, 'dimension')}, so axes "
                f"are 0 to {n - 1}",
            )
        if len(set(given)) != len(given):
            raise self.fail("axes", f"{show_values(given)} lists an axis twice; axes must be unique")
        if out.dimension_count != n:
            raise self.fail(
                f"{out_role}.sizes",
                f"has {count(out.dimension_count, 'dimension')} (sizes {out.sizes}); the output keeps the input's "
                f"{n} (reduced axes have size 1)",
            )
        reduced = {int(a) for a in axes}
        want = tuple(1 if i in reduced else s for i, s in enumerate(inp.sizes))
        if out.sizes != want:
            raise self.fail(
                f"{out_role}.sizes",
                f"is {out.sizes}; input sizes {inp.sizes} reduced over axes {tuple(sorted(reduced))} give {want}",
            )

    def shapes(self, tensors: dict[str, TensorDesc]) -> None:
        if self.row.is_reduction:
            self.reduce_shapes(tensors)
            return
        roles = list(tensors)
        if isinstance(self.row, CompositeRow):  # input and output alike; the row's rule checks the rest
            roles = [self.row.input_fields[0].name, self.row.output_fields[0].name]
        first = roles[0]
        ref = tensors[first]
        for r in roles[1:]:
            t = tensors[r]
            if t.dimension_count != ref.dimension_count or t.sizes != ref.sizes:
                raise self.fail(
                    f"{r}.sizes",
                    f"must equal {first}.sizes (got {t.sizes} vs {ref.sizes}); element-wise tensors share "
                    "DimensionCount and Sizes, broadcast with stride 0",
                )
        if isinstance(self.row, CompositeRow) and self.row.shape_rule is not None:
            problem = self.row.shape_rule(self.desc, self.level)
            if problem is not None:
                raise self.fail(*problem)


def _apart(role: str, other: str, tier: Tier) -> bool:
    """Whether ``tier`` lets ``role`` and ``other`` have different data types."""
    return all(role not in g for g in tier.same_type if other in g)


def validate(desc: OperatorDesc, feature_level: FeatureLevel, *, extensions: bool = True) -> None:
    """Raise :class:`DescriptorError` when ``desc`` is invalid at ``feature_level``.

    ``extensions=False`` holds the descriptor to DirectML's own tables only.
    """
    if not isinstance(desc, OperatorDesc):
        raise DescriptorError(f"validate: expected an operator descriptor (got {type(desc).__name__})", "")
    row_of(desc.operator_type)
    _Checker(desc, FeatureLevel.parse(feature_level, "validate"), extensions).run()
