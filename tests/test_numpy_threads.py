"""The NumPy backend's block paths (threads, tiles) give the one-call result, in place too.

``THREAD_MIN`` and ``TILE`` are lowered so small arrays take the paths; a spy on
``_parallel`` proves they ran. References are float64 NumPy (exact for these operations).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, ElementWiseMaxOperatorDesc, TensorDesc
from gpuops.backends import numpy_backend

F32 = DataType.FLOAT32


@pytest.fixture
def blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Small thresholds, three threads; returns the block counts each _parallel call got."""
    monkeypatch.setattr(numpy_backend, "THREAD_MIN", 16)
    monkeypatch.setattr(numpy_backend, "TILE", 8)
    monkeypatch.setenv("GPUOPS_NUM_THREADS", "3")
    seen: list[int] = []
    real = numpy_backend._parallel

    def spy(parts: list[Any], work: Callable[[list[Any]], None], size: int) -> None:
        seen.append(len(parts))
        real(parts, work, size)

    monkeypatch.setattr(numpy_backend, "_parallel", spy)
    return seen


def _op(desc: object) -> gpuops.CompiledOperator:
    dev = gpuops.Device("numpy")
    return dev.compile_operator(dev.create_operator(desc))


def test_threaded_single_ufunc_and_in_place(blocks: list[int]) -> None:
    n = 1001
    t = TensorDesc(F32, (n,))
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    want = (a.astype(np.float64) + b).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    op = _op(ElementWiseAddOperatorDesc(t, t, t))
    op.execute([a, b], [out])
    np.testing.assert_array_equal(out, want)
    op.execute([a, b], [a])  # in place: the output is input A's buffer
    np.testing.assert_array_equal(a, want)
    assert blocks == [3, 3]


def test_broadcast_operand_split_by_rows(blocks: list[int]) -> None:
    shape = (37, 29)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(29).astype(np.float32)
    out = np.empty(shape, np.float32)
    full = TensorDesc(F32, shape)
    row = TensorDesc.broadcast(F32, (29,), to=shape)
    _op(ElementWiseMaxOperatorDesc(full, row, full)).execute([x.ravel(), y], [out.ravel()])
    np.testing.assert_array_equal(out, np.maximum(x, y))
    assert blocks and blocks[-1] > 1


def test_transposed_operand_runs_in_tiles(blocks: list[int]) -> None:
    side = 30  # tiles of 8: 4 x 4 = 16 blocks, the last ones partial
    rng = np.random.default_rng(3)
    a = rng.standard_normal((side, side)).astype(np.float32)
    b = rng.standard_normal((side, side)).astype(np.float32)
    out = np.empty((side, side), np.float32)
    desc = ElementWiseAddOperatorDesc(
        TensorDesc(F32, (side, side), (1, side)), TensorDesc(F32, (side, side)), TensorDesc(F32, (side, side))
    )
    _op(desc).execute([a.ravel(), b.ravel()], [out.ravel()])
    np.testing.assert_array_equal(out, (a.T.astype(np.float64) + b).astype(np.float32))
    assert blocks == [16]


@pytest.mark.parametrize("dt", [DataType.FLOAT16, DataType.BFLOAT16])
def test_chunked_path_threaded(blocks: list[int], monkeypatch: pytest.MonkeyPatch, dt: DataType) -> None:
    """16-bit floats compute in float32 chunks; with several chunks, threads split them."""
    monkeypatch.setattr(numpy_backend, "CHUNK", 64)
    n = 1000
    t = TensorDesc(dt, (n,))
    npdt = dt.numpy_dtype
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(n).astype(npdt), rng.standard_normal(n).astype(npdt)
    out = np.zeros(n, npdt)
    _op(ElementWiseAddOperatorDesc(t, t, t)).execute([a, b], [out])
    want = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(npdt)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))
    assert blocks and blocks[-1] == -(-n // 64)
