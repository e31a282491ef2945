"""The op table, the capability tables, the descriptor classes and the tests must agree.

Adding an operator row without a reference, a descriptor class without a row, a tier
without types for a tensor, or an extension that is not flagged as one fails here. The
capability tiers are also checked against an independent transcription of
docs/reference/directml.md section 2.4 (DirectML's doc tables). Each grid of rows (x feature
levels) is one test that lists every mismatching point (tests/grid_check.py).
"""

from __future__ import annotations

import dataclasses
import itertools
import re

import dml_activation
import dml_composite
import dml_scan
import dml_unary
import test_composite_generated as composite_generated
import test_nary_generated as nary
import test_ops_generated as generated
import test_reduce_generated as reduce_generated
import test_scan_generated as scan_generated
from grid_check import check_grid
from opinfo import records
from reference_composite import REFERENCES as COMPOSITE_REFERENCES
from reference_reduce import REFERENCES as REDUCE_REFERENCES

import descriptors
from descriptors import (
    ROWS,
    DataType,
    FeatureLevel,
    OperatorType,
    desc_class,
    dtype_combinations,
    operator_support,
)
from descriptors.schema import ReductionRow

ROW_NAMES = [row.name for row in ROWS]
DML_TYPES = frozenset(d for d in DataType if d.name not in ("BFLOAT16", "BOOL"))

# DirectML's element-wise operators (directml.md 2.2): anything else in the table is an extension.
DML_ELEMENT_WISE = {
    "IDENTITY",
    "ABS",
    "ACOS",
    "ASIN",
    "ATAN",
    "COS",
    "SIN",
    "TAN",
    "ADD",
    "CEIL",
    "FLOOR",
    "CLIP",
    "DIVIDE",
    "EXP",
    "LOG",
    "LOGICAL_AND",
    "LOGICAL_OR",
    "LOGICAL_XOR",
    "LOGICAL_NOT",
    "LOGICAL_EQUALS",
    "LOGICAL_GREATER_THAN",
    "LOGICAL_LESS_THAN",
    "MAX",
    "MIN",
    "MEAN",
    "MULTIPLY",
    "POW",
    "CONSTANT_POW",
    "RECIP",
    "SQRT",
    "SUBTRACT",
    "THRESHOLD",
    "QUANTIZE_LINEAR",
    "DEQUANTIZE_LINEAR",
    "SIGN",
    "IS_NAN",
    "ERF",
    "SINH",
    "COSH",
    "TANH",
    "ASINH",
    "ACOSH",
    "ATANH",
    "IF",
    "ADD1",
    "BIT_SHIFT_LEFT",
    "BIT_SHIFT_RIGHT",
    "ROUND",
    "IS_INFINITY",
    "MODULUS_TRUNCATE",
    "MODULUS_FLOOR",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "BIT_NOT",
    "BIT_COUNT",
    "LOGICAL_GREATER_THAN_OR_EQUAL",
    "LOGICAL_LESS_THAN_OR_EQUAL",
    "ATAN_YX",
    "CLIP_GRAD",
    "DIFFERENCE_SQUARE",
    "QUANTIZED_LINEAR_ADD",
    "CLIP1",
    "CLIP_GRAD1",
    "NEGATE",
}
# DirectML's activations (directml.md 3).
DML_ACTIVATION = {
    "ELU",
    "HARDMAX",
    "HARD_SIGMOID",
    "IDENTITY",
    "LEAKY_RELU",
    "LINEAR",
    "LOG_SOFTMAX",
    "PARAMETERIZED_RELU",
    "PARAMETRIC_SOFTPLUS",
    "RELU",
    "SCALED_ELU",
    "SCALED_TANH",
    "SIGMOID",
    "SOFTMAX",
    "SOFTPLUS",
    "SOFTSIGN",
    "TANH",
    "THRESHOLDED_RELU",
    "SHRINK",
    "CELU",
    "RELU_GRAD",
    "GELU",
    "SOFTMAX1",
    "LOG_SOFTMAX1",
    "HARDMAX1",
    "SWISH",
    "HARD_SWISH",
}
DML_REDUCTIONS = {"REDUCE", "ARGMAX", "ARGMIN"}  # directml.md section 4; tables: dml_reduce.py
DML_OTHER = {"CAST", "FILL_VALUE_CONSTANT", "FILL_VALUE_SEQUENCE", "MEAN_VARIANCE_NORMALIZATION1"}  # directml.md 14
DML_OTHER |= set(dml_scan.FIELDS)  # directml.md 14: CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT
DML_OPERATORS = (
    {f"ELEMENT_WISE_{n}" for n in DML_ELEMENT_WISE}
    | {f"ACTIVATION_{n}" for n in DML_ACTIVATION}
    | DML_REDUCTIONS
    | DML_OTHER
)

