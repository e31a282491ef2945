"""DirectML transcriptions for the scan rows (CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT), independent of the op
table: struct fields and "Tensor support" tables, newest tier first, as dml_composite.py.

Sources: the DirectML pages ns-directml-dml_cumulative_summation_operator_desc.md ("introduced in
DML_FEATURE_LEVEL_2_1"; one table: 4 dimensions, FLOAT32 FLOAT16 UINT32 UINT16; in-place) and
ns-directml-dml_cumulative_product_operator_desc.md ("introduced in DML_FEATURE_LEVEL_3_1"; 3_1: 4 dimensions,
4_0: 1 to 8, both FLOAT32 FLOAT16 UINT32 UINT16; in-place). The stored summation page has no later tables; the
feature-level table of docs/reference/directml.md section 6 adds "8-D for ... CUMULATIVE_*" at 4_0 and "64-bit
types for ... CUMULATIVE_*" at 5_0, transcribed here as 1 to 8 dimensions from 4_0 (SUMMATION) and INT64/UINT64
from 5_0 (both).
"""

from __future__ import annotations

FIELDS: dict[str, tuple[str, ...]] = {
    "CUMULATIVE_SUMMATION": ("InputTensor", "OutputTensor", "Axis", "AxisDirection", "HasExclusiveSum"),
    "CUMULATIVE_PRODUCT": ("InputTensor", "OutputTensor", "Axis", "AxisDirection", "HasExclusiveProduct"),
}
_BASE = "F32 F16 U32 U16"
TABLES: dict[str, list[tuple]] = {
    "CUMULATIVE_SUMMATION": [("5_0", (1, 8), _BASE + " I64 U64"), ("4_0", (1, 8), _BASE), ("2_1", (4, 4), _BASE)],
    "CUMULATIVE_PRODUCT": [("5_0", (1, 8), _BASE + " I64 U64"), ("4_0", (1, 8), _BASE), ("3_1", (4, 4), _BASE)],
}
# Both pages: "This operator supports in-place execution".
IN_PLACE = {"CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT"}
