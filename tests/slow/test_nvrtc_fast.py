"""The fast element-wise kernels (``gpuops.codegen.fast``): their source, and NVRTC builds.

The matrix is ``test_nvrtc``'s: every element-wise row x every data-type mapping at FL_6_4
(ScaleBias variants included), plus every fused activation of every host (``fused_specs``),
each as a ``flat`` and a ``rows`` kernel. Three NVRTC checks, sized for the suite's time budget:

- every kernel through NVRTC's front end (``-fdevice-syntax-only``: parsing, overloads, template
  instantiation, every C++ error) in one program, each preamble in its own namespace (about 1 s;
  a full ``--device-debug`` build of the same program takes about 25 s);
- a representative set (each row's first mapping and first ScaleBias kernel, one kernel per
  distinct tuple of operand C types, each fused host and each activation) built to PTX with
  ``--device-debug``: each kernel's ``.entry`` is there;
- a few flat kernels built as CuPy builds them (optimized): 128-bit vector loads and stores
  (``ld.global.v4.u32``, ``.v4.f32``, ``.v2.f64``), and no integer division in either kind.

Skips and ``GPUOPS_REQUIRE_NVRTC=1`` work as in ``test_nvrtc``.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import pytest
from test_nvrtc import _FUSED_HOSTS, _ROW, ROW_NAMES, _check_nvrtc, _literals, _require_nvrtc, fused_specs, row_specs

import gpuops.codegen.fast as codegen_fast
import gpuops.layout.launch_plan as launch_plan
import gpuops.nvrtc as gnvrtc
from descriptors import DataType
from gpuops.codegen import BIAS, C_TYPES, SCALE, KernelSpec, elementwise_kernel_spec, param_name
from gpuops.codegen.fast import (
    FAST_KINDS,
    FastKernelSource,
    batch_fast_source,
    fast_kernel_function,
    fast_source,
    pack_width,
)

pytestmark = pytest.mark.nvrtc


@functools.cache
def all_specs() -> tuple[KernelSpec, ...]:
    """Every element-wise kernel of the matrix, fused activations included, each once."""
    specs = {s.name: s for name in ROW_NAMES for s in row_specs(name)}
    for host in _FUSED_HOSTS:
        specs.update((s.name, s) for s in fused_specs(host))
    return tuple(specs.values())


@functools.cache
def representative_specs() -> tuple[KernelSpec, ...]:
    chosen: dict[str, KernelSpec] = {}
    for name in ROW_NAMES:
        specs = row_specs(name)
        chosen[specs[0].name] = specs[0]
        sb = [s for s in specs if s.name.endswith("_scalebias")]
        chosen.update((s.name, s) for s in sb[:1])
    by_types: dict[tuple[str, ...], KernelSpec] = {}
    for s in all_specs():
        by_types.setdefault(tuple(C_TYPES[t] for _, t in s.tensor_types), s)
    chosen.update((s.name, s) for s in by_types.values())
    by_activation: dict[str, KernelSpec] = {}
    for host in _FUSED_HOSTS:
        specs = fused_specs(host)
        chosen[specs[0].name] = specs[0]
        for s in specs:
            by_activation.setdefault(s.name.split("_fused_")[1], s)
    chosen.update((s.name, s) for s in by_activation.values())
    return tuple(chosen.values())


# ---------------------------------------------------------------------------------------
# Source (pure strings)

_SIGNATURE = re.compile(r'extern "C" __global__ void (\w+)\(([^)]*)\)')


def _params(source: str) -> list[tuple[str, str]]:
    """(type, name) of each parameter of the one kernel in ``source``."""
    (match,) = _SIGNATURE.findall(source)
    return [tuple(p.rsplit(" ", 1)) for p in match[1].split(", ")]  # type: ignore[misc]


def test_matrix_is_large_and_varied() -> None:
    specs = all_specs()
    assert len(specs) > 1000
    assert {pack_width(s) for s in specs} == {2, 4, 8, 16}
    assert any("_fused_" in s.name for s in specs) and any(s.name.endswith("_scalebias") for s in specs)
    # 0: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE; 8: QUANTIZED_LINEAR_ADD (the matrix binds every optional input).
    assert {len(s.input_roles) for s in specs} == {0, 1, 2, 3, 8}
    assert len(representative_specs()) > len(ROW_NAMES)


def test_planner_and_kernel_agree_on_pack() -> None:
    """``launch_plan`` sizes packs from the tensors' item sizes; the kernel from the spec's types."""
    assert launch_plan.PACK_BYTES == codegen_fast.PACK_BYTES
    for spec in all_specs():
        items = [t.itemsize for _, t in spec.tensor_types]
        layout = ((6, 7), (7, 1))
        p = launch_plan.plan_fast([layout] * (len(items) - 1), layout, items)
        assert p is not None and p.kind == "flat" and p.pack == fast_source(spec, "flat").pack, spec.name


@pytest.mark.parametrize("kind", FAST_KINDS)
def test_parameter_order(kind: str) -> None:
    """Pointers of the inputs, the scalars with their C types, the output pointer, the sizes."""
    names = set()
    for spec in all_specs():
        src: FastKernelSource = fast_source(spec, kind)
        assert src.name == f"{spec.name}_{kind}" and src.name not in names
        names.add(src.name)
        params = _params(src.source)
        assert tuple(n for _, n in params) == src.params, src.name
        types = dict(spec.tensor_types)
        want = [f"const {C_TYPES[types[r]]}*" for r in spec.input_roles]
        want += [f"const {C_TYPES[t]}" for t in spec.scalar_types]
        want += [f"{C_TYPES[types[spec.output_roles[0]]]}*"] + ["const unsigned int"] * len(src.sizes)
        assert [t for t, _ in params] == want, src.name
        assert src.inputs == tuple(param_name(r) for r in spec.input_roles)
        assert src.scalars == spec.scalar_params and src.output == param_name(spec.output_roles[0])
        assert src.pack == (16 // max(t.itemsize for t in types.values()) if kind == "flat" else 1)
        assert "__restrict__" not in src.source  # an output may alias an input (in place)


@pytest.mark.parametrize("kind", FAST_KINDS)
def test_operation_is_pasted_per_element(kind: str) -> None:
    """Each element runs the spec's own statements, bound by reference as CuPy binds them."""
    for spec in all_specs():
        fn = fast_kernel_function(spec, kind)
        copies = 2 if kind == "flat" else 1  # the pack lanes and the scalar tail
        assert fn.count(spec.operation.strip().splitlines()[-1]) == copies, spec.name
        types = dict(spec.tensor_types)
        for role in spec.input_roles:
            assert fn.count(f"const {C_TYPES[types[role]]} &{param_name(role)} = ") == copies, (spec.name, role)
        out = spec.output_roles[0]
        assert fn.count(f"{C_TYPES[types[out]]} &{param_name(out)} = ") == copies, spec.name


