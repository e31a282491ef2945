"""Lowering of the reduction rows to CuPy ``ReductionKernel`` source (pure strings).

A row's :class:`descriptors.schema.Reduction` holds the parts with placeholders: ``x`` (the
input in the compute type ``T``), ``T``, ``A`` (the accumulator), ``n`` (the number of
reduced elements), ``a``/``b`` (accumulators) and ``_J`` (CuPy's index over the reduced
axes). This module puts in the concrete types and names and returns the strings
``cupy.ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr,
identity, name, reduce_type, preamble=...)`` takes.

Every kernel takes the scalar ``gpuops_n``. Besides feeding AVERAGE, it makes CuPy's
``ReductionKernel`` keep its plain template: CuPy tries its CUB block reduction only for
one input and one output argument, and reorders the reduced axes (so that ``_J`` would no
longer be row-major) only for a single input argument.

Few outputs with a long reduction run in two passes (see ``gpuops.layout.reduce_plan``): pass 1
reduces parts of the reduction into partial accumulators, written field by field into
arrays (an accumulator may be a struct, such as LOG_SUM_EXP's running maximum and sum);
pass 2 rebuilds the accumulators and reduces them with the same ``reduce`` and the final
post-map.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from descriptors import DataType
from descriptors.compute import ComputePlan
from descriptors.optable import HELPERS
from descriptors.schema import Reduction, ReductionRow

from . import _HEADERS, C_TYPES, PARAM_TYPES, param_name, plan_of

__all__ = ["Epilogue", "PartialField", "Prologue", "ReductionSpec", "reduction_kernel_spec", "two_pass_specs"]

N_PARAM = "gpuops_n"
SPAN_PARAM = "gpuops_span"
BLOCK_SIZE = 512  # CuPy's default reduction block (cupy/_core/_reduction.pyx)

# Accumulator fields of the struct accumulators, for two-pass partials: (field, C type
# placeholder) and how pass 2 rebuilds the accumulator from the fields read back.
_STRUCT_FIELDS: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {
    "gpuops_lse<T>": ((("m", "T"), ("s", "T")), "gpuops_lse<T>(m, s)"),
    "gpuops_arg<T>": ((("value", "T"), ("index", "long long")), f"gpuops_arg<T>(value, index + _J * {SPAN_PARAM})"),
}
# CuPy's tree step, verbatim (its three-space joins included).
_TREE_STEP = (
    "#define _REDUCE(_offset) if (_tid < _offset) {   _type_reduce _a = _sdata[_tid], "
    "_b = _sdata[(_tid + _offset)];   _sdata[_tid] = REDUCE(_a, _b); }"
)
_C_TO_TYPE = {C_TYPES[d]: d for d in DataType if d not in (DataType.FLOAT16, DataType.BFLOAT16, DataType.BOOL)}


@dataclasses.dataclass(frozen=True, slots=True)
class PartialField:
    """One array of two-pass partial accumulators: its name and data type."""

    name: str
    data_type: DataType


@dataclasses.dataclass(frozen=True, slots=True)
class ReductionSpec:
    """The strings of one CuPy ``ReductionKernel`` and the argument order of a call.

    A call passes the input arrays, then the scalars ``scalar_params`` (``gpuops_n`` first),
    then the output arrays, with ``axis=`` the reduced axes and ``keepdims=True``.
    """

    name: str
    in_params: str
    out_params: str
    map_expr: str
    reduce_expr: str
    post_map_expr: str
    identity: str
    reduce_type: str
    preamble: str
    inputs: tuple[tuple[str, DataType], ...]
    outputs: tuple[tuple[str, DataType], ...]
    scalar_params: tuple[tuple[str, DataType], ...]
    plan: ComputePlan
    helpers: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """A readable listing: what ``CompiledOperator.kernel_source`` returns."""
        return (
            f"// gpuops ReductionKernel {self.name}\n"
            f"// in_params:   {self.in_params}\n"
            f"// out_params:  {self.out_params}\n"
            f"// reduce_type: {self.reduce_type}\n"
            f"// map_expr:    {self.map_expr}\n"
            f"// reduce_expr: {self.reduce_expr}\n"
            f"// identity:    {self.identity}\n"
            f"// post_map:    {self.post_map_expr}\n"
            f"// ---- preamble ----\n{self.preamble.strip()}\n"
        )

    def kernel_function(
        self, in_ndim: int = 2, out_ndim: int = 1, index_32_bits: bool = True, with_preamble: bool = True
    ) -> str:
        """The module CuPy 14's plain ``ReductionKernel`` template makes, without headers.

        Same text as ``cupy._core._reduction._create_reduction_function_code`` for C-contiguous
        arrays of these ranks (tests/slow/test_nvrtc_reduce.py compares the two when CuPy is present).
        """
        idx = int(index_32_bits)
        params: list[str] = []
        binds_in: list[str] = []
        binds_out: list[str] = []
        for n, dt in self.inputs:
            params.append(f"const CArray<{C_TYPES[dt]}, {in_ndim}, 1, {idx}> _raw_{n}")
            binds_in.append(f"const {C_TYPES[dt]} {n} = _raw_{n}[_in_ind.get()];")
        for n, dt in self.scalar_params:
            params.append(f"const {C_TYPES[dt]} {n}")
        for n, dt in self.outputs:
            params.append(f"CArray<{C_TYPES[dt]}, {out_ndim}, 1, {idx}> _raw_{n}")
            binds_out.append(f"{C_TYPES[dt]} &{n} = _raw_{n}[_out_ind.get()];")
        params += [f"CIndexer<{in_ndim}, {idx}> _in_ind", f"CIndexer<{out_ndim}, {idx}> _out_ind"]
        params.append("const int _block_stride")
        index_t = "int" if index_32_bits else "long long"
        b = BLOCK_SIZE
        return f"""