# DirectML struct fields (directml.md 2.1), in order.
BINARY = ("ATensor", "BTensor", "OutputTensor")
UNARY_SB = ("InputTensor", "OutputTensor", "ScaleBias")
DML_FIELDS = {
    "ELEMENT_WISE_POW": ("InputTensor", "ExponentTensor", "OutputTensor", "ScaleBias"),
    "ELEMENT_WISE_ADD1": (*BINARY, "FusedActivation"),
    # directml.md 4; DirectML's "UINT AxisCount; const UINT* Axes" pair is one ``axes`` tuple.
    "REDUCE": ("Function", "InputTensor", "OutputTensor", "Axes"),
    "ARGMAX": ("InputTensor", "OutputTensor", "Axes", "AxisDirection"),
    "ARGMIN": ("InputTensor", "OutputTensor", "Axes", "AxisDirection"),
}

# directml.md 2.4, newest tier first: (level, (min dims, max dims), A/B types, output types or None = same,
# optionally {role: types} for roles with types of their own, such as IF's condition_tensor).
ALL10 = "F32 F16 I64 I32 I16 I8 U64 U32 U16 U8"
EIGHT = "F32 F16 I32 I16 I8 U32 U16 U8"
ADD_LIKE = [
    ("5_1", (1, 8), ALL10),
    ("4_1", (1, 8), "F32 F16 I64 I32 U64 U32"),
    ("3_0", (1, 8), "F32 F16 I32 U32"),
    ("2_1", (4, 5), "F32 F16 I32 U32"),
    ("1_0", (4, 5), "F32 F16"),
]
COMPARE = [
    ("4_1", (1, 8), ALL10, "U32 U8"),
    ("3_0", (1, 8), EIGHT, "U32 U8"),
    ("2_1", (4, 4), EIGHT, "U32 U8"),
    ("2_0", (4, 4), "F32 F16", "U32 U8"),
    ("1_0", (4, 4), "F32 F16", "U32"),
]
COMPARE_GE = [("4_1", (1, 8), ALL10, "U32 U8"), ("3_0", (1, 8), EIGHT, "U32 U8")]
LOGICAL = [("3_0", (1, 8), "U32 U8"), ("2_0", (4, 4), "U32 U8"), ("1_0", (4, 4), "U32")]
BITS = [("4_1", (1, 8), "F64 F32 F16 I64 I32 I16 I8 U64 U32 U16 U8"), ("3_0", (1, 8), "U32 U16 U8")]
SHIFT = [("4_1", (1, 8), "U64 U32 U16 U8"), ("3_0", (1, 8), "U32 U16 U8"), ("2_1", (4, 4), "U32 U16 U8")]
MODULUS = [("6_0", (1, 8), ALL10), ("3_0", (1, 8), EIGHT), ("2_1", (4, 4), EIGHT)]
DML_TABLES: dict[str, list[tuple]] = {
    "ELEMENT_WISE_ADD": ADD_LIKE,
    "ELEMENT_WISE_MULTIPLY": ADD_LIKE,
    "ELEMENT_WISE_SUBTRACT": [*ADD_LIKE[:3], ("2_1", (4, 4), "F32 F16 I32 U32"), ("1_0", (4, 4), "F32 F16")],
    "ELEMENT_WISE_DIVIDE": [
        ("6_0", (1, 8), ALL10),
        ("5_1", (1, 8), EIGHT),
        ("3_0", (1, 8), "F32 F16 I32 U32"),
        ("2_1", (4, 4), "F32 F16 I32 U32"),
        ("1_0", (4, 4), "F32 F16"),
    ],
    "ELEMENT_WISE_MAX": [
        ("5_0", (1, 8), ALL10),
        ("3_0", (1, 8), EIGHT),
        ("2_1", (4, 4), EIGHT),
        ("1_0", (4, 4), "F32 F16"),
    ],
    "ELEMENT_WISE_MEAN": [
        ("3_0", (1, 8), "F32 F16 I32 U32"),
        ("2_1", (4, 4), "F32 F16 I32 U32"),
        ("1_0", (4, 4), "F32 F16"),
    ],
    "ELEMENT_WISE_POW": [("3_0", (1, 8), EIGHT), ("1_0", (4, 4), "F32 F16")],
    "ELEMENT_WISE_LOGICAL_AND": LOGICAL,
    "ELEMENT_WISE_LOGICAL_OR": LOGICAL,
    "ELEMENT_WISE_LOGICAL_XOR": LOGICAL,
    "ELEMENT_WISE_LOGICAL_EQUALS": COMPARE,
    "ELEMENT_WISE_LOGICAL_GREATER_THAN": COMPARE,
    "ELEMENT_WISE_LOGICAL_LESS_THAN": COMPARE,
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL": COMPARE_GE,
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL": COMPARE_GE,
    "ELEMENT_WISE_BIT_AND": BITS,
    "ELEMENT_WISE_BIT_OR": BITS,
    "ELEMENT_WISE_BIT_XOR": BITS,
    "ELEMENT_WISE_BIT_SHIFT_LEFT": SHIFT,
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": SHIFT,
    "ELEMENT_WISE_MODULUS_TRUNCATE": MODULUS,
    "ELEMENT_WISE_MODULUS_FLOOR": MODULUS,
    "ELEMENT_WISE_ATAN_YX": [("3_1", (1, 8), "F32 F16")],
    "ELEMENT_WISE_DIFFERENCE_SQUARE": [("3_1", (1, 8), "F32 F16 I32 U32")],
    "ELEMENT_WISE_ADD1": [("3_0", (1, 8), "F32 F16"), ("2_0", (4, 5), "F32 F16")],
}
# The unary and activation families' transcriptions live in their own files.
for _family in (dml_unary, dml_activation, dml_composite, dml_scan):
    assert not set(_family.FIELDS) & set(DML_FIELDS) and not set(_family.TABLES) & set(DML_TABLES)
    DML_FIELDS.update(_family.FIELDS)
    DML_TABLES.update(_family.TABLES)
