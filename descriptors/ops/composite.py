"""Composite rows: DirectML operators computed as a short plan of other rows (``schema.CompositeRow``).

Softmax and log-softmax (``DML_ACTIVATION_SOFTMAX``, ``..._LOG_SOFTMAX`` and their ``1`` forms with Axes),
and ``DML_MEAN_VARIANCE_NORMALIZATION1``: each a reduction, an element-wise pass fused into a second reduction,
and an element-wise pass writing the output; hardmax (``..._HARDMAX``, ``HARDMAX1``): ARGMAX, the elements' own
indices (FILL_VALUE_SEQUENCE) and a comparison. Every part is an operator of the table, so every backend runs
them; the CUDA path launches three kernels for each, or one (``gpuops.row_program``) where a row fits a block.
Numerically stable as the issue asks: softmax subtracts the maximum before ``exp``; every sum and division of
FLOAT16 and BFLOAT16 happens in float32 (``composite.compute_type``), rounded once into the output.
Facts: docs/reference/directml.md sections 3 and 14.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..composite import DESC_CLASS_BY_NAME, Part, compute_type, packed
from ..enums import AxisDirection, DataType, FeatureLevel, ReduceFunction
from ..errors import count
from ..schema import CompositeRow, Domain, Family, Field, FieldKind, Tier, types

__all__ = ["COMPOSITE_ROWS", "check_axes"]

FL = FeatureLevel
_IN, _OUT = "input_tensor", "output_tensor"
_DOC = "docs/directml/api/ns-directml-dml_{}_operator_desc.md, tensor support"
_FLOATS = "F32 F16"


def _tiers(
    page: str, rows: list[tuple[FeatureLevel, tuple[int, int]]], roles: tuple[str, ...] = (_IN, _OUT)
) -> tuple[Tier, ...]:
    return tuple(
        Tier(level, dims, dict.fromkeys(roles, types(_FLOATS)), (roles,), _DOC.format(page), optional=roles[1:-1])
        for level, dims in rows
    )


def check_axes(axes: object, rank: int) -> str | None:
    """Why ``axes`` is not a non-empty list of unique axis numbers below ``rank`` (None when it is)."""
    from ..float_range import show_values

    if not isinstance(axes, (tuple, list)) or any(
        isinstance(a, bool | np.bool_) or not isinstance(a, int | np.integer) for a in axes
    ):
        return f"must be a sequence of axis numbers (UINT) (got {show_values(axes)})"
    axes = [int(a) for a in axes]
    if not axes:
        return f"is empty; list the axes, 0 to {rank - 1}"
    bad = [a for a in axes if not 0 <= a < rank]
    if bad:
        return f"{tuple(axes)} has {bad[0]}; input_tensor has {count(rank, 'dimension')}, so axes are 0 to {rank - 1}"
    if len(set(axes)) != len(axes):
        return f"{tuple(axes)} lists an axis twice; axes must be unique"
    return None


def _axes_rule(desc: Any, level: FeatureLevel) -> tuple[str, str] | None:
    problem = check_axes(desc.axes, desc.input_tensor.dimension_count)
    return ("axes", problem) if problem else None


def _effective_rank_rule(desc: Any, level: FeatureLevel) -> tuple[str, str] | None:
    """SOFTMAX, LOG_SOFTMAX, HARDMAX (the FL 1_0 forms): the effective rank (DimensionCount less the leading
    dimensions of size 1) is at most 2; they normalize along the last dimension."""
    sizes = desc.input_tensor.sizes
    lead = next((k for k, s in enumerate(sizes) if s != 1), len(sizes))
    if len(sizes) - lead > 2:
        return (
            "input_tensor.sizes",
            f"is {sizes}, effective rank {len(sizes) - lead}; {type(desc).row.name} takes an effective rank of at "
            "most 2 (leading sizes of 1 do not count); use the 1 form (SOFTMAX1, ...) with Axes for others",
        )
    return None


def _axes_of(desc: Any) -> tuple[int, ...]:
    axes = getattr(desc, "axes", None)
    return tuple(sorted(int(a) for a in axes)) if axes is not None else (desc.input_tensor.dimension_count - 1,)


def _reduced(sizes: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if d in axes else s for d, s in enumerate(sizes))


class _Plan:
    """Builds the parts of one composite: ``add`` returns the new part's read."""

    def __init__(self) -> None:
        self.parts: list[Part] = []

    def add(self, name: str, reads: tuple[tuple[str, int] | None, ...], **fields: Any) -> tuple[str, int]:
        # The classes come from the table this module is part of: descriptors.descs hands them down.
        self.parts.append(Part(DESC_CLASS_BY_NAME[name](**fields), reads))
        return ("part", len(self.parts) - 1)

    def computed(self, read: tuple[str, int], tensor: Any, ct: DataType) -> tuple[tuple[str, int], Any]:
        """``read`` (of ``tensor``) in the compute type: as is, or through a CAST part of its own (one per use,
        so that each fuses into the kernel that reads it)."""
        if tensor.data_type is ct:
            return read, tensor
        out = packed(ct, tensor.sizes)
        return self.add("CAST", (read,), input_tensor=tensor, output_tensor=out), out


