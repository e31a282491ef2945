"""The first hour of a new user (issue 17): every spelling the one parsers accept, and what they refuse.

Feature levels (``FeatureLevel.parse``), operator names (``descriptors.names.operator_type``, behind
``row_of``, ``desc_class``, ``operator_support`` and the CLI) and data types (``DataType.parse``, behind
``TensorDesc``, ``Device.supports_data_type``) each have one parser, used everywhere.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import gpuops
from gpuops import (
    DataType,
    DescriptorError,
    ElementWiseAddOperatorDesc,
    FeatureLevel,
    OperatorType,
    TensorDesc,
    desc_class,
    operator_support,
    row_of,
)


@pytest.mark.parametrize("spelling", [FeatureLevel.FL_5_1, "5_1", "5.1", "FL_5_1", 0x5100, "0x5100", "fl_5_1"])
def test_feature_level_spellings(spelling: object) -> None:
    assert FeatureLevel.parse(spelling) is FeatureLevel.FL_5_1
    assert gpuops.Device("numpy", max_feature_level=spelling).feature_level is FeatureLevel.FL_5_1  # type: ignore[arg-type]
    assert operator_support("add", spelling).feature_level is FeatureLevel.FL_5_1  # type: ignore[arg-type]


def test_a_float_feature_level_is_refused_with_the_reason() -> None:
    with pytest.raises(TypeError, match="a float is ambiguous, write '5.1'"):
        FeatureLevel.parse(5.1)


@pytest.mark.parametrize(
    "spelling",
    ["ELEMENT_WISE_ADD", "add", "ADD", "element-wise-add", "DML_OPERATOR_ELEMENT_WISE_ADD",
     OperatorType.ELEMENT_WISE_ADD, ElementWiseAddOperatorDesc],
)  # fmt: skip
def test_operator_spellings(spelling: object) -> None:
    assert row_of(spelling).name == "ELEMENT_WISE_ADD"
    assert desc_class(spelling) is ElementWiseAddOperatorDesc  # type: ignore[arg-type]
    assert gpuops.Device("numpy").operator_support(spelling).operator_type is OperatorType.ELEMENT_WISE_ADD  # type: ignore[arg-type]


SYNONYMS = [
    ("sub", "ELEMENT_WISE_SUBTRACT"),
    ("mul", "ELEMENT_WISE_MULTIPLY"),
    ("div", "ELEMENT_WISE_DIVIDE"),
    ("relu", "ACTIVATION_RELU"),
]


@pytest.mark.parametrize(("synonym", "name"), SYNONYMS)
def test_operator_synonyms(synonym: str, name: str) -> None:
    assert row_of(synonym).name == name


def test_an_unknown_operator_suggests_close_names() -> None:
    with pytest.raises(
        DescriptorError, match=r"unknown operator 'mull'; close matches: mul.*\(ELEMENT_WISE_MULTIPLY\)"
    ):
        row_of("mull")


@pytest.mark.parametrize(
    "spelling", [DataType.FLOAT16, "FLOAT16", "float16", np.float16, np.dtype("float16"), "f2", int(DataType.FLOAT16)]
)
def test_data_type_spellings(spelling: object) -> None:
    assert TensorDesc(spelling, (2,)).data_type is DataType.FLOAT16  # type: ignore[arg-type]
    assert DataType.parse(spelling) is DataType.FLOAT16


def test_bfloat16_and_from_array() -> None:
    assert TensorDesc(ml_dtypes.bfloat16, (3,)).data_type is DataType.BFLOAT16  # type: ignore[arg-type]
    assert TensorDesc("bfloat16", (3,)).data_type is DataType.BFLOAT16  # type: ignore[arg-type]
    t = TensorDesc.from_array(np.zeros((2, 3), np.int8))
    assert (t.data_type, t.sizes, t.is_packed) == (DataType.INT8, (2, 3), True)
    assert TensorDesc.from_array(np.float32(1.0)).sizes == (1,)


@pytest.mark.parametrize("bad", ["floaty", True, 1.5, 999, np.complex64])
def test_a_bad_data_type_names_the_field_and_the_choices(bad: object) -> None:
    with pytest.raises(DescriptorError, match=r"TensorDesc.data_type: .* is not a data type; allowed: FLOAT32"):
        TensorDesc(bad, (2,))  # type: ignore[arg-type]


def test_backward_parameters_default_as_the_forward_ones() -> None:
    """ELU's alpha is 1.0 forward and backward; HARD_SWISH's 1/6 and 0.5; RELU_GRAD (RELU has no slope) 0."""
    t = TensorDesc(DataType.FLOAT32, (4,))
    assert gpuops.ActivationEluOperatorDesc(t, t).alpha == 1.0
    assert gpuops.EltwiseEluGradOperatorDesc(t, t, t).alpha == 1.0
    hs = gpuops.EltwiseHardswishGradOperatorDesc(t, t, t)
    fw = gpuops.ActivationHardSwishOperatorDesc(t, t)
    assert (hs.alpha, hs.beta) == (fw.alpha, fw.beta)
    assert gpuops.EltwiseReluGradOperatorDesc(t, t, t).alpha == 0.0


def test_a_fused_activation_built_the_natural_way() -> None:
    t = TensorDesc(DataType.FLOAT32, (4,))
    desc = gpuops.ElementWiseAdd1OperatorDesc(t, t, t, fused_activation=gpuops.ActivationReluOperatorDesc())
    got = gpuops.run(desc, np.float32([-2, -1, 1, 2]), np.float32([1, 1, 1, 1]), device=gpuops.Device("numpy"))
    assert got.tolist() == [0, 0, 2, 3]
    with pytest.raises(DescriptorError, match="fusable activations: ACTIVATION_RELU"):
        gpuops.Device("numpy").create_operator(
            gpuops.ElementWiseAdd1OperatorDesc(t, t, t, fused_activation=gpuops.ElementWiseExpOperatorDesc(None, None))
        )


def test_binding_messages_name_the_likely_mistake() -> None:
    dev = gpuops.Device("numpy")
    byte_strides = TensorDesc(DataType.FLOAT32, (2, 3), (12, 4))
    packed = TensorDesc(DataType.FLOAT32, (2, 3))
    op = dev.compile_operator(dev.create_operator(gpuops.ActivationReluOperatorDesc(byte_strides, packed)))
    with pytest.raises(
        gpuops.BindingError, match=r"look like byte strides: TensorDesc strides count elements \(\(3, 1\)"
    ):
        op.execute([np.zeros(6, np.float32)], [np.zeros(6, np.float32)])
    t3 = TensorDesc(DataType.FLOAT16, (3,))
    op = dev.compile_operator(dev.create_operator(gpuops.ActivationReluOperatorDesc(t3, t3)))
    with pytest.raises(gpuops.BindingError, match="holds 6 bytes; .* = 8: pad the buffer to 4 FLOAT16 elements"):
        op.execute([np.zeros(3, np.float16)], [np.zeros(4, np.float16)])
    with pytest.raises(ValueError, match=r"has shape \(2, 2\); the tensor's sizes are \(3,\)"):
        op(np.zeros((2, 2), np.float16))  # a shaped array whose shape disagrees with the tensor


def test_counts_in_messages_agree_in_number() -> None:
    dev = gpuops.Device("numpy")
    t = TensorDesc(DataType.FLOAT32, (4,))
    op = dev.compile_operator(dev.create_operator(gpuops.ActivationReluOperatorDesc(t, t)))
    x = np.zeros(4, np.float32)
    with pytest.raises(gpuops.BindingError, match=r"2 input buffers bound; the operator has 1 input \(input_tensor\)"):
        op.execute([x, x], [x.copy()])
    with pytest.raises(
        gpuops.BindingError, match=r"0 output buffers bound; the operator has 1 output \(output_tensor\)"
    ):
        op.execute([x], [])
    with pytest.raises(TypeError, match="takes 1 input, got 2"):
        op(x, x)
