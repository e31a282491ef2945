"""The TensorRT front-end (gpuops.frontends.tensorrt): seed examples, rules, and equivalence with the core.

References, none derived from the front-end under test:

- the seeds' examples verbatim: docs/seeds/000_06f18b225ccba1b8.txt (ElementWise, PROD with
  broadcast) and docs/seeds/002_7f0fd05cb6bc2ed1.txt (Reduce MAX axes=4 keep_dims=True, PROD
  axes=6 keep_dims=False); the inputs are declared trt.float32 there, so they are float32 here;
- the seeds' type tables and shape rules, transcribed below by hand (SEED_T1, SEED_T2, REDUCE_T);
- values computed in float64 NumPy (exact integers and grid floats), with gpuops' documented rules
  where TensorRT's page is silent (README "Semantics": integer DIV truncates, FLOOR_DIV floors,
  integer x / 0 is 0, integer POWER wraps, integer Reduce AVG truncates toward zero);
- direct descriptor calls: the DirectML descriptor built by hand (test's own table EW_DESC and
  bitmask decoding), compiled on a gpuops.Device and executed on flat buffers; the front-end's
  output must match it bit for bit.
"""

from __future__ import annotations

import zlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from conftest import GPU
from helpers import buffer_elements, buffer_for, random_values, read_tensor, to_backend, to_host, uint_view

import gpuops
from descriptors import (
    DataType,
    DescriptorError,
    ElementWiseAddOperatorDesc,
    ElementWiseDivideOperatorDesc,
    ElementWiseFloorDivideOperatorDesc,
    ElementWiseLogicalAndOperatorDesc,
    ElementWiseLogicalEqualsOperatorDesc,
    ElementWiseLogicalGreaterThanOperatorDesc,
    ElementWiseLogicalLessThanOperatorDesc,
    ElementWiseLogicalOrOperatorDesc,
    ElementWiseLogicalXorOperatorDesc,
    ElementWiseMaxOperatorDesc,
    ElementWiseMinOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ElementWisePowOperatorDesc,
    ElementWiseSubtractOperatorDesc,
    OperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)
from gpuops.backends.array_module import array_module
from gpuops.frontends import _common
from gpuops.frontends import tensorrt as trt
from gpuops.frontends.tensorrt import ElementWiseOperation as EWO
from gpuops.frontends.tensorrt import ReduceOperation as RO

SENTINEL = 99

# ---------------------------------------------------------------------------------------------
# The seeds' tables, transcribed by hand.

NP_TYPES: dict[str, np.dtype] = {
    "bool": np.dtype(np.bool_),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
}
_ARITH = "int8 int32 int64 float16 float32 bfloat16"
_CMP = "int32 int64 float16 float32 bfloat16"
SEED_T1: dict[str, str] = {
    "SUM": _ARITH,
    "PROD": _ARITH,
    "MAX": _ARITH,
    "MIN": _ARITH,
    "SUB": _ARITH,
    "DIV": _ARITH,
    "POWER": "int8 float16 float32 bfloat16",
    "FLOOR_DIV": _ARITH,
    "AND": "bool",
    "OR": "bool",
    "XOR": "bool",
    "EQUAL": _CMP,
    "GREATER": _CMP,
    "LESS": _CMP,
}
SEED_T2: dict[str, str] = {
    "AND": "bool",
    "OR": "bool",
    "XOR": "bool",
    "EQUAL": "bool",
    "GREATER": "bool",
    "LESS": "bool",
}
REDUCE_T = "int8 int32 int64 float16 float32 bfloat16"

EW_DESC: dict[str, type[OperatorDesc]] = {
    "SUM": ElementWiseAddOperatorDesc,
    "PROD": ElementWiseMultiplyOperatorDesc,
    "MAX": ElementWiseMaxOperatorDesc,
    "MIN": ElementWiseMinOperatorDesc,
    "SUB": ElementWiseSubtractOperatorDesc,
    "DIV": ElementWiseDivideOperatorDesc,
    "POWER": ElementWisePowOperatorDesc,
    "FLOOR_DIV": ElementWiseFloorDivideOperatorDesc,
    "AND": ElementWiseLogicalAndOperatorDesc,
    "OR": ElementWiseLogicalOrOperatorDesc,
    "XOR": ElementWiseLogicalXorOperatorDesc,
    "EQUAL": ElementWiseLogicalEqualsOperatorDesc,
    "GREATER": ElementWiseLogicalGreaterThanOperatorDesc,
    "LESS": ElementWiseLogicalLessThanOperatorDesc,
}
REDUCE_FN: dict[str, ReduceFunction] = {
    "SUM": ReduceFunction.SUM,
    "PROD": ReduceFunction.MULTIPLY,
    "MAX": ReduceFunction.MAX,
    "MIN": ReduceFunction.MIN,
    "AVG": ReduceFunction.AVERAGE,
}
EW_NAMES = list(SEED_T1)
RO_NAMES = list(REDUCE_FN)


