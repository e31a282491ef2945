"""The NumPy backend's compiled tier (gpuops/codegen/numba.py, gpuops/backends/numba_loops.py).

Two kinds of test:

- The C-to-Python translation, on its own (no numba): C's precedence, associativity and
  literal rules checked by evaluating translations on values whose C results are worked out
  by hand, and the expressions it must refuse.
- Every (row, data types, ScaleBias, fused activation) the tier compiles, generated from the
  op table and the capability tables: the loop's output must equal the NumPy path's bit for
  bit (any NaN matches any NaN: IEEE leaves NaN payloads of arithmetic open, and the compiler
  may commute an addition), on random bit patterns (every NaN, infinity, zero and subnormal
  class) plus all pairs of special values, out of place and in place. The NumPy path is
  checked against float64 references by the generated tests; this makes the tier inherit it.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from helpers import random_values, uint_view
from opinfo import record

import gpuops
from descriptors import DataType, ScaleBias, TensorDesc, desc_class, dtype_combinations, row_of
from descriptors.compute import compute_plan
from descriptors.optable import ELEMENTWISE_ROWS
from descriptors.schema import NO_DEFAULT, FieldKind, OpRow
from gpuops import config, kernels
from gpuops.codegen.numba import LOOP_TYPES, Untranslatable, loop_spec, translate

numba = pytest.importorskip("numba")

from gpuops.backends import numba_loops  # noqa: E402
from gpuops.backends.cpu import policy as cpu_policy  # noqa: E402
from gpuops.backends.cpu import threads as cpu_threads  # noqa: E402
from gpuops.backends.cpu.ufunc_kernels import NumpyKernel  # noqa: E402

F32, F16, BF16, F64 = DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT64
# The smallest operators the tier takes, plus a tail (even: a 16-bit buffer holds whole 4-byte words).
N = cpu_policy.POLICY.numba_min_elements + 38
SCALE_BIASES = ((1.5, -0.25), (1.0, -0.0))


# ---------------------------------------------------------------------------------------------
# Translation


def _eval(expr: str, **values: float) -> Any:
    """Evaluate a translated expression in float32, as the loop does."""
    names = {k: k for k in values}
    env = {"T": np.float32, "np": np, **{k: np.float32(v) for k, v in values.items()}}
    return eval(translate(expr, names), env)  # noqa: S307 - our own translation, test only


@pytest.mark.parametrize(
    ("expr", "values", "c_result"),
    [
        ("x - y - z", {"x": 8, "y": 2, "z": 1}, 5),  # left-associative: (8 - 2) - 1
        ("x / y / z", {"x": 8, "y": 2, "z": 2}, 2),
        ("x - y * z", {"x": 8, "y": 2, "z": 3}, 2),  # * binds tighter than -
        ("-x * y", {"x": 2, "y": 3}, -6),
        ("x > y ? x : y > z ? y : z", {"x": 1, "y": 2, "z": 3}, 3),  # ?: is right-associative
        ("x > y ? x : y > z ? y : z", {"x": 1, "y": 5, "z": 3}, 5),
        ("x != 0 || y != 0 && z != 0", {"x": 1, "y": 0, "z": 0}, True),  # && binds tighter than ||
        ("(x != 0 || y != 0) && z != 0", {"x": 1, "y": 0, "z": 0}, False),
        ("x < y == y < z", {"x": 1, "y": 2, "z": 3}, True),  # C: (x < y) == (y < z), not a chain
        ("x < y < z", {"x": 3, "y": 2, "z": 1}, True),  # C: (3 < 2) < 1 -> 0 < 1; Python's chain says False
        ("!(x > y)", {"x": 1, "y": 2}, True),
        ("T(0.5) * x", {"x": 3}, 1.5),
        ("sqrt(x) + fabs(y)", {"x": 9, "y": -2}, 5),
        ("__fadd_rn(x, __fmul_rn(y, z))", {"x": 1, "y": 2, "z": 3}, 7),  # CUDA's rounded intrinsics
        # gpuops helpers inlined from descriptors/cuda_helpers.py (sign: 1, -1, 0 or NaN; at_least: max(x, lo))
        ("gpuops_sign(x - y)", {"x": 1, "y": 3}, -1),
        ("gpuops_sign(x)", {"x": 0.25}, 1),
        ("gpuops_at_least(x, T(0.5))", {"x": 0.25}, 0.5),
        ("gpuops_at_least(x, T(0.5))", {"x": 2}, 2),
    ],
)
def test_translation_follows_c(expr: str, values: dict[str, float], c_result: object) -> None:
    assert _eval(expr, **values) == c_result


def test_integer_literals_take_the_floating_type() -> None:
    # C converts 1 to float in x + 1 (a float32 addition); numba would widen to float64.
    got = _eval("x + 1", x=2.0**24)
    assert isinstance(got, np.float32) and got == np.float32(2.0**24)  # 2**24 + 1 rounds back in float32


@pytest.mark.parametrize(
    "expr",
    [
        "exp(x)",  # libm and NumPy's SIMD loops may differ in the last place
        "fma(x, y, z)",
        "gpuops_shl<T>(x, y)",
        "gpuops_act_gelu(x)",  # not one exactly rounded expression
        "gpuops_sign(x, y)",  # wrong argument count
        "x & y",
        "T(~x)",
        "0.5 * x",  # a double literal outside T(...)
        "w + x",  # unknown name
        "x +",
        "(x",
    ],
)
def test_untranslatable(expr: str) -> None:
    with pytest.raises(Untranslatable):
        translate(expr, {"x": "x", "y": "y", "z": "z"})


# ---------------------------------------------------------------------------------------------
# The cases the tier compiles, from the op table and the capability tables


def _params(row: OpRow) -> dict[str, Any]:
    """The row's first parameter set of its OpInfo record (its defaults where it has them all)."""
    needs = [f for f in row.param_fields if f.default is NO_DEFAULT]
    sets = record(row.name).param_sets
    return dict(sets[0]) if needs or not sets[0] else {}


