"""The front-ends' shared layer (``gpuops.frontends._common``): arrays in, descriptors run.

References are float64 NumPy; the layer must move nothing between host and GPU on its own,
read non-contiguous and 0-d arrays correctly, and build each descriptor's operator once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import GPU

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc
from gpuops.frontends import _common

F32 = DataType.FLOAT32


def _add(device: gpuops.Device, xp: Any, a: Any, b: Any) -> Any:
    shape = np.broadcast_shapes(a.shape, b.shape)
    desc = ElementWiseAddOperatorDesc(
        _common.tensor(F32, a.shape, to=shape), _common.tensor(F32, b.shape, to=shape), _common.tensor(F32, shape)
    )
    out = _common.empty(xp, shape, F32)
    _common.run(device, desc, [a, b], out)
    return out.reshape(shape)


def test_default_device_is_made_once() -> None:
    assert _common.default_device() is _common.default_device()


def test_non_contiguous_and_broadcast_inputs(device: gpuops.Device, xp: Any) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = xp.asarray(host)[:, ::-2]  # (3, 2), negative strides
    b = xp.asarray(np.array([[10.0], [20.0], [30.0]], np.float32))  # (3, 1), broadcast along axis 1
    got = _add(device, xp, a, b)
    want = host[:, ::-2].astype(np.float64) + np.array([[10.0], [20.0], [30.0]])
    assert np.array_equal(_host(got), want)


def test_zero_dimensional_arrays_run_as_shape_one(device: gpuops.Device, xp: Any) -> None:
    a = xp.asarray(np.float32(1.5))
    b = xp.asarray(np.float32(2.25))
    assert _common.tensor(F32, a.shape).sizes == (1,)
    got = _add(device, xp, a, b)
    assert got.shape == () and float(got) == 3.75


def test_compiled_operator_is_cached(device: gpuops.Device) -> None:
    t = _common.tensor(F32, (5,))
    desc = ElementWiseAddOperatorDesc(t, t, t)
    assert _common.compiled(device, desc) is _common.compiled(device, ElementWiseAddOperatorDesc(t, t, t))


def test_numpy_backend_rejects_gpu_arrays() -> None:
    class FakeGpuArray:  # anything exposing __cuda_array_interface__ lives on a GPU
        __cuda_array_interface__ = {"shape": (1,), "typestr": "<f4", "data": (0, False), "version": 3}

    with pytest.raises(TypeError, match="GPU array.*NumPy backend"):
        _common.to_backend(gpuops.Device("numpy"), FakeGpuArray(), "input1")


def test_numpy_backend_takes_lists_and_scalars() -> None:
    got = _common.to_backend(gpuops.Device("numpy"), [1.0, 2.0], "input1")
    assert isinstance(got, np.ndarray) and got.tolist() == [1.0, 2.0]


@pytest.mark.gpu
def test_gpu_backend_rejects_host_arrays() -> None:
    with pytest.raises(TypeError, match=f"host array.*{'CuPy' if GPU == 'cupy' else 'emulator'} backend"):
        _common.to_backend(gpuops.Device(GPU), np.zeros(3, np.float32), "input1")


def test_data_type_names_the_argument() -> None:
    with pytest.raises(TypeError, match="src has dtype complex64"):
        _common.data_type(np.zeros(2, np.complex64), "src")


def test_return_like_keeps_numpy() -> None:
    out = np.zeros(2)
    assert _common.return_like(np.ones(2), out) is out


def _host(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)


# --- issue 13: holes of the same kinds in the front-ends -------------------------------------


def test_masked_arrays_are_refused_by_every_front_end() -> None:
    """A front-end reads plain memory: a masked array's mask would be dropped (a wrong answer)."""
    from gpuops.frontends import onednn, openvino, tensorrt

    dev = gpuops.Device("numpy")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = np.ma.masked_array(a, mask=a > 2)
    with pytest.raises(TypeError, match="masked array"):
        tensorrt.elementwise(m, a, tensorrt.ElementWiseOperation.SUM, device=dev)
    with pytest.raises(TypeError, match="masked array"):
        onednn.eltwise_forward("eltwise_relu", m, device=dev)
    with pytest.raises(TypeError, match="masked array"):
        openvino.add(a, m, device=dev)


def test_front_end_numbers_beyond_their_range() -> None:
    from gpuops.frontends import onednn, tensorrt

    dev = gpuops.Device("numpy")
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="alpha .*beyond FLOAT32"):
        onednn.eltwise_forward("eltwise_linear", a, alpha=10**400, device=dev)
    with pytest.raises(ValueError, match="axes is an integer of 20001 bits"):
        tensorrt.reduce(a, tensorrt.ReduceOperation.SUM, axes=2**20000, keep_dims=True, device=dev)