typedef {index_t} IndexT;

{self.preamble if with_preamble else ""}
#define REDUCE(a, b) ({self.reduce_expr})
#define POST_MAP(a) ({self.post_map_expr})
{_TREE_STEP}

typedef {self.reduce_type} _type_reduce;
extern "C" __global__ void {self.name}({", ".join(params)}) {{
  __shared__ char _sdata_raw[{b} * sizeof(_type_reduce)];
  _type_reduce *_sdata = reinterpret_cast<_type_reduce*>(_sdata_raw);
  unsigned int _tid = threadIdx.x;

  IndexT _J_offset = _tid >> __popc(_block_stride - 1); // _tid / _block_stride
  ptrdiff_t _j_offset = (ptrdiff_t)_J_offset * _out_ind.size();
  IndexT _J_stride = {b} >> __popc(_block_stride - 1);
  ptrdiff_t _j_stride = (ptrdiff_t)_J_stride * _out_ind.size();

  for (ptrdiff_t _i_base = (ptrdiff_t)blockIdx.x * _block_stride;
       _i_base < _out_ind.size();
       _i_base += (ptrdiff_t)gridDim.x * _block_stride) {{
    _type_reduce _s = _type_reduce({self.identity});
    ptrdiff_t _i =
        _i_base + (_tid & (_block_stride - 1));  // _tid % _block_stride
    IndexT _J = _J_offset;
    for (ptrdiff_t _j = _i + _j_offset; _j < _in_ind.size();
         _j += _j_stride, _J += _J_stride) {{
      _in_ind.set(_j);
      {" ".join(binds_in)}
      _type_reduce _a = static_cast<_type_reduce>({self.map_expr});
      _s = REDUCE(_s, _a);
    }}
    _sdata[_tid] = _s;
    __syncthreads();
    for (unsigned int _block = {b} / 2;
         _block >= _block_stride; _block >>= 1) {{
      if (_tid < _block) {{
        _REDUCE(_block);
      }}
      __syncthreads();
    }}
    if (_tid < _block_stride) {{
      _s = _sdata[_tid];
    }}
    if (_tid < _block_stride && _i < _out_ind.size()) {{
      _out_ind.set(static_cast<ptrdiff_t>(_i));
      {" ".join(binds_out)}
      POST_MAP(_s);
    }}
  }}
}}"""

    def cuda_module(self, in_ndim: int = 2, out_ndim: int = 1, index_32_bits: bool = True) -> str:
        """The full translation unit (CuPy's headers first), for NVRTC checks."""
        headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
        return headers + self.kernel_function(in_ndim, out_ndim, index_32_bits)


def _substitute(text: str, names: Mapping[str, str]) -> str:
    """Replace whole-word placeholders (``x``, ``T``, ``A``, ``n``) by their values."""
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in names) + r")\b")
    return pattern.sub(lambda m: names[m.group(1)], text)