DML_TABLES["ELEMENT_WISE_MIN"] = DML_TABLES["ELEMENT_WISE_MAX"]
ABBREV = {
    "F64": "FLOAT64",
    "F32": "FLOAT32",
    "F16": "FLOAT16",
    "I64": "INT64",
    "I32": "INT32",
    "I16": "INT16",
    "I8": "INT8",
    "U64": "UINT64",
    "U32": "UINT32",
    "U16": "UINT16",
    "U8": "UINT8",
}
# Operators that only move or reinterpret bits may list FLOAT64 (directml.md 1.3, 9).
FLOAT64_OK = {"ELEMENT_WISE_BIT_AND", "ELEMENT_WISE_BIT_OR", "ELEMENT_WISE_BIT_XOR"} | dml_unary.FLOAT64_OK


def _names(spec: str) -> set[str]:
    return {ABBREV[s] for s in spec.split()}


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _class_name(struct: str) -> str:
    """API.md: DML_ELEMENT_WISE_ADD_OPERATOR_DESC -> ElementWiseAddOperatorDesc."""
    assert struct.startswith("DML_") and struct.endswith("_DESC"), struct
    return "".join(w.capitalize() for w in struct[4:-5].split("_")) + "Desc"


# --- rows, references, classes, enum members -------------------------------------------------


