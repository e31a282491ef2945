"""gpuops.webnn against the Web Platform Tests' WebNN conformance vectors.

The cases are WPT's own (``webnn/conformance_tests/<op>.https.any.js`` as mirrored by servo/servo), converted to
``tests/conformance/webnn/<file>.json`` by ``tools/extract_wpt_webnn.py`` (each JSON names the repository, path
and commit it was read from, and the command that made it). Nobody here wrote an input or an expected value.

Each case builds its graph as WPT's ``buildAndExecuteGraph`` does (an argument that names a graph input or an
earlier operator's output is that operand, anything else is passed as given; ``options`` is a dict whose string
values naming operands become operands), feeds inputs converted as WPT's ``getTypedArrayData`` converts them
(JavaScript's typed-array rules; float16 through WPT's ``toHalf``), and compares with WPT's ``assertResultsEquals``:
the descriptor (data type and shape) exactly, then every element by the file's tolerance rule, ULP distance or
absolute error, implemented as ``webnn/resources/utils.js`` does (``ulpDistance``, ``getBitwise``, ``toHalf``,
``float16AsUint16ToNumber``; testharness's ``assert_array_approx_equals`` for ATOL). The ULP rules follow the
current upstream utils.js: a float32's bits are taken of ``|x|`` and negated for ``x < 0`` (a distance across
zero counts the steps on both sides), and float16 +0 and -0 are 0 apart; servo's stored copy of utils.js at
8276673b is older (a float32 was read as its int32 bits, float16 -0 was 32768 ULP from +0).

Every case runs on ``Device("numpy")``; float32/float16 cases also run on the GPU backend (the CUDA emulator where
there is no GPU; marker ``gpu``), except those whose tensors exceed ``_GPU_ELEMENTS`` elements, which stay on
NumPy to keep the emulator's run short. On the emulator (a CPU interpreting kernels, whose builds dominate this
module's time) only the first case of each ``_signature`` in a file runs there, a deterministic subset that keeps
every operator, option set, data type, constant input and broadcast of the file; ``GPUOPS_WPT_EMULATOR_ALL=1``
runs them all, and a real GPU always does. WPT's "large inputs" cases (a 6000x6000 tensor, several seconds each on a
2-core machine) are skipped with that reason unless ``GPUOPS_WPT_LARGE=1``. A case that cannot map to gpuops.webnn
(a 4-bit type, a data type, option or operation gpuops.webnn lacks: gpuops raises ``UnsupportedError`` or refuses
the option by name) is skipped with that reason; any other error fails. A case whose expected values are wrong in
the copy read (``_WPT_DATA_ERRORS``, each with the values the arithmetic gives; WPT corrected them later) is a strict
xfail: it must keep disagreeing with the stored values.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import GPU
from helpers import to_host

import gpuops
from gpuops import webnn
from gpuops.errors import UnsupportedError
from gpuops.webnn._operand import _TYPES

DATA = Path(__file__).resolve().parents[1] / "conformance" / "webnn"
FILES = sorted(DATA.glob("*.json"))
_FLOATS = ("float32", "float16")
_GPU_ELEMENTS = 1 << 16  # a case with a larger tensor runs on NumPy only (emulator time)
_LARGE_ELEMENTS = 1 << 20  # WPT's "large inputs" cases (36M elements): seconds each, run when GPUOPS_WPT_LARGE=1
_RUN_LARGE = os.environ.get("GPUOPS_WPT_LARGE", "0") == "1"
# On the CUDA emulator (a CPU interpreting the kernels) every case costs kernel builds: it runs one case of each
# _signature per file unless GPUOPS_WPT_EMULATOR_ALL=1; a real GPU runs all of them.
_EMULATOR_SUBSET = GPU == "emulator" and os.environ.get("GPUOPS_WPT_EMULATOR_ALL", "0") != "1"
MAX_VALIDATE = 1000  # WPT's kMaximumIndexToValidate
# Cases whose expected values are wrong in the servo copy read (the correct values are stated; WPT corrected these
# cases after that copy): strict xfail, so each must keep failing the comparison against the stored values.
_WPT_DATA_ERRORS = {
    ("logical_or", "logicalOr uint8 broadcast 3D to 4D"): (
        "WPT data error: inputB [0, 1, 0, 255] of shape [2, 2, 1] broadcast over inputA gives "
        "0,0,1, 1,1,1, 1,1,0, 1,1,1 (twice); the file expects 0,1,1, 1,0,1, 1,1,0, 1,1,1"
    ),
    ("logical_xor", "logicalXor uint8 0D scalar"): "WPT data error: 1 xor 1 is 0; the file expects 1",
    ("logical_xor", "logicalXor uint8 broadcast 3D to 4D"): (
        "WPT data error: inputB [0, 1, 0, 255] of shape [2, 2, 1] broadcast over inputA gives "
        "0,0,1, 0,1,1, 1,1,0, 1,0,0 (twice); the file expects 0,1,1, 0,0,1, 1,0,0, 1,1,0"
    ),
}


def _load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


SUITES = {p.stem: _load(p) for p in FILES}


def _descriptors(case: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    g = case["graph"]
    return [v["descriptor"] for v in g["inputs"].values()] + [v["descriptor"] for v in g["expectedOutputs"].values()]


def _shape(desc: Mapping[str, Any]) -> list[int]:
    """A descriptor's shape: ``shape``, or ``dimensions``, its name in older WPT files (and WebNN drafts)."""
    return list(desc["shape"] if "shape" in desc else desc["dimensions"])


