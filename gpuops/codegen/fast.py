"""Fast element-wise kernels: a ``KernelSpec`` as ``RawKernel`` source (see ``gpuops.layout.launch_plan``).

Pure string work, like ``gpuops.codegen``. The per-element statements are the spec's own
``operation``, pasted once per element with each input bound as ``const T &name`` and the
output as ``O &name``, exactly as CuPy's ``ElementwiseKernel`` binds them; only the indexing
around them differs (docs/reference/performance.md section 4.2, paths (a) and (b)):

- ``flat``: one 1-D grid-stride loop over packs of ``pack`` elements (``16 // largest item
  size``) loaded and stored as aligned structs (``gpuops_fast_pack``, PyTorch's
  ``aligned_vector``: 16-byte accesses for the widest operand), then a scalar grid-stride loop
  over the elements from ``nvec * pack`` to ``n``. ``nvec = 0`` runs everything scalar (the host
  passes it when a pointer is not pack-aligned). Bit ``k`` of ``_bcast`` marks input ``k`` as
  one element read for every output element (its pack is filled from element 0).
- ``rows``: a 2-D grid-stride loop, rows over y and columns over x; each operand (inputs, then
  the output) is read or written at ``row * rs + col * cs``. No division anywhere.

A spec that reads the element's logical index (``KernelSpec.reads_index``: FILL_VALUE_SEQUENCE) gets a
``const long long i`` before its statements, as CuPy's loop index: ``_p * pack + _k`` or ``_i`` (flat),
``_r * _cols + _c`` (rows). That is the logical index only where the loop runs in the output's logical order,
which ``launch_plan.plan_fast(..., logical=True)`` ensures for such a spec.

Indices are 32-bit ``unsigned int``: ``launch_plan`` only plans layouts whose element count and
every operand's largest element offset are below 2**31, so no index expression or loop step
can wrap. Pointers carry no ``__restrict__``: an output may be the very buffer of an input
(in-place execution, identical layouts; ``binding.check_bindings``), and ``restrict`` would
promise the compiler otherwise. Each element is read and then written by the same thread, in
that order, so the kernels are correct under exact aliasing without it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from ..layout.launch_plan import PACK_BYTES  # one 128-bit access per thread for the widest operand
from . import _HEADERS, C_TYPES, KernelSpec, param_name

__all__ = [
    "FAST_KINDS",
    "PACK_BYTES",
    "FastKernelSource",
    "batch_fast_source",
    "fast_kernel_function",
    "fast_source",
    "flat_source",
    "pack_width",
    "rows_source",
]

FAST_KINDS = ("flat", "rows")

# An aligned array of N values, loaded and stored as one access (PyTorch's aligned_vector).
PACK_TEMPLATE = """#ifndef GPUOPS_FAST_PACK
#define GPUOPS_FAST_PACK
template <typename T, int N>
struct alignas(sizeof(T) * N) gpuops_fast_pack {
  T v[N];
};
#endif
"""

FLAT_SIZES = ("_n", "_nvec", "_bcast")


@dataclasses.dataclass(frozen=True, slots=True)
class FastKernelSource:
    """One fast kernel: its name, full translation unit, and argument order.

    Call order: a pointer per ``inputs`` entry, the ``scalars`` (C types of
    ``spec.scalar_types``), the ``output`` pointer, then ``sizes`` (all ``unsigned int``).
    ``sizes`` is ``("_n", "_nvec", "_bcast")`` for ``flat`` and ``("_rows", "_cols")`` followed
    by ``_rs_<name>, _cs_<name>`` for each input then the output for ``rows``.
    """

    name: str
    source: str
    kind: str
    pack: int
    inputs: tuple[str, ...]
    scalars: tuple[str, ...]
    output: str
    sizes: tuple[str, ...]

    @property
    def params(self) -> tuple[str, ...]:
        """Every parameter name in call order (pointers as ``_raw_<name>``)."""
        ptrs = tuple(f"_raw_{n}" for n in self.inputs)
        return (*ptrs, *self.scalars, f"_raw_{self.output}", *self.sizes)


def pack_width(spec: KernelSpec) -> int:
    """Elements per pack: ``16 // largest item size`` of the spec's tensors (PyTorch's vec size)."""
    return PACK_BYTES // max(dt.itemsize for _, dt in spec.tensor_types)