REFERENCES = {**records(), **REDUCE_REFERENCES, **COMPOSITE_REFERENCES, **scan_generated.REFERENCES}


def test_every_row_has_a_reference_and_back() -> None:
    """One OpInfo record per element-wise row (``opinfo.records`` refuses two), one reference per selector
    value for each reduction row, and nothing without a row."""
    assert not set(records()) & set(REDUCE_REFERENCES)
    for name, per_variant in REDUCE_REFERENCES.items():  # one reference per selector value
        assert set(per_variant) == set(descriptors.row_of(name).reductions), name
    for name, info in records().items():
        assert info.name == name and info.family is descriptors.row_of(name).family, name
    elementwise = {r.name for r in ROWS if r.family not in ("reduce", "composite", "scan")}
    assert set(COMPOSITE_REFERENCES) == {r.name for r in ROWS if r.is_composite}
    assert set(scan_generated.REFERENCES) == {r.name for r in ROWS if r.is_scan}
    assert set(records()) == elementwise, sorted(set(records()) ^ elementwise)
    assert set(ROW_NAMES) == set(REFERENCES), (
        f"rows without reference: {sorted(set(ROW_NAMES) - set(REFERENCES))}; "
        f"references without row: {sorted(set(REFERENCES) - set(ROW_NAMES))}"
    )


def test_operator_type_members_and_rows_agree() -> None:
    assert {m.name for m in OperatorType} == set(ROW_NAMES)
    assert len(ROW_NAMES) == len(set(ROW_NAMES))


def _at_level(point: tuple[str, FeatureLevel]) -> str:
    return f"{point[0]} at {point[1].name}"


