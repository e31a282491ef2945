"""The convenience call (issue 17, item 1): ``compiled(*inputs, out=None)`` and ``gpuops.run``; references are
float64 NumPy; ``execute`` stays the zero-copy path. Plus ``from gpuops import <descriptors' names>``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import to_backend, to_host

import descriptors
import gpuops
from gpuops import (
    ActivationReluOperatorDesc,
    DataType,
    ElementWiseAddOperatorDesc,
    GraphBuilder,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)

F32, F16 = DataType.FLOAT32, DataType.FLOAT16


def add_desc() -> ElementWiseAddOperatorDesc:
    """The README example: out[i, j] = a[i, j] + b[j], B read as (2, 3) through a zero stride."""
    a = TensorDesc(F32, (2, 3))
    return ElementWiseAddOperatorDesc(a, TensorDesc.broadcast(F32, (3,), to=(2, 3)), a)


def test_every_public_name_of_descriptors_is_in_gpuops() -> None:
    for name in descriptors.__all__:
        assert getattr(gpuops, name) is getattr(descriptors, name), name


def test_run_in_one_line(device: gpuops.Device, xp: Any) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.float32([10, 20, 30])
    got = gpuops.run(add_desc(), to_backend(xp, a), to_backend(xp, b), device=device)
    assert got.shape == (2, 3)
    assert to_host(got).tolist() == (a.astype(np.float64) + b).tolist()


def test_shaped_flat_and_broadcast_inputs(device: gpuops.Device, xp: Any) -> None:
    op = device.compile_operator(device.create_operator(add_desc()))
    a = np.arange(6, dtype=np.float32)
    want = (a.reshape(2, 3) + np.float32([1, 2, 3])).tolist()
    for b in (np.float32([1, 2, 3]), np.float32([[1, 2, 3], [1, 2, 3]])):  # the buffer, or the (2, 3) view of it
        got = op(to_backend(xp, a.reshape(2, 3)), to_backend(xp, b))
        assert to_host(got).tolist() == want
    got = op(to_backend(xp, a), to_backend(xp, np.float32([1, 2, 3])))  # flat buffers
    assert to_host(got).tolist() == want


def test_padding_and_strided_outputs() -> None:
    """Three float16 elements need an 8-byte buffer; a padded output comes back as its (2, 3) view."""
    dev = gpuops.Device("numpy")
    t3 = TensorDesc(F16, (3,))
    got = gpuops.run(ActivationReluOperatorDesc(t3, t3), np.float16([-1, 2, -3]), device=dev)
    assert got.tolist() == [0.0, 2.0, 0.0] and got.base is not None and got.base.size == 4
    padded = TensorDesc(F32, (2, 3), (4, 1))
    got = gpuops.run(ActivationReluOperatorDesc(TensorDesc(F32, (2, 3)), padded),
                     np.float32([[-1, 2, -3], [4, -5, 6]]), device=dev)  # fmt: skip
    assert got.shape == (2, 3) and got.strides == (16, 4)
    assert got.tolist() == [[0, 2, 0], [4, 0, 6]]


def test_out_writes_into_the_callers_arrays(device: gpuops.Device, xp: Any) -> None:
    op = device.compile_operator(device.create_operator(add_desc()))
    out = to_backend(xp, np.zeros((2, 3), np.float32))
    got = op(to_backend(xp, np.ones((2, 3), np.float32)), to_backend(xp, np.float32([1, 2, 3])), out=out)
    assert got is out
    assert to_host(out).tolist() == [[2, 3, 4], [2, 3, 4]]


def test_a_reduction_and_a_graph(device: gpuops.Device, xp: Any) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F32, (3, 4)), TensorDesc(F32, (3, 1)), axes=(1,))
    summed = to_host(gpuops.run(desc, to_backend(xp, x), device=device))
    gb = GraphBuilder()
    v = gb.input(TensorDesc(F32, (3, 4)))
    graph = gb.compile([gb.relu(v - 5), gb.reduce(v, function=ReduceFunction.MAX, axes=(0,))], device)
    r, m = graph(to_backend(xp, x))
    assert summed.ravel().tolist() == x.sum(1).tolist()
    assert to_host(r).tolist() == np.maximum(x - 5, 0).tolist()
    assert to_host(m).tolist() == [x.max(0).tolist()]


def test_mistakes_get_clear_errors() -> None:
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(add_desc()))
    b = np.float32([1, 2, 3])
    with pytest.raises(
        ValueError, match=r"ELEMENT_WISE_ADD: input 0 has shape \(3, 2\); the tensor's sizes are \(2, 3\)"
    ):
        op(np.zeros((3, 2), np.float32), b)
    with pytest.raises(ValueError, match="zero strides"):
        op(np.zeros((2, 3), np.float32), np.float32([[1, 2, 3], [1, 2, 4]]))
    with pytest.raises(TypeError, match=r"ELEMENT_WISE_ADD: input 0 has dtype float64; the tensor is FLOAT32"):
        op(np.zeros((2, 3)), b)
    with pytest.raises(TypeError, match="takes 2 inputs, got 1"):
        op(b)
    with pytest.raises(TypeError, match="out holds 2 arrays; the operator has 1 output$"):
        op(np.zeros((2, 3), np.float32), b, out=(b, b))
    with pytest.raises(gpuops.BindingError, match="holds 8 bytes"):
        op(np.zeros(2, np.float32), b)  # a flat buffer too short: execute's own check


@pytest.mark.gpu
def test_the_emulator_refuses_host_arrays_as_cupy_would() -> None:
    from conftest import GPU

    if GPU != "emulator":
        pytest.skip("a real CUDA device: the emulator is not the GPU backend here")
    dev = gpuops.Device("emulator")
    with pytest.raises(TypeError, match="host array"):
        gpuops.run(add_desc(), np.zeros((2, 3), np.float32), np.zeros(3, np.float32), device=dev)


class DLPackOnly:
    """A tensor of another library, seen only through DLPack (as a torch or JAX CPU tensor is)."""

    def __init__(self, arr: np.ndarray, requires_grad: bool = False) -> None:
        self._arr = arr
        self.requires_grad = requires_grad

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self._arr.__dlpack_device__()


def test_dlpack_tensors_bind_without_a_copy() -> None:
    """execute and the convenience call take DLPack tensors on the NumPy backend: the output's memory is the
    caller's (pointer equality through the written values), the inputs are read in place."""
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(add_desc()))
    a, b, out = np.arange(6, dtype=np.float32), np.float32([1, 2, 3]), np.zeros(6, np.float32)
    op.execute([DLPackOnly(a), DLPackOnly(b)], [DLPackOnly(out)])
    assert out.tolist() == [1, 3, 5, 4, 6, 8]
    out[:] = 0
    given = DLPackOnly(out)
    got = op(DLPackOnly(a.reshape(2, 3)), DLPackOnly(b), out=given)
    assert got is given and out.tolist() == [1, 3, 5, 4, 6, 8]  # the caller's own object, filled in place
    with pytest.raises(TypeError, match="requires grad; gpuops computes no gradients: pass x.detach()"):
        op(DLPackOnly(a, requires_grad=True), b)
