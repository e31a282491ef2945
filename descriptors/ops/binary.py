"""Op-table rows of the binary element-wise family (DML_ELEMENT_WISE_* with A, B, Output).

Tier sources: MicrosoftDocs/sdk-api ``sdk-api-src/content/directml/
ns-directml-dml_element_wise_<op>_operator_desc.md``, newest revision, as transcribed in
``docs/reference/directml.md`` section 2.4 (page commit given where known).
"""

from __future__ import annotations

import numpy as np

from ..cuda_helpers import Helper
from ..enums import FeatureLevel as FL
from ..schema import Accuracy, Domain, ElementwiseRow, Exprs, Family, Field, FieldKind, Tier, types
from . import common_numpy as npi

__all__ = ["BINARY_HELPERS", "BINARY_ROWS"]

_IN, _OUT, _SB = FieldKind.INPUT_TENSOR, FieldKind.OUTPUT_TENSOR, FieldKind.SCALE_BIAS
# DirectML's {ATensor, BTensor, OutputTensor}; fused_activation is a gpuops extension on every
# binary operator (DirectML has it on ELEMENT_WISE_ADD1 only).
BINARY_FIELDS = (
    Field("a_tensor", _IN),
    Field("b_tensor", _IN),
    Field("output_tensor", _OUT),
    Field("fused_activation", FieldKind.FUSED_ACTIVATION, extension=True),
)
ADD1_FIELDS = (*BINARY_FIELDS[:3], Field("fused_activation", FieldKind.FUSED_ACTIVATION))
_ABO = (("a_tensor", "b_tensor", "output_tensor"),)
_AB = (("a_tensor", "b_tensor"),)

_DOC = "sdk-api ns-directml-dml_element_wise_{}_operator_desc.md"
_EXT_FLOAT = types("F64 BF16")


def same(since: FL, dims: tuple[int, int], spec: str, source: str) -> Tier:
    """A tier where A, B and Output take the same types and must share one."""
    t = types(spec)
    return Tier(since, dims, {"a_tensor": t, "b_tensor": t, "output_tensor": t}, _ABO, source)


def compare(since: FL, dims: tuple[int, int], spec: str, out: str, source: str) -> Tier:
    """A tier where A and B share a type and Output holds 0/1 in its own type."""
    t = types(spec)
    return Tier(since, dims, {"a_tensor": t, "b_tensor": t, "output_tensor": types(out)}, _AB, source)


def ext_same(spec: str) -> dict[str, frozenset]:
    t = types(spec)
    return {"a_tensor": t, "b_tensor": t, "output_tensor": t}


def ext_compare(spec: str, out: str) -> dict[str, frozenset]:
    t = types(spec)
    return {"a_tensor": t, "b_tensor": t, "output_tensor": types(out)}


def exprs(cuda: dict[str, str], numpy: dict, single: tuple[str, ...] = ()) -> Exprs:
    return Exprs(cuda=cuda, numpy=numpy, numpy_single_ufunc=frozenset(single))


def _arith_tiers(doc: str, rows: list[tuple[FL, tuple[int, int], str]]) -> tuple[Tier, ...]:
    return tuple(same(fl, d, spec, _DOC.format(doc)) for fl, d, spec in rows)


