"""Hypothesis draws the kinds of input the third hardening round found unguarded (issue 31's "done when").

Each property says what must hold for every draw, with references worked out here (float64 NumPy, IEEE bits):

- the convenience call, given plain, flat, transposed, masked or subclassed arrays: the answer of a packed
  binding, or a clear refusal that names the operator (a masked array always);
- numbers of every Python and NumPy type into ``GraphBuilder``: ``x + number`` is ``x + c`` for the exact value
  ``c`` of the number in ``x``'s type, or a ``ConstantConversionError`` when there is none;
- the Dask layer, with zero-size chunks and axes of every Python type: NumPy's answer on the whole array with the
  lazy shape equal to the computed one, or the core descriptor's refusal when the Dask array is made;
- signed zeros and NaNs of every float type in broadcast (zero-stride) inputs, and descriptors with such
  parameters run one after another through ``gpuops.run``'s cache: every answer as if it ran alone.
"""

from __future__ import annotations

import math
import struct

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gpuops
from descriptors import (
    DataType,
    DescriptorError,
    ElementWiseAddOperatorDesc,
    ElementWiseIdentityOperatorDesc,
    ElementWiseRecipOperatorDesc,
    FillValueConstantOperatorDesc,
    ScaleBias,
    TensorDesc,
)
from gpuops.errors import BindingError
from gpuops.graph_builder import ConstantConversionError, GraphBuilder

NUMPY = gpuops.Device("numpy")
FLOATS = [DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16]
INTS = [DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16, DataType.INT32, DataType.UINT32]
SPECIAL = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 1.0, -2.5, 1e-40, 65504.0, 1e6]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bits(a: object) -> list[int]:
    """Each element's bit pattern (every NaN as one pattern, as a buffer may hold any NaN)."""
    arr = np.asarray(a)
    nan = np.isnan(arr.astype(np.float64)) if arr.dtype.kind in "fV" else np.zeros(arr.shape, bool)
    raw = arr.view(np.dtype(f"u{arr.dtype.itemsize}")).astype(np.int64).ravel()
    return [-1 if n else int(b) for n, b in zip(nan.ravel(), raw, strict=True)]


class _Tagged(np.ndarray):
    """An ndarray subclass with no meaning of its own: its values are its base array's."""


@st.composite
def convenience_inputs(draw: st.DrawFn) -> tuple[DataType, tuple[int, ...], np.ndarray, str]:
    dt = draw(st.sampled_from([DataType.FLOAT32, DataType.FLOAT16, DataType.INT8, DataType.BFLOAT16]))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    values = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 3
    arr = values.astype(dt.numpy_dtype)
    kind = draw(st.sampled_from(["shaped", "flat", "transposed", "masked", "subclass", "list"]))
    return dt, shape, arr, kind


@FUZZ
@given(convenience_inputs())
def test_convenience_call_binds_or_refuses_by_name(case: tuple[DataType, tuple[int, ...], np.ndarray, str]) -> None:
    dt, shape, arr, kind = case
    t = TensorDesc(dt, shape)
    compiled = NUMPY.compile_operator(NUMPY.create_operator(ElementWiseIdentityOperatorDesc(t, t)))
    given_: object = {
        "shaped": arr,
        "flat": arr.reshape(-1),
        "transposed": np.ascontiguousarray(arr.T).T,
        "masked": np.ma.masked_array(arr, mask=np.zeros(arr.shape, bool)),
        "subclass": arr.view(_Tagged),
        "list": arr.tolist(),
    }[kind]
    try:
        got = compiled(given_)
    except (TypeError, ValueError, BindingError) as exc:
        assert "ELEMENT_WISE_IDENTITY" in str(exc), exc
        assert kind in ("masked", "list"), f"{kind} refused: {exc}"
        return
    assert kind not in ("masked",), "a masked array was taken: its mask is dropped"
    want = arr if kind != "flat" else arr.reshape(-1)
    assert _bits(np.asarray(got).reshape(want.shape)) == _bits(want)


NUMBER_KINDS = [
    int,
    float,
    bool,
    np.int8,
    np.uint8,
    np.int32,
    np.uint64,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
    ml_dtypes.bfloat16,
]


