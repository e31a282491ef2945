"""The CPU backend's thresholds live in one frozen object (``gpuops.backends.cpu.policy``, issue 32): its defaults
are the figures the backend documented, ``override`` swaps the one instance for a block and restores it, a bad
field or value is refused by name, and the backend reads the instance in force at each call."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from helpers import trace_parallel

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, TensorDesc
from gpuops import config
from gpuops.backends import numpy_backend
from gpuops.backends.cpu import backend, fast, policy, reductions, threads, ufunc_kernels, views

# The thresholds as the NumPy backend and its numba tier documented them (README's CPU section, issue 32's list).
DOCUMENTED = {
    "chunk": 1 << 16,
    "tile": 256,
    "thread_min": 1 << 21,
    "thread_block": 1 << 18,
    "heavy_min": 1 << 17,
    "heavy_s": 300e-6,
    "heavy_block": 1 << 16,
    "reduce_thread_min": 1 << 21,
    "reduce_thread_min_cast": 1 << 19,
    "reduce_block": 1 << 20,
    "reduce_numba_min": 1 << 17,
    "reduce_numba_rows": 8,
    "reduce_numba_native_min": 1 << 19,
    "reduce_numba_native_full_min": 1 << 20,
    "reduce_numba_thread_min": 1 << 22,
    "reduce_numba_driver": "numba",
    "reduce_numba_blocks": 4,
    "numba_min_elements": 1 << 10,
    "par_min": 1 << 15,
    "direct_min": 1 << 17,
    "slow_s": 2e-3,
    "slow_factor": 3.0,
    "slow_per_element": 2e-9,
    "credit_max_s": 0.05,
    "pause_s": 1.0,
    "pause_max_s": 32.0,
}


def test_defaults_are_the_documented_thresholds() -> None:
    assert dataclasses.asdict(policy.CpuPolicy()) == DOCUMENTED
    assert policy.current() == policy.CpuPolicy()


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.POLICY.thread_min = 1  # type: ignore[misc]


def test_override_swaps_the_instance_for_a_block_and_restores_it() -> None:
    before = policy.POLICY
    with policy.override(thread_min=16, chunk=64) as inside:
        assert policy.POLICY is inside and policy.current() is inside
        assert (inside.thread_min, inside.chunk, inside.tile) == (16, 64, before.tile)
    assert policy.POLICY is before
    with pytest.raises(RuntimeError), policy.override(tile=8):
        raise RuntimeError("inside")
    assert policy.POLICY is before


@pytest.mark.parametrize(
    ("changes", "error", "words"),
    [
        ({"thread_mn": 16}, TypeError, "thread_mn"),
        ({"thread_min": -1}, ValueError, "CpuPolicy.thread_min must be an integer >= 0 (got -1)"),
        ({"chunk": 0}, ValueError, "CpuPolicy.chunk must be an integer >= 1 (got 0)"),
        ({"tile": True}, ValueError, "CpuPolicy.tile must be an integer >= 1 (got True)"),
        ({"reduce_block": 2.0}, ValueError, "CpuPolicy.reduce_block must be an integer >= 1 (got 2.0)"),
        ({"heavy_s": math.nan}, ValueError, "CpuPolicy.heavy_s must be a number >= 0 (got nan)"),
        ({"pause_s": -1.0}, ValueError, "CpuPolicy.pause_s must be a number >= 0 (got -1.0)"),
        ({"reduce_numba_driver": "omp"}, ValueError, "reduce_numba_driver must be 'numba' or 'pool' (got 'omp')"),
    ],
)
def test_bad_changes_are_refused_and_nothing_changes(changes: dict, error: type[Exception], words: str) -> None:
    before = policy.POLICY
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        policy.POLICY.replace(**changes)
    with pytest.raises(error), policy.override(**changes):
        pass
    assert policy.POLICY is before


def test_the_backend_reads_the_policy_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A float32 add of 1000 elements bound as strided views (the general path): one call on this thread at the
    documented thresholds, blocks on the pool under ``override(thread_min=16, thread_block=100)``; the same bits."""
    seen = trace_parallel(monkeypatch, threads)
    t = TensorDesc(DataType.FLOAT32, (1000,), (2,))
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(2000).astype(np.float32) for _ in range(2))
    want = np.zeros(2000, np.float32)
    want[::2] = (a[::2].astype(np.float64) + b[::2]).astype(np.float32)
    outs = []
    with config.override(num_threads=3):
        for changes in ({}, {"thread_min": 16, "thread_block": 100}):
            out = np.zeros(2000, np.float32)
            with policy.override(**changes):
                op.execute([a, b], [out])
            outs.append(out)
    assert seen == [10]  # 1000 elements in blocks of 100, only while the override held
    for out in outs:
        np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


def test_numpy_backend_re_exports_the_moved_names() -> None:
    """The old module is the same objects under the old names; its thresholds are gone (a stale patch of
    ``numpy_backend.THREAD_MIN`` fails instead of changing nothing)."""
    assert numpy_backend.NumpyBackend is backend.NumpyBackend
    assert numpy_backend.NumpyKernel is ufunc_kernels.NumpyKernel
    assert numpy_backend.NumpyReduceKernel is reductions.NumpyReduceKernel
    assert numpy_backend.fast_paths is fast.fast_paths
    assert (numpy_backend.view_maker, numpy_backend.pointer, numpy_backend.may_overlap) == (
        views.view_maker,
        views.pointer,
        views.may_overlap,
    )
    assert gpuops.Device("numpy").backend_impl.__class__ is backend.NumpyBackend
    for name in ("THREAD_MIN", "CHUNK", "REDUCE_NUMBA_MIN", "_parallel", "_thread_count"):
        assert not hasattr(numpy_backend, name)