def _begin(desc: Any) -> tuple[_Plan, tuple[int, ...], DataType, Any, Any, tuple[str, int]]:
    """What a normalizing plan starts from: an empty plan, the axes, the compute type, a packed value at the
    input's sizes and one at the reduced sizes (both in the compute type), and the read of the input."""
    x = desc.input_tensor
    axes = _axes_of(desc)
    ct = compute_type(x.data_type)
    return _Plan(), axes, ct, packed(ct, x.sizes), packed(ct, _reduced(x.sizes, axes)), ("input", 0)


def _softmax_parts(desc: Any, log: bool) -> tuple[Part, ...]:
    """max m (over the axes); s = sum exp(x - m); softmax: exp(x - m) / s; log-softmax: (x - m) - log(s)."""
    x, out = desc.input_tensor, desc.output_tensor
    p, axes, ct, value, at_red, xin = _begin(desc)
    xc, xt = p.computed(xin, x, ct)
    m = p.add("REDUCE", (xc,), function=ReduceFunction.MAX, input_tensor=xt, output_tensor=at_red, axes=axes)
    xc, xt = p.computed(xin, x, ct)
    d = p.add("ELEMENT_WISE_SUBTRACT", (xc, m), a_tensor=xt, b_tensor=value, output_tensor=value)
    e = p.add("ELEMENT_WISE_EXP", (d,), input_tensor=value, output_tensor=value)
    s = p.add("REDUCE", (e,), function=ReduceFunction.SUM, input_tensor=value, output_tensor=at_red, axes=axes)
    if log:
        s = p.add("ELEMENT_WISE_LOG", (s,), input_tensor=at_red, output_tensor=at_red)
    xc, xt = p.computed(xin, x, ct)
    d = p.add("ELEMENT_WISE_SUBTRACT", (xc, m), a_tensor=xt, b_tensor=value, output_tensor=value)
    if log:
        p.add("ELEMENT_WISE_SUBTRACT", (d, s), a_tensor=value, b_tensor=value, output_tensor=value)
    else:
        e = p.add("ELEMENT_WISE_EXP", (d,), input_tensor=value, output_tensor=value)
        p.add("ELEMENT_WISE_DIVIDE", (e, s), a_tensor=value, b_tensor=value, output_tensor=value)
    return _finish(p, out)


def _softmax(desc: Any) -> tuple[Part, ...]:
    return _softmax_parts(desc, log=False)


def _log_softmax(desc: Any) -> tuple[Part, ...]:
    return _softmax_parts(desc, log=True)


def _hardmax(desc: Any) -> tuple[Part, ...]:
    """1 where the element is the first maximum over the axes (ARGMAX, INCREASING: its index row-major over the
    axes), else 0: ARGMAX's index compared with each element's own (FILL_VALUE_SEQUENCE over the axes' sizes),
    the comparison's 1/0 cast into the output type."""
    x, out = desc.input_tensor, desc.output_tensor
    axes = _axes_of(desc)
    full, red = x.sizes, _reduced(x.sizes, axes)
    along = tuple(s if d in axes else 1 for d, s in enumerate(full))
    u32, u8 = DataType.UINT32, DataType.UINT8
    p = _Plan()
    first = p.add(
        "ARGMAX", (("input", 0),), input_tensor=x, output_tensor=packed(u32, red), axes=axes,
        axis_direction=AxisDirection.INCREASING,
    )  # fmt: skip
    own = p.add("FILL_VALUE_SEQUENCE", (), output_tensor=packed(u32, along), value_data_type=u32, value_start=0,
                value_delta=1)  # fmt: skip
    at = packed(u32, full)
    hit = p.add("ELEMENT_WISE_LOGICAL_EQUALS", (own, first), a_tensor=at, b_tensor=at, output_tensor=packed(u8, full))
    p.add("CAST", (hit,), input_tensor=packed(u8, full), output_tensor=out)
    return tuple(p.parts)


