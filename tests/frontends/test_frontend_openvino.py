"""The OpenVINO front-end (``gpuops.frontends.openvino``): the Divide seed, broadcast rules, op mapping.

Sources: the Divide-1 seed (``docs/seeds/004_*.txt``) and OpenVINO's "Broadcast Rules For
Elementwise Operations" (docs.openvino.ai, operation-sets/broadcast-rules), whose numpy and pdpd
examples are listed here as written there.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import buffer_elements, buffer_for, read_tensor, to_backend, to_host, uint_view

import gpuops
from descriptors import DataType, DescriptorError, TensorDesc, desc_class, packed_strides
from gpuops.frontends import openvino as ov
from gpuops.frontends._common import Arrays, default_device

# ---------------------------------------------------------------------------------------------
# Helpers


def _int_values(dtype: Any, shape: tuple[int, ...], rng: np.random.Generator, lo: int = -20, hi: int = 20) -> Any:
    info = np.iinfo(dtype)
    return rng.integers(max(lo, int(info.min)), min(hi, int(info.max)), size=shape, endpoint=True).astype(dtype)


def _float_values(dtype: Any, shape: tuple[int, ...], rng: np.random.Generator) -> Any:
    return (rng.integers(-32, 32, size=shape, endpoint=True) / 8.0).astype(dtype)  # eighths in [-4, 4]


def _values(dtype: Any, shape: tuple[int, ...], rng: np.random.Generator) -> Any:
    if np.issubdtype(dtype, np.integer):
        return _int_values(dtype, shape, rng)
    return _float_values(dtype, shape, rng)


def _nonzero(x: np.ndarray) -> np.ndarray:
    """``x`` with zeros replaced by ones (a divisor for exact references)."""
    return np.where(x == 0, np.ones_like(x), x)


def _same_bits(got: Any, want: Any) -> None:
    """Bit for bit, except that a NaN matches any NaN: DirectML fixes no NaN payload (the GPU gives 0x7FFFFFFF
    for 0 / 0 where NumPy gives 0xFFC00000)."""
    got_h, want_h = to_host(got), to_host(want)
    assert got_h.shape == want_h.shape and got_h.dtype == want_h.dtype
    if got_h.dtype.kind == "f" or got_h.dtype.name == "bfloat16":
        nan = np.isnan(want_h.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(got_h.astype(np.float64)), nan)
        got_h, want_h = got_h[~nan], want_h[~nan]
    np.testing.assert_array_equal(uint_view(got_h), uint_view(want_h))


def _broadcast_strides(shape: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides reading packed ``shape`` as ``out``, written out by hand (0 where it stretches)."""
    padded = (1,) * (len(out) - len(shape)) + shape
    packed = packed_strides(padded)
    return tuple(0 if p == 1 and o != 1 else st for p, o, st in zip(padded, out, packed, strict=True))


def _direct(
    device: gpuops.Device,
    op: str,
    a: Any,
    b: Any,
    a_read: tuple[int, ...],
    b_read: tuple[int, ...],
    out_shape: tuple[int, ...],
) -> Any:
    """Run ``op`` through Device.create_operator/compile_operator/execute with hand-built tensors.

    Buffers are laid out by the test helpers (sized to total_tensor_size_in_bytes), not by ``_common``.
    """
    dt = DataType.from_numpy(a.dtype)
    ta = TensorDesc(dt, out_shape, _broadcast_strides(a_read, out_shape))
    tb = TensorDesc(dt, out_shape, _broadcast_strides(b_read, out_shape))
    to = TensorDesc(dt, out_shape)
    compiled = device.compile_operator(device.create_operator(desc_class(op)(ta, tb, to)))
    xp = Arrays(device).xp
    bufs = [to_backend(xp, buffer_for(t, to_host(x).reshape(r))) for t, x, r in ((ta, a, a_read), (tb, b, b_read))]
    out = to_backend(xp, np.zeros(buffer_elements(to), a.dtype))
    compiled.execute(bufs, [out])
    return read_tensor(out, to)


# ---------------------------------------------------------------------------------------------
# The seed's two Divide examples, as written (<data auto_broadcast=... m_pythondiv=...>, port dims).

