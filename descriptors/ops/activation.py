"""Op-table rows of the activation family (DML_OPERATOR_ACTIVATION_*) and oneDNN extensions.

Fields: ``{InputTensor, OutputTensor, <parameters>}`` (no ScaleBias on any activation);
PARAMETERIZED_RELU inserts ``SlopeTensor`` before the output, RELU_GRAD is ``{InputTensor,
InputGradientTensor, OutputGradientTensor}``. Parameters are FLOAT kernel arguments
``p_<name>``; defaults are DirectMLX's (docs/reference/directml.md section 3 and 3.1); LINEAR,
PARAMETRIC_SOFTPLUS and the oneDNN parameters have none. ``fusable`` is DirectML's list of
activations accepted as a ``FusedActivation`` (section 3.1). Tiers: directml.md section 3,
"Tensor support"; FLOAT64 and BFLOAT16 are gpuops extensions on every row.

oneDNN eltwise algorithms DirectML lacks (docs/seeds/003, forward formulas) are extension
rows whose tiers mirror the "most activations" table: ACTIVATION_GELU_TANH, _LOG_SIGMOID,
_MISH, _POW, _BOUNDED_RELU, _CLIP_V2, _SQUARE. oneDNN's relu with alpha is LEAKY_RELU (they
differ only in the sign of a zero result), clip is ELEMENT_WISE_CLIP, logistic is SIGMOID,
soft_relu is SOFTPLUS, gelu_erf is GELU, swish is SWISH, hardswish is HARD_SWISH(1/6, 1/2).

Expressions compute in ``T`` (float32 for float16/bfloat16, float64 for FLOAT64) in
numerically stable forms; ops/activation_numpy.py mirrors them step by step and explains
them (softplus without overflow, sigmoid by the sign of its argument, expm1 near 0, erfc for
GELU's negative tail, GELU_TANH as x * sigmoid(2u), the rounding error of a scaled argument
folded back, alpha * x + beta as one FMA, no subnormal intermediate multiplied up near the
underflow threshold).

Semantics where DirectML (or oneDNN) is silent, the same on both backends:

- NaN in gives NaN out on every float activation, whatever the formula's comparisons say
  (THRESHOLDED_RELU, SHRINK, BOUNDED_RELU, CLIP_V2, HARD_SIGMOID included); a NaN parameter
  behaves as the formula's comparisons make it (THRESHOLDED_RELU with a NaN alpha gives 0).
  RELU_GRAD is DirectML's formula to the letter: a NaN input gives a 0 gradient.
- Limits at infinities: SOFTSIGN(+-inf) = +-1; GELU, GELU_TANH, SWISH and MISH at -inf are
  -0.0 (not -inf * 0); HARD_SWISH gives +0.0 wherever its hard sigmoid is 0, -inf included.
  LINEAR/HARD_SIGMOID with alpha 0 and an infinite x give NaN (IEEE 0 * inf).
- Zeros: x >= 0 branches keep -0.0 (ELU, CELU, LEAKY_RELU, PARAMETERIZED_RELU: -0.0);
  "else 0" branches give +0.0 (RELU, THRESHOLDED_RELU, SHRINK, BOUNDED_RELU, HARD_SIGMOID).
- CELU is ``x if x >= 0 else alpha * expm1(x / alpha)`` (DirectML's max/min form, for every
  finite nonzero alpha, negative included; IEEE arithmetic defines the rest): alpha +0.0 gives
  x for x >= 0 and -0.0 below; alpha -0.0, NaN and +-inf give NaN below 0.
- SHRINK on integers: ``trunc(x - bias)`` / ``trunc(x + bias)`` of the exact real value,
  saturated to the type's range (NaN gives 0); comparisons with the threshold are exact (a NaN
  threshold compares false: 0 everywhere); an infinite bias saturates.
- PARAMETERIZED_RELU on integers: ``slope * x`` wraps (two's complement).
- CLIP_V2 with beta < alpha: alpha for x <= alpha (the seed's third case, which holds for any
  beta), beta above it; a NaN alpha or beta clamps nothing (plain comparisons, as CLIP);
  BOUNDED_RELU requires alpha >= 0 (the seed's formula needs it).
- ACTIVATION_POW is IEEE pow: ``alpha * pow(x, beta)``, NaN for a negative x and a
  non-integral beta, ``pow(x, 0) == 1`` even for NaN x.
"""

from __future__ import annotations

import numpy as np

from ..cuda_helpers import Helper
from ..enums import FeatureLevel as FL
from ..schema import Accuracy, Domain, ElementwiseRow, Exprs, Family, Field, FieldKind, ParamRule, Tier, types
from . import activation_numpy as npa

__all__ = ["ACTIVATION_HELPERS", "ACTIVATION_ROWS"]

