"""``gpuops.dask``: compiled operators and graphs on Dask arrays, blockwise (issue 19, part 1).

NumPy references in float64; the threaded scheduler, and a real ``distributed.LocalCluster`` (worker processes
on loopback) with one worker killed mid-computation."""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import gpuops  # noqa: E402
import gpuops.dask as gd  # noqa: E402
from gpuops import ActivationReluOperatorDesc, DataType  # noqa: E402
from gpuops.dask import _runtime, blockwise  # noqa: E402


@pytest.fixture(autouse=True)
def _threads():
    with dask.config.set(scheduler="threads", num_workers=2):
        yield


def _rng_array(shape: tuple[int, ...], chunks: object, dtype: object = np.float32, seed: int = 0):
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return data, da.from_array(data, chunks=chunks)


def test_broadcast_across_differently_chunked_inputs() -> None:
    a, x = _rng_array((1000, 300), (128, 100))
    b, row = _rng_array((300,), 70, seed=1)
    y = gd.map_operator("add", x, row)
    assert isinstance(y, da.Array) and y.shape == (1000, 300) and y.dtype == np.float32
    assert y.numblocks[0] == 8 and y.numblocks[1] > 3  # Dask unified 100- and 70-chunks: finer blocks
    got = y.compute()
    np.testing.assert_array_equal(got, (a.astype(np.float64) + b).astype(np.float32))


def test_uneven_chunks_and_a_size_one_dimension() -> None:
    a, x = _rng_array((257, 19), ((100, 1, 156), (7, 5, 7)))
    c, col = _rng_array((257, 1), (50, 1), seed=2)  # read through a zero stride along dimension 1
    got = gd.map_operator("ELEMENT_WISE_MULTIPLY", x, col).compute()
    np.testing.assert_array_equal(got, (a.astype(np.float64) * c).astype(np.float32))


def test_fields_and_a_fused_activation() -> None:
    a, x = _rng_array((64, 33), (20, 10))
    got = gd.map_operator("clip", x, min=-0.5, max=0.25).compute()
    np.testing.assert_array_equal(got, np.clip(a, -0.5, 0.25))
    got = gd.map_operator("add1", x, x, fused_activation=ActivationReluOperatorDesc()).compute()
    np.testing.assert_array_equal(got, np.maximum(a.astype(np.float64) * 2, 0).astype(np.float32))


def test_float16() -> None:
    a, x = _rng_array((301, 17), (64, 8), dtype=np.float16)
    b, y = _rng_array((301, 17), (50, 17), dtype=np.float16, seed=3)  # odd-sized chunks: buffers pad to 4 bytes
    got = gd.map_operator("sub", x, y).compute()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (a.astype(np.float64) - b).astype(np.float16))


def test_comparison_output_type_follows_the_op_table_or_is_given() -> None:
    a, x = _rng_array((40, 40), 16)
    b, y = _rng_array((40,), 16, seed=4)
    lt = gd.map_operator("logical_less_than", x, y)
    assert lt.dtype == np.uint8
    np.testing.assert_array_equal(lt.compute(), (a < b).astype(np.uint8))
    assert gd.map_operator("logical_less_than", x, y, output_type="bool").dtype == np.bool_


def test_a_compiled_graph_blockwise_is_one_kernel_per_chunk() -> None:
    a, x = _rng_array((500, 120), (97, 50))
    b, bias = _rng_array((120,), 45, seed=5)
    y = gd.map_graph(lambda g, x, bias: g.relu(x * 0.5 + bias) * x, x, bias)
    assert y.dtype == np.float32
    ref = (np.maximum((a.astype(np.float64) * 0.5 + b).astype(np.float32), 0).astype(np.float64) * a).astype(np.float32)
    np.testing.assert_allclose(y.compute(), ref, rtol=1e-6, atol=1e-6)
    graph, _, _ = blockwise._graph(
        blockwise._GraphSpec(lambda g, x, bias: g.relu(x * 0.5 + bias) * x, "t"),
        ((97, 45), (45,)),
        (DataType.FLOAT32,) * 2,
    )
    assert gpuops.Device("numpy").compile_graph(graph).kernel_count == 1


