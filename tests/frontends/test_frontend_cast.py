"""The front-ends' conversions: TensorRT's Cast layer and OpenVINO's Convert-1, both DirectML's CAST.

Expected values are worked out by hand from the rules in the README's semantics table (truncation toward zero
and saturation into integers, NaN -> 0; integers wrap; one rounding to nearest even into floats; nonzero is
true), not read from the code under test.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from helpers import to_backend, to_host

import gpuops
from gpuops.frontends import openvino, tensorrt


@pytest.mark.parametrize("to_type", ["kINT8", "INT8", "int8", np.int8])
def test_tensorrt_cast_to_int8(to_type: object, device: gpuops.Device, xp: Any) -> None:
    x = to_backend(xp, np.float32([1.5, -2.7, np.nan, 300.0, -1e30, -0.0]))
    got = to_host(tensorrt.cast(x, to_type, device=device))
    assert got.dtype == np.int8 and got.tolist() == [1, -2, 0, 127, -128, 0]


def test_tensorrt_cast_half_and_bf16(device: gpuops.Device, xp: Any) -> None:
    x = to_backend(xp, np.int32([16842753, 65520, -3]))
    half = to_host(tensorrt.cast(x, "HALF", device=device))
    bf = to_host(tensorrt.cast(x, "kBF16", device=device))
    assert half.dtype == np.float16 and half.astype(np.float64).tolist() == [np.inf, np.inf, -3.0]
    # 16842753 = 2**24 + 2**16 + 1: above the midpoint of bfloat16's grid there, so up to 2**24 + 2**17.
    assert bf.dtype == ml_dtypes.bfloat16 and bf.astype(np.float64).tolist() == [16908288.0, 65536.0, -3.0]


def test_tensorrt_cast_refuses_unknown_types() -> None:
    with pytest.raises(
        TypeError, match=r"tensorrt.cast: to_type 'kFP8' is not a TensorRT DataType; allowed: FLOAT, HALF"
    ):
        tensorrt.cast(np.float32([1.0]), "kFP8", device=gpuops.Device("numpy"))


def test_openvino_convert(device: gpuops.Device, xp: Any) -> None:
    d = to_backend(xp, np.float64([1 + 2**-11 + 2**-40, -1.5, 70000.0]))
    f16 = to_host(openvino.convert(d, "f16", device=device))
    flags = to_host(openvino.convert(to_backend(xp, np.int32([0, 3, -1])), "boolean", device=device))
    wrapped = to_host(openvino.convert(to_backend(xp, np.int64([-1, 256, 2**40 + 7])), "u8", device=device))
    assert f16.astype(np.float64).tolist() == [1 + 2**-10, -1.5, np.inf]  # one rounding, not two
    assert flags.dtype == np.bool_ and flags.tolist() == [False, True, True]
    assert wrapped.tolist() == [255, 0, 7]


def test_openvino_convert_empty_and_errors() -> None:
    dev = gpuops.Device("numpy")
    out = openvino.convert(np.zeros((0, 3), np.float32), "i32", device=dev)
    assert out.shape == (0, 3) and out.dtype == np.int32
    with pytest.raises(TypeError, match=r"openvino.convert: destination_type 'f8e4m3' is not an element type"):
        openvino.convert(np.float32([1.0]), "f8e4m3", device=dev)
