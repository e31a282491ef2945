"""Generated tests for the scan rows (``ScanRow``: CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT).

Rows x data types (``dtype_combinations`` at FL 6_4) x layout cases (1-D, 3-D along each axis, permuted and padded
strides, a stride-0 input, 8-D, a line of 1200) x the four modes (direction x exclusive) x backends (NumPy, and
the CUDA emulator or CuPy), against references written from the formula: output j is the sum (product) of the
input over k <= j (k >= j when DECREASING; k < j, k > j when exclusive), exact modulo 2^bits for integers, in
long double for floats, within the bound the row states. Literal edge cases (the DirectML pages' examples,
wrapping, NaN and infinities, a float16 running sum beyond 65504), validation, in-place execution, a scan node in
a graph, NVRTC of every kernel.
"""

from __future__ import annotations

import functools
import zlib
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, sandwich_graph, to_backend, to_host, uint_view

import gpuops
from descriptors import ROWS, DataType, DescriptorError, FeatureLevel, TensorDesc, desc_class, dtype_combinations

LEVEL = FeatureLevel.FL_6_4
SCAN_ROWS = [r for r in ROWS if r.is_scan]
SUM, PRODUCT = "CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT"
F32, F16, F64, BF16 = DataType.FLOAT32, DataType.FLOAT16, DataType.FLOAT64, DataType.BFLOAT16
EXCLUSIVE = {SUM: "has_exclusive_sum", PRODUCT: "has_exclusive_product"}
MODES = [(reverse, exclusive) for reverse in (False, True) for exclusive in (False, True)]

# (case id, sizes, input strides, output strides, axis)
LAYOUTS = [
    ("1d", (37,), None, None, 0),
    ("3d-axis0", (3, 4, 5), None, None, 0),
    ("3d-axis1", (3, 4, 5), None, None, 1),
    ("3d-axis2", (3, 4, 5), None, None, 2),
    ("permuted", (3, 4, 5), (1, 3, 12), (1, 15, 3), 1),
    ("padded", (4, 6), (8, 1), (7, 1), 0),
    ("bcast", (3, 5), (0, 1), None, 0),  # every line reads one element three times
    ("8d", (2, 1, 3, 1, 2, 2, 1, 3), None, None, 2),
    ("long", (2, 1200), None, None, 1),
]

CASES = [
    pytest.param(row.name, combo["input_tensor"], case, id=f"{row.name}-{combo['input_tensor'].name}-{case[0]}")
    for row in SCAN_ROWS
    for combo in dtype_combinations(row.name, LEVEL)
    for case in LAYOUTS
]


def _eps(dt: DataType) -> float:
    return {F64: 2.0**-52, F32: 2.0**-23, F16: 2.0**-10, BF16: 2.0**-7}[dt]


def _unit(dt: DataType) -> float:
    """The accumulator's unit roundoff: float32's for FLOAT32, FLOAT16 and BFLOAT16, float64's for FLOAT64."""
    return 2.0**-53 if dt is F64 else 2.0**-24


def _tiny(dt: DataType) -> float:
    """The smallest subnormal of a 16-bit output type (its rounding step near 0), 0 for the accumulator types."""
    return {F16: 2.0**-24, BF16: 2.0**-133}.get(dt, 0.0)


