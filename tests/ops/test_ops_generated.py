"""Every operator x every data-type mapping x several layouts x both backends, against tests/reference.py.

The matrix comes from the op table (``descriptors.ROWS`` and ``dtype_combinations`` at
FL_6_4, extensions included); the expected values never do: they come from the
independent float64 / exact-integer references. Layouts: packed 1-D and 3-D, B broadcast
along rows and along columns (stride 0), padded row pitches, and a permuted-stride A.
Plus: in-place equals out-of-place, ScaleBias on POW (NaN, inf and -0.0 included), and
literal edge values (NaN, infinities, -0.0, largest finite, INT_MIN / -1, x / 0 ...).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from accuracy_bounds import PINNED
from gpu_grid import with_backends
from helpers import (
    INT_RANGE,
    assert_expected,
    buffer_for,
    read_tensor,
    same_float_class,
    to_backend,
    to_host,
    uint_view,
)
from opinfo import record
from reference import Expected

from descriptors import DataType, FeatureLevel, ScaleBias, TensorDesc, desc_class, dtype_combinations
from descriptors.optable import ELEMENTWISE_ROWS
from descriptors.schema import Family

LEVEL = FeatureLevel.FL_6_4
BINARY_ROWS = [row for row in ELEMENTWISE_ROWS if row.family is Family.BINARY]  # other families: test_nary_generated.py
ROW_BY_NAME = {row.name: row for row in BINARY_ROWS}

# Transcendental float results may differ by a few float32 ulp more (libm vs CUDA).
# The pinned stated bounds (accuracy_bounds.PINNED), not the op table's.
LOOSE = {r.name: PINNED[r.name][0] for r in BINARY_ROWS if r.name in PINNED}


def eps_multiple(name: str, out_dt: DataType) -> float:
    if out_dt in (DataType.FLOAT16, DataType.BFLOAT16):
        return 2.0  # computed in float32, rounded once: half an ulp plus float32 noise
    return LOOSE.get(name, 4.0)


# ---------------------------------------------------------------------------------------------
# Layouts: (sizes, strides of A, strides of B, strides of Output, shape B's values vary over).
# None = packed. The B value shape is what gets broadcast (stride 0 where it is 1).

LAYOUTS: dict[str, tuple[tuple[int, ...], object, object, object, tuple[int, ...]]] = {
    "packed1d": ((13,), None, None, None, (13,)),
    "packed3d": ((2, 3, 4), None, None, None, (2, 3, 4)),
    "bcast_row": ((3, 5), None, (0, 1), None, (1, 5)),
    "bcast_col": ((3, 5), None, (1, 0), None, (3, 1)),
    "padded": ((3, 4), (6, 1), (5, 1), (7, 1), (3, 4)),
    # A stored as a packed (4, 3, 2) array, read as (2, 3, 4): permuted strides.
    "permuted": ((2, 3, 4), (1, 2, 6), None, None, (2, 3, 4)),
}


def roles(name: str) -> tuple[list[str], str]:
    row = ROW_BY_NAME[name]
    return [f.name for f in row.input_fields], row.output_fields[0].name


def make_desc(name: str, tensors: dict[str, TensorDesc], scale_bias: ScaleBias | None = None) -> object:
    cls = desc_class(name)
    if scale_bias is not None:
        return cls(**tensors, scale_bias=scale_bias)
    return cls(**tensors)


def seed_of(*parts: object) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def operand_values(
    name: str, combo: dict[str, DataType], shape: tuple[int, ...], b_shape: tuple[int, ...], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    ins, _ = roles(name)
    info = record(name)
    dt_a, dt_b = combo[ins[0]], combo[ins[1]]
    b = info.generate(1, dt_b, b_shape, rng)
    a = info.generate(0, dt_a, shape, rng)
    if name == "ELEMENT_WISE_POW" and dt_a.is_float:
        # Negative bases only where the exponent is integral (else the result is NaN by rule,
        # which would make the test say little).
        e = np.broadcast_to(b.astype(np.float64), shape)
        frac = e != np.round(e)
        a64 = a.astype(np.float64)
        a = np.where(frac, np.abs(a64), a64).astype(dt_a.numpy_dtype)
    return a, b


def execute(device: object, xp: object, desc: object, in_bufs: list[np.ndarray], out_buf: np.ndarray) -> np.ndarray:
    """Create, compile and run ``desc``; return the output buffer (host copy).

    The input buffers must come back unchanged (an operator never writes its inputs).
    """
    op = device.compile_operator(device.create_operator(desc))  # type: ignore[attr-defined]
    before = [b.copy() for b in in_bufs]
    dev_ins = [to_backend(xp, b) for b in in_bufs]
    dev_out = to_backend(xp, out_buf)
    op.execute(dev_ins, [dev_out])
    for old, new in zip(before, dev_ins, strict=True):
        assert np.array_equal(uint_view(old), uint_view(to_host(new))), "an input buffer was modified"
    return to_host(dev_out)


def run_case(name: str, combo: dict[str, DataType], layout: str, device: object, xp: object) -> None:
    sizes, st_a, st_b, st_o, b_shape = LAYOUTS[layout]
    ins, out_role = roles(name)
    descs = {
        ins[0]: TensorDesc(combo[ins[0]], sizes, st_a),
        ins[1]: TensorDesc(combo[ins[1]], sizes, st_b),
        out_role: TensorDesc(combo[out_role], sizes, st_o),
    }
    rng = np.random.default_rng(seed_of(name, *(d.name for d in combo.values()), layout))
    a, b = operand_values(name, combo, sizes, b_shape, rng)
    bufs = [buffer_for(descs[ins[0]], a), buffer_for(descs[ins[1]], b)]
    out_buf = buffer_for(descs[out_role], np.zeros(sizes))
    if out_buf.dtype != np.bool_:  # garbage, so an element left unwritten shows
        out_buf[...] = np.frombuffer(bytes([0x5A]) * out_buf.nbytes, dtype=out_buf.dtype)
    got_buf = execute(device, xp, make_desc(name, descs), bufs, out_buf)
    got = read_tensor(got_buf, descs[out_role])
    expected = record(name).evaluate([a, np.broadcast_to(b, sizes)], combo[out_role].numpy_dtype)
    out_dt = combo[out_role]
    assert_expected(got, expected, out_dt, eps_multiple(name, out_dt), what=f"{name} {combo} {layout}")


def _combo_id(combo: dict[str, DataType]) -> str:
    return "-".join(dt.name for dt in combo.values())


CASES = []
for _row in BINARY_ROWS:
    for _combo in dtype_combinations(_row.name, LEVEL):
        for _layout in LAYOUTS:
            CASES.append(
                pytest.param(
                    _row.name,
                    _combo,
                    _layout,
                    id=f"{_row.name.removeprefix('ELEMENT_WISE_')}-{_combo_id(_combo)}-{_layout}",
                )
            )


def _grid_key(values: Sequence[Any]) -> tuple[str, str, str]:
    name, combo, layout = values
    return name, _combo_id(combo), layout


@pytest.mark.parametrize(("backend", "name", "combo", "layout"), with_backends(CASES, _grid_key))
def test_matches_reference(name: str, combo: dict[str, DataType], layout: str, device: object, xp: object) -> None:
    run_case(name, combo, layout, device, xp)


# ---------------------------------------------------------------------------------------------
# In place: output bound to input A's very buffer, identical descriptors.

IN_PLACE_CASES = []
for _row in BINARY_ROWS:
    if not _row.in_place:
        continue
    _ins, _out = roles(_row.name)
    for _combo in dtype_combinations(_row.name, LEVEL):
        if _combo[_ins[0]] is not _combo[_out]:
            continue
        for _layout in ("packed3d", "padded", "bcast_row", "permuted"):
            _case_id = f"{_row.name.removeprefix('ELEMENT_WISE_')}-{_combo_id(_combo)}-{_layout}"
            IN_PLACE_CASES.append(pytest.param(_row.name, _combo, _layout, id=_case_id))


@pytest.mark.parametrize(("backend", "name", "combo", "layout"), with_backends(IN_PLACE_CASES, _grid_key))
def test_in_place_equals_out_of_place(
    name: str, combo: dict[str, DataType], layout: str, device: object, xp: object
) -> None:
    sizes, st_a, st_b, _, b_shape = LAYOUTS[layout]
    ins, out_role = roles(name)
    da = TensorDesc(combo[ins[0]], sizes, st_a)
    db = TensorDesc(combo[ins[1]], sizes, st_b)
    descs = {ins[0]: da, ins[1]: db, out_role: da}
    desc = make_desc(name, descs)
    rng = np.random.default_rng(seed_of("in-place", name, _combo_id(combo), layout))
    a, b = operand_values(name, combo, sizes, b_shape, rng)
    buf_a, buf_b = buffer_for(da, a), buffer_for(db, b)
    op = device.compile_operator(device.create_operator(desc))  # type: ignore[attr-defined]

    separate = to_backend(xp, np.zeros_like(buf_a))
    op.execute([to_backend(xp, buf_a.copy()), to_backend(xp, buf_b)], [separate])
    want = read_tensor(separate, da)

    shared = to_backend(xp, buf_a.copy())
    op.execute([shared, to_backend(xp, buf_b)], [shared])
    got = read_tensor(shared, da)
    np.testing.assert_array_equal(uint_view(got), uint_view(want))
    # And the out-of-place result is the reference's (so in place is not just equally wrong).
    assert_expected(
        want,
        record(name).evaluate([a, np.broadcast_to(b, sizes)], combo[out_role].numpy_dtype),
        combo[out_role],
        eps_multiple(name, combo[out_role]),
        what=f"{name} {combo}",
    )


# ---------------------------------------------------------------------------------------------
# ScaleBias on POW: pow(x * scale + bias, e), special scale/bias values reach the result.

POW_X = [0.0, -0.0, 1.0, -2.0, 0.5, 3.0, math.inf, -math.inf, math.nan]
POW_E = [0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, 1.5]
SCALE_BIAS = [
    (math.nan, 0.0),
    (1.0, math.nan),
    (math.inf, 0.0),
    (-math.inf, 0.0),
    (1.0, math.inf),
    (1.0, -math.inf),
    (-0.0, 0.0),
    (-0.0, -0.0),
    (0.0, -0.0),
    (1.0, -0.0),
    (2.0, 1.0),
    (0.5, -1.0),
    (-1.0, 0.0),
]
POW_FLOAT_COMBOS = [
    c
    for c in dtype_combinations("ELEMENT_WISE_POW", LEVEL)
    if c["input_tensor"] in (DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16)
]


def _exponents_for(dt: DataType) -> list[float]:
    if dt.is_float:
        return POW_E
    lo, _ = INT_RANGE(dt)
    return [e for e in POW_E if e == int(e) and e >= lo]


@pytest.mark.parametrize("combo", POW_FLOAT_COMBOS, ids=_combo_id)
@pytest.mark.parametrize("scale_bias", SCALE_BIAS, ids=lambda sb: f"s{sb[0]}b{sb[1]}")
def test_pow_scale_bias(
    combo: dict[str, DataType], scale_bias: tuple[float, float], device: object, xp: object
) -> None:
    dt_x, dt_e = combo["input_tensor"], combo["exponent_tensor"]
    exps = _exponents_for(dt_e)
    sizes = (len(POW_X), len(exps))
    # x varies down the rows (column-broadcast), e along the columns (row-broadcast).
    dx = TensorDesc(dt_x, sizes, (1, 0))
    de = TensorDesc(dt_e, sizes, (0, 1))
    do = TensorDesc(combo["output_tensor"], sizes)
    x = np.array(POW_X, np.float64).astype(dt_x.numpy_dtype).reshape(-1, 1)
    with np.errstate(all="ignore"):
        e = np.array(exps, np.float64).astype(dt_e.numpy_dtype).reshape(1, -1)
    desc = make_desc(
        "ELEMENT_WISE_POW", {"input_tensor": dx, "exponent_tensor": de, "output_tensor": do}, ScaleBias(*scale_bias)
    )
    got_buf = execute(device, xp, desc, [buffer_for(dx, x), buffer_for(de, e)], buffer_for(do, np.zeros(sizes)))
    got = read_tensor(got_buf, do).astype(np.float64)
    expected = record("ELEMENT_WISE_POW").evaluate(
        [np.broadcast_to(x, sizes), np.broadcast_to(e, sizes)], do.data_type.numpy_dtype, scale_bias=scale_bias
    )
    with np.errstate(all="ignore"):
        want_rounded = expected.values.astype(do.data_type.numpy_dtype).astype(np.float64)
    ok = same_float_class(got, want_rounded)
    assert ok.all(), (
        f"specials differ at {np.argwhere(~ok).tolist()[:6]}: got {got[~ok][:6]} want {want_rounded[~ok][:6]}"
    )
    assert_expected(
        got.astype(do.data_type.numpy_dtype), expected, do.data_type, eps_multiple("ELEMENT_WISE_POW", do.data_type)
    )


# ---------------------------------------------------------------------------------------------
# Edge values: the literal cases of the binary OpInfo records (written in reference.py's EDGE_CASES with
# tokens, "max"/"-max"/"min" (type limits), "nan", "inf", "-inf", "-0", "w" = bit width, each run on every
# data type it lists), in the records' form (inputs, params, expected, exact, data types by role).


def _edge_params() -> list:
    out = []
    for row in BINARY_ROWS:
        ins, _ = roles(row.name)
        for index, (*_, dtypes) in enumerate(record(row.name).edges):
            op = row.name.removeprefix("ELEMENT_WISE_")
            out.append(pytest.param(row.name, index, id=f"{op}-{dtypes[ins[0]].name}-{len(out)}"))
    return out


EDGE_PARAMS = _edge_params()


def _edge_arrays(name: str, index: int) -> tuple:
    """Edge case ``index`` of ``name``: (data types by role, params, exact, A, B, expected values): float64
    for a float output (rounded to it by the checks), else in the output's type."""
    (a, b), params, want, exact, combo = record(name).edges[index]
    ins, out_role = roles(name)
    dt_o = combo[out_role]
    with np.errstate(all="ignore"):
        av, bv = (np.array(v).astype(combo[r].numpy_dtype) for v, r in zip((a, b), ins, strict=True))
        wv = np.array(want).astype(np.float64 if dt_o.is_float else dt_o.numpy_dtype)
    return combo, params, exact, av, bv, wv


