"""QUANTIZE_LINEAR's data-type rule and the required zero point (the generated suites cover the values).

DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC: "If InputTensor is INT32, then ScaleTensor must be FLOAT32.
Otherwise, ScaleTensor must have the same DataType as InputTensor" (docs/reference/directml.md section 14).
"""

from __future__ import annotations

import pytest

import gpuops
from descriptors import DataType, DescriptorError, TensorDesc, desc_class, dtype_combinations

F16, F32, I32, U8 = DataType.FLOAT16, DataType.FLOAT32, DataType.INT32, DataType.UINT8
QUANTIZE = desc_class("ELEMENT_WISE_QUANTIZE_LINEAR")


def _t(dt: DataType) -> TensorDesc:
    return TensorDesc(dt, (6,))


@pytest.mark.parametrize(("x", "scale", "want"), [(F16, F32, "FLOAT16"), (F32, F16, "FLOAT32"), (I32, F16, "FLOAT32")])
def test_scale_type_follows_the_input(x: DataType, scale: DataType, want: str) -> None:
    desc = QUANTIZE(_t(x), _t(scale), _t(U8), _t(U8))
    with pytest.raises(
        DescriptorError,
        match=rf"scale_tensor.data_type is {scale.name}; with a {x.name} input_tensor it must be {want}",
    ):
        gpuops.Device("numpy").create_operator(desc)


def test_the_capability_matrix_keeps_the_rule() -> None:
    pairs = {(c["input_tensor"], c["scale_tensor"]) for c in dtype_combinations("ELEMENT_WISE_QUANTIZE_LINEAR")}
    assert pairs == {(F32, F32), (F16, F16), (I32, F32)}


def test_the_zero_point_is_required() -> None:
    with pytest.raises(DescriptorError, match="zero_point_tensor is required"):
        gpuops.Device("numpy").create_operator(QUANTIZE(_t(F32), _t(F32), None, _t(U8)))
