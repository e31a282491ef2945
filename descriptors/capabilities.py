"""Per-operator capability tables by feature level (what DirectML's doc pages tabulate).

DirectML cannot answer "which types does this operator take at this level" at run time
(only ``DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT`` per device); gpuops answers it from the op
table, including its extensions, which are flagged as such.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from .enums import DataType, FeatureLevel
from .errors import DescriptorError
from .optable import OperatorType, row_of
from .schema import OpRow, ReductionRow

__all__ = ["OperatorSupport", "TensorSupport", "operator_support"]


@dataclasses.dataclass(frozen=True, slots=True)
class TensorSupport:
    """One tensor role's row of a "Tensor support" table."""

    name: str
    kind: str  # "input" or "output"
    dimension_counts: tuple[int, ...]
    data_types: tuple[DataType, ...]
    extension_data_types: tuple[DataType, ...]

    @property
    def all_data_types(self) -> tuple[DataType, ...]:
        return self.data_types + self.extension_data_types

    def to_dict(self) -> dict[str, Any]:
        return {
            "tensor": self.name,
            "kind": self.kind,
            "dimension_counts": [min(self.dimension_counts), max(self.dimension_counts)]
            if self.dimension_counts
            else [],
            "data_types": [d.name for d in self.data_types],
            "extension_data_types": [d.name for d in self.extension_data_types],
        }


@dataclasses.dataclass(frozen=True, slots=True)
class OperatorSupport:
    """What an operator accepts at one feature level. ``supported`` is False before it exists."""

    operator_type: OperatorType
    feature_level: FeatureLevel
    supported: bool
    introduced: FeatureLevel
    extension: bool
    in_place: bool
    tensors: tuple[TensorSupport, ...]
    same_type: tuple[tuple[str, ...], ...]
    source: str
    variant: str | None = None  # the selector value this table is for (REDUCE: the function)
    variants: tuple[OperatorSupport, ...] = ()  # without a variant: one table per selector value

    def tensor(self, name: str) -> TensorSupport:
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(f"{self.operator_type.name} has no tensor {name!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "operator": self.operator_type.name,
            "feature_level": self.feature_level.label,
            "supported": self.supported,
            "introduced": self.introduced.label,
            "extension": self.extension,
            "in_place": self.in_place,
            "same_data_type": [list(g) for g in self.same_type],
            "tensors": [t.to_dict() for t in self.tensors],
            "source": self.source,
            **({"variant": self.variant} if self.variant else {}),
            **({"variants": [v.to_dict() for v in self.variants]} if self.variants else {}),
        }


def _order(types: frozenset[DataType]) -> tuple[DataType, ...]:
    return tuple(sorted(types, key=DataType.doc_order))


def variant_name(row: OpRow, variant: object) -> str | None:
    """A selector value (``ReduceFunction.SUM``, ``"SUM"``, 10) as the name the row keys by."""
    if variant is None:
        return None
    if not isinstance(row, ReductionRow) or not row.variants:
        raise DescriptorError(f"{row.name} has one capability table; it takes no variant (got {variant!r})", "variant")
    enum_type = row.field(row.selector).enum_class
    try:
        if isinstance(variant, bool):  # an int, but never a selector value
            raise ValueError
        return enum_type[variant.upper()].name if isinstance(variant, str) else enum_type(variant).name
    except (KeyError, ValueError, TypeError):
        allowed = ", ".join(row.variants)
        raise DescriptorError(f"{row.name}: {row.selector} {variant!r} is not one of {allowed}", "variant") from None


def operator_support(
    operator_type: OperatorType | str,
    feature_level: FeatureLevel,
    *,
    extensions: bool = True,
    variant: object = None,
) -> OperatorSupport:
    """The capability-table row of ``operator_type`` at ``feature_level``.

    With ``extensions=False`` only DirectML's own tables are reported (an extension
    operator is then unsupported everywhere). ``variant`` picks one of an operator's
    per-selector tables: REDUCE's ``function`` (``ReduceFunction.SUM`` or ``"SUM"``);
    without it REDUCE reports what any function accepts.
    """
    row = row_of(operator_type)
    level = FeatureLevel.parse(feature_level)
    name = variant_name(row, variant)
    tier = row.tier_at(level, name)
    ext_types = row.extension_types_for(name)
    supported = tier is not None and (extensions or not row.extension)
    tensors: list[TensorSupport] = []
    if tier is not None and supported:
        dims = tuple(range(tier.dims[0], tier.dims[1] + 1))
        for f in row.tensor_fields:
            base = tier.types[f.name]
            ext = (ext_types.get(f.name, frozenset()) - base) if extensions else frozenset()
            tensors.append(TensorSupport(f.name, "output" if f.is_output else "input", dims, _order(base), _order(ext)))
    return OperatorSupport(
        operator_type=OperatorType[row.name],
        feature_level=level,
        supported=supported,
        introduced=row.introduced_for(name),
        extension=row.extension,
        in_place=row.in_place,
        tensors=tuple(tensors),
        same_type=tier.same_type if tier is not None else (),
        source=tier.source if tier is not None else "",
        variant=name,
        variants=tuple(
            operator_support(row.name, level, extensions=extensions, variant=v)
            for v in (row.variants if name is None else ())
        ),
    )


def dtype_combinations(
    operator_type: OperatorType | str,
    feature_level: FeatureLevel = FeatureLevel.FL_6_4,
    *,
    extensions: bool = True,
    variant: object = None,
) -> list[dict[str, DataType]]:
    """Every assignment of data types to the operator's tensors that validates at the level.

    This is the matrix the NVRTC check compiles and the generated tests run: one entry
    per (role -> DataType) mapping allowed by the tier, its same-type groups and the
    compute rules of ``descriptors.compute``. For an operator with per-selector tables
    (REDUCE) and no ``variant``, the union of every selector value's mappings.
    """
    row = row_of(operator_type)
    try:
        cached = _combinations(row.name, feature_level, bool(extensions), variant)
    except TypeError:  # an unhashable variant: nothing to key the cache by
        cached = _combinations.__wrapped__(row.name, feature_level, bool(extensions), variant)
    return [dict(c) for c in cached]  # copies: a caller may change what it gets


@functools.lru_cache(maxsize=4096)
def _combinations(
    name: str, feature_level: FeatureLevel, extensions: bool, variant: object
) -> tuple[tuple[tuple[str, DataType], ...], ...]:
    """``dtype_combinations``, computed once per operator, level and variant (GraphBuilder asks per node: the
    search takes milliseconds)."""
    import itertools

    from .compute import plan_problem

    row = row_of(name)
    if variant is None and row.variants:  # the union over the selector values, each by its own table
        merged: list[tuple[tuple[str, DataType], ...]] = []
        for v in row.variants:
            merged += _combinations(row.name, feature_level, extensions, v)
        return tuple(dict.fromkeys(merged))
    support = operator_support(row.name, feature_level, extensions=extensions, variant=variant)
    if not support.supported:
        return ()
    roles = [t.name for t in support.tensors]
    choices = [support.tensor(r).all_data_types for r in roles]
    out: list[tuple[tuple[str, DataType], ...]] = []
    for combo in itertools.product(*choices):
        dtypes = dict(zip(roles, combo, strict=True))
        if any(len({dtypes[r] for r in group}) > 1 for group in support.same_type):
            continue
        if plan_problem(row, dtypes, False) is not None:
            continue
        out.append(tuple(dtypes.items()))
    return tuple(out)
