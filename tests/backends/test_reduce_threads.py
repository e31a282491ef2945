"""The NumPy backend's threaded REDUCE, ARGMAX and ARGMIN give the one-thread bits.

``NumpyReduceKernel.reduce`` shares blocks of the output's index space (slices of one kept axis) among the
pool's threads; each block is reduced by the one-thread code on sub-views. The reference here is the same
operator run with ``num_threads=1`` (``gpuops.config.override``), compared bit for bit (NaN payloads and
zero signs included). ``REDUCE_THREAD_MIN`` and ``REDUCE_BLOCK`` are lowered so small arrays take the
threaded path, with blocks as small as the rule allows (2 elements of the split axis); a spy on
``_parallel`` proves they ran. Shapes include uneven splits, strided (transposed, padded) inputs, rows longer
than NumPy's 8192-element buffer (float16/bfloat16 and small integers are buffered, cast to their
accumulator) and rows shorter than it (one buffer spans several rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest
from helpers import buffer_elements, buffer_for, run_together, trace_parallel

import gpuops
from descriptors import (
    ArgmaxOperatorDesc,
    ArgminOperatorDesc,
    AxisDirection,
    DataType,
    DescriptorError,
    FeatureLevel,
    OperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
    validate,
)
from gpuops import config
from gpuops.backends.cpu import policy as cpu_policy
from gpuops.backends.cpu import threads as cpu_threads

F32, F16, BF16, F64 = DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT64
I8, I32, I64, U8, U32 = DataType.INT8, DataType.INT32, DataType.INT64, DataType.UINT8, DataType.UINT32

# (sizes, element strides or None, reduced axes, threaded): threaded where a kept axis of 4 or more elements
# is not the one stepping through memory the least (numpy_backend._reduce_blocks)
LAYOUTS: list[tuple[tuple[int, ...], tuple[int, ...] | None, tuple[int, ...], bool]] = [
    ((37, 300), None, (1,), True),  # rows: 18 blocks of 2-3 rows, a buffer of 8192 spans ~27 rows
    ((37, 300), None, (0,), False),  # columns: the contiguous axis, not split
    ((5, 9, 13), None, (1,), True),
    ((5, 9, 13), None, (0, 2), True),
    ((5, 9, 13), None, (2,), True),
    ((9, 5, 40), None, (1,), True),  # 4 blocks of 2, 2, 2, 3
    ((2, 3, 7, 11), None, (1, 3), True),
    ((3, 10001), None, (1,), False),  # 3 rows: fewer than 2 blocks of 2
    ((7, 10001), None, (1,), True),  # rows longer than the 8192-element buffer: blocks of 2, 2, 3 rows
    ((33, 40), (1, 33), (1,), False),  # transposed input: the kept axis is the contiguous one
    ((33, 40), (1, 33), (0,), True),
    ((21, 40), (50, 1), (1,), True),  # padded rows
    ((21, 40), (50, 1), (0,), False),
    ((1, 1, 29, 31), None, (3,), True),  # DirectML-style leading ones
    ((4, 50), None, (0, 1), False),  # full reduction: one thread
]

REDUCE_FUNCTIONS = list(ReduceFunction)
REAL = {k: getattr(cpu_policy.POLICY, k) for k in ("reduce_thread_min", "reduce_thread_min_cast", "reduce_block")}
DTYPES = [F32, F16, BF16, F64, I8, I32, I64, U8, U32]


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        cpu_policy,
        "POLICY",
        cpu_policy.POLICY.replace(reduce_thread_min=64, reduce_thread_min_cast=64, reduce_block=50),
    )


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The block counts each ``_parallel`` call got; checks every block was claimed exactly once."""
    return trace_parallel(monkeypatch, cpu_threads)


def _values(dt: DataType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dt.numpy_dtype.kind == "f" or dt == BF16:
        v = rng.standard_normal(shape) * 3
        v.flat[::17] = 0.0
        v.flat[5::23] = -0.0
        return v
    info = np.iinfo(dt.numpy_dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True)


def _kept(sizes: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(sizes))


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _valid(desc: OperatorDesc) -> bool:
    try:
        validate(desc, FeatureLevel.FL_6_4)
    except DescriptorError:
        return False
    return True


def _threaded_vs_one(desc: OperatorDesc, x: np.ndarray, out_elements: int, out_dtype: np.dtype) -> None:
    """Run ``desc`` on 3 threads and on 1 (fresh output buffers); assert the same bits."""
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc))
    results = []
    for threads in (3, 1):
        out = np.full(out_elements, 99, dtype=out_dtype)
        with config.override(num_threads=threads):
            op.execute([x], [out])
        results.append(out)
    np.testing.assert_array_equal(_bits(results[0]), _bits(results[1]))


def _input(dt: DataType, sizes: tuple[int, ...], strides: tuple[int, ...] | None, seed: int) -> tuple[Any, Any]:
    tin = TensorDesc(dt, sizes, strides)
    values = _values(dt, sizes, seed)
    if dt == BF16:
        values = values.astype(np.float32)
    return tin, buffer_for(tin, values)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("function", REDUCE_FUNCTIONS, ids=lambda f: f.name)