SEED_EXAMPLES = [
    pytest.param(
        {"auto_broadcast": "none", "m_pythondiv": "true"}, (256, 56), (256, 56), (256, 56), id="example1-none"
    ),
    pytest.param(
        {"auto_broadcast": "numpy", "m_pythondiv": "false"}, (8, 1, 6, 1), (7, 1, 5), (8, 7, 6, 5), id="example2-numpy"
    ),
]


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
@pytest.mark.parametrize(("data", "shape0", "shape1", "shape2"), SEED_EXAMPLES)
def test_seed_divide_examples(
    device: gpuops.Device,
    xp: Any,
    data: dict[str, str],
    shape0: tuple[int, ...],
    shape1: tuple[int, ...],
    shape2: tuple[int, ...],
    dtype: Any,
) -> None:
    rng = np.random.default_rng(4)
    a = _values(dtype, shape0, rng)
    b = _nonzero(_values(dtype, shape1, rng))
    pythondiv = data["m_pythondiv"] == "true"
    got = ov.divide(xp.asarray(a), xp.asarray(b), pythondiv, data["auto_broadcast"], device=device)
    assert isinstance(got, xp.ndarray) and got.shape == shape2 and got.dtype == dtype
    q = a.astype(np.float64) / b.astype(np.float64)  # float64 reference
    if np.issubdtype(dtype, np.integer):
        want = (np.floor(q) if pythondiv else np.trunc(q)).astype(dtype)
        np.testing.assert_array_equal(to_host(got), want)
    else:
        np.testing.assert_allclose(to_host(got), q, rtol=2**-23, atol=0)


# ---------------------------------------------------------------------------------------------
# "Broadcast Rules For Elementwise Operations": every numpy and pdpd example.

NUMPY_EXAMPLES = [
    ((), (), ()),
    ((2, 3), (1,), (2, 3)),
    ((3,), (2, 3), (2, 3)),
    ((2, 3, 5), (), (2, 3, 5)),
    ((2, 1, 5), (1, 4, 5), (2, 4, 5)),
    ((6, 5), (2, 1, 5), (2, 6, 5)),
    ((2, 1, 5), (4, 1), (2, 4, 5)),
    ((3, 2, 1, 4), (5, 4), (3, 2, 5, 4)),
    ((1, 5, 3), (5, 2, 1, 3), (5, 2, 5, 3)),
]
NUMPY_MISMATCHES = [((3,), (2,)), ((3, 1, 5), (4, 4, 5))]
# (a, b, axis, b laid out in a's rank): the doc's pdpd examples, axis=-1 (default) where it says so.
PDPD_EXAMPLES = [
    ((2, 3, 4, 5), (3, 4), 1, (1, 3, 4, 1)),
    ((2, 3, 4, 5), (3, 1), 1, (1, 3, 1, 1)),
    ((2, 3, 4, 5), (4, 5), -1, (1, 1, 4, 5)),
    ((2, 3, 4, 5), (4, 5), 2, (1, 1, 4, 5)),
    ((2, 3, 4, 5), (1, 3), 0, (1, 3, 1, 1)),
    ((2, 3, 4, 5), (), -1, (1, 1, 1, 1)),
    ((2, 3, 4, 5), (5,), -1, (1, 1, 1, 5)),
    ((2, 3, 4, 5), (5,), 3, (1, 1, 1, 5)),
]
PDPD_MISMATCHES = [
    pytest.param((2, 3), (1, 2, 3), -1, "rank", id="rank-b-above-rank-a"),
    pytest.param((2, 3, 4, 5), (4, 5), -2, "axis must be", id="negative-axis"),
    pytest.param((2, 3, 4, 5), (3, 4), 0, "not a subsequence", id="not-at-axis"),
    pytest.param((2, 3, 4, 5), (3, 1), -1, "not a subsequence", id="trailing-1-keeps-default-axis"),
    pytest.param((2, 3, 4, 5), (4, 5), 3, "runs past", id="past-the-end"),
    pytest.param((2, 3, 4, 5), (), 5, "runs past", id="scalar-axis-past-rank"),
    pytest.param((2, 1), (2, 3), -1, "not a subsequence", id="b-stretches-a"),
]