def t1_types(name: str) -> list[str]:
    return SEED_T1[name].split()


def out_type(name: str, t1: str) -> np.dtype:
    return NP_TYPES[SEED_T2.get(name, t1)]


def bitmask_axes(mask: int, rank: int) -> tuple[int, ...]:
    return tuple(i for i in range(rank) if mask >> i & 1)


def on(xp: Any, values: Any, dtype: Any = None) -> Any:
    """``values`` as an array of the backend of ``xp``."""
    return to_backend(xp, np.asarray(values, dtype=dtype))


def host(x: Any) -> np.ndarray:
    return to_host(x)


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.array_equal(uint_view(got), uint_view(want)), f"\n got {got}\nwant {want}"


def value_kinds(name: str, dt: DataType) -> tuple[str, str]:
    """helpers.random_values kinds for (input1, input2) of an operation."""
    if name in ("AND", "OR", "XOR"):
        return "logical", "logical"
    if name == "POWER":
        return "pow_base", "pow_exp"
    if name in ("DIV", "FLOOR_DIV"):
        return "arith", "divisor"
    return "arith", "arith"


def direct(device: gpuops.Device, xp: Any, desc: OperatorDesc, inputs: list[np.ndarray]) -> np.ndarray:
    """Run ``desc`` as a plain descriptor call: flat buffers laid out through its tensors."""
    op = device.compile_operator(device.create_operator(desc))
    bufs = [to_backend(xp, buffer_for(t, v)) for t, v in zip(desc.input_tensors, inputs, strict=True)]  # type: ignore[arg-type]
    tout = desc.output_tensors[0]
    out = to_backend(xp, np.full(buffer_elements(tout), SENTINEL, dtype=tout.data_type.numpy_dtype))
    op.execute(bufs, [out])
    return read_tensor(out, tout)


# ---------------------------------------------------------------------------------------------
# The seeds' examples, verbatim

SEED_REDUCE_INPUT = [
    [
        [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]],
        [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
    ]
]


def test_seed_elementwise_prod_broadcast(device: gpuops.Device, xp: Any) -> None:
    # in1: trt.float32 (2, 3); in2: trt.float32 (1, 3); op PROD.
    in1 = on(xp, [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], np.float32)
    in2 = on(xp, [[4.0, 5.0, 6.0]], np.float32)
    got = trt.elementwise(in1, in2, trt.ElementWiseOperation.PROD, device=device)
    expected = np.array([[-12.0, -10.0, -6.0], [0.0, 5.0, 12.0]])
    assert isinstance(got, xp.ndarray)
    assert got.shape == (2, 3) and got.dtype == np.float32
    assert np.array_equal(host(got), expected)


def test_seed_reduce_max_keep_dims(device: gpuops.Device, xp: Any) -> None:
    in1 = on(xp, SEED_REDUCE_INPUT, np.float32)
    assert in1.shape == (1, 2, 2, 3)
    got = trt.reduce(in1, trt.ReduceOperation.MAX, axes=4, keep_dims=True, device=device)
    expected = np.array(
        [
            [
                [[0.0, 1.0, 2.0]],
                [[6.0, 7.0, 8.0]],
            ]
        ]
    )
    assert got.shape == (1, 2, 1, 3) and got.dtype == np.float32
    assert np.array_equal(host(got), expected)


def test_seed_reduce_prod_no_keep_dims(device: gpuops.Device, xp: Any) -> None:
    in1 = on(xp, SEED_REDUCE_INPUT, np.float32)
    got = trt.reduce(in1, trt.ReduceOperation.PROD, axes=6, keep_dims=False, device=device)
    expected = np.array([[0.0, -56.0, -80.0]])
    assert got.shape == (1, 3) and got.dtype == np.float32
    assert np.array_equal(host(got), expected)  # -3 * 0 * 3 * 6 is -0.0 in IEEE, equal to the seed's 0.0


