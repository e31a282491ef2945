"""Op-table rows of oneDNN's eltwise backward algorithms (gpuops extensions).

One descriptor shape for all of them, DirectML's RELU_GRAD shape plus oneDNN's two
parameters: ``{input_tensor, input_gradient_tensor, output_gradient_tensor, alpha, beta}``.
``input_tensor`` is oneDNN's src, or its dst for the ``*_use_dst_for_bwd`` algorithms;
``input_gradient_tensor`` is diff_dst and ``output_gradient_tensor`` diff_src. Formulas are
the seed's "Backward formula" columns (docs/seeds/003_0fd48c5d47d20a7e.txt), with s (or d)
= ``x`` and dd = ``y``; ``round`` has no backward (the seed's exception). Where the literal
formula overflows in float32 (mish's e^{3s}), an algebraically equal stable form is used.
Products are ordered so that no intermediate leaves the compute type's range where the
result is inside it (square, sqrt and tanh/logistic from dst, pow: a comparison picks the
order, both orders round alike), and swish takes its limits where alpha * s overflows. What
still needs more range than the compute type (an e^s that underflows while dd is huge) is
outside the stated accuracy's domain (descriptors/accuracy.py).
"""

from __future__ import annotations

from ..cuda_helpers import Helper
from ..enums import FeatureLevel as FL
from ..schema import (
    Accuracy,
    Domain,
    ElementwiseRow,
    Exprs,
    Family,
    Field,
    FieldKind,
    NumpyImpl,
    ParamRule,
    Tier,
    types,
)
from . import backward_numpy as npb

__all__ = ["BACKWARD_HELPERS", "BACKWARD_ROWS"]

_ROLES = ("input_tensor", "input_gradient_tensor", "output_gradient_tensor")
_FIELDS = (
    Field("input_tensor", FieldKind.INPUT_TENSOR),
    Field("input_gradient_tensor", FieldKind.INPUT_TENSOR),
    Field("output_gradient_tensor", FieldKind.OUTPUT_TENSOR),
    Field("alpha", FieldKind.FLOAT, default=0.0),
    Field("beta", FieldKind.FLOAT, default=0.0),
)
_SRC = "gpuops extension (oneDNN eltwise backward); tiers mirror ACTIVATION_RELU_GRAD's float tiers"
# oneDNN backward data types: f32 and bf16 (seed, "Data Type Support"); FLOAT16 as DirectML's
# RELU_GRAD takes it; FLOAT64 as for every float extension.
_TIERS = (Tier(FL.FL_3_0, (1, 8), dict.fromkeys(_ROLES, types("F32 F16")), (_ROLES,), _SRC),)
_EXT = dict.fromkeys(_ROLES, types("BF16 F64"))