@pytest.mark.parametrize(("a_shape", "b_shape", "out_shape"), NUMPY_EXAMPLES)
def test_numpy_broadcast_examples(
    device: gpuops.Device, xp: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> None:
    assert ov.broadcast_shape(a_shape, b_shape) == out_shape == np.broadcast_shapes(a_shape, b_shape)
    rng = np.random.default_rng(1)
    a, b = _float_values(np.float32, a_shape, rng), _float_values(np.float32, b_shape, rng)
    got = ov.add(xp.asarray(a), xp.asarray(b), device=device)
    assert got.shape == out_shape
    _same_bits(got, (a.astype(np.float64) + b).astype(np.float32))  # sums of eighths are exact


@pytest.mark.parametrize(("a_shape", "b_shape"), NUMPY_MISMATCHES)
def test_numpy_broadcast_mismatch(
    device: gpuops.Device, xp: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    with pytest.raises(ValueError, match="do not broadcast"):
        ov.broadcast_shape(a_shape, b_shape)
    a, b = xp.zeros(a_shape, xp.float32), xp.ones(b_shape, xp.float32)
    with pytest.raises(ValueError, match=r"openvino\.divide: shapes a .* do not broadcast \(numpy rules\)"):
        ov.divide(a, b, device=device)


@pytest.mark.parametrize(("a_shape", "b_shape", "axis", "b_laid"), PDPD_EXAMPLES)
def test_pdpd_broadcast_examples(
    device: gpuops.Device,
    xp: Any,
    a_shape: tuple[int, ...],
    b_shape: tuple[int, ...],
    axis: int,
    b_laid: tuple[int, ...],
) -> None:
    assert ov.broadcast_shape(a_shape, b_shape, "pdpd", axis=axis) == a_shape
    rng = np.random.default_rng(2)
    a, b = _float_values(np.float32, a_shape, rng), _float_values(np.float32, b_shape, rng)
    got = ov.subtract(xp.asarray(a), xp.asarray(b), "pdpd", axis=axis, device=device)
    assert got.shape == a_shape
    _same_bits(got, (a.astype(np.float64) - b.reshape(b_laid)).astype(np.float32))
    # and the very same descriptor built by hand
    _same_bits(got, _direct(device, "ELEMENT_WISE_SUBTRACT", xp.asarray(a), xp.asarray(b), a_shape, b_laid, a_shape))


@pytest.mark.parametrize(("a_shape", "b_shape", "axis", "match"), PDPD_MISMATCHES)
def test_pdpd_broadcast_errors(
    device: gpuops.Device, xp: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...], axis: int, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        ov.broadcast_shape(a_shape, b_shape, "pdpd", axis=axis)
    with pytest.raises(ValueError, match=match):
        ov.multiply(xp.ones(a_shape, xp.int32), xp.ones(b_shape, xp.int32), "pdpd", axis=axis, device=device)


def test_pdpd_does_not_broadcast_a(device: gpuops.Device, xp: Any) -> None:
    """numpy would give (2, 3, 4); pdpd keeps a's shape, so a (3, 4) with b (2, 3, 4) is an error."""
    a, b = xp.ones((3, 4), xp.float32), xp.ones((2, 3, 4), xp.float32)
    assert ov.add(a, b, device=device).shape == (2, 3, 4)
    with pytest.raises(ValueError, match="rank"):
        ov.add(a, b, "pdpd", device=device)


def test_pdpd_trailing_ones_may_extend_past_a(device: gpuops.Device, xp: Any) -> None:
    """(4, 1) at axis 2 of a rank-3 a: the trailing 1 is ignored, so (4,) fits at the last axis."""
    a = xp.asarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    b = xp.asarray(np.array([[1], [2], [3], [4]], np.int32))
    got = ov.add(a, b, "pdpd", axis=2, device=device)
    np.testing.assert_array_equal(to_host(got), np.arange(24).reshape(2, 3, 4) + np.array([1, 2, 3, 4]))


@pytest.mark.parametrize(("a_shape", "b_shape"), [((2, 3), (3,)), ((2, 3), (1, 3)), ((3,), (2, 3)), ((), (1,))])
def test_none_needs_equal_shapes(
    device: gpuops.Device, xp: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    with pytest.raises(ValueError, match="auto_broadcast='none' needs equal shapes"):
        ov.add(xp.ones(a_shape, xp.float32), xp.ones(b_shape, xp.float32), "none", device=device)
    with pytest.raises(ValueError, match="equal shapes"):
        ov.broadcast_shape(a_shape, b_shape, "none")


@pytest.mark.parametrize("mode", ["NUMPY", "Numpy", "none", "NONE", "PDPD", "pdpd", "PdPd"])
def test_mode_names_case_insensitive(device: gpuops.Device, xp: Any, mode: str) -> None:
    a = xp.asarray(np.array([[1.0, 2.0, 3.0]], np.float32))
    got = ov.multiply(a, a, mode, device=device)
    np.testing.assert_array_equal(to_host(got), [[1.0, 4.0, 9.0]])


@pytest.mark.parametrize("mode", ["explicit", "bidirectional", "", "numpy "])
def test_unknown_mode(device: gpuops.Device, xp: Any, mode: str) -> None:
    a = xp.ones(3, xp.float32)
    with pytest.raises(ValueError, match="unknown auto_broadcast"):
        ov.add(a, a, mode, device=device)


def test_mode_and_axis_argument_errors(device: gpuops.Device, xp: Any) -> None:
    a = xp.ones((2, 3), xp.float32)
    with pytest.raises(TypeError, match="auto_broadcast must be a string"):
        ov.add(a, a, None, device=device)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="applies to auto_broadcast='pdpd' only"):
        ov.add(a, a, "numpy", axis=0, device=device)
    with pytest.raises(TypeError, match="axis must be an integer"):
        ov.add(a, a, "pdpd", axis=True, device=device)
    with pytest.raises(TypeError, match="axis must be an integer"):
        ov.add(a, a, "pdpd", axis=1.0, device=device)  # type: ignore[arg-type]
    assert ov.add(a, a, "pdpd", axis=np.int64(0), device=device).shape == (2, 3)


# ---------------------------------------------------------------------------------------------
# pythondiv


SIGNED_A = np.array([7, -7, 7, -7, 6, -6, 0, 1, -1, 9, -1, 10], np.int64)
SIGNED_B = np.array([2, 2, -2, -2, 3, 3, 5, 4, 4, -10, -3, -3], np.int64)
FLOOR = np.array([3, -4, -4, 3, 2, -2, 0, 0, -1, -1, 0, -4])
TRUNC = np.array([3, -3, -3, 3, 2, -2, 0, 0, 0, 0, 0, -3])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_pythondiv_signed_integers(device: gpuops.Device, xp: Any, dtype: Any) -> None:
    a, b = xp.asarray(SIGNED_A.astype(dtype)), xp.asarray(SIGNED_B.astype(dtype))
    for got, want in [
        (ov.divide(a, b, device=device), FLOOR),  # pythondiv defaults to true
        (ov.divide(a, b, True, device=device), FLOOR),
        (ov.divide(a, b, False, device=device), TRUNC),
        (ov.divide(a, b, pythondiv=np.bool_(False), device=device), TRUNC),
    ]:
        assert got.dtype == dtype
        np.testing.assert_array_equal(to_host(got), want.astype(dtype))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64])
