"""ELEMENT_WISE_QUANTIZED_LINEAR_ADD beyond the generated suites.

test_nary_generated runs every data-type mapping (A, B and the output each INT8 or UINT8) on every layout, and
the hand-worked edges of reference_unary (ties to even, saturation at both ends of int8 and uint8, NaN and
infinite scales, a zero output scale, float32 steps without FMA), against the exact reference there. Here: scales
and zero points broadcast per axis and per tensor by zero strides, absent zero points, the feature level and the
type rules of DirectML's table, and the PTX of the kernel (no multiply-add contracted into an FMA).
"""

from __future__ import annotations

import itertools
import zlib
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, to_backend, to_host
from opinfo import record

import gpuops
from descriptors import DataType, DescriptorError, FeatureLevel, TensorDesc, desc_class, row_of

NAME = "ELEMENT_WISE_QUANTIZED_LINEAR_ADD"
QLA = desc_class(NAME)
ROW = row_of(NAME)
ROLES = [f.name for f in ROW.input_fields]
ZERO_POINTS = ("a_zero_point_tensor", "b_zero_point_tensor", "output_zero_point_tensor")
I8, U8, F32 = DataType.INT8, DataType.UINT8, DataType.FLOAT32
SHAPE = (3, 4)


def _types(a: DataType, b: DataType, out: DataType) -> dict[str, DataType]:
    return {
        "a_tensor": a, "a_scale_tensor": F32, "a_zero_point_tensor": a,
        "b_tensor": b, "b_scale_tensor": F32, "b_zero_point_tensor": b,
        "output_scale_tensor": F32, "output_zero_point_tensor": out, "output_tensor": out,
    }  # fmt: skip


def _values(types: dict[str, DataType], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Full-shape logical values from the record's generators (the operator's own test data)."""
    gens = record(NAME).data
    return {role: np.asarray(gen(types[role], SHAPE, rng)) for role, gen in zip(ROLES, gens, strict=True)}


def _run(
    device: gpuops.Device,
    xp: Any,
    types: dict[str, DataType],
    strides: dict[str, tuple[int, ...] | None],
    values: dict[str, np.ndarray],
    absent: tuple[str, ...] = (),
) -> np.ndarray:
    """Execute with each input read through ``strides`` (a zero stride: one value along that axis), the roles in
    ``absent`` left out; the output's logical values."""
    tensors: dict[str, TensorDesc | None] = {
        r: None if r in absent else TensorDesc(types[r], SHAPE, strides.get(r)) for r in ROLES
    }
    out_t = TensorDesc(types["output_tensor"], SHAPE)
    op = device.compile_operator(device.create_operator(QLA(**tensors, output_tensor=out_t)))
    bufs = [None if t is None else to_backend(xp, buffer_for(t, values[r])) for r, t in tensors.items()]
    out = to_backend(xp, buffer_for(out_t, np.zeros(SHAPE), fill=0x5A))
    op.execute(bufs, [out])
    return read_tensor(to_host(out), out_t)


def _expected(types: dict[str, DataType], values: dict[str, np.ndarray], absent: tuple[str, ...] = ()) -> np.ndarray:
    inputs = [None if r in absent else values[r] for r in ROLES]
    return record(NAME).evaluate(inputs, types["output_tensor"].numpy_dtype).values


def _per(axis: int | None, values: np.ndarray) -> np.ndarray:
    """``values`` made constant along ``axis`` (None: one value for the whole tensor), as a zero stride reads it."""
    if axis is None:
        return np.broadcast_to(values.ravel()[:1].reshape(1, 1), SHAPE).copy()
    index = [slice(None), slice(None)]
    index[axis] = slice(0, 1)
    return np.broadcast_to(values[tuple(index)], SHAPE).copy()


# Zero strides: (0, 1) one value per column (per axis 1), (1, 0) one per row (per axis 0), (0, 0) per tensor.
BROADCASTS = {
    "per-tensor": {r: (0, 0) for r in ROLES if r not in ("a_tensor", "b_tensor")},
    "per-column": {r: (0, 1) for r in ROLES if r not in ("a_tensor", "b_tensor")},
    "mixed": {
        "a_scale_tensor": (0, 1), "a_zero_point_tensor": (1, 0), "b_scale_tensor": (1, 0),
        "b_zero_point_tensor": (0, 0), "output_scale_tensor": (0, 1), "output_zero_point_tensor": (1, 0),
    },
}  # fmt: skip


