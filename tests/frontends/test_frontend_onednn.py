"""The oneDNN front-end (gpuops/frontends/onednn.py) against the seed (docs/seeds/003, "Eltwise").

Every algorithm, forward and backward: bit for bit against the descriptor the README's mapping
names, built here by hand and run through ``gpuops.Device``; and against the seed's formulas
in float64 within the op table's stated float32 accuracy. Then the data-type paths (f32,
bf16, f16 direct; s32/s8/u8 through f32), in-place and given outputs, errors, return kinds and
``device=``. The seed has no worked numbers (its "Example" section is one sentence naming a
C++ example it does not include); its statements are tested as such (``test_seed_*``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from helpers import checks_after_runs, to_host, uint_view
from reference_backward import FORMULAS as BACKWARD_FORMULAS
from test_backward_formulas import FORWARD as SEED_FORWARD_COLUMN

import gpuops
from descriptors import (
    ActivationBoundedReluOperatorDesc,
    ActivationClipV2OperatorDesc,
    ActivationEluOperatorDesc,
    ActivationGeluOperatorDesc,
    ActivationGeluTanhOperatorDesc,
    ActivationHardSwishOperatorDesc,
    ActivationLeakyReluOperatorDesc,
    ActivationLinearOperatorDesc,
    ActivationLogSigmoidOperatorDesc,
    ActivationMishOperatorDesc,
    ActivationPowOperatorDesc,
    ActivationReluOperatorDesc,
    ActivationSigmoidOperatorDesc,
    ActivationSoftplusOperatorDesc,
    ActivationSquareOperatorDesc,
    ActivationSwishOperatorDesc,
    ActivationTanhOperatorDesc,
    DataType,
    DescriptorError,
    ElementWiseAbsOperatorDesc,
    ElementWiseClipOperatorDesc,
    ElementWiseExpOperatorDesc,
    ElementWiseLogOperatorDesc,
    ElementWiseRoundOperatorDesc,
    ElementWiseSqrtOperatorDesc,
    OperatorDesc,
    RoundingMode,
    TensorDesc,
    desc_class,
    row_of,
)
from gpuops.frontends import onednn
from gpuops.frontends._common import default_device
from gpuops.frontends.onednn import Algorithm, eltwise_backward, eltwise_forward

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
CPU = gpuops.Device("numpy")  # for the argument checks, which take NumPy arrays on any machine

# (algorithm, alpha, beta): every algorithm at least once, alpha/beta where the formula uses them.
CASES: list[tuple[str, float, float]] = [
    ("eltwise_abs", 0.0, 0.0),
    ("eltwise_bounded_relu", 2.5, 0.0),
    ("eltwise_clip", -1.5, 2.0),
    ("eltwise_clip_v2", -1.5, 2.0),
    ("eltwise_clip_v2_use_dst_for_bwd", -1.5, 2.0),
    ("eltwise_elu", 0.75, 0.0),
    ("eltwise_elu_use_dst_for_bwd", 0.75, 0.0),
    ("eltwise_exp", 0.0, 0.0),
    ("eltwise_exp_use_dst_for_bwd", 0.0, 0.0),
    ("eltwise_gelu_erf", 0.0, 0.0),
    ("eltwise_gelu_tanh", 0.0, 0.0),
    ("eltwise_hardswish", 0.0, 0.0),
    ("eltwise_linear", 1.5, -0.25),
    ("eltwise_log", 0.0, 0.0),
    ("eltwise_logistic", 0.0, 0.0),
    ("eltwise_logistic_use_dst_for_bwd", 0.0, 0.0),
    ("eltwise_logsigmoid", 0.0, 0.0),
    ("eltwise_mish", 0.0, 0.0),
    ("eltwise_pow", 2.0, 3.0),
    ("eltwise_pow", 1.5, 0.5),
    ("eltwise_relu", 0.0, 0.0),
    ("eltwise_relu", 0.25, 0.0),
    ("eltwise_relu", -0.5, 0.0),
    ("eltwise_relu_use_dst_for_bwd", 0.25, 0.0),
    ("eltwise_round", 0.0, 0.0),
    ("eltwise_soft_relu", 0.0, 0.0),
    ("eltwise_sqrt", 0.0, 0.0),
    ("eltwise_sqrt_use_dst_for_bwd", 0.0, 0.0),
    ("eltwise_square", 0.0, 0.0),
    ("eltwise_swish", 1.5, 0.0),
    ("eltwise_tanh", 0.0, 0.0),
    ("eltwise_tanh_use_dst_for_bwd", 0.0, 0.0),
]
BACKWARD_CASES = [c for c in CASES if c[0] != "eltwise_round"]


def _id(case: tuple[str, float, float]) -> str:
    alg, a, b = case
    return alg.removeprefix("eltwise_") + (f"-a{a:g}" if a else "") + (f"-b{b:g}" if b else "")


def _base(alg: str) -> str:
    return alg.removeprefix("eltwise_").removesuffix("_use_dst_for_bwd")


def test_cases_cover_every_algorithm() -> None:
    assert {c[0] for c in CASES} == {a.value for a in Algorithm}
    assert len(Algorithm) == 29  # the seed's 22 operations + 7 use_dst_for_bwd forms


# ---------------------------------------------------------------------------------------------
# The README's mapping ("oneDNN eltwise algorithms"), written out by hand, one descriptor each.

Hand = Callable[[TensorDesc, float, float], OperatorDesc]
HAND_FORWARD: dict[str, Hand] = {
    "abs": lambda t, a, b: ElementWiseAbsOperatorDesc(t, t),
    "bounded_relu": lambda t, a, b: ActivationBoundedReluOperatorDesc(t, t, alpha=a),
    "clip": lambda t, a, b: ElementWiseClipOperatorDesc(t, t, min=a, max=b),
    "clip_v2": lambda t, a, b: ActivationClipV2OperatorDesc(t, t, alpha=a, beta=b),
    "elu": lambda t, a, b: ActivationEluOperatorDesc(t, t, alpha=a),
    "exp": lambda t, a, b: ElementWiseExpOperatorDesc(t, t),
    "gelu_erf": lambda t, a, b: ActivationGeluOperatorDesc(t, t),
    "gelu_tanh": lambda t, a, b: ActivationGeluTanhOperatorDesc(t, t),
    "hardswish": lambda t, a, b: ActivationHardSwishOperatorDesc(t, t, alpha=1 / 6, beta=0.5),
    "linear": lambda t, a, b: ActivationLinearOperatorDesc(t, t, alpha=a, beta=b),
    "log": lambda t, a, b: ElementWiseLogOperatorDesc(t, t),
    "logistic": lambda t, a, b: ActivationSigmoidOperatorDesc(t, t),
    "logsigmoid": lambda t, a, b: ActivationLogSigmoidOperatorDesc(t, t),
    "mish": lambda t, a, b: ActivationMishOperatorDesc(t, t),
    "pow": lambda t, a, b: ActivationPowOperatorDesc(t, t, alpha=a, beta=b),
    "relu": lambda t, a, b: (
        ActivationReluOperatorDesc(t, t) if a == 0 else ActivationLeakyReluOperatorDesc(t, t, alpha=a)
    ),
    "round": lambda t, a, b: ElementWiseRoundOperatorDesc(t, t, rounding_mode=RoundingMode.HALVES_TO_NEAREST_EVEN),
    "soft_relu": lambda t, a, b: ActivationSoftplusOperatorDesc(t, t, steepness=1.0),
    "sqrt": lambda t, a, b: ElementWiseSqrtOperatorDesc(t, t),
    "square": lambda t, a, b: ActivationSquareOperatorDesc(t, t),
    "swish": lambda t, a, b: ActivationSwishOperatorDesc(t, t, sigmoid_input_scale=a),
    "tanh": lambda t, a, b: ActivationTanhOperatorDesc(t, t),
}


def hand_backward(alg: str, t: TensorDesc, a: float, b: float) -> OperatorDesc:
    """README: ``ELTWISE_<ALG>[_USE_DST_FOR_BWD]_GRAD`` (input: src or dst; input_gradient: diff_dst)."""
    return desc_class(f"ELTWISE_{alg.removeprefix('eltwise_').upper()}_GRAD")(t, t, t, alpha=a, beta=b)


def direct(device: gpuops.Device, desc: OperatorDesc, inputs: list[Any], xp: Any) -> np.ndarray:
    """Run a descriptor the DirectML way: flat buffers in, a flat buffer out; the host result."""
    out_t = desc.output_tensors[0]
    out = xp.empty(math.prod(out_t.sizes), dtype=out_t.data_type.numpy_dtype)
    op = device.compile_operator(device.create_operator(desc))
    op.execute([xp.ascontiguousarray(x).reshape(-1) for x in inputs], [out])
    return to_host(out).reshape(inputs[0].shape)


# ---------------------------------------------------------------------------------------------
# The seed's forward formulas, literally, in float64 (s = src; alpha, beta as float32 values).

# test_backward_formulas.FORWARD is the seed's forward column; oneDNN's round is the one
# algorithm without a backward, so it is not there.
SEED_FORWARD: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    **SEED_FORWARD_COLUMN,
    "round": lambda s, a, b: np.rint(s),  # oneDNN rounds to nearest even
}
assert set(SEED_FORWARD) == set(HAND_FORWARD) == {_base(a.value) for a in Algorithm}

_EPS32 = float(np.finfo(np.float32).eps)
_TINY32 = float(np.finfo(np.float32).tiny)
# hardswish's alpha is DirectML's FLOAT 1/6, i.e. float32(1/6): s * (s * float32(1/6) + 1/2) is
# s^2 * |float32(1/6) - 1/6| from the seed's exact s * (s + 3) / 6 (several ulps as s + 3 nears 0).
_SIXTH_ERR = abs(float(np.float32(1 / 6)) - 1 / 6)


def _accuracy(row: str) -> tuple[float, float]:
    """The op table's stated float32 accuracy (ulps, atol); rows without one: 4 ulps, as the
    library's own generated tests hold them (tests/ops/test_nary_generated.py)."""
    acc = row_of(row).accuracy
    return (max(acc.ulps, 0.5), acc.atol) if acc is not None else (4.0, 0.0)


