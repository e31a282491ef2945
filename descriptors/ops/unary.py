"""Op-table rows of the unary element-wise family (DML_ELEMENT_WISE_* with one data input).

Most have ``{InputTensor, OutputTensor, ScaleBias}`` (reference section 2.1): the
ScaleBias applies to the input first, ``f(x * scale + bias)``, in float32. Tier sources:
sdk-api ``ns-directml-dml_element_wise_<op>_operator_desc.md`` as transcribed in
docs/reference/directml.md section 2.4 (where that section says a table was not opened and
is assumed equal to a sibling's, the tier's source says so). Also here: IF (a select on raw
bits), the CLIP_GRAD pair (family "grad"), which read more than one tensor, and the quantization rows
(QUANTIZE/DEQUANTIZE_LINEAR, QUANTIZED_LINEAR_ADD with its eight inputs, named by role: ``operands``).

Semantics where DirectML is silent (the same on both backends, bit for bit):

- CLIP / CLIP1 / THRESHOLD are comparisons: ``max(Min, x)`` is ``Min if x < Min else x`` and
  ``min(Max, v)`` is ``Max if v > Max else v``. So a NaN input stays NaN, a NaN bound clamps
  nothing, and ``-0.0`` against a bound ``0.0`` keeps ``-0.0``. CLIP with Min > Max gives Max,
  CLIP1 gives Min (DirectML's two formula orders).
- FLOAT bounds on integer tensors compare exactly, as real numbers: for CLIP and THRESHOLD a
  lower bound becomes ceil(Min), an upper bound floor(Max), saturated to the type's range;
  CLIP_GRAD's ``x <= Min`` and ``x >= Max`` hold exactly when they hold for the real values.
- CLIP_GRAD passes the gradient where the input is NaN (neither ``x <= Min`` nor ``x >= Max``).
- Integers wrap: NEGATE and ABS of INT_MIN give INT_MIN. SIGN gives -1/0/1, ``-0.0 -> 0``,
  NaN -> NaN. ROUND TOWARD_INFINITY is C's round() (halves away from zero, -0.4 -> -0.0).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..cuda_helpers import Helper
from ..enums import DataType, IsInfinityMode, RoundingMode
from ..enums import FeatureLevel as FL
from ..schema import Accuracy, Domain, ElementwiseRow, Exprs, Family, Field, FieldKind, Tier, types
from . import common_numpy as npi
from . import unary_numpy as npu

__all__ = ["UNARY_HELPERS", "UNARY_ROWS"]

_IN, _OUT, _SB = FieldKind.INPUT_TENSOR, FieldKind.OUTPUT_TENSOR, FieldKind.SCALE_BIAS
_IO = (("input_tensor", "output_tensor"),)
UNARY_SB_FIELDS = (Field("input_tensor", _IN), Field("output_tensor", _OUT), Field("scale_bias", _SB))
UNARY_FIELDS = UNARY_SB_FIELDS[:2]
_DOC = "sdk-api ns-directml-dml_element_wise_{}_operator_desc.md"
EXT_FLOAT = {"input_tensor": types("F64 BF16"), "output_tensor": types("F64 BF16")}


def io_tiers(doc: str, rows: list[tuple[FL, tuple[int, int], str]], note: str = "") -> tuple[Tier, ...]:
    """Tiers where Input and Output take the same types and must share one."""
    out = []
    for fl, dims, spec in rows:
        t = types(spec)
        out.append(Tier(fl, dims, {"input_tensor": t, "output_tensor": t}, _IO, _DOC.format(doc) + note))
    return tuple(out)


def to_tiers(doc: str, rows: list[tuple[FL, tuple[int, int], str, str]], note: str = "") -> tuple[Tier, ...]:
    """Tiers where the Output has its own types (0/1 flags, counts)."""
    return tuple(
        Tier(fl, dims, {"input_tensor": types(i), "output_tensor": types(o)}, (), _DOC.format(doc) + note)
        for fl, dims, i, o in rows
    )


# EXP, LOG, SQRT, RECIP, CEIL, FLOOR, trig: 3.0+: 1-8 F32 F16; 1.0: 4 F32 F16.
FLOAT_MATH = [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_1_0, (4, 4), "F32 F16")]
# ERF (2.0) and the hyperbolics: 3.0+: 1-8 F32 F16; 2.0: 4 F32 F16.
FLOAT_MATH_2_0 = [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_2_0, (4, 4), "F32 F16")]
_AS_CEIL = " (table not opened; assumed equal to CEIL's, directml.md 2.4 caveat)"
_AS_ERF = " (table not opened; assumed equal to ERF's, directml.md 2.4 caveat)"
_EIGHT = "F32 F16 I32 I16 I8 U32 U16 U8"
_ALL10 = "F32 F16 all-int"
_CAST_DOC = "sdk-api ns-directml-dml_cast_operator_desc.md"
# The FL 1_0 table as far as the published page text reads ("FLOAT32, FLOAT16, INT16, INT8, UINT1..."):
# INT32/UINT32 are not confirmed there, so gpuops does not assume them below FL 3_0.
_CAST_1_0 = "F32 F16 I16 I8 U16 U8"
_CAST_1_0_NOTE = " (FL 1_0 row read up to UINT16/UINT8; INT32/UINT32 not confirmed)"


def unary(
    name: str,
    summary: str,
    cuda: dict[str, str],
    numpy: dict,
    tiers: tuple[Tier, ...],
    *,
    scale_bias: bool = True,
    in_place: bool = True,
    single: tuple[str, ...] = (),
    helpers: tuple[str, ...] = (),
    ext: dict | None = None,
    extra_fields: tuple[Field, ...] = (),
    domain: Domain = Domain.ARITH,
    notes: str = "",
    accuracy: Accuracy | None = None,
    grad: str = "",
    grad_use_dst: str = "",
    converts: bool = False,
) -> ElementwiseRow:
    fields = (UNARY_SB_FIELDS if scale_bias else UNARY_FIELDS) + extra_fields
    return ElementwiseRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        converts=converts,
        fields=fields,
        domain=domain,
        exprs=Exprs(cuda=cuda, numpy=numpy, numpy_single_ufunc=frozenset(single)),
        tiers=tiers,
        summary=summary,
        in_place=in_place,
        helpers=helpers,
        extension_types=EXT_FLOAT if ext is None else ext,
        family=Family.UNARY,
        notes=notes,
        accuracy=accuracy,
        grad=grad,
        grad_use_dst=grad_use_dst,
    )


def float_unary(
    name: str,
    doc: str,
    summary: str,
    cuda: str,
    ufunc: object,
    levels: list,
    *,
    in_place: bool,
    note: str = "",
    helpers: tuple[str, ...] = (),
    accuracy: Accuracy | None = None,
    grad: str = "",
    grad_use_dst: str = "",
) -> ElementwiseRow:
    """A float-only ``{Input, Output, ScaleBias}`` row whose NumPy side is one ufunc (or a function)."""
    single = ("float",) if isinstance(ufunc, np.ufunc) else ()
    return unary(
        name,
        summary,
        {"float": cuda},
        {"float": ufunc},
        io_tiers(doc, levels, note),
        in_place=in_place,
        single=single,
        helpers=helpers,
        accuracy=accuracy,
        grad=grad,
        grad_use_dst=grad_use_dst,
    )


def _ext(spec_in: str, spec_out: str | None = None) -> dict[str, frozenset]:
    return {"input_tensor": types(spec_in), "output_tensor": types(spec_out or spec_in)}


# CUDA helpers of this family. Each has a NumPy twin in ops/unary_numpy.py giving the same bits.
UNARY_HELPERS: dict[str, Helper] = {
    "unary_cast": Helper(
        """
