"""Independent references for every operator, written from the DirectML formulas.

Sources: docs/reference/directml.md sections 2.2 and 9 (formulas, edge semantics) and
API.md's "Semantics that must be the same on both backends". Nothing here reads the op
table's own expressions: floats are computed in float64 NumPy, integers exactly with Python
ints and wrapped modulo 2**bits, bit operators on the raw bits as Python ints.

Every reference has the signature of every OpInfo reference (opinfo.py),
``ref(inputs, out_dtype, params=None, scale_bias=None) -> Expected``: ``inputs`` holds the
logical values of A and B (NumPy arrays of the tensors' own dtypes), ``out_dtype`` is the
output's numpy dtype, ``params`` the descriptor's parameters (binary rows have none),
``scale_bias`` an optional ``(scale, bias)`` pair (POW only). ``Expected.exact`` says how to
compare: exact references hold the result in the output's dtype and must match bit for bit;
the others hold float64 values that the float16/bfloat16/float32/float64 result must match
within a tolerance.

Beside the references: ``DATA`` (the random-data generators of A and B, ``helpers.random_values``
kinds) and ``EDGE_CASES`` (literal cases, written with tokens such as ``"max"`` and resolved per
data type), which ``OPINFOS`` turns into one ``opinfo.OpInfo`` record per binary operator.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import ml_dtypes
import numpy as np
from helpers import INT_RANGE, random_values
from opinfo import from_tables

from descriptors import DataType, FeatureLevel, dtype_combinations
from descriptors.optable import row_of

__all__ = ["DATA", "EDGE_CASES", "OPINFOS", "REFERENCES", "Expected"]

_Inputs = Sequence[np.ndarray]  # the logical values of A and B
_ScaleBias = tuple[float, float] | None
_FLOAT_DTYPES = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64, ml_dtypes.bfloat16))
_UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclasses.dataclass(frozen=True)
class Expected:
    """A reference result. ``atol``: a per-element absolute term of the stated accuracy, which
    ``helpers.assert_expected`` uses instead of its scalar one (the backward rows' term is per
    unit of |dd|, descriptors/accuracy.py); ``unchecked``: elements outside the operator's
    stated domain (the backward rows' intermediates beyond the compute type's normal range),
    where the stated accuracy promises nothing."""

    values: np.ndarray
    exact: bool
    atol: np.ndarray | None = None
    unchecked: np.ndarray | None = None


def _is_float(arr: np.ndarray) -> bool:
    return np.dtype(arr.dtype) in _FLOAT_DTYPES


def _f64(arr: np.ndarray) -> np.ndarray:
    return np.asarray(arr).astype(np.float64)


def _pyints(arr: np.ndarray) -> list[int]:
    """The values of an integer (or bool) array as Python ints, flat."""
    return [int(v) for v in np.asarray(arr).ravel().tolist()]


def _bits(arr: np.ndarray) -> list[int]:
    """The raw bit patterns of an array as unsigned Python ints, flat."""
    arr = np.ascontiguousarray(arr)
    return [int(v) for v in arr.view(_UINT_OF[arr.dtype.itemsize]).ravel().tolist()]


def _wrap(value: int, dtype: np.dtype) -> int:
    """``value`` modulo 2**bits, read back as the (signed or unsigned) integer type."""
    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    value %= 1 << bits
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _int_result(values: list[int], shape: tuple[int, ...], out: np.dtype) -> Expected:
    out = np.dtype(out)
    wrapped = np.array([_wrap(v, out) for v in values], dtype=object)
    return Expected(wrapped.astype(out).reshape(shape), True)


def _bits_result(values: list[int], shape: tuple[int, ...], out: np.dtype) -> Expected:
    out = np.dtype(out)
    mask = (1 << (out.itemsize * 8)) - 1
    raw = np.array([v & mask for v in values], dtype=_UINT_OF[out.itemsize]).reshape(shape)
    return Expected(raw.view(out), True)


def _bool_result(values: list[bool], shape: tuple[int, ...], out: np.dtype) -> Expected:
    return Expected(np.array([1 if v else 0 for v in values], dtype=np.uint8).astype(out).reshape(shape), True)


def _float_result(values: np.ndarray) -> Expected:
    return Expected(np.asarray(values, dtype=np.float64), False)


def _shape(a: np.ndarray, b: np.ndarray) -> tuple[int, ...]:
    return np.broadcast_shapes(np.shape(a), np.shape(b))


def _pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    shape = _shape(a, b)
    return np.broadcast_to(a, shape), np.broadcast_to(b, shape)


# --- integer building blocks (exact) -----------------------------------------------------------


def _trunc_div(x: int, y: int) -> int:
    """C integer division: toward zero; x / 0 -> 0 (API.md)."""
    if y == 0:
        return 0
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _floor_div(x: int, y: int) -> int:
    return 0 if y == 0 else x // y


def _mod_trunc(x: int, y: int) -> int:
    """C ``%``: sign of the dividend; x % 0 -> 0."""
    if y == 0:
        return 0
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def _mod_floor(x: int, y: int) -> int:
    """Python ``%``: sign of the divisor; x % 0 -> 0."""
    return 0 if y == 0 else x % y


def _int_pow(x: int, e: int, out: np.dtype) -> int:
    """Exact integer power, wrapping; a negative exponent gives 1/x**|e| truncated."""
    if e >= 0:
        return pow(x, e, 1 << (np.dtype(out).itemsize * 8))
    if x == 1:
        return 1
    if x == -1:
        return -1 if e % 2 else 1
    return 0


def _int_binary(func: Callable[[int, int], int]) -> Callable[..., Expected]:
    def ref(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
        a, b = _pairs(*inputs)
        return _int_result([func(x, y) for x, y in zip(_pyints(a), _pyints(b), strict=True)], a.shape, out)

    return ref


# --- float building blocks (float64) -----------------------------------------------------------


def _fmod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C fmod: x - y * trunc(x / y), exact; fmod(x, 0) and fmod(inf, y) are NaN, fmod(x, inf) = x."""
    with np.errstate(all="ignore"):
        return np.fmod(x, y)


