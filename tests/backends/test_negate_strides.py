"""ELEMENT_WISE_NEGATE and ELEMENT_WISE_IS_NAN with strided tensors on the NumPy backend.

NumPy 2.4's ``negative`` loop reads an input whose step is itemsize elements (float32 and int32
views with step 4) as if it were contiguous when the output is not contiguous:
``np.negative(a[::4], out=b[::2])`` gave -a[0], -a[1], ... The backend goes around it
(``descriptors.ops.common_numpy.negative``); these tests hold the operator to -x whatever NumPy does.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseNegateOperatorDesc, TensorDesc, desc_class
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


@pytest.mark.parametrize("out_type", ["BOOL", "UINT8"])
@pytest.mark.parametrize("dtype", ["FLOAT32", "FLOAT64", "FLOAT16"])
def test_is_nan_into_a_strided_output(dtype: str, out_type: str) -> None:
    """NumPy 2.4's isnan misses NaNs when it writes a non-contiguous BOOL output (``np.isnan(a, out=b[::2])``,
    float32 and float64; the contract fuzz found it through ELEMENT_WISE_IS_NAN with output strides (2, 1)):
    the backend goes around it (``common_numpy.is_nan``)."""
    dt, ot = DataType[dtype], DataType[out_type]
    x_desc = TensorDesc(dt, (1890, 1))
    y_desc = TensorDesc(ot, (1890, 1), strides=(2, 1))
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc_class("ELEMENT_WISE_IS_NAN")(x_desc, y_desc)))
    x = np.random.default_rng(0).standard_normal(1890).astype(dt.numpy_dtype)
    x[::7] = np.nan
    y = np.full(3780, 7, ot.numpy_dtype)
    op.execute([x], [y])
    assert y[::2].astype(np.int64).tolist() == (x != x).astype(np.int64).tolist()
    assert (y[1::2] == np.full(1890, 7, ot.numpy_dtype)).all(), "wrote between the output's elements"
