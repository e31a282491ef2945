"""Lowering: an op-table row and its data types become CuPy ``ElementwiseKernel`` source.

Pure string work: no CUDA, no CuPy import. The CUDA expression comes from the row; this
module adds the typed parameters, the conversions into and out of the compute type (see
``descriptors.compute``), the preamble helpers and a name that says what the kernel is.
Descriptor scalars (ScaleBias) are kernel *arguments*, never literals in the source, so
NaN, infinities and -0.0 reach the GPU bit for bit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from descriptors import DataType
from descriptors.compute import ComputePlan, compute_plan
from descriptors.optable import HELPERS
from descriptors.schema import Domain, ElementwiseRow, Field, FieldKind, NumpyImpl, OpRow

__all__ = [
    "C_TYPES",
    "INDEX",
    "ElementwiseImpl",
    "KernelSpec",
    "elementwise_impl",
    "elementwise_kernel_spec",
    "node_body",
    "param_name",
    "plan_of",
    "scalar_params",
]

# CuPy's C names for each dtype (cupy._core._scalar.get_typename).
C_TYPES: dict[DataType, str] = {
    DataType.FLOAT32: "float",
    DataType.FLOAT16: "float16",
    DataType.BFLOAT16: "bfloat16",
    DataType.FLOAT64: "double",
    DataType.INT8: "signed char",
    DataType.INT16: "short",
    DataType.INT32: "int",
    DataType.INT64: "long long",
    DataType.UINT8: "unsigned char",
    DataType.UINT16: "unsigned short",
    DataType.UINT32: "unsigned int",
    DataType.UINT64: "unsigned long long",
    DataType.BOOL: "bool",
}
# CuPy's parameter-string names (numpy dtype names).
PARAM_TYPES: dict[DataType, str] = {d: d.numpy_dtype.name for d in DataType}

SCALE, BIAS = "gpuops_scale", "gpuops_bias"
FUSED_PREFIX = "fused_"
OPERANDS = ("x", "y", "z")  # the default names of a row's first three inputs (``ElementwiseRow.operand_names``)
# The element's logical (row-major) index, a ``long long``, for a row that reads it (``ElementwiseRow.reads_index``).
# The operation binds it from ``i``: CuPy's ElementwiseKernel loop index, row-major over the output's sizes (CuPy
# merges dimensions, never reorders them); the flat and rows kernels declare an ``i`` of their own
# (``codegen.fast``), which ``launch_plan`` plans only where their loop runs in logical order.
INDEX = "gpuops_index"

_HEADERS = (
    "cupy/complex.cuh",
    "cupy/carray.cuh",
    "cupy/atomics.cuh",
    "cupy/math_constants.h",
    "cupy/float16.cuh",
    "cupy/bfloat16.cuh",
)


def plan_of(row: OpRow, dtypes: Mapping[str, DataType], plan: ComputePlan | None = None) -> ComputePlan:
    """``plan`` when the caller has it, else the plan of ``row`` for ``dtypes`` (``descriptors.compute``).

    The one place gpuops computes a plan: ``Lowering.plan`` (once per lowering; codegen and the backends get it
    from there), and the functions here called without one (a row and data types, no descriptor: tests, tools).
    """
    return plan if plan is not None else compute_plan(row, dtypes)


@dataclasses.dataclass(frozen=True, slots=True)
class ElementwiseImpl:
    """An element-wise row's compute plan for one set of data types and the implementations its value class
    selects from the row's ``Exprs``: the CUDA expression, the NumPy callable, and whether that callable is
    one ufunc (its ``out`` may alias an input)."""

    plan: ComputePlan
    cuda: str
    numpy: NumpyImpl
    single_ufunc: bool


def elementwise_impl(
    row: ElementwiseRow, dtypes: Mapping[str, DataType], plan: ComputePlan | None = None
) -> ElementwiseImpl:
    """The :class:`ElementwiseImpl` of ``row`` for ``dtypes`` (``plan``: a ``Lowering``'s, else :func:`plan_of`)."""
    plan = plan_of(row, dtypes, plan)
    cls = plan.value_class
    return ElementwiseImpl(plan, row.exprs.cuda_for(cls), row.exprs.numpy_for(cls), row.exprs.is_single_ufunc(cls))


def param_name(role: str) -> str:
    """Kernel parameter name of a tensor role: ``a_tensor`` -> ``a``."""
    return role.removesuffix("_tensor")


def _wide_unsigned(dt: DataType) -> str:
    return "unsigned long long" if dt.itemsize == 8 else "unsigned int"


@dataclasses.dataclass(frozen=True, slots=True)
class KernelSpec:
    """The four strings of a CuPy ``ElementwiseKernel`` plus the argument order.

    ``args`` lists the array roles then the scalar names, in ``in_params`` order followed
    by ``out_params``; the backend calls the kernel with arguments in exactly that order.
    """

    name: str
    in_params: str
    out_params: str
    operation: str
    preamble: str
    input_roles: tuple[str, ...]
    scalar_params: tuple[str, ...]
    output_roles: tuple[str, ...]
    plan: ComputePlan
    scalar_types: tuple[DataType, ...] = ()
    tensor_types: tuple[tuple[str, DataType], ...] = ()  # role -> DataType, inputs then outputs
    options: tuple[str, ...] = ()  # extra NVRTC options (a fused graph kernel: --fmad=false)
    reads_index: bool = False  # the operation reads ``i``, the element's logical index (see ``INDEX``)

    @property
    def source(self) -> str:
        """A readable listing: what ``CompiledOperator.kernel_source`` returns."""
        return (
            f"// gpuops ElementwiseKernel {self.name}\n"
            f"// in_params:  {self.in_params}\n"
            f"// out_params: {self.out_params}\n"
            f"// ---- preamble ----\n{self.preamble.strip()}\n"
            f"// ---- operation ----\n{self.operation.strip()}\n"
        )

    def cuda_module(self, ndim: int = 1, c_contiguous: bool = True, index_32_bits: bool = True) -> str:
        """The full translation unit CuPy would build for this kernel (for NVRTC checks).

        Same shape as CuPy's ``_get_simple_elementwise_kernel_code``: typed ``CArray``
        parameters, a ``CIndexer``, a ``CUPY_FOR`` loop binding each element by reference.
        """
        headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
        return headers + self.preamble + "\n" + self.kernel_function(ndim, c_contiguous, index_32_bits)

    def kernel_function(self, ndim: int = 1, c_contiguous: bool = True, index_32_bits: bool = True) -> str:
        """The ``__global__`` function alone (several can share one preamble in a program)."""
        params: list[str] = []
        binds: list[str] = []
        types = dict(self.tensor_types)
        # CuPy 14.2's template: CArray<T, ndim, c_contiguous, use_32bit_indexing>.
        flags = f"{ndim}, {int(c_contiguous)}, {int(index_32_bits)}"
        for role in self.input_roles:
            n, c = param_name(role), C_TYPES[types[role]]
            params.append(f"CArray<{c}, {flags}> _raw_{n}")
            binds.append(f"const {c} &{n} = _raw_{n}[_ind.get()];")
        for s, st in zip(self.scalar_params, self.scalar_types, strict=True):
            params.append(f"const {C_TYPES[st]} {s}")
        for role in self.output_roles:
            n, c = param_name(role), C_TYPES[types[role]]
            params.append(f"CArray<{c}, {flags}> _raw_{n}")
            binds.append(f"{c} &{n} = _raw_{n}[_ind.get()];")
        params.append(f"CIndexer<{ndim}, {int(index_32_bits)}> _ind")
        body = "\n    ".join(binds)
        return (
            f'extern "C" __global__ void {self.name}({", ".join(params)}) {{\n'
            "  #pragma unroll 1\n"
            "  CUPY_FOR(i, _ind.size()) {\n"
            "    _ind.set(i);\n"
            f"    {body}\n"
            f"    {self.operation.strip()}\n"
            "  }\n"
            "}\n"
        )


def _kernel_name(
    row: ElementwiseRow, dtypes: Mapping[str, DataType], has_scale_bias: bool, fused: ElementwiseRow | None
) -> str:
    """``gpuops_<row>_<types>``. Up to four tensors (every DirectML element-wise shape before QUANTIZED_LINEAR_ADD:
    A, B, Output; Input, Scale, ZeroPoint, Output; Condition, A, B, Output) each distinct type once, in field
    order, tells the row's kernels apart; with more (QUANTIZED_LINEAR_ADD: A, B and the output take their types
    independently) every tensor's type is listed, in field order."""
    names = [dtypes[f.name].numpy_dtype.name for f in row.tensor_fields if f.name in dtypes]
    suffix = "_".join(names if len(row.tensor_fields) > 4 else dict.fromkeys(names))
    name = f"gpuops_{row.name.lower()}_{suffix}" + ("_scalebias" if has_scale_bias else "")
    if fused is not None:
        name += "_fused_" + fused.name.lower()
    return name


def _param_type(f: Field, output: DataType) -> DataType:
    if f.kind is FieldKind.FLOAT:
        return DataType.FLOAT32
    if f.kind is FieldKind.ENUM:
        return DataType.INT32
    # SCALAR: DML_SCALAR_UNION read as the output's data type (CLIP1: MinMaxDataType). A 16-bit
    # float travels as float32 (exact; the device rounds it to its type first), since CuPy's
    # scalar arguments have no bfloat16.
    return DataType.FLOAT32 if output in (DataType.FLOAT16, DataType.BFLOAT16) else output


def scalar_params(
    row: ElementwiseRow, output: DataType, has_scale_bias: bool, fused: ElementwiseRow | None
) -> tuple[tuple[str, DataType], ...]:
    """Kernel scalar arguments in order: ScaleBias, the row's parameters, the fused activation's."""
    out: list[tuple[str, DataType]] = []
    if has_scale_bias:
        out += [(SCALE, DataType.FLOAT32), (BIAS, DataType.FLOAT32)]
    out += [(f.kernel_name, _param_type(f, output)) for f in row.param_fields]
    if fused is not None:
        out += [(FUSED_PREFIX + f.kernel_name, _param_type(f, output)) for f in fused.param_fields]
    return tuple(out)


def node_body(
    row: ElementwiseRow,
    dtypes: Mapping[str, DataType],
    has_scale_bias: bool,
    fused: ElementwiseRow | None,
    operands: Mapping[str, str],
    out: str,
    impl: ElementwiseImpl | None = None,
) -> tuple[list[str], list[str]]:
    """The statements computing one element of ``row`` (and its fused activation), and the helpers they call.

    ``operands``: input role -> the C expression holding the stored input value (a kernel parameter, or a
    fused graph's local variable); ``out``: the lvalue receiving the result in the output's type. The
    statements declare ``T``/``U`` and one operand per input field, by the row's names (``x``, ``y``, ``z``, ...
    by default; ``ElementwiseRow.operand_names``), an absent optional input as ``T(0)``, and read the scalar
    arguments by the names :func:`scalar_params` gives, so a fused graph wraps each node's statements in a block
    of their own. ``impl``: the node's ``Lowering.impl`` (else :func:`elementwise_impl`).
    """
    impl = impl if impl is not None else elementwise_impl(row, dtypes)
    plan = impl.plan
    in_roles = tuple(f.name for f in row.input_fields if f.name in dtypes)
    out_type = dtypes[row.output_fields[0].name]
    t = C_TYPES[plan.compute]
    lines = [f"typedef {t} T;", f"typedef {_wide_unsigned(plan.compute)} U;"]
    for role in in_roles:
        ct = C_TYPES[plan.inputs[role]]
        src = operands[role]
        value = f"gpuops_bitcast<{ct}>({src})" if row.domain is Domain.BITS else f"static_cast<{ct}>({src})"
        if role == row.primary_role and has_scale_bias:
            value = f"gpuops_scale_bias({value}, {SCALE}, {BIAS})"
        lines.append(f"const {ct} {row.operand_of(role)} = {value};")
    for name, field in zip(row.operand_names, row.input_fields, strict=True):  # an absent optional input reads 0
        if field.name not in dtypes:
            lines.append(f"const T {name} = T(0);")
    expr = impl.cuda
    oc = C_TYPES[out_type]
    if row.converts:  # the expression names the output type (CAST)
        lines.append(f"typedef {oc} O;")
    result_type = C_TYPES[plan.out_compute]
    helpers = list(row.helpers)
    if fused is not None:
        lines.append(f"{result_type} v = static_cast<{result_type}>({expr});")
        act = fused.exprs.cuda_for("float")
        renames = "".join(f"const float {f.kernel_name} = {FUSED_PREFIX}{f.kernel_name}; " for f in fused.param_fields)
        lines.append(f"{{ {renames}const {result_type} x = v; v = static_cast<{result_type}>({act}); }}")
        expr = "v"
        helpers += fused.helpers
    if row.domain is Domain.BITS:
        lines.append(f"{out} = gpuops_bitcast<{oc}>(static_cast<{result_type}>({expr}));")
    else:
        lines.append(f"{out} = static_cast<{oc}>({expr});")
    if row.domain is Domain.BITS:
        helpers.append("bitcast")
    if has_scale_bias:
        helpers.append("float_overloads")
    return lines, helpers


def elementwise_kernel_spec(
    row: ElementwiseRow,
    dtypes: Mapping[str, DataType],
    has_scale_bias: bool = False,
    fused: ElementwiseRow | None = None,
    impl: ElementwiseImpl | None = None,
) -> KernelSpec:
    """Generate the kernel of ``row`` for tensor data types ``dtypes`` (role -> DataType).

    ``fused`` is the row of a fused activation (DirectML ``FusedActivation``): it is applied
    to the operator's result in the compute type, inside the same kernel, before the one
    final rounding to the output type. ``impl``: the ``Lowering``'s (else :func:`elementwise_impl`).
    """
    impl = impl if impl is not None else elementwise_impl(row, dtypes)
    in_roles = tuple(f.name for f in row.input_fields if f.name in dtypes)
    out_roles = tuple(f.name for f in row.output_fields)
    out_type = dtypes[out_roles[0]]
    scalars = scalar_params(row, out_type, has_scale_bias, fused)
    in_params = [f"{PARAM_TYPES[dtypes[r]]} {param_name(r)}" for r in in_roles]
    in_params += [f"{PARAM_TYPES[t]} {n}" for n, t in scalars]
    out_params = [f"{PARAM_TYPES[dtypes[r]]} {param_name(r)}" for r in out_roles]
    lines, helpers = node_body(
        row, dtypes, has_scale_bias, fused, {r: param_name(r) for r in in_roles}, param_name(out_roles[0]), impl
    )
    if row.reads_index:
        lines.insert(0, f"const long long {INDEX} = static_cast<long long>(i);")
    preamble = HELPERS.source(dict.fromkeys(helpers))
    return KernelSpec(
        name=_kernel_name(row, dtypes, has_scale_bias, fused),
        in_params=", ".join(in_params),
        out_params=", ".join(out_params),
        operation="\n".join(lines),
        preamble=preamble,
        input_roles=in_roles,
        scalar_params=tuple(n for n, _ in scalars),
        output_roles=out_roles,
        plan=impl.plan,
        scalar_types=tuple(t for _, t in scalars),
        tensor_types=tuple((r, dtypes[r]) for r in in_roles + out_roles),
        reads_index=row.reads_index,
    )
