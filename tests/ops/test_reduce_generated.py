"""Generated tests for the reductions: REDUCE (all twelve functions), ARGMAX and ARGMIN.

The matrix: rows x selector values (REDUCE's ``function``, ARGMAX/ARGMIN's
``axis_direction``, both values) x every data-type mapping ``dtype_combinations`` lists at
FL 6_4 x layouts x backends (NumPy here; the gpu-marked CuPy parameter runs the same cases
on a CUDA machine). Results are compared with the independent references of
``reference_reduce.py``: bit for bit for integers, MAX/MIN and ARGMAX/ARGMIN (NaN where the
reference is NaN, either zero sign where both +0 and -0 are reduced), and within
``reference_reduce.tolerance`` (the row's stated ``Reduction.error`` bound) for the other
float functions.

Layouts (``LAYOUTS``): packed 1-D; packed 3-D (3, 4, 5) reduced over the inner, outer and
middle axis, two axes (spelled out of order) and two adjacent axes and all axes; a padded
(strided) input; a permuted (transposed) input; a broadcast input with a stride-0 dimension
(reduced and kept); a padded output (its padding must stay untouched); long reductions under
``LARGE_POLICY`` (the default policy wants 2**18 elements, too many to emulate per case): 9001 x 2 over the
long rows of stride 2 (two passes on the GPU and the emulator), 2 x 9001 over the long rows (the split rows kernel,
one launch) and 9001 x 2 over the long outer axis (the split columns kernel, one launch). Every layout runs for the
type pairs of ``FULL_COMBOS`` (float32 and int32 inputs; ARG: float32 -> INT64 and int32 ->
UINT32); the other pairs run a smaller set (``SHORT``, plus the long reductions for float16
and bfloat16 inputs), ARGMAX/ARGMIN with another index type than INT64 one layout.

Every run fills the output buffer with 0x5A bytes first, checks that every byte outside the
output's elements is still 0x5A and that the input buffer is unchanged.

Data per function: floats on a grid of eighths (exact in bfloat16 and float16); LOG_SUM
mostly positive; LOG_SUM_EXP on a wider grid; MULTIPLY magnitudes 0.5 .. 2 with random
signs (mostly +-1 for long reductions so the product stays in range); MAX/MIN with +-0 and
occasional NaN; ARG small-integer values (ties) with occasional NaN; integers small and full
range (SUM, L1, SUM_SQUARE, AVERAGE wrap), odd factors for MULTIPLY (wrapping, nonzero).

Targeted tests: 16-bit SUM accumulates in float32 (and the naive NumPy reduction in the
16-bit type gets it wrong); LOG_SUM_EXP of values near +-1000 (every float type) is finite
and accurate; integer SUM/MULTIPLY wrap modulo 2**bits (INT8, INT32, INT64, UINT32, literal
values); literal special values (NaN, infinities, LOG_SUM of 0 and of a negative sum).
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from conftest import GPU
from gpu_grid import gpu_picks, with_backends
from helpers import (
    INT_RANGE,
    buffer_for,
    element_offsets,
    float_info,
    random_values,
    read_tensor,
    to_backend,
    to_host,
    uint_view,
)
from reference_reduce import REFERENCES, rows_of, tolerance

from descriptors import DataType, FeatureLevel, TensorDesc, desc_class, dtype_combinations, row_of
from descriptors.schema import OpRow
from gpuops import config
from gpuops.layout import reduce_plan

LEVEL = FeatureLevel.FL_6_4
ROW_NAMES = ("REDUCE", "ARGMAX", "ARGMIN")
F32, F16, BF16, F64 = DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT64
I8, I32, I64, U32 = DataType.INT8, DataType.INT32, DataType.INT64, DataType.UINT32


@dataclasses.dataclass(frozen=True)
class Layout:
    """Input sizes and element strides (None: packed), reduced axes, output strides."""

    sizes: tuple[int, ...]
    axes: tuple[int, ...]
    in_strides: tuple[int, ...] | None = None
    out_strides: tuple[int, ...] | None = None

    @property
    def out_sizes(self) -> tuple[int, ...]:
        return tuple(1 if i in self.axes else s for i, s in enumerate(self.sizes))


_S3 = (3, 4, 5)
LAYOUTS: dict[str, Layout] = {
    "1d": Layout((37,), (0,)),
    "3d-inner": Layout(_S3, (2,)),
    "3d-outer": Layout(_S3, (0,)),
    "3d-middle": Layout(_S3, (1,)),
    "3d-two": Layout(_S3, (2, 0)),  # out of order: the ARG index is row-major in axis order
    "3d-adjacent": Layout(_S3, (1, 2)),
    "3d-all": Layout(_S3, (0, 1, 2)),
    "padded": Layout(_S3, (1,), in_strides=(30, 7, 1)),
    "padded-two": Layout(_S3, (0, 2), in_strides=(30, 7, 1)),
    "permuted": Layout(_S3, (2,), in_strides=(4, 1, 12)),  # stored as (5, 3, 4)
    "permuted-two": Layout(_S3, (0, 1), in_strides=(4, 1, 12)),
    "bcast": Layout(_S3, (1,), in_strides=(5, 0, 1)),  # the stride-0 axis reduced
    "bcast-kept": Layout(_S3, (0, 2), in_strides=(5, 0, 1)),  # the stride-0 axis kept
    "padded-out": Layout(_S3, (1,), out_strides=(16, 8, 1)),
    "padded-out-inner": Layout(_S3, (2,), out_strides=(14, 3, 1)),
    "large": Layout((2, 9001), (1,), in_strides=(1, 2)),  # few long rows of stride 2: two passes (LARGE_POLICY)
    "large-rows": Layout((2, 9001), (1,)),  # few long rows: each row in parts, one launch (split rows)
    "large-cols": Layout((9001, 2), (0,)),  # few outputs, a long outer axis: in parts, one launch (split columns)
}
FULL = tuple(LAYOUTS)
# "large" and "large-rows" run under this policy: split from 2**14 elements (the default waits for 2**18).
LARGE_POLICY = dataclasses.replace(reduce_plan.DEFAULT_POLICY, min_total=1 << 14)
SHORT = ("1d", "3d-two", "permuted", "bcast", "padded-out")
# The GPU's path for each long layout.
LARGE_PATHS = {
    "large": "two-pass reduction",
    "large-rows": "split rows reduction",
    "large-cols": "split columns reduction",
}
FULL_COMBOS = {(F32, F32), (I32, I32), (F32, I64), (I32, U32)}


def seed_of(*parts: object) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def is_arg(row_name: str, variant: str) -> bool:
    return row_name != "REDUCE" or variant in ("ARGMAX", "ARGMIN")


# ---------------------------------------------------------------------------------------------
# Data.

_GRID = np.arange(-32, 33, dtype=np.float64) / 8.0  # eighths in [-4, 4]
_MUL_MAGNITUDES = np.array([0.5, 0.625, 0.75, 0.875, 1.25, 1.5, 1.75, 2.0])


def _inject(vals: np.ndarray, rng: np.random.Generator, p: float, value: float) -> None:
    vals[rng.random(vals.size) < p] = value


def float_data(kind: str, size: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Float64 values for a float input of ``size`` elements reducing ``n`` per output."""
    if kind == "ARG":
        vals = rng.integers(-3, 4, size=size).astype(np.float64)  # small integers: ties
        _inject(vals, rng, 0.3 / n, math.nan)
    elif kind in ("MAX", "MIN"):
        vals = rng.choice(_GRID, size=size)
        _inject(vals, rng, 0.1, 0.0)
        _inject(vals, rng, 0.1, -0.0)
        _inject(vals, rng, 0.3 / n, math.nan)
    elif kind == "LOG_SUM":
        vals = rng.choice(_GRID[_GRID > 0], size=size)
        neg = rng.random(size) < 0.15
        vals[neg] = -rng.choice(_GRID[(_GRID > 0) & (_GRID <= 1)], size=int(neg.sum()))
    elif kind == "LOG_SUM_EXP":
        vals = rng.choice(_GRID, size=size) * 4.0  # halves in [-16, 16]
    elif kind == "MULTIPLY":
        vals = np.ones(size)
        other = rng.random(size) < min(1.0, 64.0 / n)
        vals[other] = rng.choice(_MUL_MAGNITUDES, size=int(other.sum()))
        vals *= rng.choice(np.array([-1.0, 1.0]), size=size)
    else:
        vals = rng.choice(_GRID, size=size)
    return vals


