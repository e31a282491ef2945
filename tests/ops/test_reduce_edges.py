"""DML_REDUCE, DML_ARGMAX and DML_ARGMIN: tables, capability queries, examples and edges.

References are hand-written: the tables are tests/dml_reduce.py (typed from
docs/reference/directml.md section 4), the examples are the DirectML doc's (section 4) and
TensorRT's Reduce page (docs/seeds/002_7f0fd05cb6bc2ed1.txt), verbatim; edge values are
stated by the semantics docstring of descriptors/ops/reduce.py and computed here by hand or
in float64 NumPy. Nothing is derived from the code under test.
"""

from __future__ import annotations

import math
from typing import Any

import dml_reduce
import numpy as np
import pytest
from helpers import buffer_elements, buffer_for, checks_after_runs, read_tensor, to_backend, to_host

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
    dtype_combinations,
    operator_support,
    row_of,
    validate,
)
from descriptors.schema import types

F32, F16, F64 = DataType.FLOAT32, DataType.FLOAT16, DataType.FLOAT64
BF16 = DataType.BFLOAT16
I8, I16, I32, I64 = DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64
U8, U16, U32, U64 = DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64
INDEX_TYPES = [I32, I64, U32, U64]
NAN, INF = float("nan"), float("inf")
SENTINEL = 99
IN, OUT = "input_tensor", "output_tensor"


def level(label: str) -> FeatureLevel:
    return FeatureLevel[f"FL_{label}"]


# ---------------------------------------------------------------------------------------------
# Helpers


def bitmask_to_axes(mask: int) -> list[int]:
    """TensorRT's ``axes`` bitmask (bit i set: dimension i is reduced) as DirectML's axes list."""
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def keepdims_sizes(sizes: tuple[int, ...], axes: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(sizes))


def run(device: gpuops.Device, xp: Any, desc: OperatorDesc, values: Any) -> tuple[np.ndarray, Any]:
    """Run a reduction on ``values``; return (the output read through its TensorDesc, the output buffer)."""
    tin: TensorDesc = desc.input_tensor  # type: ignore[attr-defined]
    tout: TensorDesc = desc.output_tensor  # type: ignore[attr-defined]
    op = device.compile_operator(device.create_operator(desc))
    x = to_backend(xp, buffer_for(tin, np.asarray(values)))
    out = to_backend(xp, np.full(buffer_elements(tout), SENTINEL, dtype=tout.data_type.numpy_dtype))
    op.execute([x], [out])
    return read_tensor(out, tout), out


def reduce_desc(
    function: ReduceFunction, dt: DataType, sizes: tuple[int, ...], axes: list[int], out_dt: DataType | None = None
) -> ReduceOperatorDesc:
    tin = TensorDesc(dt, sizes)
    tout = TensorDesc(out_dt or dt, keepdims_sizes(sizes, axes))
    return ReduceOperatorDesc(function, tin, tout, axes=axes)


def arg_desc(
    cls: type, dt: DataType, sizes: tuple[int, ...], axes: list[int], out_dt: DataType, direction: AxisDirection
) -> OperatorDesc:
    tin = TensorDesc(dt, sizes)
    tout = TensorDesc(out_dt, keepdims_sizes(sizes, axes))
    return cls(tin, tout, axes=axes, axis_direction=direction)  # type: ignore[no-any-return]


def expect_error(desc: OperatorDesc, at: FeatureLevel, field: str, *words: str, extensions: bool = True) -> str:
    with pytest.raises(DescriptorError) as info:
        validate(desc, at, extensions=extensions)
    msg = str(info.value)
    assert info.value.field == field, msg
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


# ---------------------------------------------------------------------------------------------
# The op table against the transcribed DirectML tables


def _dml_view(tiers: Any) -> set[tuple[FeatureLevel, tuple[int, int], frozenset, frozenset]]:
    return {(t.since, t.dims, frozenset(t.types[IN]), frozenset(t.types[OUT])) for t in tiers}


def _transcribed(rows: list[dml_reduce.Tier]) -> set[tuple[FeatureLevel, tuple[int, int], frozenset, frozenset]]:
    return {(level(lv), dims, types(ins), types(outs)) for lv, dims, ins, outs in rows}


def test_reduce_function_values() -> None:
    assert {f.name: int(f) for f in ReduceFunction} == dml_reduce.REDUCE_FUNCTION_VALUES
    assert {d.name: int(d) for d in AxisDirection} == dml_reduce.AXIS_DIRECTION_VALUES


@pytest.mark.parametrize("function", sorted(dml_reduce.REDUCE_TIERS))
def test_reduce_variant_tiers_match_directml(function: str) -> None:
    row = row_of("REDUCE")
    assert set(row.variant_tiers) == set(dml_reduce.REDUCE_TIERS)
    assert _dml_view(row.variant_tiers[function]) == _transcribed(dml_reduce.REDUCE_TIERS[function])
    for t in row.variant_tiers[function]:
        same = any({IN, OUT} <= set(g) for g in t.same_type)
        assert same == (function in dml_reduce.REDUCE_SAME_TYPE), (function, t.since)
    assert row.introduced_for(function) is FeatureLevel.FL_1_0


@pytest.mark.parametrize("name", ["ARGMAX", "ARGMIN"])
def test_arg_operator_tiers_match_directml(name: str) -> None:
    row = row_of(name)
    assert _dml_view(row.tiers) == _transcribed(dml_reduce.ARG_OPERATOR_TIERS)
    assert row.introduced is level(dml_reduce.ARG_OPERATOR_INTRODUCED)
    assert not row.in_place
    assert all(not t.same_type for t in row.tiers)