def _is_float_combo(combo: dict[str, DataType]) -> bool:
    return all(dt in LOOP_TYPES for dt in combo.values())


def _takes_loop(row: OpRow, combo: dict[str, DataType], sb: bool, fused: OpRow | None) -> bool:
    """The tier compiles this lowering: translated (where NumPy runs it as one ufunc, ``_direct``, the tier
    takes it on native threads from ``CpuPolicy.direct_min`` elements on, and for row broadcasts)."""
    return loop_spec(row, combo, sb, fused) is not None


def _direct(name: str, combo: dict[str, DataType], sb: tuple | None, fused: str | None) -> bool:
    """NumPy runs the lowering as one ufunc (``NumpyKernel.direct``)."""
    return NumpyKernel(row_of(name), combo, sb is not None, row_of(fused) if fused else None).direct


def _route_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    """Send one-ufunc operators of any size to the tier's parallel driver (2 blocks on 2 native threads),
    as from ``DIRECT_MIN`` elements on; skip where native threads are unusable."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(direct_min=0, par_min=0))
    monkeypatch.setattr(cpu_threads, "_thread_count", lambda: 2)
    if cpu_threads._max_threads() < 2 or numba_loops._native is False:
        pytest.skip("numba's native threads are unusable here")


FUSABLE = [r for r in ELEMENTWISE_ROWS if r.fusable]
CASES = []
for _row in ELEMENTWISE_ROWS:
    for _combo in dtype_combinations(_row.name):
        if not _is_float_combo(_combo):
            continue
        _ids = "-".join(dict.fromkeys(dt.name for dt in _combo.values()))
        variants: list[tuple[tuple[float, float] | None, OpRow | None]] = [(None, None)]
        if _row.has_scale_bias and _combo[_row.input_fields[0].name] is not F64:
            variants += [(sb, None) for sb in SCALE_BIASES]
        if _row.fused_field is not None:
            # ADD1 (DirectML's own) with every activation; gpuops' extension rows with RELU.
            acts = FUSABLE if _row.name == "ELEMENT_WISE_ADD1" else [row_of("ACTIVATION_RELU")]
            variants += [(None, a) for a in acts]
        for _sb, _fused in variants:
            if not _takes_loop(_row, _combo, _sb is not None, _fused):
                continue
            _id = f"{_row.name}-{_ids}" + (f"-sb{_sb}" if _sb else "") + (f"-{_fused.name}" if _fused else "")
            CASES.append(pytest.param(_row.name, _combo, _sb, _fused.name if _fused else None, id=_id))


def test_the_tier_covers_the_fused_and_16_bit_cases() -> None:
    """The cases issue 7's targets time must be among the compiled ones."""
    ids = {p.id for p in CASES}
    for want in (
        "ELEMENT_WISE_ADD-FLOAT16",
        "ELEMENT_WISE_ADD-BFLOAT16",
        "ELEMENT_WISE_ADD1-FLOAT32-ACTIVATION_RELU",
        "ELEMENT_WISE_ADD1-FLOAT16-ACTIVATION_RELU",
        "ELEMENT_WISE_IDENTITY-FLOAT32-sb(1.5, -0.25)",
        # IEEE 754-2019 maximum/minimum: the helpers and the NumPy path agree on the sign of zeros.
        "ELEMENT_WISE_MAX-FLOAT16",
        "ELEMENT_WISE_MIN-BFLOAT16",
        "ELEMENT_WISE_MAX-FLOAT32-ACTIVATION_RELU",
    ):
        assert want in ids, want