# ---------------------------------------------------------------------------------------------
# Enums and the bitmask helper


def test_enums() -> None:
    assert [m.name for m in trt.ElementWiseOperation] == EW_NAMES
    assert [m.name for m in trt.ReduceOperation] == RO_NAMES
    assert trt.ElementWiseOperation.POW is trt.ElementWiseOperation.POWER  # TensorRT's Python name


@pytest.mark.parametrize(
    ("mask", "rank", "axes"),
    [(6, 4, (1, 2)), (4, 4, (2,)), (1, 1, (0,)), (15, 4, (0, 1, 2, 3)), (5, 3, (0, 2)), (128, 8, (7,))],
)
def test_axes_from_bitmask(mask: int, rank: int, axes: tuple[int, ...]) -> None:
    assert trt.axes_from_bitmask(mask, rank) == axes
    assert trt.axes_from_bitmask(np.int64(mask), rank) == axes  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mask", "rank", "error", "words"),
    [
        (0, 4, ValueError, ["axes=0", "no dimension", "1 to 15"]),
        (16, 4, ValueError, ["axes=16", "[4]", "rank 4", "1 to 15"]),
        (6, 2, ValueError, ["axes=6", "[2]", "rank 2"]),
        (-1, 3, ValueError, ["negative", "1 to 7"]),
        (1, 0, ValueError, ["rank 0", ">= 1"]),
        (True, 2, TypeError, ["integer bitmask", "True"]),
        (1.0, 2, TypeError, ["integer bitmask"]),
        ("6", 4, TypeError, ["integer bitmask"]),
    ],
)
def test_axes_from_bitmask_errors(mask: Any, rank: int, error: type[Exception], words: list[str]) -> None:
    with pytest.raises(error) as info:
        trt.axes_from_bitmask(mask, rank)
    msg = str(info.value)
    assert "axes_from_bitmask" in msg
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"


# ---------------------------------------------------------------------------------------------
# ElementWise rules


def ew_error(error: type[Exception], *args: Any, words: list[str], **kwargs: Any) -> str:
    with pytest.raises(error) as info:
        trt.elementwise(*args, **kwargs)
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


def test_elementwise_rank_mismatch(device: gpuops.Device, xp: Any) -> None:
    a = on(xp, np.ones((2, 3), np.float32))
    b = on(xp, np.ones((3,), np.float32))  # NumPy would broadcast this; TensorRT does not
    ew_error(
        ValueError,
        a,
        b,
        EWO.SUM,
        device=device,
        words=["tensorrt.elementwise", "SUM", "input1", "input2", "rank 2", "rank 1", "(2, 3)", "(3,)", "same rank"],
    )
    ew_error(ValueError, on(xp, np.float32(1)), b, EWO.PROD, device=device, words=["PROD", "rank 0", "rank 1"])


@pytest.mark.parametrize(("sa", "sb"), [((2, 3), (2, 4)), ((2, 3), (3, 3)), ((4, 1, 5), (4, 2, 3))])
def test_elementwise_incompatible_dims(device: gpuops.Device, xp: Any, sa: tuple, sb: tuple) -> None:
    a, b = on(xp, np.ones(sa, np.float32)), on(xp, np.ones(sb, np.float32))
    ew_error(
        ValueError,
        a,
        b,
        "sub",
        device=device,
        words=["tensorrt.elementwise", "SUB", "dimension", str(sa), str(sb), "equal or one of them 1"],
    )


@pytest.mark.parametrize(("ta", "tb"), [("float32", "float16"), ("int32", "int64"), ("float32", "int32")])
def test_elementwise_mixed_types(device: gpuops.Device, xp: Any, ta: str, tb: str) -> None:
    a, b = on(xp, np.ones(3, NP_TYPES[ta])), on(xp, np.ones(3, NP_TYPES[tb]))
    ew_error(
        TypeError,
        a,
        b,
        EWO.MAX,
        device=device,
        words=["tensorrt.elementwise", "MAX", "input1", "input2", ta, tb, "same type", "float32"],
    )