@pytest.mark.parametrize(("name", "index"), EDGE_PARAMS)
def test_edge_values(name: str, index: int, device: object, xp: object) -> None:
    ins, out_role = roles(name)
    combo, params, exact, av, bv, wv = _edge_arrays(name, index)
    sizes = (len(av),)
    descs = {
        ins[0]: TensorDesc(combo[ins[0]], sizes),
        ins[1]: TensorDesc(combo[ins[1]], sizes),
        out_role: TensorDesc(combo[out_role], sizes),
    }
    got_buf = execute(
        device,
        xp,
        desc_class(name)(**descs, **params),
        [buffer_for(descs[ins[0]], av), buffer_for(descs[ins[1]], bv)],
        buffer_for(descs[out_role], np.zeros(sizes)),
    )
    got = read_tensor(got_buf, descs[out_role])
    dt_o = combo[out_role]
    if not dt_o.is_float:
        np.testing.assert_array_equal(got.astype(object), wv.astype(object), err_msg=f"{name} {combo}")
        return
    with np.errstate(all="ignore"):
        want_rounded = wv.astype(dt_o.numpy_dtype).astype(np.float64)
    g = got.astype(np.float64)
    ok = same_float_class(g, want_rounded)
    assert ok.all(), f"{name} {combo}: got {g.tolist()} want {want_rounded.tolist()}"
    if exact:
        assert np.array_equal(g, want_rounded, equal_nan=True), (
            f"{name} {combo}: got {g.tolist()} want {want_rounded.tolist()}"
        )
    else:
        assert_expected(got, Expected(wv, False), dt_o, 4.0, what=f"{name} {combo}")


