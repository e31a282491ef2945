"""The convenience call (``compiled(...)``, ``gpuops.run``, ``out=``) binds what ``execute`` would, with nothing
lost (issue 31, items 5, 6, 7, 13, 14).

- A masked array is refused, as ``execute`` refuses it (``np.asarray`` would drop its mask); an ``out=`` that is
  one keeps its mask and values.
- A graph input read by several node inputs through different strides is laid out the same whatever the order
  of the graph's input edges, with a buffer large enough for every reader; an array no single layout serves is
  refused.
- A broadcast (zero-stride) input holding ``+0.0`` and ``-0.0`` at one address is refused (they are different
  values: ``1 / x`` tells them apart); NaNs of every float type, bfloat16 included, count as equal.
- ``out=`` shaped like an 8- or 16-bit tensor whose bytes are not a multiple of 4 is filled, as such inputs are
  padded for the caller.

References: IEEE division (``1 / +0 = +inf``, ``1 / -0 = -inf``) and plain copies.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpuops
from descriptors import (
    DataType,
    ElementWiseAddOperatorDesc,
    ElementWiseIdentityOperatorDesc,
    ElementWiseRecipOperatorDesc,
    GraphDesc,
    InputEdge,
    OperatorNode,
    OutputEdge,
    TensorDesc,
)
from gpuops.errors import BindingError

NUMPY = gpuops.Device("numpy")


def test_masked_inputs_are_refused_by_every_path() -> None:
    t = TensorDesc(DataType.FLOAT32, (3,))
    desc = ElementWiseAddOperatorDesc(t, t, t)
    x = np.ma.masked_array(np.array([1.0, 2.0, 3.0], np.float32), mask=[False, True, False])
    y = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="masked array"):
        gpuops.run(desc, x, y, device=NUMPY)
    compiled = NUMPY.compile_operator(NUMPY.create_operator(desc))
    with pytest.raises(TypeError, match="masked array"):
        compiled(y, x)
    out = np.ma.masked_array(np.zeros(3, np.float32), mask=[True, False, False])
    with pytest.raises(TypeError, match="masked array"):
        compiled(y, y, out=out)
    assert out.mask.tolist() == [True, False, False] and out.data.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(BindingError):  # execute refuses it too: the two paths agree
        compiled.execute([x.reshape(-1), y], [np.zeros(3, np.float32)])


def _two_reader_graph(first: str) -> GraphDesc:
    """Graph input 0 read by node 0 packed (2, 3) and by node 1 through strides (0, 1) (row 0, twice); the input
    edges listed with node ``first`` first."""
    packed = TensorDesc(DataType.FLOAT32, (2, 3))
    rows = TensorDesc(DataType.FLOAT32, (2, 3), strides=(0, 1))
    nodes = (
        OperatorNode(ElementWiseIdentityOperatorDesc(packed, packed)),
        OperatorNode(ElementWiseIdentityOperatorDesc(rows, packed)),
    )
    edges = [InputEdge(0, 0, 0), InputEdge(0, 1, 0)]
    if first == "strided":
        edges.reverse()
    return GraphDesc(1, 2, nodes, tuple(edges), (OutputEdge(0, 0, 0), OutputEdge(1, 0, 1)), ())


@pytest.mark.parametrize("first", ["packed", "strided"])
def test_graph_input_layout_does_not_depend_on_edge_order(first: str) -> None:
    compiled = NUMPY.compile_graph(_two_reader_graph(first))
    same_rows = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], np.float32)
    a, b = compiled(same_rows)
    np.testing.assert_array_equal(a, same_rows)
    np.testing.assert_array_equal(b, same_rows)
    other_rows = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    with pytest.raises(ValueError, match="different strides"):
        compiled(other_rows)
    a, b = compiled(other_rows.reshape(-1))  # the buffer itself: each node reads it through its own strides
    np.testing.assert_array_equal(a, other_rows)
    np.testing.assert_array_equal(b, np.stack([other_rows[0], other_rows[0]]))


def test_broadcast_zeros_of_both_signs_are_different_values() -> None:
    b = TensorDesc.broadcast(DataType.FLOAT32, (1,), to=(2,))
    t = TensorDesc(DataType.FLOAT32, (2,))
    compiled = NUMPY.compile_operator(NUMPY.create_operator(ElementWiseRecipOperatorDesc(b, t)))
    with pytest.raises(ValueError, match="zero strides"):
        compiled(np.array([0.0, -0.0], np.float32))
    np.testing.assert_array_equal(compiled(np.array([-0.0, -0.0], np.float32)), [-np.inf, -np.inf])
    np.testing.assert_array_equal(compiled(np.array([0.0, 0.0], np.float32)), [np.inf, np.inf])


@pytest.mark.parametrize(
    "dt", [DataType.FLOAT32, DataType.FLOAT16, DataType.FLOAT64, DataType.BFLOAT16], ids=lambda d: d.name
)
def test_broadcast_nans_are_equal_in_every_float_type(dt: DataType) -> None:
    b = TensorDesc(dt, (2, 2), strides=(0, 1))
    t = TensorDesc(dt, (2, 2))
    compiled = NUMPY.compile_operator(NUMPY.create_operator(ElementWiseIdentityOperatorDesc(b, t)))
    x = np.array([[np.nan, 1.0], [np.nan, 1.0]], np.float64).astype(dt.numpy_dtype)
    got = compiled(x.T.copy().T)  # a transposed view: laid out, not flattened
    assert np.isnan(np.asarray(got, np.float64)[:, 0]).all()
    assert (np.asarray(got, np.float64)[:, 1] == 1.0).all()


@pytest.mark.parametrize(
    ("dt", "shape"),
    [(DataType.FLOAT16, (3,)), (DataType.INT8, (2, 3)), (DataType.UINT8, (1,)), (DataType.BFLOAT16, (5,))],
)
def test_out_of_an_odd_byte_size_is_filled(dt: DataType, shape: tuple[int, ...]) -> None:
    t = TensorDesc(dt, shape)
    x = (np.arange(np.prod(shape)) % 7).astype(dt.numpy_dtype).reshape(shape)
    compiled = NUMPY.compile_operator(NUMPY.create_operator(ElementWiseIdentityOperatorDesc(t, t)))
    out = np.full(shape, 9, dt.numpy_dtype)
    assert compiled(x, out=out) is out
    np.testing.assert_array_equal(out, x)
    flat = np.full(int(np.prod(shape)), 9, dt.numpy_dtype)
    compiled(x, out=flat)
    np.testing.assert_array_equal(flat, x.reshape(-1))
    readonly = np.full(shape, 9, dt.numpy_dtype)
    readonly.flags.writeable = False
    with pytest.raises(BindingError, match="read-only"):
        compiled(x, out=readonly)
