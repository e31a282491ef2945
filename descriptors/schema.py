"""The vocabulary of the op table: fields, capability tiers, expression sets and the row types.

Kept apart from the rows themselves (``ops/<family>.py``, gathered in ``optable.py``) so that the row
lists read as tables. Two row types: :class:`ElementwiseRow` (DirectML's element-wise and
activation operators, and the backward ones) and :class:`ReductionRow` (DML_REDUCE, ARGMAX,
ARGMIN), both :class:`Row`; :class:`Family` groups rows the way the tests and the CLI do.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any

from .accuracy import Accuracy
from .enums import DataType, FeatureLevel
from .ops.reduce_numpy import UfuncReduce

__all__ = [
    "ALL_INT",
    "CompositeRow",
    "NO_DEFAULT",
    "NumpyImpl",
    "Accuracy",
    "Domain",
    "ElementwiseRow",
    "Exprs",
    "Family",
    "Field",
    "FieldKind",
    "OpRow",
    "ParamRule",
    "Reduction",
    "ReductionRow",
    "Row",
    "ScanRow",
    "Tier",
    "UfuncReduce",
    "default_operands",
    "types",
]

_ABBREV = {
    "F32": DataType.FLOAT32,
    "F16": DataType.FLOAT16,
    "F64": DataType.FLOAT64,
    "BF16": DataType.BFLOAT16,
    "I64": DataType.INT64,
    "I32": DataType.INT32,
    "I16": DataType.INT16,
    "I8": DataType.INT8,
    "U64": DataType.UINT64,
    "U32": DataType.UINT32,
    "U16": DataType.UINT16,
    "U8": DataType.UINT8,
    "BOOL": DataType.BOOL,
}
ALL_INT = "I64 I32 I16 I8 U64 U32 U16 U8"


def types(spec: str) -> frozenset[DataType]:
    """``types("F32 F16 all-int")``: the DirectML docs' abbreviations, as a set."""
    spec = spec.replace("all-int", ALL_INT)
    return frozenset(_ABBREV[t] for t in spec.split())


class FieldKind(enum.Enum):
    INPUT_TENSOR = "input tensor"
    OPTIONAL_INPUT_TENSOR = "optional input tensor"
    OUTPUT_TENSOR = "output tensor"
    SCALE_BIAS = "scale bias"
    FLOAT = "FLOAT parameter"  # a kernel argument (float32), never a literal in the source
    ENUM = "enum parameter"  # a kernel argument (int32)
    SCALAR = "DML_SCALAR_UNION parameter"  # a kernel argument typed by the output tensor's DataType
    DATA_TYPE = "data type parameter"
    FUSED_ACTIVATION = "fused activation"
    SELECTOR = "enum selecting the computation"  # REDUCE Function, ARGMAX AxisDirection: part of the kernel
    AXES = "axes list"  # UINT AxisCount + const UINT* Axes, as a tuple of ints
    BOOL = "BOOL parameter"  # a C BOOL (MEAN_VARIANCE_NORMALIZATION1's NormalizeVariance): True or False
    AXIS = "axis"  # one UINT Axis (CUMULATIVE_SUMMATION's): an int below the input's DimensionCount


NO_DEFAULT = object()