@pytest.mark.parametrize("name", ["REDUCE", "ARGMAX", "ARGMIN"])
def test_fields_in_directml_order(name: str) -> None:
    def snake(field: str) -> str:
        return "".join("_" + c.lower() if c.isupper() else c for c in field).lstrip("_")

    want = [snake(f) for f in dml_reduce.FIELDS[name] if f != "AxisCount"]  # AxisCount is len(axes)
    assert [f.name for f in row_of(name).fields] == want


# ---------------------------------------------------------------------------------------------
# Capability queries


def _support_types(name: str, at: FeatureLevel, role: str, **kw: Any) -> set[DataType]:
    return set(operator_support(name, at, **kw).tensor(role).data_types)


@pytest.mark.parametrize("function", ["L1", "SUM_SQUARE"])
def test_l1_int32_only_from_fl_5_0(function: str) -> None:
    for lv in (FeatureLevel.FL_1_0, FeatureLevel.FL_3_0, FeatureLevel.FL_4_1):
        assert I32 not in _support_types("REDUCE", lv, IN, variant=function), lv
    for lv in (FeatureLevel.FL_5_0, FeatureLevel.FL_6_4):
        assert _support_types("REDUCE", lv, IN, variant=function) == {F32, F16, I64, I32, U64, U32}, lv


def test_reduce_argmax_function_at_fl_1_0() -> None:
    s = operator_support("REDUCE", FeatureLevel.FL_1_0, variant="ARGMAX")
    assert s.supported and s.variant == "ARGMAX"
    assert s.tensor(IN).dimension_counts == (4,)
    assert set(s.tensor(IN).data_types) == {F32, F16}
    assert s.tensor(OUT).data_types == (U32,)
    assert s.tensor(OUT).extension_data_types == ()  # indices keep DirectML's types
    assert s.same_type == ()


def test_reduce_sum_levels() -> None:
    s = operator_support("REDUCE", FeatureLevel.FL_2_1, variant=ReduceFunction.SUM)
    assert s.tensor(IN).dimension_counts == (4,)
    assert set(s.tensor(IN).data_types) == {F32, F16, I32, U32}
    s = operator_support("REDUCE", FeatureLevel.FL_3_0, variant="SUM")
    assert s.tensor(IN).dimension_counts == tuple(range(1, 9))
    assert set(s.tensor(IN).data_types) == {F32, F16, I32, U32}
    s = operator_support("REDUCE", FeatureLevel.FL_5_0, variant=10)  # DML_REDUCE_FUNCTION_SUM = 10
    assert s.variant == "SUM"
    assert set(s.tensor(OUT).data_types) == {F32, F16, I64, I32, U64, U32}
    assert any({IN, OUT} <= set(g) for g in s.same_type)


def test_reduce_max_levels() -> None:
    assert _support_types("REDUCE", FeatureLevel.FL_2_1, IN, variant="MAX") == {F32, F16, I32, U32}
    assert _support_types("REDUCE", FeatureLevel.FL_3_0, IN, variant="MIN") == {F32, F16, I32, I16, I8, U32, U16, U8}
    assert I64 in _support_types("REDUCE", FeatureLevel.FL_5_0, IN, variant="MAX")
    assert _support_types("REDUCE", FeatureLevel.FL_6_4, IN, variant="AVERAGE") == {F32, F16}


def test_argmax_operator_support() -> None:
    for lv in (FeatureLevel.FL_1_0, FeatureLevel.FL_2_0, FeatureLevel.FL_2_1):
        s = operator_support("ARGMAX", lv)
        assert not s.supported and s.tensors == ()
        assert s.introduced is FeatureLevel.FL_3_0
    s = operator_support("ARGMIN", FeatureLevel.FL_3_0)
    assert s.supported
    assert set(s.tensor(IN).data_types) == {F32, F16, I32, I16, I8, U32, U16, U8}
    assert set(s.tensor(OUT).data_types) == {I64, I32, U64, U32}
    assert s.tensor(IN).dimension_counts == tuple(range(1, 9))
    s = operator_support("ARGMAX", FeatureLevel.FL_4_1)
    assert {I64, U64} <= set(s.tensor(IN).data_types)


@pytest.mark.parametrize(("name", "variant"), [("REDUCE", "SUM"), ("REDUCE", "ARGMIN"), ("ARGMAX", None)])
def test_extensions_false_hides_bf16_f64(name: str, variant: str | None) -> None:
    kw: dict[str, Any] = {"variant": variant} if variant else {}
    on = operator_support(name, FeatureLevel.FL_6_4, **kw).tensor(IN)
    off = operator_support(name, FeatureLevel.FL_6_4, extensions=False, **kw).tensor(IN)
    assert {BF16, F64} <= set(on.extension_data_types)
    assert BF16 not in on.data_types and F64 not in on.data_types
    assert off.extension_data_types == ()
    assert BF16 not in off.all_data_types and F64 not in off.all_data_types
    combos_off = dtype_combinations(name, FeatureLevel.FL_6_4, extensions=False, **kw)
    assert combos_off and all(c[IN] not in (BF16, F64) for c in combos_off)
    assert any(c[IN] is BF16 for c in dtype_combinations(name, FeatureLevel.FL_6_4, **kw))