BACKWARD_HELPERS: dict[str, Helper] = {
    "bwd_math": Helper(
        """
// Stable logistic function and softplus for the eltwise backward formulas.
template <typename F>
__device__ __forceinline__ F gpuops_bwd_sigmoid(F s) {
  const F e = exp(-fabs(s));
  return s >= F(0) ? F(1) / (F(1) + e) : e / (F(1) + e);
}
template <typename F>
__device__ __forceinline__ F gpuops_bwd_softplus(F s) {
  return (s > F(0) ? s : F(0)) + log1p(exp(-fabs(s)));
}
// d/ds [s * tanh(softplus(s))] = tanh(sp) + s * (1 - tanh(sp)^2) * sigmoid(s), the seed's
// e^s * omega / delta^2 rewritten so that e^{3s} cannot overflow.
template <typename F>
__device__ __forceinline__ F gpuops_bwd_mish(F s) {
  const F t = tanh(gpuops_bwd_softplus(s));
  return t + s * (F(1) - t * t) * gpuops_bwd_sigmoid(s);
}
// s^(beta - 1), the exponent's rounding error folded back: beta - 1 = e + de exactly (Knuth's
// TwoSum), s^(beta - 1) = s^e |s|^de, to first order s^e (1 + de ln|s|). de is 0 where beta - 1
// is exact; else (beta = 0.1) pow(s, e) alone is off by |de ln s|: 13 ulps at s = 1e-30.
template <typename F>
__device__ __forceinline__ F gpuops_bwd_pow_m1(F s, F b) {
  const F e = b - F(1);
  const F bb = e - b;
  const F de = (b - (e - bb)) + (F(-1) - bb);
  const F p = pow(s, e);
  if (!(fabs(de) > F(0)) || p == F(0) || isinf(p)) return p;  // de is NaN for an infinite beta
  return p + p * (de * log(fabs(s)));
}
// The seed's swish backward factor sigma(z) (1 + z (1 - sigma(z))), z = alpha s; where z is
// infinite (alpha s beyond the type's range, or s infinite) its limits: 1 at +inf, 0 at -inf
// (z (1 - sigma(z)) and sigma(z) z both tend to 0), not inf * 0.
template <typename F>
__device__ __forceinline__ F gpuops_bwd_swish(F z) {
  if (isinf(z)) return z > F(0) ? F(1) : F(0);
  const F g = gpuops_bwd_sigmoid(z);
  return g * (F(1) + z * (F(1) - g));
}
// The seed's gelu_tanh backward, formula (1). Beyond |s| > 10 it is its limit (1, or 0) to
// below float32's smallest normal, and s^3 would overflow: return the limit there.
template <typename F>
__device__ __forceinline__ F gpuops_bwd_gelu_tanh(F s) {
  if (s > F(10)) return F(1);
  if (s < F(-10)) return F(0);
  const F k = F(0.7978845608028654);  // sqrt(2 / pi)
  const F t = tanh(k * (s + F(0.044715) * s * s * s));
  return F(0.5) * (F(1) + t) * (F(1) + k * (s + F(0.134145) * s * s * s) * (F(1) - t));
}
""",
        (),
    ),
}


def grad(
    alg: str,
    formula: str,
    cuda: str,
    numpy: NumpyImpl,
    *,
    use_dst: bool = False,
    rules: tuple[ParamRule, ...] = (),
    accuracy: tuple[float, float] | None = None,
    domain: str = "",
) -> ElementwiseRow:
    """One backward row: oneDNN algorithm ``eltwise_<alg>`` (``_use_dst_for_bwd`` when use_dst).

    ``accuracy``: the stated ``(ulps, atol)``, the absolute term per unit of |dd|; ``domain``:
    where it holds (``accuracy.py``). None: exact or one correctly rounded operation.
    """
    name = f"ELTWISE_{alg.upper()}{'_USE_DST_FOR_BWD' if use_dst else ''}_GRAD"
    return ElementwiseRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        fields=_FIELDS,
        domain=Domain.ARITH,
        exprs=Exprs(cuda={"float": cuda}, numpy={"float": numpy}),
        tiers=_TIERS,
        summary=f"oneDNN eltwise_{alg}{'_use_dst_for_bwd' if use_dst else ''} backward: {formula}",
        in_place=True,  # oneDNN: diff_dst may be diff_src
        helpers=("bwd_math",),
        extension_types=_EXT,
        extension=True,
        family=Family.GRAD,
        primary="input_tensor",
        param_rules=rules,
        accuracy=None if accuracy is None else Accuracy(*accuracy, domain=domain, per_dd=True),
    )


_ALPHA_NONNEG = (ParamRule("alpha", lambda a: a >= 0, "alpha >= 0 (oneDNN: *_use_dst_for_bwd)"),)

