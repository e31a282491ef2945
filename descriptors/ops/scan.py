"""Scan rows: DirectML's CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT (``schema.ScanRow``).

A running tally along one axis: output[j] = x[0] + ... + x[j] (INCREASING), x[j] + ... + x[n-1] (DECREASING);
the exclusive forms leave x[j] out, so the first output in the direction is the identity (0, 1). Each line along
the axis is walked sequentially in the direction (one CUDA thread per line, ``gpuops.codegen.scan``; NumPy's
ufunc ``accumulate``, also sequential), in the accumulator type: float32 for FLOAT32, FLOAT16 and BFLOAT16 (each
output rounded once from the float32 running value), float64 for FLOAT64, and for integers the unsigned type of at
least 32 bits, so sums and products wrap modulo 2^bits as DirectML's integer arithmetic does.

Tiers: the DirectML pages ns-directml-dml_cumulative_summation_operator_desc.md (2_1: 4-D; F32 F16 U32 U16) and
ns-directml-dml_cumulative_product_operator_desc.md (3_1: 4-D, 4_0: 1 to 8; F32 F16 U32 U16), both in-place. The
stored summation page predates its later tables: 1 to 8 dimensions from 4_0 ("8-D for ... CUMULATIVE_*") and the
64-bit integer types from 5_0 for both ("64-bit types for ... CUMULATIVE_*") come from the feature-level table of
docs/reference/directml.md section 6. FLOAT64, BFLOAT16 and the other integer types are gpuops extensions.
"""

from __future__ import annotations

import numpy as np

from ..enums import AxisDirection, FeatureLevel
from ..schema import Domain, Family, Field, FieldKind, ScanRow, Tier, types

__all__ = ["SCAN_ROWS"]

FL = FeatureLevel
_IN, _OUT = "input_tensor", "output_tensor"
_PAGE = "docs/directml/api/ns-directml-dml_cumulative_{}_operator_desc.md, tensor support"
_TABLE = "docs/reference/directml.md section 6 (feature-level table)"
_BASE = "F32 F16 U32 U16"
_WIDE = _BASE + " I64 U64"
_EXTENSION = dict.fromkeys((_IN, _OUT), types("F64 BF16 I32 I16 I8 U8"))


def _tier(level: FeatureLevel, dims: tuple[int, int], spec: str, source: str) -> Tier:
    return Tier(level, dims, dict.fromkeys((_IN, _OUT), types(spec)), ((_IN, _OUT),), source)


def _fields(exclusive: str) -> tuple[Field, ...]:
    return (
        Field(_IN, FieldKind.INPUT_TENSOR),
        Field(_OUT, FieldKind.OUTPUT_TENSOR),
        Field("axis", FieldKind.AXIS),
        Field("axis_direction", FieldKind.ENUM, default=AxisDirection.INCREASING, enum_type=AxisDirection),
        Field(exclusive, FieldKind.BOOL, default=False),
    )


_SUM_BOUND = (
    "(m-1)·u·Σ|x| for an output of m terms (first order), where no running sum overflows the accumulator + rounding"
)
_PRODUCT_BOUND = (
    "(m-1)·u·|result| for an output of m terms (first order), where no running product leaves the accumulator's "
    "normal range + rounding"
)

SCAN_ROWS: tuple[ScanRow, ...] = (
    ScanRow(
        name="CUMULATIVE_SUMMATION",
        struct="DML_CUMULATIVE_SUMMATION_OPERATOR_DESC",
        fields=_fields("has_exclusive_sum"),
        family=Family.SCAN,
        domain=Domain.ARITH,
        tiers=(
            _tier(FL.FL_2_1, (4, 4), _BASE, _PAGE.format("summation")),
            _tier(FL.FL_4_0, (1, 8), _BASE, _TABLE),
            _tier(FL.FL_5_0, (1, 8), _WIDE, _TABLE),
        ),
        summary="running sum along axis: x[0] + ... + x[j] (DECREASING: x[j] + ... + x[n-1]); exclusive: without "
        "x[j], the first being 0; sums in float32 (float64 for FLOAT64), integers wrap",
        in_place=True,
        extension_types=_EXTENSION,
        combine={"any": "a + b"},
        identity="0",
        numpy=np.add.accumulate,
        exclusive="has_exclusive_sum",
        error_bound=_SUM_BOUND,
    ),
    ScanRow(
        name="CUMULATIVE_PRODUCT",
        struct="DML_CUMULATIVE_PRODUCT_OPERATOR_DESC",
        fields=_fields("has_exclusive_product"),
        family=Family.SCAN,
        domain=Domain.ARITH,
        tiers=(
            _tier(FL.FL_3_1, (4, 4), _BASE, _PAGE.format("product")),
            _tier(FL.FL_4_0, (1, 8), _BASE, _PAGE.format("product")),
            _tier(FL.FL_5_0, (1, 8), _WIDE, _TABLE),
        ),
        summary="running product along axis: x[0] * ... * x[j] (DECREASING: x[j] * ... * x[n-1]); exclusive: "
        "without x[j], the first being 1; products in float32 (float64 for FLOAT64), integers wrap",
        in_place=True,
        extension_types=_EXTENSION,
        combine={"any": "a * b"},
        identity="1",
        numpy=np.multiply.accumulate,
        exclusive="has_exclusive_product",
        error_bound=_PRODUCT_BOUND,
    ),
)