SPECIALS = {
    F32: [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4028235e38, 1.1754944e-38, 0.5, 3.0],
    F64: [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.7976931348623157e308, 0.5, 3.0],
}
SPECIALS[F16] = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 6e-8, -6e-8, 65504.0, 6.1e-5, 0.5, 3.0]
SPECIALS[BF16] = SPECIALS[F32]


def _inputs(row: OpRow, combo: dict[str, DataType], n: int, seed: int) -> list[np.ndarray]:
    """Random bit patterns, with every pair (triple) of special values at the front."""
    rng = np.random.default_rng(seed)
    roles = [f.name for f in row.input_fields if f.name in combo]
    arrays = [random_values(combo[r], (n,), rng, "bits") for r in roles]
    specials = [SPECIALS[combo[r]] for r in roles]
    for k, values in enumerate(itertools.islice(itertools.product(*specials), n)):
        for arr, v, r in zip(arrays, values, roles, strict=True):
            with np.errstate(all="ignore"):
                arr[k] = np.asarray(v).astype(combo[r].numpy_dtype)
    return arrays


def _desc(row: OpRow, combo: dict[str, DataType], n: int, sb: tuple | None, fused: str | None) -> object:
    kwargs: dict[str, Any] = {f.name: TensorDesc(combo[f.name], (n,)) for f in row.tensor_fields if f.name in combo}
    out_type = combo[row.output_fields[0].name]
    kwargs.update({f.name: out_type for f in row.fields if f.kind is FieldKind.DATA_TYPE})
    kwargs.update(_params(row))
    if sb is not None:
        kwargs["scale_bias"] = ScaleBias(*sb)
    if fused is not None:
        kwargs[row.fused_field.name] = desc_class(fused)(**_params(row_of(fused)))
    return desc_class(row.name)(**kwargs)