def values(name: str, dt: DataType, sizes: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Inputs: integers over the whole range (so sums and products wrap); floats of either sign, for products of
    magnitude near 1 so that no partial product leaves the float32 range."""
    if not dt.is_float:
        info = np.iinfo(dt.numpy_dtype)
        return (
            rng.integers(int(info.min), int(info.max), sizes, dtype=np.int64, endpoint=True).astype(dt.numpy_dtype)
            if dt.itemsize < 8
            else rng.integers(info.min, info.max, sizes, dtype=dt.numpy_dtype, endpoint=True)
        )
    if name == SUM:
        return (rng.standard_normal(sizes) * 4).astype(dt.numpy_dtype)
    n = max(sizes)
    spread = 0.03 if n > 100 else 0.75
    mag = rng.uniform(1 - spread, 1 + spread, sizes)
    return (mag * rng.choice([-1.0, 1.0], sizes)).astype(dt.numpy_dtype)


def _terms(n: int, j: int, reverse: bool, exclusive: bool) -> range:
    """The positions k whose values output j combines (DirectML's pages, in words)."""
    if not reverse:
        return range(0, j) if exclusive else range(0, j + 1)
    return range(j + 1, n) if exclusive else range(j, n)


def reference(name: str, x: np.ndarray, axis: int, reverse: bool, exclusive: bool) -> tuple[np.ndarray, ...]:
    """(reference, Σ|terms|, term count) per output. Integers: the exact value modulo 2^bits, as the type's
    integers (object array). Floats: long double sums and products of the terms of each output."""
    dt = x.dtype
    lines = np.moveaxis(x, axis, -1)
    shape = lines.shape
    n = shape[-1]
    flat = lines.reshape(-1, n)
    counts = np.zeros(flat.shape)
    if dt.kind in "iu":
        bits = dt.itemsize * 8
        mod = 1 << bits
        ints = flat.astype(object)
        out = np.zeros(flat.shape, dtype=object)
        ident = 0 if name == SUM else 1
        order = range(n - 1, -1, -1) if reverse else range(n)
        acc = np.full(flat.shape[0], ident, dtype=object)
        for j in order:  # the running value modulo 2^bits: sums and products are ring operations
            if exclusive:
                out[:, j] = acc
            acc = (acc + ints[:, j]) % mod if name == SUM else (acc * ints[:, j]) % mod
            if not exclusive:
                out[:, j] = acc
        if dt.kind == "i":
            out = np.where(out >= mod // 2, out - mod, out)
        mags = np.zeros(flat.shape)
    else:
        wide = flat.astype(np.longdouble)
        out = np.zeros(flat.shape, dtype=np.longdouble)
        mags = np.zeros(flat.shape, dtype=np.longdouble)
        with np.errstate(all="ignore"):
            for j in range(n):
                k = _terms(n, j, reverse, exclusive)
                part = wide[:, k.start : k.stop]
                out[:, j] = part.sum(axis=1) if name == SUM else part.prod(axis=1)
                mags[:, j] = np.abs(part).sum(axis=1)
                counts[:, j] = len(k)
    back = [np.moveaxis(a.reshape(shape), -1, axis) for a in (out, mags, counts)]
    return back[0], back[1], back[2]


#: The reference of each row (``test_completeness``): ``REFERENCES[name](x, axis, reverse, exclusive)``.
REFERENCES = {name: functools.partial(reference, name) for name in (SUM, PRODUCT)}


def bound(name: str, dt: DataType, ref: np.ndarray, mags: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The row's stated bound (``ScanRow.error_bound``): m terms accumulated one by one in the accumulator carry
    at most gamma(m-1) = (m-1)u/(1-(m-1)u) times Σ|terms| (a sum) or |result| (a product); plus the one rounding
    into a 16-bit output type, and the reference's own long double error."""
    g = (np.maximum(counts - 1, 0) * _unit(dt)).astype(np.float64)
    g = g / (1 - g)
    mag = np.abs(np.nan_to_num(ref.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0))
    size = mags.astype(np.float64) if name == SUM else mag
    acc = g * size + counts * 2.0**-62 * size
    if dt in (F16, BF16):
        acc = acc + _eps(dt) * (mag + acc) + _tiny(dt)
    return acc


def run(
    device: gpuops.Device,
    xp: Any,
    name: str,
    dt: DataType,
    layout: tuple,
    x: np.ndarray,
    reverse: bool,
    exclusive: bool,
    in_place: bool = False,
) -> np.ndarray:
    """Run one descriptor on ``x`` (logical values); the output's logical values."""
    _, sizes, in_st, out_st, axis = layout
    x_desc = TensorDesc(dt, sizes, in_st)
    out_desc = x_desc if in_place else TensorDesc(dt, sizes, out_st)
    fields = {"axis": axis, "axis_direction": int(reverse), EXCLUSIVE[name]: exclusive}
    desc = desc_class(name)(x_desc, out_desc, **fields)
    op = device.compile_operator(device.create_operator(desc))
    assert op.launch_path in ("numpy", "scan") and op.kernel_count == 1
    buf = buffer_for(x_desc, x)
    before = buf.copy()
    dev_in = to_backend(xp, buf)
    if in_place:
        op.execute([dev_in], [dev_in])
        return read_tensor(to_host(dev_in), out_desc)
    out = buffer_for(out_desc, np.zeros(sizes))
    out[...] = np.frombuffer(bytes([0x5A]) * out.nbytes, dtype=out.dtype)
    dev_out = to_backend(xp, out)
    op.execute([dev_in], [dev_out])
    assert np.array_equal(uint_view(before), uint_view(to_host(dev_in))), "the input buffer was modified"
    got = read_tensor(to_host(dev_out), out_desc)
    if out_st is not None:  # padding between the output's elements is left alone
        host = to_host(dev_out)
        from helpers import element_offsets

        pad = np.ones(host.size, bool)
        pad[element_offsets(out_desc).ravel()] = False
        assert (uint_view(host[pad]) == uint_view(out[pad])).all(), "padding was written"
    return got


def check(name: str, dt: DataType, got: np.ndarray, x: np.ndarray, axis: int, reverse: bool, exclusive: bool) -> None:
    ref, mags, counts = reference(name, x, axis, reverse, exclusive)
    what = f"{name} {dt.name} axis {axis} reverse={reverse} exclusive={exclusive}"
    if not dt.is_float:
        want = ref.astype(dt.numpy_dtype)
        assert np.array_equal(got, want), f"{what}: got {got.ravel()[:8]} want {want.ravel()[:8]}"
        return
    ref64 = ref.astype(np.float64)
    got64 = got.astype(np.float64)
    skip = _out_of_domain(name, dt, x, axis, reverse, exclusive)
    ref64, got64 = np.where(skip, 0.0, ref64), np.where(skip, 0.0, got64)
    nan = np.isnan(ref64)
    assert np.array_equal(np.isnan(got64), nan), f"{what}: NaN where the reference has none (or not)"
    with np.errstate(all="ignore"):  # infinite inputs: outside the domain, skipped
        tol = bound(name, dt, ref, mags, counts)
    with np.errstate(invalid="ignore"):
        # in long double: the reference rounded to float64 would be half an ulp off for FLOAT64 outputs
        err = np.abs(got64.astype(np.longdouble) - np.where(skip, 0.0, ref)).astype(np.float64)
    top = float(np.finfo(dt.numpy_dtype).max) if dt is not BF16 else 3.3895313892515355e38
    overflow = np.isinf(got64) & (np.sign(got64) == np.sign(ref64)) & (np.abs(ref64) + tol >= top)
    bad = ~nan & ~(err <= tol) & (got64 != ref64) & ~overflow
    assert not bad.any(), (
        f"{what}: {int(bad.sum())} of {bad.size} beyond the bound; worst {err[bad].max():.3g} "
        f"(bound {tol[bad][np.argmax(err[bad])]:.3g})"
    )


def _out_of_domain(name: str, dt: DataType, x: np.ndarray, axis: int, reverse: bool, exclusive: bool) -> np.ndarray:
    """Outputs outside the stated bound's domain: those after a running value (exact, in the direction) that
    leaves the accumulator's finite range, or for a product falls below its normal range (an infinite input
    counts). There the accumulator overflows (or loses digits) and the result is what IEEE arithmetic gives."""
    acc = np.float64 if dt is F64 else np.float32
    top, tiny = float(np.finfo(acc).max), float(np.finfo(acc).tiny)
    wide = np.moveaxis(x.astype(np.longdouble), axis, -1)
    if reverse:
        wide = wide[..., ::-1]
    with np.errstate(all="ignore"):
        part = np.cumsum(wide, axis=-1) if name == SUM else np.cumprod(wide, axis=-1)
        mag = np.abs(part)
        bad = mag > top
        if name == PRODUCT:
            bad |= (mag > 0) & (mag < tiny)
    bad = np.logical_or.accumulate(bad, axis=-1)
    if exclusive:
        bad = np.concatenate([np.zeros_like(bad[..., :1]), bad[..., :-1]], axis=-1)
    if reverse:
        bad = bad[..., ::-1]
    return np.moveaxis(bad, -1, axis)


@pytest.mark.parametrize(("name", "dt", "layout"), CASES)
def test_matches_reference(name: str, dt: DataType, layout: tuple, device: gpuops.Device, xp: Any) -> None:
    case, sizes, in_st, _, axis = layout
    rng = np.random.default_rng(zlib.crc32(f"{name}|{dt.name}|{case}".encode()))
    x = values(name, dt, sizes, rng)
    if in_st is not None and 0 in in_st:  # a stride-0 input: one element per position of the other dimensions
        x = np.broadcast_to(x[:1], sizes).copy()
    for reverse, exclusive in MODES:
        got = run(device, xp, name, dt, layout, x, reverse, exclusive)
        check(name, dt, got, x, axis, reverse, exclusive)


IN_PLACE_ROWS = (SUM, PRODUCT)


@pytest.mark.parametrize("name", IN_PLACE_ROWS)
@pytest.mark.parametrize("dt", [F32, F16, DataType.INT8, DataType.UINT32])
def test_in_place(name: str, dt: DataType, device: gpuops.Device, xp: Any) -> None:
    """DirectML's pages: the output may alias the input (same layout); each element is read before written."""
    layout = ("in-place", (3, 4, 5), (1, 3, 12), None, 1)
    rng = np.random.default_rng(11)
    x = values(name, dt, layout[1], rng)
    for reverse, exclusive in MODES:
        got = run(device, xp, name, dt, layout, x, reverse, exclusive, in_place=True)
        check(name, dt, got, x, 1, reverse, exclusive)


def test_backends_agree_bit_for_bit_on_integers_and_float32_sums(xp: Any) -> None:
    """NumPy's accumulate and the CUDA walk are both sequential in float32: on these inputs they agree exactly
    (what is claimed elsewhere is only the bound; this records what is observed)."""
    layout = ("agree", (3, 50), None, None, 1)
    rng = np.random.default_rng(3)
    for name, dt in ((SUM, F32), (SUM, DataType.INT16), (PRODUCT, DataType.UINT8)):
        x = values(name, dt, layout[1], rng)
        for reverse, exclusive in MODES:
            a = run(gpuops.Device("numpy"), np, name, dt, layout, x, reverse, exclusive)
            b = run(gpuops.Device("emulator"), _emulator_xp(), name, dt, layout, x, reverse, exclusive)
            assert np.array_equal(uint_view(a), uint_view(b)), (name, dt, reverse, exclusive)


def _emulator_xp() -> Any:
    from gpuops import backends

    return backends.load("emulator").xp


# ---------------------------------------------------------------------------------------------- edge cases

INF, NAN = np.inf, np.nan
_PAGE_X = [[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]]
_I8, _U8, _U16, _I64 = DataType.INT8, DataType.UINT8, DataType.UINT16, DataType.INT64
# (row, data type, input, params, expected): the DirectML pages' examples, and expectations by hand.
EDGE_CASES = [
    (SUM, F32, _PAGE_X, {"axis": 3}, [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]),
    (SUM, F32, _PAGE_X, {"axis": 3, "exclusive": True}, [[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]]),
    (SUM, F32, _PAGE_X, {"axis": 3, "reverse": True}, [[[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]]),
    (SUM, F32, _PAGE_X, {"axis": 2}, [[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]]),
    (PRODUCT, F32, _PAGE_X, {"axis": 3}, [[[[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]]]),
    (PRODUCT, F32, _PAGE_X, {"axis": 3, "exclusive": True}, [[[[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]]]),
    (PRODUCT, F32, _PAGE_X, {"axis": 3, "reverse": True}, [[[[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]]]),
    (PRODUCT, F32, _PAGE_X, {"axis": 2}, [[[[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]]]),
    # ONNX CumSum's example, all four modes.
    (SUM, F32, [1, 2, 3], {"exclusive": True, "reverse": True}, [5, 3, 0]),
    # Integers wrap modulo 2^bits.
    (SUM, _I8, [100, 100, 100], {}, [100, -56, 44]),
    (SUM, _I8, [-128, -1], {}, [-128, 127]),
    (SUM, _U16, [65535, 2], {}, [65535, 1]),
    (SUM, _I64, [2**63 - 1, 1], {}, [2**63 - 1, -(2**63)]),
    (PRODUCT, _U8, [16, 16, 3], {}, [16, 0, 0]),
    (PRODUCT, _U8, [255, 255, 255], {}, [255, 1, 255]),
    (PRODUCT, _I8, [-128, -1], {}, [-128, -128]),
    (PRODUCT, _I64, [2**62, 4, 5], {"exclusive": True}, [1, 2**62, 0]),
    (PRODUCT, DataType.UINT32, [65536, 65536], {"reverse": True}, [0, 65536]),
    # NaN propagates to every later output in the direction; inf - inf and 0 * inf are NaN.
    (SUM, F32, [1.0, NAN, 2.0], {}, [1.0, NAN, NAN]),
    (SUM, F32, [1.0, NAN, 2.0], {"exclusive": True}, [0.0, 1.0, NAN]),
    (SUM, F32, [1.0, NAN, 2.0], {"reverse": True}, [NAN, NAN, 2.0]),
    (SUM, F32, [INF, 1.0, -INF], {}, [INF, INF, NAN]),
    (PRODUCT, F32, [2.0, INF, 0.0, 3.0], {}, [2.0, INF, NAN, NAN]),
    (PRODUCT, F16, [NAN, 2.0], {"reverse": True, "exclusive": True}, [2.0, 1.0]),
    # float16 and bfloat16 accumulate in float32, each output rounded once: a running sum beyond float16's range
    # gives inf only where the output itself is beyond it, and comes back; 300 bfloat16 ones count to 300.
    (SUM, F16, [60000.0, 60000.0, -60000.0], {}, [60000.0, INF, 60000.0]),
    (SUM, F16, [2048.0, 1.0, 1.0], {}, [2048.0, 2048.0, 2050.0]),  # 2049 rounds to even; 2050 exact
    (SUM, BF16, [1.0] * 300, {}, "bf16-counts"),
    (PRODUCT, F16, [300.0, 300.0, 1.0 / 256], {}, [300.0, INF, 351.5]),  # 90000 / 256 = 351.5625 rounds
    (SUM, F64, [0.1] * 3, {}, [0.1, 0.2, 0.30000000000000004]),  # float64 left to right
]


def _edge_id(v: object) -> str | None:
    return getattr(v, "name", None)


@pytest.mark.parametrize(("name", "dt", "x", "params", "want"), EDGE_CASES, ids=_edge_id)
def test_edge_cases(name: str, dt: DataType, x: list, params: dict, want: Any, device: gpuops.Device, xp: Any) -> None:
    arr = np.asarray(x, dtype=dt.numpy_dtype) if dt.is_float else np.asarray(x).astype(dt.numpy_dtype)
    axis = params.get("axis", 0)
    layout = ("edge", arr.shape, None, None, axis)
    got = run(device, xp, name, dt, layout, arr, params.get("reverse", False), params.get("exclusive", False))
    if want == "bf16-counts":
        want_arr = np.arange(1, 301, dtype=np.float32).astype(dt.numpy_dtype)  # exact counts, rounded once
    elif dt.is_float:
        want_arr = np.asarray(want, dtype=np.float64).astype(dt.numpy_dtype)
    else:
        want_arr = np.asarray(want).astype(dt.numpy_dtype)
    assert np.array_equal(uint_view(got), uint_view(want_arr)) or (
        dt.is_float and np.array_equal(got, want_arr, equal_nan=True)
    ), (got, want_arr)


# ---------------------------------------------------------------------------------------------- validation


def _desc(name: str, sizes: tuple[int, ...], dt: DataType = F32, **fields: Any) -> Any:
    t = TensorDesc(dt, sizes)
    return desc_class(name)(t, t, **{"axis": 0, **fields})


@pytest.mark.parametrize(
    ("name", "fields", "field", "words"),
    [
        (SUM, {"axis": 3}, "axis", "the axis is 0 to 2"),
        (PRODUCT, {"axis": -1}, "axis", "the axis is 0 to 2"),
        (SUM, {"axis": True}, "axis", "(UINT) must be an axis number"),
        (SUM, {"axis": 1.0}, "axis", "(UINT) must be an axis number"),
        (SUM, {"axis": "0"}, "axis", "(UINT) must be an axis number"),
        (SUM, {"has_exclusive_sum": 1}, "has_exclusive_sum", "True or False"),
        (PRODUCT, {"has_exclusive_product": None}, "has_exclusive_product", "True or False"),
        (SUM, {"axis_direction": 2}, "axis_direction", "AxisDirection"),
    ],
)
def test_invalid_descriptors_say_what_is_wrong(name: str, fields: dict, field: str, words: str) -> None:
    device = gpuops.Device("numpy")
    with pytest.raises(DescriptorError) as err:
        device.create_operator(_desc(name, (2, 3, 4), **fields))
    assert err.value.field == field and words in str(err.value) and name in str(err.value)


def test_sizes_and_types_must_match() -> None:
    device = gpuops.Device("numpy")
    with pytest.raises(DescriptorError, match="must equal"):
        device.create_operator(desc_class(SUM)(TensorDesc(F32, (2, 3)), TensorDesc(F32, (3, 2)), axis=0))
    with pytest.raises(DescriptorError, match="DataType"):
        device.create_operator(desc_class(SUM)(TensorDesc(F32, (2, 3)), TensorDesc(F16, (2, 3)), axis=0))


def test_feature_levels() -> None:
    """SUMMATION from 2_1 and PRODUCT from 3_1, 4-D until 4_0; 64-bit integers from 5_0; the extensions only on
    a device that allows them."""

    def device(level: str, extensions: bool = True) -> gpuops.Device:
        return gpuops.Device("numpy", max_feature_level=level, extensions=extensions)

    four = _desc(SUM, (1, 1, 3, 4))
    with pytest.raises(DescriptorError, match="not available"):
        device("2_0").create_operator(four)
    device("2_1").create_operator(four)
    with pytest.raises(DescriptorError, match="dimension"):
        device("3_1").create_operator(_desc(SUM, (3, 4)))
    device("4_0").create_operator(_desc(SUM, (3, 4)))
    device("4_0").create_operator(_desc(PRODUCT, (1, 2, 1, 2, 1, 2, 1, 2)))
    with pytest.raises(DescriptorError, match="not available"):
        device("3_0").create_operator(_desc(PRODUCT, (1, 1, 3, 4)))
    device("3_1").create_operator(_desc(PRODUCT, (1, 1, 3, 4), DataType.UINT16))
    with pytest.raises(DescriptorError, match="INT64"):
        device("4_1").create_operator(_desc(SUM, (3, 4), DataType.INT64))
    device("5_0").create_operator(_desc(PRODUCT, (3, 4), DataType.UINT64))
    with pytest.raises(DescriptorError, match="FLOAT64"):
        device("6_4", extensions=False).create_operator(_desc(SUM, (3, 4), F64))
    device("2_1").create_operator(_desc(SUM, (1, 1, 3, 4), DataType.INT8))  # extension


# ---------------------------------------------------------------------------------------------- graphs, NVRTC


def test_scan_node_in_a_graph(device: gpuops.Device, xp: Any) -> None:
    """ADD -> CUMULATIVE_SUMMATION -> MULTIPLY: the scan runs as its own step (never fused), the neighbours as
    kernels of their own; the result equals the formula."""
    from gpuops.graph_plan import NodeStep

    t = TensorDesc(F32, (4, 6))
    scan = desc_class(SUM)(t, t, axis=1, axis_direction=1)
    graph = sandwich_graph(t, scan)
    op = device.compile_graph(graph)
    assert sum(isinstance(s, NodeStep) and s.desc.row.is_scan for s in op.plan.steps) == 1
    rng = np.random.default_rng(5)
    a, b, c = (rng.integers(-8, 8, (4, 6)).astype(np.float32) for _ in range(3))
    out = to_backend(xp, np.zeros(24, np.float32))
    op.execute([to_backend(xp, v.reshape(-1)) for v in (a, b, c)], [out])
    s = a.astype(np.float64) + b
    ref = np.array([[s[i, j:].sum() for j in range(6)] for i in range(4)]) * c  # small integers: exact
    assert np.array_equal(to_host(out).reshape(4, 6), ref)


def test_kernels_compile_with_nvrtc() -> None:
    """Every scan kernel (each row and data type) compiles with NVRTC, for a strided 2-D view (the general index)
    and a contiguous 1-D one."""
    from test_nvrtc import _check_nvrtc

    import gpuops.nvrtc as gnvrtc
    from gpuops.codegen.scan import scan_kernel_spec

    _check_nvrtc()
    specs = []
    for row in SCAN_ROWS:
        for combo in dtype_combinations(row.name, LEVEL):
            specs.append(scan_kernel_spec(row, combo))
    assert len(specs) == 24
    for spec in specs:
        for ndim, contiguous in ((2, False), (1, True)):
            gnvrtc.compile_source(spec.cuda_module(ndim, contiguous), f"{spec.name}.cu", syntax_only=True)
    gnvrtc.compile_source(specs[0].cuda_module(3, False), "scan.cu")  # to PTX once


# ---------------------------------------------------------------------------------------------- any descriptor


def check_descriptor(desc: Any, logical_in: list[np.ndarray | None], got: np.ndarray) -> None:
    """The output of any scan descriptor (the contract fuzz's) against the reference within the row's bound."""
    row = desc.row
    x = np.asarray(logical_in[0])
    dt = desc.output_tensor.data_type
    reverse = int(desc.axis_direction) == 1
    exclusive = bool(getattr(desc, row.exclusive))
    check(row.name, dt, np.asarray(got), x.astype(dt.numpy_dtype), int(desc.axis), reverse, exclusive)