_IN, _OUT = FieldKind.INPUT_TENSOR, FieldKind.OUTPUT_TENSOR
_IO_ROLES = ("input_tensor", "output_tensor")
_DOC = "sdk-api ns-directml-dml_activation_{}_operator_desc.md"
_DOC_NEW = "windows-ai-docs docs/directml/api/ns-directml-dml_activation_{}_operator_desc.md"
_ONEDNN = "gpuops extension (oneDNN eltwise)"


_C = {"float32": "float", "float64": "double"}


def _num(v: float, dt: str) -> str:
    """An exact C hex-float literal of the compute type ``dt``."""
    return float(v).hex() + ("f" if dt == "float32" else "")


def _lit(name: str, dt: str, part: int = 0) -> str:
    """A constant of activation_numpy.CONSTANTS (its hi or lo part) as a literal."""
    return _num(npa.CONSTANTS[name][np.dtype(dt)][part], dt)


def _overloads(kind: str) -> str:
    """The float and double overloads carrying each compute type's constants."""
    out = []
    for dt, c in _C.items():
        np_dt = np.dtype(dt)
        if kind == "types":
            erfcx = "erfcxf" if c == "float" else "erfcx"
            out += [
                f"__device__ __forceinline__ {c} gpuops_act_tail_k({c}) {{ return {_num(npa.TAIL_K[np_dt], dt)}; }}",
                f"__device__ __forceinline__ {c} gpuops_act_tail_scale({c} y) {{"
                f" return copysign(fma(y, {_lit('tail_scale', dt, 0)}, y * {_lit('tail_scale', dt, 1)}), y); }}",
                f"__device__ __forceinline__ {c} gpuops_act_erfcx({c} t) {{ return {erfcx}(t); }}",
            ]
        elif kind == "gelu":
            args: tuple[str, ...] = (_lit("inv_sqrt2", dt, 0), _lit("inv_sqrt2", dt, 1), _lit("two_over_sqrt_pi", dt))
            args += (_num(npa.GELU_ERFCX_FROM[np_dt], dt),)
            out.append(
                f"__device__ __forceinline__ {c} gpuops_act_gelu({c} x) {{"
                f" return gpuops_act_gelu_impl<{c}>(x, {', '.join(args)}); }}"
            )
        else:
            args = tuple(_lit(n, dt, i) for n in ("gelu_tanh_a", "gelu_tanh_b") for i in (0, 1))
            out.append(
                f"__device__ __forceinline__ {c} gpuops_act_gelu_tanh({c} x) {{"
                f" return gpuops_act_gelu_tanh_impl<{c}>(x, {', '.join(args)}); }}"
            )
    return "\n".join(out) + "\n"