def test_pythondiv_unsigned_integers_agree(device: gpuops.Device, xp: Any, dtype: Any) -> None:
    a = xp.asarray(np.array([7, 8, 255, 0], dtype))
    b = xp.asarray(np.array([2, 3, 16, 9], dtype))
    floor, trunc = ov.divide(a, b, True, device=device), ov.divide(a, b, False, device=device)
    _same_bits(floor, trunc)
    np.testing.assert_array_equal(to_host(floor), np.array([3, 2, 15, 0], dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
@pytest.mark.parametrize("pythondiv", [True, False])
def test_integer_division_by_zero_gives_zero(device: gpuops.Device, xp: Any, dtype: Any, pythondiv: bool) -> None:
    a = xp.asarray(np.array([5, 0, 7, 1], dtype))
    got = ov.divide(a, xp.zeros(4, dtype), pythondiv, device=device)
    np.testing.assert_array_equal(to_host(got), np.zeros(4, dtype))


def test_int_min_divided_by_minus_one_wraps(device: gpuops.Device, xp: Any) -> None:
    lo = np.iinfo(np.int32).min
    a, b = xp.asarray(np.array([lo, lo], np.int32)), xp.asarray(np.array([-1, -1], np.int32))
    for pythondiv in (True, False):
        np.testing.assert_array_equal(to_host(ov.divide(a, b, pythondiv, device=device)), [lo, lo])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pythondiv_floats_make_no_difference(device: gpuops.Device, xp: Any, dtype: Any) -> None:
    a_h = np.array([7, -7, 7, -7, 1, -1, 0, 5, 0], dtype)
    b_h = np.array([2, 2, -2, -2, 3, 3, 2, 0, 0], dtype)
    a, b = xp.asarray(a_h), xp.asarray(b_h)
    floor, trunc = ov.divide(a, b, True, device=device), ov.divide(a, b, False, device=device)
    _same_bits(floor, trunc)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.divide(a_h, b_h)  # 3.5, -3.5, ..., inf, nan: true division, not floor
    _same_bits(floor, want)
    _same_bits(floor, _direct(device, "ELEMENT_WISE_DIVIDE", a, b, (9,), (9,), (9,)))


@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_pythondiv_must_be_bool(device: gpuops.Device, xp: Any, value: object) -> None:
    a = xp.ones(4, xp.int32)
    with pytest.raises(TypeError, match="pythondiv must be a bool"):
        ov.divide(a, a, value, device=device)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Every function against the descriptor it stands for, built by hand, and a float64 NumPy reference.


def _ref_divide_floor(a: np.ndarray, b: np.ndarray, integer: bool) -> np.ndarray:
    return np.floor(a / b) if integer else a / b  # pythondiv floors integers only


def _ref_divide_trunc(a: np.ndarray, b: np.ndarray, integer: bool) -> np.ndarray:
    return np.trunc(a / b) if integer else a / b


# name -> (call, operator for (float, integer) inputs, float64 reference, nonzero b for the reference)
FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[str, str], Callable[..., Any], bool]] = {
    "add": (ov.add, ("ELEMENT_WISE_ADD",) * 2, lambda a, b, _: a + b, False),
    "subtract": (ov.subtract, ("ELEMENT_WISE_SUBTRACT",) * 2, lambda a, b, _: a - b, False),
    "multiply": (ov.multiply, ("ELEMENT_WISE_MULTIPLY",) * 2, lambda a, b, _: a * b, False),
    "divide": (ov.divide, ("ELEMENT_WISE_DIVIDE", "ELEMENT_WISE_FLOOR_DIVIDE"), _ref_divide_floor, True),
    "divide_trunc": (
        lambda a, b, **kw: ov.divide(a, b, False, **kw),
        ("ELEMENT_WISE_DIVIDE",) * 2,
        _ref_divide_trunc,
        True,
    ),
    "maximum": (ov.maximum, ("ELEMENT_WISE_MAX",) * 2, lambda a, b, _: np.maximum(a, b), False),
    "minimum": (ov.minimum, ("ELEMENT_WISE_MIN",) * 2, lambda a, b, _: np.minimum(a, b), False),
    "power": (ov.power, ("ELEMENT_WISE_POW",) * 2, lambda a, b, _: np.power(a, b), False),
    "floor_mod": (ov.floor_mod, ("ELEMENT_WISE_MODULUS_FLOOR",) * 2, lambda a, b, _: np.remainder(a, b), True),
    "mod": (ov.mod, ("ELEMENT_WISE_MODULUS_TRUNCATE",) * 2, lambda a, b, _: np.fmod(a, b), True),
    "squared_difference": (
        ov.squared_difference,
        ("ELEMENT_WISE_DIFFERENCE_SQUARE",) * 2,
        lambda a, b, _: (a - b) ** 2,
        False,
    ),
}
# Three float and four integer types per function, where the operator's table has them.
NOT_IN_TABLE = {("power", np.int64), ("squared_difference", np.int64), ("squared_difference", np.int8)}
NAME_DTYPES = [
    pytest.param(n, d, id=f"{n}-{np.dtype(d).name}")
    for n in FUNCTIONS
    for d in (np.float32, np.float64, np.float16, np.int32, np.int64, np.int8, np.uint32)
    if (n, d) not in NOT_IN_TABLE
]
LAYOUTS = [
    # (a shape, b shape, mode, axis, a read as, b read as, output shape)
    pytest.param((2, 1, 4), (3, 1), "numpy", -1, (2, 1, 4), (3, 1), (2, 3, 4), id="numpy"),
    pytest.param((), (2, 3), "numpy", -1, (), (2, 3), (2, 3), id="numpy-scalar-a"),
    pytest.param((3, 4), (3, 4), "none", -1, (3, 4), (3, 4), (3, 4), id="none"),
    pytest.param((2, 3, 4), (3, 1), "pdpd", 1, (2, 3, 4), (1, 3, 1), (2, 3, 4), id="pdpd"),
]