@pytest.mark.parametrize("name", EW_NAMES)
@pytest.mark.parametrize("type_name", list(NP_TYPES))
def test_elementwise_type_table(device: gpuops.Device, xp: Any, name: str, type_name: str) -> None:
    """Every dtype against every operation's T1 row: accepted (with T2 out) or a TypeError saying why."""
    dtype = NP_TYPES[type_name]
    a = on(xp, np.ones((2, 1), dtype))
    b = on(xp, np.ones((1, 3), dtype))
    if type_name in t1_types(name):
        got = trt.elementwise(a, b, EWO[name], device=device)
        assert got.shape == (2, 3)
        assert got.dtype == out_type(name, type_name)
        return
    allowed = ", ".join(t1_types(name))
    ew_error(
        TypeError,
        a,
        b,
        name,
        device=device,
        words=["tensorrt.elementwise", name, "input1", f"dtype {type_name}", f"allowed: {allowed}"],
    )


def test_elementwise_named_type_errors(device: gpuops.Device, xp: Any) -> None:
    """The brief's named cases: POWER int32, AND float32, EQUAL int8, anything float64."""
    i32, f32 = on(xp, [1, 2], np.int32), on(xp, [1.0, 2.0], np.float32)
    ew_error(
        TypeError, i32, i32, EWO.POWER, device=device, words=["POWER", "int32", "int8, float16, float32, bfloat16"]
    )
    ew_error(TypeError, f32, f32, EWO.AND, device=device, words=["AND", "float32", "allowed: bool"])
    i8 = on(xp, [1, 2], np.int8)
    ew_error(TypeError, i8, i8, EWO.EQUAL, device=device, words=["EQUAL", "int8", "int32, int64"])
    f64 = on(xp, [1.0, 2.0], np.float64)  # the seed's np.array default: not a TensorRT type
    ew_error(TypeError, f64, f64, EWO.SUM, device=device, words=["SUM", "float64", "allowed:"])
    c64 = on(xp, [1.0, 2.0], np.complex64)
    ew_error(TypeError, c64, c64, EWO.SUM, device=device, words=["SUM", "complex64", "allowed:"])


def test_elementwise_bad_arguments(device: gpuops.Device, xp: Any) -> None:
    a = on(xp, [1.0], np.float32)
    ew_error(TypeError, a, a, RO.SUM, device=device, words=["tensorrt.elementwise", "ElementWiseOperation", "SUM, "])
    ew_error(ValueError, a, a, "PLUS", device=device, words=["tensorrt.elementwise", "'PLUS'", "FLOOR_DIV"])
    ew_error(TypeError, a, a, 0, device=device, words=["ElementWiseOperation"])
    ew_error(TypeError, a, a, EWO.SUM, device="numpy", words=["tensorrt.elementwise", "gpuops.Device", "str"])


def test_elementwise_empty_dimension(device: gpuops.Device, xp: Any) -> None:
    a, b = on(xp, np.ones((0, 3), np.float32)), on(xp, np.ones((1, 3), np.float32))
    ew_error(ValueError, a, b, EWO.SUM, device=device, words=["SUM", "input1", "(0, 3)", ">= 1"])


# ---------------------------------------------------------------------------------------------
# Reduce rules


def red_error(error: type[Exception], *args: Any, words: list[str], **kwargs: Any) -> str:
    with pytest.raises(error) as info:
        trt.reduce(*args, **kwargs)
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


@pytest.mark.parametrize(
    ("mask", "words"),
    [
        (0, ["axes=0", "no dimension", "1 to 7"]),
        (8, ["axes=8", "[3]", "rank 3", "1 to 7"]),
        (6 | 32, ["axes=38", "[5]", "rank 3"]),
        (-2, ["negative"]),
    ],
)
def test_reduce_bitmask_errors(device: gpuops.Device, xp: Any, mask: int, words: list[str]) -> None:
    x = on(xp, np.ones((2, 3, 4), np.float32))
    red_error(ValueError, x, RO.SUM, mask, True, device=device, words=["tensorrt.reduce", "SUM", *words])


@pytest.mark.parametrize("type_name", list(NP_TYPES))
def test_reduce_type_table(device: gpuops.Device, xp: Any, type_name: str) -> None:
    x = on(xp, np.ones((2, 3), NP_TYPES[type_name]))
    for name in RO_NAMES:
        if type_name in REDUCE_T.split():
            got = trt.reduce(x, RO[name], 2, False, device=device)
            assert got.dtype == NP_TYPES[type_name] and got.shape == (2,)
        else:
            red_error(
                TypeError,
                x,
                RO[name],
                2,
                False,
                device=device,
                words=["tensorrt.reduce", name, "input", type_name, f"allowed: {', '.join(REDUCE_T.split())}"],
            )


