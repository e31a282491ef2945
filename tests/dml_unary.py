"""DirectML transcriptions for the unary element-wise family, independent of the op table.

From docs/reference/directml.md sections 2.1 (struct fields), 2.3 (in place) and 2.4
(tensor-support tables, newest tier first: (level, (min dims, max dims), input types,
output types or omitted when equal)). test_completeness.py checks the op table against them.

Rows with more tensors than Input/Output (IF, CLIP_GRAD, CLIP_GRAD1) use the same tuple: the
third entry holds for every input role, the fourth for the output. IF's ConditionTensor has
types of its own, given as a fifth entry ``{role: types}`` (snake_case role) that overrides
the third for the roles it names.
"""

from __future__ import annotations

ALL10 = "F32 F16 I64 I32 I16 I8 U64 U32 U16 U8"
EIGHT = "F32 F16 I32 I16 I8 U32 U16 U8"
UNARY_SB = ("InputTensor", "OutputTensor", "ScaleBias")
UNARY = ("InputTensor", "OutputTensor")
# EXP, LOG, SQRT, RECIP, CEIL (FLOOR, trig same pattern): 3.0+: 1-8 | F32 F16; 1.0: 4 | F32 F16.
FLOAT_MATH = [("3_0", (1, 8), "F32 F16"), ("1_0", (4, 4), "F32 F16")]
# ERF (2.0) (hyperbolics assumed the same): 3.0+: 1-8 | F32 F16; 2.0: 4 | F32 F16.
FLOAT_MATH_2_0 = [("3_0", (1, 8), "F32 F16"), ("2_0", (4, 4), "F32 F16")]
CLIP_GRAD = ("InputTensor", "InputGradientTensor", "OutputGradientTensor")

