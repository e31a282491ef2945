"""Threads compiling their first operators at once all get the compiled tier (issue 13, item 6).

numba's first import takes tenths of a second; a slowed ``import numba`` widens that window so a
thread that asks ``numba_loops.available()`` while another is importing would see a wrong answer.
"""

from __future__ import annotations

import builtins
import concurrent.futures
import threading
import time
from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import DataType, TensorDesc, desc_class, row_of
from gpuops import config, kernels
from gpuops.codegen.numba import loop_spec

pytest.importorskip("numba")

from gpuops.backends import numba_loops  # noqa: E402
from gpuops.backends.cpu.policy import POLICY  # noqa: E402

F16, BF16 = DataType.FLOAT16, DataType.BFLOAT16
N = POLICY.numba_min_elements + 38
THREADS = 8
NAMES = ("ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY")
CASES = [(name, dt) for name in NAMES for dt in (F16, BF16)]


@pytest.fixture
def first_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not answered ``available()`` nor built a kernel yet, whose first
    ``import numba`` takes half a second (as a cold import can)."""
    monkeypatch.setattr(numba_loops, "_available", None)
    monkeypatch.setattr(kernels, "_cache", {})
    monkeypatch.setattr(kernels, "_key_locks", {})
    real_import = builtins.__import__
    slept = threading.Event()

    def slow_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "numba" and not slept.is_set():
            slept.set()
            time.sleep(0.5)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", slow_import)


def _desc(name: str, dt: DataType) -> Any:
    t = TensorDesc(dt, (N,))
    return desc_class(name)(a_tensor=t, b_tensor=t, output_tensor=t)


def _inputs(dt: DataType) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal(N).astype(dt.numpy_dtype) for _ in range(2)]


def _at_once(jobs: list[Any]) -> list[Any]:
    """Run every job on its own thread, all released together; their results in order."""
    barrier = threading.Barrier(len(jobs))

    def run(job: Any) -> Any:
        barrier.wait()
        return job()

    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(run, jobs))


def _check(op: gpuops.CompiledOperator, dt: DataType) -> None:
    """The operator gives the ufunc path's bits."""
    ins = _inputs(dt)
    got = np.empty(N, dt.numpy_dtype)
    op.execute(ins, [got])
    dev = gpuops.Device("numpy")
    with config.override(numba=False):
        ref = dev.compile_operator(dev.create_operator(op.desc))
    want = np.empty_like(got)
    ref.execute(ins, [want])
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


def test_cases_have_loops() -> None:
    for name, dt in CASES:
        row = row_of(name)
        assert loop_spec(row, {f.name: dt for f in row.tensor_fields}) is not None, name


def test_available_answers_every_thread_during_the_first_import(first_time: None) -> None:
    assert _at_once([numba_loops.available] * THREADS) == [True] * THREADS


def test_threads_compiling_different_first_operators_all_get_the_tier(first_time: None) -> None:
    def compile_one(name: str, dt: DataType) -> gpuops.CompiledOperator:
        dev = gpuops.Device("numpy")
        return dev.compile_operator(dev.create_operator(_desc(name, dt)))

    ops = _at_once([lambda c=c: compile_one(*c) for c in CASES])
    assert [op.launch_path for op in ops] == ["numba"] * len(CASES)
    for op, (_, dt) in zip(ops, CASES, strict=True):
        _check(op, dt)


def test_threads_compiling_the_same_first_operator_all_get_one_loop(first_time: None) -> None:
    desc = _desc("ELEMENT_WISE_ADD", BF16)
    before = kernels.build_count()

    def compile_it() -> gpuops.CompiledOperator:
        dev = gpuops.Device("numpy")
        return dev.compile_operator(dev.create_operator(desc))

    ops = _at_once([compile_it] * THREADS)
    assert [op.launch_path for op in ops] == ["numba"] * THREADS
    assert len({id(op._kernel.kernel) for op in ops}) == 1, "each thread must get the one cached loop"
    assert kernels.build_count() - before == 2  # the ufunc kernel and the loop, each built once
    for op in ops:
        _check(op, BF16)