def test_dtype_combinations_per_variant() -> None:
    arg = dtype_combinations("REDUCE", FeatureLevel.FL_1_0, variant="ARGMAX", extensions=False)
    assert sorted((c[IN].name, c[OUT].name) for c in arg) == [("FLOAT16", "UINT32"), ("FLOAT32", "UINT32")]
    arg = dtype_combinations("REDUCE", FeatureLevel.FL_1_0, variant="ARGMAX")
    assert {c[IN] for c in arg} == {F32, F16, BF16, F64} and {c[OUT] for c in arg} == {U32}
    summ = dtype_combinations("REDUCE", FeatureLevel.FL_3_0, variant="SUM", extensions=False)
    assert sorted(c[IN].name for c in summ) == sorted(["FLOAT32", "FLOAT16", "INT32", "UINT32"])
    assert all(c[IN] is c[OUT] for c in summ)


def test_bad_variant_names() -> None:
    with pytest.raises(ValueError, match="SUMM"):
        operator_support("REDUCE", FeatureLevel.FL_6_4, variant="SUMM")
    with pytest.raises(ValueError, match="ARGMAX"):
        operator_support("ARGMAX", FeatureLevel.FL_6_4, variant="SUM")


# ---------------------------------------------------------------------------------------------
# TensorRT's Reduce examples (docs/seeds/002_7f0fd05cb6bc2ed1.txt), verbatim

TRT_INPUT = np.array(
    [
        [
            [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]],
            [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
        ]
    ]
)


def test_bitmask_to_axes() -> None:
    assert bitmask_to_axes(4) == [2]
    assert bitmask_to_axes(6) == [1, 2]  # "when axes=6, dims 1 and 2 are reduced"
    assert bitmask_to_axes(0b1011) == [0, 1, 3]


def test_trt_reduce_max_keep_dims(device: gpuops.Device, xp: Any) -> None:
    desc = reduce_desc(ReduceFunction.MAX, F32, (1, 2, 2, 3), bitmask_to_axes(4))
    assert desc.output_tensor.sizes == (1, 2, 1, 3)
    got, _ = run(device, xp, desc, TRT_INPUT)
    expected = np.array(
        [
            [
                [[0.0, 1.0, 2.0]],
                [[6.0, 7.0, 8.0]],
            ]
        ]
    )
    np.testing.assert_array_equal(got, expected.astype(np.float32))


def test_trt_reduce_prod_no_keep_dims(device: gpuops.Device, xp: Any) -> None:
    """keep_dims=False is the same kernel: the output buffer read through a TensorDesc of lower rank."""
    axes = bitmask_to_axes(6)
    desc = reduce_desc(ReduceFunction.MULTIPLY, F32, (1, 2, 2, 3), axes)
    keep = desc.output_tensor
    assert keep.sizes == (1, 1, 1, 3)
    got_keep, out = run(device, xp, desc, TRT_INPUT)
    dropped = TensorDesc(F32, tuple(s for i, s in enumerate(TRT_INPUT.shape) if i not in axes))
    assert dropped.sizes == (1, 3)
    assert dropped.total_tensor_size_in_bytes == keep.total_tensor_size_in_bytes  # same buffer, same bytes
    got = read_tensor(out, dropped)
    expected = np.array([[0.0, -56.0, -80.0]])
    np.testing.assert_array_equal(got, expected.astype(np.float32))
    np.testing.assert_array_equal(got_keep.reshape(1, 3), got)
    # A lower-rank output TensorDesc itself is not DirectML's: REDUCE keeps the rank.
    bad = ReduceOperatorDesc(ReduceFunction.MULTIPLY, desc.input_tensor, dropped, axes=axes)
    expect_error(bad, FeatureLevel.FL_6_4, "output_tensor.sizes", "MULTIPLY", "(1, 3)")


# ---------------------------------------------------------------------------------------------
# DirectML's doc examples (reference section 4)

DOC_SUM_INPUT = np.array([[1, 2, 3], [3, 0, 4], [2, 4, 2]])
DOC_ARG_INPUT = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]])


@pytest.mark.parametrize("dt", [F32, F16, I32, U32])
@pytest.mark.parametrize(
    ("axes", "want"),
    [([0], [[6, 6, 9]]), ([1], [[6], [7], [8]]), ([0, 1], [[21]])],
)
def test_doc_sum_examples(device: gpuops.Device, xp: Any, dt: DataType, axes: list[int], want: list) -> None:
    desc = reduce_desc(ReduceFunction.SUM, dt, (3, 3), axes)
    got, _ = run(device, xp, desc, DOC_SUM_INPUT)
    assert got.dtype == dt.numpy_dtype
    np.testing.assert_array_equal(got, np.array(want, dtype=dt.numpy_dtype))


@pytest.mark.parametrize("out_dt", INDEX_TYPES)
@pytest.mark.parametrize("cls", [ArgmaxOperatorDesc, ArgminOperatorDesc])
def test_doc_arg_over_two_axes(device: gpuops.Device, xp: Any, out_dt: DataType, cls: type) -> None:
    # [[1,2,3],[3,0,4],[2,5,2]] over {0,1}: the maximum 5 is at row-major index 7; the minimum 0 at 4.
    want = 7 if cls is ArgmaxOperatorDesc else 4
    for direction in AxisDirection:
        desc = arg_desc(cls, F32, (3, 3), [0, 1], out_dt, direction)
        got, _ = run(device, xp, desc, DOC_ARG_INPUT)
        assert got.dtype == out_dt.numpy_dtype
        np.testing.assert_array_equal(got, np.array([[want]], dtype=out_dt.numpy_dtype))