def int_data(kind: str, dt: DataType, size: int, n: int, rng: np.random.Generator) -> np.ndarray:
    lo, hi = INT_RANGE(dt)
    npdt = dt.numpy_dtype
    if kind == "ARG":
        vals = rng.integers(max(lo, -3), min(hi, 3) + 1 if lo < 0 else 7, size=size).astype(object)
        edges = rng.random(size) < 0.05
        vals[edges] = [lo if k else hi for k in rng.integers(0, 2, size=int(edges.sum()))]
        return np.array([int(v) for v in vals], dtype=npdt)
    if kind == "MULTIPLY":
        odd = np.array([1, 3, 5, 7, -1, -3, -5, -7] if lo < 0 else [1, 3, 5, 7, 9, 11], dtype=object)
        vals = rng.choice(odd, size=size)
        big = rng.random(size) < min(0.5, 8.0 / n)
        full = rng.integers(lo, hi, size=int(big.sum()), endpoint=True, dtype=np.int64 if lo < 0 else np.uint64)
        vals[big] = [int(v) for v in full]
        vals[rng.random(size) < 0.05] = 2
        vals[rng.random(size) < 0.2 / n] = 0
        return np.array([int(v) for v in vals], dtype=npdt)
    return random_values(dt, (size,), rng, "arith").reshape(size)