def _same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: same bits, or both NaN."""
    same = uint_view(got) == uint_view(want)
    if got.dtype.kind == "f" or got.dtype.name == "bfloat16":
        with np.errstate(all="ignore"):
            same |= np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    return same


def _run_both(
    monkeypatch: pytest.MonkeyPatch, desc: object, ins: list[np.ndarray], out_dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray, Any]:
    """(loop's output, NumPy path's output, the compiled loop operator)."""
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc))
    assert op.launch_path == "numba"
    got = np.empty(ins[0].shape[0], out_dtype)
    op.execute(ins, [got])
    with config.override(numba=False):
        ref_op = dev.compile_operator(dev.create_operator(desc))
    assert ref_op.launch_path == "numpy"
    want = np.empty_like(got)
    ref_op.execute(ins, [want])
    return got, want, op


@pytest.mark.parametrize(("name", "combo", "sb", "fused"), CASES)
def test_loop_matches_numpy_path(
    name: str, combo: dict[str, DataType], sb: tuple | None, fused: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = row_of(name)
    ins = _inputs(row, combo, N, seed=len(name) * 7919 + len(combo))
    before = [a.copy() for a in ins]
    out_dtype = combo[row.output_fields[0].name].numpy_dtype
    if _direct(name, combo, sb, fused):
        _route_direct(monkeypatch)
    got, want, op = _run_both(monkeypatch, _desc(row, combo, N, sb, fused), ins, out_dtype)
    for old, new in zip(before, ins, strict=True):
        assert np.array_equal(uint_view(old), uint_view(new)), "an input was modified"
    bad = np.flatnonzero(~_same(got, want))
    assert bad.size == 0, (
        f"{bad.size} elements differ, first at {bad[0]}: inputs {[a[bad[0]] for a in ins]}, "
        f"loop {got[bad[0]]!r} vs NumPy {want[bad[0]]!r}"
    )
    in_place = row.in_place and combo[row.input_fields[0].name] is combo[row.output_fields[0].name]
    if in_place:  # the output is the first input's buffer: same result
        first = ins[0]
        op.execute(ins, [first])
        assert _same(first, want).all()


@pytest.mark.parametrize("dt", [F16, F32])
def test_threaded_blocks(dt: DataType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above THREAD_MIN the loop runs over blocks on the backend's threads: same result."""
    row = row_of("ELEMENT_WISE_ADD1")
    combo = {f.name: dt for f in row.tensor_fields}
    n = cpu_policy.POLICY.thread_min + 1002
    ins = _inputs(row, combo, n, seed=5)
    got, want, _ = _run_both(monkeypatch, _desc(row, combo, n, None, "ACTIVATION_RELU"), ins, dt.numpy_dtype)
    assert _same(got, want).all()


def test_small_and_disabled_operators_stay_on_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = gpuops.Device("numpy")
    row = row_of("ELEMENT_WISE_ADD")
    big = _desc(row, {f.name: F16 for f in row.tensor_fields}, N, None, None)
    small = _desc(row, {f.name: F16 for f in row.tensor_fields}, cpu_policy.POLICY.numba_min_elements - 1, None, None)
    direct = _desc(row, {f.name: F32 for f in row.tensor_fields}, N, None, None)  # one ufunc: NumPy is one pass
    assert dev.compile_operator(dev.create_operator(big)).launch_path == "numba"
    assert dev.compile_operator(dev.create_operator(small)).launch_path == "numpy"
    assert dev.compile_operator(dev.create_operator(direct)).launch_path == "numpy"
    with config.override(numba=False):
        assert dev.compile_operator(dev.create_operator(big)).launch_path == "numpy"