@pytest.mark.parametrize("out_dt", INDEX_TYPES)
def test_doc_reduce_argmax_function(device: gpuops.Device, xp: Any, out_dt: DataType) -> None:
    with checks_after_runs() as check:
        desc = reduce_desc(ReduceFunction.ARGMAX, F32, (3, 3), [0, 1], out_dt)
        got, _ = run(device, xp, desc, DOC_ARG_INPUT)
        check(np.testing.assert_array_equal, got, np.array([[7]], dtype=out_dt.numpy_dtype))
        desc = reduce_desc(ReduceFunction.ARGMIN, F32, (3, 3), [1], out_dt)
        got, _ = run(device, xp, desc, DOC_ARG_INPUT)  # row minima 1, 0, 2 at 0, 1, 0 (2 ties at 0 and 2: first)
        check(np.testing.assert_array_equal, got, np.array([[0], [1], [0]], dtype=out_dt.numpy_dtype))


@pytest.mark.parametrize("out_dt", INDEX_TYPES)
@pytest.mark.parametrize("in_dt", [F32, F16, I32, U8])
@pytest.mark.parametrize(
    ("cls", "values", "increasing", "decreasing"),
    [
        (ArgmaxOperatorDesc, [3, 2, 1, 2, 3], 0, 4),  # the doc's argmax{3,2,1,2,3}
        (ArgminOperatorDesc, [3, 1, 2, 1, 3], 1, 3),
        (ArgminOperatorDesc, [3, 2, 1, 2, 3], 2, 2),  # a single minimum: no tie
    ],
)
def test_doc_arg_ties(
    device: gpuops.Device,
    xp: Any,
    out_dt: DataType,
    in_dt: DataType,
    cls: type,
    values: list[int],
    increasing: int,
    decreasing: int,
) -> None:
    # Both directions run before any check: the emulator's prebuild dry run (no kernel runs) stops at the first
    # failed check, and a kernel it never reached is compiled alone at its first launch.
    wants = {AxisDirection.INCREASING: increasing, AxisDirection.DECREASING: decreasing}
    gots = {d: run(device, xp, arg_desc(cls, in_dt, (5,), [0], out_dt, d), values)[0] for d in wants}
    for direction, want in wants.items():
        np.testing.assert_array_equal(gots[direction], np.array([want], out_dt.numpy_dtype), err_msg=direction.name)


def test_arg_ties_over_several_axes(device: gpuops.Device, xp: Any) -> None:
    # (2, 2, 3), axes {0, 2}: for each middle index, 6 elements indexed row-major over (axis 0, axis 2).
    x = np.array([[[5, 1, 5], [0, 0, 0]], [[2, 5, 3], [0, 1, 1]]])
    with checks_after_runs() as check:
        for direction, want in ((AxisDirection.INCREASING, [0, 4]), (AxisDirection.DECREASING, [4, 5])):
            desc = arg_desc(ArgmaxOperatorDesc, I32, (2, 2, 3), [0, 2], U32, direction)
            got, _ = run(device, xp, desc, x)
            check(np.testing.assert_array_equal, got, np.array(want, dtype=np.uint32).reshape(1, 2, 1))
        desc = arg_desc(ArgminOperatorDesc, I32, (2, 2, 3), [2, 0], I64, AxisDirection.DECREASING)  # axes order free
        got, _ = run(device, xp, desc, x)
        check(np.testing.assert_array_equal, got, np.array([1, 3], dtype=np.int64).reshape(1, 2, 1))


# ---------------------------------------------------------------------------------------------
# NaN, infinities, integer extremes (descriptors/ops/reduce.py docstring)


@pytest.mark.parametrize("dt", [F32, F16, F64])
@pytest.mark.parametrize("function", [ReduceFunction.MAX, ReduceFunction.MIN])
def test_max_min_propagate_nan(device: gpuops.Device, xp: Any, dt: DataType, function: ReduceFunction) -> None:
    # Columns: NaN first, NaN last, NaN between infinities, no NaN.
    x = np.array(
        [
            [NAN, 1.0, -INF, 2.0],
            [1.0, 2.0, NAN, -1.0],
            [3.0, -5.0, INF, 0.5],
            [-2.0, NAN, 1.0, -3.0],
        ]
    )
    got, _ = run(device, xp, reduce_desc(function, dt, (4, 4), [0]), x)
    got_all, _ = run(device, xp, reduce_desc(function, dt, (4, 4), [0, 1]), x)
    last = 2.0 if function is ReduceFunction.MAX else -3.0
    assert np.isnan(got[0, :3]).all(), got
    assert got[0, 3] == last, got
    assert np.isnan(got_all).all(), got_all


@pytest.mark.parametrize("dt", [F32, F16, F64])
@pytest.mark.parametrize("cls", [ArgmaxOperatorDesc, ArgminOperatorDesc])
@pytest.mark.parametrize(
    ("values", "first", "last"),
    [
        ([1.0, NAN, 5.0, NAN, 0.0], 1, 3),
        ([NAN, -INF, INF, 2.0, 2.0], 0, 0),
        ([INF, -INF, 1.0, 1.0, NAN], 4, 4),
        ([NAN, NAN, NAN, NAN, NAN], 0, 4),
    ],
)
def test_arg_nan_wins(
    device: gpuops.Device, xp: Any, dt: DataType, cls: type, values: list[float], first: int, last: int
) -> None:
    gots = {
        direction: run(device, xp, arg_desc(cls, dt, (5,), [0], I64, direction), values)[0]
        for direction in (AxisDirection.INCREASING, AxisDirection.DECREASING)
    }  # both run before either is checked (checks_after_runs)
    for direction, want in ((AxisDirection.INCREASING, first), (AxisDirection.DECREASING, last)):
        got = gots[direction]
        assert int(got[0]) == want, (cls.__name__, direction.name, values, got)