def _accumulator(red: Reduction, cls: str, t: str) -> str:
    return _substitute(red.cuda("accumulator", cls), {"T": t})


def _field_type(ctype: str) -> DataType:
    return _C_TO_TYPE[ctype]


def _kernel_name(row: ReductionRow, variant: str, dtypes: Mapping[str, DataType]) -> str:
    names = "_".join(dict.fromkeys(dtypes[f.name].numpy_dtype.name for f in row.tensor_fields))
    return f"gpuops_{row.name.lower()}_{variant.lower()}_{names}"


def _types(
    row: ReductionRow, dtypes: Mapping[str, DataType], variant: str, plan: ComputePlan | None
) -> tuple[Reduction, ComputePlan, str, str, str]:
    red = row.reductions[variant]
    plan = plan_of(row, dtypes, plan)
    t = C_TYPES[plan.compute]
    return red, plan, plan.value_class, t, _accumulator(red, plan.value_class, t)


@dataclasses.dataclass(frozen=True, slots=True)
class Prologue:
    """Element-wise work fused in front of a reduction (``codegen.graph``): the reduction reads ``call`` (a
    call of the device function ``function``, which calls ``helpers``) where it would read its input, and
    takes ``inputs`` and ``scalars`` in place of the input parameter."""

    name: str
    inputs: tuple[tuple[str, DataType], ...]
    scalars: tuple[tuple[str, DataType], ...]
    call: str
    function: str
    helpers: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Epilogue:
    """Element-wise work fused after a reduction (``codegen.graph``): the post-map expression passes the
    reduction's result, rounded to its output type, to the device function ``fname`` (``function``, which calls
    ``helpers``) with ``scalars``, and stores what it returns (of type ``output_type``) instead."""

    name: str
    scalars: tuple[tuple[str, DataType], ...]
    fname: str
    function: str
    helpers: tuple[str, ...]
    output_type: DataType


def reduction_kernel_spec(
    row: ReductionRow,
    dtypes: Mapping[str, DataType],
    variant: str,
    prologue: Prologue | None = None,
    epilogue: Epilogue | None = None,
    plan: ComputePlan | None = None,
) -> ReductionSpec:
    """The one-pass kernel of ``row`` with selector value ``variant`` for ``dtypes`` (``prologue``: element-wise
    nodes of a graph computing the input in the kernel, see :class:`Prologue`; ``epilogue``: nodes computing
    what is stored from the result, see :class:`Epilogue`; ``plan``: the ``Lowering``'s, else ``codegen.plan_of``)."""
    red, plan, cls, t, acc = _types(row, dtypes, variant, plan)
    (in_role,) = (f.name for f in row.input_fields)
    (out_role,) = (f.name for f in row.output_fields)
    x, y = param_name(in_role), param_name(out_role)
    names = {"T": t, "A": acc, "n": N_PARAM}
    source = x if prologue is None else prologue.call
    map_expr = _substitute(red.cuda("map", cls), {**names, "x": f"static_cast<{t}>({source})"})
    post = _substitute(red.cuda("post", cls), names)
    inputs = ((x, dtypes[in_role]),) if prologue is None else prologue.inputs
    parts = [p for p in (prologue, epilogue) if p is not None]
    scalars = (*(s for p in parts for s in p.scalars), (N_PARAM, DataType.INT64))
    in_params = ", ".join(f"{PARAM_TYPES[dt]} {n}" for n, dt in (*inputs, *scalars))
    # Each helper once: the reduction's and the fused nodes' may share some.
    preamble = HELPERS.source(dict.fromkeys((*red.helpers, *(h for p in parts for h in p.helpers))))
    preamble += "".join("\n" + p.function for p in parts)
    name = _kernel_name(row, variant, dtypes) + "".join("_" + p.name for p in parts)
    result = f"static_cast<{C_TYPES[dtypes[out_role]]}>({post})"
    out_type = dtypes[out_role]
    if epilogue is not None:
        result = f"{epilogue.fname}({', '.join((result, *(n for n, _ in epilogue.scalars)))})"
        out_type = epilogue.output_type
    return ReductionSpec(
        name=name,
        in_params=in_params,
        out_params=f"{PARAM_TYPES[out_type]} {y}",
        map_expr=map_expr,
        reduce_expr=_substitute(red.cuda("reduce", cls), names),
        post_map_expr=f"{y} = {result}",
        identity=_substitute(red.cuda("identity", cls), names),
        reduce_type=acc,
        preamble=preamble,
        helpers=red.helpers,
        inputs=inputs,
        outputs=((y, out_type),),
        scalar_params=scalars,
        plan=plan,
    )