// CAST: the value of x in the output type O (README "Semantics"; DirectML leaves float -> integer
// out of range unspecified). Integers: a float truncates toward zero, saturates to O's range, NaN
// gives 0; an integer wraps modulo 2**bits. bool: x != 0. float32/float64: rounded to nearest even.
template <typename O> struct gpuops_cast_to {
  template <typename F> static __device__ __forceinline__ O from_float(F x) {
    if (x != x) return O(0);
    if (x <= F(gpuops_int_m<O>())) return gpuops_int_min<O>();
    if (x >= F(gpuops_int_p<O>())) return gpuops_int_max<O>();
    return static_cast<O>(x);
  }
  static __device__ __forceinline__ O from(float x) { return from_float(x); }
  static __device__ __forceinline__ O from(double x) { return from_float(x); }
  template <typename I> static __device__ __forceinline__ O from(I x) { return static_cast<O>(x); }
};
template <> struct gpuops_cast_to<bool> {
  template <typename I> static __device__ __forceinline__ bool from(I x) { return x != I(0); }
};
template <> struct gpuops_cast_to<double> {
  template <typename I> static __device__ __forceinline__ double from(I x) { return static_cast<double>(x); }
};
template <> struct gpuops_cast_to<float> {
  template <typename I> static __device__ __forceinline__ float from(I x) { return static_cast<float>(x); }
};
// float16 and bfloat16: x rounded to a float32 *to odd* (its last bit set when inexact); the store then
// rounds that to nearest even, and the pair rounds x correctly, once: float32 keeps at least two bits more
// than either type (a plain float32 in between would round twice: 1 + 2**-11 + 2**-40 to float16).
__device__ __forceinline__ float gpuops_odd_float(double x) {
  float r = static_cast<float>(x);
  if (static_cast<double>(r) != x && x == x) {
    unsigned int b = gpuops_bitcast<unsigned int>(r);
    if ((b & 1u) == 0u) b = fabs(x) > fabs(static_cast<double>(r)) ? b + 1u : b - 1u;
    r = gpuops_bitcast<float>(b);
  }
  return r;
}
template <typename I> __device__ __forceinline__ float gpuops_odd_float_int(I v) {
  const bool neg = v < I(0);
  unsigned long long m = static_cast<unsigned long long>(v);
  if (neg) m = 0ULL - m;
  unsigned long long sticky = 0ULL;
  float scale = 1.0f;
  while (m >> 24) {  // keep 24 significant bits, the dropped ones ORed into the last (round to odd)
    sticky |= m & 1ULL;
    m >>= 1;
    scale *= 2.0f;
  }
  const float r = static_cast<float>(m | sticky) * scale;
  return neg ? -r : r;
}
template <> struct gpuops_cast_to<float16> {
  static __device__ __forceinline__ float from(float x) { return x; }
  static __device__ __forceinline__ float from(double x) { return gpuops_odd_float(x); }
  template <typename I> static __device__ __forceinline__ float from(I x) { return gpuops_odd_float_int(x); }
};
template <> struct gpuops_cast_to<bfloat16> {
  static __device__ __forceinline__ float from(float x) { return x; }
  static __device__ __forceinline__ float from(double x) { return gpuops_odd_float(x); }
  template <typename I> static __device__ __forceinline__ float from(I x) { return gpuops_odd_float_int(x); }
};
""",
        ("unary_int_limits", "bitcast"),
    ),
    "unary_int_limits": Helper(
        """
// Integer range of T, and P = 2**(bits - 1) (signed) or 2**bits (unsigned): a power of two just
// above T's largest value, exact in float, as is T's smallest value M = -P or 0.
template <typename T>
__device__ __forceinline__ T gpuops_int_max() {
  return T(-1) < T(0) ? T((1ULL << (8 * sizeof(T) - 1)) - 1ULL) : T(~0ULL);
}
template <typename T>
__device__ __forceinline__ T gpuops_int_min() {
  return T(-1) < T(0) ? T(-gpuops_int_max<T>() - 1) : T(0);
}
template <typename T>
__device__ __forceinline__ float gpuops_int_p() {
  return float(1ULL << (8 * sizeof(T) - 1)) * (T(-1) < T(0) ? 1.0f : 2.0f);
}
template <typename T>
__device__ __forceinline__ float gpuops_int_m() {
  return T(-1) < T(0) ? -gpuops_int_p<T>() : 0.0f;
}
// A FLOAT lower bound on an integer tensor: ceil(m) saturated to T; NaN clamps nothing.
template <typename T>
__device__ __forceinline__ T gpuops_ceil_to(float m) {
  const float c = ceilf(m);
  if (!(c > gpuops_int_m<T>())) return gpuops_int_min<T>();
  if (c >= gpuops_int_p<T>()) return gpuops_int_max<T>();
  return T(c);
}
// A FLOAT upper bound on an integer tensor: floor(m) saturated to T; NaN clamps nothing.
template <typename T>
__device__ __forceinline__ T gpuops_floor_to(float m) {
  const float f = floorf(m);
  if (!(f < gpuops_int_p<T>())) return gpuops_int_max<T>();
  if (f <= gpuops_int_m<T>()) return gpuops_int_min<T>();
  return T(f);
}
// x <= m and x >= m exactly, for an integer x and a FLOAT m (false for a NaN m).
template <typename T>
__device__ __forceinline__ bool gpuops_int_le(T x, float m) {
  const float f = floorf(m);
  if (f != f) return false;
  if (f >= gpuops_int_p<T>()) return true;
  if (f < gpuops_int_m<T>()) return false;
  return x <= T(f);
}
template <typename T>
__device__ __forceinline__ bool gpuops_int_ge(T x, float m) {
  const float c = ceilf(m);
  if (c != c) return false;
  if (c >= gpuops_int_p<T>()) return false;
  if (c <= gpuops_int_m<T>()) return true;
  return x >= T(c);
}
""",
        (),
    ),
    "unary_clip": Helper(
        """