def test_loop_compiles_in_memory_when_the_cache_folder_cannot_be_written(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    row = row_of("ELEMENT_WISE_MEAN")
    combo = {f.name: F32 for f in row.tensor_fields}
    spec = loop_spec(row, combo)
    assert spec is not None
    with config.override(cache_dir=blocker):
        kernel = numba_loops.NumbaLoopKernel(spec, combo, ())
    a = np.array([1.0, -3.0, np.inf], np.float32)
    b = np.array([2.0, 1.0, -np.inf], np.float32)
    out = np.empty(3, np.float32)
    kernel.run([a, b], out, (), False)
    np.testing.assert_array_equal(out, [1.5, -1.0, np.nan])
    assert not any(tmp_path.glob("**/*.py"))


def test_compute_types_of_the_cases() -> None:
    """Every compiled case computes in float32 or float64, the types the loop names T and R."""
    for p in CASES:
        name, combo, sb, fused = p.values
        plan = compute_plan(row_of(name), combo, sb is not None)
        assert plan.compute in (F32, F64) and plan.out_compute in (F32, F64)


def test_a_loop_numba_refuses_falls_back_to_ufuncs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """If numba cannot build a loop, the operator runs on ufuncs (same bits) and says so in the log."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no loop today")

    monkeypatch.setattr(numba_loops, "NumbaLoopKernel", refuse)
    monkeypatch.setattr(kernels, "_cache", {})  # a loop built by an earlier test must not answer
    row = row_of("ELEMENT_WISE_SUBTRACT")
    combo = {f.name: BF16 for f in row.tensor_fields}
    dev = gpuops.Device("numpy")
    with caplog.at_level("WARNING", logger="gpuops"):
        op = dev.compile_operator(dev.create_operator(_desc(row, combo, N, None, "ACTIVATION_RELU")))
    assert op.launch_path == "numpy"
    assert "no loop today" in caplog.text
    a, b = _inputs(row, combo, N, seed=11)
    out = np.empty(N, BF16.numpy_dtype)
    op.execute([a, b], [out])
    with np.errstate(all="ignore"):
        diff = a.astype(np.float32) - b.astype(np.float32)
    want = np.where(diff > 0, diff, np.float32(0)).astype(np.float32)
    want = np.where(np.isnan(diff), diff, want).astype(BF16.numpy_dtype)
    assert _same(out, want).all()


def test_numba_that_does_not_import_turns_the_tier_off(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import builtins

    real_import = builtins.__import__

    def broken(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "numba":
            raise ImportError("numba built for another NumPy")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(numba_loops, "_available", None)
    monkeypatch.setattr(builtins, "__import__", broken)
    with caplog.at_level("WARNING", logger="gpuops"):
        assert numba_loops.available() is False
    assert "another NumPy" in caplog.text


# ---------------------------------------------------------------------------------------------
# The rows loop: layouts the GPU planner coalesces to two dimensions, on the bound buffers

R, C = 37, 41  # 1517 elements: above MIN_ELEMENTS, odd extents
# name -> (strides of the first input, of the other inputs, of the output); None is packed.
ROWS_LAYOUTS: dict[str, tuple[Any, Any, Any]] = {
    "row_bcast": (None, (0, 1), None),
    "col_bcast": (None, (1, 0), None),
    "scalar": (None, (0, 0), None),
    "padded": ((C + 3, 1), (C + 1, 1), (C + 5, 1)),
}


def _layouts_for(row: OpRow) -> list[str]:
    """Layouts that change something for this row (one-input rows have no 'other' inputs)."""
    if len([f for f in row.input_fields]) > 1:
        return list(ROWS_LAYOUTS)
    return [k for k, (_, other, _) in ROWS_LAYOUTS.items() if other is None or k == "padded"]


def _raw_buffer(desc: TensorDesc, rng: np.random.Generator, specials: list[float]) -> np.ndarray:
    """Random bits filling the whole bound buffer (padding included), specials at the front."""
    from helpers import buffer_elements

    buf = random_values(desc.data_type, (buffer_elements(desc),), rng, "bits")
    with np.errstate(all="ignore"):
        k = min(len(specials), buf.size)
        buf[:k] = np.asarray(specials[:k]).astype(desc.data_type.numpy_dtype)
    return buf


# The rows loop's indexing is the same code for every data type, and test_loop_matches_numpy_path runs every
# type's element expression: one data type per (row, ScaleBias, fused activation) (rotating, so every type and
# layout meet many rows), one layout per case (rotating); every type and every layout for float16 ADD + RELU,
# float32 ScaleBias and the plain ADD.
_FULL_ROWS = ("ELEMENT_WISE_ADD1-FLOAT16-ACTIVATION_RELU", "ELEMENT_WISE_IDENTITY-FLOAT32-sb(1.5, -0.25)")
_ROWS_GROUPS: dict[tuple[str, object, object], list[Any]] = {}
for _p in CASES:
    _name, _combo, _sb, _fused = _p.values
    if _direct(_name, _combo, _sb, _fused) and "row_bcast" not in _layouts_for(row_of(_name)):
        continue  # one ufunc: the tier takes only row broadcasts below DIRECT_MIN
    _ROWS_GROUPS.setdefault((_name, _sb, _fused), []).append(_p)
ROWS_CASES = []
for _k, ((_name, _, _), _group) in enumerate(_ROWS_GROUPS.items()):
    _every_type = _name == "ELEMENT_WISE_ADD"
    for _p in _group:
        _full = _p.id in _FULL_ROWS
        if not (_full or _every_type or _p is _group[_k % len(_group)]):
            continue
        _choices = _layouts_for(row_of(_name))
        if _direct(*_p.values):
            _choices = ["row_bcast"]
        for _layout in _choices if _full or len(_choices) == 1 else [_choices[(_k + len(ROWS_CASES)) % len(_choices)]]:
            ROWS_CASES.append(pytest.param(*_p.values, _layout, id=f"{_p.id}-{_layout}"))


@pytest.mark.parametrize(("name", "combo", "sb", "fused", "layout"), ROWS_CASES)
def test_rows_loop_matches_numpy_path(
    name: str,
    combo: dict[str, DataType],
    sb: tuple | None,
    fused: str | None,
    layout: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whole output buffers compared: the tensor's elements bit for bit (NaNs as a class), and
    the bytes between and after them untouched."""
    row = row_of(name)
    first, other, out_st = ROWS_LAYOUTS[layout]
    in_roles = [f.name for f in row.input_fields if f.name in combo]
    out_role = row.output_fields[0].name
    descs = {r: TensorDesc(combo[r], (R, C), first if i == 0 else other) for i, r in enumerate(in_roles)}
    descs[out_role] = TensorDesc(combo[out_role], (R, C), out_st)
    kwargs: dict[str, Any] = dict(descs)
    kwargs.update({f.name: combo[out_role] for f in row.fields if f.kind is FieldKind.DATA_TYPE})
    kwargs.update(_params(row))
    if sb is not None:
        kwargs["scale_bias"] = ScaleBias(*sb)
    if fused is not None:
        kwargs[row.fused_field.name] = desc_class(fused)(**_params(row_of(fused)))
    desc = desc_class(name)(**kwargs)
    rng = np.random.default_rng(len(name) * 31 + len(layout))
    bufs = [_raw_buffer(descs[r], rng, SPECIALS[combo[r]]) for r in in_roles]
    fill = _raw_buffer(descs[out_role], rng, [])

    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc))
    assert op.launch_path == "numba"
    got = fill.copy()
    op.execute(bufs, [got])
    with config.override(numba=False):
        ref = dev.compile_operator(dev.create_operator(desc))
    want = fill.copy()
    ref.execute(bufs, [want])
    bad = np.flatnonzero(~_same(got, want))
    assert bad.size == 0, f"{bad.size} buffer elements differ, first at {bad[0]}: {got[bad[0]]!r} vs {want[bad[0]]!r}"