def assert_close(got: np.ndarray, want: np.ndarray, ulps: float, atol: Any = 0.0, what: str = "") -> None:
    """float32 ``got`` within ``ulps * eps * |want|`` plus ``atol`` (a number or per element) of float64 ``want``."""
    got64 = np.asarray(got).astype(np.float64)
    assert got64.shape == want.shape
    assert np.array_equal(np.isnan(got64), np.isnan(want)), what
    fin = ~np.isnan(want)
    err = np.abs(got64 - want)[fin]
    tol = (ulps * _EPS32 * np.abs(want) + np.maximum(_TINY32, np.broadcast_to(atol, want.shape)))[fin]
    bad = ~(err <= tol)
    assert not bad.any(), f"{what}: {int(bad.sum())} off, worst {got64[fin][bad][:4]} vs {want[fin][bad][:4]}"


def assert_bits(got: Any, want: Any, what: str = "") -> None:
    g, w = np.asarray(to_host(got)), np.asarray(to_host(want))
    assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
    assert np.array_equal(uint_view(g), uint_view(w)), f"{what}: {g} != {w}"


# ---------------------------------------------------------------------------------------------
# Data: eighths in [-4, 4] (exact in f16/bf16; hits 0, +-3, alpha, beta exactly) plus random
# float32 values; positive for log, sqrt and pow.