@st.composite
def numbers(draw: st.DrawFn) -> object:
    kind = draw(st.sampled_from(NUMBER_KINDS))
    if kind is bool:
        return draw(st.booleans())
    if kind is int:
        return draw(st.sampled_from([0, 1, -1, 127, 128, 255, 256, -129, 2**31, 2**53 + 1, 2**64, -(2**70)]))
    if kind in (float, np.float16, np.float32, np.float64, ml_dtypes.bfloat16):
        with np.errstate(over="ignore"):
            return kind(draw(st.sampled_from(SPECIAL + [0.5, 3.0, 300.0, -7.0])))
    info = np.iinfo(kind)  # type: ignore[type-var]
    return kind(draw(st.sampled_from([0, 1, int(info.max), int(info.min)])))


def _exact_value(number: object, dt: DataType) -> float | None:
    """The value ``number`` takes in ``dt`` by GraphBuilder's rule, or None where it has none: integer types take
    integral values in range; float types round once to nearest, refusing a finite number that overflows."""
    v = float(number) if isinstance(number, float | np.floating | ml_dtypes.bfloat16) else int(number)  # type: ignore[arg-type]
    if not dt.is_float:
        if isinstance(v, float) and (not math.isfinite(v) or not v.is_integer()):
            return None
        info = np.iinfo(dt.numpy_dtype)
        return float(int(v)) if info.min <= int(v) <= info.max else None
    if isinstance(v, int) and abs(v) > 2**1000:
        return None
    with np.errstate(over="ignore"):
        if isinstance(v, int) and abs(v) >= 2**53:  # beyond float64's exact integers: only overflow is checked here
            return math.nan if math.isfinite(float(np.array([float(v)]).astype(dt.numpy_dtype)[0])) else None
        r = float(
            np.array([float(v)])
            .astype(np.float32 if dt is DataType.BFLOAT16 else dt.numpy_dtype)
            .astype(dt.numpy_dtype)
            .astype(np.float64)[0]
        )
    if math.isfinite(float(v)) and not math.isfinite(r):
        return None
    return r


@FUZZ
@given(st.sampled_from(FLOATS + INTS), numbers())
def test_numbers_of_every_type_into_the_builder(dt: DataType, number: object) -> None:
    b = GraphBuilder()
    x = b.input(TensorDesc(dt, (2,)))
    want = _exact_value(number, dt)
    try:
        y = x + number
    except ConstantConversionError as exc:
        assert want is None or (isinstance(want, float) and math.isnan(want) and not dt.is_float), (number, dt, exc)
        assert "GraphBuilder" in str(exc) and dt.name in str(exc)
        return
    assert want is not None, f"{number!r} ({type(number).__name__}) was taken as {dt.name}, where it has no value"
    if (
        isinstance(want, float)
        and math.isnan(want)
        and not isinstance(number, float | np.floating | ml_dtypes.bfloat16)
    ):
        return  # an integer beyond 2**53: its rounding is checked by tests/graphs/test_graph_builder.py
    xs = np.array([1, 0], dt.numpy_dtype)
    got = np.asarray(b.compile([y], NUMPY)(xs), np.float64)
    ref = (xs.astype(np.float64) + want).astype(dt.numpy_dtype).astype(np.float64) if dt.is_float else None
    if dt.is_float:
        np.testing.assert_array_equal(got, ref)
    else:
        wrapped = (np.array([1, 0], np.int64) + int(want)).astype(dt.numpy_dtype).astype(np.float64)
        np.testing.assert_array_equal(got, wrapped)


AXES = [0, 1, -1, (0,), (1,), [0, 1], (True,), (1.0,), ("1",), (0.5,), 1.9, "10", (np.int64(1),), (), (0, 0)]


