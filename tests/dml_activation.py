"""DirectML transcriptions for the activation family, independent of the op table.

From shared/reference/directml.md section 3 (fields, tables, in place); same format as
dml_unary.py. test_completeness.py checks the op table against them.
"""

from __future__ import annotations

# "Most activations" (directml.md 3): 3.0+: 1-8 F32 F16; 2.0: 4-5; 1.0: 4.
STANDARD = [("3_0", (1, 8), "F32 F16"), ("2_0", (4, 5), "F32 F16"), ("1_0", (4, 4), "F32 F16")]

FIELDS: dict[str, tuple[str, ...]] = {
    "ACTIVATION_RELU": ("InputTensor", "OutputTensor"),
    "ACTIVATION_ELU": ("InputTensor", "OutputTensor", "Alpha"),
    "ACTIVATION_SOFTPLUS": ("InputTensor", "OutputTensor", "Steepness"),
}
TABLES: dict[str, list[tuple]] = {
    "ACTIVATION_RELU": [
        ("5_1", (1, 8), "F32 F16 I32 I16 I8"),
        ("3_0", (1, 8), "F32 F16"),
        ("2_0", (4, 5), "F32 F16"),
        ("1_0", (4, 4), "F32 F16"),
    ],
    "ACTIVATION_ELU": STANDARD,
    "ACTIVATION_SOFTPLUS": STANDARD,
}
# directml.md 3, "In-place supported (per docs)": full operator names.
IN_PLACE: set[str] = {"ACTIVATION_RELU", "ACTIVATION_ELU", "ACTIVATION_SOFTPLUS"}
