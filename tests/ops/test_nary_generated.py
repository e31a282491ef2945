"""Generated tests for every op-table row whose family is not "binary".

Rows x data-type mappings (``dtype_combinations`` at FL 6_4) x layouts x parameter sets x
backends, against the float64/exact references of their OpInfo records (``opinfo.py``); plus ScaleBias
where the row has it, in-place execution where the row allows it, and literal edge cases.
Adding a row costs a reference (and, where the defaults do not fit, data generators,
parameter sets or a tolerance) in its family's reference module; nothing here.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from gpu_grid import with_backends
from helpers import (
    assert_expected,
    buffer_for,
    flush_subnormals,
    flushes_subnormals,
    read_tensor,
    to_backend,
    to_host,
    uint_view,
)
from opinfo import record, records

import gpuops
from descriptors import ROWS, DataType, FeatureLevel, ScaleBias, TensorDesc, desc_class, dtype_combinations
from descriptors.schema import NO_DEFAULT, Family, FieldKind, OpRow

LEVEL = FeatureLevel.FL_6_4
# reduce: test_reduce_generated.py; composite: test_composite_generated.py; scan: test_scan_generated.py
NARY_ROWS = [r for r in ROWS if r.family not in ("binary", "reduce", "composite", "scan")]
ROW = {r.name: r for r in NARY_ROWS}

# (sizes, strides of the first input, strides of the other inputs, strides of the output).
# Other inputs broadcast along the first axis in "bcast" (stride 0), as DirectML callers do.
LAYOUTS: dict[str, tuple[tuple[int, ...], Any, Any, Any]] = {
    "packed1d": ((13,), None, None, None),
    "packed3d": ((2, 3, 4), None, None, None),
    "padded": ((3, 4), (6, 1), (5, 1), (7, 1)),
    "permuted": ((2, 3, 4), (1, 2, 6), None, None),
    "bcast": ((3, 5), (0, 1), (0, 1), None),
}
SCALE_BIAS = (1.5, -0.25)


def seed_of(*parts: object) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def param_values(row: OpRow, overrides: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of the row: the override, else the field's default."""
    out = {}
    for f in row.fields:
        if f.is_param or f.kind.name == "DATA_TYPE":
            if f.name in overrides:
                out[f.name] = overrides[f.name]
            elif f.default is not NO_DEFAULT:
                out[f.name] = f.default
    return out


def inputs_for(row: OpRow, combo: dict[str, DataType], sizes: tuple[int, ...], rng: np.random.Generator) -> list:
    info = record(row.name)
    return [info.generate(i, combo[f.name], sizes, rng) for i, f in enumerate(row.input_fields)]


def run(
    device: Any,
    xp: Any,
    row: OpRow,
    combo: dict[str, DataType],
    layout: str,
    params: dict[str, Any],
    scale_bias: tuple[float, float] | None,
    in_place: bool = False,
) -> None:
    sizes, st_first, st_other, st_out = LAYOUTS[layout]
    in_fields = row.input_fields
    out_role = row.output_fields[0].name
    # A DATA_TYPE parameter (CLIP1's MinMaxDataType) must equal the output's DataType.
    params = {**{f.name: combo[out_role] for f in row.fields if f.kind is FieldKind.DATA_TYPE}, **params}
    descs = {}
    for i, f in enumerate(in_fields):
        descs[f.name] = TensorDesc(combo[f.name], sizes, st_first if i == 0 else st_other)
    descs[out_role] = descs[in_fields[0].name] if in_place else TensorDesc(combo[out_role], sizes, st_out)
    rng = np.random.default_rng(seed_of(row.name, *(d.name for d in combo.values()), layout, sorted(params.items())))
    values = inputs_for(row, combo, sizes, rng)
    # A stride-0 layout reads one row: make the logical values agree with what is stored.
    for i, f in enumerate(in_fields):
        st = descs[f.name].strides
        if st is not None and 0 in st:
            values[i] = np.broadcast_to(values[i][:1], sizes).copy()
    bufs = [buffer_for(descs[f.name], v) for f, v in zip(in_fields, values, strict=True)]
    kwargs: dict[str, Any] = dict(params)
    if scale_bias is not None:
        kwargs["scale_bias"] = ScaleBias(*scale_bias)
    desc = desc_class(row.name)(**descs, **kwargs)
    op = device.compile_operator(device.create_operator(desc))
    dev_ins = [to_backend(xp, b) for b in bufs]
    if in_place:
        dev_out = dev_ins[0]
    else:
        out_buf = buffer_for(descs[out_role], np.zeros(sizes))
        if out_buf.dtype != np.bool_:
            out_buf[...] = np.frombuffer(bytes([0x5A]) * out_buf.nbytes, dtype=out_buf.dtype)
        dev_out = to_backend(xp, out_buf)
    before = [b.copy() for b in bufs]
    op.execute(dev_ins, [dev_out])
    if not in_place:
        for old, new in zip(before, dev_ins, strict=True):
            assert np.array_equal(uint_view(old), uint_view(to_host(new))), "an input buffer was modified"
    got = read_tensor(to_host(dev_out), descs[out_role])
    ref_params = {k: v for k, v in param_values(row, params).items()}
    out_dt = combo[out_role]
    if flushes_subnormals(device) and _flushes_inputs(row.name, out_dt):
        values = [flush_subnormals(v) for v in values]  # CuPy's -ftz=true: float32 subnormal operands read as zeros
    expected = record(row.name).evaluate(values, combo[out_role].numpy_dtype, ref_params, scale_bias, shape=sizes)
    ulps, atol = record(row.name).tol
    if out_dt in (DataType.FLOAT16, DataType.BFLOAT16):
        ulps, atol = max(2.0, ulps / 4), 0.0  # float32 math, rounded once
    assert_expected(
        got, expected, out_dt, ulps, what=f"{row.name} {combo} {layout} {params} sb={scale_bias}", atol=atol
    )