def _mvn_parts(desc: Any) -> tuple[Part, ...]:
    """mean m; var = mean((x - m)^2) (two passes: no cancellation); out = act((x - m) / sqrt(var + eps) * scale
    + bias); without NormalizeVariance, act((x - m) * scale + bias)."""
    x, scale, bias, out = desc.input_tensor, desc.scale_tensor, desc.bias_tensor, desc.output_tensor
    p, axes, ct, value, at_red, xin = _begin(desc)
    full = x.sizes
    xc, xt = p.computed(xin, x, ct)
    m = p.add("REDUCE", (xc,), function=ReduceFunction.AVERAGE, input_tensor=xt, output_tensor=at_red, axes=axes)
    sd = None
    if desc.normalize_variance:
        xc, xt = p.computed(xin, x, ct)
        d = p.add("ELEMENT_WISE_SUBTRACT", (xc, m), a_tensor=xt, b_tensor=value, output_tensor=value)
        sq = p.add("ELEMENT_WISE_MULTIPLY", (d, d), a_tensor=value, b_tensor=value, output_tensor=value)
        var = p.add(
            "REDUCE", (sq,), function=ReduceFunction.AVERAGE, input_tensor=value, output_tensor=at_red, axes=axes
        )
        # Epsilon is a FLOAT (float32); a FILL_VALUE_CONSTANT part holds it, exact in the compute type.
        eps = p.add("FILL_VALUE_CONSTANT", (), output_tensor=at_red, value_data_type=ct, value=_float32(desc.epsilon))
        ve = p.add("ELEMENT_WISE_ADD", (var, eps), a_tensor=at_red, b_tensor=at_red, output_tensor=at_red)
        sd = p.add("ELEMENT_WISE_SQRT", (ve,), input_tensor=at_red, output_tensor=at_red)
    xc, xt = p.computed(xin, x, ct)
    r = p.add("ELEMENT_WISE_SUBTRACT", (xc, m), a_tensor=xt, b_tensor=value, output_tensor=value)
    if sd is not None:
        r = p.add("ELEMENT_WISE_DIVIDE", (r, sd), a_tensor=value, b_tensor=value, output_tensor=value)
    for k, (t, name) in enumerate(((scale, "ELEMENT_WISE_MULTIPLY"), (bias, "ELEMENT_WISE_ADD")), start=1):
        if t is not None:
            tc, tt = p.computed(("input", k), t.read_as(full), ct)
            r = p.add(name, (r, tc), a_tensor=value, b_tensor=tt, output_tensor=value)
    act = desc.fused_activation
    if act is not None:
        p.add(act.row.name, (r,), **_with_tensors(act, value))
    return _finish(p, out)


def _float32(v: float) -> float:
    """A FLOAT field's value: the C float nearest ``v``."""
    return float(np.float32(v))


def _with_tensors(act: Any, tensor: Any) -> dict[str, Any]:
    """A fused activation's fields with its (null) tensors set: DirectML's fused activations take the host's
    output tensor in and out."""
    fields = {f.name: getattr(act, f.name) for f in act.row.fields}
    return fields | {f.name: tensor for f in act.row.tensor_fields}


def _finish(p: _Plan, out: Any) -> tuple[Part, ...]:
    """The last part writes the output tensor: itself when it computes in the output's type, else through a
    CAST (the one rounding of FLOAT16 and BFLOAT16 results)."""
    last = p.parts[-1]
    value = last.desc.output_tensors[0]
    if value.data_type is not out.data_type:
        p.add("CAST", (("part", len(p.parts) - 1),), input_tensor=value, output_tensor=out)
    else:
        outputs = {f.name: out for f in last.desc.row.output_fields}
        p.parts[-1] = dataclasses.replace(last, desc=dataclasses.replace(last.desc, **outputs))
    return tuple(p.parts)


def _mvn_rule(desc: Any, level: FeatureLevel) -> tuple[str, str] | None:
    """MEAN_VARIANCE_NORMALIZATION1: Axes valid; ScaleTensor and BiasTensor both or neither below FL 5_2; each
    dimension of theirs equal to the input's or 1 (broadcast), the channel (dimension 1) equal below FL 4_0."""
    problem = _axes_rule(desc, level)
    if problem:
        return problem
    scale, bias = desc.scale_tensor, desc.bias_tensor
    if (scale is None) != (bias is None) and level < FL.FL_5_2:
        given, missing = ("scale_tensor", "bias_tensor") if bias is None else ("bias_tensor", "scale_tensor")
        return (missing, f"is None while {given} is given; below FL_5_2 they come together (from FL_5_2 on, alone)")
    sizes = desc.input_tensor.sizes
    for role, t in (("scale_tensor", scale), ("bias_tensor", bias)):
        if t is None:
            continue
        if t.dimension_count != len(sizes) or any(s not in (1, n) for s, n in zip(t.sizes, sizes, strict=True)):
            return (
                f"{role}.sizes",
                f"is {t.sizes}; each dimension must be input_tensor's ({sizes}) or 1 (broadcast), same count",
            )
        if level < FL.FL_4_0 and len(sizes) > 1 and t.sizes[1] != sizes[1]:
            return (f"{role}.sizes", f"is {t.sizes}; below FL_4_0 the channel dimension (1) must be {sizes[1]}")
    return None