@pytest.mark.parametrize(("name", "index"), EDGE_PARAMS)
def test_reference_agrees_with_edge_table(name: str, index: int) -> None:
    """The references themselves reproduce the literal edge table (they check the table, it checks them)."""
    _, out_role = roles(name)
    combo, params, _, av, bv, wv = _edge_arrays(name, index)
    dt_o = combo[out_role]
    expected = record(name).evaluate([av, bv], dt_o.numpy_dtype, params)
    if expected.exact:
        np.testing.assert_array_equal(uint_view(expected.values), uint_view(wv.astype(dt_o.numpy_dtype)))
        return
    with np.errstate(all="ignore"):
        ref_rounded = expected.values.astype(dt_o.numpy_dtype).astype(np.float64)
        want_rounded = wv.astype(dt_o.numpy_dtype).astype(np.float64)
    assert same_float_class(ref_rounded, want_rounded).all(), f"{ref_rounded.tolist()} vs {want_rounded.tolist()}"
    assert_expected(want_rounded.astype(dt_o.numpy_dtype), expected, dt_o, 4.0)


# Raw bits: BIT_* on floats operate on the bit patterns (NaN payloads, -0.0 included).
BIT_FLOAT_CASES = [
    (
        "ELEMENT_WISE_BIT_AND",
        DataType.FLOAT32,
        [0x80000000, 0x7FC00001, 0xFFFFFFFF],
        [0x00000000, 0xFFFFFFFF, 0x7F800000],
        [0x00000000, 0x7FC00001, 0x7F800000],
    ),
    (
        "ELEMENT_WISE_BIT_OR",
        DataType.FLOAT32,
        [0x7FC00001, 0x80000000, 0x00000001],
        [0x00000000, 0x00000000, 0x7F800000],
        [0x7FC00001, 0x80000000, 0x7F800001],
    ),
    (
        "ELEMENT_WISE_BIT_XOR",
        DataType.FLOAT16,
        [0x8000, 0x7E01, 0x3C00],
        [0x8000, 0x0000, 0xFFFF],
        [0x0000, 0x7E01, 0xC3FF],
    ),
    ("ELEMENT_WISE_BIT_XOR", DataType.BFLOAT16, [0x7FC1, 0x8000], [0x0000, 0x8000], [0x7FC1, 0x0000]),
    (
        "ELEMENT_WISE_BIT_AND",
        DataType.FLOAT64,
        [0xFFF8000000000001, 0x8000000000000000],
        [0x7FFFFFFFFFFFFFFF, 0x8000000000000000],
        [0x7FF8000000000001, 0x8000000000000000],
    ),
]