@pytest.mark.parametrize("layout", list(BROADCASTS))
@pytest.mark.parametrize(("a", "b", "out"), [(I8, I8, I8), (U8, I8, U8), (U8, U8, I8)])
def test_scales_and_zero_points_broadcast_by_zero_strides(
    layout: str, a: DataType, b: DataType, out: DataType, device: gpuops.Device, xp: Any
) -> None:
    """DirectML's per-tensor scale and zero point (one element, every stride 0), and per-axis ones: each input
    is read through its own strides, element by element."""
    types = _types(a, b, out)
    strides = BROADCASTS[layout]
    values = _values(types, np.random.default_rng(zlib.crc32(f"{layout}{a.name}{b.name}{out.name}".encode())))
    axis_of = {(0, 0): None, (0, 1): 0, (1, 0): 1}
    for role, st in strides.items():
        values[role] = _per(axis_of[st], values[role])
    got = _run(device, xp, types, strides, values)
    want = _expected(types, values)
    assert got.dtype == want.dtype and np.array_equal(got, want), (layout, got, want)


@pytest.mark.parametrize(
    "absent", [c for k in range(1, 4) for c in itertools.combinations(ZERO_POINTS, k)], ids=lambda c: "+".join(c)
)
def test_an_absent_zero_point_reads_as_zero(absent: tuple[str, ...], device: gpuops.Device, xp: Any) -> None:
    """Each subset of the three optional zero points left out: the same bits as explicit zeros of its type."""
    types = _types(U8, I8, U8)
    values = _values(types, np.random.default_rng(len(absent)))
    got = _run(device, xp, types, {}, values, absent)
    zeros = {**values, **{r: np.zeros(SHAPE, types[r].numpy_dtype) for r in absent}}
    assert np.array_equal(got, _run(device, xp, types, {}, zeros))
    assert np.array_equal(got, _expected(types, values, absent))


def _desc(types: dict[str, DataType], absent: tuple[str, ...] = ()) -> Any:
    return QLA(**{r: None if r in absent else TensorDesc(types[r], (4,)) for r in ROLES},
               output_tensor=TensorDesc(types["output_tensor"], (4,)))  # fmt: skip


def test_introduced_at_4_0_with_optional_zero_points() -> None:
    """DirectML's page: introduced at FL 4_0, one table, the zero points "Optional input" in it."""
    desc = _desc(_types(I8, U8, I8), ZERO_POINTS)
    gpuops.Device("numpy", max_feature_level=FeatureLevel.FL_4_0).create_operator(desc)
    with pytest.raises(DescriptorError, match="FL_4_0"):
        gpuops.Device("numpy", max_feature_level=FeatureLevel.FL_3_1).create_operator(desc)
    tier = ROW.tier_at(FeatureLevel.FL_4_0)
    assert tier is not None and set(tier.optional) == set(ZERO_POINTS)


@pytest.mark.parametrize(
    ("role", "dt", "match"),
    [
        ("a_zero_point_tensor", U8, "a_zero_point_tensor"),  # a zero point has its tensor's type
        ("output_zero_point_tensor", U8, "output_zero_point_tensor"),
        ("b_scale_tensor", DataType.FLOAT16, "b_scale_tensor"),  # scales are FLOAT32 only
        ("a_tensor", DataType.INT16, "a_tensor"),
    ],
)
def test_the_tables_types(role: str, dt: DataType, match: str) -> None:
    types = _types(I8, I8, I8)
    types[role] = dt
    with pytest.raises(DescriptorError, match=match):
        gpuops.Device("numpy").create_operator(_desc(types))


@pytest.mark.nvrtc
def test_no_multiply_add_is_contracted_into_an_fma() -> None:
    """Built as the CuPy backend builds a single operator (NVRTC's default --fmad=true, optimized), the kernel's
    PTX has the two rounded multiplies and the rounded add and no fma; the same expression with plain * and +
    does contract (so the check can fail)."""
    import dataclasses

    from test_nvrtc import _check_nvrtc

    import gpuops.nvrtc as gnvrtc
    from descriptors.schema import Exprs
    from gpuops.codegen import elementwise_kernel_spec

    _check_nvrtc()
    types = _types(I8, U8, I8)
    spec = elementwise_kernel_spec(ROW, types)
    ptx = gnvrtc.compile_source(gnvrtc.batch_source([spec]), "qla.cu")
    assert "fma.rn.f32" not in ptx and ptx.count("mul.rn.f32") >= 2 and "add.rn.f32" in ptx, ptx[-3000:]
    plain = "gpuops_cast_to<O>::from(rintf(((qa - za) * sa + (qb - zb) * sb) / so) + zo)"
    fused_row = dataclasses.replace(ROW, exprs=Exprs(cuda={"float": plain}, numpy=ROW.exprs.numpy))
    ptx = gnvrtc.compile_source(gnvrtc.batch_source([elementwise_kernel_spec(fused_row, types)]), "qla_plain.cu")
    assert "fma.rn.f32" in ptx