def _roles(spec: KernelSpec) -> tuple[list[tuple[str, str]], tuple[str, str]]:
    """(name, C type) of each input, and of the one output."""
    if len(spec.output_roles) != 1:
        raise ValueError(f"{spec.name}: fast kernels need exactly one output (got {spec.output_roles})")
    types = dict(spec.tensor_types)
    ins = [(param_name(r), C_TYPES[types[r]]) for r in spec.input_roles]
    out = spec.output_roles[0]
    return ins, (param_name(out), C_TYPES[types[out]])


def _size_names(spec: KernelSpec, kind: str) -> tuple[str, ...]:
    if kind == "flat":
        return FLAT_SIZES
    if kind == "rows":
        ins, (out, _) = _roles(spec)
        names = [n for n, _ in ins] + [out]
        return ("_rows", "_cols", *(f"_{s}_{n}" for n in names for s in ("rs", "cs")))
    raise ValueError(f"unknown fast kernel kind {kind!r}; expected one of {FAST_KINDS}")


def _signature(spec: KernelSpec, kind: str) -> str:
    ins, (out, oc) = _roles(spec)
    params = [f"const {c}* _raw_{n}" for n, c in ins]
    params += [f"const {C_TYPES[t]} {s}" for s, t in zip(spec.scalar_params, spec.scalar_types, strict=True)]
    params.append(f"{oc}* _raw_{out}")
    params += [f"const unsigned int {s}" for s in _size_names(spec, kind)]
    return f'extern "C" __global__ void {spec.name}_{kind}({", ".join(params)})'


def _body(binds: Iterable[str], operation: str, indent: str) -> str:
    lines = [*binds, *operation.strip().splitlines()]
    return "".join(f"{indent}{line}\n" for line in lines)


def _flat_function(spec: KernelSpec) -> str:
    ins, (out, oc) = _roles(spec)
    vec = pack_width(spec)
    pk = {n: f"gpuops_fast_pack<{c}, {vec}>" for n, c in [*ins, (out, oc)]}
    loads = []
    for k, (n, _) in enumerate(ins):
        loads.append(
            f"    {pk[n]} _pk_{n};\n"
            f"    if (_bcast & {1 << k}u) {{\n"
            "      #pragma unroll\n"
            f"      for (int _k = 0; _k < {vec}; ++_k) _pk_{n}.v[_k] = _raw_{n}[0];\n"
            "    } else {\n"
            f"      _pk_{n} = reinterpret_cast<const {pk[n]}*>(_raw_{n})[_p];\n"
            "    }\n"
        )
    lane = [f"const {c} &{n} = _pk_{n}.v[_k];" for n, c in ins] + [f"{oc} &{out} = _pk_{out}.v[_k];"]
    scalar = [f"const {c} &{n} = _raw_{n}[(_bcast & {1 << k}u) ? 0u : _i];" for k, (n, c) in enumerate(ins)]
    scalar.append(f"{oc} &{out} = _raw_{out}[_i];")
    if spec.reads_index:  # the output is packed in logical order: its offset is the logical index
        lane.append(f"const long long i = static_cast<long long>(_p) * {vec} + _k;")
        scalar.append("const long long i = static_cast<long long>(_i);")
    return (
        f"{_signature(spec, 'flat')} {{\n"
        "  const unsigned int _start = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  const unsigned int _step = gridDim.x * blockDim.x;\n"
        "  for (unsigned int _p = _start; _p < _nvec; _p += _step) {\n"
        f"{''.join(loads)}"
        f"    {pk[out]} _pk_{out};\n"
        "    #pragma unroll\n"
        f"    for (int _k = 0; _k < {vec}; ++_k) {{\n"
        f"{_body(lane, spec.operation, '      ')}"
        "    }\n"
        f"    reinterpret_cast<{pk[out]}*>(_raw_{out})[_p] = _pk_{out};\n"
        "  }\n"
        f"  for (unsigned int _i = _nvec * {vec}u + _start; _i < _n; _i += _step) {{\n"
        f"{_body(scalar, spec.operation, '    ')}"
        "  }\n"
        "}\n"
    )