@pytest.mark.parametrize(
    ("name", "dt", "a", "b", "want"),
    BIT_FLOAT_CASES,
    ids=[f"{c[0].removeprefix('ELEMENT_WISE_')}-{c[1].name}" for c in BIT_FLOAT_CASES],
)
def test_bit_ops_on_float_bits(
    name: str, dt: DataType, a: list, b: list, want: list, device: object, xp: object
) -> None:
    uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.numpy_dtype.itemsize]
    av = np.array(a, uint).view(dt.numpy_dtype)
    bv = np.array(b, uint).view(dt.numpy_dtype)
    t = TensorDesc(dt, (len(a),))
    got_buf = execute(
        device,
        xp,
        make_desc(name, {"a_tensor": t, "b_tensor": t, "output_tensor": t}),
        [buffer_for(t, av), buffer_for(t, bv)],
        buffer_for(t, np.zeros(len(a))),
    )
    got = read_tensor(got_buf, t)
    assert uint_view(got).tolist() == want
    assert uint_view(record(name).evaluate([av, bv], dt.numpy_dtype).values).tolist() == want


def test_every_row_and_mapping_is_in_the_matrix() -> None:
    """No (row, data types) pair escapes: each runs packed and broadcast at least."""
    seen: dict[tuple[str, str], set[str]] = {}
    for p in CASES:
        name, combo, layout = p.values
        seen.setdefault((name, _combo_id(combo)), set()).add(layout)
    for row in BINARY_ROWS:
        combos = dtype_combinations(row.name, LEVEL)
        assert combos, row.name
        for combo in combos:
            layouts = seen.get((row.name, _combo_id(combo)), set())
            assert {"packed1d", "packed3d", "bcast_row", "bcast_col"} <= layouts, (row.name, combo)