# Index arithmetic of the kernels themselves: pack widths, broadcast bits, 0 and 1.
_STRUCTURAL = {"0", "0u", "1u", "2u", "4u", "8u", "16u", "2", "4", "8", "16"}


@pytest.mark.parametrize("name", ROW_NAMES)
def test_no_scalar_literals(name: str) -> None:
    """Descriptor scalars are kernel arguments: beyond the operation's op-table literals (checked by
    ``test_nvrtc.test_no_scalar_literals``), the kernels hold only their index arithmetic's."""
    row = _ROW[name]
    specs = list(row_specs(name)) + (fused_specs(row) if row.fused_field is not None else [])
    for spec in specs:
        for kind in FAST_KINDS:
            fn = fast_kernel_function(spec, kind)
            bcast_bits = {f"{1 << k}u" for k in range(len(spec.input_roles))}  # input k's bit of _bcast
            extra = _literals(fn) - _literals(spec.operation) - _STRUCTURAL - bcast_bits
            assert not extra, f"{spec.name}_{kind}: literals {sorted(extra)}"
            for pname, dt in zip(spec.scalar_params, spec.scalar_types, strict=True):
                assert f"const {C_TYPES[dt]} {pname}," in fn, (spec.name, pname)
            has_sb = "_scalebias" in spec.name
            assert (f"const float {SCALE}, const float {BIAS}," in fn) == has_sb, spec.name


# ---------------------------------------------------------------------------------------
# NVRTC


def _kernel_at(source: str, line: int) -> str:
    """The kernel whose text holds ``line`` (1-based) of ``source``, for error messages."""
    before = source.splitlines()[:line]
    names = [m.group(1) for text in before for m in [_SIGNATURE.search(text)] if m]
    return names[-1] if names else "(before the first kernel)"


def front_end_check(source: str, name: str) -> None:
    """NVRTC's front end alone (``compile_source(syntax_only=True)``), naming the failing kernels."""
    try:
        gnvrtc.compile_source(source, name, syntax_only=True)
    except gnvrtc.NvrtcUnavailable as exc:
        _require_nvrtc(exc)
    except RuntimeError as exc:
        lines = sorted({int(n) for n in re.findall(r"\((\d+)\): error", str(exc))})
        where = ", ".join(sorted({_kernel_at(source, n) for n in lines}))
        raise RuntimeError(f"in {where}: {exc}") from None