def _rows_function(spec: KernelSpec) -> str:
    ins, (out, oc) = _roles(spec)
    binds = [f"const {c} &{n} = _raw_{n}[_r * _rs_{n} + _c * _cs_{n}];" for n, c in ins]
    binds.append(f"{oc} &{out} = _raw_{out}[_r * _rs_{out} + _c * _cs_{out}];")
    if spec.reads_index:  # rows and columns in the output's logical order
        binds.append("const long long i = static_cast<long long>(_r) * _cols + _c;")
    return (
        f"{_signature(spec, 'rows')} {{\n"
        "  const unsigned int _r0 = blockIdx.y * blockDim.y + threadIdx.y, _rstep = gridDim.y * blockDim.y;\n"
        "  const unsigned int _c0 = blockIdx.x * blockDim.x + threadIdx.x, _cstep = gridDim.x * blockDim.x;\n"
        "  for (unsigned int _r = _r0; _r < _rows; _r += _rstep) {\n"
        "    for (unsigned int _c = _c0; _c < _cols; _c += _cstep) {\n"
        f"{_body(binds, spec.operation, '      ')}"
        "    }\n"
        "  }\n"
        "}\n"
    )


def fast_kernel_function(spec: KernelSpec, kind: str) -> str:
    """The ``extern "C" __global__`` function alone, named ``<spec.name>_<kind>``."""
    if kind == "flat":
        return _flat_function(spec)
    if kind == "rows":
        return _rows_function(spec)
    raise ValueError(f"unknown fast kernel kind {kind!r}; expected one of {FAST_KINDS}")


def _prologue(preamble: str) -> str:
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
    return headers + PACK_TEMPLATE + preamble + "\n"


def fast_source(spec: KernelSpec, kind: str) -> FastKernelSource:
    """The translation unit of one fast kernel: CuPy's headers, the pack type, the preamble, the kernel."""
    ins, (out, _) = _roles(spec)
    return FastKernelSource(
        name=f"{spec.name}_{kind}",
        source=_prologue(spec.preamble) + fast_kernel_function(spec, kind),
        kind=kind,
        pack=pack_width(spec) if kind == "flat" else 1,
        inputs=tuple(n for n, _ in ins),
        scalars=spec.scalar_params,
        output=out,
        sizes=_size_names(spec, kind),
    )


def flat_source(spec: KernelSpec) -> FastKernelSource:
    return fast_source(spec, "flat")


def rows_source(spec: KernelSpec) -> FastKernelSource:
    return fast_source(spec, "rows")


def batch_fast_source(specs: Sequence[KernelSpec], kinds: Sequence[str] = FAST_KINDS) -> str:
    """One translation unit holding each spec's kernels of ``kinds`` (for compile checks).

    Specs are grouped by preamble, each group in its own namespace, so every kernel sees
    exactly its own helpers (the preambles define no macros); ``extern "C"`` keeps the names.
    """
    groups: dict[str, list[KernelSpec]] = {}
    for s in specs:
        groups.setdefault(s.preamble, []).append(s)
    parts = [_prologue("")]
    for i, (preamble, group) in enumerate(groups.items()):
        fns = "\n".join(fast_kernel_function(s, k) for s in group for k in kinds)
        parts.append(f"namespace gpuops_fast_g{i} {{\n{preamble}\n{fns}}}  // namespace gpuops_fast_g{i}\n")
    return "\n".join(parts)