def _operands(name: str, dtype: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> tuple[Any, Any]:
    rng = np.random.default_rng(zlib.crc32(f"{name}/{np.dtype(dtype).str}".encode()))
    if name == "power":  # bases and exponents that stay exact in float32 and inside int32
        if np.issubdtype(dtype, np.integer):
            return _int_values(dtype, a_shape, rng, -6, 6), _int_values(dtype, b_shape, rng, -2, 6)
        base = rng.integers(1, 16, size=a_shape) / 4.0
        return base.astype(dtype), rng.integers(-3, 4, size=b_shape).astype(dtype)
    a, b = _values(dtype, a_shape, rng), _values(dtype, b_shape, rng)
    if np.issubdtype(dtype, np.floating):  # NaN, infinities and signed zeros in both operands
        a.flat[: min(a.size, 3)] = [np.nan, -0.0, np.inf][: min(a.size, 3)]
        b.flat[-min(b.size, 2) :] = [0.0, -np.inf][-min(b.size, 2) :]
    else:
        b.flat[0] = 0
    return a, b


def _layout_to_numpy(x: np.ndarray, read: tuple[int, ...]) -> np.ndarray:
    return x.reshape(read) if read else x


@pytest.mark.parametrize(("a_shape", "b_shape", "mode", "axis", "a_read", "b_read", "out_shape"), LAYOUTS)
@pytest.mark.parametrize(("name", "dtype"), NAME_DTYPES)
def test_matches_direct_descriptor(
    device: gpuops.Device,
    xp: Any,
    name: str,
    dtype: Any,
    a_shape: tuple[int, ...],
    b_shape: tuple[int, ...],
    mode: str,
    axis: int,
    a_read: tuple[int, ...],
    b_read: tuple[int, ...],
    out_shape: tuple[int, ...],
) -> None:
    call, ops, _, _ = FUNCTIONS[name]
    op = ops[1] if np.issubdtype(dtype, np.integer) else ops[0]
    a_h, b_h = _operands(name, dtype, a_shape, b_shape)
    a, b = xp.asarray(a_h), xp.asarray(b_h)
    with np.errstate(all="ignore"):
        got = call(a, b, auto_broadcast=mode, axis=axis, device=device)
    assert isinstance(got, xp.ndarray) and got.shape == out_shape and got.dtype == dtype
    want = _direct(device, op, a, b, a_read or (1,), b_read, out_shape or (1,))
    _same_bits(got, want.reshape(out_shape))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_float64_reference(device: gpuops.Device, xp: Any, name: str, dtype: Any) -> None:
    call, _, ref, nonzero = FUNCTIONS[name]
    rng = np.random.default_rng(11)
    a_shape, b_shape, out_shape = (4, 1, 6), (5, 1), (4, 5, 6)
    if name == "power":
        a_h, b_h = _operands(name, dtype, a_shape, b_shape)
        if np.issubdtype(dtype, np.integer):
            b_h = np.abs(b_h)  # the float64 reference has no truncated reciprocal
    else:
        a_h, b_h = _values(dtype, a_shape, rng), _values(dtype, b_shape, rng)
    if nonzero:
        b_h = _nonzero(b_h)
    got = to_host(call(xp.asarray(a_h), xp.asarray(b_h), device=device))
    assert got.shape == out_shape and got.dtype == dtype
    integer = bool(np.issubdtype(dtype, np.integer))
    want = ref(a_h.astype(np.float64), b_h.astype(np.float64), integer)
    if integer:
        np.testing.assert_array_equal(got, want.astype(np.int64))
    else:
        np.testing.assert_allclose(got, want, rtol=2**-21, atol=0)


def test_mod_signs(device: gpuops.Device, xp: Any) -> None:
    a = xp.asarray(np.array([7, -7, 7, -7, 5], np.int32))
    b = xp.asarray(np.array([3, 3, -3, -3, 0], np.int32))
    np.testing.assert_array_equal(to_host(ov.mod(a, b, device=device)), [1, -1, 1, -1, 0])  # sign of a
    np.testing.assert_array_equal(to_host(ov.floor_mod(a, b, device=device)), [1, 2, -2, -1, 0])  # sign of b


def test_squared_difference_is_one_descriptor(device: gpuops.Device, xp: Any) -> None:
    """SUBTRACT with a fused ACTIVATION_SQUARE does not validate; DIFFERENCE_SQUARE serves it alone."""
    dt = DataType.FLOAT32
    t = TensorDesc(dt, (3,))
    fused = desc_class("ELEMENT_WISE_SUBTRACT")(t, t, t, fused_activation=desc_class("ACTIVATION_SQUARE")(None, None))
    with pytest.raises(DescriptorError, match="fusable"):
        device.create_operator(fused)
    a = xp.asarray(np.array([1.0, -2.0, 3.5, 0.0], np.float32))
    b = xp.asarray(np.array([4.0, 2.0, -0.5, 0.0], np.float32))
    np.testing.assert_array_equal(to_host(ov.squared_difference(a, b, device=device)), [9.0, 16.0, 16.0, 0.0])


# ---------------------------------------------------------------------------------------------
# Types


@pytest.mark.parametrize(
    ("a_dtype", "b_dtype"),
    [(np.float32, np.float64), (np.int32, np.float32), (np.int32, np.int64), (np.uint8, np.int8)],
)
def test_mixed_types(device: gpuops.Device, xp: Any, a_dtype: Any, b_dtype: Any) -> None:
    with pytest.raises(TypeError, match="a and b must have the same type"):
        ov.divide(xp.ones(4, a_dtype), xp.ones(4, b_dtype), device=device)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_bool_is_not_numeric(device: gpuops.Device, xp: Any, name: str) -> None:
    a = xp.ones(4, dtype=bool)
    with pytest.raises(TypeError, match="bool is not a numeric type"):
        FUNCTIONS[name][0](a, a, device=device)


def test_type_without_datatype(device: gpuops.Device, xp: Any) -> None:
    a = xp.ones(4, dtype=np.complex64)
    with pytest.raises(TypeError, match="complex64, which gpuops has no DataType for"):
        ov.add(a, a, device=device)


@pytest.mark.parametrize(
    ("name", "dtype", "op"),
    [
        ("power", np.int64, "ELEMENT_WISE_POW"),
        ("power", np.uint64, "ELEMENT_WISE_POW"),
        ("squared_difference", np.int8, "ELEMENT_WISE_DIFFERENCE_SQUARE"),
        ("squared_difference", np.int64, "ELEMENT_WISE_DIFFERENCE_SQUARE"),
        ("squared_difference", np.uint16, "ELEMENT_WISE_DIFFERENCE_SQUARE"),
    ],
)
def test_unsupported_types(device: gpuops.Device, xp: Any, name: str, dtype: Any, op: str) -> None:
    a = xp.ones(4, dtype)
    with pytest.raises(
        TypeError, match=rf"openvino\.{name}: {DataType.from_numpy(dtype).name} is not supported by {op}"
    ):
        FUNCTIONS[name][0](a, a, device=device)


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint16])
def test_narrow_types_even_sizes(device: gpuops.Device, xp: Any, dtype: Any) -> None:
    """8- and 16-bit operands whose byte sizes are multiples of 4 (see the next test for the others)."""
    a_h = np.arange(8).reshape(2, 4).astype(dtype)
    b_h = np.array([1, 2, 3, 4], dtype)
    got = ov.add(xp.asarray(a_h), xp.asarray(b_h), device=device)
    assert got.dtype == dtype
    np.testing.assert_array_equal(to_host(got), (a_h + b_h).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint16])