# ---------------------------------------------------------------------------------------------
# Larger than one NumPy-backend chunk (2**16 elements): the blocked paths over strided,
# broadcast and permuted layouts, out of place and in place.

LARGE_LAYOUTS = {
    "flat": ((70_001,), None, None, (70_001,)),
    "rows_bcast": ((3, 40_000), None, (0, 1), (1, 40_000)),
    "cols_bcast": ((300, 301), (310, 1), (1, 0), (300, 1)),
    "permuted": ((5, 120, 130), (1, 5 * 130, 5), None, (5, 120, 130)),
}


@pytest.mark.parametrize("layout", sorted(LARGE_LAYOUTS))
@pytest.mark.parametrize(
    ("name", "dt"),
    [
        ("ELEMENT_WISE_ADD", DataType.FLOAT16),
        ("ELEMENT_WISE_MEAN", DataType.BFLOAT16),
        ("ELEMENT_WISE_MAX", DataType.FLOAT32),
        ("ELEMENT_WISE_MULTIPLY", DataType.INT16),
    ],
    ids=["ADD-FLOAT16", "MEAN-BFLOAT16", "MAX-FLOAT32", "MULTIPLY-INT16"],
)
@pytest.mark.parametrize("in_place", [False, True], ids=["out_of_place", "in_place"])
def test_large_layouts(name: str, dt: DataType, layout: str, in_place: bool, device: object, xp: object) -> None:
    sizes, st_a, st_b, b_shape = LARGE_LAYOUTS[layout]
    da, db = TensorDesc(dt, sizes, st_a), TensorDesc(dt, sizes, st_b)
    do = da if in_place else TensorDesc(dt, sizes)
    rng = np.random.default_rng(seed_of("large", name, dt.name, layout))
    if dt.is_float:
        a = rng.integers(-32, 33, size=sizes).astype(np.float64) / 8
        b = rng.integers(-32, 33, size=b_shape).astype(np.float64) / 8
    else:
        a = rng.integers(-(2**15), 2**15, size=sizes)
        b = rng.integers(-(2**15), 2**15, size=b_shape)
    a, b = a.astype(dt.numpy_dtype), b.astype(dt.numpy_dtype)
    buf_a, buf_b = to_backend(xp, buffer_for(da, a)), to_backend(xp, buffer_for(db, b))
    out = buf_a if in_place else to_backend(xp, buffer_for(do, np.zeros(sizes)))
    op = device.compile_operator(
        device.create_operator(make_desc(name, {"a_tensor": da, "b_tensor": db, "output_tensor": do}))
    )  # type: ignore[attr-defined]
    op.execute([buf_a, buf_b], [out])
    got = read_tensor(out, do)
    full_b = np.broadcast_to(b, sizes)
    if dt.is_float:
        expected = record(name).evaluate([a, full_b], dt.numpy_dtype)
    else:  # vectorized exact wrap for int16 products (the per-element reference is slow at this size)
        prod = a.astype(np.int64) * full_b.astype(np.int64)
        expected = Expected(((prod + 2**15) % 2**16 - 2**15).astype(np.int16), True)
        # spot-check the vectorized formula against the reference itself
        probe = record(name).evaluate([a.ravel()[:500], full_b.ravel()[:500]], dt.numpy_dtype)
        np.testing.assert_array_equal(probe.values, expected.values.ravel()[:500])
    assert_expected(got, expected, dt, eps_multiple(name, dt), what=f"{name} {layout}")


