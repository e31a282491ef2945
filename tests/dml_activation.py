"""DirectML transcriptions for the activation family, independent of the op table.

From docs/reference/directml.md section 3 (struct fields, "Tensor support", "In-place
supported") and 3.1 (the fusable list); same format as dml_unary.py: per tier (level,
(min dims, max dims), types of every tensor), newest first. test_completeness.py checks the op
table against them. SOFTMAX/LOG_SOFTMAX/HARDMAX (and their "1" forms) reduce over axes and are
not rows of this family.
"""

from __future__ import annotations

# "Most activations" (directml.md 3): 3.0+: 1-8 F32 F16; 2.0: 4-5; 1.0: 4.
STANDARD = [("3_0", (1, 8), "F32 F16"), ("2_0", (4, 5), "F32 F16"), ("1_0", (4, 4), "F32 F16")]
# RELU and PARAMETERIZED_RELU: 5.1+ adds I32 I16 I8.
RELU_LIKE = [("5_1", (1, 8), "F32 F16 I32 I16 I8"), *STANDARD]

IO = ("InputTensor", "OutputTensor")
FIELDS: dict[str, tuple[str, ...]] = {
    "ACTIVATION_RELU": IO,
    "ACTIVATION_ELU": (*IO, "Alpha"),
    "ACTIVATION_SOFTPLUS": (*IO, "Steepness"),
    "ACTIVATION_CELU": (*IO, "Alpha"),
    "ACTIVATION_GELU": IO,
    "ACTIVATION_HARD_SIGMOID": (*IO, "Alpha", "Beta"),
    "ACTIVATION_HARD_SWISH": (*IO, "Alpha", "Beta"),
    "ACTIVATION_IDENTITY": IO,
    "ACTIVATION_LEAKY_RELU": (*IO, "Alpha"),
    "ACTIVATION_LINEAR": (*IO, "Alpha", "Beta"),
    "ACTIVATION_PARAMETERIZED_RELU": ("InputTensor", "SlopeTensor", "OutputTensor"),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": (*IO, "Alpha", "Beta"),
    "ACTIVATION_SCALED_ELU": (*IO, "Alpha", "Gamma"),
    "ACTIVATION_SCALED_TANH": (*IO, "Alpha", "Beta"),
    "ACTIVATION_SHRINK": (*IO, "Bias", "Threshold"),
    "ACTIVATION_SIGMOID": IO,
    "ACTIVATION_SOFTSIGN": IO,
    "ACTIVATION_SWISH": (*IO, "SigmoidInputScale"),
    "ACTIVATION_TANH": IO,
    "ACTIVATION_THRESHOLDED_RELU": (*IO, "Alpha"),
    "ACTIVATION_RELU_GRAD": ("InputTensor", "InputGradientTensor", "OutputGradientTensor"),
}
TABLES: dict[str, list[tuple]] = {
    "ACTIVATION_RELU": RELU_LIKE,
    "ACTIVATION_PARAMETERIZED_RELU": RELU_LIKE,
    "ACTIVATION_RELU_GRAD": [
        ("5_1", (1, 8), "F32 F16 I32 I16 I8"),
        ("4_0", (1, 8), "F32 F16"),
        ("3_0", (1, 8), "F32 F16"),
    ],
    "ACTIVATION_SHRINK": [
        ("5_1", (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8"),
        ("3_0", (1, 8), "F32 F16"),
        ("2_0", (4, 5), "F32 F16"),
    ],
    "ACTIVATION_CELU": [("3_0", (1, 8), "F32 F16")],
    "ACTIVATION_GELU": [("5_1", (1, 8), "F32 F16")],
    "ACTIVATION_SWISH": [("6_2", (1, 8), "F32 F16")],
    "ACTIVATION_HARD_SWISH": [("6_2", (1, 8), "F32 F16")],
    **{
        f"ACTIVATION_{n}": STANDARD
        for n in (
            "ELU",
            "HARD_SIGMOID",
            "IDENTITY",
            "LEAKY_RELU",
            "LINEAR",
            "PARAMETRIC_SOFTPLUS",
            "SCALED_ELU",
            "SCALED_TANH",
            "SIGMOID",
            "SOFTPLUS",
            "SOFTSIGN",
            "THRESHOLDED_RELU",
            "TANH",
        )
    },
}
# directml.md 3, "In-place supported (per docs)": full operator names. Not stated for TANH,
# GELU, RELU_GRAD (nor the softmax family).
IN_PLACE: set[str] = {
    f"ACTIVATION_{n}"
    for n in (
        "ELU",
        "CELU",
        "HARD_SIGMOID",
        "IDENTITY",
        "LEAKY_RELU",
        "LINEAR",
        "PARAMETERIZED_RELU",
        "PARAMETRIC_SOFTPLUS",
        "RELU",
        "SCALED_ELU",
        "SCALED_TANH",
        "SHRINK",
        "SIGMOID",
        "SOFTPLUS",
        "SOFTSIGN",
        "THRESHOLDED_RELU",
        "SWISH",
        "HARD_SWISH",
    )
}
# directml.md 3.1: activations DirectML accepts as a FusedActivation (ELEMENT_WISE_CLIP only on
# CONVOLUTION/GEMM and SOFTMAX only on GEMM: neither applies to the element-wise hosts).
FUSABLE: set[str] = {
    f"ACTIVATION_{n}"
    for n in (
        "LINEAR",
        "SIGMOID",
        "HARD_SIGMOID",
        "TANH",
        "SCALED_TANH",
        "RELU",
        "LEAKY_RELU",
        "THRESHOLDED_RELU",
        "ELU",
        "CELU",
        "SCALED_ELU",
        "SOFTPLUS",
        "PARAMETRIC_SOFTPLUS",
        "SOFTSIGN",
        "IDENTITY",
        "SHRINK",
        "GELU",
    )
}
# DirectMLX defaults (directml.md 3 and 3.1), as DirectML receives them (float32).
DEFAULTS: dict[str, dict[str, float]] = {
    "ACTIVATION_ELU": {"alpha": 1.0},
    "ACTIVATION_CELU": {"alpha": 1.0},
    "ACTIVATION_HARD_SIGMOID": {"alpha": 0.2, "beta": 0.5},
    "ACTIVATION_HARD_SWISH": {"alpha": 1.0 / 6.0, "beta": 0.5},
    "ACTIVATION_LEAKY_RELU": {"alpha": 0.01},
    "ACTIVATION_SCALED_ELU": {"alpha": 1.67326319217681884765625, "gamma": 1.05070102214813232421875},
    "ACTIVATION_SCALED_TANH": {"alpha": 1.0, "beta": 0.5},
    "ACTIVATION_SHRINK": {"bias": 0.0, "threshold": 0.5},
    "ACTIVATION_SOFTPLUS": {"steepness": 1.0},
    "ACTIVATION_SWISH": {"sigmoid_input_scale": 1.0},
    "ACTIVATION_THRESHOLDED_RELU": {"alpha": 1.0},
}