@pytest.mark.parametrize(("a_shape", "b_shape"), [((), ()), ((2, 3), (3,)), ((3,), ()), ((5,), (5,))])
def test_narrow_types_odd_sizes(
    device: gpuops.Device, xp: Any, dtype: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    """8- and 16-bit operands whose byte sizes are not multiples of 4 (a 0-d float16, a 3-element int8)."""
    a_h = np.full(a_shape, 3, dtype)
    b_h = np.full(b_shape, 2, dtype)
    added = ov.add(xp.asarray(a_h), xp.asarray(b_h), device=device)
    got = ov.divide(xp.asarray(-a_h), xp.asarray(b_h), device=device)  # floors integers, divides floats
    assert added.shape == np.broadcast_shapes(a_shape, b_shape) and added.dtype == dtype
    np.testing.assert_array_equal(to_host(added), a_h + b_h)
    want = (-a_h) / b_h if dtype is np.float16 else (-a_h) // b_h  # -1.5, -2 and 65533 // 2
    np.testing.assert_array_equal(to_host(got), want.astype(dtype))


# ---------------------------------------------------------------------------------------------
# What comes back, rank 0, layouts, devices


def test_returns_a_new_array_of_the_inputs_kind(device: gpuops.Device, xp: Any) -> None:
    a = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = xp.asarray(np.array([1.0, 2.0, 4.0], np.float32))
    got = ov.divide(a, b, device=device)
    assert type(got) is type(a) and got.shape == (2, 3) and got.dtype == np.float32
    assert got.flags.c_contiguous and not xp.shares_memory(got, a) and not xp.shares_memory(got, b)
    np.testing.assert_array_equal(to_host(a), np.arange(6, dtype=np.float32).reshape(2, 3))  # inputs untouched


@pytest.mark.parametrize("mode", ["none", "numpy", "pdpd"])
def test_rank0_inputs(device: gpuops.Device, xp: Any, mode: str) -> None:
    a, b = xp.asarray(np.int32(-7)), xp.asarray(np.int32(2))
    got = ov.divide(a, b, True, mode, device=device)
    assert got.shape == () and got.dtype == np.int32 and int(got) == -4
    got = ov.divide(a, b, False, mode, device=device)
    assert int(got) == -3


def test_rank0_with_arrays(device: gpuops.Device, xp: Any) -> None:
    m = xp.asarray(np.array([[1, 2], [3, 4]], np.int32))
    s = xp.asarray(np.int32(10))
    np.testing.assert_array_equal(to_host(ov.subtract(s, m, device=device)), [[9, 8], [7, 6]])
    np.testing.assert_array_equal(to_host(ov.subtract(m, s, "pdpd", device=device)), [[-9, -8], [-7, -6]])
    with pytest.raises(ValueError, match="rank"):
        ov.subtract(s, m, "pdpd", device=device)


def test_non_contiguous_inputs(device: gpuops.Device, xp: Any) -> None:
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = xp.asarray(base).T  # (4, 3), transposed view
    b = xp.asarray(np.arange(6, dtype=np.float32))[::2]  # (3,), strided view
    got = ov.add(a, b, device=device)
    np.testing.assert_array_equal(to_host(got), base.T + np.arange(6, dtype=np.float32)[::2])


def test_empty_result(device: gpuops.Device, xp: Any) -> None:
    got = ov.add(xp.ones((0, 3), xp.float32), xp.ones(3, xp.float32), device=device)
    assert isinstance(got, xp.ndarray) and got.shape == (0, 3) and got.dtype == np.float32
    with pytest.raises(ValueError, match="do not broadcast"):
        ov.add(xp.ones((0, 3), xp.float32), xp.ones(2, xp.float32), device=device)


def test_default_device() -> None:
    dev = default_device()
    xp = Arrays(dev).xp
    a = xp.asarray(np.array([7, -7], np.int32))
    b = xp.asarray(np.array([2, 2], np.int32))
    got = ov.divide(a, b)
    assert isinstance(got, xp.ndarray)
    np.testing.assert_array_equal(to_host(got), [3, -4])


def test_device_argument_must_be_a_device(xp: Any) -> None:
    a = xp.ones(2, xp.float32)
    with pytest.raises(TypeError, match="device must be a gpuops.Device"):
        ov.add(a, a, device="numpy")  # type: ignore[arg-type]


def test_arrays_of_the_other_side(device: gpuops.Device, backend: str) -> None:
    class FakeGpuArray:
        __cuda_array_interface__: dict[str, Any] = {}

    host = np.ones(3, np.float32)
    other: Any = host if backend == "cupy" else FakeGpuArray()
    ours = Arrays(device).xp.ones(3, np.float32)
    with pytest.raises(TypeError, match=r"openvino\.add: a is a (host|GPU) array"):
        ov.add(other, ours, device=device)
    with pytest.raises(TypeError, match=r"openvino\.add: b is a (host|GPU) array"):
        ov.add(ours, other, device=device)


def test_device_without_extensions(backend: str) -> None:
    dev = gpuops.Device(backend, extensions=False)
    xp = Arrays(dev).xp
    i = xp.asarray(np.array([-7, 7], np.int32))
    np.testing.assert_array_equal(
        to_host(ov.divide(i, xp.asarray(np.array([2, 2], np.int32)), False, device=dev)), [-3, 3]
    )
    with pytest.raises(DescriptorError, match="extension"):
        ov.divide(i, i, True, device=dev)  # FLOOR_DIVIDE is a gpuops extension
    f = xp.ones(2, xp.float32)
    _same_bits(ov.divide(f, f, True, device=dev), np.ones(2, np.float32))  # floats: DIVIDE, no extension
    d = xp.ones(2, xp.float64)
    with pytest.raises(TypeError, match="FLOAT64 is not supported by ELEMENT_WISE_ADD .* with extensions off"):
        ov.add(d, d, device=dev)


def test_device_feature_level(backend: str) -> None:
    dev = gpuops.Device(backend, max_feature_level="FL_3_0")
    xp = Arrays(dev).xp
    f = xp.ones(2, xp.float32)
    with pytest.raises(DescriptorError, match="introduced at FL_3_1"):
        ov.squared_difference(f, f, device=dev)
    i = xp.ones(2, xp.int64)
    with pytest.raises(TypeError, match="INT64 is not supported by ELEMENT_WISE_ADD"):
        ov.add(i, i, device=dev)  # 64-bit integer ADD comes with FL 4_1
    np.testing.assert_array_equal(to_host(ov.add(f, f, device=dev)), [2.0, 2.0])


# ---------------------------------------------------------------------------------------------
# MVN-6's axes (issue 31): integers only, as MEAN_VARIANCE_NORMALIZATION1's own rule


def _mvn_reference(x: np.ndarray, axes: tuple[int, ...], eps: float) -> np.ndarray:
    v = x.astype(np.float64)
    d = v - v.mean(axis=axes, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=axes, keepdims=True) + float(np.float32(eps)))