// CLIP: min(hi, max(lo, x)) by comparisons: NaN x stays NaN, a NaN bound clamps nothing,
// lo > hi gives hi. CLIP1: max(lo, min(x, hi)): lo > hi gives lo. THRESHOLD: max(x, lo).
template <typename V>
__device__ __forceinline__ V gpuops_clip(V x, V lo, V hi) {
  const V v = x < lo ? lo : x;
  return v > hi ? hi : v;
}
template <typename V>
__device__ __forceinline__ V gpuops_clip1(V x, V lo, V hi) {
  const V v = x > hi ? hi : x;
  return v < lo ? lo : v;
}
template <typename V>
__device__ __forceinline__ V gpuops_at_least(V x, V lo) {
  return x < lo ? lo : x;
}
""",
        (),
    ),
    "unary_float_ops": Helper(
        """
// SIGN: -1, 0 or 1; -0.0 gives +0.0; NaN stays NaN.
template <typename F>
__device__ __forceinline__ F gpuops_sign(F x) {
  return x > F(0) ? F(1) : (x < F(0) ? F(-1) : (x == F(0) ? F(0) : x));
}
// DML_ROUNDING_MODE: 0 halves to even (rint), 1 toward zero (trunc), 2 halves away from zero (round).
template <typename F>
__device__ __forceinline__ F gpuops_round_mode(F x, int mode) {
  return mode == 1 ? trunc(x) : (mode == 2 ? round(x) : rint(x));
}
// DML_IS_INFINITY_MODE: 0 either sign, 1 positive, 2 negative.
template <typename F>
__device__ __forceinline__ bool gpuops_is_inf_mode(F x, int mode) {
  return isinf(x) && (mode == 1 ? x > F(0) : (mode == 2 ? x < F(0) : true));
}
""",
        (),
    ),
    "unary_fill_sequence": Helper(
        """
// FILL_VALUE_SEQUENCE: start + i * delta in the compute type, i (the element's logical index) converted to it
// first (to nearest), then the product and the sum each rounded, never contracted into an FMA (NumPy rounds
// both too).
__device__ __forceinline__ float gpuops_fill_sequence(float start, float delta, long long i) {
  return __fadd_rn(start, __fmul_rn(static_cast<float>(i), delta));
}
__device__ __forceinline__ double gpuops_fill_sequence(double start, double delta, long long i) {
  return __dadd_rn(start, __dmul_rn(static_cast<double>(i), delta));
}
""",
        (),
    ),
    "unary_popcount": Helper(
        """
template <typename T>
__device__ __forceinline__ unsigned int gpuops_popcount(T x) {
  return sizeof(T) == 8 ? (unsigned int)__popcll((unsigned long long)x) : (unsigned int)__popc((unsigned int)x);
}
""",
        (),
    ),
}

_IN_RANGE = "gpuops_ceil_to<T>(p_min), gpuops_floor_to<T>(p_max)"
_GRAD_FIELDS = (
    Field("input_tensor", _IN),
    Field("input_gradient_tensor", _IN),
    Field("output_gradient_tensor", _OUT),
)
_GRAD_ROLES = ("input_tensor", "input_gradient_tensor", "output_gradient_tensor")
_CLIP_GRAD_DOC = _DOC.format("clip_grad")


def _grad_tiers(rows: list[tuple[FL, tuple[int, int], str]], source: str) -> tuple[Tier, ...]:
    return tuple(Tier(fl, d, dict.fromkeys(_GRAD_ROLES, types(spec)), (_GRAD_ROLES,), source) for fl, d, spec in rows)


_Q_ROLES = ("input_tensor", "scale_tensor", "zero_point_tensor", "output_tensor")
_Q_FIELDS = (
    Field("input_tensor", _IN),
    Field("scale_tensor", _IN),
    Field("zero_point_tensor", FieldKind.OPTIONAL_INPUT_TENSOR),
    Field("output_tensor", _OUT),
)


def _q_tiers(
    doc: str, same: tuple[tuple[str, ...], ...], rows: list[tuple[FL, tuple[int, int], str, str, str, str]]
) -> tuple[Tier, ...]:
    """QUANTIZE/DEQUANTIZE_LINEAR tiers: types per role (input, scale, zero point, output) and the groups that
    share one type; the zero point may be absent from FL 6_2 on (it then reads as zero)."""
    return tuple(
        Tier(fl, dims, dict(zip(_Q_ROLES, (types(i), types(s), types(z), types(o)), strict=True)), same,
             _DOC.format(doc), ("zero_point_tensor",) if fl >= FL.FL_6_2 else ())
        for fl, dims, i, s, z, o in rows
    )  # fmt: skip


_INT6 = "I32 I16 I8 U32 U16 U8"
_FILL_DOC = "sdk-api ns-directml-dml_fill_value_constant_operator_desc.md"
_FILL_NOTE = " (the page read shows FL 2_1 only; 1-8 dims from 3_0 and 64-bit integers from 4_1 per directml.md 5)"
# The FILL_VALUE_SEQUENCE page (learn.microsoft.com, read for issue 18): "OutputTensor[elementIndex] = Value +
# elementIndex * Delta"; tables FL 5_0 (1-8, ten types), 4_0 (1-8, eight), 2_1 (4, eight).
_SEQ_DOC = "sdk-api ns-directml-dml_fill_value_sequence_operator_desc.md"


def _quantize_scale_type(dtypes: Mapping[str, DataType]) -> tuple[str, str] | None:
    """DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC: "If InputTensor is INT32, then ScaleTensor must be FLOAT32.
    Otherwise, ScaleTensor must have the same DataType as InputTensor"."""
    x, s = dtypes.get("input_tensor"), dtypes.get("scale_tensor")
    if x is None or s is None:
        return None
    want = DataType.FLOAT32 if x is DataType.INT32 else x
    if s is not want:
        return "scale_tensor.data_type", f"is {s.name}; with a {x.name} input_tensor it must be {want.name}"
    return None


