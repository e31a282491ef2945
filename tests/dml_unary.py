"""DirectML transcriptions for the unary element-wise family, independent of the op table.

From shared/reference/directml.md sections 2.1 (struct fields), 2.3 (in place) and 2.4
(tensor-support tables, newest tier first: (level, (min dims, max dims), input types,
output types or omitted when equal)). test_completeness.py checks the op table against them.
"""

from __future__ import annotations

ALL10 = "F32 F16 I64 I32 I16 I8 U64 U32 U16 U8"
EIGHT = "F32 F16 I32 I16 I8 U32 U16 U8"
UNARY_SB = ("InputTensor", "OutputTensor", "ScaleBias")
FLOAT_MATH = [("3_0", (1, 8), "F32 F16"), ("1_0", (4, 4), "F32 F16")]

FIELDS: dict[str, tuple[str, ...]] = {
    "ELEMENT_WISE_IDENTITY": UNARY_SB,
    "ELEMENT_WISE_ABS": UNARY_SB,
    "ELEMENT_WISE_EXP": UNARY_SB,
}
TABLES: dict[str, list[tuple]] = {
    "ELEMENT_WISE_IDENTITY": [
        ("4_1", (1, 8), "F64 " + ALL10),
        ("3_0", (1, 8), EIGHT),
        ("2_1", (4, 5), EIGHT),
        ("1_0", (4, 5), "F32 F16"),
    ],
    "ELEMENT_WISE_ABS": [
        ("4_1", (1, 8), "F32 F16 I64 I32 I16 I8"),
        ("3_0", (1, 8), "F32 F16 I32 I16 I8"),
        ("2_1", (4, 4), "F32 F16 I32 I16 I8"),
        ("1_0", (4, 4), "F32 F16"),
    ],
    "ELEMENT_WISE_EXP": FLOAT_MATH,
}
# directml.md 2.3, names without the ELEMENT_WISE_ prefix.
IN_PLACE: set[str] = {"IDENTITY", "ABS", "EXP"}
# Operators whose DirectML table lists FLOAT64 (data movement, directml.md 1.3).
FLOAT64_OK: set[str] = {"ELEMENT_WISE_IDENTITY"}