BACKWARD_ROWS: tuple[ElementwiseRow, ...] = (
    grad("abs", "ds = dd if s > 0, -dd if s < 0, 0 if s == 0", "x > T(0) ? y : (x < T(0) ? -y : T(0))", npb.abs_grad),
    grad(
        "bounded_relu",
        "ds = dd if 0 < s <= alpha else 0",
        "(x > T(0) && x <= T(p_alpha)) ? y : T(0)",
        npb.bounded_relu_grad,
    ),
    grad(
        "clip",
        "ds = dd if alpha < s <= beta else 0",
        "(x > T(p_alpha) && x <= T(p_beta)) ? y : T(0)",
        npb.clip_grad,
    ),
    grad(
        "clip_v2",
        "ds = dd if alpha < s < beta else 0",
        "(x > T(p_alpha) && x < T(p_beta)) ? y : T(0)",
        npb.clip_v2_grad,
    ),
    grad(
        "clip_v2",
        "ds = dd if alpha < d < beta else 0",
        "(x > T(p_alpha) && x < T(p_beta)) ? y : T(0)",
        npb.clip_v2_grad,
        use_dst=True,
    ),
    grad(
        "elu",
        "ds = dd if s > 0 else dd * alpha * e^s",
        "x > T(0) ? y : y * (T(p_alpha) * exp(x))",
        npb.elu_grad,
        accuracy=(6.0, 0.0),
        domain="e^s and alpha * e^s (s <= 0) in range",
    ),
    grad(
        "elu",
        "ds = dd if d > 0 else dd * (d + alpha)",
        "x > T(0) ? y : y * (x + T(p_alpha))",
        npb.elu_dst_grad,
        use_dst=True,
        rules=_ALPHA_NONNEG,
        accuracy=(4.0, 4e-07),
    ),
    grad(
        "exp",
        "ds = dd * e^s",
        "y * exp(x)",
        npb.exp_grad,
        accuracy=(4.0, 0.0),  # dd * exp(s): EXP's 3 + 0.5 / 3.0 measured (oneDNN front-end tests)
        domain="e^s in range",
    ),
    grad("exp", "ds = dd * d", "y * x", npb.exp_dst_grad, use_dst=True),
    grad(
        "gelu_erf",
        "ds = dd * (0.5 + 0.5 erf(s / sqrt 2) + s / sqrt(2 pi) e^{-s^2 / 2})",
        "y * (T(0.5) + T(0.5) * erf(x * T(0.7071067811865476)) + x * T(0.3989422804014327) * exp(T(-0.5) * x * x))",
        npb.gelu_erf_grad,
        accuracy=(8.0, 4e-07),
        domain="f'(s) in range",
    ),
    grad(
        "gelu_tanh",
        "the seed's formula (1)",
        "y * gpuops_bwd_gelu_tanh(x)",
        npb.gelu_tanh_grad,
        accuracy=(8.0, 2e-06),
        domain="f'(s) in range",
    ),
    grad(
        "hardswish",
        "ds = dd if s > 3, dd * (2s + 3) / 6 if -3 < s <= 3, else 0",
        "x > T(3) ? y : (x > T(-3) ? y * ((T(2) * x + T(3)) / T(6)) : T(0))",
        npb.hardswish_grad,
        accuracy=(2.5, 0.0),  # dd * (2s + 3) / 6, three roundings / 1.9 measured
    ),
    grad("linear", "ds = alpha * dd", "T(p_alpha) * y", npb.linear_grad),
    grad("log", "ds = dd / s", "y / x", npb.log_grad),
    grad(
        "logistic",
        "ds = dd * sigma(s) * (1 - sigma(s))",
        "y * (gpuops_bwd_sigmoid(x) * (T(1) - gpuops_bwd_sigmoid(x)))",
        npb.logistic_grad,
        accuracy=(8.0, 2e-07),
        domain="f'(s) in range",
    ),
    grad(
        "logistic",
        "ds = dd * d * (1 - d)",
        # |d| > 1e19: d * (1 - d) would overflow, dd * d cannot (|dd| >= the smallest subnormal).
        "fabs(x) > T(1e19) ? (y * x) * (T(1) - x) : y * (x * (T(1) - x))",
        npb.logistic_dst_grad,
        use_dst=True,
        accuracy=(4.0, 4e-07),
    ),
    grad(
        "logsigmoid",
        "ds = dd / (1 + e^s)",
        "y * gpuops_bwd_sigmoid(-x)",
        npb.logsigmoid_grad,
        accuracy=(8.0, 2e-07),
        domain="f'(s) in range",
    ),
    grad(
        "mish",
        "ds = dd * e^s * omega / delta^2 (stable form)",
        "y * gpuops_bwd_mish(x)",
        npb.mish_grad,
        accuracy=(8.0, 4e-07),
        domain="f'(s) and sigma(s) in range",
    ),
    grad(
        "pow",
        "ds = dd * alpha * beta * s^(beta - 1)",
        # (alpha * dd) * (beta * s^(beta - 1)): not alpha * beta first, which overflows on its own.
        "(T(p_alpha) * y) * (T(p_beta) * gpuops_bwd_pow_m1(x, T(p_beta)))",
        npb.pow_grad,
        accuracy=(8.0, 0.0),
        domain="alpha * dd, s^(beta - 1) and beta * s^(beta - 1) in range",
    ),
    grad("relu", "ds = dd if s > 0 else alpha * dd", "x > T(0) ? y : T(p_alpha) * y", npb.relu_grad),
    grad(
        "relu",
        "ds = dd if d > 0 else alpha * dd",
        "x > T(0) ? y : T(p_alpha) * y",
        npb.relu_grad,
        use_dst=True,
        rules=_ALPHA_NONNEG,
    ),
    grad(
        "soft_relu",
        "ds = dd / (1 + e^{-s})",
        "y * gpuops_bwd_sigmoid(x)",
        npb.soft_relu_grad,
        accuracy=(8.0, 2e-07),
        domain="f'(s) in range",
    ),
    grad(
        "sqrt",
        "ds = dd / (2 sqrt(s))",
        "y / (T(2) * sqrt(x))",
        npb.sqrt_grad,
        accuracy=(2.0, 0.0),  # dd / (2 sqrt(s)): sqrt, divide, multiply / 1.34 measured
    ),
    grad(
        "sqrt",
        "ds = dd / (2 d)",
        # 2 d overflows beyond 1.7e38: halve dd there instead (exact unless the result underflows).
        "fabs(x) > T(1e38) ? (T(0.5) * y) / x : y / (T(2) * x)",
        npb.sqrt_dst_grad,
        use_dst=True,
    ),
    # Doubles the smaller operand: 2 * s * dd with no intermediate overflow, correctly rounded.
    grad("square", "ds = dd * 2 s", "fabs(x) > fabs(y) ? (T(2) * y) * x : y * (T(2) * x)", npb.square_grad),
    grad(
        "swish",
        "ds = dd * sigma(alpha s) * (1 + alpha s (1 - sigma(alpha s)))",
        "y * gpuops_bwd_swish(T(p_alpha) * x)",
        npb.swish_grad,
        accuracy=(8.0, 4e-07),
        domain="f'(s) and sigma(alpha * s) in range",
    ),
    grad(
        "tanh",
        "ds = dd * (1 - tanh(s)^2)",
        "y * (T(1) - tanh(x) * tanh(x))",
        npb.tanh_grad,
        accuracy=(8.0, 4e-07),
        domain="f'(s) in range",
    ),
    grad(
        "tanh",
        "ds = dd * (1 - d^2)",
        # |d| > 1e19: d^2 would overflow; 1 - d^2 is -d^2 to the last bit there.
        "fabs(x) > T(1e19) ? (y * x) * (-x) : y * (T(1) - x * x)",
        npb.tanh_dst_grad,
        use_dst=True,
        accuracy=(4.0, 4e-07),
    ),
)