@pytest.mark.parametrize(
    ("a", "out"),
    [
        (TensorDesc(F16, (4, 16, 32), (16 * 40 + 8, 40, 1)), None),  # padded rows in a padded plane: 3-D
        (TensorDesc(F16, (R, C), (1, R)), None),  # transposed: the ufunc path's tiles are faster
        (None, TensorDesc(F16, (R, C), (2 * C, 2))),  # a strided output
    ],
    ids=["three-dims", "transposed", "strided-output"],
)
def test_layouts_the_rows_loop_leaves_to_ufuncs(a: TensorDesc | None, out: TensorDesc | None) -> None:
    shape = (a or out).sizes
    packed = TensorDesc(F16, shape)
    desc = desc_class("ELEMENT_WISE_ADD")(a_tensor=a or packed, b_tensor=packed, output_tensor=out or packed)
    dev = gpuops.Device("numpy")
    assert dev.compile_operator(dev.create_operator(desc)).launch_path == "numpy"


@pytest.mark.parametrize("layout", ["row_bcast", "scalar"])
def test_rows_loop_threaded_blocks(layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Row blocks (row broadcast) and column blocks (a scalar broadcast is one row) on three
    threads give the one-call result."""
    row = row_of("ELEMENT_WISE_ADD1")
    combo = {f.name: BF16 for f in row.tensor_fields}
    first, other, _ = ROWS_LAYOUTS[layout]
    a, b, o = TensorDesc(BF16, (R, C), first), TensorDesc(BF16, (R, C), other), TensorDesc(BF16, (R, C))
    desc = _desc(row, combo, R * C, None, "ACTIVATION_RELU")
    desc = desc_class(row.name)(a_tensor=a, b_tensor=b, output_tensor=o, fused_activation=desc.fused_activation)
    rng = np.random.default_rng(3)
    bufs = [_raw_buffer(a, rng, SPECIALS[BF16]), _raw_buffer(b, rng, SPECIALS[BF16])]
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc))
    assert op.launch_path == "numba"
    one = np.zeros(R * C + 1, BF16.numpy_dtype)  # 16-bit buffers hold whole 4-byte words
    op.execute(bufs, [one])
    calls: list[int] = []
    real = cpu_threads._parallel

    def spy(parts: list[Any], work: Any, size: int) -> None:
        calls.append(len(parts))
        real(parts, work, size)

    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(thread_min=64, thread_block=100))
    monkeypatch.setattr(cpu_threads, "_parallel", spy)
    many = np.zeros(R * C + 1, BF16.numpy_dtype)
    with config.override(num_threads=3):
        op.execute(bufs, [many])
    assert calls and calls[0] > 2
    assert np.array_equal(uint_view(one), uint_view(many))


def test_rows_loop_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The output is the first input's buffer (identical padded descriptors), B a row broadcast."""
    row = row_of("ELEMENT_WISE_ADD")
    a = TensorDesc(F16, (R, C), (C + 3, 1))
    b = TensorDesc(F16, (R, C), (0, 1))
    desc = desc_class(row.name)(a_tensor=a, b_tensor=b, output_tensor=a)
    rng = np.random.default_rng(4)
    a_buf, b_buf = _raw_buffer(a, rng, SPECIALS[F16]), _raw_buffer(b, rng, SPECIALS[F16])
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc))
    assert op.launch_path == "numba"
    with config.override(numba=False):
        ref = dev.compile_operator(dev.create_operator(desc))
    want = a_buf.copy()
    ref.execute([want, b_buf], [want])
    got = a_buf.copy()
    op.execute([got, b_buf], [got])
    assert _same(got, want).all()
    assert not np.array_equal(uint_view(got), uint_view(a_buf))  # it did write


