"""The compiled tier on numba's native threads (``CpuPolicy.par_min``, the ``_par`` drivers of
``codegen.numba``): the same bits as the serial loop and as the ufunc tier, around the thresholds, on odd
sizes, in rows layouts and in place; one thread when gpuops is told one; safe from two Python threads at
once; and the Python pool's fallback where native threads are unusable.

A spy on ``cpu.threads._launch`` (every parallel launch goes through it) tells which path ran.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from helpers import random_values, run_together, trace_launches, uint_view

import gpuops
from descriptors import ActivationReluOperatorDesc, DataType, TensorDesc, desc_class
from gpuops import config

numba = pytest.importorskip("numba")

from gpuops.backends import numba_loops  # noqa: E402
from gpuops.backends.cpu import policy as cpu_policy  # noqa: E402
from gpuops.backends.cpu import threads as cpu_threads  # noqa: E402

F16, BF16, F32, F64 = DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64
PAR = cpu_policy.POLICY.par_min
DIRECT = cpu_policy.POLICY.direct_min


@pytest.fixture(autouse=True)
def two_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Two threads (whatever this machine has), where numba's pool has two and its layer is usable."""
    if not numba_loops.available():
        pytest.skip("numba's tier is off")
    if cpu_threads._max_threads() < 2 or numba_loops._native is False:
        pytest.skip("numba's native threads are unusable here")
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(slow_s=10.0))  # no pause on a loaded machine
    monkeypatch.setattr(cpu_threads, "_paused_until", 0.0)
    monkeypatch.setattr(cpu_threads, "_pause", 0.0)
    monkeypatch.setattr(cpu_threads, "_credit", 0.0)
    with config.override(num_threads=2):
        yield


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The thread count of every native launch."""
    return trace_launches(monkeypatch)


def _add1_relu(dt: DataType, a: TensorDesc, b: TensorDesc, out: TensorDesc) -> Any:
    return desc_class("ELEMENT_WISE_ADD1")(
        a_tensor=a, b_tensor=b, output_tensor=out, fused_activation=ActivationReluOperatorDesc()
    )


def _add(dt: DataType, a: TensorDesc, b: TensorDesc, out: TensorDesc) -> Any:
    return desc_class("ELEMENT_WISE_ADD")(a_tensor=a, b_tensor=b, output_tensor=out)


def _buffer(desc: TensorDesc, rng: np.random.Generator) -> np.ndarray:
    from helpers import buffer_elements

    n = buffer_elements(desc)
    return random_values(desc.data_type, (n + n % 2,), rng, "bits")  # 16-bit buffers: whole 4-byte words


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """Same bits, or both NaN (the compiler may commute an addition: NaN payloads are open)."""
    same = uint_view(got) == uint_view(want)
    with np.errstate(all="ignore"):
        same |= np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    return bool(same.all())


def _compile(desc: Any, numba_on: bool = True) -> Any:
    dev = gpuops.Device("numpy")
    with config.override(numba=numba_on):
        return dev.compile_operator(dev.create_operator(desc))


def _check(
    make: Any, dt: DataType, a: TensorDesc, b: TensorDesc, out: TensorDesc, seed: int, in_place: bool = False
) -> list[Any]:
    """The operator's whole output buffer against the ufunc tier's (padding included); returns the ops."""
    desc = make(dt, a, b, out)
    op, ref = _compile(desc), _compile(desc, numba_on=False)
    assert op.launch_path == "numba" and ref.launch_path == "numpy"
    rng = np.random.default_rng(seed)
    bufs = [_buffer(a, rng), _buffer(b, rng)]
    fill = _buffer(out, rng)
    if in_place:
        want = bufs[0].copy()
        ref.execute([want, bufs[1]], [want])
        got = bufs[0].copy()
        op.execute([got, bufs[1]], [got])
    else:
        want, got = fill.copy(), fill.copy()
        ref.execute(bufs, [want])
        op.execute(bufs, [got])
    assert _same(got, want)
    return [op, bufs]


SIZES = [PAR - 1, PAR, PAR + 1, PAR + 63, PAR + 64 * 3 + 7, 2 * PAR - 2, DIRECT + 5, (1 << 18) + 129]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", [F16, BF16, F32, F64])
def test_flat_on_native_threads_matches_the_ufunc_tier(dt: DataType, n: int, launches: list[int]) -> None:
    """Flat operators around PAR_MIN (odd sizes: block edges off the 64-element grid for the last block)."""
    t = TensorDesc(dt, (n,))
    make = _add if dt in (F32, F64) else _add1_relu  # float32/64 add is one ufunc: the tier from DIRECT_MIN
    if make is _add and n < DIRECT:
        assert _compile(make(dt, t, t, t)).launch_path == "numpy"
        make = _add1_relu
    _check(make, dt, t, t, t, seed=n)
    assert launches == ([2] if n >= PAR else [])


@pytest.mark.parametrize("dt", [F16, F32])
def test_in_place_on_native_threads(dt: DataType, launches: list[int]) -> None:
    t = TensorDesc(dt, (DIRECT + 77,))
    _check(_add, dt, t, t, t, seed=1, in_place=True)
    assert launches == [2]


# (rows, cols), strides of A, of B, of the output; None is packed
ROWS = {
    "row_bcast": ((301, 129), None, (0, 1), None),  # rows split
    "row_bcast_few_rows": ((3, 20011), None, (0, 1), None),  # 3 rows on 2 blocks: columns split
    "col_bcast": ((257, 131), None, (1, 0), None),
    "scalar": ((1, PAR + 301), None, (0,), None),  # one row: columns split
    "padded": ((263, 133), (137, 1), (135, 1), (139, 1)),
}


@pytest.mark.parametrize("dt", [F16, BF16, F32, F64])
@pytest.mark.parametrize("layout", list(ROWS))
def test_rows_on_native_threads_match_the_ufunc_tier(dt: DataType, layout: str, launches: list[int]) -> None:
    shape, sa, sb, so = ROWS[layout]
    if layout == "scalar":
        shape, sb = (shape[1],), (0,)
        sa = so = None
    a, b, out = TensorDesc(dt, shape, sa), TensorDesc(dt, shape, sb), TensorDesc(dt, shape, so)
    direct = dt in (F32, F64)
    make = _add if direct and layout.startswith("row_bcast") else _add1_relu
    _check(make, dt, a, b, out, seed=len(layout))
    assert launches == [2]


@pytest.mark.parametrize("dt", [F16, F32])
def test_rows_in_place_on_native_threads(dt: DataType, launches: list[int]) -> None:
    """The output is A's buffer (identical padded descriptors), B a row broadcast."""
    a = TensorDesc(dt, (300, 131), (135, 1))
    b = TensorDesc(dt, (300, 131), (0, 1))
    _check(_add, dt, a, b, a, seed=2, in_place=True)
    assert launches == [2]