_GRID = np.arange(-32, 33, dtype=np.float64) / 8.0


def src_values(alg: str, dtype: np.dtype = F32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if _base(alg) in ("log", "sqrt", "pow"):
        vals = np.concatenate([_GRID[_GRID > 0], rng.uniform(0.01, 4.0, 96)])
    else:
        vals = np.concatenate([_GRID, rng.uniform(-4.0, 4.0, 63)])
    return vals.astype(dtype).reshape(8, 16)


def diff_values(shape: tuple[int, ...], dtype: np.dtype = F32, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2.0, 2.0, shape).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Forward: every algorithm.


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_forward_matches_hand_built_descriptor(case: tuple[str, float, float], device: gpuops.Device, xp: Any) -> None:
    alg, a, b = case
    with checks_after_runs() as check:
        for dtype in (F32, F16, BF16):
            x = xp.asarray(src_values(alg, dtype))
            t = TensorDesc(DataType.from_numpy(dtype), x.shape)
            want = direct(device, HAND_FORWARD[_base(alg)](t, a, b), [x], xp)
            got = eltwise_forward(alg, x, a, b, device=device)
            assert type(got) is type(x)
            check(assert_bits, got, want, f"{alg} {dtype}")
            desc = onednn.forward_desc(alg, DataType.from_numpy(dtype), x.shape, a, b)
            assert desc == HAND_FORWARD[_base(alg)](t, a, b)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_forward_against_seed_formula(case: tuple[str, float, float], device: gpuops.Device, xp: Any) -> None:
    alg, a, b = case
    s = src_values(alg)
    got = to_host(eltwise_forward(alg, xp.asarray(s), a, b, device=device))
    with np.errstate(all="ignore"):
        want = SEED_FORWARD[_base(alg)](s.astype(np.float64), a, b)
    row = type(HAND_FORWARD[_base(alg)](TensorDesc(DataType.FLOAT32, (1,)), a, b)).row.name
    ulps, atol = _accuracy(row)
    if _base(alg) == "hardswish":
        atol = 2 * _SIXTH_ERR * s.astype(np.float64) ** 2
    assert_close(got, want, ulps, atol, alg)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_forward_16_bit_is_the_float32_result_rounded_once(
    case: tuple[str, float, float], device: gpuops.Device, xp: Any
) -> None:
    """bf16 and f16 (the seed: "forward f16 / f16", "f32, bf16 / f32"): computed in float32, rounded once."""
    alg, a, b = case
    for dtype in (F16, BF16):
        x = src_values(alg, dtype)
        r32 = to_host(eltwise_forward(alg, xp.asarray(x.astype(F32)), a, b, device=device))
        got = eltwise_forward(alg, xp.asarray(x), a, b, device=device)
        assert_bits(got, r32.astype(dtype), f"{alg} {dtype}")


# ---------------------------------------------------------------------------------------------
# Backward: every algorithm with one.


def _backward_inputs(alg: str, a: float, b: float, device: gpuops.Device, xp: Any, dtype: np.dtype = F32) -> Any:
    """(diff_dst, data): data is src, or the forward's dst for a use_dst_for_bwd algorithm."""
    s = xp.asarray(src_values(alg, dtype))
    data = eltwise_forward(alg, s, a, b, device=device) if alg.endswith("_use_dst_for_bwd") else s
    return xp.asarray(diff_values(s.shape, dtype)), data


@pytest.mark.parametrize("case", BACKWARD_CASES, ids=_id)
def test_backward_matches_hand_built_descriptor(case: tuple[str, float, float], device: gpuops.Device, xp: Any) -> None:
    alg, a, b = case
    for dtype in (F32, BF16):
        dd, data = _backward_inputs(alg, a, b, device, xp, dtype)
        t = TensorDesc(DataType.from_numpy(dtype), dd.shape)
        want = direct(device, hand_backward(alg, t, a, b), [data, dd], xp)
        got = eltwise_backward(alg, dd, data, a, b, device=device)
        assert type(got) is type(dd)
        assert_bits(got, want, f"{alg} {dtype}")
        assert onednn.backward_desc(alg, DataType.from_numpy(dtype), dd.shape, a, b) == hand_backward(alg, t, a, b)


@pytest.mark.parametrize("case", BACKWARD_CASES, ids=_id)
def test_backward_against_seed_formula(case: tuple[str, float, float], device: gpuops.Device, xp: Any) -> None:
    alg, a, b = case
    dd, data = _backward_inputs(alg, a, b, device, xp)
    got = to_host(eltwise_backward(alg, dd, data, a, b, device=device))
    key = alg.removeprefix("eltwise_")
    with np.errstate(all="ignore"):
        want = BACKWARD_FORMULAS[key](to_host(data).astype(np.float64), to_host(dd).astype(np.float64), a, b)
    ulps, atol = _accuracy(f"ELTWISE_{key.upper()}_GRAD")
    assert_close(got, want, ulps, atol * np.abs(to_host(dd).astype(np.float64)), alg)


# ---------------------------------------------------------------------------------------------
# s32 / s8 / u8: through an f32 intermediate (the seed's "Data Type Support").

INT_DTYPES = [np.dtype(np.int32), np.dtype(np.int8), np.dtype(np.uint8)]


def int_values(dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    vals = [info.min, info.max, 0, 1, 2, 3, 5, 7, 100, info.min + 1, info.max - 1]
    if info.min < 0:
        vals += [-1, -2, -3, -5, -7, -100]
    if dtype == np.int32:
        vals += [16777217, -16777219, 2**30 + 1, 123456789]
    return np.array(vals, dtype=dtype)


def through_f32(r32: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The stated rule: round half to even, saturate to the type's range, NaN -> 0."""
    info = np.iinfo(dtype)
    r = np.rint(r32.astype(np.float64))
    r = np.where(np.isnan(r), 0.0, np.clip(r, info.min, info.max))
    return r.astype(dtype)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_forward_integers_through_f32(
    case: tuple[str, float, float], dtype: np.dtype, device: gpuops.Device, xp: Any
) -> None:
    alg, a, b = case
    x = int_values(dtype)
    r32 = to_host(eltwise_forward(alg, xp.asarray(x.astype(np.float32)), a, b, device=device))
    got = eltwise_forward(alg, xp.asarray(x), a, b, device=device)
    with np.errstate(all="ignore"):
        want = through_f32(r32, dtype)
    assert_bits(got, want, f"{alg} {dtype}")


@pytest.mark.parametrize(
    ("alg", "alpha", "beta", "src", "want"),
    [
        # Conversion out: halves to even (-1.5 -> -2, -0.5 -> 0, 2.5 -> 2), saturated (-64 is in range).
        ("eltwise_relu", 0.5, 0.0, np.array([-3, -1, 5, 100, -128], np.int8), [-2, 0, 5, 100, -64]),
        ("eltwise_linear", 0.5, 0.0, np.array([1, 3, 5, -1, -3], np.int8), [0, 2, 2, 0, -2]),
        ("eltwise_linear", 100.0, 0.0, np.array([-2, 2, 1], np.int8), [-128, 127, 100]),
        # e^1 = 2.718 -> 3, e^5 = 148.41 -> 148, e^100 saturates.
        ("eltwise_exp", 0.0, 0.0, np.array([0, 1, 5, 100], np.uint8), [1, 3, 148, 255]),
        # log(0) = -inf saturates to INT32_MIN; log(-1) = NaN gives 0; log(10) = 2.30 -> 2.
        ("eltwise_log", 0.0, 0.0, np.array([0, -1, 1, 10], np.int32), [-(2**31), 0, 0, 2]),
        # Conversion in: 2**31 - 1 is 2**31 in f32 and saturates back; 16777217 is 16777216 in f32.
        (
            "eltwise_abs",
            0.0,
            0.0,
            np.array([2**31 - 1, -(2**31), 16777217], np.int32),
            [2**31 - 1, 2**31 - 1, 16777216],
        ),
        # s8 abs of -128 is 128 in f32: saturated to 127 (no wrap, unlike ELEMENT_WISE_ABS on INT8).
        ("eltwise_abs", 0.0, 0.0, np.array([-128, -5], np.int8), [127, 5]),
        # sqrt(-4) = NaN gives 0; sqrt(2) = 1.41 -> 1; sqrt(127) = 11.27 -> 11.
        ("eltwise_sqrt", 0.0, 0.0, np.array([-4, 2, 9, 127], np.int8), [0, 1, 3, 11]),
    ],
)
def test_forward_integer_conversion_examples(
    alg: str, alpha: float, beta: float, src: np.ndarray, want: list[int], device: gpuops.Device, xp: Any
) -> None:
    got = to_host(eltwise_forward(alg, xp.asarray(src), alpha, beta, device=device))
    assert got.dtype == src.dtype
    assert got.tolist() == want


def test_forward_integer_in_place_and_given_dst(device: gpuops.Device, xp: Any) -> None:
    x = xp.asarray(np.array([-3, -1, 5, 100], np.int8))
    assert eltwise_forward("eltwise_relu", x, 0.5, dst=x, device=device) is x
    assert to_host(x).tolist() == [-2, 0, 5, 100]
    dst = xp.zeros(4, dtype=np.int8)
    assert eltwise_forward("eltwise_square", x, dst=dst, device=device) is dst
    assert to_host(dst).tolist() == [4, 0, 25, 127]


# ---------------------------------------------------------------------------------------------
# In place, given outputs.


@pytest.mark.parametrize("alg", ["eltwise_relu", "eltwise_tanh", "eltwise_gelu_erf", "eltwise_clip"])
def test_forward_in_place(alg: str, device: gpuops.Device, xp: Any) -> None:
    """dst is src writes into src (TANH and GELU rows do not run in place: through a temporary)."""
    s = src_values(alg)
    want = to_host(eltwise_forward(alg, xp.asarray(s), 0.25, 1.0, device=device))
    x = xp.asarray(s.copy())
    got = eltwise_forward(alg, x, 0.25, 1.0, dst=x, device=device)
    assert got is x
    assert_bits(x, want, alg)


def test_in_place_binds_one_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A C-contiguous dst is src on a row that runs in place: one buffer bound as input and output,
    no temporary; on TANH (no in-place execution in DirectML) a temporary, then a copy."""
    calls: list[tuple[list[Any], Any]] = []
    real_run = onednn.run

    def spy(device: gpuops.Device, desc: OperatorDesc, inputs: list[Any], output: Any) -> None:
        calls.append((inputs, output))
        real_run(device, desc, inputs, output)

    monkeypatch.setattr(onednn, "run", spy)
    dev = gpuops.Device("numpy")
    for alg, in_place in (("eltwise_relu", True), ("eltwise_exp", True), ("eltwise_tanh", False)):
        calls.clear()
        x = src_values(alg).copy()
        eltwise_forward(alg, x, dst=x, device=dev)
        (inputs, output), *_ = calls
        assert (output is x) is in_place and (inputs[0] is x), alg
        dd = diff_values(x.shape)
        calls.clear()
        eltwise_backward(alg, dd, x, diff_src=dd, device=dev)  # every ELTWISE_*_GRAD runs in place
        (inputs, output), *_ = calls
        assert output is dd and inputs[1] is dd, alg


@pytest.mark.parametrize("alg", ["eltwise_relu", "eltwise_tanh_use_dst_for_bwd", "eltwise_gelu_erf", "eltwise_mish"])
def test_backward_in_place(alg: str, device: gpuops.Device, xp: Any) -> None:
    dd, data = _backward_inputs(alg, 0.25, 0.0, device, xp)
    want = to_host(eltwise_backward(alg, dd, data, 0.25, device=device))
    got = eltwise_backward(alg, dd, data, 0.25, diff_src=dd, device=device)
    assert got is dd
    assert_bits(dd, want, alg)


def test_in_place_on_non_contiguous_arrays(device: gpuops.Device, xp: Any) -> None:
    """A strided view is written through a temporary; the elements between stay untouched."""
    base = xp.asarray(np.arange(-24, 24, dtype=np.float32).reshape(6, 8) / 4)
    before = to_host(base).copy()
    view = base[:, ::2]
    want = to_host(eltwise_forward("eltwise_relu", xp.ascontiguousarray(view), 0.5, device=device))
    assert eltwise_forward("eltwise_relu", view, 0.5, dst=view, device=device) is view
    assert_bits(base[:, ::2], want)
    assert_bits(base[:, 1::2], before[:, 1::2])
    before = to_host(base).copy()
    dd = base[::2]
    data = xp.asarray(src_values("eltwise_tanh")[:3, :8])
    want = to_host(eltwise_backward("eltwise_tanh", xp.ascontiguousarray(dd), data, device=device))
    assert eltwise_backward("eltwise_tanh", dd, data, diff_src=dd, device=device) is dd
    assert_bits(base[::2], want)
    assert_bits(base[1::2], before[1::2])


def test_given_dst_and_diff_src(device: gpuops.Device, xp: Any) -> None:
    s = xp.asarray(src_values("eltwise_elu"))
    want = eltwise_forward("eltwise_elu", s, 0.75, device=device)
    dst = xp.full(s.shape, 7.0, dtype=np.float32)
    assert eltwise_forward("eltwise_elu", s, 0.75, dst=dst, device=device) is dst
    assert_bits(dst, want)
    strided = xp.zeros((8, 32), dtype=np.float32)[:, ::2]  # not contiguous: through a temporary
    assert eltwise_forward("eltwise_elu", s, 0.75, dst=strided, device=device) is strided
    assert_bits(strided, want)
    dd = xp.asarray(diff_values(s.shape))
    want_b = eltwise_backward("eltwise_elu", dd, s, 0.75, device=device)
    diff_src = xp.empty_like(dd)
    assert eltwise_backward("eltwise_elu", dd, s, 0.75, diff_src=diff_src, device=device) is diff_src
    assert_bits(diff_src, want_b)
    assert eltwise_backward("eltwise_elu", dd, s, 0.75, diff_src=s, device=device) is s  # overwrites data itself
    assert_bits(s, want_b)


def test_dst_overlapping_src_partially(device: gpuops.Device, xp: Any) -> None:
    """dst one element past src in the same buffer: read all of src first (through a temporary)."""
    buf = xp.asarray(np.arange(-4, 5, dtype=np.float32))
    want = to_host(eltwise_forward("eltwise_linear", buf[:8].copy(), 2.0, 1.0, device=device))
    eltwise_forward("eltwise_linear", buf[:8], 2.0, 1.0, dst=buf[1:], device=device)
    assert to_host(buf)[1:].tolist() == want.tolist()


# ---------------------------------------------------------------------------------------------
# The seed's statements.


def test_seed_alpha_beta_ignored_where_unused(device: gpuops.Device, xp: Any) -> None:
    """ "These parameters are ignored if they are unused" (hardswish takes none either)."""
    for alg in ("eltwise_abs", "eltwise_tanh", "eltwise_hardswish", "eltwise_exp", "eltwise_round"):
        x = xp.asarray(src_values(alg))
        assert_bits(eltwise_forward(alg, x, 3.0, -2.0, device=device), eltwise_forward(alg, x, device=device), alg)


def test_seed_use_dst_for_bwd_forward_is_the_plain_forward(device: gpuops.Device, xp: Any) -> None:
    for alg in Algorithm:
        if alg.use_dst_for_bwd:
            plain = "eltwise_" + alg.base
            x = xp.asarray(src_values(plain))
            assert_bits(
                eltwise_forward(alg, x, 0.5, 1.0, device=device), eltwise_forward(plain, x, 0.5, 1.0, device=device)
            )


@pytest.mark.parametrize("alg", [a for a in Algorithm if a.use_dst_for_bwd], ids=str)
def test_seed_use_dst_for_bwd_can_run_in_place(alg: Algorithm, device: gpuops.Device, xp: Any) -> None:
    """ "Algorithms that use dst for backward can be safely done in-place": forward overwrites src with
    dst, the backward from it agrees with the backward from src (within the two rows' accuracies)."""
    a, b = (-1.5, 2.0) if alg.base == "clip_v2" else (0.75, 0.0)
    s = src_values(alg.value)
    dd = xp.asarray(diff_values(s.shape))
    from_src = to_host(eltwise_backward("eltwise_" + alg.base, dd, xp.asarray(s), a, b, device=device))
    x = xp.asarray(s.copy())
    eltwise_forward(alg, x, a, b, dst=x, device=device)
    got = to_host(eltwise_backward(alg, dd, x, a, b, device=device))
    ulps, atol = _accuracy(f"ELTWISE_{alg.value.removeprefix('eltwise_').upper()}_GRAD")
    # exp/d and sqrt/d carry the forward's rounding (a few ulps) into the gradient; elu's d + alpha cancels.
    assert_close(got, from_src.astype(np.float64), ulps + 8, max(atol, 4e-7) * 4, alg.value)


def test_seed_logsigmoid_is_minus_soft_relu_of_minus_s(device: gpuops.Device, xp: Any) -> None:
    s = src_values("eltwise_logsigmoid")
    got = to_host(eltwise_forward("eltwise_logsigmoid", xp.asarray(s), device=device))
    want = -to_host(eltwise_forward("eltwise_soft_relu", xp.asarray(-s), device=device)).astype(np.float64)
    assert_close(got, want, 8.0, 0.0)


def test_seed_relu_alpha_zero_is_relu_and_nonzero_is_leaky(device: gpuops.Device, xp: Any) -> None:
    """README: relu with alpha 0 is ACTIVATION_RELU; with alpha LEAKY_RELU (only zeros' signs differ)."""
    assert type(onednn.forward_desc("eltwise_relu", DataType.FLOAT32, (2,))) is ActivationReluOperatorDesc
    assert type(onednn.forward_desc("eltwise_relu", DataType.FLOAT32, (2,), -0.0)) is ActivationReluOperatorDesc
    leaky = onednn.forward_desc("eltwise_relu", DataType.FLOAT32, (2,), 0.1)
    assert isinstance(leaky, ActivationLeakyReluOperatorDesc) and leaky.alpha == 0.1
    x = xp.asarray(np.array([-0.0, 0.0, -2.0, 2.0], np.float32))
    assert to_host(eltwise_forward("eltwise_relu", x, device=device)).tolist() == [0.0, 0.0, 0.0, 2.0]
    assert to_host(eltwise_forward("eltwise_relu", x, -0.5, device=device)).tolist() == [-0.0, 0.0, 1.0, 2.0]


def test_seed_forward_training_scenario(device: gpuops.Device, xp: Any) -> None:
    """The seed's example sentence: create and execute an eltwise primitive in forward training
    (no difference from inference); relu, alpha = beta = 0, on an NCHW tensor, then its backward."""
    n, c, h, w = 3, 4, 5, 6
    src = np.cos(np.arange(n * c * h * w, dtype=np.float32) / 10).reshape(n, c, h, w)
    dst = to_host(eltwise_forward(Algorithm.eltwise_relu, xp.asarray(src), 0.0, 0.0, device=device))
    assert dst.shape == (n, c, h, w) and dst.dtype == np.float32
    assert np.array_equal(dst, np.where(src > 0, src, np.float32(0)))
    diff_src = to_host(
        eltwise_backward(Algorithm.eltwise_relu, xp.ones_like(xp.asarray(src)), xp.asarray(src), device=device)
    )
    assert np.array_equal(diff_src, (src > 0).astype(np.float32))


# ---------------------------------------------------------------------------------------------
# Errors.


def test_unknown_algorithm() -> None:
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="unknown oneDNN eltwise algorithm 'eltwise_gelu'.*eltwise_abs"):
        eltwise_forward("eltwise_gelu", x, device=CPU)
    with pytest.raises(ValueError, match="unknown oneDNN eltwise algorithm 'relu'"):
        eltwise_backward("relu", x, x, device=CPU)
    with pytest.raises(TypeError, match="algorithm must be"):
        eltwise_forward(3, x, device=CPU)  # type: ignore[arg-type]


def test_round_has_no_backward() -> None:
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="eltwise_round.*no backward"):
        eltwise_backward("eltwise_round", x, x, device=CPU)
    with pytest.raises(ValueError, match="no backward"):
        onednn.backward_desc(Algorithm.eltwise_round, DataType.FLOAT32, (3,))


@pytest.mark.parametrize("alg", ["eltwise_elu_use_dst_for_bwd", "eltwise_relu_use_dst_for_bwd", "eltwise_bounded_relu"])
def test_alpha_must_be_non_negative(alg: str) -> None:
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match=rf"{alg}.*alpha must be >= 0.*alpha=-0\.5"):
        eltwise_forward(alg, x, -0.5, device=CPU)
    with pytest.raises(ValueError, match=rf"{alg}.*alpha must be >= 0.*alpha=nan"):
        eltwise_forward(alg, x, float("nan"), device=CPU)
    if alg != "eltwise_bounded_relu":
        with pytest.raises(ValueError, match=rf"{alg}.*alpha must be >= 0.*alpha=-0\.5"):
            eltwise_backward(alg, x, x, -0.5, device=CPU)
    eltwise_forward(alg, x, 0.0, device=CPU)  # 0 is allowed
    # The plain forms take any alpha.
    eltwise_forward("eltwise_relu", x, -0.5, device=CPU)
    eltwise_backward("eltwise_elu", x, x, -0.5, device=CPU)


@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.uint16, np.int64, np.uint32, np.bool_])
def test_unsupported_forward_dtypes(dtype: type) -> None:
    x = np.zeros(3, dtype)
    with pytest.raises(TypeError, match=r"eltwise_forward\(eltwise_tanh\): src has dtype .*allowed: f32 .*s32 .*u8"):
        eltwise_forward("eltwise_tanh", x, device=CPU)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int8, np.uint8])