_QLA_FIELDS = (
    Field("a_tensor", _IN),
    Field("a_scale_tensor", _IN),
    Field("a_zero_point_tensor", FieldKind.OPTIONAL_INPUT_TENSOR),
    Field("b_tensor", _IN),
    Field("b_scale_tensor", _IN),
    Field("b_zero_point_tensor", FieldKind.OPTIONAL_INPUT_TENSOR),
    Field("output_scale_tensor", _IN),
    Field("output_zero_point_tensor", FieldKind.OPTIONAL_INPUT_TENSOR),
    Field("output_tensor", _OUT),
)
_QLA_ZERO_POINTS = ("a_zero_point_tensor", "b_zero_point_tensor", "output_zero_point_tensor")
# The page's one table (no "and above" heading: the operator's own level, 4_0); its Kind column says "Optional
# input" for the three zero points, so they may be absent from the start.
_QLA_TIER = Tier(
    FL.FL_4_0,
    (1, 8),
    {
        **dict.fromkeys(("a_tensor", "b_tensor", "output_tensor", *_QLA_ZERO_POINTS), types("I8 U8")),
        **dict.fromkeys(("a_scale_tensor", "b_scale_tensor", "output_scale_tensor"), types("F32")),
    },
    (("a_tensor", "a_zero_point_tensor"), ("b_tensor", "b_zero_point_tensor"),
     ("output_tensor", "output_zero_point_tensor")),
    _DOC.format("quantized_linear_add"),
    _QLA_ZERO_POINTS,
)  # fmt: skip


def _if_tier(fl: FL, dims: tuple[int, int], spec: str) -> Tier:
    t = types(spec)
    return Tier(
        fl,
        dims,
        {"condition_tensor": types("U8"), "a_tensor": t, "b_tensor": t, "output_tensor": t},
        (("a_tensor", "b_tensor", "output_tensor"),),
        _DOC.format("if"),
    )