def test_a_graph_with_two_outputs() -> None:
    a, x = _rng_array((70, 30), (33, 16))
    s, p = gd.map_graph(lambda g, x: [x + 1.0, x * x], x)
    np.testing.assert_allclose(s.compute(), a + 1, rtol=1e-7)
    np.testing.assert_allclose(p.compute(), a * a, rtol=1e-7)


def test_numpy_inputs_and_a_scalar_result() -> None:
    got = gd.map_operator("add", np.float32([1, 2, 3]), np.float32(10)).compute()
    np.testing.assert_array_equal(got, [11, 12, 13])
    assert gd.map_operator("add", np.float64(2), np.float64(3)).compute() == 5.0


def test_empty_chunks() -> None:
    a, x = _rng_array((10, 6), (5, 3))
    y = gd.map_operator("add", x[3:3], x[3:3])
    assert y.shape == (0, 6)
    assert y.compute().shape == (0, 6)


def test_bad_shapes_are_refused_when_the_array_is_made() -> None:
    _, x = _rng_array((1000, 300), (128, 100))
    _, row = _rng_array((299,), 70)
    with pytest.raises(ValueError, match=r"shapes \(1000, 300\), \(299,\) do not broadcast"):
        gd.map_operator("add", x, row)


def test_mistakes_are_raised_on_the_client() -> None:
    _, x = _rng_array((8, 8), 4)
    with pytest.raises(ValueError, match="no data-type combination"):
        gd.map_operator("add", x, x.astype(np.int32))
    with pytest.raises(ValueError, match="not element-wise"):
        gd.map_graph(lambda g, x: g.reduce(x, function=gpuops.ReduceFunction.SUM, axes=(1,)), x)
    with pytest.raises(gpuops.DescriptorError, match="fusable activations"):
        gd.map_operator("add1", x, x, fused_activation=gpuops.ElementWiseExpOperatorDesc(None, None))


def test_what_travels_pickles_and_compiles_once_per_shape() -> None:
    _, x = _rng_array((100, 10), ((30, 30, 30, 10), 10))
    y = gd.map_operator("add", x, x)
    graph = dict(y.__dask_graph__())
    pickle.loads(pickle.dumps(graph))  # descriptors and fields only: no compiled kernels
    _runtime._compiled_exact.cache_clear()  # the cache behind _runtime.compiled, keyed by exact descriptor bits
    y.compute()
    assert _runtime._compiled_exact.cache_info().currsize == 2  # chunk shapes (30, 10) and (10, 10)


def test_chunks_of_another_type_are_refused() -> None:
    with pytest.raises(TypeError, match=r"numpy\.ndarray chunks"):
        _runtime.backend_of([np.ma.masked_array([1.0])])


def test_cupy_chunks_run_on_cupy() -> None:
    from tests.conftest import cuda_unusable_reason

    reason = cuda_unusable_reason()
    if reason:
        pytest.skip(reason)
    import cupy

    a, x = _rng_array((300, 50), (64, 20))
    got = gd.map_operator("add", x.map_blocks(cupy.asarray), 1 + x.map_blocks(cupy.asarray)).compute()
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(got), (a.astype(np.float64) * 2 + 1).astype(np.float32))


def test_local_cluster_survives_a_killed_worker() -> None:
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    start = time.monotonic()
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=40,
        ) as cluster,
        distributed.Client(cluster, timeout=30) as client,
    ):
        pids = client.run(os.getpid)
        assert len(pids) == 2
        a, x = _rng_array((600, 200), (30, 100))
        b, row = _rng_array((200,), 70, seed=6)
        slow = x.map_blocks(lambda c: (time.sleep(0.05), c)[1])  # 40 tasks of 50 ms: time to kill one worker
        y = gd.map_graph(lambda g, x, row: g.relu(x - row) + 1.0, slow, row)
        future = client.compute(y)
        victim, pid = next(iter(pids.items()))
        deadline = time.monotonic() + 20
        while not any("graph" in str(k) for k in client.has_what().get(victim, ())):
            assert time.monotonic() < deadline, "no gpuops task finished on the worker to kill"
            time.sleep(0.01)
        assert not future.done()
        os.kill(pid, signal.SIGKILL)  # its results are lost: the scheduler recomputes them elsewhere
        got = future.result(timeout=60)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    ref = (np.maximum(a.astype(np.float64) - b, 0).astype(np.float32) + np.float32(1)).astype(np.float32)
    np.testing.assert_array_equal(got, ref)
    assert time.monotonic() - start < 60
