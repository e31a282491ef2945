"""gpuops' reductions as Dask tree reductions (``gpuops.dask.reductions``, issue 19 part 2).

* every REDUCE function x FLOAT32, FLOAT16, INT32, BFLOAT16, FLOAT64, UINT8 (where the function's row takes it)
  x several axis sets, on uneven chunks with ``split_every=2`` (so combine runs too), on the threaded scheduler:
  against the float64 references of ``reference_reduce`` (``test_reduce_generated.check``: exact for integers,
  MAX, MIN and indices,
  the row's stated bound for the other float functions) and against gpuops' own unchunked result (exact where
  that is exact, else within twice the bound: both are within it of the reference);
* ARGMAX / ARGMIN ties across chunk boundaries, both directions, where the block order is not the index order;
  a NaN in the second chunk; LOG_SUM_EXP's infinities across chunks;
* the ONNX reduction node tests with every input split into chunks of ``ceil(size / 2)`` along every axis,
  graded as the unchunked conformance grades them and skipped exactly where it skips.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.array")

import dask
import dask.array as da
import ml_dtypes
from reference_reduce import REFERENCES, tolerance
from test_reduce_generated import check

import gpuops
from descriptors import (
    ArgmaxOperatorDesc,
    ArgminOperatorDesc,
    AxisDirection,
    DataType,
    DescriptorError,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
    desc_class,
)
from gpuops.dask import normalization as gdn
from gpuops.dask import reductions as gdr

SHAPE = (7, 9, 5)
CHUNKS = (3, 4, 2)  # uneven: 3+3+1, 4+4+1, 2+2+1
AXES = ((0,), (1,), (0, 2), (0, 1, 2))
FLOAT_ONLY = {"L2", "LOG_SUM", "LOG_SUM_EXP"}
DEVICE = gpuops.Device("numpy")


@pytest.fixture(autouse=True)
def _threads() -> Any:
    with dask.config.set(scheduler="threads"):
        yield


def _values(function: str, dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -50, 51, SHAPE).astype(dtype)
    if function == "MULTIPLY":
        x = rng.uniform(0.8, 1.25, SHAPE) * rng.choice([-1.0, 1.0], SHAPE)
    elif function == "LOG_SUM":
        x = rng.uniform(0.0, 2.0, SHAPE)
    else:
        x = rng.standard_normal(SHAPE) * 3
    return x.astype(dtype)


def _unchunked(values: np.ndarray, row: str, variant: str, axes: tuple[int, ...], out_dt: DataType) -> np.ndarray:
    kept = tuple(1 if i in axes else s for i, s in enumerate(values.shape))
    t_in, t_out = TensorDesc.from_array(values), TensorDesc(out_dt, kept)
    desc: Any
    if row == "REDUCE":
        desc = ReduceOperatorDesc(ReduceFunction[variant], t_in, t_out, axes=axes)
    else:
        cls = ArgmaxOperatorDesc if row == "ARGMAX" else ArgminOperatorDesc
        desc = cls(t_in, t_out, axes=axes, axis_direction=AxisDirection[variant])
    return np.asarray(gpuops.run(desc, values, device=DEVICE))


def _compare_unchunked(
    got: np.ndarray, values: np.ndarray, row: str, variant: str, axes: Any, out_dt: DataType
) -> None:
    want = _unchunked(values, row, variant, axes, out_dt)
    if not out_dt.is_float or variant in ("MAX", "MIN"):
        assert np.array_equal(got, want, equal_nan=out_dt.is_float), (row, variant, axes)
        return
    ref_in = values.astype(np.float64)
    tol = tolerance(row, variant, ref_in, axes, out_dt)
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert (np.abs(g - w) <= 2 * tol).all(), (row, variant, axes, float(np.max(np.abs(g - w))))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bfloat16", "float64", "uint8"])
@pytest.mark.parametrize("function", [f.name for f in ReduceFunction])
def test_reduce_matches_references(function: str, dtype: str) -> None:
    npdt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if npdt.kind in "iu" and function in FLOAT_ONLY:
        pytest.skip(f"REDUCE {function} takes float tensors only (its row)")
    rng = np.random.default_rng(list(function.encode()) + list(dtype.encode()))
    values = _values(function, npdt, rng)
    x = da.from_array(values, chunks=CHUNKS)
    arg = function in ("ARGMAX", "ARGMIN")
    out_dt = DataType.INT64 if arg else DataType.from_numpy(npdt)
    for axes in AXES:
        got = gdr.reduce(x, function, axes, split_every=2).compute()
        assert got.dtype == out_dt.numpy_dtype
        what = f"dask REDUCE {function} {dtype} axes={axes}"
        check(got, "REDUCE", function, values, axes, out_dt, what)
        _compare_unchunked(got, values, "REDUCE", function, axes, out_dt)
        dropped = gdr.reduce(x, ReduceFunction[function], set(axes), keepdims=False, split_every=2).compute()
        assert dropped.shape == tuple(s for i, s in enumerate(SHAPE) if i not in axes)
        np.testing.assert_array_equal(dropped.reshape(got.shape).view(np.uint8), got.view(np.uint8))


@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("row", ["ARGMAX", "ARGMIN"])
def test_arg_rows(row: str, dtype: str, direction: str) -> None:
    rng = np.random.default_rng(list(row.encode()) + list(dtype.encode()) + list(direction.encode()))
    values = rng.integers(-3, 4, SHAPE).astype(dtype)  # many ties, across blocks
    x = da.from_array(values, chunks=CHUNKS)
    fn = gdr.argmax if row == "ARGMAX" else gdr.argmin
    for axes in AXES:
        got = fn(x, axes, direction=direction, split_every=2).compute()
        what = f"dask {row} {direction} {dtype} axes={axes}"
        check(got, row, direction, values, axes, DataType.INT64, what)
        _compare_unchunked(got, values, row, direction, axes, DataType.INT64)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_arg_ties_across_blocks(dtype: str) -> None:
    """Block (0, 0) holds the maximum at (2, 0), block (0, 1) at (0, 4): row-major over both axes (0, 4) comes
    first although its block comes second; the minimum likewise."""
    values = np.zeros((6, 6), dtype)
    values[2, 0] = values[0, 4] = 5
    values[5, 1] = values[3, 3] = -5  # blocks (1, 0) and (1, 0): (3, 3) = 21 first, (5, 1) = 31 last
    values[4, 5] = -5  # block (1, 1): 29
    x = da.from_array(values, chunks=(3, 3))
    for direction, hi, lo in (("INCREASING", 4, 21), ("DECREASING", 12, 31)):
        assert gdr.argmax(x, (0, 1), direction=direction).compute().item() == hi
        assert gdr.argmin(x, (0, 1), direction=direction).compute().item() == lo
        for row, fn in (("ARGMAX", gdr.argmax), ("ARGMIN", gdr.argmin)):
            for axes in ((0,), (1,), (0, 1)):
                got = fn(x, axes, direction=direction).compute()
                want = REFERENCES[row][direction](values, axes)
                np.testing.assert_array_equal(got, want)
                _compare_unchunked(got, values, row, direction, axes, DataType.INT64)
    x1 = da.from_array(np.array([3, 2, 1, 2, 3], dtype), chunks=2)  # DirectML's example: 0 and 4
    assert gdr.argmax(x1, 0).compute().item() == 0
    assert gdr.argmax(x1, 0, direction=AxisDirection.DECREASING).compute().item() == 4
    assert gdr.reduce(x1, "ARGMAX", 0, out_dtype=np.uint32).compute().dtype == np.uint32


def test_nan_in_second_chunk() -> None:
    values = np.arange(12, dtype=np.float32)
    values[5] = values[7] = np.nan  # the second chunk (4..7)
    x = da.from_array(values, chunks=4)
    for fn in (gdr.argmax, gdr.argmin):
        assert fn(x, 0).compute().item() == 5
        assert fn(x, 0, direction="DECREASING").compute().item() == 7
    assert gdr.reduce(x, "ARGMIN", 0).compute().item() == 5
    for f in ("MAX", "MIN", "SUM", "LOG_SUM_EXP", "AVERAGE"):
        assert np.isnan(gdr.reduce(x, f, 0).compute()).all(), f


def test_log_sum_exp_infinities() -> None:
    ninf = -np.inf
    cases = {
        (ninf, ninf, ninf, ninf, 1.0, 2.0): math.log(math.exp(1) + math.exp(2)),  # an all -inf chunk adds nothing
        (ninf,) * 6: ninf,
        (1.0, 2.0, 3.0, np.inf, 0.0, ninf): np.inf,
        (1000.0, 999.0, 998.0, 1000.0, 0.0, 1.0): 1000 + math.log(2 + math.exp(-1) + math.exp(-2)),
    }
    for row, want in cases.items():
        x = da.from_array(np.array(row, np.float32), chunks=2)
        got = gdr.reduce(x, "LOG_SUM_EXP", 0, split_every=2).compute()
        assert got.dtype == np.float32
        np.testing.assert_allclose(got.astype(np.float64), [want], rtol=1e-6)


def test_integer_wrap_and_average_truncation() -> None:
    x = da.from_array(np.full(100, 100, np.int8), chunks=7)
    assert gdr.reduce(x, "SUM", 0).compute().item() == 16  # 10000 mod 256, as the README's example
    y = da.from_array(np.array([-7, 0], np.int32), chunks=1)
    assert gdr.reduce(y, "AVERAGE", 0).compute().item() == -3
    big = da.from_array(np.full(6, 2**31 - 1, np.int32), chunks=2)  # the 64-bit sum does not wrap per block
    assert gdr.reduce(big, "AVERAGE", 0).compute().item() == 2**31 - 1
    h = da.from_array(np.ones(1000, np.float16), chunks=300)  # accumulated in float32, as gpuops' REDUCE
    assert gdr.reduce(h, "SUM", 0).compute().item() == 1000


def test_refuses_what_directml_refuses() -> None:
    x = da.from_array(np.ones((2, 3), np.float32), chunks=1)
    with pytest.raises(ValueError, match="empty"):
        gdr.reduce(x, "SUM", ())
    with pytest.raises(ValueError, match="out of range"):
        gdr.reduce(x, "SUM", (2,))
    with pytest.raises(ValueError, match="rank"):
        gdr.reduce(da.from_array(np.float32(1)), "SUM", None)


# ---------------------------------------------------------------------------------------------
# ONNX conformance, chunked along every axis


def _reduction_cases() -> list[Any]:
    try:
        from conformance.onnx_cases import FAMILIES, cases_by_op
    except ImportError:  # onnx absent: the conformance suite skips too
        return []
    by_op = cases_by_op()
    return [c for op in FAMILIES["reduction"] for c in by_op.get(op, [])]


CASES = _reduction_cases()


@pytest.mark.skipif(not CASES, reason="onnx is not installed (the conformance suite skips too)")
def test_onnx_reductions_chunked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ONNX reduction node test through the conformance builders, with the one REDUCE/ARGMAX/ARGMIN
    descriptor run replaced by the Dask reduction of the input split into ``ceil(size / 2)`` chunks per axis."""
    from conformance import onnx_cases as oc

    chunked = 0

    def dask_run(device: gpuops.Device, op: str, x: Any, axes: tuple[int, ...], out_dt: DataType, **fields: Any) -> Any:
        nonlocal chunked
        variant = fields["function"].name if op == "REDUCE" else None
        oc.require(device, op, {"input_tensor": oc._dt(x), "output_tensor": out_dt}, variant)
        d = da.from_array(x, chunks=tuple(max(1, -(-s // 2)) for s in x.shape))
        chunked += d.npartitions > 1
        if op == "REDUCE":
            r = gdr.reduce(d, fields["function"], axes, out_dtype=out_dt.numpy_dtype)
        else:
            fn = gdr.argmax if op == "ARGMAX" else gdr.argmin
            r = fn(d, axes, direction=fields["axis_direction"], out_dtype=out_dt.numpy_dtype)
        return r.compute()

    monkeypatch.setattr(oc, "_run_reduction", dask_run)
    device = gpuops.Device("numpy")
    passed, skipped = 0, {}
    for case in CASES:
        try:
            oc.check_case(case, device)
        except oc.Unsupported as exc:
            skipped[case.name] = exc.reason
            continue
        passed += 1
    unchunked_skips = {}
    monkeypatch.undo()
    for case in CASES:
        try:
            oc.check_case(case, device)
        except oc.Unsupported as exc:
            unchunked_skips[case.name] = exc.reason
    assert skipped == unchunked_skips
    assert passed > 50 and chunked > 50, (passed, chunked)


# ---------------------------------------------------------------------------------------------
# Issue 31: empty arrays, axes that are not integers, empty chunks


def _core_error(desc: Any) -> DescriptorError:
    """The error the core's own operator gives for ``desc`` (what the Dask layer must raise, word for word)."""
    with pytest.raises(DescriptorError) as info:
        DEVICE.create_operator(desc)
    return info.value


def _same_error(got: pytest.ExceptionInfo[DescriptorError], want: DescriptorError) -> None:
    assert type(got.value) is DescriptorError
    assert str(got.value) == str(want) and got.value.field == want.field


@pytest.mark.parametrize("shape", [(0, 3), (4, 0)])
@pytest.mark.parametrize("function", ["SUM", "MAX", "MULTIPLY", "AVERAGE", "LOG_SUM_EXP", "ARGMAX"])
def test_an_empty_array_is_refused_when_built_as_the_core_refuses_it(function: str, shape: tuple[int, int]) -> None:
    """DirectML has no empty tensors (sizes are 1 to 2**32-1): the core's REDUCE refuses a (0, 3) input, whichever
    axis is reduced, so the Dask reduction raises the same DescriptorError when it is built (it gave a lazy (1, 3)
    that computed to (0, 0))."""
    x = da.from_array(np.zeros(shape, np.float32), chunks=2)
    out = DataType.INT64 if function == "ARGMAX" else DataType.FLOAT32
    for axes in ((0,), (1,), (0, 1)):
        kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
        f = ReduceFunction[function]
        want = _core_error(ReduceOperatorDesc(f, TensorDesc(DataType.FLOAT32, shape), TensorDesc(out, kept), axes=axes))
        assert want.field == "input_tensor.sizes"
        with pytest.raises(DescriptorError) as got:
            gdr.reduce(x, function, axes)
        _same_error(got, want)
    for fn, cls in ((gdr.argmax, ArgmaxOperatorDesc), (gdr.argmin, ArgminOperatorDesc)):
        want = _core_error(cls(TensorDesc(DataType.FLOAT32, shape), TensorDesc(DataType.INT64, (1, 1)), axes=(0, 1)))
        with pytest.raises(DescriptorError) as got:
            fn(x, None)
        _same_error(got, want)


BAD_AXES = ["10", 1.9, 0.5, True, np.float64(1.0), np.bool_(True), ["1"], [1.0], [0, False]]


@pytest.mark.parametrize("bad", BAD_AXES, ids=repr)
def test_axes_are_integers_by_the_descriptors_rule(bad: Any) -> None:
    """An axis is a Python or NumPy integer, not a bool, float or string (REDUCE's and ARGMAX's own rule): nothing
    is converted with int() ("10" was taken as the axes 1 and 0, 1.9 as 1, True as 1). The error is the core's,
    word for word, raised when the Dask array is made."""
    x = da.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), chunks=1)
    t = TensorDesc(DataType.FLOAT32, (2, 3))
    listed = tuple(bad) if isinstance(bad, list) else (bad,)
    i64 = TensorDesc(DataType.INT64, (2, 3))
    cases: list[tuple[Any, Any]] = [
        (lambda: gdr.reduce(x, "SUM", bad), ReduceOperatorDesc(ReduceFunction.SUM, t, t, axes=listed)),
        (lambda: gdr.reduce(x, "ARGMIN", bad), ReduceOperatorDesc(ReduceFunction.ARGMIN, t, i64, axes=listed)),
        (lambda: gdr.argmax(x, bad), ArgmaxOperatorDesc(t, i64, axes=listed)),
        (lambda: gdr.argmin(x, bad, direction="DECREASING"),
         ArgminOperatorDesc(t, i64, axes=listed, axis_direction=AxisDirection.DECREASING)),
        (lambda: gdn.softmax(x, bad), desc_class("ACTIVATION_SOFTMAX1")(input_tensor=t, output_tensor=t, axes=listed)),
    ]  # fmt: skip
    for make, desc in cases:
        want = _core_error(desc)
        assert want.field == "axes" and "axis numbers" in str(want)
        with pytest.raises(DescriptorError) as got:
            make()
        _same_error(got, want)


def test_integer_axes_of_numpy_and_repeated_axes() -> None:
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7
    x = da.from_array(values, chunks=(1, 2, 3))
    ref = values.astype(np.float64)
    for axes, want in (
        (np.int64(-1), ref.sum(axis=2, keepdims=True)),
        ([np.int32(0), np.uint8(2)], ref.sum(axis=(0, 2), keepdims=True)),
        (np.array([1, -3]), ref.sum(axis=(0, 1), keepdims=True)),
    ):
        np.testing.assert_array_equal(gdr.reduce(x, "SUM", axes).compute().astype(np.float64), want)
    np.testing.assert_array_equal(gdr.argmax(x, np.int16(1)).compute(), ref.argmax(axis=1)[:, None, :])
    t = TensorDesc(DataType.FLOAT32, (2, 3, 4))
    want_err = _core_error(
        ReduceOperatorDesc(ReduceFunction.SUM, t, TensorDesc(DataType.FLOAT32, (2, 1, 4)), axes=(1, 1))
    )
    assert "twice" in str(want_err)
    with pytest.raises(DescriptorError) as got:  # -2 is axis 1: listed twice, as NumPy refuses (it summed once)
        gdr.reduce(x, "SUM", (1, -2))
    _same_error(got, want_err)


# Empty chunks on every axis: ((2, 0, 3), (0, 4, 0), (1, 0, 2)) of a (5, 4, 3) array.
ZERO_CHUNKS = ((2, 0, 3), (0, 4, 0), (1, 0, 2))
ZERO_AXES = ((0,), (1,), (2,), (0, 2), (0, 1, 2))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("function", [f.name for f in ReduceFunction])
def test_empty_chunks_match_the_whole_array(function: str, dtype: str) -> None:
    """An empty chunk of a non-empty array adds nothing: the result is the float64 reference's of the whole array
    (and the unchunked core operator's), its lazy shape is its computed shape (an empty chunk raised NumPy's
    concatenate/broadcast errors, or ARGMAX's DescriptorError from a worker)."""
    npdt = np.dtype(dtype)
    if npdt.kind == "i" and function in FLOAT_ONLY:
        pytest.skip(f"REDUCE {function} takes float tensors only (its row)")
    rng = np.random.default_rng(list(b"zero-chunks") + list(function.encode()) + list(dtype.encode()))
    values = _values(function, npdt, rng)[:5, :4, :3]
    x = da.from_array(values, chunks=ZERO_CHUNKS)
    arg = function in ("ARGMAX", "ARGMIN")
    out_dt = DataType.INT64 if arg else DataType.from_numpy(npdt)
    for axes in ZERO_AXES:
        for keepdims in (True, False):
            lazy = gdr.reduce(x, function, axes, keepdims=keepdims, split_every=2)
            got = lazy.compute()
            assert got.shape == lazy.shape and got.dtype == out_dt.numpy_dtype, (axes, keepdims, got.shape)
            if keepdims:
                what = f"dask REDUCE {function} {dtype} axes={axes}, empty chunks"
                check(got, "REDUCE", function, values, axes, out_dt, what)
                _compare_unchunked(got, values, "REDUCE", function, axes, out_dt)


@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
@pytest.mark.parametrize("row", ["ARGMAX", "ARGMIN"])
def test_empty_chunks_argmax_argmin(row: str, direction: str) -> None:
    values = np.random.default_rng(31).integers(-2, 3, (5, 4, 3)).astype(np.float32)  # ties across blocks
    x = da.from_array(values, chunks=ZERO_CHUNKS)
    fn = gdr.argmax if row == "ARGMAX" else gdr.argmin
    for axes in ZERO_AXES:
        lazy = fn(x, axes, direction=direction, split_every=2)
        got = lazy.compute()
        assert got.shape == lazy.shape
        check(got, row, direction, values, axes, DataType.INT64, f"dask {row} {direction} axes={axes}, empty chunks")
        _compare_unchunked(got, values, row, direction, axes, DataType.INT64)
        dropped = fn(x, axes, direction=direction, keepdims=False).compute()
        np.testing.assert_array_equal(dropped, got.reshape(dropped.shape))


def test_empty_chunks_in_softmax_and_normalization() -> None:
    """Softmax, log-softmax and MVN over a (4, 3) array chunked ((2, 0, 2), (3,)): float64 references of the whole
    array (they raised NumPy's concatenate/broadcast errors)."""
    values = np.random.default_rng(12).standard_normal((4, 3)).astype(np.float32)
    x = da.from_array(values, chunks=((2, 0, 2), (3,)))
    v = values.astype(np.float64)
    for axes in ((0,), (1,), (0, 1)):
        m = v.max(axis=axes, keepdims=True)
        e = np.exp(v - m)
        s = e.sum(axis=axes, keepdims=True)
        d = v - v.mean(axis=axes, keepdims=True)
        mvn = d / np.sqrt((d * d).mean(axis=axes, keepdims=True) + float(np.float32(1e-5)))
        for got, want in (
            (gdn.softmax(x, axes), e / s),
            (gdn.log_softmax(x, axes), (v - m) - np.log(s)),
            (gdn.mean_variance_normalization(x, axes), mvn),
        ):
            np.testing.assert_allclose(got.compute().astype(np.float64), want, rtol=1e-5, atol=1e-6)


def test_normalization_of_an_empty_array_is_refused_when_built() -> None:
    x = da.from_array(np.zeros((0, 3), np.float32), chunks=2)
    t = TensorDesc(DataType.FLOAT32, (0, 3))
    for make, op, fields in (
        (lambda: gdn.softmax(x, 1), "ACTIVATION_SOFTMAX1", {}),
        (lambda: gdn.log_softmax(x, 1), "ACTIVATION_LOG_SOFTMAX1", {}),
        (lambda: gdn.mean_variance_normalization(x, (1,)), "MEAN_VARIANCE_NORMALIZATION1",
         {"scale_tensor": None, "bias_tensor": None, "normalize_variance": True, "epsilon": float(np.float32(1e-5))}),
    ):  # fmt: skip
        want = _core_error(desc_class(op)(input_tensor=t, output_tensor=t, axes=(1,), **fields))
        assert want.field == "input_tensor.sizes"
        with pytest.raises(DescriptorError) as got:
            make()
        _same_error(got, want)


def test_arrays_beyond_one_tensor_are_checked_at_sizes_one() -> None:
    """The core's 2**32-1 element limit is one tensor's, not a Dask array's: a lazy (2**17, 2**16) array (never
    computed) builds, and its axes are still checked."""
    x = da.zeros((2**17, 2**16), dtype=np.float32, chunks=(2**15, 2**15))
    assert gdr.reduce(x, "SUM", 0).shape == (1, 2**16)
    assert gdr.argmax(x, (0, 1), keepdims=False).shape == ()
    with pytest.raises(DescriptorError, match="axis numbers"):
        gdr.reduce(x, "SUM", 0.5)