def test_reduce_threaded_bits(function: ReduceFunction, dt: DataType, spy: list[int]) -> None:
    for k, (sizes, strides, axes, split) in enumerate(LAYOUTS):
        tin, x = _input(dt, sizes, strides, k)
        if function in (ReduceFunction.LOG_SUM, ReduceFunction.L2) and x.dtype.kind not in "iu":
            x = np.abs(x)  # mostly finite results, though NaN and inf bits are compared too
        index = function in (ReduceFunction.ARGMAX, ReduceFunction.ARGMIN)
        tout = TensorDesc(U32 if index else dt, _kept(sizes, axes))
        desc = ReduceOperatorDesc(function, tin, tout, axes=list(axes))
        if not _valid(desc):
            pytest.skip(f"{function.name} does not take {dt.name}")
        before = len(spy)
        _threaded_vs_one(desc, x, buffer_elements(tout), tout.data_type.numpy_dtype)
        assert (len(spy) > before) == split, (sizes, strides, axes)


@pytest.mark.parametrize("direction", list(AxisDirection), ids=lambda d: d.name)
@pytest.mark.parametrize("cls", [ArgmaxOperatorDesc, ArgminOperatorDesc], ids=["ARGMAX", "ARGMIN"])
@pytest.mark.parametrize("dt", [F32, F16, BF16, I8, I32, U32], ids=lambda d: d.name)
def test_arg_threaded_bits(cls: type, dt: DataType, direction: AxisDirection, spy: list[int]) -> None:
    for k, (sizes, strides, axes, split) in enumerate(LAYOUTS):
        tin, x = _input(dt, sizes, strides, 100 + k)
        if k % 2 and x.dtype.kind != "i" and x.dtype.kind != "u":
            x[3::97] = np.nan  # NaN wins; zeros of both signs tie
        for out_dt in (I32, U32, I64):
            tout = TensorDesc(out_dt, _kept(sizes, axes))
            desc = cls(tin, tout, axes=list(axes), axis_direction=direction)
            if not _valid(desc):
                continue
            before = len(spy)
            _threaded_vs_one(desc, x, buffer_elements(tout), tout.data_type.numpy_dtype)
            assert (len(spy) > before) == split, (sizes, strides, axes)
            break
        else:
            pytest.skip(f"{cls.__name__} does not take {dt.name}")


@pytest.mark.parametrize(
    ("dt", "rows", "threaded"),
    [(F32, 4096, True), (F32, 2048, False), (F16, 1024, True), (F16, 512, False)],
    ids=["f32-2.5M", "f32-1.2M", "f16-614K", "f16-307K"],
)
def test_real_thresholds(dt: DataType, rows: int, threaded: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the real thresholds, a SUM over rows of 600: float32 (one ufunc into the output) threaded from
    REDUCE_THREAD_MIN = 2^21 elements on, float16 (cast to float32) from REDUCE_THREAD_MIN_CAST = 2^19; blocks of
    about REDUCE_BLOCK elements; never with ``num_threads=1``. Same bits; float64 agrees within rounding."""
    # the ufunc tier's thresholds (numba: its tests)
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(**REAL, reduce_numba_min=1 << 62))
    seen: list[int] = []
    real = cpu_threads._parallel

    def count(parts: list[Any], work: Callable[[Iterable[Any]], None], size: int) -> None:
        seen.append(len(parts))
        real(parts, work, size)

    monkeypatch.setattr(cpu_threads, "_parallel", count)
    dev = gpuops.Device("numpy")
    x = np.random.default_rng(7).standard_normal((rows, 600)).astype(dt.numpy_dtype)
    desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(dt, (rows, 600)), TensorDesc(dt, (rows, 1)), axes=[1])
    op = dev.compile_operator(dev.create_operator(desc))
    outs = []
    for threads in (2, 1):
        out = np.empty((rows, 1), x.dtype)
        with config.override(num_threads=threads):
            op.execute([x], [out])
        outs.append(out)
    assert seen == ([max(2, x.size // REAL["reduce_block"])] if threaded else [])
    np.testing.assert_array_equal(_bits(outs[0]), _bits(outs[1]))
    want = x.astype(np.float64).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(outs[0].astype(np.float64), want, rtol=2e-3, atol=0.1 if dt == F16 else 1e-3)


def test_two_callers_share_one_operator(spy: list[int]) -> None:
    """Two Python threads executing the same compiled REDUCE at once, each threaded: both results right."""
    sizes, axes = (64, 300), (1,)
    dev = gpuops.Device("numpy")
    desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F64, sizes), TensorDesc(F64, _kept(sizes, axes)), axes=[1])
    op = dev.compile_operator(dev.create_operator(desc))
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(sizes) for _ in range(2)]
    wants = []
    with config.override(num_threads=1):
        for v in inputs:
            wants.append(np.empty(_kept(sizes, axes)))
            op.execute([v], [wants[-1]])

    def caller(i: int) -> None:
        for _ in range(50):
            out = np.empty(_kept(sizes, axes))
            op.execute([inputs[i]], [out])
            np.testing.assert_array_equal(out, wants[i])

    with config.override(num_threads=2):
        run_together(caller)
    assert len(spy) >= 100