# --- float floor division and floor modulus at the edges (Python's // and %) ---------------------
# Expected values are Python's own float // and % (math semantics of the language), not the code under test.

_PY_EDGES = [
    (7.0, 0.0),
    (-7.0, 0.0),
    (0.0, 0.0),
    (math.inf, 2.0),
    (-5.0, math.inf),
    (5.0, -math.inf),
    (7.0, 2.0),
    (-7.0, 2.0),
    (7.0, -2.0),
    (1.0, 0.1),
    (-0.0, 3.0),
    (0.0, -3.0),
    (math.nan, 1.0),
]


def _python_floordiv(a: float, b: float) -> float:
    try:
        return a // b
    except ZeroDivisionError:  # Python raises; IEEE (and NumPy): x // +0.0 is ±inf, 0 // 0 and NaN // 0 NaN
        return math.copysign(math.inf, a) if a != 0 and not math.isnan(a) else math.nan


def _python_mod(a: float, b: float) -> float:
    try:
        return a % b
    except ZeroDivisionError:
        return math.nan


@pytest.mark.parametrize(
    ("op_name", "py"), [("ELEMENT_WISE_FLOOR_DIVIDE", _python_floordiv), ("ELEMENT_WISE_MODULUS_FLOOR", _python_mod)]
)
def test_float_floor_ops_follow_python(device, xp, op_name: str, py) -> None:  # type: ignore[no-untyped-def]
    import descriptors as d

    a = [p[0] for p in _PY_EDGES]
    b = [p[1] for p in _PY_EDGES]
    n = len(a)
    t = d.TensorDesc(d.DataType.FLOAT64, (n,))
    op = device.compile_operator(device.create_operator(d.desc_class(op_name)(t, t, t)))
    out = xp.zeros(n, np.float64)
    op.execute([xp.asarray(np.array(a)), xp.asarray(np.array(b))], [out])
    got = np.asarray(out.get() if hasattr(out, "get") else out)
    for (x, y), g in zip(_PY_EDGES, got, strict=True):
        want = py(x, y)
        if math.isnan(want):
            assert math.isnan(g), (op_name, x, y, g)
        else:
            assert g == want and math.copysign(1, g) == math.copysign(1, want), (op_name, x, y, g, want)


def test_float_floor_divide_reference_follows_python() -> None:
    """The reference the generated and fuzz tests use agrees with Python's // on the same edges."""
    a = np.array([p[0] for p in _PY_EDGES])
    b = np.array([p[1] for p in _PY_EDGES])
    got = record("ELEMENT_WISE_FLOOR_DIVIDE").evaluate([a, b], np.dtype(np.float64)).values
    for (x, y), g in zip(_PY_EDGES, got.tolist(), strict=True):
        want = _python_floordiv(x, y)
        if math.isnan(want):
            assert math.isnan(g), (x, y, g)
        else:
            assert g == want and math.copysign(1, g) == math.copysign(1, want), (x, y, g, want)