def test_reduce_argmax_function_nan_first(device: gpuops.Device, xp: Any) -> None:
    desc = reduce_desc(ReduceFunction.ARGMIN, F32, (5,), [0], U32)
    got, _ = run(device, xp, desc, [1.0, NAN, -5.0, NAN, 0.0])
    assert got.tolist() == [1]


@pytest.mark.parametrize("dt", [F32, F16, F64])
def test_log_sum_exp_special_values(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    rows = [
        ([-INF, -INF, -INF], -INF),
        ([1.0, INF, -2.0], INF),
        ([-INF, INF, -INF], INF),
        ([INF, INF, 0.0], INF),
        ([1.0, NAN, 2.0], NAN),
        ([-INF, NAN, -INF], NAN),
        ([-INF, 0.0, -INF], 0.0),
    ]
    x = np.array([r for r, _ in rows])
    got, _ = run(device, xp, reduce_desc(ReduceFunction.LOG_SUM_EXP, dt, x.shape, [1]), x)
    for (vals, want), g in zip(rows, got[:, 0], strict=True):
        if math.isnan(want):
            assert np.isnan(g), (vals, g)
        else:
            assert g == want, (vals, g)


@pytest.mark.parametrize(("dt", "big"), [(F32, 80.0), (F32, 1000.0), (F16, 15.0), (F64, 700.0)])
def test_log_sum_exp_large_inputs_finite(device: gpuops.Device, xp: Any, dt: DataType, big: float) -> None:
    # exp(big) alone overflows the accumulator (or the 16-bit type); the result must not.
    x = np.array([[big, big, big - 1.0, big - 40.0]])
    got, _ = run(device, xp, reduce_desc(ReduceFunction.LOG_SUM_EXP, dt, x.shape, [1]), x)
    want = big + math.log(2.0 + math.exp(-1.0) + math.exp(-40.0))
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got.astype(np.float64)[0, 0], want, rtol=4 * float(np.finfo(dt.numpy_dtype).eps))