def _elements(desc: Mapping[str, Any]) -> int:
    return math.prod(_shape(desc))


def _signature(case: Mapping[str, Any]) -> tuple[Any, ...]:
    """What the emulator subset keeps one case of: the operators with their option names, the data types, whether
    an input is a constant, and whether the inputs' shapes differ (broadcasting). WPT's cases that differ only in
    their shape (its "1D" to "5D" series) or their values share a signature."""
    g = case["graph"]
    ops = tuple(
        (op["name"], tuple(sorted(k for a in op["arguments"] for k in (a.get("options") or {}))))
        for op in g["operators"]
    )
    ins = g["inputs"].values()
    return (
        ops,
        tuple(d["dataType"] for d in _descriptors(case)),
        any(v.get("constant") for v in ins),
        len({tuple(_shape(v["descriptor"])) for v in ins}) > 1,
    )


def _params() -> list[Any]:
    params = []
    for stem, suite in SUITES.items():
        seen: set[tuple[Any, ...]] = set()
        for case in suite["tests"]:
            ident = f"{stem}/{case['name']}".replace(" ", "_")
            descs = _descriptors(case)
            largest = max(map(_elements, descs))
            marks = []
            if largest > _LARGE_ELEMENTS and not _RUN_LARGE:
                reason = f"{largest} elements: over this suite's CI time budget (GPUOPS_WPT_LARGE=1 runs it)"
                marks.append(pytest.mark.skip(reason=reason))
            if (stem, case["name"]) in _WPT_DATA_ERRORS:
                why = _WPT_DATA_ERRORS[stem, case["name"]]
                marks.append(pytest.mark.xfail(reason=why, strict=True, raises=AssertionError))
            params.append(pytest.param(stem, case, "numpy", id=f"{ident}/numpy", marks=marks))
            sig = _signature(case)
            subset_skip = _EMULATOR_SUBSET and sig in seen
            seen.add(sig)
            if any(d["dataType"] in _FLOATS for d in descs) and largest <= _GPU_ELEMENTS and not subset_skip:
                params.append(pytest.param(stem, case, GPU, id=f"{ident}/{GPU}", marks=pytest.mark.gpu))
    return params


# -- JavaScript's conversions (WPT's getTypedArrayData and its TypedArrays) -----------------------------------------


