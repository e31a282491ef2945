"""Hypothesis properties: in place equals out of place; TensorDesc.broadcast reproduces NumPy broadcasting."""

from __future__ import annotations

import numpy as np
from helpers import buffer_for, flush_subnormals, read_tensor, to_backend, to_host, uint_view
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gpuops
from descriptors import (
    DataType,
    ElementWiseAddOperatorDesc,
    ElementWiseMaxOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    TensorDesc,
    packed_strides,
)

OPS = {
    "ADD": ElementWiseAddOperatorDesc,
    "MULTIPLY": ElementWiseMultiplyOperatorDesc,
    "MAX": ElementWiseMaxOperatorDesc,
}
DTYPES = [DataType.FLOAT32, DataType.FLOAT16, DataType.INT32, DataType.UINT8, DataType.INT64]


def _elements(dt: DataType) -> st.SearchStrategy:
    if dt.is_float:
        return st.floats(width=dt.numpy_dtype.itemsize * 8, allow_nan=True, allow_infinity=True)
    info = np.iinfo(dt.numpy_dtype)
    return st.integers(int(info.min), int(info.max))


@st.composite
def in_place_problem(draw: st.DrawFn) -> tuple:
    op = draw(st.sampled_from(sorted(OPS)))
    dt = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5))
    # Optionally a padded row pitch (identical for A and the output, as in-place requires).
    pad = draw(st.integers(0, 3))
    strides = None
    if pad:
        # Pad the outermost stride only (a row pitch): the layout still never overlaps.
        packed = packed_strides(shape)
        strides = (packed[0] + pad, *packed[1:])
    a = draw(hnp.arrays(dt.numpy_dtype, shape, elements=_elements(dt)))
    b = draw(hnp.arrays(dt.numpy_dtype, shape, elements=_elements(dt)))
    return op, dt, shape, strides, a, b


# The backend fixtures only name the backend; nothing in them is per-example state.
FIXTURES_OK = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@FIXTURES_OK
@given(problem=in_place_problem())
def test_in_place_equals_out_of_place(problem: tuple, backend: str, xp: object) -> None:
    op_name, dt, shape, strides, a, b = problem
    device = gpuops.Device(backend)
    da = TensorDesc(dt, shape, strides)
    db = TensorDesc(dt, shape)
    op = device.compile_operator(device.create_operator(OPS[op_name](da, db, da)))
    buf_a, buf_b = buffer_for(da, a), buffer_for(db, b)

    separate = to_backend(xp, np.zeros_like(buf_a))
    op.execute([to_backend(xp, buf_a.copy()), to_backend(xp, buf_b)], [separate])
    shared = to_backend(xp, buf_a.copy())
    op.execute([shared, to_backend(xp, buf_b)], [shared])
    # Inside the tensor, in place must leave exactly what out of place writes (padding
    # bytes of an output are DirectML's to overwrite, so they are not compared).
    np.testing.assert_array_equal(uint_view(read_tensor(shared, da)), uint_view(read_tensor(separate, da)))


@st.composite
def broadcast_problem(draw: st.DrawFn) -> tuple:
    dt = draw(st.sampled_from([DataType.FLOAT32, DataType.INT32]))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
    assume(len(shapes.result_shape) >= 1)
    sa, sb = shapes.input_shapes
    a = draw(hnp.arrays(dt.numpy_dtype, sa, elements=_elements(dt)))
    b = draw(hnp.arrays(dt.numpy_dtype, sb, elements=_elements(dt)))
    return dt, a, b, shapes.result_shape


@FIXTURES_OK
@given(problem=broadcast_problem())
def test_broadcast_matches_numpy_add(problem: tuple, backend: str, xp: object) -> None:
    dt, a, b, result_shape = problem
    device = gpuops.Device(backend)
    da = TensorDesc.broadcast(dt, a.shape, result_shape)
    db = TensorDesc.broadcast(dt, b.shape, result_shape)
    do = TensorDesc(dt, result_shape)
    # The stride-0 descriptors read each input's own packed data: the buffer is just a.ravel().
    buf_a = np.ascontiguousarray(a).ravel()
    buf_b = np.ascontiguousarray(b).ravel()
    need_a = -(-da.total_tensor_size_in_bytes // a.itemsize)
    need_b = -(-db.total_tensor_size_in_bytes // b.itemsize)
    buf_a = np.concatenate([buf_a, np.zeros(max(0, need_a - buf_a.size), a.dtype)])
    buf_b = np.concatenate([buf_b, np.zeros(max(0, need_b - buf_b.size), b.dtype)])
    out = buffer_for(do, np.zeros(result_shape))
    op = device.compile_operator(device.create_operator(ElementWiseAddOperatorDesc(da, db, do)))
    dev_out = to_backend(xp, out)
    op.execute([to_backend(xp, buf_a), to_backend(xp, buf_b)], [dev_out])
    with np.errstate(all="ignore"):
        # On CuPy and the emulator float32 addition flushes subnormal operands and results to zeros of their sign
        # (README, "Subnormals, per backend": 1.4e-45 + 0 is 0 there); NumPy keeps them.
        want = flush_subnormals(np.add(flush_subnormals(a, backend), flush_subnormals(b, backend)), backend)
    got = read_tensor(to_host(dev_out), do)
    assert got.shape == want.shape
    # Exactly np.add's values (NaN counts as equal to NaN: payloads are the hardware's).
    np.testing.assert_array_equal(got, want)
    if dt.is_float:  # and the sign of every zero (assert_array_equal says 0.0 == -0.0)
        real = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))