def test_reduce_rank_and_arguments(device: gpuops.Device, xp: Any) -> None:
    scalar = on(xp, np.float32(3))
    red_error(ValueError, scalar, RO.SUM, 1, True, device=device, words=["tensorrt.reduce", "SUM", "rank 0", ">= 1"])
    x = on(xp, np.ones((2, 3), np.float32))
    red_error(TypeError, x, RO.MAX, 1, 1, device=device, words=["MAX", "keep_dims", "bool"])
    red_error(TypeError, x, RO.MAX, 1.5, True, device=device, words=["MAX", "integer bitmask"])
    red_error(TypeError, x, EWO.MAX, 1, True, device=device, words=["tensorrt.reduce", "ReduceOperation", "AVG"])
    red_error(ValueError, x, "MEAN", 1, True, device=device, words=["tensorrt.reduce", "'MEAN'", "AVG"])
    red_error(ValueError, on(xp, np.ones((2, 0), np.float32)), RO.SUM, 1, True, device=device, words=["(2, 0)"])
    red_error(TypeError, x, RO.SUM, 1, True, device=object(), words=["gpuops.Device"])


# ---------------------------------------------------------------------------------------------
# Equivalence with direct descriptor calls, bit for bit

EW_SHAPES = [((2, 3, 4), (2, 1, 4)), ((1, 3, 1), (2, 1, 4)), ((5,), (5,))]


def ew_cases() -> list[tuple[str, str]]:
    return [(name, t) for name in EW_NAMES for t in t1_types(name)]


@pytest.mark.parametrize(("name", "type_name"), ew_cases())
def test_elementwise_equals_descriptor(
    device: gpuops.Device, xp: Any, monkeypatch: pytest.MonkeyPatch, name: str, type_name: str
) -> None:
    """Every operation on every seed type (>= 2 per operation, bool only for AND/OR/XOR) and 3 layouts."""
    dt = DataType.from_numpy(NP_TYPES[type_name])
    out_dt = DataType.from_numpy(out_type(name, type_name))
    seen = record_runs(monkeypatch)
    rng = np.random.default_rng(zlib.crc32(f"{name} {type_name}".encode()))
    ka, kb = value_kinds(name, dt)
    runs = []  # every layout runs before any is checked: the emulator's dry run then meets all their kernels
    for sa, sb in EW_SHAPES:
        va, vb = random_values(dt, sa, rng, ka), random_values(dt, sb, rng, kb)
        out_shape = tuple(max(m, n) for m, n in zip(sa, sb, strict=True))
        desc = EW_DESC[name](
            TensorDesc.broadcast(dt, sa, to=out_shape) if sa != out_shape else TensorDesc(dt, sa),
            TensorDesc.broadcast(dt, sb, to=out_shape) if sb != out_shape else TensorDesc(dt, sb),
            TensorDesc(out_dt, out_shape),
        )
        want = direct(device, xp, desc, [va, vb])
        got = trt.elementwise(on(xp, va), on(xp, vb), EWO[name], device=device)
        runs.append((desc, seen[-1], got, want))
    for desc, ran, got, want in runs:
        assert isinstance(got, xp.ndarray)
        same_bits(host(got), want)
        assert ran == desc  # one descriptor, the same one
    assert len(seen) == len(EW_SHAPES)  # one run per call


def record_runs(monkeypatch: pytest.MonkeyPatch) -> list[OperatorDesc]:
    """Every descriptor the front-end runs through ``_common.run``, in order."""
    seen: list[OperatorDesc] = []
    real_run = _common.run

    def spy(dev: gpuops.Device, desc: OperatorDesc, inputs: Any, output: Any) -> None:
        seen.append(desc)
        real_run(dev, desc, inputs, output)

    monkeypatch.setattr(_common, "run", spy)
    return seen


def reduce_cases() -> list[tuple[str, str]]:
    return [(name, t) for name in RO_NAMES for t in REDUCE_T.split()]