def to_half(value: float) -> int:
    """WPT's ``toHalf``: a number's float16 bits, through a float32 and that function's own rounding (ties away
    from zero, NaN as 0x7C01), exactly as utils.js computes them."""
    with np.errstate(over="ignore"):
        x = struct.unpack("<i", np.float32(value).tobytes())[0]  # Float32Array store, then its Int32 view
    bits = (x >> 16) & 0x8000
    m = (x >> 12) & 0x07FF
    e = (x >> 23) & 0xFF
    if e < 103:
        return bits
    if e > 142:
        bits |= 0x7C00
        if e == 255 and (x & 0x007FFFFF):
            bits |= 1
        return bits
    if e < 113:
        m |= 0x0800
        bits |= (m >> (114 - e)) + ((m >> (113 - e)) & 1)
        return bits
    bits |= ((e - 112) << 10) | (m >> 1)
    bits += m & 1
    return bits & 0xFFFF


def half_bits_to_number(bits: int) -> float:
    """WPT's ``float16AsUint16ToNumber``."""
    sign, exponent, mantissa = (bits >> 15) & 1, (bits >> 10) & 0x1F, bits & 0x3FF
    if exponent == 0:
        value = (mantissa / 1024) * 2.0**-14
    elif exponent == 0x1F:
        value = math.nan if mantissa else math.inf
    else:
        value = (1 + mantissa / 1024) * 2.0 ** (exponent - 15)
    return -value if sign else value


_INT_BITS = {"int8": (8, True), "uint8": (8, False), "int32": (32, True), "uint32": (32, False)}


def _js_int(value: float | str, data_type: str) -> int:
    """JavaScript's ToInt8/ToUint8/ToInt32/ToUint32 (an integer TypedArray's store): NaN and infinities to 0,
    truncation, then modulo 2**bits (a decimal string is read as a number first)."""
    nbits, signed = _INT_BITS[data_type]
    if isinstance(value, str):
        value = float(value.strip() or "0")
    if not math.isfinite(value):
        return 0
    v = int(value) % (1 << nbits)
    return v - (1 << nbits) if signed and v >= 1 << (nbits - 1) else v


def _js_bigint(value: float | str, data_type: str) -> int:
    """``BigInt(value)`` (a number that is an integer, or a string of one, as WPT writes int64 data) stored in a
    BigInt64Array / BigUint64Array (modulo 2**64)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            v = int(text, 0) if text[:2].lower() in ("0x", "0o", "0b") else int(text or "0", 10)
        except ValueError:
            raise AssertionError(f"WPT's BigInt({value!r}) throws: not an integer string") from None
    elif isinstance(value, (int, float)) and math.isfinite(value) and float(value).is_integer():
        v = int(value)
    else:
        raise AssertionError(f"WPT's BigInt({value!r}) throws: the case's {data_type} data is not integral")
    v %= 1 << 64
    return v - (1 << 64) if data_type == "int64" and v >= 1 << 63 else v


def typed_array(data_type: str, shape: list[int], data: Any) -> np.ndarray:
    """``getTypedArrayData(dataType, size, data)``: the array WPT hands to the context (a number fills a tensor of
    more than one element), with the descriptor's shape."""
    size = math.prod(shape)
    if isinstance(data, (int, float, str)) and size > 1:  # TypedArray(size).fill(converted value)
        return np.full(shape, typed_array(data_type, [1], [data])[0])
    values = data
    if not isinstance(values, list):
        raise AssertionError(f"data {data!r} for a {data_type} tensor of {size} element(s) is not an array")
    if len(values) != size:
        raise AssertionError(f"{len(values)} values for a {data_type} tensor of shape {shape}")
    dtype = _TYPES[data_type].numpy_dtype
    if data_type == "float16":
        arr = np.array([to_half(v) for v in values], dtype=np.uint16).view(np.float16)
    elif data_type == "float32":
        with np.errstate(over="ignore"):
            arr = np.array(values, dtype=np.float64).astype(np.float32)
    elif data_type in ("int64", "uint64"):
        arr = np.array([_js_bigint(v, data_type) for v in values], dtype=dtype)
    else:
        arr = np.array([_js_int(v, data_type) for v in values], dtype=dtype)
    return arr.reshape(shape)


# -- WPT's comparisons ----------------------------------------------------------------------------------------------


def _f32_bitwise(value: float) -> int:
    """``getBitwise(value, 'float32')``: the float32 bits of ``|value|`` (NaN as 0x7FC00000), negated for
    ``value < 0``."""
    if math.isnan(value):
        bits = 0x7FC00000
    else:
        with np.errstate(over="ignore"):
            bits = struct.unpack("<I", np.float32(abs(value)).tobytes())[0]
    return -bits if value < 0 else bits