def test_one_thread_means_no_native_launch(launches: list[int]) -> None:
    t = TensorDesc(F16, (4 * PAR + 3,))
    with config.override(num_threads=1):
        _check(_add1_relu, F16, t, t, t, seed=3)
        # one ufunc on packed tensors stays on NumPy without native threads
        big = TensorDesc(F32, (2 * DIRECT,))
        assert _compile(_add(F32, big, big, big)).launch_path == "numpy"
    assert launches == []


def test_thread_count_changed_after_compile(launches: list[int]) -> None:
    """The count is read per call: an operator compiled on two threads runs on one when told so."""
    t = TensorDesc(F16, (2 * PAR + 1,))
    op, bufs = _check(_add1_relu, F16, t, t, t, seed=4)
    assert launches == [2]
    one = np.zeros_like(bufs[0])
    with config.override(num_threads=1):
        op.execute(bufs, [one])
    assert launches == [2]
    two = np.zeros_like(bufs[0])
    op.execute(bufs, [two])
    assert launches == [2, 2]
    assert np.array_equal(uint_view(one), uint_view(two))


def test_more_threads_than_numbas_pool_are_capped(launches: list[int]) -> None:
    t = TensorDesc(F16, (2 * PAR + 1,))
    with config.override(num_threads=cpu_threads._max_threads() + 3):
        _check(_add1_relu, F16, t, t, t, seed=5)
    assert launches == [cpu_threads._max_threads()]


def test_the_python_pool_when_native_threads_are_unusable(monkeypatch: pytest.MonkeyPatch, launches: list[int]) -> None:
    """``_native`` False: the serial loop, or blocks on the Python pool from THREAD_MIN; same bits. A
    one-ufunc operator stays on NumPy."""
    t = TensorDesc(BF16, (2 * PAR + 5,))
    op, bufs = _check(_add1_relu, BF16, t, t, t, seed=6)
    monkeypatch.setattr(numba_loops, "_native", False)
    pooled: list[int] = []
    real = cpu_threads._parallel

    def spy(parts: list[Any], work: Any, size: int) -> None:
        pooled.append(len(parts))
        real(parts, work, size)

    monkeypatch.setattr(cpu_threads, "_parallel", spy)
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(thread_min=1024, thread_block=1000))
    again = np.zeros_like(bufs[0])
    op.execute(bufs, [again])
    want = np.zeros_like(bufs[0])
    _compile(_add1_relu(BF16, t, t, t), numba_on=False).execute(bufs, [want])
    assert _same(again, want)
    assert pooled and pooled[0] > 2
    assert launches == [2]  # only the first run, before the flag
    big = TensorDesc(F32, (2 * DIRECT,))
    assert _compile(_add(F32, big, big, big)).launch_path == "numpy"
    rows = TensorDesc(F32, (64, 1024))
    assert _compile(_add(F32, rows, TensorDesc(F32, (64, 1024), (0, 1)), rows)).launch_path == "numba"