ACTIVATION_HELPERS: dict[str, Helper] = {
    "softplus": Helper(
        """
// log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|)).
template <typename F>
__device__ __forceinline__ F gpuops_softplus(F z) {
  return (z > F(0) ? z : F(0)) + log1p(exp(-fabs(z)));
}
""",
        (),
    ),
    "act_rn": Helper(
        """
// Products and sums that error-free transformations rely on: never contracted into an FMA.
__device__ __forceinline__ float gpuops_act_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double gpuops_act_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float gpuops_act_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double gpuops_act_add(double a, double b) { return __dadd_rn(a, b); }
// x * s where s == 0 gives a zero of x's sign: -inf * sigmoid(-inf) is -0.0, not NaN.
template <typename F>
__device__ __forceinline__ F gpuops_act_mul_limit(F x, F s) {
  return s == F(0) ? copysign(F(0), x) : x * s;
}
// max(0, min(v, 1)) by comparisons: NaN stays NaN, -0.0 gives +0.0.
template <typename F>
__device__ __forceinline__ F gpuops_act_clamp01(F v) {
  return v <= F(0) ? F(0) : (v >= F(1) ? F(1) : v);
}
""",
        (),
    ),
    "act_tail": Helper(
        """
// x * exp(z + dz) for z < -K, where exp(z) nears the subnormal range: x * exp(z + K) * exp(-K),
// z + K exact for -2K <= z (below, the result underflows anyway), exp(-K) a double word
// (gpuops_act_tail_scale), so the only rounding into the subnormals is the last one.
template <typename F>
__device__ __forceinline__ F gpuops_act_x_exp_tail(F x, F z, F dz) {
  F y = gpuops_act_mul_limit(x, exp(z + gpuops_act_tail_k(x)));
  if (y != F(0) && fabs(dz) < fabs(z)) y = y + y * dz;  // a zero keeps its sign
  return gpuops_act_tail_scale(y);
}
""",
        ("act_rn", "act_types"),
    ),
    "act_sigmoid": Helper(
        """
// sigmoid(z) by the sign of z (no overflow, no cancellation); with dz, sigmoid(z + dz) to
// first order (sigmoid' = e / d^2), dz ignored unless finite and smaller than |z|.
template <typename F>
__device__ __forceinline__ F gpuops_act_sigmoid(F z) {
  const F e = exp(-fabs(z));
  return (z >= F(0) ? F(1) : e) / (F(1) + e);
}
template <typename F>
__device__ __forceinline__ F gpuops_act_sigmoid_dz(F z, F dz) {
  const F e = exp(-fabs(z));
  const F d = F(1) + e;
  const F s = (z >= F(0) ? F(1) : e) / d;
  return fabs(dz) < fabs(z) ? s + dz * (e / (d * d)) : s;
}
// x * sigmoid(z + dz); below -K, sigmoid(z) == exp(z) to the last bit (1 + e^z == 1).
template <typename F>
__device__ __forceinline__ F gpuops_act_x_sigmoid(F x, F z, F dz) {
  if (z < -gpuops_act_tail_k(x)) return gpuops_act_x_exp_tail(x, z, dz);
  return gpuops_act_mul_limit(x, gpuops_act_sigmoid_dz(z, dz));
}
// SWISH: x * sigmoid(a * x), the product's rounding error folded back.
template <typename F>
__device__ __forceinline__ F gpuops_act_swish(F x, F a) {
  const F z = gpuops_act_mul(x, a);
  return gpuops_act_x_sigmoid(x, z, fma(x, a, -z));
}
""",
        ("act_rn", "act_tail"),
    ),
    "act_softplus_mul": Helper(
        """
// softplus(a * x) = log(1 + exp(a * x)), the product's rounding error dz folded back
// (softplus' = sigmoid): no loss of |a * x| ulps in the negative tail.
template <typename F>
__device__ __forceinline__ F gpuops_act_softplus_mul(F a, F x) {
  const F z = gpuops_act_mul(x, a);
  const F dz = fma(x, a, -z);
  const F e = exp(-fabs(z));
  const F r = (z > F(0) ? z : F(0)) + log1p(e);
  return fabs(dz) < fabs(z) ? r + dz * ((z >= F(0) ? F(1) : e) / (F(1) + e)) : r;
}
// SOFTPLUS: softplus(a * x) / a. Where a * x overflows (a and x finite) its limit: x where
// a * x > 0 (softplus(z) - z -> 0), else 0 / a (a zero of a's sign), not inf / a.
template <typename F>
__device__ __forceinline__ F gpuops_act_softplus_div(F a, F x) {
  const F z = gpuops_act_mul(x, a);
  if (isinf(z) && !isinf(x) && !isinf(a)) return z > F(0) ? x : F(0) / a;
  return gpuops_act_softplus_mul(a, x) / a;
}
// PARAMETRIC_SOFTPLUS: alpha * softplus(beta * x). Where beta * x overflows to +inf (beta and x
// finite) its limit alpha * beta * x, as (alpha * beta) * x: finite where the result is (|alpha| < 1).
template <typename F>
__device__ __forceinline__ F gpuops_act_softplus_scaled(F a, F b, F x) {
  const F z = gpuops_act_mul(x, b);
  if (z > F(0) && isinf(z) && !isinf(x) && !isinf(b)) return (a * b) * x;
  return a * gpuops_act_softplus_mul(b, x);
}
""",
        ("act_rn",),
    ),
    "act_celu": Helper(
        """
// CELU: x if x >= 0 else a * expm1(u + du), u = x / a rounded, du = (x - u a) / a from the exact
// remainder (fma), folded back (expm1' = expm1 + 1): with a < 0, u grows without bound. Where 1 + u
// rounds to 1 (|u| below half an ulp of 1; u subnormal, flushed or underflowed) and a is finite,
// a * expm1(x / a) is x within half an ulp: x itself (u * a would lose u's missing bits, or give 0).
template <typename F>
__device__ __forceinline__ F gpuops_act_celu(F x, F a) {
  if (x >= F(0)) return x;
  const F u = x / a;
  if (F(1) + u == F(1) && !isinf(a)) return x;
  const F du = fma(-u, a, x) / a;
  F em = expm1(u);
  if (fabs(du) < fabs(u) && !isinf(em)) em = em + du * (em + F(1));  // an overflowed expm1 stays inf
  return em * a;
}
""",
        (),
    ),
    "act_gelu": Helper(
        """
// GELU: 0.5 x erfc(t), t = -x / sqrt(2) = -x (c_hi + c_lo) rounded, its error dt folded back.
// Up to t0: erfc(t) - dt k exp(-t^2) (erfc' = -k exp(-t^2), k = 2 / sqrt(pi)); erfc keeps the
// negative tail (1 + erf cancels there). Beyond t0: 0.5 x erfcx(t) exp(-t2), t * t = t2 + t2e
// exact, times (1 - t2e - dt k / erfcx(t)), through the tail scaling where exp(-t2) < exp(-K).
template <typename F>
__device__ __forceinline__ F gpuops_act_gelu_impl(F x, F c_hi, F c_lo, F k, F t0) {
  const F nx = -x;
  const F t = gpuops_act_mul(nx, c_hi);
  const F dt = fma(nx, c_hi, -t) - x * c_lo;
  const F h = x * F(0.5);
  if (!(t > t0)) {
    F e = erfc(t);
    if (fabs(dt) < fabs(t)) e = e - dt * k * exp(-t * t);
    return gpuops_act_mul_limit(h, e);
  }
  const F big_k = gpuops_act_tail_k(x);
  const F t2 = gpuops_act_mul(t, t);
  const F t2e = fma(t, t, -t2);
  const F ex = gpuops_act_erfcx(t);
  const bool scaled = t2 >= big_k;
  F y = gpuops_act_mul_limit(h, ex) * exp(scaled ? big_k - t2 : -t2);
  const F delta = t2e + dt * k / ex;
  if (y != F(0) && fabs(delta) < F(1)) y = y - y * delta;
  return scaled ? gpuops_act_tail_scale(y) : y;
}
"""
        + _overloads("gelu"),
        ("act_rn", "act_types"),
    ),
    "act_gelu_tanh": Helper(
        """
// oneDNN gelu_tanh: 0.5 x (1 + tanh(u)) == x * sigmoid(2u), 2u = x (a + b x^2) evaluated as a
// double word (z + dz) from exact products (fma) and Knuth's two-sum.
template <typename F>
__device__ __forceinline__ F gpuops_act_gelu_tanh_impl(F x, F a_hi, F a_lo, F b_hi, F b_lo) {
  const F x2 = gpuops_act_mul(x, x);
  const F x2e = fma(x, x, -x2);
  const F p = gpuops_act_mul(x2, b_hi);
  const F pe = fma(x2, b_hi, -p) + (x2e * b_hi + x2 * b_lo);
  const F s = gpuops_act_add(p, a_hi);
  const F sb = gpuops_act_add(s, -a_hi);
  const F se = gpuops_act_add(gpuops_act_add(a_hi, -gpuops_act_add(s, -sb)), gpuops_act_add(p, -sb)) + (pe + a_lo);
  const F z = gpuops_act_mul(x, s);
  const F dz = fma(x, s, -z) + x * se;
  return gpuops_act_x_sigmoid(x, z, dz);
}
"""
        + _overloads("gelu_tanh"),
        ("act_rn", "act_sigmoid", "act_types"),
    ),
    "act_mish": Helper(
        """
// MISH: x * tanh(softplus(x)); below -K, tanh(softplus(x)) == exp(x) to the last bit.
template <typename F>
__device__ __forceinline__ F gpuops_act_mish(F x) {
  if (x < -gpuops_act_tail_k(x)) return gpuops_act_x_exp_tail(x, x, F(0));
  return gpuops_act_mul_limit(x, tanh(gpuops_softplus(x)));
}
""",
        ("softplus", "act_tail"),
    ),
    "act_types": Helper(
        """
// Per compute type: the tail constant K, y * exp(-K) rounded once (a zero keeps its sign), erfcx.
"""
        + _overloads("types"),
        (),
    ),
    "act_misc": Helper(
        """
// SOFTSIGN: x / (1 + |x|), +-1 at +-inf.
template <typename F>
__device__ __forceinline__ F gpuops_act_softsign(F x) {
  return isinf(x) ? copysign(F(1), x) : x / (F(1) + fabs(x));
}
// HARD_SWISH: x * max(0, min(alpha * x + beta, 1)) with one rounding for alpha * x + beta;
// +0.0 where the hard sigmoid is 0 (also at an infinite x).
template <typename F>
__device__ __forceinline__ F gpuops_act_hard_swish(F x, F a, F b) {
  const F h = gpuops_act_clamp01(fma(a, x, b));
  return h == F(0) ? F(0) : x * h;
}
""",
        ("act_rn",),
    ),
    "act_shrink_int": Helper(
        """
// SHRINK on integers: trunc(x - bias) above threshold, trunc(x + bias) below -threshold, of the
// exact real values (x and the FLOATs are exact in double; trunc(x - b) is x - ceil(b) when
// x >= b, else x - floor(b)), saturated to T's range; NaN gives 0.
template <typename T>
__device__ __forceinline__ T gpuops_act_shrink_int(T xi, float bias, float threshold) {
  static_assert(sizeof(T) <= 4, "32-bit integers at most");
  const double x = (double)xi, b = (double)bias, th = (double)threshold;
  double r;
  if (x > th) {
    r = x - (x >= b ? ceil(b) : floor(b));
  } else if (x < -th) {
    r = x + (x >= -b ? floor(b) : ceil(b));
  } else {
    return T(0);
  }
  const bool is_signed = T(-1) < T(0);
  const double hi = is_signed ? double((1LL << (8 * sizeof(T) - 1)) - 1) : double((1ULL << (8 * sizeof(T))) - 1);
  const double lo = is_signed ? -hi - 1.0 : 0.0;
  if (r != r) return T(0);
  return T(r < lo ? lo : (r > hi ? hi : r));
}
""",
        (),
    ),
}


