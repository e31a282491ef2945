"""Fused activations: DirectML's ``FusedActivation`` on ELEMENT_WISE_ADD1, gpuops' extension on
the other arithmetic binary operators, one kernel for the pair.

Rules (docs/reference/directml.md 3.1; descriptors/validate.py): only the fusable activations,
with InputTensor = OutputTensor = NULL (None), on a float output; the activation's parameters
obey its own rules (field paths ``fused_activation.<param>``) at the level in force; the host
computes in its compute type (float32 for float16/bfloat16, float64 for FLOAT64) and the
activation runs on that result before the one final rounding. References: act(host(a, b)) with
the activation's float64 reference (tests/reference_activation.py) applied to the host's result
in the compute type.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Any

import dml_activation
import numpy as np
import pytest
from helpers import assert_expected, buffer_for, random_values, read_tensor, run_fresh_python, to_backend, to_host
from opinfo import record
from test_nary_generated import param_values, seed_of

import gpuops
from descriptors import (
    ROWS,
    DataType,
    DescriptorError,
    FeatureLevel,
    TensorDesc,
    desc_class,
    row_of,
    validate,
)
from descriptors.optable import ELEMENTWISE_ROWS
from descriptors.schema import NO_DEFAULT, Family, OpRow

FL = FeatureLevel
F32, F16, BF16, F64 = DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT64
FLOATS = (F32, F16, BF16, F64)
FUSABLE = [r for r in ELEMENTWISE_ROWS if r.fusable]
ADD1 = desc_class("ELEMENT_WISE_ADD1")
SIZES = (3, 7)
T = TensorDesc(F32, SIZES)


def _compute(dt: DataType) -> type:
    return np.float64 if dt is F64 else np.float32


def _param_sets(row: OpRow) -> list[dict[str, Any]]:
    """The defaults (or, where a parameter has none, the record's first set), then one other set."""
    has_all_defaults = all(f.default is not NO_DEFAULT for f in row.param_fields)
    sets = record(row.name).param_sets
    first = {} if has_all_defaults else sets[0]
    others = [p for p in sets if p and p != first]
    return [first, *others[:1]]


def act_desc(name: str, params: dict[str, Any]) -> object:
    return desc_class(name)(**params)


def _act_tolerance(name: str, dt: DataType, extra: float = 0.0) -> float:
    stated = record(name).tolerance
    assert stated is not None, f"{name}'s OpInfo record states no tolerance"
    ulps = stated[0] + extra
    return max(2.0, ulps / 4) if dt in (F16, BF16) else ulps


def _run(
    device: gpuops.Device, xp: Any, desc: object, ins: list[np.ndarray], out_desc: TensorDesc, in_descs: list
) -> np.ndarray:
    op = device.compile_operator(device.create_operator(desc))
    bufs = [to_backend(xp, buffer_for(d, v)) for d, v in zip(in_descs, ins, strict=True)]
    out = to_backend(xp, buffer_for(out_desc, np.zeros(out_desc.sizes)))
    op.execute(bufs, [out])
    return read_tensor(to_host(out), out_desc)


# --- the fusable list and its defaults are DirectML's ------------------------------------------


def test_fusable_rows_are_directmls_list() -> None:
    assert {r.name for r in FUSABLE} == dml_activation.FUSABLE
    for r in FUSABLE:
        assert r.family is Family.ACTIVATION and not r.extension, r.name
        assert all(f.kind.name != "INPUT_TENSOR" or f.name == "input_tensor" for f in r.fields), r.name


@pytest.mark.parametrize("name", sorted(dml_activation.DEFAULTS))
def test_defaults_are_directmlx(name: str) -> None:
    row = row_of(name)
    for field, value in dml_activation.DEFAULTS[name].items():
        assert np.float32(row.field(field).default) == np.float32(value), (name, field)
    # and a descriptor built without parameters carries them
    desc = desc_class(name)(*(T for f in row.tensor_fields if not row.fusable))
    for field, value in dml_activation.DEFAULTS[name].items():
        assert np.float32(getattr(desc, field)) == np.float32(value)


@pytest.mark.parametrize("name", [r.name for r in FUSABLE])
def test_fusable_expression_reads_only_x_T_and_its_own_parameters(name: str) -> None:
    """codegen evaluates a fused activation where x is the host's result and p_<field> its params."""
    row = row_of(name)
    expr = row.exprs.cuda_for("float")
    own = {f.kernel_name for f in row.param_fields}
    names = set(re.findall(r"\b[A-Za-z_]\w*\b", expr))
    params = {n for n in names if n.startswith("p_")}
    assert params == own, (name, params, own)
    assert not names & {"y", "z", "U"}, (name, expr)


# --- ADD1 with every fusable activation, every float type, both backends ------------------------

ADD1_CASES = [
    pytest.param(r.name, dt, p, id=f"{r.name.removeprefix('ACTIVATION_')}-{dt.name}-p{i}")
    for r in FUSABLE
    for i, p in enumerate(_param_sets(r))
    for dt in FLOATS
]


@pytest.mark.parametrize(("name", "dt", "params"), ADD1_CASES)
def test_add1_fused_matches_reference(name: str, dt: DataType, params: dict, device: gpuops.Device, xp: Any) -> None:
    rng = np.random.default_rng(seed_of(name, dt.name, sorted(params.items())))
    t = TensorDesc(dt, SIZES)
    tb = TensorDesc(dt, SIZES, (0, 1))  # b broadcast along the first axis
    a = random_values(dt, SIZES, rng)
    b = np.broadcast_to(random_values(dt, (1, SIZES[1]), rng), SIZES).copy()
    got = _run(device, xp, ADD1(t, tb, t, fused_activation=act_desc(name, params)), [a, b], t, [t, tb])
    ct = _compute(dt)
    host = a.astype(ct) + b.astype(ct)  # the add, in the compute type
    row = row_of(name)
    expected = record(name).evaluate([host], dt.numpy_dtype, param_values(row, params))
    assert_expected(got, expected, dt, _act_tolerance(name, dt), what=f"ADD1+{name} {dt.name} {params}")


def test_add1_fused_at_the_tails() -> None:
    """Sums far out in the activations' tails (float32): no overflow, no cancellation, no NaN."""
    dev = gpuops.Device("numpy")
    a = np.array([-60.0, -30.0, -12.0, -3.5, 0.0, 3.5, 12.0, 30.0, 60.0], np.float32)
    b = np.array([-40.0, -20.0, -1.5, 0.25, -0.0, -0.25, 1.5, 20.0, 40.0], np.float32)
    t = TensorDesc(F32, a.shape)
    for row in FUSABLE:
        params = _param_sets(row)[0]
        got = _run(dev, np, ADD1(t, t, t, fused_activation=act_desc(row.name, params)), [a, b], t, [t, t])
        host = a + b
        expected = record(row.name).evaluate([host], np.dtype(np.float32), param_values(row, params))
        assert_expected(got, expected, F32, _act_tolerance(row.name, F32), what=f"ADD1+{row.name} tails")


# --- the extension: other arithmetic hosts, each with one activation ----------------------------

# host -> (activation, parameters, extra ulps for the host's own rounding error before the activation)
EXTENSION_HOSTS: dict[str, tuple[str, dict[str, Any], float]] = {
    "ELEMENT_WISE_SUBTRACT": ("ACTIVATION_ELU", {}, 0.0),
    "ELEMENT_WISE_MULTIPLY": ("ACTIVATION_LEAKY_RELU", {"alpha": 0.3}, 0.0),
    "ELEMENT_WISE_DIVIDE": ("ACTIVATION_SIGMOID", {}, 0.5),
    "ELEMENT_WISE_MAX": ("ACTIVATION_SOFTPLUS", {"steepness": 2.0}, 0.0),
    "ELEMENT_WISE_POW": ("ACTIVATION_TANH", {}, 4.5),
    "ELEMENT_WISE_MEAN": ("ACTIVATION_GELU", {}, 0.0),
    "ELEMENT_WISE_ATAN_YX": ("ACTIVATION_SCALED_TANH", {}, 3.5),
    "ELEMENT_WISE_FLOOR_DIVIDE": ("ACTIVATION_SHRINK", {"bias": 0.25, "threshold": 1.0}, 0.0),
    "ELEMENT_WISE_MODULUS_FLOOR": ("ACTIVATION_HARD_SIGMOID", {"alpha": 0.3, "beta": -0.1}, 0.0),
    "ELEMENT_WISE_DIFFERENCE_SQUARE": ("ACTIVATION_SOFTSIGN", {}, 0.0),
}


def _host_inputs(host: OpRow, dt: DataType, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    a = random_values(dt, SIZES, rng)
    b = random_values(dt, SIZES, rng)
    if host.name in ("ELEMENT_WISE_DIVIDE", "ELEMENT_WISE_FLOOR_DIVIDE", "ELEMENT_WISE_MODULUS_FLOOR"):
        b = np.where(b == 0, np.asarray(0.375, b.dtype), b)
    if host.name == "ELEMENT_WISE_POW":
        a = np.abs(a)
    return a, b


@pytest.mark.parametrize("dt", [F32, F16, F64], ids=lambda d: d.name)
@pytest.mark.parametrize("host_name", sorted(EXTENSION_HOSTS))
def test_extension_hosts_fused(host_name: str, dt: DataType, device: gpuops.Device, xp: Any) -> None:
    host = row_of(host_name)
    assert host.fused_field is not None, f"{host_name} lost its fused_activation field (ops/binary.py)"
    act, params, extra = EXTENSION_HOSTS[host_name]
    rng = np.random.default_rng(seed_of(host_name, dt.name))
    t = TensorDesc(dt, SIZES)
    a, b = _host_inputs(host, dt, rng)
    in_roles = [f.name for f in host.input_fields]
    desc = desc_class(host_name)(
        **{in_roles[0]: t, in_roles[1]: t, host.output_fields[0].name: t}, fused_activation=act_desc(act, params)
    )
    got = _run(device, xp, desc, [a, b], t, [t, t])
    host64 = record(host_name).evaluate([a, b], np.dtype(np.float64)).values
    host_ct = host64.astype(_compute(dt))  # the host's result in its compute type
    expected = record(act).evaluate([host_ct], dt.numpy_dtype, param_values(row_of(act), params))
    assert_expected(got, expected, dt, _act_tolerance(act, dt, extra), what=f"{host_name}+{act} {dt.name}")


def test_every_arithmetic_binary_host_is_exercised() -> None:
    hosts = {r.name for r in ROWS if r.fused_field is not None and r.fused_field.extension}
    assert set(EXTENSION_HOSTS) - {"ELEMENT_WISE_POW"} <= hosts


# --- in place ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [F32, F16], ids=lambda d: d.name)
def test_add1_fused_in_place(dt: DataType, device: gpuops.Device, xp: Any) -> None:
    """The output is the very buffer of A (identical descriptors): act(a + b) lands in A."""
    rng = np.random.default_rng(7)
    t = TensorDesc(dt, SIZES)
    a = random_values(dt, SIZES, rng)
    b = random_values(dt, SIZES, rng)
    params = {"alpha": 0.3}
    op = device.compile_operator(
        device.create_operator(ADD1(t, t, t, fused_activation=act_desc("ACTIVATION_LEAKY_RELU", params)))
    )
    buf_a = to_backend(xp, buffer_for(t, a))
    buf_b = to_backend(xp, buffer_for(t, b))
    op.execute([buf_a, buf_b], [buf_a])
    got = read_tensor(to_host(buf_a), t)
    host = a.astype(np.float32) + b.astype(np.float32)
    expected = record("ACTIVATION_LEAKY_RELU").evaluate([host], dt.numpy_dtype, params)
    assert_expected(got, expected, dt, _act_tolerance("ACTIVATION_LEAKY_RELU", dt), what="in place")
    assert np.array_equal(read_tensor(to_host(buf_b), t), b), "B was modified"


# --- one kernel: the source holds both expressions, and compiling builds one kernel -------------


@pytest.mark.parametrize("name", [r.name for r in FUSABLE])
def test_kernel_source_holds_host_and_activation(name: str) -> None:
    dev = gpuops.Device("numpy")
    t = TensorDesc(F16, SIZES)
    row = row_of(name)
    params = _param_sets(row)[0]
    compiled = dev.compile_operator(dev.create_operator(ADD1(t, t, t, fused_activation=act_desc(name, params))))
    src = compiled.kernel_source
    assert "x + y" in src, src
    assert row.exprs.cuda_for("float") in src, src
    assert compiled.kernel_name.endswith("_fused_" + name.lower()), compiled.kernel_name
    for f in row.param_fields:  # the activation's parameters are kernel arguments
        assert f"float32 fused_{f.kernel_name}" in src, src
    for helper in row.helpers:  # and its helpers are in the one preamble
        from descriptors.optable import HELPERS

        assert HELPERS[helper].source.strip() in src, helper
    assert src.count("ElementwiseKernel") == 1


_BUILD_SCRIPT = textwrap.dedent(
    """
    import sys
    import gpuops
    from descriptors import DataType, TensorDesc, desc_class
    dev = gpuops.Device(sys.argv[1])
    t = TensorDesc(DataType.FLOAT16, (4, 5))
    add1 = desc_class("ELEMENT_WISE_ADD1")
    leaky = desc_class("ACTIVATION_LEAKY_RELU")
    sigmoid = desc_class("ACTIVATION_SIGMOID")

    def compile_(fused):
        return dev.compile_operator(dev.create_operator(add1(t, t, t, fused_activation=fused)))

    counts = [gpuops.build_count()]
    compile_(leaky(alpha=0.1)); counts.append(gpuops.build_count())   # host + activation: one kernel
    compile_(leaky(alpha=0.2)); counts.append(gpuops.build_count())   # other parameters: the same kernel
    compile_(sigmoid()); counts.append(gpuops.build_count())          # another activation: one more
    compile_(None); counts.append(gpuops.build_count())               # no activation: one more
    print(counts)
    """
)


def test_compiling_a_fused_operator_builds_one_kernel(backend: str) -> None:
    stdout = run_fresh_python(_BUILD_SCRIPT, backend)
    counts = ast.literal_eval(stdout)
    start = counts[0]
    assert counts[1:] == [start + 1, start + 1, start + 2, start + 3], counts


# --- validation -----------------------------------------------------------------------------------


def expect_error(desc: object, level: FeatureLevel, field: str, *parts: str, extensions: bool = True) -> str:
    with pytest.raises(DescriptorError) as info:
        validate(desc, level, extensions=extensions)
    assert info.value.field == field, f"field {info.value.field!r} != {field!r}: {info.value}"
    msg = str(info.value)
    for part in parts:
        assert part in msg, f"{part!r} missing from: {msg}"
    return msg


@pytest.mark.parametrize(
    "fused",
    [
        desc_class("ACTIVATION_SWISH")(T, T),  # not fusable: its tensors are required
        desc_class("ACTIVATION_HARD_SWISH")(T, T),
        desc_class("ACTIVATION_MISH")(T, T),
        desc_class("ACTIVATION_PARAMETERIZED_RELU")(T, T, T),
        desc_class("ELEMENT_WISE_EXP")(T, T),
    ],
    ids=lambda d: type(d).__name__,
)
def test_non_fusable_activation_rejected(fused: object) -> None:
    msg = expect_error(ADD1(T, T, T, fused_activation=fused), FL.FL_6_4, "fused_activation", "fusable activations")
    assert fused.row.name in msg and "ACTIVATION_GELU" in msg  # names what was given and what is allowed


def test_fused_activation_must_be_a_descriptor() -> None:
    expect_error(ADD1(T, T, T, fused_activation="RELU"), FL.FL_6_4, "fused_activation", "str")  # type: ignore[arg-type]


@pytest.mark.parametrize("role", ["input_tensor", "output_tensor"])
def test_fused_activation_with_tensors_rejected(role: str) -> None:
    fused = desc_class("ACTIVATION_SIGMOID")(**{role: T})
    expect_error(ADD1(T, T, T, fused_activation=fused), FL.FL_6_4, f"fused_activation.{role}", "None", "NULL")


def test_fused_activation_needs_a_float_output() -> None:
    ti = TensorDesc(DataType.INT32, SIZES)
    sub = desc_class("ELEMENT_WISE_SUBTRACT")
    relu = desc_class("ACTIVATION_RELU")()
    expect_error(sub(ti, ti, ti, fused_activation=relu), FL.FL_6_4, "fused_activation", "float output", "INT32")
    validate(sub(ti, ti, ti), FL.FL_6_4)  # the same operator without the activation is fine


def test_fused_activation_on_other_hosts_is_an_extension() -> None:
    relu = desc_class("ACTIVATION_RELU")()
    sub = desc_class("ELEMENT_WISE_SUBTRACT")(T, T, T, fused_activation=relu)
    expect_error(sub, FL.FL_6_4, "fused_activation", "extension", extensions=False)
    validate(sub, FL.FL_6_4)  # with extensions
    validate(ADD1(T, T, T, fused_activation=relu), FL.FL_6_4, extensions=False)  # DirectML's own
    dev = gpuops.Device("numpy", extensions=False)
    with pytest.raises(DescriptorError):
        dev.create_operator(sub)
    dev.create_operator(ADD1(T, T, T, fused_activation=relu))


def test_fused_parameter_rules_apply_at_the_level() -> None:
    """SOFTPLUS steepness >= 1 until FL 6_4, inside the fused activation too."""
    soft = desc_class("ACTIVATION_SOFTPLUS")(steepness=0.5)
    desc = ADD1(T, T, T, fused_activation=soft)
    expect_error(desc, FL.FL_6_3, "fused_activation.steepness", "0.5", "steepness >= 1", "FL_6_4")
    validate(desc, FL.FL_6_4)
    validate(ADD1(T, T, T, fused_activation=desc_class("ACTIVATION_SOFTPLUS")(steepness=1.0)), FL.FL_6_3)
    dev = gpuops.Device("numpy", max_feature_level=FL.FL_6_3)
    with pytest.raises(DescriptorError) as info:
        dev.create_operator(desc)
    assert info.value.field == "fused_activation.steepness"


def test_fused_activation_must_exist_at_the_level() -> None:
    gelu = desc_class("ACTIVATION_GELU")()
    desc = ADD1(T, T, T, fused_activation=gelu)
    expect_error(desc, FL.FL_5_0, "fused_activation", "ACTIVATION_GELU", "FL_5_0", "introduced at FL_5_1")
    validate(desc, FL.FL_5_1)
    celu = ADD1(T, T, T, fused_activation=desc_class("ACTIVATION_CELU")())
    expect_error(celu, FL.FL_2_1, "a_tensor.sizes")  # ADD1's own 4-5 dims at 2.x come first
    t4 = TensorDesc(F32, (1, 1, 3, 7))
    expect_error(
        ADD1(t4, t4, t4, fused_activation=desc_class("ACTIVATION_CELU")()),
        FL.FL_2_1,
        "fused_activation",
        "introduced at FL_3_0",
    )


@pytest.mark.parametrize("dt", [F64, BF16], ids=lambda d: d.name)
def test_extension_float_outputs_take_fused_activations(dt: DataType) -> None:
    t = TensorDesc(dt, SIZES)
    desc = ADD1(t, t, t, fused_activation=desc_class("ACTIVATION_TANH")())
    validate(desc, FL.FL_6_4)
    with pytest.raises(DescriptorError):
        validate(desc, FL.FL_6_4, extensions=False)


# --- parameter rules of the activation rows themselves ------------------------------------------


@pytest.mark.parametrize("alpha", [-0.5, float("nan")])
def test_bounded_relu_needs_a_non_negative_alpha(alpha: float) -> None:
    desc = desc_class("ACTIVATION_BOUNDED_RELU")(T, T, alpha=alpha)
    expect_error(desc, FL.FL_6_4, "alpha", "alpha >= 0")
    validate(desc_class("ACTIVATION_BOUNDED_RELU")(T, T, alpha=0.0), FL.FL_6_4)


def test_onednn_rows_are_extensions() -> None:
    for name in ("GELU_TANH", "LOG_SIGMOID", "MISH", "POW", "BOUNDED_RELU", "CLIP_V2", "SQUARE"):
        row = row_of(f"ACTIVATION_{name}")
        assert row.extension and not row.fusable, name
        desc = desc_class(row.name)(T, T, **{f.name: 1.0 for f in row.param_fields})
        validate(desc, FL.FL_6_4)
        expect_error(desc, FL.FL_6_4, "operator_type", "extension", extensions=False)
    # CLIP_V2 takes beta < alpha (no rule: gpuops defines the result, see ops/activation.py)
    validate(desc_class("ACTIVATION_CLIP_V2")(T, T, alpha=2.0, beta=1.0), FL.FL_6_4)


def test_parameters_without_defaults_are_required() -> None:
    for name in ("ACTIVATION_LINEAR", "ACTIVATION_PARAMETRIC_SOFTPLUS"):
        with pytest.raises(TypeError):
            desc_class(name)()
        desc_class(name)(alpha=1.0, beta=0.0)


@pytest.mark.parametrize("n", [1, 7, 8, 31, 64, 100, 1 << 17])
def test_add1_relu_of_negative_zeros_is_positive_zero(device: gpuops.Device, xp: Any, n: int) -> None:
    """(-0.0) + (-0.0) = -0.0, and RELU gives +0.0 for it (DirectML's max(0, x) as the CUDA
    expression has it) at every length: SIMD bodies, their tails and the chunked path."""
    t = TensorDesc(F32, (n,))
    a = np.full(n, -0.0, np.float32)
    a[::3] = -1.0
    a[1::7] = np.nan
    got = _run(device, xp, ADD1(t, t, t, fused_activation=act_desc("ACTIVATION_RELU", {})), [a, a], t, [t, t])
    want = np.where(np.isnan(a), np.float32(np.nan), np.float32(0.0))
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[got == 0]).any(), "RELU left a -0.0"


def test_relu_zero_probe_can_say_no() -> None:
    """The probe that lets RELU be a single np.maximum rejects a maximum that keeps -0.0."""
    from descriptors.ops.activation_numpy import max_zero_gives_positive_zero

    def keeps_negative_zero(x: np.ndarray, *, out: np.ndarray) -> None:
        np.copyto(out, np.where((x >= 0) | np.isnan(x), x, x.dtype.type(0)))  # -0.0 >= 0: kept as -0.0

    def nan_dropping(x: np.ndarray, *, out: np.ndarray) -> None:
        np.fmax(x, x.dtype.type(0), out=out)

    f32 = np.dtype(np.float32)
    assert not max_zero_gives_positive_zero(f32, keeps_negative_zero)
    assert not max_zero_gives_positive_zero(f32, nan_dropping)
