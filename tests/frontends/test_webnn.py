"""gpuops.webnn: WebNN's MLGraphBuilder over GraphBuilder / compile_graph, on NumPy and on the GPU backend
(the CUDA emulator where there is no GPU).

References are float64 NumPy of WebNN's formulas (the specification's "Compute ..." text), rounded to the
operand's type; integer results are exact. Where WebNN and DirectML differ, one test each shows that the
front-end follows WebNN (clamp bounds, ``axes: []``, 0-D operands, softmax's axis, argMax ties, hardSwish,
block-wise quantization, broadcasting of intermediates).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import to_host

import gpuops
from gpuops import webnn

F32 = np.float32
RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float16): 2e-3}
ATOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float16): 1e-3}


def compute(device: gpuops.Device, fn: Callable[..., Any], **inputs: np.ndarray) -> dict[str, np.ndarray]:
    """Build ``fn(builder, *inputs)`` (an operand, or a dict of named ones) over inputs of these arrays' types
    and shapes, run it on ``device`` and return the results on the host."""
    b = webnn.MLGraphBuilder(device)
    ops = [b.input(n, {"dataType": str(a.dtype), "shape": list(a.shape)}) for n, a in inputs.items()]
    out = fn(b, *ops)
    graph = b.build(out if isinstance(out, dict) else {"out": out})
    xp = device.backend_impl.xp
    got = graph.compute({n: a if xp is np else xp.asarray(a) for n, a in inputs.items()})
    return {n: to_host(v) for n, v in got.items()}


def check(got: np.ndarray, want: Any, dtype: Any) -> None:
    """``got`` of ``dtype`` and ``want``'s shape, equal (integers) or close to the float64 reference."""
    dt = np.dtype(dtype)
    want = np.asarray(want)
    assert got.dtype == dt and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    if dt.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=RTOL[dt], atol=ATOL[dt], equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want.astype(dt))


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x)


X = np.array([[-2.5, -1.0, -0.25, 0.0], [0.5, 1.0, 1.5, 3.0]])  # float64 values exactly representable in float32
POS = np.array([[0.25, 0.5, 1.0, 2.0], [3.0, 4.5, 7.0, 9.0]])

UNARY: dict[str, tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]] = {
    "abs": (X, np.abs),
    "ceil": (X, np.ceil),
    "floor": (X, np.floor),
    "roundEven": (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, 3.7]), np.round),  # np.round: halves to even
    "exp": (X, np.exp),
    "log": (POS, np.log),
    "neg": (X, np.negative),
    "sqrt": (POS, np.sqrt),
    "sin": (X, np.sin),
    "cos": (X, np.cos),
    "tan": (X / 3, np.tan),
    "erf": (X, _erf),
    "reciprocal": (POS, lambda x: 1 / x),
    "sign": (X, np.sign),
    "identity": (X, lambda x: x),
    "relu": (X, lambda x: np.maximum(x, 0)),
    "sigmoid": (X, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (X, np.tanh),
    "softsign": (X, lambda x: x / (1 + np.abs(x))),
    "softplus": (X, lambda x: np.log1p(np.exp(x))),
    "gelu": (X, lambda x: x * (1 + _erf(x / math.sqrt(2))) / 2),
    "hardSwish": (X, lambda x: x * np.clip(x + 3, 0, 6) / 6),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32(device: gpuops.Device, name: str) -> None:
    x, ref = UNARY[name]
    got = compute(device, lambda b, x: getattr(b, name)(x), x=x.astype(F32))["out"]
    check(got, ref(x.astype(F32).astype(np.float64)), F32)


@pytest.mark.parametrize(
    ("name", "options", "ref"),
    [
        ("elu", {}, lambda x: np.where(x >= 0, x, np.expm1(x))),
        ("elu", {"alpha": 0.5}, lambda x: np.where(x >= 0, x, 0.5 * np.expm1(x))),
        ("leakyRelu", {}, lambda x: np.where(x >= 0, x, 0.01 * x)),
        ("leakyRelu", {"alpha": 0.25}, lambda x: np.where(x >= 0, x, 0.25 * x)),
        ("hardSigmoid", {}, lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
        ("hardSigmoid", {"alpha": 0.5, "beta": 0.25}, lambda x: np.clip(0.5 * x + 0.25, 0, 1)),
        ("linear", {}, lambda x: x),
        ("linear", {"alpha": 2.0, "beta": -1.0}, lambda x: 2 * x - 1),
        ("clamp", {"minValue": -1.0, "maxValue": 1.5}, lambda x: np.clip(x, -1, 1.5)),
        ("clamp", {"minValue": 0.0}, lambda x: np.maximum(x, 0)),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_activation_options(device: gpuops.Device, name: str, options: dict[str, float], ref: Any) -> None:
    got = compute(device, lambda b, x: getattr(b, name)(x, options), x=X.astype(F32))["out"]
    check(got, ref(X), F32)


def test_options_as_keywords(device: gpuops.Device) -> None:
    got = compute(device, lambda b, x: b.leakyRelu(x, alpha=0.25), x=X.astype(F32))["out"]
    check(got, np.where(X >= 0, X, 0.25 * X), F32)


def test_float16(device: gpuops.Device) -> None:
    x = np.float16([0.1, 1.7, 10.0, -3.3])
    got = compute(device, lambda b, x: b.exp(x), x=x)["out"]
    check(got, np.exp(x.astype(np.float64)).astype(np.float16).astype(np.float64), np.float16)


A = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]])
B = np.array([2.0, -0.5, 3.0])  # broadcast along rows

BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "pow": lambda a, b: np.abs(a) ** b,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcast(device: gpuops.Device, name: str) -> None:
    a = np.abs(A) if name == "pow" else A
    got = compute(device, lambda b, x, y: getattr(b, name)(x, y), x=a.astype(F32), y=B.astype(F32))["out"]
    check(got, BINARY[name](a, B), F32)


COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "equal": np.equal,
    "notEqual": np.not_equal,
    "greater": np.greater,
    "greaterOrEqual": np.greater_equal,
    "lesser": np.less,
    "lesserOrEqual": np.less_equal,
}