def tiers_for(
    doc: str, rows: list[tuple[FL, tuple[int, int], str]], roles: tuple[str, ...] = _IO_ROLES, source: str = ""
) -> tuple[Tier, ...]:
    """Tiers where every tensor role takes the same types and all must share one."""
    src = source or _DOC.format(doc)
    return tuple(Tier(fl, dims, dict.fromkeys(roles, types(spec)), (roles,), src) for fl, dims, spec in rows)


def io_tiers(doc: str, rows: list[tuple[FL, tuple[int, int], str]]) -> tuple[Tier, ...]:
    """Tiers where Input and Output take the same types and must share one."""
    return tiers_for(doc, rows)


# "Most activations" (reference section 3): 3.0+: 1-8 F32 F16; 2.0: 4-5; 1.0: 4.
STANDARD = [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_2_0, (4, 5), "F32 F16"), (FL.FL_1_0, (4, 4), "F32 F16")]
_RELU_LIKE = [
    (FL.FL_5_1, (1, 8), "F32 F16 I32 I16 I8"),
    (FL.FL_3_0, (1, 8), "F32 F16"),
    (FL.FL_2_0, (4, 5), "F32 F16"),
    (FL.FL_1_0, (4, 4), "F32 F16"),
]
_ONEDNN_TIERS = tiers_for("", STANDARD, source=_ONEDNN)


