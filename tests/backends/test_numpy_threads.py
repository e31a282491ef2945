"""The NumPy backend's block paths (threads, tiles) give the one-call result, in place too.

``THREAD_MIN`` and ``TILE`` are lowered so small arrays take the paths; a spy on
``_parallel`` proves they ran. References are float64 NumPy (exact for these operations).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from helpers import trace_parallel

import gpuops
from descriptors import (
    DataType,
    ElementWiseAddOperatorDesc,
    ElementWiseExpOperatorDesc,
    ElementWiseMaxOperatorDesc,
    ScaleBias,
    TensorDesc,
)
from gpuops import config
from gpuops.backends.cpu import policy as cpu_policy
from gpuops.backends.cpu import threads as cpu_threads
from gpuops.backends.cpu import ufunc_kernels

F32 = DataType.FLOAT32


@pytest.fixture(autouse=True)
def ufunc_path() -> Iterator[None]:
    """These tests are about the ufunc path's blocks: keep large operators off the numba tier."""
    with config.override(numba=False):
        yield


@pytest.fixture
def blocks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Small thresholds, three threads; returns the block counts each _parallel call got, and
    checks that every block of every call was claimed exactly once (by whichever thread)."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(thread_min=16, thread_block=100, tile=8))
    seen = trace_parallel(monkeypatch, cpu_threads)
    with config.override(num_threads=3):
        yield seen


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
    assert blocks == [11, 11]  # ceil(1001 / THREAD_BLOCK) each


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
    """16-bit floats compute in float32 chunks; bfloat16's are split over threads, float16's run
    on one thread (their conversions are short passes that two threads ran slower)."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(chunk=64))
    n = 1000
    t = TensorDesc(dt, (n,))
    npdt = dt.numpy_dtype
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(n).astype(npdt), rng.standard_normal(n).astype(npdt)
    out = np.zeros(n, npdt)
    _op(ElementWiseAddOperatorDesc(t, t, t)).execute([a, b], [out])
    want = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(npdt)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))
    if dt is DataType.FLOAT16:
        assert blocks == []
    else:
        assert blocks and blocks[-1] == -(-n // 64)


def test_float16_chunks_convert_through_half_convert(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full-size float16 chunks take half_convert's passes (not NumPy's cast), with the same bits:
    overflow to inf, subnormal results, -0.0, infinities and NaN included."""
    calls = {"to32": 0, "to16": 0}
    to32, to16 = ufunc_kernels.f16_to_f32, ufunc_kernels.f32_to_f16

    def count32(src: np.ndarray, out: np.ndarray) -> None:
        calls["to32"] += 1
        to32(src, out)

    def count16(src: np.ndarray, out: np.ndarray) -> None:
        calls["to16"] += 1
        to16(src, out)

    monkeypatch.setattr(ufunc_kernels, "f16_to_f32", count32)
    monkeypatch.setattr(ufunc_kernels, "f32_to_f16", count16)
    n = 3 * cpu_policy.POLICY.chunk + 124  # float16: an even count fills whole 4-byte words
    rng = np.random.default_rng(8)
    a = rng.standard_normal(n).astype(np.float16) * np.float16(300)
    b = rng.standard_normal(n).astype(np.float16) * np.float16(300)
    specials = np.array([np.inf, -np.inf, np.nan, -0.0, 6e-8, -6e-8, 65504, 60000, 1e-5], np.float16)
    a[::7] = rng.choice(specials, a[::7].size)
    b[::5] = rng.choice(specials, b[::5].size)
    t = TensorDesc(DataType.FLOAT16, (n,))
    out = np.zeros(n, np.float16)
    _op(ElementWiseAddOperatorDesc(t, t, t)).execute([a, b], [out])
    with np.errstate(all="ignore"):  # inf + -inf, overflow: NaN and inf, as on the device
        want = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(np.float16)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(out), nan)
    np.testing.assert_array_equal(out.view(np.uint16)[~nan], want.view(np.uint16)[~nan])
    # Two inputs and one output per full chunk; the 124-element tail is below half_convert's
    # break-even size and takes NumPy's cast (also checked, by the bits above).
    assert calls["to32"] == 2 * 3 and calls["to16"] == 3
    assert np.isposinf(out).any() and (out == 0).any() and np.signbit(out[out == 0]).any()


@pytest.mark.parametrize("scale_bias", [None, ScaleBias(0.5, -1.0)], ids=["direct", "chunked"])
def test_heavy_ufunc_work_threads_below_thread_min(
    monkeypatch: pytest.MonkeyPatch, scale_bias: ScaleBias | None
) -> None:
    """Compute-bound ufunc work (EXP) is shared among threads below THREAD_MIN once one-thread calls have shown it
    takes HEAVY_S or more: the first two calls run on this thread and are timed, the next ones in blocks
    (HEAVY_BLOCK for one ufunc, CHUNK for the chunked path), and go back to one thread where the threaded calls
    were slower per element; the same bits every way. Never where calls are cheaper."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(heavy_min=64, heavy_block=100, chunk=64))
    seen = trace_parallel(monkeypatch, cpu_threads)
    n = 1000
    t = TensorDesc(F32, (n,))
    x = np.random.default_rng(5).uniform(-80, 80, n).astype(np.float32)
    x64 = x.astype(np.float64)
    # ScaleBias: x * scale, rounded to float32, + bias, rounded (DirectML's DML_SCALE_BIAS), then exp
    want = np.exp(x64 if scale_bias is None else (x * np.float32(0.5) + np.float32(-1.0)).astype(np.float64))
    for heavy_s, threaded in ((0.0, True), (1e9, False)):
        monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(heavy_s=heavy_s))
        op = _op(ElementWiseExpOperatorDesc(t, t, scale_bias=scale_bias))
        kernel = op._kernel.kernel
        for name, value in (
            ("cost", 0.0),
            ("timed", 0),
            ("cost_threads", 0.0),
            ("timed_threads", 0),
        ):  # kernels are shared: never timed
            monkeypatch.setattr(kernel, name, value)
        seen.clear()
        outs = []
        with config.override(num_threads=3):
            for _ in range(3):
                out = np.full(n, np.nan, np.float32)
                op.execute([x], [out])
                outs.append(out)
            blocks = -(-n // (100 if scale_bias is None else 64))
            assert seen == ([blocks] if threaded else []), heavy_s
            if threaded:  # two threaded calls measured slower per element than one: back to one thread
                op.execute([x], [out])
                assert seen == [blocks, blocks]
                kernel.cost_threads = 2 * kernel.cost
                op.execute([x], [out])
                assert seen == [blocks, blocks]
        for got in outs[1:]:
            np.testing.assert_array_equal(got.view(np.uint32), outs[0].view(np.uint32))
        np.testing.assert_allclose(outs[0], want, rtol=1e-6)
