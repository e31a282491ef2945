"""A scan row (``schema.ScanRow``: CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT) as one CuPy ``ElementwiseKernel``.

Pure string work, as the rest of ``gpuops.codegen``. The kernel is launched with ``size=`` the number of lines
(the product of every size but the axis's), all its arrays ``raw``: thread ``i`` walks line ``i`` sequentially,
``k = 0 .. n-1`` in the direction (``n``: the axis's size), combining in the accumulator type ``A`` and writing
each output (exclusive: the running value before combining). The backend binds views whose dimensions are
ordered (other dimensions..., axis), so element k of line i is the view's row-major logical index ``i * n + k``,
which CuPy's ``CArray::operator[](ptrdiff_t)`` turns into an offset through the view's own sizes and strides
(``cupy/carray.cuh``: the direct index where the view is C-contiguous, else divided out dimension by dimension;
the CUDA emulator compiles that same header). Each thread reads an element before writing it, and lines are
disjoint, so an output bound over its input (in-place execution, identical layouts) is safe.

Direction and exclusiveness are kernel arguments (``int``), the line length a ``long long`` argument: one kernel
per (row, data types). Accumulator: float32 for FLOAT32, FLOAT16 and BFLOAT16 (each output rounded once),
float64 for FLOAT64, for integers the unsigned type of at least 32 bits (``unsigned int``, ``unsigned long
long``), so a sum or product wraps and the store keeps the low bits of the data type's width.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from descriptors import DataType
from descriptors.compute import value_class
from descriptors.schema import ScanRow

from . import _HEADERS, C_TYPES, PARAM_TYPES, param_name

__all__ = ["DIRECTION", "EXCLUSIVE", "LENGTH", "ScanSpec", "accumulator", "line_order", "scan_kernel_spec"]

LENGTH, DIRECTION, EXCLUSIVE = "gpuops_len", "gpuops_reverse", "gpuops_exclusive"


def accumulator(dt: DataType) -> DataType:
    """The running value's type for data type ``dt`` (see the module docstring)."""
    if dt is DataType.FLOAT64:
        return DataType.FLOAT64
    if dt.is_float:
        return DataType.FLOAT32
    return DataType.UINT64 if dt.itemsize == 8 else DataType.UINT32


def line_order(rank: int, axis: int) -> tuple[int, ...]:
    """The view's dimension order: every dimension but ``axis``, in order, then ``axis``."""
    return (*(d for d in range(rank) if d != axis), axis)


@dataclasses.dataclass(frozen=True, slots=True)
class ScanSpec:
    """The strings of a scan's ``ElementwiseKernel`` (all arrays raw, launched with ``size=`` lines).

    Arguments in order: the input view, ``gpuops_len`` (int64), ``gpuops_reverse`` and ``gpuops_exclusive``
    (int32), the output view."""

    name: str
    in_params: str
    out_params: str
    operation: str
    input_type: DataType
    output_type: DataType
    accumulator: DataType
    preamble: str = ""

    @property
    def source(self) -> str:
        """A readable listing: what ``CompiledOperator.kernel_source`` returns."""
        return (
            f"// gpuops ElementwiseKernel {self.name} (a scan: launched with size = lines, raw arrays)\n"
            f"// in_params:  {self.in_params}\n"
            f"// out_params: {self.out_params}\n"
            f"// ---- operation ----\n{self.operation.strip()}\n"
        )

    def cuda_module(self, ndim: int = 2, c_contiguous: bool = False, index_32_bits: bool = True) -> str:
        """The translation unit CuPy builds for this kernel (raw ``CArray`` parameters, a 1-D ``CIndexer`` over
        the lines, CuPy's ``CUPY_FOR`` loop), for NVRTC checks."""
        headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
        flags = f"{ndim}, {int(c_contiguous)}, {int(index_32_bits)}"
        params = ", ".join(
            (
                f"CArray<{C_TYPES[self.input_type]}, {flags}> input",
                f"const long long {LENGTH}",
                f"const int {DIRECTION}",
                f"const int {EXCLUSIVE}",
                f"CArray<{C_TYPES[self.output_type]}, {flags}> output",
                f"CIndexer<1, {int(index_32_bits)}> _ind",
            )
        )
        return (
            headers + self.preamble + f'\nextern "C" __global__ void {self.name}({params}) {{\n'
            "  #pragma unroll 1\n"
            "  CUPY_FOR(i, _ind.size()) {\n"
            "    _ind.set(i);\n"
            f"    {self.operation.strip()}\n"
            "  }\n"
            "}\n"
        )


def scan_kernel_spec(row: ScanRow, dtypes: Mapping[str, DataType]) -> ScanSpec:
    """The kernel of ``row`` for tensor data types ``dtypes`` (role -> DataType)."""
    in_role, out_role = row.input_fields[0].name, row.output_fields[0].name
    it, ot = dtypes[in_role], dtypes[out_role]
    acc = accumulator(it)
    x, y = param_name(in_role), param_name(out_role)
    combine = row.combine_for(value_class(it))
    a, o = C_TYPES[acc], C_TYPES[ot]
    operation = "\n".join(
        (
            f"typedef {a} A;",
            f"const long long n = {LENGTH};",
            "const long long base = static_cast<long long>(i) * n;",
            f"A a = static_cast<A>({row.identity});",
            "for (long long k = 0; k < n; ++k) {",
            f"  const long long p = base + ({DIRECTION} ? n - 1 - k : k);",
            f"  const A b = static_cast<A>({x}[p]);",
            f"  if ({EXCLUSIVE}) {{ {y}[p] = static_cast<{o}>(a); a = {combine}; }}",
            f"  else {{ a = {combine}; {y}[p] = static_cast<{o}>(a); }}",
            "}",
        )
    )
    return ScanSpec(
        name=f"gpuops_{row.name.lower()}_{it.numpy_dtype.name}",
        in_params=f"raw {PARAM_TYPES[it]} {x}, int64 {LENGTH}, int32 {DIRECTION}, int32 {EXCLUSIVE}",
        out_params=f"raw {PARAM_TYPES[ot]} {y}",
        operation=operation,
        input_type=it,
        output_type=ot,
        accumulator=acc,
    )