def test_two_python_threads_run_one_operator_at_once(launches: list[int]) -> None:
    """GNU OpenMP (and TBB) take launches from several threads at once (numba's workqueue layer would abort)."""
    t = TensorDesc(F16, (3 * PAR + 11,))
    op, bufs = _check(_add1_relu, F16, t, t, t, seed=7)
    want = np.zeros_like(bufs[0])
    op.execute(bufs, [want])
    outs = [np.zeros_like(bufs[0]) for _ in range(2)]

    def worker(k: int) -> None:
        for _ in range(200):
            outs[k][:] = 0
            op.execute(bufs, [outs[k]])
            assert np.array_equal(uint_view(outs[k]), uint_view(want))

    run_together(worker)
    assert 2 < len(launches) <= 2 + 400  # a call that finds the other's launch running runs serially
    assert numba.threading_layer() in ("omp", "tbb")


def test_a_call_during_another_launch_runs_serially(launches: list[int]) -> None:
    t = TensorDesc(F16, (2 * PAR + 3,))
    op, bufs = _check(_add1_relu, F16, t, t, t, seed=9)
    want = np.zeros_like(bufs[0])
    op.execute(bufs, [want])
    got = np.zeros_like(bufs[0])
    with cpu_threads._launching:  # as while another Python thread's launch runs
        op.execute(bufs, [got])
    assert launches == [2, 2]
    assert np.array_equal(uint_view(got), uint_view(want))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_runs_without_native_threads() -> None:
    """numba terminates a child that launches GNU OpenMP work after its parent did: the child uses the
    Python pool (or one thread) and gets the same bits."""
    t = TensorDesc(F16, (2 * PAR + 1,))
    op, bufs = _check(_add1_relu, F16, t, t, t, seed=8)
    assert numba_loops._native is True
    want = np.zeros_like(bufs[0])
    op.execute(bufs, [want])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        code = 1
        try:
            got = np.zeros_like(bufs[0])
            op.execute(bufs, [got])
            code = 0 if numba_loops._native is False and np.array_equal(uint_view(got), uint_view(want)) else 2
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    try:
        answer = os.read(read, 1)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    assert answer == b"\x00"
    assert numba_loops._native is True  # the parent keeps them


def test_the_drivers_are_in_the_loop_module() -> None:
    from descriptors import row_of
    from gpuops.codegen.numba import loop_spec

    spec = loop_spec(row_of("ELEMENT_WISE_ADD"), {"a_tensor": F16, "b_tensor": F16, "output_tensor": F16})
    assert spec is not None
    for kind in ("_par(", "_rows_par("):
        assert f"def {spec.name}{kind}" in spec.source
    assert "parallel=True" in spec.source and "cache=True" in spec.source


def test_slow_launches_pause_native_threads(monkeypatch: pytest.MonkeyPatch, launches: list[int]) -> None:
    """Launches far slower than the kernel's best (threads waiting on a descheduled thread) that use up the
    credit pause native launches for PAUSE_S: calls meanwhile run serially, with the same bits; then one
    launch tries again (a slow one doubles the pause)."""
    t = TensorDesc(F16, (2 * PAR + 3,))
    op, bufs = _check(_add1_relu, F16, t, t, t, seed=10)
    want = np.zeros_like(bufs[0])
    op.execute(bufs, [want])
    assert launches == [2, 2]
    assert cpu_threads._credit > 0  # two launches that were not slow
    # every launch counts as slow
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(slow_s=0.0, slow_per_element=0.0))
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(pause_s=60.0, pause_max_s=1000.0))
    monkeypatch.setattr(cpu_threads, "_credit", 0.0)  # no credit left
    got = np.zeros_like(bufs[0])
    op.execute(bufs, [got])  # launches, then pauses
    assert launches == [2, 2, 2]
    assert cpu_threads._paused_until > 0 and cpu_threads._pause == 60.0
    for _ in range(3):
        got[:] = 0
        op.execute(bufs, [got])
        assert np.array_equal(uint_view(got), uint_view(want))
    assert launches == [2, 2, 2]
    monkeypatch.setattr(cpu_threads, "_paused_until", 0.0)
    op.execute(bufs, [got])  # the retry is slow: a pause twice as long
    assert launches == [2, 2, 2, 2]
    assert cpu_threads._pause == 120.0
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(slow_s=10.0, credit_max_s=0.0))
    monkeypatch.setattr(cpu_threads, "_paused_until", 0.0)
    op.execute(bufs, [got])  # not slow, the credit full: the next pause is PAUSE_S again
    assert launches == [2, 2, 2, 2, 2]
    assert cpu_threads._pause == 0.0


def test_a_slow_launch_with_credit_left_keeps_native_threads(
    monkeypatch: pytest.MonkeyPatch, launches: list[int]
) -> None:
    t = TensorDesc(F16, (2 * PAR + 3,))
    op, bufs = _check(_add1_relu, F16, t, t, t, seed=11)
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(slow_s=0.0, slow_per_element=0.0))
    monkeypatch.setattr(cpu_threads, "_credit", 1000.0)
    got = np.zeros_like(bufs[0])
    for _ in range(3):
        op.execute(bufs, [got])
    assert launches == [2, 2, 2, 2]
    assert cpu_threads._paused_until == 0.0