@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons_give_uint8(device: gpuops.Device, name: str) -> None:
    a = np.array([[1.0, 2.0, np.nan], [3.0, -1.0, 2.0]])
    b = np.array([2.0, 2.0, np.nan])
    got = compute(device, lambda bl, x, y: getattr(bl, name)(x, y), x=a.astype(F32), y=b.astype(F32))["out"]
    check(got, COMPARE[name](a, b), np.uint8)


def test_logical_ops_take_nonzero_as_true(device: gpuops.Device) -> None:
    a, b = np.uint8([0, 0, 2, 255]), np.uint8([0, 7, 0, 1])
    got = compute(
        device,
        lambda bl, x, y: {
            "and": bl.logicalAnd(x, y),
            "or": bl.logicalOr(x, y),
            "xor": bl.logicalXor(x, y),
            "not": bl.logicalNot(x),
        },
        x=a,
        y=b,
    )
    check(got["and"], [0, 0, 0, 1], np.uint8)
    check(got["or"], [0, 1, 1, 1], np.uint8)
    check(got["xor"], [0, 1, 1, 0], np.uint8)
    check(got["not"], [1, 1, 0, 0], np.uint8)


def test_where_broadcasts_all_three(device: gpuops.Device) -> None:
    cond = np.uint8([[1], [0], [3]])  # (3, 1): nonzero is true
    t, f = np.int32([10, 20]), np.int32([[-1, -2]] * 3)
    got = compute(device, lambda b, c, x, y: b.where(c, x, y), c=cond, x=t, y=f)["out"]
    check(got, np.where(cond != 0, t, f), np.int32)


def test_prelu_broadcasts_slope(device: gpuops.Device) -> None:
    x, slope = X.astype(F32), np.float32([0.5, 1.0, 2.0, -1.0])
    got = compute(device, lambda b, x, s: b.prelu(x, s), x=x, s=slope)["out"]
    check(got, np.where(X >= 0, X, slope.astype(np.float64) * X), F32)