def default_operands(count: int) -> tuple[str, ...]:
    """The names a row's expressions give its ``count`` inputs (in input-field order) unless the row names them
    itself (``ElementwiseRow.operands``): ``x``, ``y``, ``z``, then ``x3``, ``x4``, ... for any further one."""
    return tuple(("x", "y", "z")[k] if k < 3 else f"x{k}" for k in range(count))


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """One field of an operator descriptor, in DirectML's order, named in snake_case.

    Tensors and ScaleBias are positional in the dataclass (DirectML's struct order);
    parameters are keyword-only, with DirectML's (or DirectMLX's) default where one exists.
    ``enum_type`` is the enum of an ENUM field; ``extension`` marks a field DirectML's struct
    does not have (such as ``fused_activation`` on binary operators other than ADD1).
    """

    name: str
    kind: FieldKind
    default: object = NO_DEFAULT
    enum_type: type[enum.Enum] | None = None
    extension: bool = False

    @property
    def enum_class(self) -> type[enum.Enum]:
        """``enum_type``, for an ENUM field; TypeError for a field without one."""
        if self.enum_type is None:
            raise TypeError(f"field {self.name} ({self.kind.name}) has no enum type")
        return self.enum_type

    @property
    def is_param(self) -> bool:
        """A value passed to the kernel as an argument (FLOAT, ENUM or SCALAR)."""
        return self.kind in (FieldKind.FLOAT, FieldKind.ENUM, FieldKind.SCALAR)

    @property
    def kernel_name(self) -> str:
        """The kernel argument name of a parameter: ``alpha`` -> ``p_alpha`` (``min`` must not shadow min())."""
        return f"p_{self.name}"

    @property
    def is_tensor(self) -> bool:
        return self.kind in (FieldKind.INPUT_TENSOR, FieldKind.OPTIONAL_INPUT_TENSOR, FieldKind.OUTPUT_TENSOR)

    @property
    def is_input(self) -> bool:
        return self.kind in (FieldKind.INPUT_TENSOR, FieldKind.OPTIONAL_INPUT_TENSOR)

    @property
    def is_output(self) -> bool:
        return self.kind is FieldKind.OUTPUT_TENSOR


@dataclasses.dataclass(frozen=True, slots=True)
class Tier:
    """One "DML_FEATURE_LEVEL_X_Y and above" tensor-support table of an operator's doc page.

    ``types`` maps each tensor role to its data types; ``same_type`` lists groups of roles
    that must share one DataType at this level; ``source`` says where the row was read; ``optional`` names
    the optional input tensors that may be absent at this level (DirectML's "Optional input" kind; a field
    of kind OPTIONAL_INPUT_TENSOR is required at the levels whose table does not say so).
    """

    since: FeatureLevel
    dims: tuple[int, int]
    types: Mapping[str, frozenset[DataType]]
    same_type: tuple[tuple[str, ...], ...]
    source: str
    optional: tuple[str, ...] = ()

    def allows_dims(self, count: int) -> bool:
        return self.dims[0] <= count <= self.dims[1]


class Domain(enum.Enum):
    """How an operator reads its inputs (which decides the compute type).

    ARITH: numbers; float16/bfloat16 are computed in float32 and rounded once at the end.
    BITS: raw bit patterns; every type is read as the unsigned integer of its width.
    LOGICAL: truth values; any nonzero input is true.
    """

    ARITH = "arith"
    BITS = "bits"
    LOGICAL = "logical"


NumpyImpl = Callable[..., object]


@dataclasses.dataclass(frozen=True, slots=True)
class Exprs:
    """Per-class expressions of one operator, for CUDA (source text) and NumPy (callables).

    Keys are value classes: ``"float"``, ``"int"`` (signed and unsigned), ``"sint"``,
    ``"uint"``, ``"bool"`` or ``"any"``; the most specific key wins.

    CUDA expressions read the compute-typed operands by the row's operand names
    (``ElementwiseRow.operand_names``: ``x``, ``y``, ``z``, ... by default) and may use the types
    ``T`` (compute type) and ``U`` (unsigned type of at least 32 bits for wrapping integer
    arithmetic); an absent optional input reads as ``T(0)``. NumPy callables are called
    ``f(x, y, ..., out=out)`` with one positional argument per input field (None for an absent
    optional one) and write into ``out``; when ``numpy_single_ufunc`` holds the class (a single
    ufunc), ``out`` may alias ``x`` or ``y``, otherwise the backend guarantees it does not.
    """

    cuda: Mapping[str, str]
    numpy: Mapping[str, NumpyImpl]
    numpy_single_ufunc: frozenset[str] = frozenset()

    def pick(self, table: Mapping[str, object], cls: str) -> object:
        for key in _FALLBACK[cls]:
            if key in table:
                return table[key]
        raise KeyError(cls)

    def cuda_for(self, cls: str) -> str:
        return self.pick(self.cuda, cls)  # type: ignore[return-value]

    def numpy_for(self, cls: str) -> NumpyImpl:
        return self.pick(self.numpy, cls)  # type: ignore[return-value]

    def is_single_ufunc(self, cls: str) -> bool:
        return any(k in self.numpy_single_ufunc for k in _FALLBACK[cls] if k in self.numpy)


