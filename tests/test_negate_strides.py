"""ELEMENT_WISE_NEGATE with strided tensors on the NumPy backend.

NumPy 2.4's ``negative`` loop reads an input whose step is itemsize elements (float32 and int32
views with step 4) as if it were contiguous when the output is not contiguous:
``np.negative(a[::4], out=b[::2])`` gave -a[0], -a[1], ... The backend goes around it
(``descriptors.ops.common_numpy.negative``); these tests hold the operator to -x whatever NumPy does.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseNegateOperatorDesc, TensorDesc
from descriptors.ops.common_numpy import negative


@pytest.mark.parametrize("dtype", ["FLOAT32", "INT32", "FLOAT64", "FLOAT16", "INT8"])
def test_negate_strided_input_into_strided_output(dtype: str) -> None:
    dt = DataType[dtype]
    x_desc = TensorDesc(dt, (8,), strides=(4,))
    y_desc = TensorDesc(dt, (8,), strides=(2,))
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(ElementWiseNegateOperatorDesc(x_desc, y_desc)))
    x = (np.arange(32) + 1).astype(dt.numpy_dtype)
    y = np.full(16, 99, dt.numpy_dtype)
    op.execute([x], [y])
    want = -(np.arange(32)[::4] + 1).astype(np.float64)
    assert y[::2].astype(np.float64).tolist() == want.tolist()
    assert (y[1::2] == 99).all()  # the padding between output elements is untouched


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_negative_helper_matches_negation_for_every_step(dtype: type) -> None:
    a = (np.arange(256) + 1).astype(dtype)
    for step_in in (1, 2, 4, 8):
        for step_out in (1, 2, 3):
            out = np.zeros(16 * step_out, dtype)
            negative(a[::step_in][:16], out[::step_out])
            assert out[::step_out].tolist() == (-(a[::step_in][:16])).tolist(), (step_in, step_out)