def test_every_fast_kernel_passes_the_front_end() -> None:
    _check_nvrtc()
    specs = all_specs()
    front_end_check(batch_fast_source(specs), "fast_all.cu")


def test_representative_fast_kernels_build() -> None:
    _check_nvrtc()
    specs = representative_specs()
    ptx = gnvrtc.compile_source(batch_fast_source(specs), "fast_representative.cu", debug=True)
    for spec in specs:
        for kind in FAST_KINDS:
            assert f".entry {spec.name}_{kind}(" in ptx, f"{spec.name}_{kind} missing from the PTX"


def _with_statement(spec: KernelSpec, expr: str) -> KernelSpec:
    """``spec`` with one more statement assigning ``expr`` to the output."""
    out = param_name(spec.output_roles[0])
    return dataclasses.replace(spec, operation=f"{spec.operation}\n{out} = {expr};")


def test_broken_fast_kernel_fails() -> None:
    """The front-end check can fail, and names the kernel: an undefined call, a type error."""
    _check_nvrtc()
    good = all_specs()[:3]
    broken = [good[0], _with_statement(good[1], "gpuops_no_such_fn(0)"), good[2]]
    with pytest.raises(RuntimeError, match="gpuops_no_such_fn") as info:
        front_end_check(batch_fast_source(broken), "broken.cu")
    assert f"{good[1].name}_flat" in str(info.value).splitlines()[0]
    member = _with_statement(good[1], "gpuops_fast_pack<float, 4>().v[3].no_such_member")
    with pytest.raises(RuntimeError, match="no_such_member"):
        front_end_check(batch_fast_source([member], ("rows",)), "broken_rows.cu")
    front_end_check(batch_fast_source(good), "intact.cu")


def _entries(ptx: str) -> dict[str, str]:
    """Each ``.entry``'s PTX text by kernel name."""
    parts = re.split(r"\.entry (\w+)\(", ptx)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


_VECTOR_128 = re.compile(r"\b(ld|st)\.global(?:\.nc)?\.(?:v4\.(?:u32|b32|s32|f32)|v2\.(?:u64|b64|s64|f64))\b")
_INT_DIVISION = re.compile(r"\b(?:div|rem)\.(?:s|u)(?:16|32|64)\b")


def test_flat_kernels_use_128_bit_accesses() -> None:
    """Built as CuPy builds them (optimized), a flat kernel loads and stores 16 bytes per access
    for its widest operand; neither kind divides integers (the point of the fast paths)."""
    _check_nvrtc()
    f32, f16, bf16, f64 = DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT64
    i8, u8 = DataType.INT8, DataType.UINT8
    add = _ROW["ELEMENT_WISE_ADD"]
    specs = [
        elementwise_kernel_spec(add, {"a_tensor": t, "b_tensor": t, "output_tensor": t})
        for t in (f32, f16, bf16, i8, f64)
    ]
    greater = _ROW["ELEMENT_WISE_LOGICAL_GREATER_THAN"]
    specs.append(elementwise_kernel_spec(greater, {"a_tensor": f32, "b_tensor": f32, "output_tensor": u8}))
    add1 = _ROW["ELEMENT_WISE_ADD1"]
    relu = _ROW["ACTIVATION_RELU"]
    specs.append(elementwise_kernel_spec(add1, {"a_tensor": f16, "b_tensor": f16, "output_tensor": f16}, False, relu))
    identity = _ROW["ELEMENT_WISE_IDENTITY"]
    specs.append(elementwise_kernel_spec(identity, {"input_tensor": bf16, "output_tensor": bf16}, True))
    try:
        ptx = gnvrtc.compile_source(batch_fast_source(specs), "fast_vectorized.cu")
    except gnvrtc.NvrtcUnavailable as exc:
        _require_nvrtc(exc)
    entries = _entries(ptx)
    for spec in specs:
        flat, rows = entries[f"{spec.name}_flat"], entries[f"{spec.name}_rows"]
        kinds = {m.group(1) for m in _VECTOR_128.finditer(flat)}
        wide_out = dict(spec.tensor_types)[spec.output_roles[0]].itemsize == max(
            t.itemsize for _, t in spec.tensor_types
        )
        assert kinds >= ({"ld", "st"} if wide_out else {"ld"}), f"{spec.name}_flat: no 128-bit access ({kinds})"
        assert not _VECTOR_128.search(rows), f"{spec.name}_rows has vector accesses"
        for name, text in ((f"{spec.name}_flat", flat), (f"{spec.name}_rows", rows)):
            assert not _INT_DIVISION.search(text), f"{name}: {_INT_DIVISION.search(text)}"
