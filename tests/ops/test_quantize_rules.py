"""QUANTIZE_LINEAR's data-type rule and the optional zero point (the generated suites cover the values).

DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC: "If InputTensor is INT32, then ScaleTensor must be FLOAT32.
Otherwise, ScaleTensor must have the same DataType as InputTensor" (docs/reference/directml.md section 14).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import to_backend, to_host
from opinfo import record

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


def test_the_zero_point_is_optional_from_6_2_only() -> None:
    desc = QUANTIZE(_t(F32), _t(F32), None, _t(U8))
    gpuops.Device("numpy", max_feature_level="6_2").create_operator(desc)
    with pytest.raises(
        DescriptorError, match=r"zero_point_tensor is required at FL_6_1 \(got None; optional from FL_6_2 on\)"
    ):
        gpuops.Device("numpy", max_feature_level="6_1").create_operator(desc)


@pytest.mark.parametrize(
    ("name", "x_dt", "s_dt", "out_dt"),
    [
        ("ELEMENT_WISE_QUANTIZE_LINEAR", F32, F32, DataType.INT8),
        ("ELEMENT_WISE_QUANTIZE_LINEAR", F16, F16, U8),
        ("ELEMENT_WISE_DEQUANTIZE_LINEAR", DataType.INT8, F16, F16),
        ("ELEMENT_WISE_DEQUANTIZE_LINEAR", DataType.UINT32, F32, F32),
    ],
)
def test_an_absent_zero_point_reads_as_zero(
    name: str, x_dt: DataType, s_dt: DataType, out_dt: DataType, device: gpuops.Device, xp: Any
) -> None:
    """The same values as a zero point of zeros: the reference's, with the zeros passed explicitly."""
    rng = np.random.default_rng(3)
    info = record(name)
    x = info.data[0](x_dt, (64,), rng)
    scale = info.data[1](s_dt, (64,), rng)
    zero_dt = out_dt if name.endswith("_QUANTIZE_LINEAR") else x_dt
    desc = desc_class(name)(TensorDesc(x_dt, (64,)), TensorDesc(s_dt, (64,)), None, TensorDesc(out_dt, (64,)))
    got = to_host(gpuops.run(desc, to_backend(xp, x), to_backend(xp, scale), None, device=device))
    want = info.evaluate([x, scale, np.zeros(64, zero_dt.numpy_dtype)], out_dt.numpy_dtype)
    assert got.dtype == want.values.dtype and np.array_equal(got, want.values), (got, want.values)  # no NaN here