def ulp_distance(actual: Any, expected: float, data_type: str) -> int | float:
    """``ulpDistance(actual, expected, dataType)`` of utils.js; ``actual`` as WPT reads it (a float16 as its
    uint16 bits, an int64 as a BigInt)."""
    if data_type == "float32":
        return abs(_f32_bitwise(actual) - _f32_bitwise(expected))
    if data_type == "float16":
        b = to_half(expected)
        if actual & 0x7FFF == 0 and b & 0x7FFF == 0:
            return 0
        return abs(actual - b)
    if data_type in ("int64", "uint64"):
        return abs(actual - _js_bigint(expected, data_type))
    if data_type in _INT_BITS:
        return abs(actual - expected)
    raise AssertionError(f"ulpDistance: data type {data_type} is not supported")


def _js_values(arr: np.ndarray, data_type: str) -> list[Any]:
    """An output as WPT's TypedArray gives its elements: numbers, a float16's uint16 bits, int64 as BigInt."""
    flat = np.ascontiguousarray(arr).reshape(-1)
    if data_type == "float16":
        return [int(b) for b in flat.view(np.uint16)]
    if data_type == "float32":
        return [float(v) for v in flat]
    return [int(v) for v in flat]


def assert_results(case_name: str, got: np.ndarray, expected: Mapping[str, Any], metric: str, tol: float) -> None:
    """``assertResultsEquals`` -> ``doAssert`` for one output."""
    desc = expected["descriptor"]
    data_type, shape = desc["dataType"], _shape(desc)
    want = expected["data"]
    actual = _js_values(got, data_type)
    if isinstance(want, (int, float, str)) and math.prod(shape) > 1:
        n = min(MAX_VALIDATE, math.prod(shape))
        want, actual = [want] * n, actual[:MAX_VALIDATE]
    elif isinstance(want, (int, float, str)):
        want = [want]
    assert len(actual) == len(want), f"{case_name}: {len(actual)} values, expected {len(want)}"
    bad = []
    for i, (a, e) in enumerate(zip(actual, want, strict=True)):
        if metric == "ULP":
            # JavaScript's actual[i] === expected[i]: a float16 is compared as its uint16 bits, and a BigInt
            # (int64, uint64) never equals a Number.
            if data_type not in ("int64", "uint64") and a == e:
                continue
            d = ulp_distance(a, e, data_type)
            ok = d <= tol
        elif metric == "ATOL":
            v = half_bits_to_number(a) if data_type == "float16" else a
            d = abs(v - e)
            ok = d <= tol  # NaN fails, as in testharness.js
        else:
            raise AssertionError(f"{case_name}: tolerance metric {metric!r} is not supported")
        if not ok:
            shown = half_bits_to_number(a) if data_type == "float16" else a
            bad.append(f"[{i}] actual {shown!r} expected {e!r}: {d} {metric} > {tol}")
    assert not bad, f"{case_name}: {len(bad)} of {len(want)} elements off ({metric} tolerance {tol}):\n" + "\n".join(
        bad[:10]
    )


# -- tolerance rules ------------------------------------------------------------------------------------------------

