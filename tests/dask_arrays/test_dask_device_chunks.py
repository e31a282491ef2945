"""gpuops.dask on device chunks: Dask arrays whose chunks are CuPy arrays (on a CUDA device) or, without one, the
CUDA emulator's arrays, so each task runs the CuPy backend's code path (issue 19: "CuPy chunks on 'cupy'").

The chunks are made on the device by ``map_blocks(xp.asarray)`` and brought back by ``map_blocks(xp.asnumpy)``;
everything between (the blockwise operator, the graph, the chunk / combine / aggregate steps of the tree
reductions, Dask's joining of device chunks) runs on device arrays. References: float64 NumPy (the reduction
checks of ``test_reduce_generated``), exact where the operation is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.array")

import dask
import dask.array as da
from conftest import GPU
from test_reduce_generated import check

from descriptors import DataType
from gpuops import backends
from gpuops.dask import reductions as gdr

pytestmark = pytest.mark.gpu
SHAPE = (7, 9)
CHUNKS = (3, 4)  # uneven: 3+3+1, 4+4+1


@pytest.fixture(scope="module")
def xp() -> Any:
    return backends.load(GPU).xp


@pytest.fixture(autouse=True)
def _threads() -> Any:
    with dask.config.set(scheduler="threads"):
        yield


def on_device(values: np.ndarray, xp: Any, chunks: Any = CHUNKS) -> Any:
    meta = xp.empty((0,) * values.ndim, values.dtype)
    return da.from_array(values, chunks=chunks).map_blocks(xp.asarray, meta=meta)


def to_host(x: Any, xp: Any) -> np.ndarray:
    host = x.map_blocks(xp.asnumpy, meta=np.empty((0,) * x.ndim, x.dtype)).compute()
    return np.asarray(host)


def test_chunks_run_on_the_device_backend(xp: Any) -> None:
    """Each task gets device chunks and returns one (the CuPy path ran, not NumPy's)."""
    x = on_device(np.ones(SHAPE, np.float32), xp)
    y = gdr.reduce(x, "SUM", (1,))
    blocks = [d.compute() for d in y.to_delayed().ravel()]
    assert blocks and all(type(b) is type(xp.empty(1)) for b in blocks)
    from gpuops.dask._runtime import backend_of

    assert backend_of([xp.empty(1)]) == GPU


def test_map_operator_broadcasts_device_chunks(xp: Any) -> None:
    import gpuops.dask

    rng = np.random.default_rng(19)
    a = rng.standard_normal(SHAPE).astype(np.float32)
    row = rng.standard_normal(SHAPE[1:]).astype(np.float32)
    got = to_host(gpuops.dask.map_operator("add", on_device(a, xp), on_device(row, xp, (5,))), xp)
    np.testing.assert_array_equal(got, a + row)  # one float32 add: exact as NumPy's


def test_map_graph_on_device_chunks(xp: Any) -> None:
    import gpuops.dask

    x = np.random.default_rng(7).uniform(-2, 2, SHAPE).astype(np.float32)

    def build(b: Any, v: Any) -> Any:
        return b.op("add", b.op("multiply", b.op("relu", v), v), v)

    got = to_host(gpuops.dask.map_graph(build, on_device(x, xp)), xp)
    x64 = x.astype(np.float64)
    want = np.maximum(x64, 0) * x64 + x64
    assert np.all(np.abs(got - want) <= 2 * np.spacing(np.abs(want).astype(np.float32)))


@pytest.mark.parametrize("function", ["SUM", "MAX", "AVERAGE", "L2", "LOG_SUM_EXP", "MULTIPLY"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_tree_reduction_on_device_chunks(xp: Any, function: str, dtype: str) -> None:
    rng = np.random.default_rng(list(function.encode()) + list(dtype.encode()))
    if function == "MULTIPLY":
        values = (rng.uniform(0.8, 1.25, SHAPE) * rng.choice([-1.0, 1.0], SHAPE)).astype(dtype)
    else:
        values = (rng.standard_normal(SHAPE) * 3).astype(dtype)
    x = on_device(values, xp)
    for axes in ((0,), (1,), (0, 1)):
        got = to_host(gdr.reduce(x, function, axes, split_every=2), xp)
        check(got, "REDUCE", function, values, axes, DataType.from_numpy(np.dtype(dtype)), f"{function} {axes}")


@pytest.mark.parametrize("row", ["ARGMAX", "ARGMIN"])
@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
def test_arg_ties_across_device_chunks(xp: Any, row: str, direction: str) -> None:
    values = np.random.default_rng(3).integers(-2, 3, SHAPE).astype(np.float32)  # ties across blocks
    values[4, 6] = np.nan  # a NaN in a middle block wins both ARGMAX and ARGMIN (DirectML: NaN is the extreme)
    values[1, 2] = np.nan
    fn = gdr.argmax if row == "ARGMAX" else gdr.argmin
    for axes in ((0,), (1,), (0, 1)):
        got = to_host(fn(on_device(values, xp), axes, direction=direction, split_every=2), xp)
        check(got, row, direction, values, axes, DataType.INT64, f"{row} {direction} {axes}")


def test_softmax_on_device_chunks(xp: Any) -> None:
    import gpuops.dask

    values = (np.random.default_rng(5).standard_normal(SHAPE) * 4).astype(np.float32)
    got = to_host(gpuops.dask.softmax(on_device(values, xp), axes=(1,)), xp)
    x = values.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