@pytest.mark.parametrize("dt", [F32, F16, F64])
def test_log_sum_zero_and_negative(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    x = np.array([[0.0, 0.0], [1.0, -1.0], [-1.0, -2.0], [-0.0, -0.0], [2.0, 0.5]])
    got, _ = run(device, xp, reduce_desc(ReduceFunction.LOG_SUM, dt, x.shape, [1]), x)
    g = got[:, 0]
    assert g[0] == -INF and g[1] == -INF and g[3] == -INF, g
    assert np.isnan(g[2]), g
    np.testing.assert_allclose(float(g[4]), math.log(2.5), rtol=2 * float(np.finfo(dt.numpy_dtype).eps))


@pytest.mark.parametrize("dt", [F32, F16, F64])
def test_max_of_all_minus_inf(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    x = np.full((2, 3), -INF)
    got, _ = run(device, xp, reduce_desc(ReduceFunction.MAX, dt, (2, 3), [0, 1]), x)
    assert got.tolist() == [[-INF]]
    got, _ = run(device, xp, reduce_desc(ReduceFunction.MIN, dt, (2, 3), [1]), -x)
    assert got.tolist() == [[INF], [INF]]
    got, _ = run(device, xp, reduce_desc(ReduceFunction.MIN, dt, (2, 3), [1]), x)
    assert got.tolist() == [[-INF], [-INF]]


@pytest.mark.parametrize("dt", [I8, I16, I32, I64, U8, U16, U32, U64])
def test_max_min_of_integer_extremes(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    info = np.iinfo(dt.numpy_dtype)
    lo, hi = int(info.min), int(info.max)
    x = np.array([[lo, lo, lo], [hi, hi, hi], [lo, hi, lo]], dtype=dt.numpy_dtype)
    got_max, _ = run(device, xp, reduce_desc(ReduceFunction.MAX, dt, (3, 3), [1]), x)
    got_min, _ = run(device, xp, reduce_desc(ReduceFunction.MIN, dt, (3, 3), [1]), x)
    got_all, _ = run(
        device, xp, reduce_desc(ReduceFunction.MAX, dt, (3, 3), [0, 1]), np.full((3, 3), lo, dt.numpy_dtype)
    )
    assert [int(v) for v in got_max[:, 0]] == [lo, hi, hi]
    assert [int(v) for v in got_min[:, 0]] == [lo, hi, lo]
    assert int(got_all[0, 0]) == lo


@pytest.mark.parametrize("dt", [I8, I16, I32, I64])
def test_integer_average_truncates_toward_zero(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    got, _ = run(device, xp, reduce_desc(ReduceFunction.AVERAGE, dt, (2,), [0]), [-7, 0])
    assert int(got[0]) == -3  # -3.5 -> -3, not floor's -4
    x = np.array([[-7, 0, 0], [7, 0, 0], [-8, 1, 0], [5, -1, 0], [-1, -1, 1], [-2, -2, -2]])
    got, _ = run(device, xp, reduce_desc(ReduceFunction.AVERAGE, dt, (6, 3), [1]), x)
    # sums -7, 7, -7, 4, -1, -6 over 3: -2.33, 2.33, -2.33, 1.33, -0.33, -2
    assert [int(v) for v in got[:, 0]] == [-2, 2, -2, 1, 0, -2]


@pytest.mark.parametrize("dt", [U8, U32, U64])
def test_unsigned_average_truncates(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    got, _ = run(device, xp, reduce_desc(ReduceFunction.AVERAGE, dt, (2, 2), [0, 1]), [[7, 0], [0, 0]])
    assert int(got[0, 0]) == 1  # 7 / 4


def test_float_average_is_exact_mean(device: gpuops.Device, xp: Any) -> None:
    got, _ = run(device, xp, reduce_desc(ReduceFunction.AVERAGE, F32, (2,), [0]), [-7.0, 0.0])
    assert got.tolist() == [-3.5]


# ---------------------------------------------------------------------------------------------
# Validation errors


T234 = TensorDesc(F32, (2, 3, 4))


def test_axes_out_of_range() -> None:
    desc = ReduceOperatorDesc(ReduceFunction.SUM, T234, TensorDesc(F32, (2, 3, 4)), axes=(0, 3))
    expect_error(desc, FeatureLevel.FL_6_4, "axes", "REDUCE", "SUM", "(0, 3)", "has 3", "0 to 2")


def test_axes_duplicated() -> None:
    desc = ReduceOperatorDesc(ReduceFunction.MAX, T234, TensorDesc(F32, (2, 1, 4)), axes=(1, 1))
    expect_error(desc, FeatureLevel.FL_6_4, "axes", "REDUCE", "MAX", "(1, 1)", "twice")
    desc = ArgmaxOperatorDesc(T234, TensorDesc(U32, (1, 3, 1)), axes=(0, 2, 0))
    expect_error(desc, FeatureLevel.FL_6_4, "axes", "ARGMAX", "(0, 2, 0)")


def test_axes_empty() -> None:
    desc = ReduceOperatorDesc(ReduceFunction.SUM, T234, T234, axes=())
    expect_error(desc, FeatureLevel.FL_6_4, "axes", "REDUCE", "empty")
    desc = ArgminOperatorDesc(T234, TensorDesc(U32, (2, 3, 4)), axes=[])
    expect_error(desc, FeatureLevel.FL_6_4, "axes", "ARGMIN", "empty")


@pytest.mark.parametrize("axes", [(1.5,), (True,), (0, "1"), (None,), 1])
def test_axes_not_integers(axes: Any) -> None:
    desc = ReduceOperatorDesc(ReduceFunction.SUM, T234, TensorDesc(F32, (2, 1, 4)), axes=axes)
    expect_error(desc, FeatureLevel.FL_6_4, "axes", "REDUCE", "SUM", repr(axes))


def test_axes_numpy_integers_accepted() -> None:
    desc = ReduceOperatorDesc(ReduceFunction.SUM, T234, TensorDesc(F32, (2, 1, 4)), axes=(np.uint32(1),))
    validate(desc, FeatureLevel.FL_6_4)


def test_axes_list_stored_as_tuple() -> None:
    desc = ReduceOperatorDesc(ReduceFunction.SUM, T234, TensorDesc(F32, (1, 1, 4)), axes=[0, 1])
    assert desc.axes == (0, 1) and isinstance(desc.axes, tuple)
    hash(desc)
    arg = ArgmaxOperatorDesc(T234, TensorDesc(U32, (1, 1, 4)), axes=[1, 0])
    assert arg.axes == (1, 0) and isinstance(arg.axes, tuple)
    assert arg.axis_direction == AxisDirection.INCREASING  # DirectML's default


def test_output_rank_differs() -> None:
    desc = ReduceOperatorDesc(ReduceFunction.SUM, T234, TensorDesc(F32, (2, 4)), axes=(1,))
    expect_error(desc, FeatureLevel.FL_6_4, "output_tensor.sizes", "REDUCE", "SUM", "(2, 4)", "2 dimensions")
    desc = ArgmaxOperatorDesc(T234, TensorDesc(U32, (1, 1, 1, 1)), axes=(0, 1, 2))
    expect_error(desc, FeatureLevel.FL_6_4, "output_tensor.sizes", "ARGMAX", "(1, 1, 1, 1)")


@pytest.mark.parametrize(
    ("sizes", "bad"),
    [
        ((2, 3, 4), "(2, 3, 4)"),  # reduced axis 1 kept its size
        ((2, 2, 4), "(2, 2, 4)"),
        ((2, 1, 3), "(2, 1, 3)"),  # a kept axis differs
        ((1, 1, 4), "(1, 1, 4)"),  # an unreduced axis set to 1
    ],
)
def test_output_sizes_wrong(sizes: tuple[int, ...], bad: str) -> None:
    desc = ReduceOperatorDesc(ReduceFunction.L2, T234, TensorDesc(F32, sizes), axes=(1,))
    msg = expect_error(desc, FeatureLevel.FL_6_4, "output_tensor.sizes", "REDUCE", "L2", bad)
    assert "(2, 1, 4)" in msg  # what they should be


@pytest.mark.parametrize("function", [12, -1, "SUM", None, True, 10.5])
def test_function_not_a_reduce_function(function: Any) -> None:
    desc = ReduceOperatorDesc(function, T234, TensorDesc(F32, (2, 1, 4)), axes=(1,))
    expect_error(desc, FeatureLevel.FL_6_4, "function", "REDUCE", "ReduceFunction", repr(function))


def test_function_as_plain_int_accepted() -> None:
    validate(ReduceOperatorDesc(10, T234, TensorDesc(F32, (2, 1, 4)), axes=(1,)), FeatureLevel.FL_6_4)


@pytest.mark.parametrize("direction", [2, -1, "DECREASING", None, True])
@pytest.mark.parametrize("cls", [ArgmaxOperatorDesc, ArgminOperatorDesc])
def test_axis_direction_invalid(direction: Any, cls: type) -> None:
    desc = cls(T234, TensorDesc(U32, (2, 1, 4)), axes=(1,), axis_direction=direction)
    name = "ARGMAX" if cls is ArgmaxOperatorDesc else "ARGMIN"
    expect_error(desc, FeatureLevel.FL_6_4, "axis_direction", name, "AxisDirection", repr(direction))


def test_l1_int32_needs_fl_5_0() -> None:
    desc = reduce_desc(ReduceFunction.L1, I32, (2, 3), [1])
    expect_error(desc, FeatureLevel.FL_3_0, "input_tensor.data_type", "REDUCE", "L1", "INT32", "needs FL_5_0 or later")
    expect_error(desc, FeatureLevel.FL_4_1, "input_tensor.data_type", "INT32", "needs FL_5_0 or later")
    validate(desc, FeatureLevel.FL_5_0)


def test_sum_int32_needs_fl_2_1() -> None:
    desc = reduce_desc(ReduceFunction.SUM, I32, (1, 1, 2, 3), [3])
    expect_error(desc, FeatureLevel.FL_1_0, "input_tensor.data_type", "SUM", "INT32", "needs FL_2_1 or later")
    validate(desc, FeatureLevel.FL_2_1)


def test_sum_3d_needs_fl_3_0() -> None:
    desc = reduce_desc(ReduceFunction.SUM, F32, (2, 3, 4), [2])
    expect_error(
        desc, FeatureLevel.FL_2_1, "input_tensor.sizes", "REDUCE", "SUM", "3 dimensions", "needs FL_3_0 or later"
    )
    validate(desc, FeatureLevel.FL_3_0)
    validate(reduce_desc(ReduceFunction.SUM, F32, (1, 2, 3, 4), [2]), FeatureLevel.FL_1_0)


def test_nine_dims_never() -> None:
    desc = reduce_desc(ReduceFunction.SUM, F32, (1,) * 9, [0])
    expect_error(desc, FeatureLevel.FL_6_4, "input_tensor.sizes", "9 dimensions", "not accepted at any feature level")


def test_reduce_sum_output_type_must_match() -> None:
    desc = reduce_desc(ReduceFunction.SUM, F32, (2, 3), [1], F16)
    expect_error(desc, FeatureLevel.FL_6_4, "output_tensor.data_type", "SUM", "FLOAT16", "FLOAT32")


def test_reduce_int16_sum_is_extension_only() -> None:
    desc = reduce_desc(ReduceFunction.SUM, I16, (2, 3), [1])
    validate(desc, FeatureLevel.FL_6_4)
    expect_error(desc, FeatureLevel.FL_6_4, "input_tensor.data_type", "INT16", "extension", extensions=False)


def test_bf16_rejected_without_extensions() -> None:
    desc = reduce_desc(ReduceFunction.MAX, BF16, (2, 3), [1])
    validate(desc, FeatureLevel.FL_6_4)
    expect_error(
        desc, FeatureLevel.FL_6_4, "input_tensor.data_type", "BFLOAT16", "extensions turned off", extensions=False
    )


@pytest.mark.parametrize("cls", [ArgmaxOperatorDesc, ArgminOperatorDesc])
@pytest.mark.parametrize("out_dt", [F32, F16, I16, U8])
def test_arg_output_type_rejected(cls: type, out_dt: DataType) -> None:
    desc = arg_desc(cls, F32, (2, 3), [1], out_dt, AxisDirection.INCREASING)
    name = "ARGMAX" if cls is ArgmaxOperatorDesc else "ARGMIN"
    expect_error(desc, FeatureLevel.FL_6_4, "output_tensor.data_type", name, out_dt.name, "not accepted at any")


def test_reduce_argmax_output_float_rejected() -> None:
    desc = reduce_desc(ReduceFunction.ARGMAX, F32, (2, 3), [1], F32)
    expect_error(desc, FeatureLevel.FL_6_4, "output_tensor.data_type", "REDUCE", "ARGMAX", "FLOAT32")


def test_reduce_argmax_int64_output_needs_fl_3_0() -> None:
    desc = reduce_desc(ReduceFunction.ARGMAX, F32, (1, 1, 2, 3), [3], I64)
    expect_error(desc, FeatureLevel.FL_2_1, "output_tensor.data_type", "INT64", "needs FL_3_0 or later")
    validate(desc, FeatureLevel.FL_3_0)
    validate(reduce_desc(ReduceFunction.ARGMAX, F32, (1, 1, 2, 3), [3], U32), FeatureLevel.FL_1_0)


@pytest.mark.parametrize("at", [FeatureLevel.FL_1_0, FeatureLevel.FL_2_0, FeatureLevel.FL_2_1])
@pytest.mark.parametrize("cls", [ArgmaxOperatorDesc, ArgminOperatorDesc])
def test_arg_operator_not_available_before_fl_3_0(cls: type, at: FeatureLevel) -> None:
    desc = arg_desc(cls, F32, (1, 1, 2, 3), [3], U32, AxisDirection.INCREASING)
    name = "ARGMAX" if cls is ArgmaxOperatorDesc else "ARGMIN"
    expect_error(desc, at, "operator_type", name, "not available", at.name, "introduced at FL_3_0")
    validate(desc, FeatureLevel.FL_3_0)


def test_arg_int64_input_needs_fl_4_1() -> None:
    desc = arg_desc(ArgmaxOperatorDesc, I64, (2, 3), [1], U32, AxisDirection.INCREASING)
    expect_error(desc, FeatureLevel.FL_3_0, "input_tensor.data_type", "ARGMAX", "INT64", "needs FL_4_1 or later")
    validate(desc, FeatureLevel.FL_4_1)


def test_device_level_applies(backend: str) -> None:
    dev = gpuops.Device(backend, max_feature_level=FeatureLevel.FL_2_1)
    with pytest.raises(DescriptorError) as info:
        dev.create_operator(arg_desc(ArgmaxOperatorDesc, F32, (1, 1, 2, 3), [3], U32, AxisDirection.INCREASING))
    assert info.value.field == "operator_type"


# ---------------------------------------------------------------------------------------------
# Binding: no in-place reductions


@pytest.mark.parametrize("same_desc", [False, True])
def test_output_on_input_buffer_rejected(device: gpuops.Device, xp: Any, same_desc: bool) -> None:
    sizes = (2, 3)
    if same_desc:
        # MAX over an axis of size 1: the output TensorDesc equals the input's, still not in place.
        sizes = (2, 1)
    desc = reduce_desc(ReduceFunction.MAX, F32, sizes, [1])
    op = device.compile_operator(device.create_operator(desc))
    host = np.arange(1, 1 + math.prod(sizes), dtype=np.float32)
    buf = to_backend(xp, host.copy())
    with pytest.raises(gpuops.BindingError, match="REDUCE.*in place"):
        op.execute([buf], [buf])
    np.testing.assert_array_equal(to_host(buf), host)  # nothing written


def test_arg_output_on_input_buffer_rejected(device: gpuops.Device, xp: Any) -> None:
    desc = arg_desc(ArgmaxOperatorDesc, I32, (2, 3), [1], I32, AxisDirection.INCREASING)
    op = device.compile_operator(device.create_operator(desc))
    host = np.array([5, 1, 2, 0, 9, 3], dtype=np.int32)
    buf = to_backend(xp, host.copy())
    with pytest.raises(gpuops.BindingError, match="ARGMAX"):
        op.execute([buf], [buf])
    np.testing.assert_array_equal(to_host(buf), host)


# ---------------------------------------------------------------------------------------------
# The kernel cache and the kernel source


def test_one_kernel_for_axes_and_shapes(device: gpuops.Device) -> None:
    """A reduction's kernel is keyed by the operator, not by its shapes or axes: the operators of one launch path
    (one contiguous span per output: the GPU's rows kernel; non-adjacent axes: CuPy's ReductionKernel) build at
    most one kernel among them, whatever the tests before this one built."""
    groups = (((4, 5), [1]), ((9,), [0]), ((2, 3, 4), [1, 2])), (((3, 2, 7), [0, 2]), ((5, 2, 4), [2, 0]))
    firsts = []
    for group in groups:
        before = gpuops.build_count()
        ops = [
            device.compile_operator(device.create_operator(reduce_desc(ReduceFunction.SUM_SQUARE, U32, sizes, axes)))
            for sizes, axes in group
        ]
        assert gpuops.build_count() - before <= 1, group
        assert len({op.launch_path for op in ops}) == 1, group
        assert len({op.kernel_name for op in ops}) == len({op.kernel_source for op in ops}) == 1, group
        firsts.append(ops[0])
    # Another function or direction is another kernel, on the same launch path as the first group.
    d = device.compile_operator(
        device.create_operator(arg_desc(ArgminOperatorDesc, U32, (4, 5), [1], I32, AxisDirection.DECREASING))
    )
    assert d.launch_path == firsts[0].launch_path
    assert d.kernel_name != firsts[0].kernel_name


def test_cached_kernel_runs_each_shape(device: gpuops.Device, xp: Any) -> None:
    x = np.arange(24).reshape(2, 3, 4) - 10
    with checks_after_runs() as check:
        for axes in ([0], [1, 2], [0, 2], [0, 1, 2]):
            got, _ = run(device, xp, reduce_desc(ReduceFunction.SUM_SQUARE, I64, (2, 3, 4), axes), x)
            check(np.testing.assert_array_equal, got, np.sum(x * x, axis=tuple(axes), keepdims=True))


def _source_line(source: str, part: str) -> str:
    for line in source.splitlines():
        if line.startswith(f"// {part}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {part} line in\n{source}")


def test_kernel_source_shows_reduction_parts(device: gpuops.Device) -> None:
    op = device.compile_operator(device.create_operator(reduce_desc(ReduceFunction.MAX, F16, (4, 5), [1])))
    src = op.kernel_source
    assert "ReductionKernel" in src
    assert "max" in _source_line(src, "reduce_expr")
    assert "lowest" in _source_line(src, "identity")  # -inf, not the lowest finite value
    assert _source_line(src, "reduce_type") == "float"  # float16 accumulates in float32
    assert "input" in _source_line(src, "map_expr")
    assert "output" in _source_line(src, "post_map")
    op = device.compile_operator(
        device.create_operator(arg_desc(ArgmaxOperatorDesc, F32, (4, 5), [1], I64, AxisDirection.DECREASING))
    )
    src = op.kernel_source
    assert "_J" in _source_line(src, "map_expr")  # the index over the reduced axes
    assert "true" in _source_line(src, "reduce_expr")  # last on ties
    assert _source_line(src, "identity")
    op = device.compile_operator(device.create_operator(reduce_desc(ReduceFunction.SUM, I32, (4, 5), [1])))
    src = op.kernel_source
    assert "a + b" in _source_line(src, "reduce_expr")
    assert "0" in _source_line(src, "identity")
    assert _source_line(src, "reduce_type") == "unsigned long long"  # integers accumulate in 64 bits