def test_unsupported_backward_dtypes(dtype: type) -> None:
    """Backward is f32 and bf16 only (the seed's table: f16 and integers are forward-only)."""
    x = np.zeros(3, dtype)
    with pytest.raises(TypeError, match=r"eltwise_backward\(eltwise_relu\): diff_dst has dtype .*allowed: f32 .*bf16"):
        eltwise_backward("eltwise_relu", x, x, device=CPU)
    f = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match=r"data \(dst\) has dtype"):
        eltwise_backward("eltwise_relu_use_dst_for_bwd", f, x, device=CPU)


def test_backward_shape_and_dtype_mismatch() -> None:
    dd = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"data \(src\) has shape \(3, 2\), diff_dst \(2, 3\)"):
        eltwise_backward("eltwise_tanh", dd, np.zeros((3, 2), np.float32), device=CPU)
    with pytest.raises(TypeError, match=r"data \(src\) has dtype bfloat16 \(bf16\), diff_dst float32 \(f32\)"):
        eltwise_backward("eltwise_tanh", dd, np.zeros((2, 3), ml_dtypes.bfloat16), device=CPU)


def test_dst_errors() -> None:
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"dst has shape \(3, 2\), src \(2, 3\)"):
        eltwise_forward("eltwise_exp", x, dst=np.zeros((3, 2), np.float32), device=CPU)
    with pytest.raises(TypeError, match=r"dst has dtype float16 \(f16\), src float32 \(f32\)"):
        eltwise_forward("eltwise_exp", x, dst=np.zeros((2, 3), np.float16), device=CPU)
    with pytest.raises(TypeError, match="dst must be an array"):
        eltwise_forward("eltwise_exp", x, dst=[[0.0] * 3] * 2, device=CPU)
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="dst is read-only"):
        eltwise_forward("eltwise_exp", x, dst=ro, device=CPU)
    src_list = [1.0, 2.0]
    with pytest.raises(TypeError, match="in place .* needs an array"):
        eltwise_forward("eltwise_exp", src_list, dst=src_list, device=CPU)
    with pytest.raises(ValueError, match=r"diff_src has shape \(6,\), diff_dst \(2, 3\)"):
        eltwise_backward("eltwise_exp", x, x, diff_src=np.zeros(6, np.float32), device=CPU)
    with pytest.raises(TypeError, match=r"diff_src has dtype bfloat16"):
        eltwise_backward("eltwise_exp", x, x, diff_src=np.zeros((2, 3), ml_dtypes.bfloat16), device=CPU)