def activation(
    name: str,
    summary: str,
    cuda: dict[str, str],
    numpy: dict,
    tiers: tuple[Tier, ...],
    *,
    params: tuple[tuple[str, float | None], ...] = (),
    fusable: bool = False,
    in_place: bool = True,
    single: tuple[str, ...] = (),
    helpers: tuple[str, ...] = (),
    rules: tuple[ParamRule, ...] = (),
    extension: bool = False,
    tensors: tuple[tuple[str, FieldKind], ...] = (("input_tensor", _IN), ("output_tensor", _OUT)),
    family: Family = Family.ACTIVATION,
    notes: str = "",
    accuracy: Accuracy | None = None,
    grad: str = "",
    grad_use_dst: str = "",
) -> ElementwiseRow:
    fields = [Field(t, kind) for t, kind in tensors]
    for pname, default in params:
        fields.append(
            Field(pname, FieldKind.FLOAT, default=default) if default is not None else Field(pname, FieldKind.FLOAT)
        )
    ext_types = types("F64 BF16")
    return ElementwiseRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        fields=tuple(fields),
        domain=Domain.ARITH,
        exprs=Exprs(cuda=cuda, numpy=numpy, numpy_single_ufunc=frozenset(single)),
        tiers=tiers,
        summary=summary,
        in_place=in_place,
        helpers=helpers,
        extension_types=dict.fromkeys((t for t, _ in tensors), ext_types),
        extension=extension,
        family=family,
        fusable=fusable,
        param_rules=rules,
        notes=notes,
        accuracy=accuracy,
        grad=grad,
        grad_use_dst=grad_use_dst,
    )


def onednn(name: str, summary: str, cuda: str, numpy: object, **kw: object) -> ElementwiseRow:
    """A oneDNN eltwise algorithm as a gpuops extension row (float types, in place, not fusable)."""
    return activation(name, summary, {"float": cuda}, {"float": numpy}, _ONEDNN_TIERS, extension=True, **kw)  # type: ignore[arg-type]


_PRELU_ROLES = ("input_tensor", "slope_tensor", "output_tensor")
_GRAD_ROLES = ("input_tensor", "input_gradient_tensor", "output_gradient_tensor")
# DirectMLX's defaults (reference 3 and 3.1), as the float32 values DirectML receives.
_SELU_ALPHA = 1.67326319217681884765625
_SELU_GAMMA = 1.05070102214813232421875
_HARD_SWISH_ALPHA = float(np.float32(1.0 / 6.0))