def _check_descriptor_class(name: str) -> None:
    row = descriptors.row_of(name)
    struct = f"DML_{name}_OPERATOR_DESC"
    assert row.struct == struct
    cls = desc_class(OperatorType[name])
    assert cls is desc_class(name)
    assert cls.__name__ == _class_name(struct)
    assert getattr(descriptors, cls.__name__) is cls  # exported
    assert cls.operator_type is OperatorType[name]
    assert dataclasses.is_dataclass(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    assert fields == [f.name for f in row.fields]
    if name in DML_OPERATORS:
        dml_fields = [f.name for f in row.fields if not f.extension]  # extensions: gpuops' additions
        default = BINARY if row.family == "binary" else None
        assert dml_fields == [_snake(f) for f in DML_FIELDS.get(name, default)]
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_descriptor_class_of_every_row() -> None:
    """Each row's class: its struct's name, exported, a frozen dataclass with the row's fields (DirectML's, in order,
    for DirectML's operators). One test over every row (``every_row``: tests/ops/test_out_of_tree_ops.py selects it
    with rows added)."""
    check_grid(ROW_NAMES, _check_descriptor_class)


def _extension_type_ok(row: descriptors.schema.OpRow, dt: DataType) -> bool:
    """Extensions add BFLOAT16, BOOL and FLOAT64 math; reductions also add integer types
    (TensorRT's Reduce takes INT8; integer AVERAGE), which DirectML has for other functions; so do the scans
    (ONNX CumSum's INT32, OpenVINO's CumSum on any integer type; they wrap as DirectML's UINT32 does)."""
    return dt.is_extension or dt is DataType.FLOAT64 or ((row.is_reduction or row.is_scan) and dt.is_integer)


def _check_tiers(name: str, tiers: tuple, roles: set[str]) -> None:
    assert tiers
    assert len({t.since for t in tiers}) == len(tiers), "two tiers at one level"
    for tier in tiers:
        assert set(tier.types) == roles, (tier.since, set(tier.types) ^ roles)
        for role, types in tier.types.items():
            assert types, f"{name} tier {tier.since.name}: no types for {role}"
            assert types <= DML_TYPES, f"{name} tier {tier.since.name} lists extension types in DirectML's table"
        lo, hi = tier.dims
        assert 1 <= lo <= hi <= 8
        for group in tier.same_type:
            assert set(group) <= roles
        assert tier.source


def _check_row_tiers(name: str) -> None:
    row = descriptors.row_of(name)
    roles = {f.name for f in row.tensor_fields}
    assert row.tiers
    for tiers in (row.tiers, *(row.variant_tiers.values() if isinstance(row, ReductionRow) else ())):
        _check_tiers(name, tiers, roles)
    for role, types in row.extension_types.items():
        assert role in roles
        assert all(_extension_type_ok(row, t) for t in types), (role, types)


def test_tiers_of_every_row_are_complete() -> None:
    check_grid(ROW_NAMES, _check_row_tiers)


def _check_dtype_combinations(name: str) -> None:
    combos = dtype_combinations(name, FeatureLevel.FL_6_4)
    assert combos
    plain = dtype_combinations(name, FeatureLevel.FL_6_4, extensions=False)
    if name in DML_OPERATORS:
        assert plain
        for combo in plain:
            assert all(dt in DML_TYPES for dt in combo.values())
    else:
        assert plain == []


def test_dtype_combinations_of_every_row_non_empty() -> None:
    """Every row has data-type mappings at FL_6_4; DirectML's operators have DirectML-only ones, extensions none."""
    check_grid(ROW_NAMES, _check_dtype_combinations)


# --- extensions are flagged ------------------------------------------------------------------


def _check_extensions_flagged(point: tuple[str, FeatureLevel]) -> None:
    name, level = point
    is_ext_op = name not in DML_OPERATORS
    row = descriptors.row_of(name)
    assert row.extension == is_ext_op, f"row.extension: want {is_ext_op}"
    sup = operator_support(name, level)
    assert sup.extension == is_ext_op, f"operator_support(...).extension: want {is_ext_op}"
    plain = operator_support(name, level, extensions=False)
    if is_ext_op:
        assert not plain.supported, "an extension operator is supported with extensions=False"
    if not sup.supported:
        return
    for t in sup.tensors:
        assert not ({DataType.BFLOAT16, DataType.BOOL} & set(t.data_types)), (t.name, t.data_types)
        if name not in FLOAT64_OK:
            assert DataType.FLOAT64 not in t.data_types, f"FLOAT64 math is not DirectML's ({t.name})"
        assert not set(t.data_types) & set(t.extension_data_types)
        assert all(_extension_type_ok(row, d) for d in t.extension_data_types)
    if plain.supported:
        for t in plain.tensors:
            assert t.extension_data_types == (), f"{t.name}: extension types with extensions=False"
            assert t.data_types == sup.tensor(t.name).data_types, f"{t.name}: DirectML's types differ per extensions"


def test_extensions_flagged_on_every_row_at_every_level() -> None:
    """Every row at every feature level: an extension operator is flagged and absent without extensions; DirectML's
    tables list no extension type; the extension types are listed apart and absent without extensions."""
    check_grid(itertools.product(ROW_NAMES, FeatureLevel), _check_extensions_flagged, _at_level)


# --- capability tiers vs directml.md 2.4 --------------------------------------------------------


def test_every_dml_row_has_a_transcribed_table() -> None:
    assert {n for n in ROW_NAMES if n in DML_OPERATORS} - DML_REDUCTIONS == set(DML_TABLES)


def _check_capabilities(point: tuple[str, FeatureLevel]) -> None:
    name, level = point
    table = DML_TABLES[name]
    tier = next((t for t in table if FeatureLevel[f"FL_{t[0]}"] <= level), None)
    sup = operator_support(name, level, extensions=False)
    if tier is None:
        assert not sup.supported
        assert sup.introduced is FeatureLevel[f"FL_{table[-1][0]}"]
        return
    assert sup.supported
    (lo, hi), ab = tier[1], _names(tier[2])
    out = _names(tier[3]) if len(tier) > 3 and tier[3] else ab
    per_role = {r: _names(spec) for r, spec in tier[4].items()} if len(tier) > 4 else {}  # IF's ConditionTensor
    roles = [t.name for t in sup.tensors]
    for t in sup.tensors:
        assert t.dimension_counts == tuple(range(lo, hi + 1)), (t.name, t.dimension_counts)
        want = per_role.get(t.name, out if t.name == roles[-1] else ab)
        assert {d.name for d in t.data_types} == want, (t.name, level.name)


def test_capabilities_match_directml_tables() -> None:
    """Every transcribed table at every feature level: supported from its oldest tier, with that tier's dimension
    counts and data types per tensor (extensions off)."""
    check_grid(itertools.product(sorted(DML_TABLES), FeatureLevel), _check_capabilities, _at_level)


# --- the tests cover every row ------------------------------------------------------------------


def test_generated_matrix_covers_every_row() -> None:
    covered = {p.values[0] for p in generated.CASES} | {p.values[0] for p in nary.CASES}
    covered |= {p.values[0] for p in reduce_generated.CASES} | {p.values[0] for p in composite_generated.CASES}
    covered |= {p.values[0] for p in scan_generated.CASES}
    assert covered == set(ROW_NAMES)
    in_place_rows = {p.values[0] for p in generated.IN_PLACE_CASES} | {p.values[0] for p in nary.IN_PLACE_CASES}
    in_place_rows |= set(scan_generated.IN_PLACE_ROWS)
    assert in_place_rows == {r.name for r in ROWS if r.in_place}


def test_edge_table_covers_every_row() -> None:
    covered = {p.values[0] for p in generated.EDGE_PARAMS} | {p.values[0] for p in nary.EDGE_CASES}
    covered |= {case[0] for case in reduce_generated.EDGE_CASES} | {case[0] for case in composite_generated.EDGE_CASES}
    covered |= {case[0] for case in scan_generated.EDGE_CASES}
    assert covered == set(ROW_NAMES), sorted(set(ROW_NAMES) - covered)


# directml.md 2.3: "supports in-place execution" is stated for these (and not for comparisons,
# LOGICAL_XOR, IS_NAN, IS_INFINITY, BIT_COUNT, IF).
DML_IN_PLACE = (
    {
        "ADD",
        "SUBTRACT",
        "MULTIPLY",
        "DIVIDE",
        "MAX",
        "MIN",
        "MEAN",
        "POW",
        "LOGICAL_AND",
        "LOGICAL_OR",
        "MODULUS_TRUNCATE",
        "MODULUS_FLOOR",
        "BIT_AND",
        "BIT_OR",
        "BIT_XOR",
        "BIT_SHIFT_LEFT",
        "BIT_SHIFT_RIGHT",
        "DIFFERENCE_SQUARE",
        "ATAN_YX",
        "ADD1",
    }
    | dml_unary.IN_PLACE
    | dml_activation.IN_PLACE
    | dml_composite.IN_PLACE
    | dml_scan.IN_PLACE
)


def _check_in_place(name: str) -> None:
    want = name.removeprefix("ELEMENT_WISE_") in DML_IN_PLACE or name in DML_IN_PLACE
    assert descriptors.row_of(name).in_place == want, f"row.in_place: want {want}"
    assert operator_support(name, FeatureLevel.FL_6_4).in_place == want, f"operator_support(...).in_place: want {want}"


def test_in_place_flags_match_directml() -> None:
    check_grid(sorted(n for n in ROW_NAMES if n in DML_OPERATORS), _check_in_place)