def test_parameter_and_device_errors() -> None:
    x = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match="alpha must be a real number"):
        eltwise_forward("eltwise_elu", x, "1", device=CPU)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="beta must be a real number"):
        eltwise_backward("eltwise_linear", x, x, 1.0, True, device=CPU)
    with pytest.raises(TypeError, match="device must be a gpuops.Device"):
        eltwise_forward("eltwise_elu", x, device="numpy")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Return kinds and device=.


def test_return_kinds(device: gpuops.Device, xp: Any) -> None:
    x = xp.asarray(np.array([-1.0, 2.0], np.float32))
    y = eltwise_forward("eltwise_square", x, device=device)
    assert type(y) is type(x) and y.dtype == np.float32 and y is not x
    assert to_host(x).tolist() == [-1.0, 2.0]  # src untouched
    g = eltwise_backward("eltwise_square", x, x, device=device)
    assert type(g) is type(x) and to_host(g).tolist() == [2.0, 8.0]  # dd * 2s
    # 0-d runs as (1,) and comes back 0-d; empty arrays run nothing.
    z = eltwise_forward("eltwise_exp", xp.asarray(np.float32(0.0)), device=device)
    assert z.shape == () and float(to_host(z)) == 1.0
    e = eltwise_forward("eltwise_exp", xp.zeros((0, 3), np.float32), device=device)
    assert e.shape == (0, 3) and e.dtype == np.float32
    e = eltwise_backward("eltwise_exp", xp.zeros((2, 0), np.float32), xp.zeros((2, 0), np.float32), device=device)
    assert e.shape == (2, 0)
    scalar = xp.asarray(np.float32(-2.0))
    assert eltwise_forward("eltwise_abs", scalar, dst=scalar, device=device) is scalar
    assert float(to_host(scalar)) == 2.0