# utils.js operatorToleranceDict / zeroULPToleranceOperatorList (getPrecisionTolerance's default branch).
_OPERATOR_TOLERANCE: dict[str, dict[str, int]] = {
    "argMax": {"float32": 0, "float16": 0},
    "argMin": {"float32": 0, "float16": 0},
    "batchNormalization": {"float32": 6, "float16": 6},
    "clamp": {"float32": 0, "float16": 0},
    "add": {"float32": 1, "float16": 1},
    "sub": {"float32": 1, "float16": 1, "int8": 0, "uint8": 0, "int32": 0, "uint32": 0, "int64": 0, "uint64": 0},
    "mul": {"float32": 1, "float16": 1},
    "max": {"float32": 0, "float16": 0},
    "min": {"float32": 0, "float16": 0},
    "elu": {"float32": 18, "float16": 18},
    "gelu": {"float32": 18, "float16": 18},
    "hardSigmoid": {"float32": 2, "float16": 2},
    "hardSwish": {"float32": 4, "float16": 4},
    "leakyRelu": {"float32": 1, "float16": 2},
    "linear": {"float32": 2, "float16": 2},
    "prelu": {"float32": 1, "float16": 1},
    "relu": {"float32": 0, "float16": 0, "int8": 0, "int32": 0},
    "sigmoid": {"float32": 34, "float16": 10},
    "softplus": {"float32": 18, "float16": 18},
    "softsign": {"float32": 3, "float16": 3},
    "tanh": {"float32": 16, "float16": 16},
}
_REDUCTIONS = {
    "reduceL1": lambda n: n,
    "reduceL2": lambda n: n * 2 + 2,
    "reduceLogSum": lambda n: n + 18,
    "reduceLogSumExp": lambda n: n * 2 + 18,
    "reduceMax": lambda n: 0,
    "reduceMean": lambda n: n + 2,
    "reduceMin": lambda n: 0,
    "reduceProduct": lambda n: n,
    "reduceSum": lambda n: n,
    "reduceSumSquare": lambda n: n * 2,
}


def _first_argument(op: Mapping[str, Any], index: int) -> Any:
    arg = op["arguments"][index]
    return arg[next(iter(arg))]


def _input_shape(op: Mapping[str, Any], graph: Mapping[str, Any], shapes: Mapping[str, tuple[int, ...]]) -> list[int]:
    name = _first_argument(op, 0)
    if name in graph["inputs"]:
        return _shape(graph["inputs"][name]["descriptor"])
    return list(shapes[name])


def _reduction_tolerance(op: Mapping[str, Any], graph: Mapping[str, Any], shapes: Mapping[str, Any]) -> int:
    """utils.js ``getReductionOperatorsPrecisionTolerance``: the reduced element count through a per-op rule."""
    shape = _input_shape(op, graph, shapes)
    options = _first_argument(op, 1) if len(op["arguments"]) == 2 else {}
    axes = options.get("axes") if isinstance(options, dict) else None
    sizes = [shape[a + len(shape)] if a < 0 else shape[a] for a in axes] if axes is not None else shape
    return _REDUCTIONS[op["name"]](math.prod(sizes))


def _softmax_tolerance(op: Mapping[str, Any], graph: Mapping[str, Any], shapes: Mapping[str, Any]) -> int:
    """utils.js ``getSoftmaxPrecisionTolerance``: ``inputShape[axis] * 3 + 3`` (axis 1 when not given)."""
    shape = _input_shape(op, graph, shapes)
    axis = _first_argument(op, 1) if len(op["arguments"]) == 2 else 1
    return shape[axis] * 3 + 3


def utils_precision_tolerance(graph: Mapping[str, Any], shapes: Mapping[str, Any]) -> tuple[str, float]:
    """utils.js ``getPrecisionTolerance``: the sum of each operator's ULP tolerance for the first output's type."""
    dt = next(iter(graph["expectedOutputs"].values()))["descriptor"]["dataType"]
    total = 0
    for op in graph["operators"]:
        name = op["name"]
        if name in _REDUCTIONS:
            total += _reduction_tolerance(op, graph, shapes)
        elif name == "softmax":
            total += _softmax_tolerance(op, graph, shapes)
        elif name in ("conv2d", "convTranspose2d", "gemm", "matmul", "averagePool2d", "maxPool2d", "l2Pool2d"):
            raise AssertionError(f"getPrecisionTolerance for {name} is not implemented here")
        else:
            total += _OPERATOR_TOLERANCE.get(name, {}).get(dt, 0)
    return "ULP", total


def reduced_element_count(graph: Mapping[str, Any]) -> int:
    """utils.js ``getReducedElementCount``: the elements the first operator reduces (``axes: []`` counts 1)."""
    args = graph["operators"][0]["arguments"]
    shape = _shape(graph["inputs"][_first_argument(graph["operators"][0], 0)]["descriptor"])
    options = args[1][next(iter(args[1]))] if len(args) == 2 else {}
    axes = options.get("axes") if isinstance(options, dict) else None
    sizes = [shape[a + len(shape)] if a < 0 else shape[a] for a in axes] if axes is not None else shape
    return math.prod(sizes) if sizes else 1