def test_cast(device: gpuops.Device) -> None:
    """WebNN leaves out-of-range casts to the implementation: gpuops truncates toward zero and saturates (README
    semantics), NaN to 0."""
    x = np.float32([-1.9, 1.9, 300.5, -300.5, np.nan, 2.5e9])
    got = compute(
        device, lambda b, x: {"i8": b.cast(x, "int8"), "i32": b.cast(x, "int32"), "f16": b.cast(x, "float16")}, x=x
    )
    check(got["i8"], [-1, 1, 127, -128, 0, 127], np.int8)
    check(got["i32"], [-1, 1, 300, -300, 0, 2**31 - 1], np.int32)
    check(got["f16"], [-1.9, 1.9, 300.5, -300.5, np.nan, np.inf], np.float16)  # 2.5e9: beyond float16's range


def test_integer_div_and_pow(device: gpuops.Device) -> None:
    """WebNN leaves integer division open: gpuops truncates toward zero, 0 for a division by zero (README); integer
    pow is exact (3**19 is not a float32) and a negative exponent truncates (2**-1 = 0)."""
    a, b = np.int32([7, -7, 7, 5, 3, 2]), np.int32([2, 2, 0, -5, 19, -1])
    got = compute(device, lambda bl, x, y: {"div": bl.div(x, y), "pow": bl.pow(x, y)}, x=a, y=b)
    check(got["div"], [3, -3, 0, -1, 0, -2], np.int32)
    check(got["pow"], [49, 49, 1, 0, 3**19, 0], np.int32)


def test_max_min_propagate_nan(device: gpuops.Device) -> None:
    a, b = np.float32([np.nan, 1.0, np.nan]), np.float32([1.0, np.nan, np.nan])
    got = compute(device, lambda bl, x, y: {"max": bl.max(x, y), "min": bl.min(x, y)}, x=a, y=b)
    assert np.isnan(got["max"]).all() and np.isnan(got["min"]).all()


R = np.array([[[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], [[2.0, 2.0, -3.0], [1.5, 0.25, 6.0]]])  # (2, 2, 3)
REDUCE: dict[str, Callable[..., np.ndarray]] = {
    "reduceSum": np.sum,
    "reduceMean": np.mean,
    "reduceMax": np.max,
    "reduceMin": np.min,
    "reduceProduct": np.prod,
    "reduceL1": lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims),
    "reduceL2": lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)),
    "reduceLogSum": lambda x, axis, keepdims: np.log(np.sum(np.abs(x), axis=axis, keepdims=keepdims)),
    "reduceLogSumExp": lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
    "reduceSumSquare": lambda x, axis, keepdims: np.sum(x * x, axis=axis, keepdims=keepdims),
}


