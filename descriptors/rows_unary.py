"""Op-table rows of the unary element-wise family (DML_ELEMENT_WISE_* with one input).

Most have ``{InputTensor, OutputTensor, ScaleBias}`` (reference section 2.1): the
ScaleBias applies to the input first, ``f(x * scale + bias)``, in float32. Tier sources:
sdk-api ``ns-directml-dml_element_wise_<op>_operator_desc.md`` as transcribed in
shared/reference/directml.md section 2.4.
"""

from __future__ import annotations

import numpy as np

from . import numpy_impl_unary as npu
from .enums import FeatureLevel as FL
from .schema import Domain, Exprs, Field, FieldKind, OpRow, Tier, types

__all__ = ["UNARY_ROWS"]

_IN, _OUT, _SB = FieldKind.INPUT_TENSOR, FieldKind.OUTPUT_TENSOR, FieldKind.SCALE_BIAS
_IO = (("input_tensor", "output_tensor"),)
UNARY_SB_FIELDS = (Field("input_tensor", _IN), Field("output_tensor", _OUT), Field("scale_bias", _SB))
UNARY_FIELDS = UNARY_SB_FIELDS[:2]
_DOC = "sdk-api ns-directml-dml_element_wise_{}_operator_desc.md"
EXT_FLOAT = {"input_tensor": types("F64 BF16"), "output_tensor": types("F64 BF16")}


def io_tiers(doc: str, rows: list[tuple[FL, tuple[int, int], str]]) -> tuple[Tier, ...]:
    """Tiers where Input and Output take the same types and must share one."""
    out = []
    for fl, dims, spec in rows:
        t = types(spec)
        out.append(Tier(fl, dims, {"input_tensor": t, "output_tensor": t}, _IO, _DOC.format(doc)))
    return tuple(out)


# EXP, LOG, SQRT, RECIP, CEIL, FLOOR, trig: 3.0+: 1-8 F32 F16; 1.0: 4 F32 F16.
FLOAT_MATH = [(FL.FL_3_0, (1, 8), "F32 F16"), (FL.FL_1_0, (4, 4), "F32 F16")]


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
    preamble: tuple[str, ...] = (),
    ext: dict | None = None,
    extra_fields: tuple[Field, ...] = (),
    domain: Domain = Domain.ARITH,
) -> OpRow:
    fields = (UNARY_SB_FIELDS if scale_bias else UNARY_FIELDS) + extra_fields
    return OpRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        fields=fields,
        domain=domain,
        exprs=Exprs(cuda=cuda, numpy=numpy, numpy_single_ufunc=frozenset(single)),
        tiers=tiers,
        summary=summary,
        in_place=in_place,
        preamble=preamble,
        extension_types=EXT_FLOAT if ext is None else ext,
        family="unary",
    )


UNARY_ROWS: tuple[OpRow, ...] = (
    unary(
        "ELEMENT_WISE_IDENTITY",
        "x (copies, layout changes through strides)",
        {"any": "x"},
        {"any": npu.identity},
        io_tiers(
            "identity",
            [
                (FL.FL_4_1, (1, 8), "F64 F32 F16 all-int"),
                (FL.FL_3_0, (1, 8), "F32 F16 I32 I16 I8 U32 U16 U8"),
                (FL.FL_2_1, (4, 5), "F32 F16 I32 I16 I8 U32 U16 U8"),
                (FL.FL_1_0, (4, 5), "F32 F16"),
            ],
        ),
        single=("any",),
        ext={"input_tensor": types("BF16 BOOL"), "output_tensor": types("BF16 BOOL")},
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
    ),
    unary(
        "ELEMENT_WISE_EXP",
        "exp(x)",
        {"float": "exp(x)"},
        {"float": np.exp},
        io_tiers("exp", FLOAT_MATH),
        single=("float",),
    ),
)