@pytest.mark.parametrize(("name", "type_name"), reduce_cases())
def test_reduce_equals_descriptor(
    device: gpuops.Device, xp: Any, monkeypatch: pytest.MonkeyPatch, name: str, type_name: str
) -> None:
    """Every operation on every seed type, several bitmasks, both keep_dims: one REDUCE each."""
    dt = DataType.from_numpy(NP_TYPES[type_name])
    seen = record_runs(monkeypatch)
    rng = np.random.default_rng(zlib.crc32(f"reduce {name} {type_name}".encode()))
    shape = (2, 3, 4)
    x = random_values(dt, shape, rng, "arith")
    runs = []  # every mask runs before any is checked: the emulator's dry run then meets all their kernels
    for mask in (1, 2, 4, 5, 6, 7):
        axes = bitmask_axes(mask, len(shape))
        kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
        desc = ReduceOperatorDesc(REDUCE_FN[name], TensorDesc(dt, shape), TensorDesc(dt, kept), axes=axes)
        want = direct(device, xp, desc, [x])
        got = trt.reduce(on(xp, x), RO[name], mask, True, device=device)
        ran = seen[-1]
        dropped = trt.reduce(on(xp, x), RO[name], mask, False, device=device)
        runs.append((desc, axes, ran, seen[-1], got, dropped, want))
    for desc, axes, ran, ran_dropped, got, dropped, want in runs:
        same_bits(host(got), want)
        assert ran == desc
        assert ran_dropped == desc  # keep_dims=False: the same descriptor, no other kernel
        same_bits(host(dropped), want.reshape(tuple(s for i, s in enumerate(shape) if i not in axes)))
    assert len(seen) == 12


def test_keep_dims_false_is_a_view_of_the_output(device: gpuops.Device, xp: Any) -> None:
    x = on(xp, np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    got = trt.reduce(x, RO.SUM, 5, False, device=device)
    assert got.shape == (3,)
    assert got.base is not None  # the kept-rank (1, 3, 1) buffer, reshaped
    assert host(got).tolist() == np.arange(24, dtype=np.float64).reshape(2, 3, 4).sum(axis=(0, 2)).tolist()


# ---------------------------------------------------------------------------------------------
# Values against float64 NumPy (and gpuops' documented rules)

F32_GRID = np.arange(-32, 33, dtype=np.float64) / 8.0
EXACT_F64: dict[str, Any] = {
    "SUM": np.add,
    "PROD": np.multiply,
    "MAX": np.maximum,
    "MIN": np.minimum,
    "SUB": np.subtract,
    "DIV": np.divide,  # float32 division of float32 values is float64 division rounded once
    "FLOOR_DIV": lambda a, b: np.floor(a / b),  # the seed's floor(a / b); exact here: b a nonzero grid value
    "EQUAL": np.equal,
    "GREATER": np.greater,
    "LESS": np.less,
}


@pytest.mark.parametrize("name", list(EXACT_F64))
def test_elementwise_float32_against_float64(device: gpuops.Device, xp: Any, name: str) -> None:
    rng = np.random.default_rng(7)
    a = rng.choice(F32_GRID, size=(4, 1, 6))
    b = rng.choice(F32_GRID[F32_GRID != 0], size=(1, 5, 6))
    b[0, 0, :3] = a[:3, 0, 0]  # some equal pairs for EQUAL / GREATER / LESS
    want = EXACT_F64[name](a, b)
    got = host(trt.elementwise(on(xp, a, np.float32), on(xp, b, np.float32), name, device=device))
    assert got.shape == (4, 5, 6)
    if want.dtype == np.bool_:
        assert got.dtype == np.bool_ and np.array_equal(got, want)
    else:
        assert got.dtype == np.float32 and np.array_equal(got, want.astype(np.float32))


def test_elementwise_power_float32_against_float64(device: gpuops.Device, xp: Any) -> None:
    a = np.array([[0.5, 2.0, 3.0, 4.0, 1.5]])
    b = np.array([[-1.5], [0.0], [0.5], [2.0], [3.0]])
    got = host(trt.elementwise(on(xp, a, np.float32), on(xp, b, np.float32), EWO.POW, device=device))
    np.testing.assert_allclose(got, np.power(a, b), rtol=2e-6)


@pytest.mark.parametrize("name", ["AND", "OR", "XOR"])
def test_elementwise_logical(device: gpuops.Device, xp: Any, name: str) -> None:
    a = np.array([[False], [True]])
    b = np.array([[False, True]])
    ref = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}[name](a, b)
    got = host(trt.elementwise(on(xp, a), on(xp, b), name, device=device))
    assert got.dtype == np.bool_ and np.array_equal(got, ref)