def _softmax_row(name: str, kind: str, one: bool) -> CompositeRow:
    """SOFTMAX, LOG_SOFTMAX, HARDMAX (``kind``) and their 1 forms."""
    page = kind + ("1" if one else "")
    fields: tuple[Field, ...] = (Field(_IN, FieldKind.INPUT_TENSOR), Field(_OUT, FieldKind.OUTPUT_TENSOR))
    if one:
        fields += (Field("axes", FieldKind.AXES),)
    what = {
        "softmax": "exp(x - max) / sum exp(x - max)",
        "log_softmax": "ln(exp(x - max) / sum exp(x - max))",
        "hardmax": "1 at the first maximum (row-major over the axes), 0 elsewhere",
    }[kind]
    over = "over Axes jointly" if one else "over the last dimension (effective rank at most 2)"
    how = "" if kind == "hardmax" else "; the maximum is subtracted first, sums in float32 (float64 for FLOAT64)"
    bound = {"softmax": "(n+16)·u + rounding", "log_softmax": "(n+16)·u·max(1, |result|) + rounding"}
    return CompositeRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        fields=fields,
        family=Family.COMPOSITE,
        domain=Domain.ARITH,
        tiers=_tiers(f"activation_{page}", [(FL.FL_5_1, (1, 8))])
        if one
        else _tiers(f"activation_{page}", [(FL.FL_3_0, (1, 8)), (FL.FL_2_0, (4, 5)), (FL.FL_1_0, (4, 4))]),
        summary=f"{what}, {over}{how}",
        in_place=False,
        extension_types=dict.fromkeys((_IN, _OUT), types("F64 BF16")),
        decompose={"softmax": _softmax, "log_softmax": _log_softmax, "hardmax": _hardmax}[kind],
        shape_rule=_axes_rule if one else _effective_rank_rule,
        error_bound=bound.get(kind, "exact"),
        notes="A NaN in a slice: ARGMAX's rule decides which element is the maximum (README)."
        if kind == "hardmax"
        else "",
    )


COMPOSITE_ROWS: tuple[CompositeRow, ...] = (
    _softmax_row("ACTIVATION_SOFTMAX", "softmax", one=False),
    _softmax_row("ACTIVATION_LOG_SOFTMAX", "log_softmax", one=False),
    _softmax_row("ACTIVATION_HARDMAX", "hardmax", one=False),
    _softmax_row("ACTIVATION_SOFTMAX1", "softmax", one=True),
    _softmax_row("ACTIVATION_LOG_SOFTMAX1", "log_softmax", one=True),
    _softmax_row("ACTIVATION_HARDMAX1", "hardmax", one=True),
    CompositeRow(
        name="MEAN_VARIANCE_NORMALIZATION1",
        struct="DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC",
        fields=(
            Field(_IN, FieldKind.INPUT_TENSOR),
            Field("scale_tensor", FieldKind.OPTIONAL_INPUT_TENSOR),
            Field("bias_tensor", FieldKind.OPTIONAL_INPUT_TENSOR),
            Field(_OUT, FieldKind.OUTPUT_TENSOR),
            Field("axes", FieldKind.AXES),
            Field("normalize_variance", FieldKind.BOOL, default=True),
            Field("epsilon", FieldKind.FLOAT, default=1e-5),
            Field("fused_activation", FieldKind.FUSED_ACTIVATION),
        ),
        family=Family.COMPOSITE,
        domain=Domain.ARITH,
        tiers=_tiers(
            "mean_variance_normalization1",
            [(FL.FL_3_1, (1, 8)), (FL.FL_2_1, (4, 4))],
            (_IN, "scale_tensor", "bias_tensor", _OUT),
        ),
        summary="act(scale * (x - mean) / sqrt(variance + epsilon) + bias) over Axes (population variance, two "
        "passes); NormalizeVariance false: act(scale * (x - mean) + bias)",
        in_place=False,
        extension_types=dict.fromkeys((_IN, "scale_tensor", "bias_tensor", _OUT), types("F64 BF16")),
        decompose=_mvn_parts,
        shape_rule=_mvn_rule,
        error_bound="(n+16)·u·(|result| + |scale|·(max|x|/σ + |z|) + 1) + rounding, σ = sqrt(variance + "
        "epsilon), z the normalized value",
        notes="Epsilon defaults to DirectML's recommended 0.00001 and NormalizeVariance to TRUE (DirectMLX's "
        "MeanVarianceNormalization defaults). ScaleTensor and BiasTensor broadcast from sizes of 1.",
    ),
)