def _cumulative_sum_tolerance(graph: Mapping[str, Any], shapes: Mapping[str, Any]) -> tuple[str, float]:
    """cumulative_sum.https.any.js: ``inputShape[axis] - 1`` ULP for float32, 0 for int32 (else undefined: exact)."""
    op = graph["operators"][0]
    shape = _shape(graph["inputs"][_first_argument(op, 0)]["descriptor"])
    dt = next(iter(graph["expectedOutputs"].values()))["descriptor"]["dataType"]
    return "ULP", {"float32": shape[_first_argument(op, 1)] - 1, "int32": 0}.get(dt, 0)


_CUMULATIVE_SUM_SOURCE = (
    "const getCumulativeSumPrecisionTolerance = (graphResources) => {\n"
    "  const args = graphResources.operators[0].arguments;\n"
    "  const inputShape =\n"
    "      graphResources.inputs[args[0][Object.keys(args[0])[0]]].descriptor.shape;\n"
    "  const axis = args[1][Object.keys(args[1])[0]];\n"
    "  let tolerance = inputShape[axis] - 1;\n"
    "\n"
    "  const toleranceValueDict = {float32: tolerance, int32: 0};\n"
    "  const expectedDataType =\n"
    "      getExpectedDataTypeOfSingleOutput(graphResources.expectedOutputs);\n"
    "  return {metricType: 'ULP', value: toleranceValueDict[expectedDataType]};\n"
    "};"
)

# Tolerance functions that files define in a form the extractor does not reduce to data ("kind": "js"), by their
# exact source text as the JSON records it, each implemented here from that text. A file whose function is not
# here fails rather than being compared under a rule nobody read.
_JS_TOLERANCES: dict[str, Any] = {_CUMULATIVE_SUM_SOURCE: _cumulative_sum_tolerance}


def tolerance(suite: Mapping[str, Any], graph: Mapping[str, Any], shapes: Mapping[str, Any]) -> tuple[str, float]:
    rule = suite["tolerance"]
    if rule["kind"] == "per_type":
        dt = next(iter(graph["expectedOutputs"].values()))["descriptor"]["dataType"]
        # A type missing from the table is JavaScript's undefined: NaN ULP, so only exact equality passes.
        return rule["metricType"], rule["values"].get(dt, 0)
    if rule["kind"] == "constant":
        return rule["metricType"], rule["value"]
    if rule["kind"] == "reduced_element_count":
        return rule["metricType"], reduced_element_count(graph) * rule["multiplier"] + rule["offset"]
    if rule["kind"] == "utils" and rule["function"] == "getPrecisionTolerance":
        return utils_precision_tolerance(graph, shapes)
    if rule["kind"] == "utils" and rule["function"] == "getZeroULPTolerance":
        return "ULP", 0  # utils.js: () => ({metricType: 'ULP', value: 0})
    if rule["kind"] == "js" and rule["source"] in _JS_TOLERANCES:
        return _JS_TOLERANCES[rule["source"]](graph, shapes)
    raise AssertionError(f"tolerance rule {rule.get('function')!r} ({rule['kind']}) is not implemented by this test")


# -- the graph ------------------------------------------------------------------------------------------------------


def _unsupported_reason(case: Mapping[str, Any]) -> str | None:
    """Why the case cannot map to gpuops.webnn before building, or None."""
    for desc in _descriptors(case):
        dt = desc["dataType"]
        if dt in ("int4", "uint4"):
            return f"{dt}: gpuops has no 4-bit data type"
        if dt not in _TYPES:
            return f"data type {dt} is not one of gpuops.webnn's ({', '.join(_TYPES)})"
    for op in case["graph"]["operators"]:
        if not callable(getattr(webnn.MLGraphBuilder, op["name"], None)):
            return f"operation {op['name']} is not implemented by gpuops.webnn"
    return None