def partial_fields(
    row: ReductionRow, dtypes: Mapping[str, DataType], variant: str, plan: ComputePlan | None = None
) -> tuple[PartialField, ...]:
    """The arrays pass 1 writes: one per accumulator field, in the field's own type."""
    red, plan, cls, t, acc = _types(row, dtypes, variant, plan)
    template = red.cuda("accumulator", cls)
    if template in _STRUCT_FIELDS:
        fields = _STRUCT_FIELDS[template][0]
        return tuple(PartialField(f"part_{name}", _field_type(_substitute(c, {"T": t}))) for name, c in fields)
    return (PartialField("part", _field_type(acc)),)


def two_pass_specs(
    row: ReductionRow, dtypes: Mapping[str, DataType], variant: str, plan: ComputePlan | None = None
) -> tuple[ReductionSpec, ReductionSpec]:
    """Pass 1 (parts of the reduction -> partial accumulators) and pass 2 (partials -> result).

    Pass 2 reads the partials along one reduced axis; for ARGMAX/ARGMIN its ``_J`` is the
    part number, and ``gpuops_span`` (reduced elements per part) turns a part's index into
    an index over the whole reduction. ``plan``: the ``Lowering``'s (else ``codegen.plan_of``).
    """
    plan = plan_of(row, dtypes, plan)
    one = reduction_kernel_spec(row, dtypes, variant, plan=plan)
    red, plan, cls, t, acc = _types(row, dtypes, variant, plan)
    fields = partial_fields(row, dtypes, variant, plan)
    template = red.cuda("accumulator", cls)
    if template in _STRUCT_FIELDS:
        names = [name for name, _ in _STRUCT_FIELDS[template][0]]
        post1 = ", ".join(f"{f.name} = a.{n}" for f, n in zip(fields, names, strict=True))
        rebuild = _substitute(_STRUCT_FIELDS[template][1], {"T": t})
        rebuild = _substitute(rebuild, {n: f.name for f, n in zip(fields, names, strict=True)})
    else:
        post1 = f"{fields[0].name} = a"
        rebuild = f"static_cast<{acc}>({fields[0].name})"
    out_params = ", ".join(f"{PARAM_TYPES[f.data_type]} {f.name}" for f in fields)
    pass1 = dataclasses.replace(
        one,
        name=one.name + "_pass1",
        out_params=out_params,
        post_map_expr=post1,
        outputs=tuple((f.name, f.data_type) for f in fields),
    )
    in_params = ", ".join(f"{PARAM_TYPES[f.data_type]} {f.name}" for f in fields)
    pass2 = dataclasses.replace(
        one,
        name=one.name + "_pass2",
        in_params=f"{in_params}, int64 {N_PARAM}, int64 {SPAN_PARAM}",
        map_expr=rebuild,
        inputs=tuple((f.name, f.data_type) for f in fields),
        scalar_params=((N_PARAM, DataType.INT64), (SPAN_PARAM, DataType.INT64)),
    )
    return pass1, pass2
