"""DirectML transcriptions for the composite rows (softmax family, MEAN_VARIANCE_NORMALIZATION1), independent of
the op table: struct fields and "Tensor support" tables, newest tier first, as dml_activation.py.

Sources: docs/reference/directml.md section 3 (SOFTMAX, LOG_SOFTMAX: "most activations"; SOFTMAX1,
LOG_SOFTMAX1: 5.1, 1-8, F32 F16) and the DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC page (3_1: 1-8; 2_1: 4;
F32 F16 for every tensor). DirectML's "UINT AxisCount; const UINT* Axes" pair is one ``axes`` field.
"""

from __future__ import annotations

from dml_activation import STANDARD

IO = ("InputTensor", "OutputTensor")
FIELDS: dict[str, tuple[str, ...]] = {
    "ACTIVATION_SOFTMAX": IO,
    "ACTIVATION_LOG_SOFTMAX": IO,
    "ACTIVATION_HARDMAX": IO,
    "ACTIVATION_SOFTMAX1": (*IO, "Axes"),
    "ACTIVATION_LOG_SOFTMAX1": (*IO, "Axes"),
    "ACTIVATION_HARDMAX1": (*IO, "Axes"),
    "MEAN_VARIANCE_NORMALIZATION1": (
        "InputTensor",
        "ScaleTensor",
        "BiasTensor",
        "OutputTensor",
        "Axes",
        "NormalizeVariance",
        "Epsilon",
        "FusedActivation",
    ),
}
TABLES: dict[str, list[tuple]] = {
    "ACTIVATION_SOFTMAX": STANDARD,
    "ACTIVATION_LOG_SOFTMAX": STANDARD,
    "ACTIVATION_HARDMAX": STANDARD,
    "ACTIVATION_SOFTMAX1": [("5_1", (1, 8), "F32 F16")],
    "ACTIVATION_LOG_SOFTMAX1": [("5_1", (1, 8), "F32 F16")],
    "ACTIVATION_HARDMAX1": [("5_1", (1, 8), "F32 F16")],
    "MEAN_VARIANCE_NORMALIZATION1": [("3_1", (1, 8), "F32 F16"), ("2_1", (4, 4), "F32 F16")],
}
# None of them states in-place execution (directml.md 3, "NOT stated for SOFTMAX*/LOG_SOFTMAX*").
IN_PLACE: set[str] = set()