def build_and_compute(
    device: gpuops.Device, graph: Mapping[str, Any]
) -> tuple[dict[str, np.ndarray], dict[str, tuple[int, ...]]]:
    """WPT's ``buildAndExecuteGraph``: the outputs (on the host) and every operator output's shape."""
    b = webnn.MLGraphBuilder(device)
    inputs = graph["inputs"]
    operands: dict[str, webnn.MLOperand] = {}
    feeds: dict[str, np.ndarray] = {}

    def operand(name: str) -> webnn.MLOperand:
        if name not in operands:
            res = inputs[name]
            desc = {"dataType": res["descriptor"]["dataType"], "shape": _shape(res["descriptor"])}
            if res.get("constant"):
                operands[name] = b.constant(desc, typed_array(desc["dataType"], desc["shape"], res["data"]))
            else:
                operands[name] = b.input(name, desc)
                feeds[name] = typed_array(desc["dataType"], desc["shape"], res["data"])
        return operands[name]

    made: dict[str, webnn.MLOperand] = {}
    for op in graph["operators"]:
        args: list[Any] = []
        for argument in op["arguments"]:
            for key, value in argument.items():
                if key == "options":
                    opts = {}
                    for k, v in value.items():
                        if isinstance(v, str) and v in inputs:
                            v = operand(v)
                        elif isinstance(v, str) and v in made:
                            v = made[v]
                        opts[k] = v
                    args.append(opts)
                elif isinstance(value, str) and value in inputs:
                    args.append(operand(value))
                elif isinstance(value, str) and value in made:
                    args.append(made[value])
                else:
                    args.append(value)
        out = getattr(b, op["name"])(*args)
        names = op["outputs"] if isinstance(op["outputs"], list) else [op["outputs"]]
        outs = out if isinstance(op["outputs"], list) else [out]
        made.update(zip(names, outs, strict=True))
    expected = graph["expectedOutputs"]
    missing = [n for n in expected if n not in made]
    assert not missing, f"graph outputs {missing} are not any operator's output"
    for name, res in expected.items():  # assertDescriptorsEquals
        desc = res["descriptor"]
        assert made[name].dataType == desc["dataType"], (name, made[name].dataType, desc["dataType"])
        assert list(made[name].shape) == _shape(desc), (name, made[name].shape, _shape(desc))
    g = b.build({n: made[n] for n in expected})
    xp = device.backend_impl.xp
    got = g.compute({n: a if xp is np else xp.asarray(a) for n, a in feeds.items()})
    return {n: to_host(v) for n, v in got.items()}, {n: tuple(v.shape) for n, v in made.items()}


@pytest.mark.parametrize(("stem", "case", "backend"), _params())
def test_wpt_case(stem: str, case: dict[str, Any], backend: str) -> None:
    reason = _unsupported_reason(case)
    if reason:
        pytest.skip(reason)
    suite = SUITES[stem]
    graph = case["graph"]
    try:
        results, shapes = build_and_compute(gpuops.Device(backend), graph)
    except UnsupportedError as exc:
        pytest.skip(f"gpuops: {exc}")
    except TypeError as exc:
        if "unknown option" not in str(exc):
            raise
        pytest.skip(f"option gpuops.webnn lacks: {exc}")
    metric, tol = tolerance(suite, graph, shapes)
    for name, expected in graph["expectedOutputs"].items():
        assert_results(case["name"], results[name], expected, metric, tol)


def test_every_source_is_pinned() -> None:
    """Each JSON names where its cases come from and how it was made."""
    assert FILES, f"no conformance data under {DATA}"
    for path in FILES:
        src = SUITES[path.stem]["source"]
        assert src["repository"] == "servo/servo" and len(src["commit"]) == 40, path
        assert src["path"].startswith("tests/wpt/tests/webnn/conformance_tests/"), path
        assert SUITES[path.stem]["command"].startswith("python tools/extract_wpt_webnn.py "), path
        assert SUITES[path.stem]["tests"], path
    cases = {(path.stem, case["name"]) for path in FILES for case in SUITES[path.stem]["tests"]}
    assert set(_WPT_DATA_ERRORS) <= cases, sorted(set(_WPT_DATA_ERRORS) - cases)