def data_for(row_name: str, variant: str, dt: DataType, layout: Layout, rng: np.random.Generator) -> np.ndarray:
    """Logical input values in the input's type; stride-0 axes hold one value along them."""
    size = math.prod(layout.sizes)
    n = math.prod(layout.sizes[a] for a in layout.axes)
    kind = "ARG" if is_arg(row_name, variant) else variant
    flat = float_data(kind, size, n, rng).astype(dt.numpy_dtype) if dt.is_float else int_data(kind, dt, size, n, rng)
    vals = flat.reshape(layout.sizes)
    for axis, stride in enumerate(layout.in_strides or ()):
        if stride == 0:  # what is stored: one value along the axis
            vals = np.broadcast_to(np.take(vals, [0], axis=axis), layout.sizes).copy()
    return vals


# ---------------------------------------------------------------------------------------------
# Running and checking.


def compile_reduction(device: Any, row: OpRow, variant: str, in_desc: TensorDesc, out_desc: TensorDesc, axes: Any):
    enum_type = row.field(row.selector).enum_type
    assert enum_type is not None
    kwargs = {row.selector: enum_type[variant], "input_tensor": in_desc, "output_tensor": out_desc, "axes": axes}
    desc = desc_class(row.name)(**kwargs)
    return device.compile_operator(device.create_operator(desc))


def execute(
    device: Any,
    xp: Any,
    row_name: str,
    variant: str,
    values: np.ndarray,
    axes: tuple[int, ...],
    out_dt: DataType,
    in_strides: tuple[int, ...] | None = None,
    out_strides: tuple[int, ...] | None = None,
    launch_path: str | None = None,
) -> np.ndarray:
    """Run the reduction on ``values`` (typed); check the buffers around it; return the output.
    ``launch_path``: the path a GPU backend must take (``CompiledOperator.launch_path``)."""
    row = row_of(row_name)
    in_dt = _dt_of(values.dtype)
    sizes = values.shape
    out_sizes = tuple(1 if i in axes else s for i, s in enumerate(sizes))
    in_desc = TensorDesc(in_dt, sizes, in_strides)
    out_desc = TensorDesc(out_dt, out_sizes, out_strides)
    op = compile_reduction(device, row, variant, in_desc, out_desc, axes)
    if launch_path is not None and device.backend != "numpy":
        assert op.launch_path == launch_path, (op.launch_path, launch_path)
    in_buf = buffer_for(in_desc, values)
    out_buf = buffer_for(out_desc, np.zeros(out_sizes))
    out_buf.view(np.uint8)[:] = 0x5A
    before = in_buf.copy()
    dev_in, dev_out = to_backend(xp, in_buf), to_backend(xp, out_buf)
    op.execute([dev_in], [dev_out])
    assert np.array_equal(uint_view(before), uint_view(to_host(dev_in))), "the input buffer was modified"
    host_out = to_host(dev_out)
    outside = np.ones(host_out.size, dtype=bool)
    outside[element_offsets(out_desc).ravel()] = False
    assert (uint_view(host_out[outside]).view(np.uint8) == 0x5A).all(), "bytes outside the output were written"
    return read_tensor(host_out, out_desc)


