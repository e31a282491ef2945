"""The numba tier of the NumPy backend's REDUCE (``gpuops.backends.numba_reduce``) gives ``np.add.reduce``'s bits.

NumPy sums each contiguous row with its pairwise algorithm (``@TYPE@_pairwise_sum``: leaves of at most 128
elements in eight partial sums, split at ``n // 2`` rounded down to a multiple of 8) after setting the output to
+0.0; the tier replays that order. Compared bit for bit (NaN payloads and zero signs included): the kernel
against ``np.add.reduce`` for every row length 1..300 and powers of two +-1 up to 2**15, float32 and float64, the
SUM, L1 (``|x|``) and SUM_SQUARE (``x * x``) maps, one thread and several; the operator against the ufunc tier
(``config.override(numba=False)``) and one thread, for SUM, AVERAGE, L1 and SUM_SQUARE in both drivers. The data
spans 2**-29..2**29 with cancelling pairs, so the order of the additions shows: a pure-NumPy replay of the rule
agrees with ``np.add.reduce`` on every row, and the same replay with one association changed does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import buffer_elements, run_together, trace_launches

pytest.importorskip("numba")

import gpuops  # noqa: E402
from descriptors import DataType, ReduceFunction, ReduceOperatorDesc, TensorDesc  # noqa: E402
from gpuops import config  # noqa: E402
from gpuops.backends import numba_reduce  # noqa: E402
from gpuops.backends.cpu import policy as cpu_policy  # noqa: E402
from gpuops.backends.cpu import threads as cpu_threads  # noqa: E402

LENGTHS = sorted({*range(1, 301), *(2**k + d for k in range(3, 16) for d in (-1, 0, 1))})
MAPS: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    numba_reduce.MAP_SUM: lambda v: v,
    numba_reduce.MAP_ABS: np.abs,
    numba_reduce.MAP_SQUARE: lambda v: v * v,
}


@pytest.fixture(autouse=True)
def _never_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    """No launch counts as slow here, so the launch guard never pauses native launches: a threaded call runs on
    numba's threads (a loaded CI machine would otherwise send some to the serial path, the same bits untested)."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(slow_s=float("inf")))
    monkeypatch.setattr(cpu_threads, "_paused_until", 0.0)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _adversarial(rows: int, n: int, dtype: Any, seed: int) -> np.ndarray:
    """Magnitudes over 2**-29..2**29 (float32 keeps ~24 bits: most sums depend on the order), and in every other
    row pairs that cancel (x, -x placed apart) among small values."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, n)) * np.exp2(rng.uniform(-29, 29, (rows, n)))
    half = n // 2
    x[1::2, half : half + half // 2] = -x[1::2, : half // 2]
    return x.astype(dtype)


def _pairwise_replay(x: np.ndarray, swap: bool = False) -> np.ndarray:
    """NumPy's rule in NumPy, over all rows at once (``swap``: the eight partial sums combined as
    ((r0 + r2) + (r1 + r3)) + ..., one association off)."""

    def pw(a: np.ndarray) -> np.ndarray:
        n = a.shape[1]
        if n < 8:
            s = np.full(a.shape[0], -0.0, a.dtype)
            for i in range(n):
                s = s + a[:, i]
            return s
        if n <= 128:
            r = [a[:, j].copy() for j in range(8)]
            m8 = n - n % 8
            for i in range(8, m8, 8):
                for j in range(8):
                    r[j] = r[j] + a[:, i + j]
            if swap:
                s = ((r[0] + r[2]) + (r[1] + r[3])) + ((r[4] + r[6]) + (r[5] + r[7]))
            else:
                s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            for i in range(m8, n):
                s = s + a[:, i]
            return s
        n2 = n // 2
        n2 -= n2 % 8
        return pw(a[:, :n2]) + pw(a[:, n2:])

    return x.dtype.type(0) + pw(x)


def _kernel(x: np.ndarray, mode: int, threads: int) -> np.ndarray:
    rows, n = x.shape
    out = np.full(rows, 7, x.dtype)
    assert numba_reduce.sum_rows(x.reshape(-1), rows, n, n, out, 1, mode, threads)  # the guard let it run
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_kernel_bits_every_length(dtype: Any) -> None:
    for n in LENGTHS:
        x = _adversarial(5, n, dtype, n)
        for mode, fn in MAPS.items():
            want = np.add.reduce(fn(x), axis=1)
            # numba's prange on a share of the lengths (a launch took ~8 ms with the other vCPU busy)
            for threads in (1, 2) if n % 16 == 1 or n > 300 else (1,):
                got = _kernel(x, mode, threads)
                assert np.array_equal(_bits(got), _bits(want)), (n, mode, threads)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_order_matters_on_this_data(dtype: Any) -> None:
    """The replay of the rule agrees with NumPy; one association changed disagrees on many rows, as would the
    kernel had it the wrong order (it agrees: test above)."""
    differ = rows = 0
    for n in (8, 16, 64, 100, 128, 129, 300, 1000, 2048, 4097):
        x = _adversarial(40, n, dtype, 1000 + n)
        want = np.add.reduce(x, axis=1)
        assert np.array_equal(_bits(_pairwise_replay(x)), _bits(want)), n
        assert np.array_equal(_bits(_kernel(x, numba_reduce.MAP_SUM, 2)), _bits(want)), n
        differ += int(np.count_nonzero(_bits(_pairwise_replay(x, swap=True)) != _bits(want)))
        sequential = np.zeros(40, dtype)
        for i in range(n):
            sequential = sequential + x[:, i]
        assert not np.array_equal(_bits(sequential), _bits(want)), n
        rows += 40
    assert differ > rows // 4, (differ, rows)  # 44% of the float32 rows, in one run


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_kernel_special_values(dtype: Any) -> None:
    """NaN (payloads of both signs), infinities of both signs, all-zero rows of either sign, mixed zeros."""
    n = 300
    x = _adversarial(12, n, dtype, 5)
    x[0, 17] = np.nan
    x[1, 3] = np.inf
    x[2, [4, 250]] = [np.inf, -np.inf]
    x[3] = -0.0
    x[4] = 0.0
    x[5, ::2] = -0.0
    x[5, 1::2] = 0.0
    x[6, 200] = -np.inf
    bits = _bits(x)
    bits[7, 9] = 0x7FC00123 if dtype == np.float32 else 0x7FF8000000000123
    bits[7, 290] = 0xFFC00456 if dtype == np.float32 else 0xFFF8000000000456
    bits[8, 130] = 0x7FC00789 if dtype == np.float32 else 0x7FF8000000000789
    x[9, :5] = -0.0
    x[9, 5:] = 0.0
    x[10] = np.finfo(dtype).max  # overflow to inf
    x[11, ::3] = np.finfo(dtype).tiny / 4  # subnormals
    for rows in (x, x[:, :7], x[:, :100]):
        rows = np.ascontiguousarray(rows)
        for mode, fn in MAPS.items():
            with np.errstate(all="ignore"):
                want = np.add.reduce(fn(rows), axis=1)
            for threads in (1, 2):
                got = _kernel(rows, mode, threads)
                assert np.array_equal(_bits(got), _bits(want)), (rows.shape, mode, threads)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_full_reduction_split(dtype: Any) -> None:
    """A 1-D sum as pieces (the top levels of the tree, summed raw) combined in the tree's order: NumPy's bits,
    -0.0 and NaN included."""
    for n in (129, 1000, 4097, 65536, 100003, 1 << 20, 3_000_017):
        x = _adversarial(1, n, dtype, n).reshape(-1)
        for mode, fn in MAPS.items():
            want = np.add.reduce(fn(x))
            for depth in (1, 2, 3, 5):
                pieces, prog = numba_reduce.split(n, depth)
                sums = np.empty(len(pieces), dtype)
                for i, (start, m) in enumerate(pieces):
                    numba_reduce.sum_rows(x[start:], 1, m, m, sums[i:], 1, mode, 1, raw=True)
                got = numba_reduce.combine(sums, prog)
                assert np.array_equal(_bits(got), _bits(np.asarray([want]))), (n, mode, depth)
    zeros = np.full(1000, -0.0, dtype)
    pieces, prog = numba_reduce.split(1000, 3)
    sums = np.empty(len(pieces), dtype)
    for i, (start, m) in enumerate(pieces):
        numba_reduce.sum_rows(zeros[start:], 1, m, m, sums[i:], 1, 0, 1, raw=True)
    assert np.all(np.signbit(sums))  # raw: -0.0 stays
    assert not np.signbit(numba_reduce.combine(sums, prog)[0])  # NumPy's +0.0 start


def test_layouts() -> None:
    """rows_view / out_view: rows over the innermost axes only, uniform row strides, positive."""
    x = np.zeros((3, 4, 5), np.float32)
    assert numba_reduce.rows_view(x, (2,))[1:] == (12, 5, 5)  # type: ignore[index]
    assert numba_reduce.rows_view(x, (1, 2))[1:] == (3, 20, 20)  # type: ignore[index]
    assert numba_reduce.rows_view(x, (0, 1, 2))[1:] == (1, 60, 60)  # type: ignore[index]
    assert numba_reduce.rows_view(x, (0,)) is None
    assert numba_reduce.rows_view(x, (1,)) is None
    assert numba_reduce.rows_view(x.transpose(1, 0, 2), (2,)) is None  # kept axes out of order
    assert numba_reduce.rows_view(x[:, :, ::-1], (2,)) is None
    assert numba_reduce.rows_view(np.zeros((3, 8), np.float32)[:, :5], (1,))[1:] == (3, 5, 8)  # type: ignore[index]
    assert numba_reduce.rows_view(np.zeros((1, 3, 1, 5), np.float32), (0, 3))[1:] == (3, 5, 5)  # type: ignore[index]
    out = np.zeros((3, 4, 2), np.float32)[:, :, :1]
    assert numba_reduce.out_view(out, 12)[1] == 2  # type: ignore[index]
    assert numba_reduce.out_view(out.transpose(1, 0, 2), 12) is None


F32, F64, F16 = DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16
FUNCTIONS = [ReduceFunction.SUM, ReduceFunction.AVERAGE, ReduceFunction.L1, ReduceFunction.SUM_SQUARE]
# (sizes, element strides or None, reduced axes, whether the numba tier takes it)
LAYOUTS: list[tuple[tuple[int, ...], tuple[int, ...] | None, tuple[int, ...], bool]] = [
    ((64, 2048), None, (1,), True),
    ((300, 129), None, (1,), True),
    ((9, 17, 40), None, (1, 2), True),  # two innermost axes: one run of 680 per output
    ((40, 1000), (1024, 1), (1,), True),  # padded rows
    ((1, 33, 1, 300), None, (3,), True),  # DirectML-style leading ones
    ((500, 3), None, (1,), True),  # rows shorter than a leaf
    ((3, 5000), None, (1,), False),  # too few rows
    ((300, 40), None, (0,), False),  # columns
    ((40, 300), (1, 40), (1,), False),  # transposed: the reduced axis is not contiguous
    ((4, 2000), None, (0, 1), True),  # full reduction: one run of 8000, split by the top of the tree
    ((100003,), None, (0,), True),
    ((40, 50), (64, 1), (0, 1), False),  # full reduction over padded rows: NumPy sums each row's run
]


@pytest.fixture
def numba_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """REDUCE_NUMBA_MIN and REDUCE_NUMBA_THREAD_MIN lowered so these sizes take the tier, threaded; the rows each
    ``sum_rows`` call got."""
    monkeypatch.setattr(
        cpu_policy,
        "POLICY",
        cpu_policy.POLICY.replace(
            reduce_numba_min=64, reduce_numba_thread_min=64, reduce_numba_native_min=64, reduce_numba_native_full_min=64
        ),
    )
    seen: list[int] = []
    real = numba_reduce.sum_rows

    def spy(flat: np.ndarray, rows: int, *args: Any, **kwargs: Any) -> bool:
        seen.append(rows)
        return real(flat, rows, *args, **kwargs)

    monkeypatch.setattr(numba_reduce, "sum_rows", spy)
    return seen


@pytest.mark.parametrize("driver", ["pool", "numba"])
@pytest.mark.parametrize("dt", [F32, F64, F16], ids=lambda d: d.name)
@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_operator_bits(
    function: ReduceFunction, dt: DataType, driver: str, numba_calls: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operator with the tier (3 threads) against the ufunc tier and against the tier on one thread: the same bits;
    the tier runs where it applies (float32 and float64 only: float16 is summed through a buffered cast)."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(reduce_numba_driver=driver))
    dev = gpuops.Device("numpy")
    for k, (sizes, strides, axes, applies) in enumerate(LAYOUTS):
        tin = TensorDesc(dt, sizes, strides)
        tout = TensorDesc(dt, tuple(1 if i in axes else s for i, s in enumerate(sizes)))
        op = dev.compile_operator(dev.create_operator(ReduceOperatorDesc(function, tin, tout, axes=list(axes))))
        span = (tin.total_tensor_size_in_bytes or 0) // dt.itemsize
        x64 = _adversarial(1, span, np.float64, k).reshape(-1)
        x = (np.clip(x64, -1000, 1000) if dt == F16 else x64).astype(dt.numpy_dtype)
        results = []
        before = len(numba_calls)
        for overrides in ({"num_threads": 3}, {"num_threads": 3, "numba": False}, {"num_threads": 1}):
            out = np.full(buffer_elements(tout), 7, dt.numpy_dtype)
            with config.override(**overrides):  # type: ignore[arg-type]
                op.execute([x], [out])
            results.append(_bits(out) if dt != F16 else out.view(np.uint16))
        used = len(numba_calls) > before
        assert used == (applies and dt != F16), (sizes, strides, axes)
        np.testing.assert_array_equal(results[0], results[1])
        np.testing.assert_array_equal(results[0], results[2])


def test_threads(numba_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Below REDUCE_NUMBA_THREAD_MIN, or with ``num_threads=1``, one call on this thread; from it on, with 2
    threads, blocks of rows on the pool (REDUCE_NUMBA_BLOCKS per thread)."""
    monkeypatch.setattr(
        cpu_policy, "POLICY", cpu_policy.POLICY.replace(reduce_numba_driver="pool", reduce_numba_thread_min=1 << 15)
    )
    dev = gpuops.Device("numpy")
    x = _adversarial(64, 1024, np.float32, 9)
    desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F32, (64, 1024)), TensorDesc(F32, (64, 1)), axes=[1])
    op = dev.compile_operator(dev.create_operator(desc))
    numba_calls.clear()  # compile_operator's warm-up calls, in a process where nothing compiled float32 yet
    outs = []
    for threads in (1, 2):
        out = np.empty(64, np.float32)
        with config.override(num_threads=threads):
            op.execute([x.reshape(-1)], [out])
        outs.append(_bits(out))
    assert numba_calls == [64] + [8] * (2 * cpu_policy.POLICY.reduce_numba_blocks)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], _bits(np.add.reduce(x, axis=1)))


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The thread count of every native launch (``cpu.threads._launch``: each parallel driver goes through it)."""
    return trace_launches(monkeypatch)


def test_native_driver(numba_calls: list[int], launches: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """With numba's threads usable, 2 threads and REDUCE_NUMBA_NATIVE_MIN reached: one native launch over all the
    rows; while another launch holds the guard, the same call takes the pool's blocks of rows instead. The same
    bits every way, and NumPy's."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(reduce_numba_driver="numba"))
    dev = gpuops.Device("numpy")
    x = _adversarial(64, 1000, np.float32, 11)
    desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F32, (64, 1000)), TensorDesc(F32, (64, 1)), axes=[1])
    op = dev.compile_operator(dev.create_operator(desc))
    numba_calls.clear()  # compile_operator's warm-up calls, in a process where nothing compiled float32 yet
    want = _bits(np.add.reduce(x, axis=1))
    native = numba_reduce.parallel_ok()
    out = np.empty(64, np.float32)
    with config.override(num_threads=2):
        op.execute([x.reshape(-1)], [out])
    np.testing.assert_array_equal(_bits(out), want)
    if native:
        assert launches == [2] and numba_calls == [64]  # one sum_rows call, launched on 2 threads
    else:
        assert launches == [] and numba_calls == [64] + [8] * (2 * cpu_policy.POLICY.reduce_numba_blocks)
    numba_calls.clear()
    out = np.empty(64, np.float32)
    with cpu_threads._launching, config.override(num_threads=2):  # as while another Python thread's launch runs
        op.execute([x.reshape(-1)], [out])
    np.testing.assert_array_equal(_bits(out), want)
    assert launches == ([2] if native else [])
    # refused by the guard (nothing written), then the pool's blocks
    assert numba_calls == ([64] if native else []) + [8] * (2 * cpu_policy.POLICY.reduce_numba_blocks)


