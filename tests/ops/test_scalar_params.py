"""Descriptor scalars reach the kernel as typed arguments, exactly (CLIP1's DML_SCALAR_UNION)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, to_backend, to_host

from descriptors import DataType, ElementWiseClip1OperatorDesc, TensorDesc


def _clip1(device: Any, xp: Any, dt: DataType, x: list, lo: Any, hi: Any) -> np.ndarray:
    t = TensorDesc(dt, (len(x),))
    desc = ElementWiseClip1OperatorDesc(t, t, min_max_data_type=dt, min=lo, max=hi)
    op = device.compile_operator(device.create_operator(desc))
    xs = to_backend(xp, buffer_for(t, np.array(x, dtype=object).astype(dt.numpy_dtype)))
    out = to_backend(xp, buffer_for(t, np.zeros(len(x))))
    op.execute([xs], [out])
    return read_tensor(to_host(out), t)


@pytest.mark.parametrize("dt", [DataType.FLOAT16, DataType.BFLOAT16], ids=lambda d: d.name)
def test_16_bit_float_bounds_are_values_of_their_type(dt: DataType, device: Any, xp: Any) -> None:
    """min = 0.1 means the 16-bit value nearest 0.1 (the union holds a value of MinMaxDataType)."""
    got = _clip1(device, xp, dt, [0.0, 5.0], 0.1, 1.0)
    want = np.array([0.1, 1.0]).astype(dt.numpy_dtype)
    assert got.tobytes() == want.tobytes(), (got, want)
    assert float(want[0]) != 0.1  # the rounding is real


def test_int64_bounds_arrive_exactly(device: Any, xp: Any) -> None:
    lo, hi = -(2**62) - 1, 2**62 + 1  # not representable in float32 or float64
    got = _clip1(device, xp, DataType.INT64, [-(2**63), 2**63 - 1, 7], lo, hi)
    assert got.tolist() == [lo, hi, 7]
