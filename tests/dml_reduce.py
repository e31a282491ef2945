"""DirectML transcriptions for the reductions, independent of the op table.

Typed by hand from docs/reference/directml.md section 4, "Tensor support by function"
(``DML_REDUCE_OPERATOR_DESC`` per ``DML_REDUCE_FUNCTION``) and the ``DML_ARGMAX`` /
``DML_ARGMIN_OPERATOR_DESC`` pages (operators introduced at FL 3.0, which take over REDUCE's
ARGMAX/ARGMIN). Tiers are newest first: ``(level, (min dims, max dims), input types,
output types)``; the output types of every function but ARGMAX/ARGMIN equal the input's
("Output DataType == input DataType except ARGMAX/ARGMIN (integral output)").
test_reduce_edges.py compares the op table's rows with these.
"""

from __future__ import annotations

Tier = tuple[str, tuple[int, int], str, str]

ALL10 = "F32 F16 I64 I32 I16 I8 U64 U32 U16 U8"
EIGHT = "F32 F16 I32 I16 I8 U32 U16 U8"
ARG_OUT = "I64 I32 U64 U32"

# ARGMIN/ARGMAX: 4.1+: In 1-8 F32 F16 I64 I32 I16 I8 U64 U32 U16 U8 -> Out I64 I32 U64 U32;
# 3.0: In 1-8 F32 F16 I32 I16 I8 U32 U16 U8 -> Out I64 I32 U64 U32; 2.1: 4 dims, same 8 in -> Out U32;
# 1.0: 4 dims F32 F16 -> U32.
_ARG_FUNCTION: list[Tier] = [
    ("4_1", (1, 8), ALL10, ARG_OUT),
    ("3_0", (1, 8), EIGHT, ARG_OUT),
    ("2_1", (4, 4), EIGHT, "U32"),
    ("1_0", (4, 4), "F32 F16", "U32"),
]
# AVERAGE, L2, LOG_SUM, LOG_SUM_EXP: 3.0+: 1-8 F32 F16; 1.0: 4 F32 F16.
_FLOAT_ONLY: list[Tier] = [
    ("3_0", (1, 8), "F32 F16", "F32 F16"),
    ("1_0", (4, 4), "F32 F16", "F32 F16"),
]
# L1, SUM_SQUARE: 5.0+: 1-8 F32 F16 I64 I32 U64 U32; 3.0: 1-8 F32 F16; 1.0: 4 F32 F16.
_L1_LIKE: list[Tier] = [
    ("5_0", (1, 8), "F32 F16 I64 I32 U64 U32", "F32 F16 I64 I32 U64 U32"),
    ("3_0", (1, 8), "F32 F16", "F32 F16"),
    ("1_0", (4, 4), "F32 F16", "F32 F16"),
]
# MIN, MAX: 5.0+: 1-8 all ten; 3.0: 1-8 F32 F16 I32 I16 I8 U32 U16 U8; 2.1: 4 F32 F16 I32 U32; 1.0: 4 F32 F16.
_MIN_MAX: list[Tier] = [
    ("5_0", (1, 8), ALL10, ALL10),
    ("3_0", (1, 8), EIGHT, EIGHT),
    ("2_1", (4, 4), "F32 F16 I32 U32", "F32 F16 I32 U32"),
    ("1_0", (4, 4), "F32 F16", "F32 F16"),
]
# MULTIPLY, SUM: 5.0+: 1-8 F32 F16 I64 I32 U64 U32; 3.0: 1-8 F32 F16 I32 U32; 2.1: 4 F32 F16 I32 U32;
# 1.0: 4 F32 F16.
_SUM_LIKE: list[Tier] = [
    ("5_0", (1, 8), "F32 F16 I64 I32 U64 U32", "F32 F16 I64 I32 U64 U32"),
    ("3_0", (1, 8), "F32 F16 I32 U32", "F32 F16 I32 U32"),
    ("2_1", (4, 4), "F32 F16 I32 U32", "F32 F16 I32 U32"),
    ("1_0", (4, 4), "F32 F16", "F32 F16"),
]

#: DML_REDUCE_FUNCTION values 0..11, in directml.h order.
REDUCE_FUNCTION_VALUES: dict[str, int] = {
    "ARGMAX": 0,
    "ARGMIN": 1,
    "AVERAGE": 2,
    "L1": 3,
    "L2": 4,
    "LOG_SUM": 5,
    "LOG_SUM_EXP": 6,
    "MAX": 7,
    "MIN": 8,
    "MULTIPLY": 9,
    "SUM": 10,
    "SUM_SQUARE": 11,
}

#: DML_REDUCE_OPERATOR_DESC's tensor support, per function.
REDUCE_TIERS: dict[str, list[Tier]] = {
    "ARGMAX": _ARG_FUNCTION,
    "ARGMIN": _ARG_FUNCTION,
    "AVERAGE": _FLOAT_ONLY,
    "L1": _L1_LIKE,
    "L2": _FLOAT_ONLY,
    "LOG_SUM": _FLOAT_ONLY,
    "LOG_SUM_EXP": _FLOAT_ONLY,
    "MAX": _MIN_MAX,
    "MIN": _MIN_MAX,
    "MULTIPLY": _SUM_LIKE,
    "SUM": _SUM_LIKE,
    "SUM_SQUARE": _L1_LIKE,
}

#: Functions whose output DataType must equal the input's (all but the index functions).
REDUCE_SAME_TYPE: frozenset[str] = frozenset(REDUCE_TIERS) - {"ARGMAX", "ARGMIN"}

#: DML_ARGMAX_OPERATOR_DESC / DML_ARGMIN_OPERATOR_DESC (introduced at FL 3.0): the 3.0 and 4.1 rows.
ARG_OPERATOR_TIERS: list[Tier] = [
    ("4_1", (1, 8), ALL10, ARG_OUT),
    ("3_0", (1, 8), EIGHT, ARG_OUT),
]
ARG_OPERATOR_INTRODUCED = "3_0"

#: Descriptor fields, DirectML's order.
FIELDS: dict[str, tuple[str, ...]] = {
    "REDUCE": ("Function", "InputTensor", "OutputTensor", "AxisCount", "Axes"),
    "ARGMAX": ("InputTensor", "OutputTensor", "AxisCount", "Axes", "AxisDirection"),
    "ARGMIN": ("InputTensor", "OutputTensor", "AxisCount", "Axes", "AxisDirection"),
}

#: DML_AXIS_DIRECTION.
AXIS_DIRECTION_VALUES: dict[str, int] = {"INCREASING": 0, "DECREASING": 1}