def test_list_of_floats_is_float64_and_rejected() -> None:
    with pytest.raises(TypeError, match="src has dtype float64"):
        eltwise_forward("eltwise_relu", [-1.0, 1.0], device=gpuops.Device("numpy"))


def test_device_argument_is_honoured() -> None:
    x = np.ones(4, np.float32)
    old = gpuops.Device("numpy", max_feature_level="6_1")  # HARD_SWISH is FL 6_2
    with pytest.raises(DescriptorError, match="ACTIVATION_HARD_SWISH"):
        eltwise_forward("eltwise_hardswish", x, device=old)
    dml_only = gpuops.Device("numpy", extensions=False)  # GELU_TANH is a gpuops extension
    with pytest.raises(DescriptorError, match="ACTIVATION_GELU_TANH"):
        eltwise_forward("eltwise_gelu_tanh", x, device=dml_only)
    with pytest.raises(DescriptorError, match="ELTWISE_TANH_GRAD"):
        eltwise_backward("eltwise_tanh", x, x, device=dml_only)
    eltwise_forward("eltwise_tanh", x, device=dml_only)  # a DirectML row: fine


def test_default_device() -> None:
    dev = default_device()
    xp: Any = np
    if dev.backend == "cupy":  # pragma: no cover - on a GPU machine
        import cupy

        xp = cupy
    x = xp.asarray(np.array([-1.0, 0.5], np.float32))
    assert_bits(
        eltwise_forward("eltwise_linear", x, 2.0, 1.0), eltwise_forward("eltwise_linear", x, 2.0, 1.0, device=dev)
    )


def test_host_array_on_gpu_device_or_gpu_array_on_numpy_device(device: gpuops.Device) -> None:
    if device.backend == "numpy":

        class FakeGpu:
            __cuda_array_interface__: dict[str, Any] = {}

        with pytest.raises(TypeError, match="GPU array"):
            eltwise_forward("eltwise_exp", FakeGpu(), device=device)
    else:
        with pytest.raises(TypeError, match="host array"):
            eltwise_forward("eltwise_exp", np.zeros(2, np.float32), device=device)


def test_algorithm_enum_and_strings_agree(device: gpuops.Device, xp: Any) -> None:
    x = xp.asarray(src_values("eltwise_swish"))
    assert_bits(
        eltwise_forward(Algorithm.eltwise_swish, x, 1.5, device=device),
        eltwise_forward("eltwise_swish", x, 1.5, device=device),
    )
    assert Algorithm("eltwise_relu_use_dst_for_bwd").base == "relu"
    assert Algorithm.eltwise_relu_use_dst_for_bwd.use_dst_for_bwd and not Algorithm.eltwise_relu.use_dst_for_bwd
    assert str(Algorithm.eltwise_gelu_erf) == "eltwise_gelu_erf"