def _dt_of(npdt: np.dtype) -> DataType:
    for dt in DataType:
        if dt is not DataType.BOOL and dt.numpy_dtype == npdt:
            return dt
    raise KeyError(npdt)


def _reference_input(values: np.ndarray) -> np.ndarray:
    """The references read floats as float64 logical values, integers in their own type."""
    return values.astype(np.float64) if values.dtype.kind == "f" or values.dtype == ml_dtypes.bfloat16 else values


def check(
    got: np.ndarray, row_name: str, variant: str, values: np.ndarray, axes: tuple[int, ...], out_dt: DataType, what: str
) -> None:
    """``got`` against the reference: exact (bits) or within ``tolerance``."""
    npdt = out_dt.numpy_dtype
    ref_in = _reference_input(values)
    want = REFERENCES[row_name][variant](ref_in, axes)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    bad: np.ndarray
    if not out_dt.is_float:  # integers and indices: bit for bit
        w = want.astype(npdt)
        bad = uint_view(got) != uint_view(w)
        _report(bad, got, w, what)
        return
    w64 = np.asarray(want, np.float64)
    g64 = got.astype(np.float64)
    nan_bad = np.isnan(g64) != np.isnan(w64)
    if variant in ("MAX", "MIN"):  # a value of the input: bit for bit, either zero sign if both were reduced
        rows, _ = rows_of(ref_in, axes)
        both = ((rows == 0) & np.signbit(rows)).any(axis=1) & ((rows == 0) & ~np.signbit(rows)).any(axis=1)
        both = both.reshape(w64.shape)
        same = uint_view(got) == uint_view(w64.astype(npdt))
        ok = same | (both & (g64 == 0) & (w64 == 0)) | (np.isnan(g64) & np.isnan(w64))
        _report(~ok | nan_bad, got, w64, what)
        return
    tol = tolerance(row_name, variant, ref_in, axes, out_dt)
    either = np.zeros(w64.shape, bool)
    if variant == "L2":
        # README (reductions: NaN, infinities): L2 squares in the accumulator (float32, float64 for
        # FLOAT64), so a sum of squares beyond its range is inf. The accumulated sum is within n·u
        # of the exact one: inf where it is surely beyond, either result in the window around.
        acc_max = float(np.finfo(np.float64 if out_dt is DataType.FLOAT64 else np.float32).max)
        n = math.prod(values.shape[a] for a in set(axes))
        u = float(np.finfo(np.float64 if out_dt is DataType.FLOAT64 else np.float32).eps) / 2
        with np.errstate(all="ignore"):
            sq = w64 * w64
            over = np.isfinite(w64) & (sq * (1 - n * u) > acc_max)
            either = np.isfinite(w64) & ~over & (sq * (1 + n * u) > acc_max) & np.isinf(g64) & (g64 > 0)
        w64 = np.where(over, np.inf, w64)
    with np.errstate(all="ignore"):
        rounded = w64.astype(npdt).astype(np.float64)
        inf_want = np.isinf(rounded) & ~np.isnan(w64)
        inf_bad = inf_want & (g64 != rounded)
        finite = ~np.isnan(w64) & ~inf_want
        fin_bad = finite & ~(np.abs(g64 - w64) <= tol) & ~either
    _report(nan_bad | inf_bad | fin_bad, got, w64, what, tol)


def _report(bad: np.ndarray, got: np.ndarray, want: np.ndarray, what: str, tol: np.ndarray | None = None) -> None:
    if not bad.any():
        return
    idx = np.argwhere(bad)[:6]
    parts = []
    for ix in idx:
        t = tuple(int(i) for i in ix)
        extra = f" tol {float(tol[t]):.3g}" if tol is not None else ""
        parts.append(f"{t}: got {got[t]!r} want {want[t]!r}{extra}")
    raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} elements differ: {'; '.join(parts)}")