def _mod_floor_float(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """a - b * floor(a / b) with the sign of the divisor (Python's float %), x % 0 -> NaN."""
    r = _fmod(x, y)
    with np.errstate(all="ignore"):
        fix = (r != 0) & ((r < 0) != (y < 0))
        r = np.where(fix, r + y, r)
    return np.where(r == 0, np.copysign(0.0, y), r)


def _floor_div_float(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """floor(a / b) of the exact quotient; IEEE a / b when b == 0; Python's own ``a // b`` when an
    operand is not finite (README, float floor division: inf // 2.0 is NaN, -5.0 // inf is -1.0)."""
    out = np.empty(x.shape, np.float64)
    for i, (p, q) in enumerate(zip(x.ravel().tolist(), y.ravel().tolist(), strict=True)):
        if q == 0:
            with np.errstate(all="ignore"):
                out.flat[i] = np.float64(p) / np.float64(q)
            continue
        if not (math.isfinite(p) and math.isfinite(q)):
            out.flat[i] = p // q
            continue
        f = math.floor(Fraction(p) / Fraction(q))
        out.flat[i] = math.copysign(0.0, p / q) if f == 0 else float(f)
    return out


def _nan_either(x: np.ndarray, y: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x) | np.isnan(y), np.nan, value)


# --- the references ----------------------------------------------------------------------------


def _arith(float_f: Callable[[np.ndarray, np.ndarray], np.ndarray], int_f: Callable[[int, int], int] | None):
    int_ref = _int_binary(int_f) if int_f is not None else None

    def ref(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
        a, b = inputs
        if _is_float(a):
            x, y = _pairs(_f64(a), _f64(b))
            with np.errstate(all="ignore"):
                return _float_result(float_f(x, y))
        if int_ref is None:
            raise TypeError("float-only operator")
        return int_ref(inputs, out)

    return ref


def add(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    return _arith(lambda x, y: x + y, lambda x, y: x + y)(inputs, out)


def subtract(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    return _arith(lambda x, y: x - y, lambda x, y: x - y)(inputs, out)


def multiply(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    return _arith(lambda x, y: x * y, lambda x, y: x * y)(inputs, out)


def divide(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """Floats: IEEE a / b. Integers: truncate toward zero, x / 0 -> 0, INT_MIN / -1 wraps."""
    return _arith(lambda x, y: x / y, _trunc_div)(inputs, out)


def maximum(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """max(a, b); NaN in either operand gives NaN (API.md)."""
    return _arith(lambda x, y: _nan_either(x, y, np.where(x >= y, x, y)), max)(inputs, out)


def minimum(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    return _arith(lambda x, y: _nan_either(x, y, np.where(x <= y, x, y)), min)(inputs, out)


def mean(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """(a + b) / 2; integers truncate toward zero (exact, no intermediate overflow). Floats: the
    sum rounded in the compute type (float32, float64 for FLOAT64 inputs), as the README's MEAN
    row says: float32 MEAN of two values near float32's maximum overflows to inf."""
    a = inputs[0]
    compute = np.float64 if _is_float(a) and np.dtype(a.dtype) == np.float64 else np.float32
    return _arith(lambda x, y: (x + y).astype(compute).astype(np.float64) / 2, lambda x, y: _trunc_div(x + y, 2))(
        inputs, out
    )


def pow_(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """pow(input * scale + bias, exponent). Integer ** integer is exact (wrapping)."""
    a, b = inputs
    if _is_float(a):
        x = _f64(a)
        if scale_bias is not None:
            # DML_SCALE_BIAS holds FLOATs, applied in the compute type, float32 (64-bit types refuse
            # it), one rounding per step: x * scale overflows there as the kernels' does (README).
            scale, bias = (np.float32(v) for v in scale_bias)
            with np.errstate(all="ignore"):
                x = (np.asarray(a).astype(np.float32) * scale + bias).astype(np.float64)
        x, e = _pairs(x, _f64(b))
        with np.errstate(all="ignore"):
            return _float_result(np.power(x, e))
    if scale_bias is not None:
        raise TypeError("ScaleBias on an integer input is undefined")
    if _is_float(b):
        raise TypeError("integer input with a float exponent is undefined")
    x, e = _pairs(a, b)
    return _int_result([_int_pow(p, q, out) for p, q in zip(_pyints(x), _pyints(e), strict=True)], x.shape, out)


def _truth(arr: np.ndarray) -> list[bool]:
    if _is_float(arr):
        return [v != 0 for v in _f64(arr).ravel().tolist()]
    return [v != 0 for v in _pyints(arr)]


def _logical(func: Callable[[bool, bool], bool]) -> Callable[..., Expected]:
    def ref(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
        a, b = _pairs(*inputs)
        return _bool_result([func(x, y) for x, y in zip(_truth(a), _truth(b), strict=True)], a.shape, out)

    return ref


def _compare(func: Callable[[object, object], bool]) -> Callable[..., Expected]:
    """a OP b written as 1/0; floats compare as IEEE values (NaN compares false)."""

    def ref(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
        a, b = _pairs(*inputs)
        if _is_float(a):
            xs, ys = _f64(a).ravel().tolist(), _f64(b).ravel().tolist()
        else:
            xs, ys = _pyints(a), _pyints(b)
        return _bool_result([func(x, y) for x, y in zip(xs, ys, strict=True)], a.shape, out)

    return ref


def _bitwise(func: Callable[[int, int], int]) -> Callable[..., Expected]:
    def ref(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
        a, b = _pairs(*inputs)
        return _bits_result([func(x, y) for x, y in zip(_bits(a), _bits(b), strict=True)], a.shape, out)

    return ref


def _shift(left: bool) -> Callable[..., Expected]:
    """Logical shifts of the raw bits; a shift of the width or more gives 0."""

    def ref(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
        a, b = _pairs(*inputs)
        width = np.dtype(a.dtype).itemsize * 8
        vals = []
        for x, s in zip(_bits(a), _bits(b), strict=True):
            if s >= width:
                vals.append(0)
            else:
                vals.append((x << s) & ((1 << width) - 1) if left else x >> s)
        return _bits_result(vals, a.shape, out)

    return ref


def modulus_truncate(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """a - b * trunc(a / b), sign of a (C fmod); integer x % 0 -> 0."""
    return _arith(_fmod, _mod_trunc)(inputs, out)


def modulus_floor(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """a - b * floor(a / b), sign of b (Python %); integer x % 0 -> 0."""
    return _arith(_mod_floor_float, _mod_floor)(inputs, out)


def atan_yx(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """atan2(y = a, x = b)."""
    return _arith(np.arctan2, None)(inputs, out)


def difference_square(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    return _arith(lambda x, y: (x - y) * (x - y), lambda x, y: (x - y) * (x - y))(inputs, out)


def floor_divide(inputs: _Inputs, out: np.dtype, params: object = None, scale_bias: _ScaleBias = None) -> Expected:
    """floor(a / b); integer x // 0 -> 0, INT_MIN // -1 wraps."""
    return _arith(_floor_div_float, _floor_div)(inputs, out)


REFERENCES: dict[str, Callable[..., Expected]] = {
    "ELEMENT_WISE_ADD": add,
    "ELEMENT_WISE_ADD1": add,  # without a fused activation; fused cases: test_fused_activation.py
    "ELEMENT_WISE_SUBTRACT": subtract,
    "ELEMENT_WISE_MULTIPLY": multiply,
    "ELEMENT_WISE_DIVIDE": divide,
    "ELEMENT_WISE_MAX": maximum,
    "ELEMENT_WISE_MIN": minimum,
    "ELEMENT_WISE_MEAN": mean,
    "ELEMENT_WISE_POW": pow_,
    "ELEMENT_WISE_LOGICAL_AND": _logical(lambda x, y: x and y),
    "ELEMENT_WISE_LOGICAL_OR": _logical(lambda x, y: x or y),
    "ELEMENT_WISE_LOGICAL_XOR": _logical(lambda x, y: x != y),
    "ELEMENT_WISE_LOGICAL_EQUALS": _compare(lambda x, y: x == y),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN": _compare(lambda x, y: x > y),
    "ELEMENT_WISE_LOGICAL_LESS_THAN": _compare(lambda x, y: x < y),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL": _compare(lambda x, y: x >= y),
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL": _compare(lambda x, y: x <= y),
    "ELEMENT_WISE_BIT_AND": _bitwise(lambda x, y: x & y),
    "ELEMENT_WISE_BIT_OR": _bitwise(lambda x, y: x | y),
    "ELEMENT_WISE_BIT_XOR": _bitwise(lambda x, y: x ^ y),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": _shift(left=True),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": _shift(left=False),
    "ELEMENT_WISE_MODULUS_TRUNCATE": modulus_truncate,
    "ELEMENT_WISE_MODULUS_FLOOR": modulus_floor,
    "ELEMENT_WISE_ATAN_YX": atan_yx,
    "ELEMENT_WISE_DIFFERENCE_SQUARE": difference_square,
    "ELEMENT_WISE_FLOOR_DIVIDE": floor_divide,
}


def _kind(kind: str) -> Callable[[DataType, tuple[int, ...], np.random.Generator], np.ndarray]:
    """The data generator ``gen(dt, shape, rng)`` of one ``helpers.random_values`` kind."""

    def gen(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        return random_values(dt, shape, rng, kind)

    gen.__name__ = gen.__qualname__ = f"random_values_{kind}"
    return gen


_ARITH, _DIVISOR, _ATAN, _LOGICAL, _BITS, _SHIFT = (
    _kind(k) for k in ("arith", "divisor", "atan", "logical", "bits", "shift")
)
# Negative bases only where the exponent is integral: test_ops_generated.operand_values sees to it.
_POW_BASE, _POW_EXP = _kind("pow_base_signed"), _kind("pow_exp")

# The random-data generators of A and B (see helpers.random_values), per operator; the others: arith.
DATA: dict[str, tuple[Callable[..., np.ndarray], ...]] = {
    "ELEMENT_WISE_DIVIDE": (_ARITH, _DIVISOR),
    "ELEMENT_WISE_MODULUS_TRUNCATE": (_ARITH, _DIVISOR),
    "ELEMENT_WISE_MODULUS_FLOOR": (_ARITH, _DIVISOR),
    "ELEMENT_WISE_FLOOR_DIVIDE": (_ARITH, _DIVISOR),
    "ELEMENT_WISE_POW": (_POW_BASE, _POW_EXP),
    "ELEMENT_WISE_LOGICAL_AND": (_LOGICAL, _LOGICAL),
    "ELEMENT_WISE_LOGICAL_OR": (_LOGICAL, _LOGICAL),
    "ELEMENT_WISE_LOGICAL_XOR": (_LOGICAL, _LOGICAL),
    "ELEMENT_WISE_BIT_AND": (_BITS, _BITS),
    "ELEMENT_WISE_BIT_OR": (_BITS, _BITS),
    "ELEMENT_WISE_BIT_XOR": (_BITS, _BITS),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": (_BITS, _SHIFT),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": (_BITS, _SHIFT),
    "ELEMENT_WISE_ATAN_YX": (_ATAN, _ATAN),
}

# Edge values, literal expectations. Tokens: "max"/"-max"/"min" (type limits), "nan", "inf",
# "-inf", "-0"; "w" = bit width (shifts, POW). Each case runs on every listed data type.

F = ("FLOAT32", "FLOAT16", "BFLOAT16")
F_ALL = (*F, "FLOAT64")
SIGNED = ("INT8", "INT16", "INT32", "INT64")
UNSIGNED = ("UINT8", "UINT16", "UINT32", "UINT64")
PI = math.pi

# (operator, data types, a, b, expected, exact) ; exact=False allows a few ulps on finite values
EDGE_CASES: list[tuple[str, tuple[str, ...], list, list, list, bool]] = [
    (
        "ADD",
        F_ALL,
        ["inf", "inf", "nan", "-0", "-0", "max", "max", 1],
        ["-inf", 1, 1, "-0", 0, "max", "-max", -1],
        ["nan", "inf", "nan", "-0", 0, "inf", 0, 0],
        True,
    ),
    (
        "ADD1",
        F_ALL,
        ["inf", "nan", "-0", "-0", "max"],
        ["-inf", 1, "-0", 0, "max"],
        ["nan", "nan", "-0", 0, "inf"],
        True,
    ),
    ("SUBTRACT", F_ALL, ["-0", "inf", "-max", 0], [0, "inf", "max", 0], ["-0", "nan", "-inf", 0], True),
    ("MULTIPLY", F_ALL, [0, "-0", "max", -1, "nan"], ["inf", 5, 2, "-0", 0], ["nan", "-0", "inf", 0, "nan"], True),
    (
        "DIVIDE",
        F_ALL,
        [1, -1, 1, 0, "inf", "-0", "max"],
        [0, 0, "-0", 0, "inf", 3, 0.5],
        ["inf", "-inf", "-inf", "nan", "nan", "-0", "inf"],
        True,
    ),
    (
        "MAX",
        F_ALL,
        ["nan", 1, "nan", "-inf", "max", "inf"],
        [1, "nan", "nan", "inf", "-max", "nan"],
        ["nan", "nan", "nan", "inf", "max", "nan"],
        True,
    ),
    (
        "MIN",
        F_ALL,
        ["nan", 1, "nan", "-inf", "max", "-inf"],
        [1, "nan", "nan", "inf", "-max", "nan"],
        ["nan", "nan", "nan", "-inf", "-max", "nan"],
        True,
    ),
    ("MEAN", F_ALL, [1, "inf", "inf", "-0", 3], [2, "-inf", 1, "-0", -3], [1.5, "nan", "inf", "-0", 0], True),
    # float16 arithmetic happens in float32: max + max does not overflow before the halving.
    ("MEAN", ("FLOAT16",), ["max", "-max"], ["max", "-max"], ["max", "-max"], True),
    # README, MEAN: the sum is rounded in the compute type, float32 (bfloat16's too) or float64: it overflows.
    ("MEAN", ("FLOAT32", "BFLOAT16"), ["max", "-max", "-max"], ["max", "-max", -1e38], ["inf", "-inf", "-inf"], True),
    (
        "MEAN",
        ("FLOAT64",),
        ["max", "-max", "-max"],
        ["max", "-max", -1e38],
        ["inf", "-inf", -float(np.finfo(np.float64).max) / 2],
        True,
    ),
    (
        "POW",
        F_ALL,
        [-8, "nan", "-0", 0, -2, 1, 4, 2, "-0", "inf", "-inf"],
        [0.5, 0, -1, -1, 3, "nan", 0.5, -1, 3, -1, 3],
        ["nan", 1, "-inf", "inf", -8, 1, 2, 0.5, "-0", 0, "-inf"],
        True,
    ),
    ("LOGICAL_EQUALS", F_ALL, ["nan", "-0", "inf", 1, "nan"], ["nan", 0, "inf", 2, 1], [0, 1, 1, 0, 0], True),
    ("LOGICAL_GREATER_THAN", F_ALL, ["nan", "inf", 1, "-0", "max"], [1, "max", "nan", 0, "inf"], [0, 1, 0, 0, 0], True),
    ("LOGICAL_LESS_THAN", F_ALL, ["nan", "inf", 1, "-0", "max"], [1, "max", "nan", 0, "inf"], [0, 0, 0, 0, 1], True),
    (
        "LOGICAL_GREATER_THAN_OR_EQUAL",
        F_ALL,
        ["nan", "inf", 1, "-0", "max"],
        [1, "max", "nan", 0, "inf"],
        [0, 1, 0, 1, 0],
        True,
    ),
    (
        "LOGICAL_LESS_THAN_OR_EQUAL",
        F_ALL,
        ["nan", "inf", 1, "-0", "max"],
        [1, "max", "nan", 0, "inf"],
        [0, 0, 0, 1, 1],
        True,
    ),
    (
        "MODULUS_TRUNCATE",
        F_ALL,
        [-5, 5, 5, "-0", 5, "inf", 5.5, -5.5],
        [3, -3, 0, 1, "inf", 2, 2, 2],
        [-2, 2, "nan", "-0", 5, "nan", 1.5, -1.5],
        True,
    ),
    ("MODULUS_FLOOR", F_ALL, [-5, 5, 5, -5.5, 5.5], [3, -3, 0, 2, -2], [1, -1, "nan", 0.5, -0.5], True),
    (
        "ATAN_YX",
        F_ALL,
        [0, "-0", 1, "inf", -1, 1],
        [-1, -1, 0, "inf", "-inf", 1],
        [PI, -PI, PI / 2, PI / 4, -PI, PI / 4],
        False,
    ),
    (
        "FLOOR_DIVIDE",
        F_ALL,
        [-5, 5, 5, -5, 0, 7, 6],
        [2, 2, 0, 0, 0, -2, 3],
        [-3, 2, "inf", "-inf", "nan", -4, 2],
        True,
    ),
    ("DIFFERENCE_SQUARE", F_ALL, ["inf", 3, "max", "nan"], ["inf", -1, "-max", 1], ["nan", 16, "inf", "nan"], True),
    # integers
    ("ADD", SIGNED, ["max", "min", -1], [1, -1, 1], ["min", "max", 0], True),
    ("ADD", UNSIGNED, ["max", "max"], [1, "max"], [0, "max-1"], True),
    ("SUBTRACT", SIGNED, ["min", "max"], [1, -1], ["max", "min"], True),
    ("SUBTRACT", UNSIGNED, [0, 5], [1, 7], ["max", "max-1"], True),
    ("MULTIPLY", SIGNED, ["min", "max", -3], [-1, "max", 5], ["min", 1, -15], True),
    ("MULTIPLY", UNSIGNED, ["max", "max"], ["max", 2], [1, "max-1"], True),
    (
        "DIVIDE",
        SIGNED,
        [7, -7, 7, -7, 5, "min", "min", "max", 0],
        [2, 2, -2, -2, 0, -1, 1, -1, 0],
        [3, -3, -3, 3, 0, "min", "min", "-max", 0],
        True,
    ),
    ("DIVIDE", UNSIGNED, [7, "max", 0, "max"], [2, 0, 0, 1], [3, 0, 0, "max"], True),
    (
        "MODULUS_TRUNCATE",
        SIGNED,
        [-7, 7, 5, "min", -7, "min", 0],
        [2, -2, 0, -1, -7, "max", 0],
        [-1, 1, 0, 0, 0, -1, 0],
        True,
    ),
    ("MODULUS_TRUNCATE", UNSIGNED, [7, "max", 5], [2, 0, 0], [1, 0, 0], True),
    (
        "MODULUS_FLOOR",
        SIGNED,
        [-7, 7, 5, "min", -7, "min", 0],
        [2, -2, 0, -1, -7, "max", 0],
        [1, -1, 0, 0, 0, "max-1", 0],
        True,
    ),
    ("MODULUS_FLOOR", UNSIGNED, [7, "max", 5], [2, 0, 0], [1, 0, 0], True),
    ("FLOOR_DIVIDE", SIGNED, [-7, 7, 5, "min", 7, -1], [2, -2, 0, -1, 2, 3], [-4, -4, 0, "min", 3, -1], True),
    ("FLOOR_DIVIDE", UNSIGNED, [7, "max", 0], [2, 0, 0], [3, 0, 0], True),
    # README, float floor division: as Python's //, non-finite operands included (inf // 2 is NaN,
    # -5 // inf is -1, a zero quotient takes the sign of a / b).
    (
        "FLOOR_DIVIDE",
        F_ALL,
        ["inf", -5, 5, "-0", 0, "-inf", 3, -3, "nan"],
        [2, "inf", "-inf", "inf", "-inf", "inf", "inf", "-inf", "inf"],
        ["nan", -1, -1, "-0", "-0", "nan", 0, 0, "nan"],
        True,
    ),
    (
        "MEAN",
        ("INT32",),
        [-3, -1, "max", "min", 3, -1],
        [0, 0, "max", "min", 0, "min"],
        [-1, 0, "max", "min", 1, "min/2"],
        True,
    ),
    ("MEAN", ("UINT32",), ["max", 1, "max"], ["max", 0, "max-1"], ["max", 0, "max-1"], True),
    ("MAX", (*SIGNED, *UNSIGNED), ["min", "max", 3], ["max", "min", 3], ["max", "max", 3], True),
    ("MIN", (*SIGNED, *UNSIGNED), ["min", "max", 3], ["max", "min", 3], ["min", "min", 3], True),
    (
        "POW",
        ("INT8", "INT16", "INT32"),
        [2, -1, -1, 1, 2, 0, 0, -2, 3, -2],
        ["w-1", -3, -2, -5, -1, -1, 0, 3, 2, 1],
        ["min", -1, 1, 1, 0, 0, 1, -8, 9, -2],
        True,
    ),
    ("POW", ("UINT8", "UINT16", "UINT32"), [2, 2, 0, 3, "max"], ["w-1", "w", 0, 2, 2], ["2^(w-1)", 0, 1, 9, 1], True),
    (
        "BIT_SHIFT_LEFT",
        UNSIGNED,
        [1, 1, 1, "max", 3, 1],
        ["w-1", "w", "w+1", 1, 0, "max"],
        ["2^(w-1)", 0, 0, "max-1", 3, 0],
        True,
    ),
    (
        "BIT_SHIFT_RIGHT",
        UNSIGNED,
        ["max", "max", "max", 8, "max"],
        ["w-1", "w", "max", 2, 0],
        [1, 0, 0, 2, "max"],
        True,
    ),
    ("LOGICAL_AND", ("UINT8", "UINT32"), [2, 0, 128, 3, 0], [4, 5, 0, 1, 0], [1, 0, 0, 1, 0], True),
    ("LOGICAL_OR", ("UINT8", "UINT32"), [2, 0, 128, 3, 0], [4, 5, 0, 1, 0], [1, 1, 1, 1, 0], True),
    ("LOGICAL_XOR", ("UINT8", "UINT32"), [2, 0, 128, 3, 0], [4, 5, 0, 1, 0], [0, 1, 1, 0, 0], True),
    ("LOGICAL_EQUALS", (*SIGNED, *UNSIGNED), ["min", "max", 0], ["min", "min", 0], [1, 0, 1], True),
    ("LOGICAL_GREATER_THAN", (*SIGNED, *UNSIGNED), ["max", "min", 0], ["min", "max", 0], [1, 0, 0], True),
    ("LOGICAL_LESS_THAN_OR_EQUAL", (*SIGNED, *UNSIGNED), ["max", "min", 0], ["min", "max", 0], [0, 1, 1], True),
    ("BIT_AND", SIGNED, [-1, "min", -2], [5, -1, 3], [5, "min", 2], True),
    ("BIT_OR", SIGNED, ["min", 0, -2], [1, 0, 1], ["min+1", 0, -1], True),
    ("BIT_XOR", SIGNED, ["min", 5, -1], [-1, 5, 0], ["max", 0, -1], True),
    ("DIFFERENCE_SQUARE", ("INT32", "UINT32"), [0, "max", 3], [1, 0, 3], [1, 1, 0], True),
]


def _token(tok: object, dt: DataType) -> object:
    """A literal value of the table for data type ``dt`` (Python float or int)."""
    if isinstance(tok, (int, float)):
        return tok
    assert isinstance(tok, str)
    if dt.is_float:
        big = float(ml_dtypes.finfo(dt.numpy_dtype).max)
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0, "max": big, "-max": -big}[tok]
    lo, hi = INT_RANGE(dt)
    w = dt.numpy_dtype.itemsize * 8
    return {
        "max": hi,
        "min": lo,
        "-max": -hi,
        "max-1": hi - 1,
        "min+1": lo + 1,
        "min/2": lo // 2,
        "w": w,
        "w-1": w - 1,
        "w+1": w + 1,
        "2^(w-1)": 2 ** (w - 1),
    }[tok]


def _literal_array(vals: list, dt: DataType) -> np.ndarray:
    """The table's literals as values of ``dt`` (through float64 for floats: 1e38 in bfloat16)."""
    with np.errstate(all="ignore"):
        return np.array([_token(v, dt) for v in vals], dtype=np.float64 if dt.is_float else object).astype(
            dt.numpy_dtype
        )


def _edge(name: str, dt_name: str, a: list, b: list, want: list, exact: bool) -> tuple[object, ...]:
    """One case of ``EDGE_CASES`` on one data type, in the records' form ``(inputs, params, expected, exact,
    data types by role)``: A and B of type ``dt_name``, the output of the same type or UINT8 (comparisons);
    expected values float64 for a float output (the test rounds them to it), else of the output's type."""
    dt = DataType[dt_name]
    row = row_of(name)
    roles = [*(f.name for f in row.input_fields), row.output_fields[0].name]
    combos = [
        c
        for c in dtype_combinations(name, FeatureLevel.FL_6_4)
        if all(v is dt for k, v in c.items() if k != "output_tensor")
        and (c["output_tensor"] is dt or c["output_tensor"] is DataType.UINT8)
    ]
    if not combos:
        raise ValueError(f"the edge table names {name} {dt_name}, which FL_6_4 does not accept")
    combo = combos[0]
    dt_a, dt_b, dt_o = (combo[r] for r in roles)
    if dt_o.is_float:
        expected = np.array([_token(v, dt_o) for v in want], np.float64)
    else:  # tokens of the inputs' type (MEAN's "min/2", the shifts' "2^(w-1)")
        expected = np.array([_token(v, dt_a) if isinstance(v, str) else v for v in want], dtype=object).astype(
            dt_o.numpy_dtype
        )
    return ([_literal_array(a, dt_a), _literal_array(b, dt_b)], {}, expected, exact, combo)


def _edges_by_operator() -> dict[str, list[tuple[object, ...]]]:
    by_name: dict[str, list[tuple[object, ...]]] = {}
    for op, dts, *case in EDGE_CASES:
        name = "ELEMENT_WISE_" + op
        by_name.setdefault(name, []).extend(_edge(name, dt_name, *case) for dt_name in dts)
    return by_name


OPINFOS = from_tables(REFERENCES, data=DATA, edges=_edges_by_operator())