def _combo_id(combo: dict[str, DataType]) -> str:
    return "-".join(dict.fromkeys(dt.name for dt in combo.values()))


def _short(name: str) -> str:
    return name.removeprefix("ELEMENT_WISE_").removeprefix("ACTIVATION_")


CASES = []
SB_CASES = []
IN_PLACE_CASES = []
for _row in NARY_ROWS:
    _combos = dtype_combinations(_row.name, LEVEL)
    for _ci, _combo in enumerate(_combos):
        for _pi, _params in enumerate(record(_row.name).param_sets):
            # Every layout for the first parameter set; packed only for the others.
            for _layout in LAYOUTS if _pi == 0 else ("packed3d",):
                CASES.append(
                    pytest.param(
                        _row.name,
                        _combo,
                        _layout,
                        _params,
                        id=f"{_short(_row.name)}-{_combo_id(_combo)}-{_layout}-p{_pi}",
                    )
                )
        _first = _combo[(_row.input_fields or _row.output_fields)[0].name]  # FILL_VALUE_* read no input
        if _row.has_scale_bias and _first in (DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16):
            SB_CASES.append(pytest.param(_row.name, _combo, id=f"{_short(_row.name)}-{_combo_id(_combo)}"))
        if _row.in_place and _first is _combo[_row.output_fields[0].name]:
            IN_PLACE_CASES.append(pytest.param(_row.name, _combo, id=f"{_short(_row.name)}-{_combo_id(_combo)}"))


def _grid_key(values: Sequence[Any]) -> tuple[str, str, str]:
    """(row, data types, layout and parameter set): ``gpu_grid``'s thinning of the emulator's copy."""
    name, combo, layout, params = values
    return name, _combo_id(combo), f"{layout} {sorted(params.items(), key=repr)!r}"


@pytest.mark.parametrize(("backend", "name", "combo", "layout", "params"), with_backends(CASES, _grid_key))
def test_matches_reference(name: str, combo: dict, layout: str, params: dict, device: Any, xp: Any) -> None:
    run(device, xp, ROW[name], combo, layout, params, None)


@pytest.mark.parametrize(("name", "combo"), SB_CASES)
def test_scale_bias(name: str, combo: dict, device: Any, xp: Any) -> None:
    run(device, xp, ROW[name], combo, "padded", record(name).param_sets[0], SCALE_BIAS)


@pytest.mark.parametrize(("name", "combo"), IN_PLACE_CASES)
def test_in_place(name: str, combo: dict, device: Any, xp: Any) -> None:
    run(device, xp, ROW[name], combo, "padded", record(name).param_sets[0], None, in_place=True)


@pytest.mark.parametrize(("name", "combo"), [p for p in IN_PLACE_CASES if p in SB_CASES])
def test_in_place_scale_bias(name: str, combo: dict, device: Any, xp: Any) -> None:
    """The output is the input's buffer and the input is scaled first (the NumPy backend scales
    into the output chunk itself where one ufunc follows)."""
    run(device, xp, ROW[name], combo, "padded", record(name).param_sets[0], SCALE_BIAS, in_place=True)


EDGE_CASES = [
    pytest.param(name, i, id=f"{_short(name)}-{i}") for name in sorted(ROW) for i in range(len(record(name).edges))
]