def run_case(
    device: Any,
    xp: Any,
    row_name: str,
    variant: str,
    combo: dict[str, DataType],
    layout_name: str,
    launch_path: str | None = None,
) -> None:
    layout = LAYOUTS[layout_name]
    in_dt, out_dt = combo["input_tensor"], combo["output_tensor"]
    rng = np.random.default_rng(seed_of(row_name, variant, in_dt.name, out_dt.name, layout_name))
    values = data_for(row_name, variant, in_dt, layout, rng)
    large = LARGE_PATHS.get(layout_name)
    with pytest.MonkeyPatch.context() as mp:
        if large:
            mp.setattr(reduce_plan, "DEFAULT_POLICY", LARGE_POLICY)
        got = execute(
            device, xp, row_name, variant, values, layout.axes, out_dt, layout.in_strides, layout.out_strides,
            launch_path=large or launch_path,
        )  # fmt: skip
    what = f"{row_name} {variant} {in_dt.name}->{out_dt.name} {layout_name} axes={layout.axes}"
    check(got, row_name, variant, values, layout.axes, out_dt, what)


# ---------------------------------------------------------------------------------------------
# The matrix.


def variants_of(row_name: str) -> tuple[str, ...]:
    row = row_of(row_name)
    return tuple(row.reductions)


def layouts_for(row_name: str, variant: str, in_dt: DataType, out_dt: DataType) -> tuple[str, ...]:
    if (in_dt, out_dt) in FULL_COMBOS:
        return FULL
    if is_arg(row_name, variant) and out_dt is not I64:
        return ("3d-two",)
    if in_dt in (F16, BF16):
        return (*SHORT, *LARGE_PATHS)
    return SHORT


def _combos(row_name: str, variant: str) -> list[dict[str, DataType]]:
    return dtype_combinations(row_name, LEVEL, variant=variant if row_name == "REDUCE" else None)


CASES = []
for _row in ROW_NAMES:
    for _variant in variants_of(_row):
        for _combo in _combos(_row, _variant):
            _in, _out = _combo["input_tensor"], _combo["output_tensor"]
            for _layout in layouts_for(_row, _variant, _in, _out):
                _types = _in.name if _in is _out else f"{_in.name}-{_out.name}"
                CASES.append(pytest.param(_row, _variant, _combo, _layout, id=f"{_row}-{_variant}-{_types}-{_layout}"))


def _grid_key(values: Sequence[Any]) -> tuple[tuple[str, str], str, str]:
    """((row, variant), data types, layout): ``gpu_grid``'s thinning of the emulator's copy."""
    row_name, variant, combo, layout = values
    return (row_name, variant), f"{combo['input_tensor'].name}-{combo['output_tensor'].name}", layout


@pytest.mark.parametrize(("backend", "row_name", "variant", "combo", "layout"), with_backends(CASES, _grid_key))
def test_matches_reference(row_name: str, variant: str, combo: dict, layout: str, device: Any, xp: Any) -> None:
    run_case(device, xp, row_name, variant, combo, layout)


# The layouts whose reduced elements are one contiguous span per output (reduce_plan.plan_rows): the GPU runs
# gpuops' rows kernel on them (issue 33: test_matches_reference checks it); with GPUOPS_CUPY_ROWS_REDUCE=0, CuPy's
# ReductionKernel, checked here as the matrix is.
ROWS_LAYOUTS = ("1d", "3d-inner", "3d-adjacent", "3d-all")
ROWS_CASES = [
    p for p, pick in zip(CASES, gpu_picks(CASES, _grid_key), strict=True) if pick and p.values[3] in ROWS_LAYOUTS
]


@pytest.mark.parametrize("backend", [pytest.param(GPU, marks=pytest.mark.gpu)])
@pytest.mark.parametrize(("row_name", "variant", "combo", "layout"), ROWS_CASES)
def test_reduction_kernel_on_rows_layouts(
    row_name: str, variant: str, combo: dict, layout: str, device: Any, xp: Any
) -> None:
    with config.override(cupy_rows_reduce=False):
        run_case(device, xp, row_name, variant, combo, layout, launch_path="reduction")


