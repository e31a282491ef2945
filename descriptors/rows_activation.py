"""Op-table rows of the activation family (DML_OPERATOR_ACTIVATION_*) and oneDNN extensions.

Fields: ``{InputTensor, OutputTensor, <parameters>}`` (no ScaleBias on any activation).
Parameters are FLOAT kernel arguments ``p_<name>``; defaults are DirectMLX's
(shared/reference/directml.md section 3 and 3.1). ``fusable`` is DirectML's list of
activations accepted as a ``FusedActivation`` (section 3.1).

Expressions compute in ``T`` (float32 for float16/bfloat16, float64 for FLOAT64), written in
numerically stable forms (expm1 near 0, softplus without overflow for large inputs).
"""

from __future__ import annotations

import numpy as np

from . import numpy_impl_activation as npa
from .cuda_helpers import HELPERS
from .enums import FeatureLevel as FL
from .schema import Domain, Exprs, Field, FieldKind, OpRow, ParamRule, Tier, types

__all__ = ["ACTIVATION_ROWS"]

_IN, _OUT = FieldKind.INPUT_TENSOR, FieldKind.OUTPUT_TENSOR
_IO = (("input_tensor", "output_tensor"),)
_EXT = {"input_tensor": types("F64 BF16"), "output_tensor": types("F64 BF16")}
_DOC = "sdk-api ns-directml-dml_activation_{}_operator_desc.md"

HELPERS.update(
    {
        "softplus": (
            """
// log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|)).
template <typename F>
__device__ __forceinline__ F gpuops_softplus(F z) {
  return (z > F(0) ? z : F(0)) + log1p(exp(-fabs(z)));
}
""",
            (),
        ),
    }
)


def io_tiers(doc: str, rows: list[tuple[FL, tuple[int, int], str]]) -> tuple[Tier, ...]:
    """Tiers where Input and Output take the same types and must share one."""
    out = []
    for fl, dims, spec in rows:
        t = types(spec)
        out.append(Tier(fl, dims, {"input_tensor": t, "output_tensor": t}, _IO, _DOC.format(doc)))
    return tuple(out)


# "Most activations" (reference section 3): 3.0+: 1-8 F32 F16; 2.0: 4-5; 1.0: 4.
STANDARD = [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_2_0, (4, 5), "F32 F16"), (FL.FL_1_0, (4, 4), "F32 F16")]


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
    preamble: tuple[str, ...] = (),
    rules: tuple[ParamRule, ...] = (),
    extension: bool = False,
) -> OpRow:
    fields = [Field("input_tensor", _IN), Field("output_tensor", _OUT)]
    for pname, default in params:
        fields.append(
            Field(pname, FieldKind.FLOAT, default=default) if default is not None else Field(pname, FieldKind.FLOAT)
        )
    return OpRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        fields=tuple(fields),
        domain=Domain.ARITH,
        exprs=Exprs(cuda=cuda, numpy=numpy, numpy_single_ufunc=frozenset(single)),
        tiers=tiers,
        summary=summary,
        in_place=in_place,
        preamble=preamble,
        extension_types=_EXT,
        extension=extension,
        family="activation",
        fusable=fusable,
        param_rules=rules,
    )


ACTIVATION_ROWS: tuple[OpRow, ...] = (
    activation(
        "ACTIVATION_RELU",
        "max(0, x); NaN propagates, -0.0 gives +0.0",
        {"any": "(x > T(0) || x != x) ? x : T(0)"},
        {"any": npa.relu},
        io_tiers(
            "relu",
            [
                (FL.FL_5_1, (1, 8), "F32 F16 I32 I16 I8"),
                (FL.FL_3_0, (1, 8), "F32 F16"),
                (FL.FL_2_0, (4, 5), "F32 F16"),
                (FL.FL_1_0, (4, 4), "F32 F16"),
            ],
        ),
        fusable=True,
        single=("any",),
    ),
    activation(
        "ACTIVATION_ELU",
        "x if x >= 0 else alpha * (exp(x) - 1), with expm1",
        {"float": "x >= T(0) ? x : T(p_alpha) * expm1(x)"},
        {"float": npa.elu},
        io_tiers("elu", STANDARD),
        params=(("alpha", 1.0),),
        fusable=True,
    ),
    activation(
        "ACTIVATION_SOFTPLUS",
        "log(1 + exp(steepness * x)) / steepness, overflow-free",
        {"float": "gpuops_softplus(T(p_steepness) * x) / T(p_steepness)"},
        {"float": npa.softplus},
        io_tiers("softplus", STANDARD),
        params=(("steepness", 1.0),),
        fusable=True,
        preamble=("softplus",),
        rules=(ParamRule("steepness", lambda v: v >= 1, "steepness >= 1", relaxed_at=FL.FL_6_4),),
    ),
)

_ = np  # numpy callables live in numpy_impl_activation