# Pure data movement on the GPU: subnormals pass through unflushed (tools/ftz_probe.py: copy, select_keep; IF's
# bfloat16 select kept a subnormal on the H200).
DATA_MOVEMENT = frozenset({"ELEMENT_WISE_IDENTITY", "ACTIVATION_IDENTITY", "ELEMENT_WISE_IF"})


def _flushes_inputs(name: str, out_dt: DataType) -> bool:
    """Whether the GPU flushes this op's float32 subnormal inputs: not for data movement or the BIT_* operators
    (popcount, and, ... of the raw bits: the H200 counts a bfloat16 subnormal's bits), nor for a CAST to
    bfloat16 or float32 (float -> bfloat16 rounds the bits, as tools/ftz_probe.py's to_bf16_bits shows)."""
    if name in DATA_MOVEMENT or name.startswith("ELEMENT_WISE_BIT_"):  # BIT_*: integer ops on the raw bits
        return False
    return not (name == "CAST" and out_dt in (DataType.BFLOAT16, DataType.FLOAT32))


def _flushed_edges(
    desc: Any, descs: dict, out_role: str, row: OpRow, bufs: list, want: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The literal expected values under CuPy's float32 flush-to-zero (``helpers.flushes_subnormals``): where a
    float32/bfloat16 input is subnormal, the NumPy backend's value at that input flushed to a zero of its sign;
    float32/bfloat16 subnormal results flushed to zero (returned as a mask: either zero sign is right there)."""
    flushed = [flush_subnormals(b) for b in bufs]
    hit = np.zeros(len(want), bool)
    for f, b, fb in zip(row.input_fields, bufs, flushed, strict=True):
        hit |= uint_view(read_tensor(b, descs[f.name])) != uint_view(read_tensor(fb, descs[f.name]))
    want = want.copy()
    if hit.any():
        dev = gpuops.Device("numpy")
        ref = buffer_for(descs[out_role], np.zeros(len(want)))
        dev.compile_operator(dev.create_operator(desc)).execute(flushed, [ref])
        want[hit] = read_tensor(ref, descs[out_role])[hit].astype(want.dtype)
    out = want.astype(descs[out_role].data_type.numpy_dtype)
    flushed_out = flush_subnormals(out)
    signless = uint_view(flushed_out) != uint_view(out)
    return flushed_out.astype(want.dtype), signless


@pytest.mark.parametrize(("name", "index"), EDGE_CASES)
def test_edge_values(name: str, index: int, device: Any, xp: Any) -> None:
    """Literal inputs and literal expected values (NaN, infinities, -0.0, extremes)."""
    inputs, params, expected, exact, dtypes = record(name).edges[index]
    row = ROW[name]
    n = len(expected)
    descs = {f.name: TensorDesc(dtypes[f.name], (n,)) for f in row.tensor_fields}
    out_role = row.output_fields[0].name
    desc = desc_class(name)(**descs, **params)
    op = device.compile_operator(device.create_operator(desc))
    bufs = [
        buffer_for(descs[f.name], np.array(v).astype(dtypes[f.name].numpy_dtype))
        for f, v in zip(row.input_fields, inputs, strict=True)
    ]
    out = to_backend(xp, buffer_for(descs[out_role], np.zeros(n)))
    op.execute([to_backend(xp, b) for b in bufs], [out])
    got = read_tensor(to_host(out), descs[out_role])
    want = np.array(expected).astype(dtypes[out_role].numpy_dtype if exact else np.float64)
    signless = np.zeros(n, bool)
    if flushes_subnormals(device) and name not in DATA_MOVEMENT:
        want, signless = _flushed_edges(desc, descs, out_role, row, bufs, want)
    if exact:
        assert np.array_equal(uint_view(got), uint_view(want)), (name, got, want)
        return
    g = got.astype(np.float64)
    for gv, wv, free_sign in zip(g.tolist(), want.tolist(), signless.tolist(), strict=True):
        if free_sign:  # a subnormal result flushed: its zero's sign follows the kernel's intermediate flushes
            assert gv == 0, (name, index, g, want)
        elif math.isnan(wv):
            assert math.isnan(gv), (name, index, g, want)
        elif math.isinf(wv) or wv == 0:
            assert gv == wv and math.copysign(1, gv) == math.copysign(1, wv), (name, index, g, want)
        else:
            assert abs(gv - wv) <= 4 * np.finfo(np.float32).eps * abs(wv) + 1e-30, (name, index, g, want)


def test_every_nary_row_is_in_the_matrix() -> None:
    assert {p.values[0] for p in CASES} == set(ROW)
    nary = {name for name, info in records().items() if info.family is not Family.BINARY}
    assert nary == set(ROW), sorted(nary ^ set(ROW))