@FUZZ
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=3),
    st.sampled_from(AXES),
    st.sampled_from(["SUM", "MAX", "LOG_SUM_EXP", "ARGMAX"]),
)
def test_dask_reduce_with_empty_chunks_and_any_axes(chunks0: list[int], axes: object, function: str) -> None:
    da = pytest.importorskip("dask.array")
    import gpuops.dask as gd

    n0 = sum(chunks0)
    x_np = (np.arange(max(n0, 0) * 3, dtype=np.float32).reshape(n0, 3) % 5) - 2
    x = da.from_array(x_np, chunks=(tuple(chunks0), (2, 1)))
    valid = isinstance(axes, int | tuple | list) and not isinstance(axes, bool)
    items = [axes] if isinstance(axes, int) else list(axes) if valid else []  # type: ignore[arg-type]
    ints = all(isinstance(a, int | np.integer) and not isinstance(a, bool) for a in items)
    ax = tuple(int(a) % 2 for a in items) if ints else ()
    fine = valid and ints and bool(ax) and len(set(ax)) == len(ax) and n0 > 0
    try:
        lazy = gd.argmax(x, axes) if function == "ARGMAX" else gd.reduce(x, function, axes)  # type: ignore[arg-type]
    except (DescriptorError, TypeError, ValueError) as exc:
        assert not fine, f"refused {axes!r} on shape {x_np.shape}: {exc}"
        return
    assert fine, f"took axes {axes!r} on shape {x_np.shape}, which the REDUCE descriptor refuses"
    got = lazy.compute()
    assert tuple(lazy.shape) == tuple(got.shape)
    d = x_np.astype(np.float64)
    if function == "SUM":
        ref = d.sum(axis=ax, keepdims=True)
    elif function == "MAX":
        ref = d.max(axis=ax, keepdims=True)
    elif function == "LOG_SUM_EXP":
        ref = np.log(np.exp(d).sum(axis=ax, keepdims=True))
    else:
        if len(ax) != 1:
            return  # ARGMAX over several axes: the flat index, checked by tests/dask_arrays/test_dask_reduce.py
        ref = np.argmax(d, axis=ax[0], keepdims=True)
    np.testing.assert_allclose(np.asarray(got, np.float64), ref, rtol=1e-5, atol=1e-5)


@FUZZ
@given(st.sampled_from(FLOATS), st.lists(st.sampled_from([0.0, -0.0, math.nan, 1.0]), min_size=2, max_size=4))
def test_broadcast_aliases_of_signed_zeros_and_nans(dt: DataType, values: list[float]) -> None:
    """A zero-stride input of n positions over one element: taken when every position holds the same bits (any
    NaN matching any NaN), else refused; RECIP's answer then follows IEEE (1/+0 = +inf, 1/-0 = -inf)."""
    n = len(values)
    b = TensorDesc.broadcast(dt, (1,), to=(n,))
    t = TensorDesc(dt, (n,))
    compiled = NUMPY.compile_operator(NUMPY.create_operator(ElementWiseRecipOperatorDesc(b, t)))
    arr = np.array(values, np.float64).astype(dt.numpy_dtype)
    same = len({-1 if math.isnan(v) else struct.pack("<d", v) for v in values}) == 1
    try:
        got = compiled(arr)
    except ValueError as exc:
        assert not same, f"refused equal aliases {values}: {exc}"
        return
    assert same, f"took different values {values} at one address"
    with np.errstate(divide="ignore", invalid="ignore"):
        want = (1.0 / np.array(values, np.float64)).astype(dt.numpy_dtype)
    assert _bits(got) == _bits(want)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["fill", "bias"]), st.sampled_from(SPECIAL[:4])), min_size=2, max_size=6))
def test_cached_descriptors_with_signed_zeros_and_nans(runs: list[tuple[str, float]]) -> None:
    """Descriptors equal by ``==`` but not by bits, run one after another through ``gpuops.run``'s cache: each
    answer is its own (FILL gives its value's bits; IDENTITY with ScaleBias(1, bias) of -0.0 gives -0.0 + bias)."""
    t = TensorDesc(DataType.FLOAT32, (2,))
    for kind, v in runs:
        if kind == "fill":
            got = gpuops.run(FillValueConstantOperatorDesc(t, value_data_type=DataType.FLOAT32, value=v), device=NUMPY)
            want = np.full(2, v, np.float32)
        else:
            x = np.full(2, -0.0, np.float32)
            got = gpuops.run(ElementWiseIdentityOperatorDesc(t, t, ScaleBias(1.0, v)), x, device=NUMPY)
            want = (x.astype(np.float64) * 1.0 + v).astype(np.float32)
        assert _bits(got) == _bits(want), (kind, v)


def test_add_through_the_cache_is_still_add() -> None:
    """The cache still hits for exactly equal descriptors (one compiled operator, not one per call)."""
    from gpuops import convenience

    t = TensorDesc(DataType.FLOAT32, (3,))
    before = convenience._compiled_exact.cache_info().hits
    for _ in range(3):
        gpuops.run(ElementWiseAddOperatorDesc(t, t, t), np.ones(3, np.float32), np.ones(3, np.float32), device=NUMPY)
    assert convenience._compiled_exact.cache_info().hits >= before + 2