# ---------------------------------------------------------------------------------------------
# Rows with more than three inputs


def test_quantized_linear_add_stays_on_the_numpy_path() -> None:
    """The tier loads and stores floating types only (LOOP_TYPES); QUANTIZED_LINEAR_ADD's A, B, zero points and
    output are INT8/UINT8, so it runs on the ufunc path, every mapping and every absent zero point alike."""
    row = row_of("ELEMENT_WISE_QUANTIZED_LINEAR_ADD")
    for combo in dtype_combinations(row.name):
        assert not _is_float_combo(combo) and loop_spec(row, combo) is None, combo
        bare = {r: dt for r, dt in combo.items() if "zero_point" not in r}
        assert loop_spec(row, bare) is None
    n = cpu_policy.POLICY.numba_min_elements + 10
    tensors = {r: TensorDesc(dt, (n,)) for r, dt in dtype_combinations(row.name)[0].items()}
    dev = gpuops.Device("numpy")
    assert dev.compile_operator(dev.create_operator(desc_class(row.name)(**tensors))).launch_path == "numpy"


def _five(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, x3: np.ndarray, x4: np.ndarray | None, *, out: np.ndarray
) -> None:
    v = np.multiply(x, y)
    v += z
    np.subtract(v, x3 / (np.float32(2) if x4 is None else x4 + np.float32(2)), out=out)