_ALL10 = "F32 F16 all-int"
_ADD_TIERS = [
    (FL.FL_5_1, (1, 8), _ALL10),
    (FL.FL_4_1, (1, 8), "F32 F16 I64 I32 U64 U32"),
    (FL.FL_3_0, (1, 8), "F32 F16 I32 U32"),
    (FL.FL_2_1, (4, 5), "F32 F16 I32 U32"),
    (FL.FL_1_0, (4, 5), "F32 F16"),
]
_DIVIDE_TIERS = [
    (FL.FL_6_0, (1, 8), _ALL10),
    (FL.FL_5_1, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8"),
    (FL.FL_3_0, (1, 8), "F32 F16 I32 U32"),
    (FL.FL_2_1, (4, 4), "F32 F16 I32 U32"),
    (FL.FL_1_0, (4, 4), "F32 F16"),
]
_MAXMIN_TIERS = [
    (FL.FL_5_0, (1, 8), _ALL10),
    (FL.FL_3_0, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8"),
    (FL.FL_2_1, (4, 4), "F32 F16 I32 I16 I8 U32 U16 U8"),
    (FL.FL_1_0, (4, 4), "F32 F16"),
]
_MOD_TIERS = [
    (FL.FL_6_0, (1, 8), _ALL10),
    (FL.FL_3_0, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8"),
    (FL.FL_2_1, (4, 4), "F32 F16 I32 I16 I8 U32 U16 U8"),
]
_BIT_TIERS = [
    (FL.FL_4_1, (1, 8), "F64 F32 F16 all-int"),
    (FL.FL_3_0, (1, 8), "U32 U16 U8"),
]
_SHIFT_TIERS = [
    (FL.FL_4_1, (1, 8), "U64 U32 U16 U8"),
    (FL.FL_3_0, (1, 8), "U32 U16 U8"),
    (FL.FL_2_1, (4, 4), "U32 U16 U8"),
]
_LOGICAL_TIERS = [
    (FL.FL_3_0, (1, 8), "U32 U8"),
    (FL.FL_2_0, (4, 4), "U32 U8"),
    (FL.FL_1_0, (4, 4), "U32"),
]


def _compare_tiers(doc: str) -> tuple[Tier, ...]:
    src = _DOC.format(doc)
    return (
        compare(FL.FL_4_1, (1, 8), _ALL10, "U32 U8", src),
        compare(FL.FL_3_0, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8", "U32 U8", src),
        compare(FL.FL_2_1, (4, 4), "F32 F16 I32 I16 I8 U32 U16 U8", "U32 U8", src),
        compare(FL.FL_2_0, (4, 4), "F32 F16", "U32 U8", src),
        compare(FL.FL_1_0, (4, 4), "F32 F16", "U32", src),
    )


def _compare_ge_tiers(doc: str) -> tuple[Tier, ...]:
    src = _DOC.format(doc)
    return (
        compare(FL.FL_4_1, (1, 8), _ALL10, "U32 U8", src),
        compare(FL.FL_3_0, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8", "U32 U8", src),
    )


# CUDA helpers of this family: C's integer division and remainder with API.md's zero-divisor
# and INT_MIN / -1 rules, NumPy's npy_divmod for floats, exact integer powers, NumPy's shifts.
BINARY_HELPERS: dict[str, Helper] = {
    "int_div": Helper(
        """
// Integer division truncating toward zero; x / 0 == 0; INT_MIN / -1 wraps to INT_MIN.
template <typename T, typename U>
__device__ __forceinline__ T gpuops_div_trunc(T x, T y) {
  if (y == T(0)) return T(0);
  if (T(-1) < T(0) && y == T(-1)) return T(U(0) - U(x));
  return T(x / y);
}
// C remainder (sign of the dividend); x % 0 == 0; INT_MIN % -1 == 0.
template <typename T>
__device__ __forceinline__ T gpuops_mod_trunc(T x, T y) {
  if (y == T(0)) return T(0);
  if (T(-1) < T(0) && y == T(-1)) return T(0);
  return T(x % y);
}
// Python remainder (sign of the divisor); x % 0 == 0.
template <typename T>
__device__ __forceinline__ T gpuops_mod_floor(T x, T y) {
  T r = gpuops_mod_trunc<T>(x, y);
  if (r != T(0) && ((r < T(0)) != (y < T(0)))) r = T(r + y);
  return r;
}
// Floor division; x // 0 == 0; INT_MIN // -1 wraps to INT_MIN.
template <typename T, typename U>
__device__ __forceinline__ T gpuops_div_floor(T x, T y) {
  T q = gpuops_div_trunc<T, U>(x, y);
  if (gpuops_mod_trunc<T>(x, y) != T(0) && ((x < T(0)) != (y < T(0)))) q = T(U(q) - U(1));
  return q;
}
""",
        (),
    ),
    "float_divmod": Helper(
        """
// NumPy's npy_divmod: Python's floor division and remainder for floats.
template <typename F>
__device__ __forceinline__ F gpuops_fmod_floor(F a, F b) {
  F mod = gpuops_fmod(a, b);
  if (b == F(0)) return mod;
  if (mod != F(0)) {
    if ((b < F(0)) != (mod < F(0))) mod += b;
  } else {
    mod = gpuops_copysign(F(0), b);
  }
  return mod;
}
template <typename F>
__device__ __forceinline__ F gpuops_fdiv_floor(F a, F b) {
  if (b == F(0)) return a / b;
  F mod = gpuops_fmod(a, b);
  F div = (a - mod) / b;
  if (mod != F(0) && ((b < F(0)) != (mod < F(0)))) div -= F(1);
  F floordiv;
  if (div != F(0)) {
    floordiv = gpuops_floor(div);
    if (div - floordiv > F(0.5)) floordiv += F(1);
  } else {
    floordiv = gpuops_copysign(F(0), a / b);
  }
  return floordiv;
}
""",
        ("float_overloads",),
    ),
    "int_pow": Helper(
        """
// Exact integer power, wrapping like C unsigned arithmetic. A negative exponent gives the
// truncated result: 1 for x == 1, +-1 for x == -1, otherwise 0 (0 ** -n too, like x / 0).
template <typename T, typename U, typename E>
__device__ __forceinline__ T gpuops_ipow(T x, E e) {
  if (E(-1) < E(0) && e < E(0)) {
    if (x == T(1)) return T(1);
    if (T(-1) < T(0) && x == T(U(0) - U(1))) return (e & E(1)) ? x : T(1);
    return T(0);
  }
  U r = U(1), b = U(x);
  unsigned long long n = (unsigned long long)e;
  while (n) {
    if (n & 1ULL) r = U(r * b);
    b = U(b * b);
    n >>= 1;
  }
  return T(r);
}
""",
        (),
    ),
    "shift": Helper(
        """
// Logical shifts; a shift by the width or more gives 0 (as NumPy's npy_lshift/npy_rshift).
template <typename T>
__device__ __forceinline__ T gpuops_shl(T x, T y) {
  return y >= T(8 * sizeof(T)) ? T(0) : T(x << y);
}
template <typename T>
__device__ __forceinline__ T gpuops_shr(T x, T y) {
  return y >= T(8 * sizeof(T)) ? T(0) : T(x >> y);
}
""",
        (),
    ),
}

_WRAP = "(T)((U)x {} (U)y)"


def _binary(
    name: str,
    summary: str,
    domain: Domain,
    cuda: dict[str, str],
    numpy: dict,
    tiers: tuple[Tier, ...],
    *,
    in_place: bool,
    single: tuple[str, ...] = (),
    helpers: tuple[str, ...] = (),
    ext: dict | None = None,
    extension: bool = False,
    notes: str = "",
    compare_output: bool = False,
    accuracy: Accuracy | None = None,
) -> ElementwiseRow:
    return ElementwiseRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        # The fused_activation extension needs numbers out: arithmetic operators, not comparisons.
        fields=BINARY_FIELDS if domain is Domain.ARITH and not compare_output else BINARY_FIELDS[:3],
        domain=domain,
        exprs=exprs(cuda, numpy, single),
        tiers=tiers,
        summary=summary,
        in_place=in_place,
        helpers=helpers,
        extension_types=ext if ext is not None else {},
        extension=extension,
        family=Family.BINARY,
        notes=notes,
        accuracy=accuracy,
    )


_A = Domain.ARITH
_EXT_ARITH = ext_same("F64 BF16")
_CMP_EXT = ext_compare("F64 BF16", "BOOL")
_ANY_UFUNC = ("any",)


def _cmp_row(name: str, op: str, uf: np.ufunc, tiers: tuple[Tier, ...]) -> ElementwiseRow:
    return _binary(
        name,
        f"a {op} b, written as 1 or 0",
        _A,
        {"any": f"x {op} y"},
        {"any": uf},
        tiers,
        in_place=False,
        single=_ANY_UFUNC,
        ext=_CMP_EXT,
        compare_output=True,
    )


def _logical_row(name: str, summary: str, cuda: str, uf: np.ufunc, in_place: bool) -> ElementwiseRow:
    src = _DOC.format("logical_and")
    tiers = tuple(same(fl, d, spec, src) for fl, d, spec in _LOGICAL_TIERS)
    return _binary(
        name,
        summary,
        Domain.LOGICAL,
        {"any": cuda},
        {"any": uf},
        tiers,
        in_place=in_place,
        single=_ANY_UFUNC,
        ext=ext_same("BOOL"),
        notes="LOGICAL_OR/XOR tables assumed equal to LOGICAL_AND's (reference 2.4 caveat).",
    )


def _bit_row(name: str, op: str, uf: np.ufunc) -> ElementwiseRow:
    return _binary(
        name,
        f"a {op} b on the raw bits",
        Domain.BITS,
        {"any": f"x {op} y"},
        {"any": uf},
        _arith_tiers("bit_and", _BIT_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        ext=ext_same("BF16"),
        notes="BIT_OR/XOR tables assumed equal to BIT_AND's (reference 2.4 caveat).",
    )


def _shift_row(name: str, helper: str, uf: np.ufunc, summary: str) -> ElementwiseRow:
    return _binary(
        name,
        summary,
        Domain.BITS,
        {"any": f"{helper}<T>(x, y)"},
        {"any": uf},
        _arith_tiers(name.removeprefix("ELEMENT_WISE_").lower(), _SHIFT_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        helpers=("shift",),
    )


BINARY_ROWS: tuple[ElementwiseRow, ...] = (
    _binary(
        "ELEMENT_WISE_ADD",
        "a + b",
        _A,
        {"float": "x + y", "int": _WRAP.format("+")},
        {"any": np.add},
        _arith_tiers("add", _ADD_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        ext=_EXT_ARITH,
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_ADD1",
        struct="DML_ELEMENT_WISE_ADD1_OPERATOR_DESC",
        fields=ADD1_FIELDS,
        domain=_A,
        exprs=exprs({"float": "x + y"}, {"float": np.add}, ("float",)),
        tiers=tuple(
            same(fl, d, spec, "sdk-api ns-directml-dml_element_wise_add1_operator_desc.md @ea899bd")
            for fl, d, spec in [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_2_0, (4, 5), "F32 F16")]
        ),
        summary="FusedActivation(a + b); the activation runs in the same kernel",
        in_place=True,
        extension_types=_EXT_ARITH,
        family=Family.BINARY,
    ),
    _binary(
        "ELEMENT_WISE_SUBTRACT",
        "a - b",
        _A,
        {"float": "x - y", "int": _WRAP.format("-")},
        {"any": np.subtract},
        _arith_tiers(
            "subtract",
            [
                (FL.FL_5_1, (1, 8), _ALL10),
                (FL.FL_4_1, (1, 8), "F32 F16 I64 I32 U64 U32"),
                (FL.FL_3_0, (1, 8), "F32 F16 I32 U32"),
                (FL.FL_2_1, (4, 4), "F32 F16 I32 U32"),
                (FL.FL_1_0, (4, 4), "F32 F16"),
            ],
        ),
        in_place=True,
        single=_ANY_UFUNC,
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_MULTIPLY",
        "a * b",
        _A,
        {"float": "x * y", "int": _WRAP.format("*")},
        {"any": np.multiply},
        _arith_tiers("multiply", _ADD_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_DIVIDE",
        "a / b; integers truncate toward zero, x / 0 == 0",
        _A,
        {"float": "x / y", "int": "gpuops_div_trunc<T, U>(x, y)"},
        {"float": np.divide, "int": npi.div_trunc},
        _arith_tiers("divide", _DIVIDE_TIERS),
        in_place=True,
        single=("float",),
        helpers=("int_div",),
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_MAX",
        "max(a, b); NaN propagates",
        _A,
        {"float": "gpuops_max_nan(x, y)", "int": "(x >= y ? x : y)"},
        {"float": npi.maximum_float, "int": np.maximum},
        _arith_tiers("max", _MAXMIN_TIERS),
        in_place=True,
        single=("float", "int"),  # npi.maximum_float may write over its operands
        helpers=("nan_max_min",),
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_MIN",
        "min(a, b); NaN propagates",
        _A,
        {"float": "gpuops_min_nan(x, y)", "int": "(x <= y ? x : y)"},
        {"float": npi.minimum_float, "int": np.minimum},
        _arith_tiers("min", _MAXMIN_TIERS),
        in_place=True,
        single=("float", "int"),  # npi.minimum_float may write over its operands
        helpers=("nan_max_min",),
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_MEAN",
        "(a + b) / 2; integers truncate toward zero",
        _A,
        {"float": "(x + y) * T(0.5)", "int": "T(((long long)x + (long long)y) / 2)"},
        {"float": npi.mean_float, "int": npi.mean_int},
        _arith_tiers(
            "mean",
            [
                (FL.FL_3_0, (1, 8), "F32 F16 I32 U32"),
                (FL.FL_2_1, (4, 4), "F32 F16 I32 U32"),
                (FL.FL_1_0, (4, 4), "F32 F16"),
            ],
        ),
        in_place=True,
        ext=_EXT_ARITH,
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_POW",
        struct="DML_ELEMENT_WISE_POW_OPERATOR_DESC",
        fields=(
            Field("input_tensor", _IN),
            Field("exponent_tensor", _IN),
            Field("output_tensor", _OUT),
            Field("scale_bias", _SB),
            Field("fused_activation", FieldKind.FUSED_ACTIVATION, extension=True),
        ),
        domain=_A,
        exprs=exprs(
            {"float": "gpuops_pow(x, y)", "int": "gpuops_ipow<T, U>(x, y)"},
            {"float": npi.pow_float, "int": npi.int_pow},
            (),
        ),
        tiers=(
            Tier(
                FL.FL_3_0,
                (1, 8),
                dict.fromkeys(
                    ("input_tensor", "exponent_tensor", "output_tensor"), types("F32 F16 I32 I16 I8 U32 U16 U8")
                ),
                (("input_tensor", "output_tensor"),),
                _DOC.format("pow"),
            ),
            Tier(
                FL.FL_1_0,
                (4, 4),
                dict.fromkeys(("input_tensor", "exponent_tensor", "output_tensor"), types("F32 F16")),
                (("input_tensor", "exponent_tensor", "output_tensor"),),
                _DOC.format("pow"),
            ),
        ),
        summary="pow(input * scale + bias, exponent); integer ** integer is exact (wrapping)",
        in_place=True,
        family=Family.BINARY,
        helpers=("float_overloads", "int_pow"),
        extension_types=dict.fromkeys(("input_tensor", "exponent_tensor", "output_tensor"), _EXT_FLOAT),
        notes="An integer input needs an integer exponent and no scale_bias (gpuops rule: "
        "DirectML leaves the rounding of a float result into an integer output undefined).",
        # pow and atan2 go beyond one correctly rounded operation: libm and CUDA are each documented
        # within a few ulps; the generated binary tests allow 16.
        accuracy=Accuracy(16.0),
    ),
    _logical_row("ELEMENT_WISE_LOGICAL_AND", "a && b (nonzero is true)", "(x != 0) && (y != 0)", np.logical_and, True),
    _logical_row("ELEMENT_WISE_LOGICAL_OR", "a || b (nonzero is true)", "(x != 0) || (y != 0)", np.logical_or, True),
    _logical_row(
        "ELEMENT_WISE_LOGICAL_XOR", "a xor b (nonzero is true)", "(x != 0) != (y != 0)", np.logical_xor, False
    ),
    _cmp_row("ELEMENT_WISE_LOGICAL_EQUALS", "==", np.equal, _compare_tiers("logical_equals")),
    _cmp_row("ELEMENT_WISE_LOGICAL_GREATER_THAN", ">", np.greater, _compare_tiers("logical_greater_than")),
    _cmp_row("ELEMENT_WISE_LOGICAL_LESS_THAN", "<", np.less, _compare_tiers("logical_less_than")),
    _cmp_row(
        "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
        ">=",
        np.greater_equal,
        _compare_ge_tiers("logical_greater_than_or_equal"),
    ),
    _cmp_row(
        "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL",
        "<=",
        np.less_equal,
        _compare_ge_tiers("logical_less_than_or_equal"),
    ),
    _bit_row("ELEMENT_WISE_BIT_AND", "&", np.bitwise_and),
    _bit_row("ELEMENT_WISE_BIT_OR", "|", np.bitwise_or),
    _bit_row("ELEMENT_WISE_BIT_XOR", "^", np.bitwise_xor),
    _shift_row("ELEMENT_WISE_BIT_SHIFT_LEFT", "gpuops_shl", np.left_shift, "a << b (logical; b >= width gives 0)"),
    _shift_row("ELEMENT_WISE_BIT_SHIFT_RIGHT", "gpuops_shr", np.right_shift, "a >> b (logical; b >= width gives 0)"),
    _binary(
        "ELEMENT_WISE_MODULUS_TRUNCATE",
        "a - b * trunc(a / b) (sign of a); integer x % 0 == 0",
        _A,
        {"float": "gpuops_fmod(x, y)", "int": "gpuops_mod_trunc<T>(x, y)"},
        {"any": np.fmod},
        _arith_tiers("modulus_truncate", _MOD_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        helpers=("float_overloads", "int_div"),
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_MODULUS_FLOOR",
        "a - b * floor(a / b) (sign of b); integer x % 0 == 0",
        _A,
        {"float": "gpuops_fmod_floor(x, y)", "int": "gpuops_mod_floor<T>(x, y)"},
        {"any": np.remainder},
        _arith_tiers("modulus_floor", _MOD_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        helpers=("float_divmod", "int_div"),
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_ATAN_YX",
        "atan2(y = a, x = b)",
        _A,
        {"float": "gpuops_atan2(x, y)"},
        {"float": np.arctan2},
        _arith_tiers("atan_yx", [(FL.FL_3_1, (1, 8), "F32 F16")]),
        in_place=True,
        single=("float",),
        helpers=("float_overloads",),
        ext=_EXT_ARITH,
        # pow and atan2 go beyond one correctly rounded operation: libm and CUDA are each documented
        # within a few ulps; the generated binary tests allow 16.
        accuracy=Accuracy(16.0),
    ),
    _binary(
        "ELEMENT_WISE_DIFFERENCE_SQUARE",
        "(a - b) * (a - b)",
        _A,
        {"float": "(x - y) * (x - y)", "int": "(T)(((U)x - (U)y) * ((U)x - (U)y))"},
        {"any": npi.difference_square},
        _arith_tiers("difference_square", [(FL.FL_3_1, (1, 8), "F32 F16 I32 U32")]),
        in_place=True,
        ext=_EXT_ARITH,
    ),
    _binary(
        "ELEMENT_WISE_FLOOR_DIVIDE",
        "floor(a / b) as Python's a // b (TensorRT FLOOR_DIV, OpenVINO Divide pythondiv); integer x // 0 == 0",
        _A,
        {"float": "gpuops_fdiv_floor(x, y)", "int": "gpuops_div_floor<T, U>(x, y)"},
        {"any": np.floor_divide},
        tuple(same(fl, d, spec, "gpuops extension, tiers mirror ELEMENT_WISE_DIVIDE") for fl, d, spec in _DIVIDE_TIERS),
        in_place=True,
        single=_ANY_UFUNC,
        helpers=("float_divmod", "int_div"),
        ext=_EXT_ARITH,
        extension=True,
    ),
)