UNARY_ROWS: tuple[ElementwiseRow, ...] = (
    unary(
        "ELEMENT_WISE_IDENTITY",
        "x (copies, layout changes through strides)",
        {"any": "x"},
        {"any": npu.identity},
        io_tiers(
            "identity",
            [
                (FL.FL_4_1, (1, 8), "F64 F32 F16 all-int"),
                (FL.FL_3_0, (1, 8), _EIGHT),
                (FL.FL_2_1, (4, 5), _EIGHT),
                (FL.FL_1_0, (4, 5), "F32 F16"),
            ],
        ),
        single=("any",),
        ext=_ext("BF16 BOOL"),
    ),
    unary(
        "ELEMENT_WISE_ABS",
        "|x|; integer abs(INT_MIN) wraps to INT_MIN",
        {"float": "fabs(x)", "int": "(x < T(0) ? T(U(0) - U(x)) : x)"},
        {"any": np.absolute},
        io_tiers(
            "abs",
            [
                (FL.FL_4_1, (1, 8), "F32 F16 I64 I32 I16 I8"),
                (FL.FL_3_0, (1, 8), "F32 F16 I32 I16 I8"),
                (FL.FL_2_1, (4, 4), "F32 F16 I32 I16 I8"),
                (FL.FL_1_0, (4, 4), "F32 F16"),
            ],
        ),
        single=("any",),
        grad="ELTWISE_ABS_GRAD",
    ),
    float_unary(
        "ELEMENT_WISE_EXP",
        "exp",
        "exp(x)",
        "exp(x)",
        np.exp,
        FLOAT_MATH,
        in_place=True,
        accuracy=Accuracy(3.0),  # CUDA 2 / NumPy 3 / 2.37; 1
        grad="ELTWISE_EXP_GRAD",
        grad_use_dst="ELTWISE_EXP_USE_DST_FOR_BWD_GRAD",
    ),
    # Trigonometric (FL 1.0): DirectML states in-place execution for none of them (directml.md 2.3).
    float_unary(
        "ELEMENT_WISE_ACOS",
        "acos",
        "acos(x); NaN outside [-1, 1]",
        "acos(x)",
        np.arccos,
        FLOAT_MATH,
        in_place=False,
        note=_AS_CEIL,
        accuracy=Accuracy(3.0),  # CUDA 2 / NumPy 3 / 0.88; 1
    ),
    float_unary(
        "ELEMENT_WISE_ASIN",
        "asin",
        "asin(x); NaN outside [-1, 1]",
        "asin(x)",
        np.arcsin,
        FLOAT_MATH,
        in_place=False,
        note=_AS_CEIL,
        accuracy=Accuracy(4.0),  # CUDA 2 / NumPy 4 / 0.85; 1
    ),
    float_unary(
        "ELEMENT_WISE_ATAN",
        "atan",
        "atan(x)",
        "atan(x)",
        np.arctan,
        FLOAT_MATH,
        in_place=False,
        note=_AS_CEIL,
        accuracy=Accuracy(3.0),  # CUDA 2 / NumPy 3 / 0.84; 1
    ),
    float_unary(
        "ELEMENT_WISE_COS",
        "cos",
        "cos(x)",
        "cos(x)",
        np.cos,
        FLOAT_MATH,
        in_place=False,
        note=_AS_CEIL,
        accuracy=Accuracy(2.0),  # CUDA 2 / NumPy 2 / 1.41; 1
    ),
    float_unary(
        "ELEMENT_WISE_SIN",
        "sin",
        "sin(x)",
        "sin(x)",
        np.sin,
        FLOAT_MATH,
        in_place=False,
        note=_AS_CEIL,
        accuracy=Accuracy(2.0),  # CUDA 2 / NumPy 2 / 1.38; 1
    ),
    float_unary(
        "ELEMENT_WISE_TAN",
        "tan",
        "tan(x)",
        "tan(x)",
        np.tan,
        FLOAT_MATH,
        in_place=False,
        note=_AS_CEIL,
        accuracy=Accuracy(4.0),  # CUDA 4 / NumPy 4 / 1.15; 1
    ),
    float_unary("ELEMENT_WISE_CEIL", "ceil", "ceil(x)", "ceil(x)", np.ceil, FLOAT_MATH, in_place=True),
    float_unary(
        "ELEMENT_WISE_FLOOR", "floor", "floor(x)", "floor(x)", np.floor, FLOAT_MATH, in_place=False, note=_AS_CEIL
    ),
    float_unary(
        "ELEMENT_WISE_LOG",
        "log",
        "ln(x); -inf at 0, NaN below",
        "log(x)",
        np.log,
        FLOAT_MATH,
        in_place=True,
        accuracy=Accuracy(4.0),  # CUDA 1 / NumPy 4 / 3.67; 4
        grad="ELTWISE_LOG_GRAD",
    ),
    float_unary(
        "ELEMENT_WISE_SQRT",
        "sqrt",
        "sqrt(x), correctly rounded; NaN below 0",
        "sqrt(x)",
        np.sqrt,
        FLOAT_MATH,
        in_place=True,
        accuracy=Accuracy(0.5),  # correctly rounded on both (CUDA's default -prec-sqrt=true) / 0.50
        grad="ELTWISE_SQRT_GRAD",
        grad_use_dst="ELTWISE_SQRT_USE_DST_FOR_BWD_GRAD",
    ),
    float_unary(
        "ELEMENT_WISE_RECIP",
        "recip",
        "1 / x, correctly rounded",
        "T(1) / x",
        np.reciprocal,
        FLOAT_MATH,
        in_place=True,
        accuracy=Accuracy(0.5),  # correctly rounded on both (CUDA's default -prec-div=true) / 0.50
    ),
    # FL 2.0.
    float_unary(
        "ELEMENT_WISE_ERF",
        "erf",
        "erf(x)",
        "erf(x)",
        npu.erf,
        FLOAT_MATH_2_0,
        in_place=True,
        accuracy=Accuracy(2.0),  # CUDA 2 / SciPy computes in double: 0.5 / 0.50
    ),
    float_unary(
        "ELEMENT_WISE_SINH",
        "sinh",
        "sinh(x)",
        "sinh(x)",
        np.sinh,
        FLOAT_MATH_2_0,
        in_place=False,
        note=_AS_ERF,
        accuracy=Accuracy(3.0),  # CUDA 3 / NumPy 2 / 1.72; 1
    ),
    float_unary(
        "ELEMENT_WISE_COSH",
        "cosh",
        "cosh(x)",
        "cosh(x)",
        np.cosh,
        FLOAT_MATH_2_0,
        in_place=False,
        note=_AS_ERF,
        accuracy=Accuracy(3.0),  # CUDA 2 / NumPy 3 / 1.63; 1
    ),
    float_unary(
        "ELEMENT_WISE_TANH",
        "tanh",
        "tanh(x)",
        "tanh(x)",
        np.tanh,
        FLOAT_MATH_2_0,
        in_place=False,
        note=_AS_ERF,
        accuracy=Accuracy(2.0),  # CUDA 2 / NumPy 2 / 1.35; 1
    ),
    float_unary(
        "ELEMENT_WISE_ASINH",
        "asinh",
        "asinh(x)",
        "asinh(x)",
        np.arcsinh,
        FLOAT_MATH_2_0,
        in_place=False,
        note=_AS_ERF,
        accuracy=Accuracy(3.0),  # CUDA 3 / NumPy 2 / 1.60; 1
    ),
    float_unary(
        "ELEMENT_WISE_ACOSH",
        "acosh",
        "acosh(x); NaN below 1",
        "acosh(x)",
        np.arccosh,
        FLOAT_MATH_2_0,
        in_place=False,
        note=_AS_ERF,
        accuracy=Accuracy(4.0),  # CUDA 4 / NumPy 2 / 1.99; 1
    ),
    float_unary(
        "ELEMENT_WISE_ATANH",
        "atanh",
        "atanh(x); +-inf at +-1, NaN outside",
        "atanh(x)",
        np.arctanh,
        FLOAT_MATH_2_0,
        in_place=False,
        note=_AS_ERF,
        accuracy=Accuracy(3.0),  # CUDA 3 / NumPy 2 / 1.69; 1
    ),
    unary(
        "ELEMENT_WISE_CONSTANT_POW",
        "pow(x, exponent); a negative base needs an integral exponent, else NaN",
        {"float": "gpuops_pow(x, T(p_exponent))"},
        {"float": npu.constant_pow},
        io_tiers("constant_pow", [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_1_0, (4, 4), "F32 F16")]),
        helpers=("float_overloads",),
        extra_fields=(Field("exponent", FieldKind.FLOAT),),
        accuracy=Accuracy(4.0),  # CUDA powf 4 / glibc powf < 1 / 0.50 (exponents 2, 0.5, -1, 3, 1.7, -2.5)
    ),
    unary(
        "ELEMENT_WISE_CLIP",
        "min(Max, max(Min, x)) (Min > Max gives Max); NaN stays NaN; integer tensors compare exactly",
        {"float": "gpuops_clip(x, T(p_min), T(p_max))", "int": f"gpuops_clip(x, {_IN_RANGE})"},
        {"float": npu.clip_float, "int": npu.clip_int},
        io_tiers(
            "clip",
            [
                (FL.FL_5_0, (1, 8), _ALL10),
                (FL.FL_3_0, (1, 8), _EIGHT),
                (FL.FL_2_1, (4, 4), _EIGHT),
                (FL.FL_1_0, (4, 4), "F32 F16"),
            ],
        ),
        helpers=("unary_clip", "unary_int_limits"),
        extra_fields=(Field("min", FieldKind.FLOAT), Field("max", FieldKind.FLOAT)),
        notes="Integer tensors: Min becomes ceil(Min), Max floor(Max), saturated; a NaN bound clamps nothing.",
        grad="ELTWISE_CLIP_GRAD",
    ),
    unary(
        "ELEMENT_WISE_CLIP1",
        "max(Min, min(x, Max)) (Min > Max gives Min), Min/Max typed by MinMaxDataType; NaN stays NaN",
        {"any": "gpuops_clip1(x, T(p_min), T(p_max))"},
        {"any": npu.clip1},
        io_tiers("clip1", [(FL.FL_5_0, (1, 8), _ALL10)]),
        helpers=("unary_clip",),
        extra_fields=(
            Field("min_max_data_type", FieldKind.DATA_TYPE),
            Field("min", FieldKind.SCALAR),
            Field("max", FieldKind.SCALAR),
        ),
    ),
    unary(
        "ELEMENT_WISE_THRESHOLD",
        "max(x, Min); NaN stays NaN; integer tensors compare exactly",
        {"float": "gpuops_at_least(x, T(p_min))", "int": "gpuops_at_least(x, gpuops_ceil_to<T>(p_min))"},
        {"float": npu.threshold_float, "int": npu.threshold_int},
        io_tiers(
            "threshold",
            [(FL.FL_3_0, (1, 8), _EIGHT), (FL.FL_2_1, (4, 4), _EIGHT), (FL.FL_1_0, (4, 4), "F32 F16")],
        ),
        helpers=("unary_clip", "unary_int_limits"),
        extra_fields=(Field("min", FieldKind.FLOAT),),
    ),
    unary(
        "ELEMENT_WISE_ROUND",
        "round(x) per RoundingMode: halves to even, toward zero, or halves away from zero",
        {"float": "gpuops_round_mode(x, p_rounding_mode)"},
        {"float": npu.round_mode},
        io_tiers("round", [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_2_1, (4, 4), "F32 F16")]),
        scale_bias=False,
        helpers=("unary_float_ops",),
        extra_fields=(
            Field(
                "rounding_mode",
                FieldKind.ENUM,
                default=RoundingMode.HALVES_TO_NEAREST_EVEN,
                enum_type=RoundingMode,
            ),
        ),
    ),
    unary(
        "ELEMENT_WISE_SIGN",
        "-1 if x < 0, 1 if x > 0, else 0 (-0.0 gives 0, NaN stays NaN)",
        {"float": "gpuops_sign(x)", "sint": "T((x > T(0)) - (x < T(0)))", "uint": "T(x > T(0))"},
        {"any": np.sign},
        io_tiers(
            "sign",
            [
                (FL.FL_4_1, (1, 8), _ALL10),
                (FL.FL_3_0, (1, 8), _EIGHT),
                (FL.FL_2_1, (4, 4), _EIGHT),
                (FL.FL_2_0, (4, 4), "F32 F16"),
            ],
        ),
        scale_bias=False,
        single=("any",),
        helpers=("unary_float_ops",),
    ),
    unary(
        "ELEMENT_WISE_NEGATE",
        "-x; integer -INT_MIN wraps to INT_MIN",
        {"float": "-x", "int": "T(U(0) - U(x))"},
        {"any": npi.negative},  # np.negative, around a NumPy 2.4 loop that misreads some strides
        io_tiers("negate", [(FL.FL_5_0, (1, 8), "F32 F16 I64 I32 I16 I8")]),
        scale_bias=False,
        single=("any",),
    ),
    unary(
        "ELEMENT_WISE_IS_NAN",
        "1 if x is NaN else 0",
        {"float": "x != x"},
        {"float": npi.is_nan},  # np.isnan, around a NumPy 2.4 loop that misreads strided BOOL outputs
        to_tiers("is_nan", [(FL.FL_3_0, (1, 8), "F32 F16", "U32 U8"), (FL.FL_2_0, (4, 4), "F32 F16", "U32 U8")]),
        scale_bias=False,
        in_place=False,
        single=("float",),
        ext=_ext("F64 BF16", "BOOL"),
    ),
    unary(
        "ELEMENT_WISE_IS_INFINITY",
        "1 if x is infinite (of the sign InfinityMode asks for) else 0",
        {"float": "gpuops_is_inf_mode(x, p_infinity_mode)"},
        {"float": npu.is_infinity},
        to_tiers("is_infinity", [(FL.FL_3_0, (1, 8), "F32 F16", "U8"), (FL.FL_2_1, (4, 4), "F32 F16", "U8")]),
        scale_bias=False,
        in_place=False,
        helpers=("unary_float_ops",),
        ext=_ext("F64 BF16", "BOOL"),
        extra_fields=(Field("infinity_mode", FieldKind.ENUM, default=IsInfinityMode.EITHER, enum_type=IsInfinityMode),),
    ),
    unary(
        "ELEMENT_WISE_LOGICAL_NOT",
        "!x (nonzero is true), written as 1 or 0",
        {"any": "x == 0"},
        {"any": np.logical_not},
        io_tiers(
            "logical_not",
            [(FL.FL_3_0, (1, 8), "U32 U8"), (FL.FL_2_0, (4, 4), "U32 U8"), (FL.FL_1_0, (4, 4), "U32")],
            " (as LOGICAL_AND's, directml.md 2.4)",
        ),
        scale_bias=False,
        single=("any",),
        domain=Domain.LOGICAL,
        ext=_ext("BOOL"),
    ),
    unary(
        "ELEMENT_WISE_BIT_NOT",
        "~x on the raw bits",
        {"any": "T(~x)"},
        {"any": np.invert},
        io_tiers("bit_not", [(FL.FL_4_1, (1, 8), "F64 F32 F16 all-int"), (FL.FL_3_0, (1, 8), "U32 U16 U8")]),
        scale_bias=False,
        single=("any",),
        domain=Domain.BITS,
        ext=_ext("BF16"),
    ),
    unary(
        "ELEMENT_WISE_BIT_COUNT",
        "popcount of the raw bits",
        {"any": "gpuops_popcount(x)"},
        {"any": np.bitwise_count},
        to_tiers(
            "bit_count",
            [(FL.FL_4_1, (1, 8), "F64 F32 F16 all-int", "U32 U8"), (FL.FL_3_0, (1, 8), "U32 U16 U8", "U32 U8")],
        ),
        scale_bias=False,
        in_place=False,
        single=("any",),
        helpers=("unary_popcount",),
        domain=Domain.BITS,
        ext={"input_tensor": types("BF16")},
    ),
    unary(
        "CAST",
        "x in the output's data type: floats round to nearest even (once), floats to integers truncate and "
        "saturate (NaN -> 0), integers wrap",
        {"any": "gpuops_cast_to<O>::from(x)"},
        {"any": npu.cast},
        (
            Tier(
                FL.FL_4_1,
                (1, 8),
                {"input_tensor": types("F64 " + _ALL10), "output_tensor": types("F64 " + _ALL10)},
                (),
                _CAST_DOC,
            ),
            Tier(FL.FL_3_1, (1, 8), {"input_tensor": types(_ALL10), "output_tensor": types(_ALL10)}, (), _CAST_DOC),
            Tier(FL.FL_3_0, (4, 4), {"input_tensor": types(_ALL10), "output_tensor": types(_ALL10)}, (), _CAST_DOC),
            Tier(
                FL.FL_1_0,
                (4, 4),
                {"input_tensor": types(_CAST_1_0), "output_tensor": types(_CAST_1_0)},
                (),
                _CAST_DOC + _CAST_1_0_NOTE,
            ),
        ),  # fmt: skip
        scale_bias=False,
        in_place=False,
        helpers=("unary_cast",),
        ext=_ext("BF16 BOOL"),
        converts=True,
        notes="Every pair of data types (input and output types are independent); float -> integer out of range "
        "and NaN are gpuops' choice (the README's semantics table).",
    ),
    ElementwiseRow(
        name="FILL_VALUE_CONSTANT",
        struct="DML_FILL_VALUE_CONSTANT_OPERATOR_DESC",
        fields=(
            Field("output_tensor", _OUT),
            Field("value_data_type", FieldKind.DATA_TYPE),
            Field("value", FieldKind.SCALAR),
        ),
        domain=Domain.ARITH,
        exprs=Exprs(cuda={"any": "T(p_value)"}, numpy={"any": npu.fill_constant}),
        tiers=(
            Tier(FL.FL_4_1, (1, 8), {"output_tensor": types(_ALL10)}, (), _FILL_DOC + _FILL_NOTE),
            Tier(FL.FL_3_0, (1, 8), {"output_tensor": types(_EIGHT)}, (), _FILL_DOC + _FILL_NOTE),
            Tier(FL.FL_2_1, (4, 4), {"output_tensor": types(_EIGHT)}, (), _FILL_DOC),
        ),
        summary="every element of the output is Value (typed by ValueDataType, the output's DataType)",
        in_place=False,
        extension_types={"output_tensor": types("F64 BF16 BOOL")},
        family=Family.UNARY,
        primary="output_tensor",
    ),
    ElementwiseRow(
        name="FILL_VALUE_SEQUENCE",
        struct="DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC",
        fields=(
            Field("output_tensor", _OUT),
            Field("value_data_type", FieldKind.DATA_TYPE),
            Field("value_start", FieldKind.SCALAR),
            Field("value_delta", FieldKind.SCALAR),
        ),
        domain=Domain.ARITH,
        # i: the element's row-major index over the output's sizes (gpuops_index; reads_index). Floats: in the
        # compute type, rounded once more to a 16-bit output; integers: wrapping, in U.
        exprs=Exprs(
            cuda={
                "float": "gpuops_fill_sequence(T(p_value_start), T(p_value_delta), gpuops_index)",
                "int": "T(U(p_value_start) + U(gpuops_index) * U(p_value_delta))",
            },
            numpy={"float": npu.fill_sequence, "int": npu.fill_sequence},
        ),
        tiers=(
            Tier(FL.FL_5_0, (1, 8), {"output_tensor": types(_ALL10)}, (), _SEQ_DOC),
            Tier(FL.FL_4_0, (1, 8), {"output_tensor": types(_EIGHT)}, (), _SEQ_DOC),
            Tier(FL.FL_2_1, (4, 4), {"output_tensor": types(_EIGHT)}, (), _SEQ_DOC),
        ),
        summary="output[i] = ValueStart + i * ValueDelta, i the element's row-major index over the output's sizes",
        in_place=False,
        helpers=("unary_fill_sequence",),
        extension_types={"output_tensor": types("F64 BF16")},
        family=Family.UNARY,
        primary="output_tensor",
        reads_index=True,
        notes="Floats: i converted to the compute type, times ValueDelta, plus ValueStart, each rounded (float32 "
        "for 16-bit outputs, then one more rounding); integers wrap modulo 2**bits (the README's semantics table).",
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_QUANTIZE_LINEAR",
        struct="DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC",
        fields=_Q_FIELDS,
        domain=Domain.ARITH,
        # In float32 (the scale's compute type): round(x / scale) half to even, + zero_point, then saturated into
        # the output type with NaN -> 0 (CAST's rule).
        exprs=Exprs(cuda={"float": "gpuops_cast_to<O>::from(rintf(x / y) + z)"}, numpy={"float": npu.quantize_linear}),
        tiers=_q_tiers(
            "quantize_linear",
            (("zero_point_tensor", "output_tensor"),),
            [
                (FL.FL_6_2, (1, 8), "F32 F16 I32", "F32 F16", "I8 U8", "I8 U8"),
                (FL.FL_6_0, (1, 8), "F32 F16 I32", "F32 F16", "I8 U8", "I8 U8"),
                (FL.FL_3_0, (1, 8), "F32 I32", "F32", "I8 U8", "I8 U8"),
                (FL.FL_2_1, (4, 4), "F32 I32", "F32", "I8 U8", "I8 U8"),
                (FL.FL_1_0, (4, 4), "F32", "F32", "U8", "U8"),
            ],
        ),
        summary="clamp(round(input / scale) + zero_point, Min, Max), rounding half to even, in float32",
        in_place=False,
        helpers=("unary_cast",),
        family=Family.UNARY,
        primary="scale_tensor",
        converts=True,
        type_rule=_quantize_scale_type,
        notes="ZeroPointTensor is optional from FL 6_2 (absent, it reads as 0). An INT32 input is converted to "
        "float32 before the division.",
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_DEQUANTIZE_LINEAR",
        struct="DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC",
        fields=_Q_FIELDS,
        domain=Domain.ARITH,
        # (input - zero_point) exactly (64-bit integers), rounded to float32, times the scale in float32.
        exprs=Exprs(
            cuda={
                "int": "static_cast<float>(static_cast<long long>(x) - static_cast<long long>(z))"
                " * static_cast<float>(y)"
            },
            numpy={"int": npu.dequantize_linear},
        ),
        tiers=_q_tiers(
            "dequantize_linear",
            (("input_tensor", "zero_point_tensor"), ("scale_tensor", "output_tensor")),
            [
                (FL.FL_6_2, (1, 8), _INT6, "F32 F16", _INT6, "F32 F16"),
                (FL.FL_6_0, (1, 8), _INT6, "F32 F16", _INT6, "F32 F16"),
                (FL.FL_3_0, (1, 8), _INT6, "F32", _INT6, "F32"),
                (FL.FL_2_1, (4, 4), _INT6, "F32", _INT6, "F32"),
                (FL.FL_1_0, (4, 4), "U8", "F32", "U8", "F32"),
            ],
        ),
        summary="(input - zero_point) * scale",
        in_place=False,
        family=Family.UNARY,
        converts=True,
        notes="ZeroPointTensor is optional from FL 6_2 (absent, it reads as 0).",
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
        struct="DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC",
        fields=_QLA_FIELDS,
        domain=Domain.ARITH,
        # Every operand in float32 (int8/uint8 exactly). qa - za is exact; each product, the sum and the quotient
        # round once, in that order (__fmul_rn/__fadd_rn: never contracted into an FMA, on NVRTC or the host);
        # then QUANTIZE's steps: rint half to even, + zo, CAST's saturation (NaN -> 0).
        exprs=Exprs(
            cuda={
                "float": "gpuops_cast_to<O>::from(rintf(__fadd_rn(__fmul_rn(qa - za, sa), __fmul_rn(qb - zb, sb))"
                " / so) + zo)"
            },
            numpy={"float": npu.quantized_linear_add},
        ),
        tiers=(_QLA_TIER,),
        summary="clamp(round(((a - a_zero_point) * a_scale + (b - b_zero_point) * b_scale) / output_scale) "
        "+ output_zero_point, Min, Max), rounding half to even, in float32",
        in_place=False,
        helpers=("unary_cast",),
        family=Family.UNARY,
        primary="a_scale_tensor",
        converts=True,
        operands=("qa", "sa", "za", "qb", "sb", "zb", "so", "zo"),
        notes="The three zero points are optional (absent, they read as 0). DirectML expects one element in each "
        "scale and zero point; they have the output's sizes and broadcast by zero strides, so any zero-stride "
        "broadcast (per axis too) is read element by element. A scale of 0 is undefined in DirectML; gpuops "
        "computes it in IEEE float32 (README).",
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_IF",
        struct="DML_ELEMENT_WISE_IF_OPERATOR_DESC",
        fields=(
            Field("condition_tensor", _IN),
            Field("a_tensor", _IN),
            Field("b_tensor", _IN),
            Field("output_tensor", _OUT),
        ),
        domain=Domain.BITS,
        exprs=Exprs(cuda={"any": "(x != 0 ? y : z)"}, numpy={"any": npu.select}),
        tiers=(
            _if_tier(FL.FL_5_0, (1, 8), "F64 F32 F16 all-int"),
            _if_tier(FL.FL_3_0, (1, 8), _EIGHT),
            _if_tier(FL.FL_2_0, (4, 4), "F16"),
        ),
        summary="a if condition != 0 else b, bit for bit (any type: pure data movement)",
        in_place=False,
        extension_types={
            "condition_tensor": types("BOOL"),
            "a_tensor": types("BF16 BOOL"),
            "b_tensor": types("BF16 BOOL"),
            "output_tensor": types("BF16 BOOL"),
        },
        family=Family.SELECT,
        primary="a_tensor",
        notes="FL 2.0 tier lists FLOAT16 only for A/B/Output (directml.md 2.4, as transcribed).",
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_CLIP_GRAD",
        struct="DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC",
        fields=(*_GRAD_FIELDS, Field("min", FieldKind.FLOAT), Field("max", FieldKind.FLOAT)),
        domain=Domain.ARITH,
        exprs=Exprs(
            cuda={
                "float": "((x <= T(p_min) || x >= T(p_max)) ? T(0) : y)",
                "int": "((gpuops_int_le<T>(x, p_min) || gpuops_int_ge<T>(x, p_max)) ? T(0) : y)",
            },
            numpy={"float": npu.clip_grad_float, "int": npu.clip_grad_int},
        ),
        tiers=_grad_tiers([(FL.FL_5_0, (1, 8), _ALL10), (FL.FL_3_1, (1, 8), _EIGHT)], _CLIP_GRAD_DOC),
        summary="0 where x <= Min or x >= Max, else the input gradient (NaN x passes the gradient)",
        in_place=True,
        helpers=("unary_int_limits",),
        extension_types=dict.fromkeys(_GRAD_ROLES, types("F64 BF16")),
        family=Family.GRAD,
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_CLIP_GRAD1",
        struct="DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC",
        fields=(
            *_GRAD_FIELDS,
            Field("min_max_data_type", FieldKind.DATA_TYPE),
            Field("min", FieldKind.SCALAR),
            Field("max", FieldKind.SCALAR),
        ),
        domain=Domain.ARITH,
        exprs=Exprs(
            cuda={"any": "((x <= T(p_min) || x >= T(p_max)) ? T(0) : y)"},
            numpy={"any": npu.clip_grad_typed},
        ),
        tiers=_grad_tiers(
            [(FL.FL_5_0, (1, 8), _ALL10)],
            _DOC.format("clip_grad1") + " (table not opened; assumed equal to CLIP_GRAD's FL 5.0 tier)",
        ),
        summary="CLIP_GRAD with Min/Max typed by MinMaxDataType",
        in_place=False,
        extension_types=dict.fromkeys(_GRAD_ROLES, types("F64 BF16")),
        family=Family.GRAD,
        notes="DirectML states in-place execution for CLIP_GRAD, not for CLIP_GRAD1 (directml.md 2.3).",
    ),
)