@pytest.mark.parametrize("type_name", ["int8", "int32", "int64"])
def test_integer_div_truncates_and_floor_div_floors(device: gpuops.Device, xp: Any, type_name: str) -> None:
    dtype = NP_TYPES[type_name]
    a = np.array([-7, 7, -7, 7, -6, 5, 0, 9], dtype)
    b = np.array([2, 2, -2, -2, 3, 0, 4, 1], dtype)
    fa, fb = a.astype(np.float64), np.where(b == 0, 1, b).astype(np.float64)
    trunc = np.where(b == 0, 0, np.trunc(fa / fb)).astype(dtype)  # x / 0 == 0 (README "Semantics")
    floor = np.where(b == 0, 0, np.floor(fa / fb)).astype(dtype)
    got_div = host(trt.elementwise(on(xp, a), on(xp, b), EWO.DIV, device=device))
    got_floor = host(trt.elementwise(on(xp, a), on(xp, b), EWO.FLOOR_DIV, device=device))
    assert got_div.tolist() == trunc.tolist() == [-3, 3, 3, -3, -2, 0, 0, 9]
    assert got_floor.tolist() == floor.tolist() == [-4, 3, 3, -4, -2, 0, 0, 9]


def test_int8_power_wraps(device: gpuops.Device, xp: Any) -> None:
    a = np.array([3, 2, 1, -2, 2, 0], np.int8)
    b = np.array([5, -1, -5, 3, 0, 0], np.int8)
    exact = [3.0**5, 0.0, 1.0, (-2.0) ** 3, 1.0, 1.0]  # 2 ** -1 truncates to 0; 1 ** -5 == 1
    want = [int((v + 128) % 256 - 128) for v in exact]  # wrapped into int8: 243 -> -13
    got = host(trt.elementwise(on(xp, a), on(xp, b), EWO.POWER, device=device))
    assert got.dtype == np.int8 and got.tolist() == want


@pytest.mark.parametrize("name", RO_NAMES)
@pytest.mark.parametrize("mask", [1, 2, 3])
def test_reduce_float32_against_float64(device: gpuops.Device, xp: Any, name: str, mask: int) -> None:
    rng = np.random.default_rng(mask)
    x = rng.choice(F32_GRID, size=(4, 6))
    axes = bitmask_axes(mask, 2)
    ref = {"SUM": np.sum, "PROD": np.prod, "MAX": np.max, "MIN": np.min, "AVG": np.mean}[name](x, axis=axes)
    got = host(trt.reduce(on(xp, x, np.float32), name, mask, False, device=device))
    assert got.shape == np.shape(ref) and got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0)


def test_reduce_integer_avg_truncates(device: gpuops.Device, xp: Any) -> None:
    x = np.array([[-7, 0], [7, 0], [-5, -4], [100, 27]], np.int32)
    ref = np.trunc(x.astype(np.float64).mean(axis=1)).astype(np.int32)
    got = host(trt.reduce(on(xp, x), RO.AVG, 2, False, device=device))
    assert got.tolist() == ref.tolist() == [-3, 3, -4, 63]


def test_reduce_int8_sum_wraps(device: gpuops.Device, xp: Any) -> None:
    x = np.full((100,), 100, np.int8)
    got = host(trt.reduce(on(xp, x), RO.SUM, 1, True, device=device))
    assert got.shape == (1,) and got.tolist() == [10000 % 256]  # 16


# ---------------------------------------------------------------------------------------------
# Return kinds, shapes, device=, 0-d


def test_zero_d_elementwise(device: gpuops.Device, xp: Any) -> None:
    got = trt.elementwise(on(xp, np.float32(-6.0)), on(xp, np.float32(4.0)), EWO.FLOOR_DIV, device=device)
    assert isinstance(got, xp.ndarray) and got.shape == () and got.dtype == np.float32
    assert float(host(got)) == -2.0


def test_full_reduction_without_keep_dims_is_0d(device: gpuops.Device, xp: Any) -> None:
    x = on(xp, np.array([[1, 2, 3], [4, 5, 6]], np.int64))
    got = trt.reduce(x, RO.SUM, 3, False, device=device)
    assert isinstance(got, xp.ndarray) and got.shape == () and got.dtype == np.int64
    assert int(host(got)) == 21
    kept = trt.reduce(x, RO.SUM, 3, True, device=device)
    assert kept.shape == (1, 1) and int(host(kept)[0, 0]) == 21
    one_d = trt.reduce(on(xp, np.array([2.0, -8.0], np.float16)), RO.MIN, 1, False, device=device)
    assert one_d.shape == () and one_d.dtype == np.float16 and float(host(one_d)) == -8.0