_FALLBACK = {
    "float": ("float", "any"),
    "sint": ("sint", "int", "any"),
    "uint": ("uint", "int", "any"),
    "bool": ("bool", "any"),
}


@dataclasses.dataclass(frozen=True, slots=True)
class ParamRule:
    """A constraint on one parameter: ``check(value)`` must hold, below ``relaxed_at`` if given.

    Example: ACTIVATION_SOFTPLUS ``steepness >= 1`` until FL 6_4 (reference section 3).
    """

    field: str
    check: Callable[[Any], bool]
    requirement: str
    relaxed_at: FeatureLevel | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Reduction:
    """One reduction as the parts of a CuPy ``ReductionKernel``, plus its NumPy form.

    Every CUDA string is keyed by value class like :class:`Exprs` (``"float"``, ``"sint"``,
    ``"uint"``, ``"int"``, ``"any"``). ``accumulator`` is the ``reduce_type`` (``T`` is the
    compute type: float32 for float16/bfloat16, never the 16-bit type itself); ``map`` turns
    the compute-typed input ``x`` (and ``_J``, its row-major index over the reduced axes) into
    an accumulator value; ``reduce`` combines ``a`` and ``b``; ``identity`` is the empty
    reduction; ``post`` turns the final ``a`` into the result (``gpuops_n`` is the number of
    reduced elements). ``numpy(x, axes, n)`` computes the same from the compute-typed input
    and returns the result in the accumulator's NumPy type, keeping the reduced axes as 1.
    ``error`` is the stated float bound ``(kind, c)``, with ``n`` the reduced count and ``u``
    the accumulator's unit roundoff (2**-24 for float32, which float16 and bfloat16 use):
    ``"exact"``; ``"sum"``: |err| <= c*n*u*sum|map(x)|; ``"mean"``: |err| <= c*u*(sum|x| +
    |result|) (the sum's bound over n, plus the division); ``"relative"``: |err| <=
    c*n*u*|result|; ``"log"``: |err| <= c*(n*u*sum|x|/|sum x| + 2*u*|result|) (the sum's
    relative error, plus log's own); ``"lse"``: |err| <= c*(n+8)*u*max(1, |result|). Each
    plus half an ulp of the output type (one for float16/bfloat16) for the final rounding.
    ``helpers`` names the CUDA helpers the parts call (``cuda_helpers``); ``numpy_ufunc``, where
    the function is one ufunc reduction (SUM, MULTIPLY, MAX, MIN), lets the NumPy backend reduce
    straight into an output of the accumulator's type.
    """

    summary: str
    accumulator: Mapping[str, str]
    map: Mapping[str, str]
    reduce: Mapping[str, str]
    identity: Mapping[str, str]
    post: Mapping[str, str]
    numpy: Callable[..., Any]
    error: tuple[str, float] = ("exact", 0.0)
    helpers: tuple[str, ...] = ()
    numpy_ufunc: UfuncReduce | None = None

    def cuda(self, part: str, cls: str) -> str:
        """The CUDA string of ``part`` (``"map"``, ``"reduce"``, ...) for value class ``cls``."""
        table: Mapping[str, str] = getattr(self, part)
        for key in _FALLBACK[cls]:
            if key in table:
                return table[key]
        raise KeyError(f"{part} has no expression for {cls!r}")