def test_every_row_variant_and_type_is_in_the_matrix() -> None:
    seen = {(p.values[0], p.values[1], tuple(sorted((k, v.name) for k, v in p.values[2].items()))) for p in CASES}
    for row_name in ROW_NAMES:
        assert set(REFERENCES[row_name]) == set(variants_of(row_name)), row_name
        for variant in variants_of(row_name):
            combos = _combos(row_name, variant)
            assert combos, (row_name, variant)
            for combo in combos:
                assert (row_name, variant, tuple(sorted((k, v.name) for k, v in combo.items()))) in seen
    assert {v for r, v, *_ in (p.values for p in CASES) if r == "REDUCE"} == {
        "ARGMAX",
        "ARGMIN",
        "AVERAGE",
        "L1",
        "L2",
        "LOG_SUM",
        "LOG_SUM_EXP",
        "MAX",
        "MIN",
        "MULTIPLY",
        "SUM",
        "SUM_SQUARE",
    }


# ---------------------------------------------------------------------------------------------
# Targeted tests.


@pytest.mark.parametrize(("dt", "count"), [(BF16, 1000), (F16, 4096)], ids=["BFLOAT16", "FLOAT16"])
def test_16bit_sum_accumulates_in_float32(dt: DataType, count: int, device: Any, xp: Any) -> None:
    """SUM over axis 0 of ones: exact (float32 accumulator); summing in the 16-bit type stalls."""
    ones = np.ones((count, 4), dtype=dt.numpy_dtype)
    naive = np.add.reduce(ones, axis=0, dtype=dt.numpy_dtype)
    assert (naive.astype(np.float64) != count).all(), "the naive 16-bit sum must be wrong, else this proves nothing"
    got = execute(device, xp, "REDUCE", "SUM", ones, (0,), dt)
    assert got.shape == (1, 4)
    assert (got.astype(np.float64) == count).all(), got


@pytest.mark.parametrize("dt", [F32, F16, BF16, F64], ids=lambda d: d.name)
def test_log_sum_exp_large_inputs(dt: DataType, device: Any, xp: Any) -> None:
    """m + log(sum exp(x - m)): finite and accurate where exp(x) overflows or underflows."""
    x = np.array(
        [
            [1000.0, 996.0, 1000.0, 992.0],
            [-1000.0, -996.0, -1000.0, -992.0],
            [1000.0, -1000.0, 0.0, 4.0],
            [-1000.0, -1000.0, -1000.0, -1000.0],
        ]
    ).astype(dt.numpy_dtype)
    if dt is F32:
        with np.errstate(all="ignore"):
            naive = np.log(np.sum(np.exp(x), axis=1))
        assert not np.isfinite(naive).any(), "the naive float32 form must overflow/underflow here"
    got = execute(device, xp, "REDUCE", "LOG_SUM_EXP", x, (1,), dt)
    assert np.isfinite(got.astype(np.float64)).all(), got
    check(got, "REDUCE", "LOG_SUM_EXP", x, (1,), dt, f"LOG_SUM_EXP large {dt.name}")
    want = 1000.0 + math.log(2 + math.exp(-4) + math.exp(-8))  # literal, independent of the reference
    eps = float(float_info(dt).eps)  # type: ignore[attr-defined]
    assert abs(float(got[0, 0]) - want) <= 2 * eps * 1024, (got, want)


# (dtype, function, rows of literal values, expected per row: the exact result modulo 2**bits)
WRAP_CASES = [
    (I8, "SUM", [[100, 100, 100], [-128, -1, 0], [127, 1, 0]], [44, 127, -128]),
    (I8, "MULTIPLY", [[100, 3, 1], [-128, -1, 1], [16, 16, 1]], [44, -128, 0]),
    (I32, "SUM", [[2**31 - 1, 1], [-(2**31), -1]], [-(2**31), 2**31 - 1]),
    (I32, "MULTIPLY", [[65536, 65537], [-(2**31), -1]], [65536, -(2**31)]),
    (I64, "SUM", [[2**63 - 1, 2], [-(2**63), -(2**63)]], [-(2**63) + 1, 0]),
    (I64, "MULTIPLY", [[2**32, 2**32 + 3], [3, 2**62]], [3 * 2**32, -(2**62)]),
    (U32, "SUM", [[2**32 - 1, 5], [2**31, 2**31]], [4, 0]),
    (U32, "MULTIPLY", [[65536, 65537], [2**31 + 1, 3]], [65536, 2**31 + 3]),
]