def _five_row(operands: tuple[str, ...] = ()) -> Any:
    """A row outside the table with five float inputs, the last optional: the default operand names x, y, z, x3,
    x4 (or ``operands``)."""
    from descriptors import FeatureLevel
    from descriptors.schema import Domain, ElementwiseRow, Exprs, Family, Field, Tier, types

    roles = ("first_tensor", "second_tensor", "third_tensor", "fourth_tensor", "fifth_tensor")
    names = operands or ("x", "y", "z", "x3", "x4")
    expr = "__fadd_rn(__fmul_rn({}, {}), {}) - {} / ({} + T(2))".format(*names)
    fields = tuple(Field(r, FieldKind.INPUT_TENSOR if r != "fifth_tensor" else FieldKind.OPTIONAL_INPUT_TENSOR)
                   for r in roles) + (Field("output_tensor", FieldKind.OUTPUT_TENSOR),)  # fmt: skip
    t = types("F32 F16")
    return ElementwiseRow(
        name="ELEMENT_WISE_FIVE", struct="DML_ELEMENT_WISE_FIVE_OPERATOR_DESC", fields=fields, family=Family.UNARY,
        domain=Domain.ARITH, exprs=Exprs(cuda={"float": expr}, numpy={"float": _five}),
        tiers=(Tier(FeatureLevel.FL_1_0, (1, 8), dict.fromkeys((*roles, "output_tensor"), t), (), "a test row",
                    ("fifth_tensor",)),),
        summary="first * second + third - fourth / (fifth + 2)", in_place=False, extension=True, operands=operands,
    )  # fmt: skip


@pytest.mark.parametrize("operands", [(), ("pa", "pb", "pc", "pd", "pe")], ids=["default-names", "own-names"])
@pytest.mark.parametrize("absent", [False, True], ids=["all-inputs", "absent-fifth"])
@pytest.mark.parametrize("dt", [F32, F16], ids=lambda d: d.name)
def test_a_row_with_five_inputs_compiles_and_matches_numpy(
    operands: tuple[str, ...], absent: bool, dt: DataType
) -> None:
    """Operands beyond x, y, z (x3, x4, or the row's own names) translate; an absent optional one reads as
    T(0), as in the CUDA kernels; the loop equals the NumPy path bit for bit (the NumPy form gets None in the
    absent one's position)."""
    row = _five_row(operands)
    combo = {f.name: dt for f in row.tensor_fields if not (absent and f.name == "fifth_tensor")}
    spec = loop_spec(row, combo)
    assert spec is not None
    assert spec.input_roles == tuple(f.name for f in row.input_fields if f.name in combo)
    ins = _inputs(row, combo, N, seed=17)
    want = np.empty(N, dt.numpy_dtype)
    kernel = NumpyKernel(row, combo, False)
    kernel.run(ins, want, kernel.prepare({}), False)
    got = np.empty_like(want)
    numba_loops.NumbaLoopKernel(spec, combo, ()).run(ins, got, (), False)
    assert _same(got, want).all(), np.flatnonzero(~_same(got, want))[:8]