@pytest.mark.parametrize("keep", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reductions(device: gpuops.Device, name: str, keep: bool) -> None:
    x = np.abs(R) if name == "reduceLogSum" else R
    got = compute(device, lambda b, x: getattr(b, name)(x, {"axes": [0, 2], "keepDimensions": keep}), x=x.astype(F32))
    check(got["out"], REDUCE[name](x, axis=(0, 2), keepdims=keep), F32)


def test_reduction_default_axes_and_integers(device: gpuops.Device) -> None:
    xi = np.int32([[1, -2, 3], [4, 5, -6]])
    got = compute(device, lambda b, x: {"all": b.reduceSum(x), "rows": b.reduceMax(x, axes=[1])}, x=xi)
    check(got["all"], np.sum(xi), np.int32)  # shape (): every axis reduced, dimensions dropped
    check(got["rows"], [3, 5], np.int32)


def test_empty_axes_reduce_nothing(device: gpuops.Device) -> None:
    """WebNN: ``axes: []`` reduces no dimension (each element is its own reduction); DirectML refuses an empty
    axis list."""
    x = np.float32([[-2.0, 0.5], [3.0, -1.0]])
    names = ["reduceSum", "reduceL1", "reduceSumSquare", "reduceMax", "reduceLogSumExp", "reduceMean"]
    got = compute(device, lambda b, x: {n: getattr(b, n)(x, {"axes": []}) for n in names}, x=x)
    x64 = x.astype(np.float64)
    for n, want in zip(names, [x64, np.abs(x64), x64 * x64, x64, x64, x64], strict=True):
        check(got[n], want, F32)


def test_zero_d_operands(device: gpuops.Device) -> None:
    """WebNN allows 0-D operands (DirectML needs one dimension at least): results come back with shape ()."""
    s, v = np.float32(2.5).reshape(()), np.float32([[1.0, -2.0]])

    def fn(b: webnn.MLGraphBuilder, s: webnn.MLOperand, v: webnn.MLOperand) -> dict[str, webnn.MLOperand]:
        c = b.constant("float32", 4.0)  # a scalar constant
        assert s.shape == () and c.shape == ()
        return {"ss": b.mul(s, c), "sv": b.add(s, v), "red": b.reduceSum(s), "rv": b.reduceSum(v)}

    got = compute(device, fn, s=s, v=v)
    check(got["ss"], np.float64(10.0), F32)
    check(got["sv"], [[3.5, 0.5]], F32)
    check(got["red"], np.float64(2.5), F32)
    check(got["rv"], np.float64(-1.0), F32)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_softmax_over_any_axis(device: gpuops.Device, axis: int) -> None:
    got = compute(device, lambda b, x: b.softmax(x, axis), x=R.astype(F32))["out"]
    e = np.exp(R - R.max(axis=axis, keepdims=True))
    check(got, e / e.sum(axis=axis, keepdims=True), F32)


def test_arg_max_min_ties_take_the_first_index(device: gpuops.Device) -> None:
    x = np.float32([[3, 1, 3, 1], [2, 2, 2, 2], [0, 5, 5, 0]])
    got = compute(
        device,
        lambda b, x: {
            "max1": b.argMax(x, 1),
            "min1": b.argMin(x, 1, {"keepDimensions": True, "outputDataType": "int64"}),
            "max0": b.argMax(x, 0),
        },
        x=x,
    )
    check(got["max1"], [0, 0, 1], np.int32)
    check(got["min1"], [[1], [0], [0]], np.int64)
    check(got["max0"], [0, 2, 2, 1], np.int32)


@pytest.mark.parametrize(("exclusive", "reverse"), [(False, False), (True, False), (False, True), (True, True)])
def test_cumulative_sum(device: gpuops.Device, exclusive: bool, reverse: bool) -> None:
    x = np.int32([[1, 2, 3, 4], [10, 20, 30, 40]])
    got = compute(device, lambda b, x: b.cumulativeSum(x, 1, exclusive=exclusive, reversed=reverse), x=x)["out"]
    y = x[:, ::-1] if reverse else x
    want = np.cumsum(y, axis=1) - (y if exclusive else 0)
    check(got, want[:, ::-1] if reverse else want, np.int32)


def test_quantize_dequantize_blocks(device: gpuops.Device) -> None:
    """Scales and zero points broadcast (per tensor, per channel) or cover blocks of the input (each of the 2
    scales here covers 3 of input's 6 columns); quantize rounds halves to even and saturates."""
    x = np.float32([[0.5, 1.5, 2.5, 300.0, -300.0, 7.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    scale = np.float32([[1.0, 2.0]])
    zero = np.uint8([[10, 128]])

    def fn(b: webnn.MLGraphBuilder, x: webnn.MLOperand) -> dict[str, webnn.MLOperand]:
        s = b.constant({"dataType": "float32", "shape": [1, 2]}, scale)
        z = b.constant({"dataType": "uint8", "shape": [1, 2]}, zero)
        q = b.quantizeLinear(x, s, z)
        return {"q": q, "dq": b.dequantizeLinear(q, s, z)}

    got = compute(device, fn, x=x)
    s_full, z_full = np.repeat(scale, 3, axis=1).astype(np.float64), np.repeat(zero, 3, axis=1).astype(np.float64)
    q = np.clip(np.round(x / s_full) + z_full, 0, 255)
    check(got["q"], q, np.uint8)
    check(got["dq"], (q - z_full) * s_full, F32)


def test_hard_swish_constants(device: gpuops.Device) -> None:
    """WebNN's hardSwish is x * max(0, min(6, x + 3)) / 6: DirectML's HARD_SWISH with alpha 1/6, beta 0.5."""
    x = np.float32([-4.0, -3.0, -1.5, 0.0, 1.5, 3.0, 4.0])
    got = compute(device, lambda b, x: b.hardSwish(x), x=x)["out"]
    check(got, [0.0, 0.0, -0.375, 0.0, 1.125, 3.0, 4.0], F32)  # -1.5 * 1.5 / 6, 1.5 * 4.5 / 6


def test_clamp_int32_bounds_are_exact(device: gpuops.Device) -> None:
    """clamp's bounds are of the input's type: 2**31 - 2 is no float32 (CLIP's float32 bounds would round it to
    2**31), so the bounds go through CLIP1 as int32."""
    x = np.int32([-(2**31), 2**31 - 1, 2**31 - 2, 0, -(2**31) + 2])
    got = compute(device, lambda b, x: b.clamp(x, {"minValue": -(2**31) + 1, "maxValue": 2**31 - 2}), x=x)["out"]
    check(got, np.clip(x.astype(np.int64), -(2**31) + 1, 2**31 - 2), np.int32)
    got = compute(device, lambda b, x: b.clamp(x), x=x)["out"]  # no bounds: the whole int32 range
    check(got, x, np.int32)


def test_broadcasting_inputs_and_intermediates(device: gpuops.Device) -> None:
    """NumPy's rules, inputs of different ranks; an intermediate that broadcasts (or changes shape) is stored and
    read by the next compiled graph."""
    a, c = np.float32(np.arange(6).reshape(2, 1, 3)), np.float32([[1], [2], [3], [4]])

    def fn(b: webnn.MLGraphBuilder, a: webnn.MLOperand, c: webnn.MLOperand) -> dict[str, webnn.MLOperand]:
        s = b.add(a, c)  # (2, 4, 3)
        m = b.reduceMean(s, {"axes": [1], "keepDimensions": True})  # (2, 1, 3)
        return {
            "s": s,
            "centered": b.sub(s, m),  # m broadcast along axis 1
            "expand": b.expand(b.relu(m), [2, 2, 3]),
            "reshaped": b.add(b.reshape(m, [6]), b.constant({"dataType": "float32", "shape": [1]}, np.float32([1]))),
        }

    got = compute(device, fn, a=a, c=c)
    s = a.astype(np.float64) + c
    m = s.mean(axis=1, keepdims=True)
    check(got["s"], s, F32)
    check(got["centered"], s - m, F32)
    check(got["expand"], np.broadcast_to(np.maximum(m, 0), (2, 2, 3)), F32)
    check(got["reshaped"], m.reshape(6) + 1, F32)


def test_fused_chain_is_one_kernel() -> None:
    b = webnn.MLGraphBuilder(gpuops.Device("numpy"))
    x = b.input("x", {"dataType": "float32", "shape": [4]})
    graph = b.build({"y": b.relu(b.add(b.mul(x, x), x))})
    assert graph.kernel_count == 1
    check(graph.compute({"x": np.float32([-2, -0.5, 0, 1])})["y"], [2.0, 0.0, 0.0, 2.0], F32)


def test_context_dispatch_writes_outputs(device: gpuops.Device) -> None:
    ctx = webnn.createContext(device)
    b = webnn.MLGraphBuilder(ctx)
    x = b.input("x", webnn.MLOperandDescriptor("int32", (3,)))
    graph = b.build({"y": b.neg(x), "z": b.abs(x)})
    xp = device.backend_impl.xp
    inp = xp.asarray(np.int32([1, -2, 3]))
    y, z = xp.zeros(3, dtype=np.int32), xp.zeros(3, dtype=np.int32)
    ctx.dispatch(graph, {"x": inp}, {"y": y, "z": z})
    check(to_host(y), [-1, 2, -3], np.int32)
    check(to_host(z), [1, 2, 3], np.int32)
    check(to_host(ctx.compute(graph, {"x": inp})["z"]), [1, 2, 3], np.int32)


# -- errors ----------------------------------------------------------------------------------------------------


def _builder() -> tuple[webnn.MLGraphBuilder, webnn.MLOperand]:
    b = webnn.MLGraphBuilder(gpuops.Device("numpy"))
    return b, b.input("x", {"dataType": "float32", "shape": [2, 3]})


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda b, x: b.reduceSum(x, {"axes": [2]}), ValueError, r"webnn\.reduceSum: options\.axes \[2\] holds 2"),
        (lambda b, x: b.reduceSum(x, {"axes": [1, 1]}), ValueError, r"webnn\.reduceSum: options\.axes .* twice"),
        (lambda b, x: b.reduceSum(x, {"axis": [1]}), TypeError, r"webnn\.reduceSum: unknown option 'axis'"),
        (lambda b, x: b.reduceSum(x, keepDimensions=1), TypeError, r"options\.keepDimensions must be a bool"),
        (lambda b, x: b.reduceMean(b.cast(x, "int32")), TypeError, r"webnn\.reduceMean: input is int32"),
        (lambda b, x: b.sqrt(b.cast(x, "int32")), TypeError, r"webnn\.sqrt: input is int32; .* float32, float16"),
        (lambda b, x: b.add(x, b.cast(x, "int32")), TypeError, r"webnn\.add: a is float32 and b is int32"),
        (
            lambda b, x: b.add(x, b.input("y", {"dataType": "float32", "shape": [2]})),
            ValueError,
            r"webnn\.add: shapes \[2, 3\] and \[2\] do not broadcast",
        ),
        (lambda b, x: b.softmax(x, 2), ValueError, r"webnn\.softmax: axis 2 is out of range for input of rank 2"),
        (lambda b, x: b.argMax(x, 0, outputDataType="uint8"), TypeError, r"options\.outputDataType 'uint8'"),
        (lambda b, x: b.clamp(x, minValue=2.0, maxValue=1.0), ValueError, r"minValue 2\.0 is greater than"),
        (lambda b, x: b.clamp(b.cast(x, "int8"), maxValue=300), TypeError, r"options\.maxValue 300 is not a int8"),
        (lambda b, x: b.expand(x, [3, 3]), ValueError, r"webnn\.expand: input of shape \[2, 3\] does not broadcast"),
        (lambda b, x: b.reshape(x, [4]), ValueError, r"webnn\.reshape: newShape \[4\] holds 4 elements"),
        (lambda b, x: b.logicalNot(x), TypeError, r"webnn\.logicalNot: input is float32; .* uint8"),
        (lambda b, x: b.pow(b.cast(x, "int64"), b.cast(x, "int64")), gpuops.UnsupportedError, r"ELEMENT_WISE_POW"),
        (lambda b, x: b.relu(3), TypeError, r"webnn\.relu: input must be an MLOperand"),
        (lambda b, x: b.build({"x": x}), TypeError, r"webnn\.build: outputs\['x'\] is an input"),
        (lambda b, x: b.input("x", {"dataType": "float32"}), ValueError, r"an input named 'x' exists"),
        (lambda b, x: b.input("z", {"dataType": "float32", "shape": [0]}), ValueError, r"shape \[0\]"),
        (lambda b, x: b.input("z", {"dataType": "int4", "shape": [2]}), gpuops.UnsupportedError, r"4-bit"),
        (lambda b, x: b.constant({"dataType": "float32", "shape": [2]}, np.float64([1, 2])), TypeError, r"dtype"),
        (lambda b, x: b.constant({"dataType": "float32", "shape": [3]}, [1.0, 2.0]), ValueError, r"2 elements"),
    ],
)
def test_operand_checks_name_the_method_and_option(call: Any, exc: type[Exception], match: str) -> None:
    b, x = _builder()
    with pytest.raises(exc, match=match):
        call(b, x)


def test_compute_checks_its_inputs() -> None:
    b, x = _builder()
    graph = b.build({"y": b.relu(x)})
    with pytest.raises(ValueError, match=r"webnn\.compute: .*missing \['x'\], unknown \['z'\]"):
        graph.compute({"z": np.zeros((2, 3), F32)})
    with pytest.raises(TypeError, match=r"webnn\.compute: inputs\['x'\] has dtype float64; the input is float32"):
        graph.compute({"x": np.zeros((2, 3))})
    with pytest.raises(ValueError, match=r"inputs\['x'\] has shape \[3, 2\]; the input is \[2, 3\]"):
        graph.compute({"x": np.zeros((3, 2), F32)})
    with pytest.raises(RuntimeError, match=r"webnn\.relu: this MLGraphBuilder has built its graph"):
        b.relu(x)


def test_gpuops_exports_webnn() -> None:
    assert gpuops.webnn is webnn
    assert {"MLGraphBuilder", "MLOperandDescriptor", "MLGraph", "MLContext"} <= set(webnn.__all__)