def test_numpy_in_numpy_out() -> None:
    dev = gpuops.Device("numpy")
    a = np.array([[1, 2, 3]], np.int32)
    got = trt.elementwise(a, np.array([[2], [3]], np.int32), EWO.GREATER, device=dev)
    assert type(got) is np.ndarray and got.dtype == np.bool_ and got.shape == (2, 3)
    assert got.tolist() == [[False, False, True], [False, False, False]]
    assert got.flags.c_contiguous and not np.shares_memory(got, a)
    # Anything numpy.asarray takes, on the NumPy backend: nested lists of Python ints are int64.
    got = trt.elementwise([[1, 2]], [[3, 4]], "sum", device=dev)
    assert type(got) is np.ndarray and got.dtype == np.int64 and got.tolist() == [[4, 6]]
    red = trt.reduce(np.ones((2, 2), ml_dtypes.bfloat16), RO.SUM, 1, False, device=dev)
    assert type(red) is np.ndarray and red.dtype == ml_dtypes.bfloat16 and red.tolist() == [2.0, 2.0]


def test_default_device() -> None:
    """Without device=, calls run on _common.default_device() (``Device("auto")``)."""
    dev = _common.default_device()
    xp = _common.Arrays(dev).xp
    a = xp.asarray(np.array([1.0, 2.0], np.float32))
    got = trt.elementwise(a, a, EWO.SUM)
    assert isinstance(got, xp.ndarray) and host(got).tolist() == [2.0, 4.0]
    got = trt.reduce(a, RO.AVG, 1, True)
    assert isinstance(got, xp.ndarray) and host(got).tolist() == [1.5]


def test_device_argument_is_used(backend: str, xp: Any) -> None:
    """A device held to DirectML's own tables refuses the extension types the call needs."""
    strict = gpuops.Device(backend, extensions=False)
    f32 = on(xp, [1.0, 2.0], np.float32)
    assert host(trt.elementwise(f32, f32, EWO.PROD, device=strict)).tolist() == [1.0, 4.0]
    b = on(xp, [True, False])
    with pytest.raises(DescriptorError):  # BOOL is a gpuops extension
        trt.elementwise(b, b, EWO.AND, device=strict)
    with pytest.raises(DescriptorError):  # FLOOR_DIV is an extension operator
        trt.elementwise(f32, f32, EWO.FLOOR_DIV, device=strict)
    with pytest.raises(DescriptorError):  # INT8 REDUCE SUM is an extension
        trt.reduce(on(xp, [1, 2], np.int8), RO.SUM, 1, True, device=strict)
    capped = gpuops.Device(backend, max_feature_level="2_1")  # REDUCE MAX takes INT64 from FL 5_0 on
    with pytest.raises(DescriptorError):
        trt.reduce(on(xp, np.ones((2, 2), np.int64)), RO.MAX, 1, True, device=capped)


@pytest.mark.gpu
def test_host_and_gpu_arrays_are_not_mixed() -> None:
    xp = array_module(GPU)  # cupy, or the CUDA emulator's stand-in for it
    gpu = gpuops.Device(GPU)
    with pytest.raises(TypeError, match="host array"):
        trt.elementwise(np.ones(2, np.float32), np.ones(2, np.float32), EWO.SUM, device=gpu)
    with pytest.raises(TypeError, match="GPU array"):
        trt.reduce(xp.ones(2, xp.float32), RO.SUM, 1, True, device=gpuops.Device("numpy"))
    got = trt.reduce(xp.ones((2, 3), xp.float32), RO.SUM, 2, False, device=gpu)
    assert isinstance(got, xp.ndarray) and got.get().tolist() == [3.0, 3.0]


@pytest.mark.parametrize(("type_name", "n"), [("int8", 3), ("bool", 1), ("float16", 3), ("bfloat16", 1)])
def test_small_8_and_16_bit_tensors(device: gpuops.Device, xp: Any, type_name: str, n: int) -> None:
    """Tensors whose bytes are not a multiple of 4 (DirectML's buffer rule rounds their size up to 4)."""
    dtype = NP_TYPES[type_name]
    a = on(xp, np.ones(n, dtype))
    name = "AND" if type_name == "bool" else "SUM"
    got = host(trt.elementwise(a, a, name, device=device))
    assert got.shape == (n,) and got.dtype == dtype
    assert got.tolist() == ([True] * n if type_name == "bool" else [2] * n)
    if type_name != "bool":
        red = host(trt.reduce(a, RO.SUM, 1, False, device=device))
        assert red.shape == () and red.dtype == dtype and float(red) == n