@pytest.mark.parametrize(
    ("axes", "shown"),
    [
        (["10"], "('10',)"),
        ("10", "('10',)"),
        ([1.9], "(1.9,)"),
        (0.5, "(0.5,)"),
        ([True], "(True,)"),
        ([2, 3.0], "(2, 3.0)"),
        (np.array([2.0, 3.0]), "(2.0, 3.0)"),
        (np.array([True, False]), "(True, False)"),
    ],
    ids=repr,
)
def test_mvn_axes_are_integers(axes: Any, shown: str) -> None:
    """Each axis is taken as it is (``int()`` took ``"10"`` as 10, 1.9 as 1, True as 1): a bool, float or string
    axis is a TypeError in the descriptor's words."""
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    want = f"openvino.mvn: axes must be a sequence of axis numbers (UINT) (got {shown})"
    with pytest.raises(TypeError) as info:
        ov.mvn(x, axes, True, 1e-6, "inside_sqrt")
    assert str(info.value) == want


@pytest.mark.parametrize(
    ("axes", "norm"),
    [(np.array([2, 3], np.int32), (2, 3)), ([np.int64(-1)], (3,)), ((np.uint8(1), -1), (1, 3)), (2, (2,))],
    ids=repr,
)
def test_mvn_takes_integer_axes_of_numpy(axes: Any, norm: tuple[int, ...]) -> None:
    x = (np.random.default_rng(31).standard_normal((2, 3, 4, 5)) * 3).astype(np.float32)
    got = ov.mvn(x, axes, True, 1e-6, "inside_sqrt")
    np.testing.assert_allclose(got.astype(np.float64), _mvn_reference(x, norm, 1e-6), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", [("2", 3), (2.7, 3), (True, 3), (np.float32(2), 3), "23"])
def test_broadcast_shape_takes_integer_dimensions_only(bad: object) -> None:
    """``int()`` would turn "2", 2.7 and True into dimensions; OpenVINO's shapes are integers (issue 31)."""
    with pytest.raises(TypeError, match="a_shape must be a sequence of integers"):
        ov.broadcast_shape(bad, (3,))  # type: ignore[arg-type]
    assert ov.broadcast_shape((np.int64(2), 3), (3,)) == (2, 3)