@pytest.mark.parametrize(
    ("dt", "function", "rows", "expected"), WRAP_CASES, ids=[f"{c[0].name}-{c[1]}" for c in WRAP_CASES]
)
def test_integer_overflow_wraps(dt: DataType, function: str, rows: list, expected: list, device: Any, xp: Any) -> None:
    """Documented: integer SUM and MULTIPLY give the exact result wrapped modulo 2**bits."""
    x = np.array(rows, dtype=dt.numpy_dtype)
    got = execute(device, xp, "REDUCE", function, x, (1,), dt)
    want = np.array(expected, dtype=dt.numpy_dtype).reshape(-1, 1)
    assert np.array_equal(uint_view(got), uint_view(want)), (got.ravel(), want.ravel())
    # The reference agrees with the literal values.
    assert np.array_equal(REFERENCES["REDUCE"][function](x, (1,)), want)


_NAN, _INF = math.nan, math.inf
# (row, variant, literal float32 values of one row reduced over axis 0, expected result)
EDGE_CASES = [
    ("REDUCE", "LOG_SUM_EXP", [-_INF, -_INF, -_INF], -_INF),
    ("REDUCE", "LOG_SUM_EXP", [1.0, _INF, -_INF], _INF),
    ("REDUCE", "LOG_SUM_EXP", [1.0, _NAN, _INF], _NAN),
    ("REDUCE", "LOG_SUM_EXP", [-_INF, 0.0, -_INF], 0.0),
    ("REDUCE", "MAX", [1.0, _NAN, 3.0], _NAN),
    ("REDUCE", "MIN", [_NAN, -1.0, 3.0], _NAN),
    ("REDUCE", "MAX", [-_INF, -_INF], -_INF),
    ("REDUCE", "MIN", [_INF, 2.0], 2.0),
    ("REDUCE", "LOG_SUM", [1.0, -1.0], -_INF),
    ("REDUCE", "LOG_SUM", [1.0, -2.0], _NAN),
    ("REDUCE", "ARGMAX", [1.0, _NAN, 5.0, _NAN], 1),
    ("REDUCE", "ARGMIN", [1.0, _NAN, -5.0, _NAN], 1),
    ("ARGMAX", "INCREASING", [2.0, 5.0, 5.0, 1.0], 1),
    ("ARGMAX", "DECREASING", [2.0, 5.0, 5.0, 1.0], 2),
    ("ARGMAX", "DECREASING", [1.0, _NAN, 5.0, _NAN, 0.0], 3),
    ("ARGMIN", "INCREASING", [0.0, -0.0, 1.0], 0),
    ("ARGMIN", "DECREASING", [0.0, -0.0, 1.0], 1),
    ("ARGMIN", "DECREASING", [-_INF, 3.0, -_INF, 2.0], 2),
]


@pytest.mark.parametrize(
    ("row_name", "variant", "values", "expected"),
    EDGE_CASES,
    ids=[f"{r}-{v}-{i}" for i, (r, v, *_) in enumerate(EDGE_CASES)],
)
def test_edge_values(row_name: str, variant: str, values: list, expected: float, device: Any, xp: Any) -> None:
    x = np.array(values, dtype=np.float32)
    arg = is_arg(row_name, variant)
    out_dt = U32 if arg else F32
    got = execute(device, xp, row_name, variant, x, (0,), out_dt)
    g = float(got[0])
    # The reference agrees with the literal expectation.
    r = float(REFERENCES[row_name][variant](x.astype(np.float64), (0,))[0])
    for v in (g, r):
        if math.isnan(expected):
            assert math.isnan(v), (g, r, expected)
        else:
            assert v == expected, (g, r, expected)