def test_native_driver_full_reduction(
    numba_calls: list[int], launches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full reduction on numba's threads: the top of the pairwise tree in pieces (one launch), combined in the
    tree's order; the pool's pieces where the guard refuses; NumPy's bits both ways."""
    monkeypatch.setattr(
        cpu_policy, "POLICY", cpu_policy.POLICY.replace(reduce_numba_driver="numba", reduce_numba_native_full_min=64)
    )
    dev = gpuops.Device("numpy")
    n = 100003
    x = _adversarial(1, n, np.float32, 12).reshape(-1)
    op = dev.compile_operator(
        dev.create_operator(
            ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F32, (n,)), TensorDesc(F32, (1,)), axes=[0])
        )
    )
    want = _bits(np.add.reduce(x, keepdims=True))
    native = numba_reduce.parallel_ok()
    for held in (False, True):
        out = np.full(1, 7, np.float32)
        numba_calls.clear()
        with config.override(num_threads=2):
            if held:  # as while another Python thread's launch runs: the pool's pieces
                with cpu_threads._launching:
                    op.execute([x], [out])
            else:
                op.execute([x], [out])
        np.testing.assert_array_equal(_bits(out), want)
        on_numba = native and not held
        assert launches == ([2] if native else [])
        assert numba_calls == ([] if on_numba else [1] * 8)  # the pool's pieces call sum_rows one by one


def test_threading_layer_gate() -> None:
    """numba's prange driver only where its threading layer is thread-safe."""
    import numba

    ok = numba_reduce.parallel_ok()
    assert ok == (numba.threading_layer() in ("omp", "tbb"))


@pytest.mark.parametrize("driver", ["pool", "numba"])
def test_two_callers(driver: str, numba_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two Python threads executing one compiled REDUCE at once on the threaded tier: both results right."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(reduce_numba_driver=driver))
    dev = gpuops.Device("numpy")
    desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F32, (256, 300)), TensorDesc(F32, (256, 1)), axes=[1])
    op = dev.compile_operator(dev.create_operator(desc))
    inputs = [_adversarial(256, 300, np.float32, 20 + i) for i in range(2)]
    wants = [_bits(np.add.reduce(v, axis=1)) for v in inputs]

    def caller(i: int) -> None:
        for _ in range(30):
            out = np.empty(256, np.float32)
            op.execute([inputs[i].reshape(-1)], [out])
            np.testing.assert_array_equal(_bits(out), wants[i])

    with config.override(num_threads=2):
        run_together(caller)
    assert len(numba_calls) >= 60