class Family(str, enum.Enum):
    """What kind of operator a row is; the generated tests and the CLI's short names group by it.

    BINARY: A and B in, one output (``ops/binary.py``; tested as ``ref(a, b)``). UNARY: one data input, optional
    ScaleBias (``ops/unary.py``), and the quantization rows there whose other inputs are scales and zero points
    (QUANTIZED_LINEAR_ADD reads two quantized inputs and six of those: its tests take inputs as a list).
    SELECT: ELEMENT_WISE_IF. ACTIVATION: DML_OPERATOR_ACTIVATION_* and the oneDNN forward extensions. GRAD: a
    gradient from an input and an incoming gradient (DirectML's *_GRAD operators and oneDNN's eltwise backward,
    ``ops/backward.py``). REDUCE: reductions. COMPOSITE: an operator computed as a small plan of the others
    (softmax, mean-variance normalization, ``ops/composite.py``).
    SCAN: a running tally along one axis (CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT, ``ops/scan.py``).
    A ``str`` enum, so ``row.family == "binary"`` reads as before.
    """

    BINARY = "binary"
    UNARY = "unary"
    SELECT = "select"
    ACTIVATION = "activation"
    GRAD = "grad"
    REDUCE = "reduce"
    COMPOSITE = "composite"
    SCAN = "scan"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """What every operator row states, whatever it computes.

    name: DirectML ``DML_OPERATOR_TYPE`` name without the prefix.
    struct: DirectML's descriptor struct name (the dataclass name derives from it).
    fields: the descriptor's fields in DirectML order.
    family: see :class:`Family`.
    domain: how the inputs are read (decides the compute type, see :class:`Domain`).
    tiers: tensor-support tables per feature level (newest last is not required).
    summary: the formula, as the docs state it.
    in_place: DirectML's "supports in-place execution".
    extension_types: gpuops extensions per role, accepted at every level the op exists.
    extension: the operator itself is not DirectML's.
    primary: the input whose data type decides the compute type (default: the first input).
    param_rules: constraints on parameter values (see :class:`ParamRule`).
    """

    name: str
    struct: str
    fields: tuple[Field, ...]
    family: Family
    domain: Domain
    tiers: tuple[Tier, ...]
    summary: str
    in_place: bool
    extension_types: Mapping[str, frozenset[DataType]] = dataclasses.field(default_factory=dict)
    extension: bool = False
    notes: str = ""
    primary: str = ""
    param_rules: tuple[ParamRule, ...] = ()

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name!r}")

    @property
    def is_reduction(self) -> bool:
        return False

    @property
    def is_composite(self) -> bool:
        return False

    @property
    def is_scan(self) -> bool:
        return False

    @property
    def primary_role(self) -> str:
        return self.primary or self.input_fields[0].name

    @property
    def param_fields(self) -> tuple[Field, ...]:
        """Fields passed to the kernel as arguments, in field order."""
        return tuple(f for f in self.fields if f.is_param)

    @property
    def fused_field(self) -> Field | None:
        return next((f for f in self.fields if f.kind is FieldKind.FUSED_ACTIVATION), None)

    @property
    def introduced(self) -> FeatureLevel:
        return min(t.since for t in self.tiers)

    @property
    def variants(self) -> tuple[str, ...]:
        """Selector values with their own tiers (REDUCE's functions), else ``()``."""
        return ()

    def tiers_for(self, variant: str | None = None) -> tuple[Tier, ...]:
        """The tiers of ``variant`` where it has its own (:class:`ReductionRow`), else the row's."""
        return self.tiers

    def introduced_for(self, variant: str | None = None) -> FeatureLevel:
        return min(t.since for t in self.tiers_for(variant))

    def extension_types_for(self, variant: str | None = None) -> Mapping[str, frozenset[DataType]]:
        return self.extension_types

    def tier_at(self, level: FeatureLevel, variant: str | None = None) -> Tier | None:
        """The newest tier at or below ``level`` (of ``variant``'s tables), or None before it exists."""
        eligible = [t for t in self.tiers_for(variant) if t.since <= level]
        return max(eligible, key=lambda t: t.since) if eligible else None

    def variant_of(self, desc: object) -> str | None:
        """The selector value of a descriptor of this row, by name (None without a selector)."""
        return None

    @property
    def tensor_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.is_tensor)

    @property
    def input_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.is_input)

    @property
    def output_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.is_output)

    @property
    def has_scale_bias(self) -> bool:
        return any(f.kind is FieldKind.SCALE_BIAS for f in self.fields)

    @property
    def class_name(self) -> str:
        """``DML_ELEMENT_WISE_ADD_OPERATOR_DESC`` -> ``ElementWiseAddOperatorDesc``."""
        core = self.struct.removeprefix("DML_").removesuffix("_DESC")
        return "".join(part.capitalize() for part in core.split("_")) + "Desc"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ElementwiseRow(Row):
    """An operator computed element by element: one expression per value class (:class:`Exprs`).

    exprs: how it computes, CUDA source and NumPy callables.
    helpers: the CUDA helpers its expressions call, by name (its family module declares them;
        ``optable.HELPERS`` resolves them, dependencies first).
    fusable: DirectML accepts this activation as a ``FusedActivation``.
    accuracy: the stated float32 error bound (:class:`accuracy.Accuracy`); None: exact or one
        correctly rounded IEEE operation.
    grad: the ``ELTWISE_*_GRAD`` row (oneDNN's eltwise backward, ds from the forward's input s
        and dd) of this forward operator; ``grad_use_dst``: the one that reads the forward's
        output instead (oneDNN's ``*_use_dst_for_bwd``). "" where there is none. DirectML's own
        backward operators (ACTIVATION_RELU_GRAD, ELEMENT_WISE_CLIP_GRAD) are rows of their own.
    converts: the expression produces the output type's value itself (CAST): its CUDA form may name the
        output type ``O``, its NumPy form writes the output's own type, and a float16/bfloat16 output gets
        no float32 intermediate from the backends (``compute.ComputePlan.out_compute`` is the output type).
    type_rule: a constraint between tensor data types that the per-role tables cannot say (QUANTIZE_LINEAR:
        the scale has the input's type unless the input is INT32): ``(field, reason)`` when broken, else None.
    reads_index: the expressions read the element's logical index (FILL_VALUE_SEQUENCE): the row-major index of
        the element over the output's sizes, whatever its strides. CUDA forms read it as ``gpuops_index`` (a
        ``long long``), bound from the kernel's ``i`` (CuPy's element index; the flat and rows kernels declare
        one); NumPy forms get it as the keyword ``index`` (an int64 array shaped like ``out``). The GPU plans
        a fast kernel only where its loop runs in logical order, and graphs never fuse the row.
    operands: the names the CUDA expressions give the inputs, one per input field in field order (a row with
        many inputs names them by role: QUANTIZED_LINEAR_ADD's ``qa``, ``sa``, ``za``, ...); empty: the
        default names (:func:`default_operands`). ``optable`` checks them against the kernel's own names.
    """

    exprs: Exprs
    helpers: tuple[str, ...] = ()
    fusable: bool = False
    accuracy: Accuracy | None = None
    grad: str = ""
    grad_use_dst: str = ""
    converts: bool = False
    type_rule: Callable[[Mapping[str, DataType]], tuple[str, str] | None] | None = None
    reads_index: bool = False
    operands: tuple[str, ...] = ()

    @property
    def operand_names(self) -> tuple[str, ...]:
        """The expressions' name of each input, in input-field order (``operands``, else the defaults)."""
        return self.operands or default_operands(len(self.input_fields))

    def operand_of(self, role: str) -> str:
        """The expressions' name of input ``role``."""
        return self.operand_names[self.input_fields.index(self.field(role))]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ReductionRow(Row):
    """An operator reducing over axes, its computation picked by a SELECTOR field.

    selector: the SELECTOR field whose value picks the computation (REDUCE: ``function``,
        ARGMAX/ARGMIN: ``axis_direction``).
    reductions: the computation per selector value (:class:`Reduction`).
    variant_tiers: tiers per selector value, where those differ (REDUCE's per-function tables).
    variant_extension_types: extension types per selector value and role.
    """

    selector: str
    reductions: Mapping[str, Reduction]
    variant_tiers: Mapping[str, tuple[Tier, ...]] = dataclasses.field(default_factory=dict)
    variant_extension_types: Mapping[str, Mapping[str, frozenset[DataType]]] = dataclasses.field(default_factory=dict)

    @property
    def is_reduction(self) -> bool:
        return True

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(self.variant_tiers)

    def tiers_for(self, variant: str | None = None) -> tuple[Tier, ...]:
        if variant is not None and self.variant_tiers:
            try:
                return self.variant_tiers[variant]
            except KeyError:
                raise KeyError(f"{self.name} has no {self.selector} {variant!r}") from None
        return self.tiers

    def extension_types_for(self, variant: str | None = None) -> Mapping[str, frozenset[DataType]]:
        if variant is not None and variant in self.variant_extension_types:
            return self.variant_extension_types[variant]
        return self.extension_types

    def variant_of(self, desc: object) -> str:
        v = getattr(desc, self.selector)
        return str(self.field(self.selector).enum_class(v).name)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CompositeRow(Row):
    """An operator computed as a small plan of other rows' operators: reductions and the element-wise passes
    between them (DirectML's softmax family, MEAN_VARIANCE_NORMALIZATION1). The plan is the row's CUDA and NumPy
    form at once: every backend runs it, fusing element-wise parts into the reductions as graphs do.

    decompose: the descriptor -> its parts (``descriptors.composite.Part``), in run order; the last part writes
        the output tensor.
    shape_rule: checks beyond "every tensor has the input's sizes" (axes in range, the effective rank of the
        FL 1_0 softmax forms, broadcastable ScaleTensor): ``(field, reason)`` when broken, else None.
    error_bound: the stated error bound, in words (``tests/ops/test_composite_generated.bound`` holds it).
    """

    decompose: Callable[[Any], tuple[Any, ...]]
    shape_rule: Callable[[Any, FeatureLevel], tuple[str, str] | None] | None = None
    error_bound: str = ""

    @property
    def is_composite(self) -> bool:
        return True


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ScanRow(Row):
    """A running tally along one axis (DirectML's CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT): output[j] is the
    combination of input[k] for k <= j (AxisDirection INCREASING) or k >= j (DECREASING), k < j (k > j) where the
    ``exclusive`` field holds, the first element in the direction being the identity.

    combine: the CUDA form of one step per value class (``"float"``, ``"int"``, ...: :class:`Exprs`' keys), over
        the running value ``a`` and the element ``b``, both of the accumulator type ``A``: float32 for FLOAT32,
        FLOAT16 and BFLOAT16 (each output rounded once from the float32 running value), float64 for FLOAT64, and
        for integers the unsigned type of at least 32 bits of the data type's width, so that sums and products
        wrap modulo 2^bits (the output keeps the low bits).
    identity: the running value before the first element (``"0"``, ``"1"``), a C integer literal.
    numpy: ``accumulate(x, axis, dtype=..., out=...)``, NumPy's sequential ufunc accumulation (``np.add``'s,
        ``np.multiply``'s), run in the accumulator type.
    exclusive: the BOOL field saying the current element is left out (``has_exclusive_sum``).
    error_bound: the stated float bound, in words: the k-th output (in the direction) of a sum is within
        (k-1)·u·Σ|x| of the exact sum (sequential accumulation, u the accumulator's unit roundoff), a product's
        within (k-1)·u·|result| to first order, plus the final rounding into a 16-bit float.
    """

    combine: Mapping[str, str]
    identity: str
    numpy: Any
    exclusive: str
    error_bound: str = ""

    @property
    def is_scan(self) -> bool:
        return True

    def combine_for(self, cls: str) -> str:
        for key in _FALLBACK[cls]:
            if key in self.combine:
                return self.combine[key]
        raise KeyError(f"{self.name} has no combine expression for {cls!r}")


OpRow = ElementwiseRow | ReductionRow | CompositeRow | ScanRow
"""Any row of the op table (``optable.ROWS``)."""
