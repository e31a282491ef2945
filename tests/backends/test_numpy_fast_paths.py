"""The NumPy backend's specialised ``execute`` and convenience call (``numpy_backend.fast_paths``) decide every
binding exactly as the general path does: the same result bits for what both accept, the same exception type and
message for what the general path refuses (the fast path hands anything it cannot prove safe to the general one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gpuops
from gpuops import DataType, ElementWiseAddOperatorDesc, ElementWiseExpOperatorDesc, TensorDesc
from gpuops.convenience import call as general_call

F32 = DataType.FLOAT32
N = 1000


def compiled(desc: Any) -> Any:
    dev = gpuops.Device("numpy")
    return dev.compile_operator(dev.create_operator(desc))


def add_op(sizes: tuple[int, ...] = (N,)) -> Any:
    t = TensorDesc(F32, sizes)
    return compiled(ElementWiseAddOperatorDesc(t, t, t))


def exp_op() -> Any:
    t = TensorDesc(F32, (N,))
    return compiled(ElementWiseExpOperatorDesc(t, t))


def values(n: int, dtype: Any = np.float32, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(dtype)


def outcome(fn: Callable[[], Any], buffers: list[np.ndarray]) -> tuple[str, Any]:
    try:
        result = fn()
    except Exception as exc:  # the error itself is what is compared
        # Addresses differ between the two runs' fresh buffers; everything else must match.
        return "error", (type(exc), re.sub("0x[0-9a-f]+", "0x?", str(exc)), [b.tobytes() for b in buffers])
    shown = None if result is None else np.asarray(result).tobytes()
    return "ok", (shown, [b.tobytes() for b in buffers])


class Sub(np.ndarray):
    pass


# Each case makes fresh buffers: (inputs, outputs, every array whose bytes must match afterwards).
Case = Callable[[], tuple[list[Any], list[Any], list[np.ndarray]]]


def binary(a: Any, b: Any, o: Any, *extra: np.ndarray) -> tuple[list[Any], list[Any], list[np.ndarray]]:
    return [a, b], [o], [x for x in (a, b, o, *extra) if isinstance(x, np.ndarray)]


def _partial() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    big = values(1500)
    return binary(big[:N], values(N, seed=1), big[200:1200], big)


def _views_disjoint() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    big = values(3 * N)
    return binary(big[:N], big[N : 2 * N], big[2 * N :], big)


def _same_memory_view() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    a = values(N)
    return binary(a, values(N, seed=1), a[:], a)


def _in_place() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    a = values(N)
    return binary(a, values(N, seed=1), a)


def _readonly() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    o = np.zeros(N, np.float32)
    o.flags.writeable = False
    return binary(values(N), values(N, seed=1), o)


def _metadata_dtype() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    a = values(N).view(np.dtype(np.float32, metadata={"k": 1}))  # equal to float32, not the same object
    return binary(a, values(N, seed=1), np.zeros(N, np.float32))


EXECUTE_CASES: dict[str, Case] = {
    "plain": lambda: binary(values(N), values(N, seed=1), np.zeros(N, np.float32)),
    "tuples": lambda: ((values(N), values(N, seed=1)), (np.zeros(N, np.float32),), []),
    "float64 input": lambda: binary(values(N, np.float64), values(N, seed=1), np.zeros(N, np.float32)),
    "float64 output": lambda: binary(values(N), values(N, seed=1), np.zeros(N, np.float64)),
    "big-endian": lambda: binary(values(N, ">f4"), values(N, seed=1), np.zeros(N, np.float32)),
    "metadata dtype": _metadata_dtype,
    "short input": lambda: binary(values(N - 1), values(N, seed=1), np.zeros(N, np.float32)),
    "short output": lambda: binary(values(N), values(N, seed=1), np.zeros(N - 1, np.float32)),
    "long buffers": lambda: binary(values(N + 7), values(N + 1, seed=1), np.zeros(N + 3, np.float32)),
    "2-D buffers": lambda: binary(values(N).reshape(10, 100), values(N, seed=1), np.zeros((100, 10), np.float32)),
    "0-d input": lambda: binary(np.float32(1) + np.zeros((), np.float32), values(N), np.zeros(N, np.float32)),
    "strided input": lambda: binary(values(2 * N)[::2], values(N, seed=1), np.zeros(N, np.float32)),
    "strided output": lambda: binary(values(N), values(N, seed=1), np.zeros(2 * N, np.float32)[::2]),
    "reversed input": lambda: binary(values(N)[::-1], values(N, seed=1), np.zeros(N, np.float32)),
    "read-only output": _readonly,
    "partial overlap": _partial,
    "disjoint views": _views_disjoint,
    "in place": _in_place,
    "same memory, other object": _same_memory_view,
    "subclass": lambda: binary(values(N).view(Sub), values(N, seed=1), np.zeros(N, np.float32)),
    "memmap-like output": lambda: binary(values(N), values(N, seed=1), np.zeros(N, np.float32).view(np.memmap)),
    "list input": lambda: binary(values(N).tolist(), values(N, seed=1), np.zeros(N, np.float32)),
    "None input": lambda: binary(None, values(N, seed=1), np.zeros(N, np.float32)),
    "three inputs": lambda: ([values(N)] * 3, [np.zeros(N, np.float32)], []),
    "two outputs": lambda: ([values(N), values(N, seed=1)], [np.zeros(N, np.float32)] * 2, []),
    "generator": lambda: ((x for x in [values(N), values(N, seed=1)]), [np.zeros(N, np.float32)], []),
}


@pytest.mark.parametrize("name", list(EXECUTE_CASES))
def test_execute_fast_path_decides_as_the_general_path(name: str) -> None:
    op = add_op()
    assert "execute" in vars(op), "the NumPy backend installs a specialised execute for a direct ufunc"
    general = op._general_execute()
    ins, outs, bufs = EXECUTE_CASES[name]()
    fast = outcome(lambda: op.execute(ins, outs), bufs)
    ins, outs, bufs = EXECUTE_CASES[name]()
    slow = outcome(lambda: general(ins, outs), bufs)
    assert fast == slow


@pytest.mark.parametrize("name", ["plain", "short input", "strided input", "read-only output", "in place"])
def test_unary_fast_path_decides_as_the_general_path(name: str) -> None:
    op = exp_op()
    general = op._general_execute()
    results = []
    for run in (op.execute, general):
        ins, outs, bufs = EXECUTE_CASES[name]()
        ins = ins[:1]
        if name == "in place":
            outs = ins
        results.append(outcome(lambda run=run, ins=ins, outs=outs: run(ins, outs), bufs))
    assert results[0] == results[1]


def test_foreign_dlpack_tensors_take_the_general_path() -> None:
    torch = pytest.importorskip("torch")
    op = add_op()
    general = op._general_execute()
    got = []
    for run in (op.execute, general):
        a, b, o = torch.arange(N, dtype=torch.float32), torch.ones(N), torch.zeros(N)
        run([a, b], [o])
        got.append(o.numpy().tobytes())
        with pytest.raises(gpuops.BindingError) as err:
            run([a, b], [torch.zeros(N, dtype=torch.float64)])
        got.append(str(err.value))
    assert got[:2] == got[2:]


def test_nan_and_overflow_stay_silent() -> None:
    """The floating-point state is silenced around the ufunc as the general path does (warnings are errors)."""
    op = add_op((4,))
    big = np.float32([3e38, np.inf, np.nan, -np.inf])
    out = np.zeros(4, np.float32)
    op.execute([big, big], [out])
    with np.errstate(all="ignore"):
        want = big + big
    assert np.array_equal(out, want, equal_nan=True)
    assert np.geterr()["over"] != "ignore"  # restored


CALL_SIZES = [(N,), (2, 5, 100)]


def call_cases(sizes: tuple[int, ...]) -> dict[str, Callable[[], tuple[tuple[Any, ...], Any, list[np.ndarray]]]]:
    def shaped(seed: int = 0, dtype: Any = np.float32) -> np.ndarray:
        return values(N, dtype, seed).reshape(sizes)

    def in_place() -> tuple[tuple[Any, ...], Any, list[np.ndarray]]:
        a = shaped()
        return (a, shaped(1)), a, [a]

    def partial() -> tuple[tuple[Any, ...], Any, list[np.ndarray]]:
        big = values(1500)
        return (big[:N].reshape(sizes), shaped(1)), big[200:1200].reshape(sizes), [big]

    def readonly() -> tuple[tuple[Any, ...], Any, list[np.ndarray]]:
        o = np.zeros(sizes, np.float32)
        o.flags.writeable = False
        return (shaped(), shaped(1)), o, [o]

    def transposed() -> tuple[tuple[Any, ...], Any, list[np.ndarray]]:
        a = values(N).reshape(sizes[::-1]).T
        return (a, shaped(1)), None, [a]

    return {
        "new output": lambda: ((shaped(), shaped(1)), None, []),
        "out": lambda: ((shaped(), shaped(1)), np.zeros(sizes, np.float32), []),
        "flat out": lambda: ((shaped(), shaped(1)), np.zeros(N, np.float32), []),
        "flat inputs": lambda: ((values(N), values(N, seed=1)), None, []),
        "float64 input": lambda: ((shaped(0, np.float64), shaped(1)), None, []),
        "float64 out": lambda: ((shaped(), shaped(1)), np.zeros(sizes, np.float64), []),
        "wrong shape": lambda: ((values(N).reshape(4, 250), shaped(1)), None, []),
        "short input": lambda: ((values(N - 1), shaped(1)), None, []),
        "transposed input": transposed,
        "strided out": lambda: ((shaped(), shaped(1)), np.zeros(2 * N, np.float32)[::2], []),
        "read-only out": readonly,
        "in place": in_place,
        "partial overlap": partial,
        "one input": lambda: ((shaped(),), None, []),
        "list input": lambda: ((shaped().tolist(), shaped(1)), None, []),
        "out tuple": lambda: ((shaped(), shaped(1)), (np.zeros(sizes, np.float32),), []),
    }


@pytest.mark.parametrize("sizes", CALL_SIZES)
@pytest.mark.parametrize("name", list(call_cases((N,))))
def test_convenience_fast_path_decides_as_the_general_path(sizes: tuple[int, ...], name: str) -> None:
    op = add_op(sizes)
    assert op._fast_call is not None
    make = call_cases(sizes)[name]
    inputs, out, bufs = make()
    fast = outcome(lambda: op(*inputs, out=out), bufs)
    inputs, out, bufs = make()
    slow = outcome(lambda: general_call(op, inputs, out), bufs)
    assert fast == slow
    if fast[0] == "ok":
        inputs, out, _ = make()
        got, want = op(*inputs, out=out), general_call(op, make()[0], make()[1])
        assert type(got) is type(want) and got.shape == want.shape and got.dtype == want.dtype
        assert (got is out) == (out is not None and not isinstance(out, tuple))


def test_fast_paths_only_where_the_ufunc_runs_directly() -> None:
    half = TensorDesc(DataType.FLOAT16, (3,))  # 6 bytes, rounded up to 8: a padded buffer
    assert "execute" not in vars(compiled(ElementWiseAddOperatorDesc(half, half, half)))
    wide = TensorDesc(F32, (2, 3))
    row = TensorDesc.broadcast(F32, (3,), to=(2, 3))
    assert "execute" not in vars(compiled(ElementWiseAddOperatorDesc(wide, row, wide)))


# --- REDUCE's fast execute (numpy_backend._reduce_fast_path) ---------------------------------------------------

ROWS, COLS = 64, 2048  # 2^17 elements: the numba tier on this thread


def reduce_op(function: Any = None, dt: DataType = F32, axes: tuple[int, ...] = (1,)) -> Any:
    from gpuops import ReduceFunction, ReduceOperatorDesc

    sizes = (ROWS, COLS)
    out = tuple(1 if i in axes else s for i, s in enumerate(sizes))
    fn = ReduceFunction.SUM if function is None else function
    return compiled(ReduceOperatorDesc(fn, TensorDesc(dt, sizes), TensorDesc(dt, out), axes=axes))


def _reduce_case(make_x: Callable[[], Any], make_out: Callable[[], Any]) -> Case:
    def case() -> tuple[list[Any], list[Any], list[np.ndarray]]:
        x, o = make_x(), make_out()
        return [x], [o], [b for b in (x, o) if isinstance(b, np.ndarray)]

    return case


def _x(n: int = ROWS * COLS, dtype: Any = np.float32) -> np.ndarray:
    return values(n, dtype, seed=3)


def _reduce_overlap() -> tuple[list[Any], list[Any], list[np.ndarray]]:
    big = _x(ROWS * COLS + 16)
    return [big[:-16]], [big[-ROWS:]], [big]


REDUCE_CASES: dict[str, Case] = {
    "plain": _reduce_case(_x, lambda: np.zeros(ROWS, np.float32)),
    "views": _reduce_case(lambda: _x(ROWS * COLS + 8)[8:], lambda: np.zeros(ROWS + 4, np.float32)[4:]),
    "float64 input": _reduce_case(lambda: _x(dtype=np.float64), lambda: np.zeros(ROWS, np.float32)),
    "float64 output": _reduce_case(_x, lambda: np.zeros(ROWS, np.float64)),
    "short input": _reduce_case(lambda: _x(ROWS * COLS - 1), lambda: np.zeros(ROWS, np.float32)),
    "long output": _reduce_case(_x, lambda: np.zeros(ROWS + 3, np.float32)),
    "2-D input": _reduce_case(lambda: _x().reshape(ROWS, COLS), lambda: np.zeros(ROWS, np.float32)),
    "strided output": _reduce_case(_x, lambda: np.zeros(2 * ROWS, np.float32)[::2]),
    "overlap": _reduce_overlap,
    "subclass": _reduce_case(lambda: _x().view(Sub), lambda: np.zeros(ROWS, np.float32)),
    "None": _reduce_case(lambda: None, lambda: np.zeros(ROWS, np.float32)),
}


def _read_only(case: Case) -> Case:
    def made() -> tuple[list[Any], list[Any], list[np.ndarray]]:
        ins, outs, bufs = case()
        outs[0].flags.writeable = False
        return ins, outs, bufs

    return made


REDUCE_CASES["read-only output"] = _read_only(REDUCE_CASES["plain"])


def _reduce_tuples() -> tuple[Any, Any, list[np.ndarray]]:
    ins, outs, bufs = REDUCE_CASES["plain"]()
    return tuple(ins), tuple(outs), bufs


REDUCE_CASES["tuples"] = _reduce_tuples


@pytest.mark.parametrize("name", list(REDUCE_CASES))
def test_reduce_fast_path_decides_as_the_general_path(name: str) -> None:
    pytest.importorskip("numba")
    op = reduce_op()
    assert "execute" in vars(op), "SUM over the last axis of a packed float32 tensor has its own execute"
    general = op._general_execute()
    ins, outs, bufs = REDUCE_CASES[name]()
    fast = outcome(lambda: op.execute(ins, outs), bufs)
    ins, outs, bufs = REDUCE_CASES[name]()
    slow = outcome(lambda: general(ins, outs), bufs)
    assert fast == slow


@pytest.mark.parametrize("dt", [F32, DataType.FLOAT64], ids=lambda d: d.name)
@pytest.mark.parametrize("function", ["SUM", "L1", "SUM_SQUARE"])
def test_reduce_fast_path_gives_numpys_bits(function: str, dt: DataType) -> None:
    """The fast path against NumPy's own reduction (the numba tier's promise) and against the ufunc tier, whose
    ``config.override(numba=False)`` the fast path must honour at call time."""
    pytest.importorskip("numba")
    from gpuops import ReduceFunction, config

    op = reduce_op(ReduceFunction[function], dt)
    assert "execute" in vars(op)
    x = _x(dtype=dt.numpy_dtype) * 1e3
    mapped = {"SUM": x, "L1": np.abs(x), "SUM_SQUARE": x * x}[function]
    want = np.add.reduce(mapped.reshape(ROWS, COLS), axis=1)
    for numba_on in (True, False):
        out = np.full(ROWS, 7, dt.numpy_dtype)
        with config.override(numba=numba_on):
            op.execute([x], [out])
        np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))


def test_reduce_fast_path_only_where_the_tier_runs_on_this_thread() -> None:
    pytest.importorskip("numba")
    from gpuops import ReduceFunction

    assert "execute" not in vars(reduce_op(ReduceFunction.AVERAGE))  # divides afterwards
    assert "execute" not in vars(reduce_op(ReduceFunction.MAX))  # not the pairwise tier
    assert "execute" not in vars(reduce_op(axes=(0,)))  # columns: not the last axes
    assert "execute" not in vars(reduce_op(dt=DataType.FLOAT16))  # summed through a float32 cast