def _extractor() -> Any:
    """tools/extract_wpt_webnn.py as a module (tools/ is not a package)."""
    path = Path(__file__).resolve().parents[2] / "tools" / "extract_wpt_webnn.py"
    spec = importlib.util.spec_from_file_location("extract_wpt_webnn", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_extractor_semicolon_insertion() -> None:
    """A tests array may end without ``;`` where JavaScript inserts one (round_even, is_infinite): a line break
    before the next statement; a line break before ``(`` or ``[`` continues the expression, and is refused."""
    ex = _extractor()
    case = "{'name': 'a', 'graph': {'inputs': {}, 'operators': [], 'expectedOutputs': {}}}"
    text = f"const xTests = [\n  {case},\n]\n\nwebnn_conformance_test(\n    xTests, build, getZeroULPTolerance);\n"
    data = ex.extract(text)
    assert [c["name"] for c in data["tests"]] == ["a"]
    assert data["tolerance"] == {"kind": "utils", "function": "getZeroULPTolerance"}
    for sep in ("\n\n(", "\n[", " "):  # a call or an index on the array, or no line break
        with pytest.raises(ex.ExtractError, match="expected ';'"):
            ex.extract(text.replace("]\n\nwebnn", f"]{sep}webnn", 1))


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        (0.0, 0),
        (-0.0, 0x8000),
        (1.0, 0x3C00),
        (65504.0, 0x7BFF),
        (1e6, 0x7C00),
        (math.nan, 0x7C01),
        (2.0**-24, 0x0001),
        (2.0**-26, 0),
    ],
)
def test_to_half_matches_wpt(value: float, bits: int) -> None:
    """The port of WPT's toHalf on values whose result the function's text fixes (overflow to infinity, NaN with
    mantissa bit 1, the smallest subnormal, underflow to zero)."""
    assert to_half(value) == bits


def test_ulp_distance_rules() -> None:
    """utils.js's distance: float32 steps counted through zero, float16 +-0 equal, NaN float32 canonical."""
    assert ulp_distance(1.0, float(np.nextafter(np.float32(1), np.float32(2))), "float32") == 1
    tiny = float(np.float32(1e-45))
    assert ulp_distance(tiny, -tiny, "float32") == 2
    assert ulp_distance(math.nan, math.nan, "float32") == 0
    assert ulp_distance(0x8000, 0.0, "float16") == 0
    assert ulp_distance(0x3C01, 1.0, "float16") == 1
    assert ulp_distance(5, 3, "int32") == 2


def test_comparison_can_fail() -> None:
    """The comparison rejects what WPT rejects: one ULP over the tolerance (float32 and float16), a NaN where a number
    is expected, an integer off by one, a descriptor of another shape, and an ATOL miss."""
    one = {"data": [1.0], "descriptor": {"shape": [1], "dataType": "float32"}}
    two_ulps = np.nextafter(np.nextafter(np.float32(1), np.float32(2)), np.float32(2))
    assert_results("f32", np.float32([two_ulps]), one, "ULP", 2)
    with pytest.raises(AssertionError, match="ULP"):
        assert_results("f32", np.float32([two_ulps]), one, "ULP", 1)
    with pytest.raises(AssertionError):
        assert_results("f32", np.float32([np.nan]), one, "ULP", 1000)
    half = {"data": [1.0], "descriptor": {"shape": [1], "dataType": "float16"}}
    assert_results("f16", np.uint16([0x3C01]).view(np.float16), half, "ULP", 1)
    with pytest.raises(AssertionError):
        assert_results("f16", np.uint16([0x3C02]).view(np.float16), half, "ULP", 1)
    ints = {"data": [7, 8], "descriptor": {"shape": [2], "dataType": "int32"}}
    with pytest.raises(AssertionError):
        assert_results("i32", np.int32([7, 9]), ints, "ULP", 0)
    with pytest.raises(AssertionError, match="values"):
        assert_results("i32", np.int32([7, 8, 9]), ints, "ULP", 0)
    with pytest.raises(AssertionError, match="ATOL"):
        assert_results("atol", np.float32([1.01]), one, "ATOL", 1 / 1024)