ACTIVATION_ROWS: tuple[ElementwiseRow, ...] = (
    activation(
        "ACTIVATION_RELU",
        "max(0, x); NaN propagates, -0.0 gives +0.0",
        {"any": "(x > T(0) || x != x) ? x : T(0)"},
        {"any": npa.relu},
        io_tiers("relu", _RELU_LIKE),
        fusable=True,
        single=("any",),
        accuracy=Accuracy(0.0),
        grad="ELTWISE_RELU_GRAD",
        grad_use_dst="ELTWISE_RELU_USE_DST_FOR_BWD_GRAD",
    ),
    activation(
        "ACTIVATION_ELU",
        "x if x >= 0 else alpha * (exp(x) - 1), with expm1",
        {"float": "x >= T(0) ? x : T(p_alpha) * expm1(x)"},
        {"float": npa.elu},
        io_tiers("elu", STANDARD),
        params=(("alpha", 1.0),),
        fusable=True,
        accuracy=Accuracy(4.0),  # expm1 + product
        grad="ELTWISE_ELU_GRAD",
        grad_use_dst="ELTWISE_ELU_USE_DST_FOR_BWD_GRAD",
    ),
    activation(
        "ACTIVATION_SOFTPLUS",
        "log(1 + exp(steepness * x)) / steepness, overflow-free",
        {"float": "gpuops_act_softplus_div(T(p_steepness), x)"},
        {"float": npa.softplus},
        io_tiers("softplus", STANDARD),
        params=(("steepness", 1.0),),
        fusable=True,
        helpers=("act_softplus_mul",),
        rules=(ParamRule("steepness", lambda v: v >= 1, "steepness >= 1", relaxed_at=FL.FL_6_4),),
        accuracy=Accuracy(
            6.5, domain="softplus(steepness * x) not below the normal range"
        ),  # exp + log1p + correction + quotient
        grad="ELTWISE_SOFT_RELU_GRAD",
    ),
    activation(
        "ACTIVATION_CELU",
        "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), as x if x >= 0 else alpha * expm1(x / alpha)",
        {"float": "gpuops_act_celu(x, T(p_alpha))"},
        {"float": npa.celu},
        io_tiers("celu", [(FL.FL_3_0, (1, 8), "F32 F16")]),
        params=(("alpha", 1.0),),
        fusable=True,
        helpers=("act_celu",),
        notes="Equal to DirectML's max/min form for every nonzero alpha, negative included.",
        accuracy=Accuracy(4.5),  # quotient (corrected) + expm1 + product
    ),
    activation(
        "ACTIVATION_GELU",
        "0.5 * x * (1 + erf(x / sqrt(2))), as 0.5 * x * erfc(-x / sqrt(2))",
        {"float": "gpuops_act_gelu(x)"},
        {"float": npa.gelu},
        tiers_for("gelu", [(FL.FL_5_1, (1, 8), "F32 F16")], source=_DOC_NEW.format("gelu")),
        fusable=True,
        in_place=False,
        helpers=("act_gelu",),
        notes="-0.0 at -inf; DirectML states no in-place support.",
        accuracy=Accuracy(9.5),  # erfcx + exp + products (near 0: erfc + correction)
        grad="ELTWISE_GELU_ERF_GRAD",
    ),
    activation(
        "ACTIVATION_HARD_SIGMOID",
        "max(0, min(alpha * x + beta, 1))",
        {"float": "gpuops_act_clamp01(fma(T(p_alpha), x, T(p_beta)))"},
        {"float": npa.hard_sigmoid},
        io_tiers("hard_sigmoid", STANDARD),
        params=(("alpha", 0.2), ("beta", 0.5)),
        fusable=True,
        helpers=("act_rn",),
        accuracy=Accuracy(1.0),  # one FMA, exact clamps
    ),
    activation(
        "ACTIVATION_HARD_SWISH",
        "x * max(0, min(alpha * x + beta, 1))",
        {"float": "gpuops_act_hard_swish(x, T(p_alpha), T(p_beta))"},
        {"float": npa.hard_swish},
        tiers_for("hard_swish", [(FL.FL_6_2, (1, 8), "F32 F16")], source=_DOC_NEW.format("hard_swish")),
        params=(("alpha", _HARD_SWISH_ALPHA), ("beta", 0.5)),
        helpers=("act_misc",),
        accuracy=Accuracy(2.0),  # FMA + product
        grad="ELTWISE_HARDSWISH_GRAD",
    ),
    activation(
        "ACTIVATION_IDENTITY",
        "x",
        {"float": "x"},
        {"float": np.positive},
        io_tiers("identity", STANDARD),
        fusable=True,
        single=("float",),
        accuracy=Accuracy(0.0),
    ),
    activation(
        "ACTIVATION_LEAKY_RELU",
        "x if x >= 0 else alpha * x",
        {"float": "x >= T(0) ? x : T(p_alpha) * x"},
        {"float": npa.leaky_relu},
        io_tiers("leaky_relu", STANDARD),
        params=(("alpha", 0.01),),
        fusable=True,
        accuracy=Accuracy(0.5),  # one product
        grad="ELTWISE_RELU_GRAD",
        grad_use_dst="ELTWISE_RELU_USE_DST_FOR_BWD_GRAD",
    ),
    activation(
        "ACTIVATION_LINEAR",
        "alpha * x + beta (one rounding)",
        {"float": "fma(T(p_alpha), x, T(p_beta))"},
        {"float": npa.linear},
        io_tiers("linear", STANDARD),
        params=(("alpha", None), ("beta", None)),
        fusable=True,
        accuracy=Accuracy(1.0),  # one FMA (float64 emulation in NumPy: within 1)
        grad="ELTWISE_LINEAR_GRAD",
    ),
    activation(
        "ACTIVATION_PARAMETERIZED_RELU",
        "x if x >= 0 else slope * x (slope: a tensor of the input's type and sizes; integers wrap)",
        {"float": "x >= T(0) ? x : y * x", "int": "x >= T(0) ? x : T((U)y * (U)x)"},
        {"any": npa.parameterized_relu},
        tiers_for("parameterized_relu", _RELU_LIKE, _PRELU_ROLES),
        tensors=(("input_tensor", _IN), ("slope_tensor", _IN), ("output_tensor", _OUT)),
        notes="Not fusable (needs a tensor). Integer slope * x wraps.",
        accuracy=Accuracy(0.5),
    ),
    activation(
        "ACTIVATION_PARAMETRIC_SOFTPLUS",
        "alpha * log(1 + exp(beta * x)), overflow-free",
        {"float": "gpuops_act_softplus_scaled(T(p_alpha), T(p_beta), x)"},
        {"float": npa.parametric_softplus},
        io_tiers("parametric_softplus", STANDARD),
        params=(("alpha", None), ("beta", None)),
        fusable=True,
        helpers=("act_softplus_mul",),
        accuracy=Accuracy(6.5, domain="softplus(beta * x) not below the normal range"),
    ),
    activation(
        "ACTIVATION_SCALED_ELU",
        "gamma * x if x > 0 else gamma * (alpha * exp(x) - alpha), with expm1",
        {"float": "x > T(0) ? T(p_gamma) * x : T(p_gamma) * (T(p_alpha) * expm1(x))"},
        {"float": npa.scaled_elu},
        io_tiers("scaled_elu", STANDARD),
        params=(("alpha", _SELU_ALPHA), ("gamma", _SELU_GAMMA)),
        fusable=True,
        accuracy=Accuracy(4.5, domain="alpha * expm1(x) (x <= 0) not below the normal range"),  # expm1 + two products
    ),
    activation(
        "ACTIVATION_SCALED_TANH",
        "alpha * tanh(beta * x)",
        {"float": "T(p_alpha) * tanh(T(p_beta) * x)"},
        {"float": npa.scaled_tanh},
        io_tiers("scaled_tanh", STANDARD),
        params=(("alpha", 1.0), ("beta", 0.5)),
        fusable=True,
        accuracy=Accuracy(
            3.5, domain="beta * x and tanh(beta * x) not below the normal range"
        ),  # product (condition <= 1) + tanh + product
    ),
    activation(
        "ACTIVATION_SHRINK",
        "x - bias if x > threshold; x + bias if x < -threshold; else 0 (integers: truncated toward zero and saturated)",
        {
            # gpuops_act_add: a fused host's product is never contracted into the sum
            "float": "x > T(p_threshold) ? gpuops_act_add(x, -T(p_bias)) "
            ": (x < -T(p_threshold) ? gpuops_act_add(x, T(p_bias)) : (x == x ? T(0) : x))",
            "int": "gpuops_act_shrink_int<T>(x, p_bias, p_threshold)",
        },
        {"any": npa.shrink},
        io_tiers(
            "shrink",
            [
                (FL.FL_5_1, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8"),
                (FL.FL_3_0, (1, 8), "F32 F16"),
                (FL.FL_2_0, (4, 5), "F32 F16"),
            ],
        ),
        params=(("bias", 0.0), ("threshold", 0.5)),
        fusable=True,
        helpers=("act_shrink_int", "act_rn"),
        notes="Integers: trunc of the exact real x -+ bias, saturated; NaN gives 0. Floats: NaN stays NaN.",
        accuracy=Accuracy(0.5),  # one sum
    ),
    activation(
        "ACTIVATION_SIGMOID",
        "1 / (1 + exp(-x)), by the sign of x (no overflow)",
        {"float": "gpuops_act_sigmoid(x)"},
        {"float": npa.sigmoid},
        io_tiers("sigmoid", STANDARD),
        fusable=True,
        helpers=("act_sigmoid",),
        accuracy=Accuracy(4.5),  # exp (passed whole for x < 0) + sum + quotient
        grad="ELTWISE_LOGISTIC_GRAD",
        grad_use_dst="ELTWISE_LOGISTIC_USE_DST_FOR_BWD_GRAD",
    ),
    activation(
        "ACTIVATION_SOFTSIGN",
        "x / (1 + abs(x)); +-1 at +-inf",
        {"float": "gpuops_act_softsign(x)"},
        {"float": npa.softsign},
        io_tiers("softsign", STANDARD),
        fusable=True,
        helpers=("act_misc",),
        accuracy=Accuracy(2.0),  # sum + quotient (up to 2 ulps in (0.5, 1))
    ),
    activation(
        "ACTIVATION_SWISH",
        "x * sigmoid(sigmoid_input_scale * x)",
        {"float": "gpuops_act_swish(x, T(p_sigmoid_input_scale))"},
        {"float": npa.swish},
        tiers_for("swish", [(FL.FL_6_2, (1, 8), "F32 F16")], source=_DOC_NEW.format("swish")),
        params=(("sigmoid_input_scale", 1.0),),
        helpers=("act_sigmoid",),
        accuracy=Accuracy(5.0),  # sigmoid + product (tail: exp + products)
        grad="ELTWISE_SWISH_GRAD",
    ),
    activation(
        "ACTIVATION_TANH",
        "tanh(x)",
        {"float": "tanh(x)"},
        {"float": np.tanh},
        io_tiers("tanh", STANDARD),
        fusable=True,
        in_place=False,
        single=("float",),
        accuracy=Accuracy(2.5),  # tanh
        grad="ELTWISE_TANH_GRAD",
        grad_use_dst="ELTWISE_TANH_USE_DST_FOR_BWD_GRAD",
    ),
    activation(
        "ACTIVATION_THRESHOLDED_RELU",
        "x if x > alpha else 0",
        {"float": "x > T(p_alpha) ? x : (x == x ? T(0) : x)"},
        {"float": npa.thresholded_relu},
        io_tiers("thresholded_relu", STANDARD),
        params=(("alpha", 1.0),),
        fusable=True,
        accuracy=Accuracy(0.0),
    ),
    activation(
        "ACTIVATION_RELU_GRAD",
        "dX = dY where X > 0 else 0",
        {"any": "x > T(0) ? y : T(0)"},
        {"any": npa.relu_grad},
        tiers_for(
            "relu_grad",
            [
                (FL.FL_5_1, (1, 8), "F32 F16 I32 I16 I8"),
                (FL.FL_4_0, (1, 8), "F32 F16"),
                (FL.FL_3_0, (1, 8), "F32 F16"),
            ],
            _GRAD_ROLES,
        ),
        in_place=False,
        tensors=(("input_tensor", _IN), ("input_gradient_tensor", _IN), ("output_gradient_tensor", _OUT)),
        family=Family.GRAD,
        notes="DirectML's formula to the letter: a NaN input gives a 0 gradient.",
        accuracy=Accuracy(0.0),
    ),
    # ---- oneDNN eltwise algorithms (gpuops extensions) -------------------------------------
    onednn(
        "ACTIVATION_GELU_TANH",
        "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), as x * sigmoid(2u)",
        "gpuops_act_gelu_tanh(x)",
        npa.gelu_tanh,
        helpers=("act_gelu_tanh",),
        accuracy=Accuracy(5.0),  # sigmoid of a double-word argument + product
        grad="ELTWISE_GELU_TANH_GRAD",
    ),
    onednn(
        "ACTIVATION_LOG_SIGMOID",
        "log(1 / (1 + exp(-x))), as -softplus(-x)",
        "-gpuops_softplus(-x)",
        npa.log_sigmoid,
        helpers=("softplus",),
        accuracy=Accuracy(6.0),  # exp (condition <= 1 through log1p) + log1p
        grad="ELTWISE_LOGSIGMOID_GRAD",
    ),
    onednn(
        "ACTIVATION_MISH",
        "x * tanh(log(1 + exp(x))), overflow-free",
        "gpuops_act_mish(x)",
        npa.mish,
        helpers=("act_mish",),
        accuracy=Accuracy(9.0),  # softplus 6 + tanh (condition <= 1) + product
        grad="ELTWISE_MISH_GRAD",
    ),
    onednn(
        "ACTIVATION_POW",
        "alpha * x ** beta (IEEE pow)",
        "T(p_alpha) * gpuops_pow(x, T(p_beta))",
        npa.pow_,
        params=(("alpha", None), ("beta", None)),
        helpers=("float_overloads",),
        accuracy=Accuracy(5.0, domain="x^beta in range"),  # pow + product
        grad="ELTWISE_POW_GRAD",
    ),
    onednn(
        "ACTIVATION_BOUNDED_RELU",
        "alpha if x > alpha; x if 0 < x <= alpha; 0 if x <= 0 (alpha >= 0)",
        "x <= T(0) ? T(0) : (x > T(p_alpha) ? T(p_alpha) : x)",
        npa.bounded_relu,
        params=(("alpha", None),),
        rules=(ParamRule("alpha", lambda v: v >= 0, "alpha >= 0 (oneDNN bounded_relu)"),),
        notes="The seed's formula defines alpha >= 0 only (and -0.0 -> +0.0); NaN stays NaN.",
        accuracy=Accuracy(0.0),
        grad="ELTWISE_BOUNDED_RELU_GRAD",
    ),
    onednn(
        "ACTIVATION_CLIP_V2",
        "beta if x >= beta; x if alpha < x < beta; alpha if x <= alpha (plain comparisons: a NaN bound clamps nothing)",
        "x <= T(p_alpha) ? T(p_alpha) : (x >= T(p_beta) ? T(p_beta) : x)",
        npa.clip_v2,
        params=(("alpha", None), ("beta", None)),
        notes="x >= beta gives beta (-0.0 against beta 0 is +0.0, unlike clip); beta < alpha: alpha for x <= alpha, "
        "beta above; NaN stays NaN.",
        accuracy=Accuracy(0.0),
        grad="ELTWISE_CLIP_V2_GRAD",
        grad_use_dst="ELTWISE_CLIP_V2_USE_DST_FOR_BWD_GRAD",
    ),
    onednn(
        "ACTIVATION_SQUARE",
        "x * x",
        "x * x",
        np.square,
        single=("float",),
        accuracy=Accuracy(0.5),
        grad="ELTWISE_SQUARE_GRAD",
    ),
)