FIELDS: dict[str, tuple[str, ...]] = {
    # 2.1: unary with ScaleBias.
    **{
        f"ELEMENT_WISE_{n}": UNARY_SB
        for n in [
            "IDENTITY",
            "ABS",
            "ACOS",
            "ASIN",
            "ATAN",
            "CEIL",
            "COS",
            "EXP",
            "FLOOR",
            "LOG",
            "RECIP",
            "SIN",
            "SQRT",
            "TAN",
            "ERF",
            "SINH",
            "COSH",
            "TANH",
            "ASINH",
            "ACOSH",
            "ATANH",
        ]
    },
    # 2.1: unary with ScaleBias and parameters.
    "ELEMENT_WISE_CLIP": (*UNARY_SB, "Min", "Max"),
    "ELEMENT_WISE_THRESHOLD": (*UNARY_SB, "Min"),
    "ELEMENT_WISE_CONSTANT_POW": (*UNARY_SB, "Exponent"),
    "ELEMENT_WISE_CLIP1": (*UNARY_SB, "MinMaxDataType", "Min", "Max"),
    # 2.1: unary without ScaleBias.
    **{f"ELEMENT_WISE_{n}": UNARY for n in ["LOGICAL_NOT", "SIGN", "IS_NAN", "BIT_NOT", "BIT_COUNT", "NEGATE"]},
    "ELEMENT_WISE_ROUND": (*UNARY, "RoundingMode"),
    "ELEMENT_WISE_IS_INFINITY": (*UNARY, "InfinityMode"),
    # 2.1: special shapes.
    "ELEMENT_WISE_IF": ("ConditionTensor", "ATensor", "BTensor", "OutputTensor"),
    # directml.md 14: DML_CAST_OPERATOR_DESC {InputTensor, OutputTensor}.
    "CAST": UNARY,
    "ELEMENT_WISE_QUANTIZE_LINEAR": ("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"),
    "FILL_VALUE_CONSTANT": ("OutputTensor", "ValueDataType", "Value"),
    "FILL_VALUE_SEQUENCE": ("OutputTensor", "ValueDataType", "ValueStart", "ValueDelta"),
    "ELEMENT_WISE_DEQUANTIZE_LINEAR": ("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"),
    # directml.md 2.1 and 14: A, AScale, AZeroPoint?, B, BScale, BZeroPoint?, OutputScale, OutputZeroPoint?, Output.
    "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": (
        "ATensor",
        "AScaleTensor",
        "AZeroPointTensor",
        "BTensor",
        "BScaleTensor",
        "BZeroPointTensor",
        "OutputScaleTensor",
        "OutputZeroPointTensor",
        "OutputTensor",
    ),
    "ELEMENT_WISE_CLIP_GRAD": (*CLIP_GRAD, "Min", "Max"),
    "ELEMENT_WISE_CLIP_GRAD1": (*CLIP_GRAD, "MinMaxDataType", "Min", "Max"),
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
    **{
        f"ELEMENT_WISE_{n}": FLOAT_MATH
        for n in ["EXP", "LOG", "SQRT", "RECIP", "CEIL", "FLOOR", "ACOS", "ASIN", "ATAN", "COS", "SIN", "TAN"]
    },
    **{f"ELEMENT_WISE_{n}": FLOAT_MATH_2_0 for n in ["ERF", "SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH"]},
    "ELEMENT_WISE_ROUND": [("3_0", (1, 8), "F32 F16"), ("2_1", (4, 4), "F32 F16")],
    "ELEMENT_WISE_CONSTANT_POW": [("3_0", (1, 8), "F32 F16"), ("1_0", (4, 4), "F32 F16")],
    "ELEMENT_WISE_CLIP": [
        ("5_0", (1, 8), ALL10),
        ("3_0", (1, 8), EIGHT),
        ("2_1", (4, 4), EIGHT),
        ("1_0", (4, 4), "F32 F16"),
    ],
    "ELEMENT_WISE_CLIP1": [("5_0", (1, 8), ALL10)],
    "ELEMENT_WISE_THRESHOLD": [("3_0", (1, 8), EIGHT), ("2_1", (4, 4), EIGHT), ("1_0", (4, 4), "F32 F16")],
    "ELEMENT_WISE_NEGATE": [("5_0", (1, 8), "F32 F16 I64 I32 I16 I8")],
    "ELEMENT_WISE_SIGN": [
        ("4_1", (1, 8), ALL10),
        ("3_0", (1, 8), EIGHT),
        ("2_1", (4, 4), EIGHT),
        ("2_0", (4, 4), "F32 F16"),
    ],
    "ELEMENT_WISE_IS_NAN": [("3_0", (1, 8), "F32 F16", "U32 U8"), ("2_0", (4, 4), "F32 F16", "U32 U8")],
    "ELEMENT_WISE_IS_INFINITY": [("3_0", (1, 8), "F32 F16", "U8"), ("2_1", (4, 4), "F32 F16", "U8")],
    "ELEMENT_WISE_LOGICAL_NOT": [("3_0", (1, 8), "U32 U8"), ("2_0", (4, 4), "U32 U8"), ("1_0", (4, 4), "U32")],
    "ELEMENT_WISE_BIT_NOT": [("4_1", (1, 8), "F64 " + ALL10), ("3_0", (1, 8), "U32 U16 U8")],
    "ELEMENT_WISE_BIT_COUNT": [("4_1", (1, 8), "F64 " + ALL10, "U32 U8"), ("3_0", (1, 8), "U32 U16 U8", "U32 U8")],
    # The DML_CAST_OPERATOR_DESC page (learn.microsoft.com); input and output types independent. Its FL 1_0
    # row is read as far as the published text goes ("FLOAT32, FLOAT16, INT16, INT8, UINT1...").
    "CAST": [
        ("4_1", (1, 8), "F64 " + ALL10, "F64 " + ALL10),
        ("3_1", (1, 8), ALL10, ALL10),
        ("3_0", (4, 4), ALL10, ALL10),
        ("1_0", (4, 4), "F32 F16 I16 I8 U16 U8", "F32 F16 I16 I8 U16 U8"),
    ],
    # The QUANTIZE/DEQUANTIZE_LINEAR pages (sdk-api, learn.microsoft.com): (level, dims, input, output, other roles).
    # FL 6_2 makes ZeroPointTensor optional (the types are 6_0's).
    # The FILL_VALUE_CONSTANT page read shows FL 2_1 (4-D, the eight types); 1-8 dims from 3_0 and the 64-bit
    # integers from 4_1 follow directml.md 5 (the 4_1 row lists FILL_VALUE_CONSTANT among the 64-bit operators).
    "FILL_VALUE_CONSTANT": [("4_1", (1, 8), ALL10), ("3_0", (1, 8), EIGHT), ("2_1", (4, 4), EIGHT)],
    # The FILL_VALUE_SEQUENCE page (learn.microsoft.com, read for issue 18): FL 5_0 1-8 dims, the eight types and
    # INT64/UINT64; FL 4_0 1-8 dims, the eight; FL 2_1 4-D, the eight.
    "FILL_VALUE_SEQUENCE": [("5_0", (1, 8), ALL10), ("4_0", (1, 8), EIGHT), ("2_1", (4, 4), EIGHT)],
    "ELEMENT_WISE_QUANTIZE_LINEAR": [
        ("6_2", (1, 8), "F32 F16 I32", "I8 U8", {"scale_tensor": "F32 F16", "zero_point_tensor": "I8 U8"}),
        ("6_0", (1, 8), "F32 F16 I32", "I8 U8", {"scale_tensor": "F32 F16", "zero_point_tensor": "I8 U8"}),
        ("3_0", (1, 8), "F32 I32", "I8 U8", {"scale_tensor": "F32", "zero_point_tensor": "I8 U8"}),
        ("2_1", (4, 4), "F32 I32", "I8 U8", {"scale_tensor": "F32", "zero_point_tensor": "I8 U8"}),
        ("1_0", (4, 4), "F32", "U8", {"scale_tensor": "F32", "zero_point_tensor": "U8"}),
    ],
    "ELEMENT_WISE_DEQUANTIZE_LINEAR": [
        ("6_2", (1, 8), "I32 I16 I8 U32 U16 U8", "F32 F16", {"scale_tensor": "F32 F16"}),
        ("6_0", (1, 8), "I32 I16 I8 U32 U16 U8", "F32 F16", {"scale_tensor": "F32 F16"}),
        ("3_0", (1, 8), "I32 I16 I8 U32 U16 U8", "F32", {"scale_tensor": "F32"}),
        ("2_1", (4, 4), "I32 I16 I8 U32 U16 U8", "F32", {"scale_tensor": "F32"}),
        ("1_0", (4, 4), "U8", "F32", {"scale_tensor": "F32"}),
    ],
    # The QUANTIZED_LINEAR_ADD page (sdk-api): one table, at the operator's level 4_0; A, B, the zero points and
    # the output INT8/UINT8, the three scales FLOAT32; the zero points are "Optional input" there.
    "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": [
        (
            "4_0",
            (1, 8),
            "I8 U8",
            "I8 U8",
            {"a_scale_tensor": "F32", "b_scale_tensor": "F32", "output_scale_tensor": "F32"},
        ),
    ],
    "ELEMENT_WISE_IF": [
        ("5_0", (1, 8), "F64 " + ALL10, "F64 " + ALL10, {"condition_tensor": "U8"}),
        ("3_0", (1, 8), EIGHT, EIGHT, {"condition_tensor": "U8"}),
        ("2_0", (4, 4), "F16", "F16", {"condition_tensor": "U8"}),
    ],
    "ELEMENT_WISE_CLIP_GRAD": [("5_0", (1, 8), ALL10), ("3_1", (1, 8), EIGHT)],
    # No table of its own in directml.md: "CLIP_GRAD1 (FL5.0) same with MinMaxDataType".
    "ELEMENT_WISE_CLIP_GRAD1": [("5_0", (1, 8), ALL10)],
}
# directml.md 2.3, names without the ELEMENT_WISE_ prefix. Not stated (so not in place): the
# trigonometric and hyperbolic functions, FLOOR, IS_NAN, IS_INFINITY, BIT_COUNT, IF, CLIP_GRAD1.
IN_PLACE: set[str] = {
    "IDENTITY",
    "ABS",
    "EXP",
    "CONSTANT_POW",
    "CLIP",
    "CLIP1",
    "THRESHOLD",
    "LOG",
    "SQRT",
    "RECIP",
    "CEIL",
    "ERF",
    "ROUND",
    "SIGN",
    "NEGATE",
    "LOGICAL_NOT",
    "BIT_NOT",
    "CLIP_GRAD",
}
# Operators whose DirectML table lists FLOAT64 (data movement and bit operators, directml.md 1.3).
FLOAT64_OK: set[str] = {
    "ELEMENT_WISE_IDENTITY",
    "ELEMENT_WISE_BIT_NOT",
    "ELEMENT_WISE_BIT_COUNT",
    "ELEMENT_WISE_IF",
    "CAST",
}
