"""Compile every generated kernel with NVRTC: no GPU or driver needed.

The matrix is every op-table row times every data-type mapping that validates at
FL_6_4 (gpuops extensions included), plus the ScaleBias variant of each row that has a
ScaleBias field wherever gpuops defines it. Each kernel compiles in the contiguous 1-D and
strided 3-D layouts, with ``compile_specs``'s options; each row's test checks its own kernels'
``.entry`` in the PTX, so a failure names the operator.

NVRTC parses CuPy's headers again for every program (about as long as building a few
kernels), so consecutive rows share one program (``merged_source``, each preamble in its own
namespace), built once per test process. When NVRTC rejects a merged program, each of its
rows compiles alone as before (one program per preamble), so the failing row's test fails with
NVRTC's log and the other rows still pass.

Without NVRTC (``pip install -e .[nvrtc]``) the compile tests skip with the reason, unless
``GPUOPS_REQUIRE_NVRTC=1`` is set (CI sets it): then they fail, so a missing NVRTC cannot
hide a broken kernel.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import os
import re
from collections.abc import Callable, Sequence

import pytest

import gpuops.nvrtc as gnvrtc
from descriptors import ROWS, FeatureLevel, dtype_combinations
from descriptors.compute import plan_problem
from descriptors.optable import HELPERS
from descriptors.schema import OpRow
from gpuops.codegen import _HEADERS, BIAS, SCALE, KernelSpec, elementwise_kernel_spec

pytestmark = pytest.mark.nvrtc

LEVEL = FeatureLevel.FL_6_4
# reductions: test_nvrtc_reduce.py; composites (plans of other rows) and scans: test_composite_generated.py,
# test_scan_generated.py
ELEMENTWISE_ROWS = tuple(row for row in ROWS if not (row.is_reduction or row.is_composite or row.is_scan))
ROW_NAMES = [row.name for row in ELEMENTWISE_ROWS]
_ROW = {row.name: row for row in ELEMENTWISE_ROWS}


def _require_nvrtc(exc: gnvrtc.NvrtcUnavailable) -> None:
    """Skip (or fail, when GPUOPS_REQUIRE_NVRTC=1) because NVRTC is unavailable."""
    reason = f"NVRTC unavailable: {exc}"
    if os.environ.get("GPUOPS_REQUIRE_NVRTC") == "1":
        pytest.fail(f"{reason} (GPUOPS_REQUIRE_NVRTC=1 forbids skipping)", pytrace=False)
    pytest.skip(reason)


@functools.cache
def _nvrtc_problem() -> gnvrtc.NvrtcUnavailable | None:
    try:
        gnvrtc.nvrtc_version()
        gnvrtc.include_dirs()
    except gnvrtc.NvrtcUnavailable as exc:
        return exc
    return None


def _check_nvrtc() -> None:
    """Called in each test body (not a fixture) so a required-but-missing NVRTC is a FAIL, not an ERROR."""
    problem = _nvrtc_problem()
    if problem is not None:
        _require_nvrtc(problem)


@functools.cache
def row_specs(name: str) -> tuple[KernelSpec, ...]:
    """Every kernel of one row: each dtype mapping, plus ScaleBias where gpuops defines it."""
    row = _ROW[name]
    specs: list[KernelSpec] = []
    for dtypes in dtype_combinations(row.name, LEVEL, extensions=True):
        specs.append(elementwise_kernel_spec(row, dtypes, False))
        if row.has_scale_bias and plan_problem(row, dtypes, True) is None:
            specs.append(elementwise_kernel_spec(row, dtypes, True))
    return tuple(specs)


def _plain_and_scale_bias(row: OpRow) -> list[tuple[KernelSpec, KernelSpec]]:
    pairs = []
    for dtypes in dtype_combinations(row.name, LEVEL, extensions=True):
        if row.has_scale_bias and plan_problem(row, dtypes, True) is None:
            pairs.append((elementwise_kernel_spec(row, dtypes, False), elementwise_kernel_spec(row, dtypes, True)))
    return pairs


# ---------------------------------------------------------------------------------------
# The matrix itself (pure string checks, no NVRTC)


def test_matrix_is_complete() -> None:
    for row in ELEMENTWISE_ROWS:
        assert row_specs(row.name), f"{row.name}: no data-type mapping validates at {LEVEL.name}"
    assert any(row.has_scale_bias for row in ELEMENTWISE_ROWS), "no row has a ScaleBias field: the check is vacuous"
    assert any(s.scalar_params for name in ROW_NAMES for s in row_specs(name))


def test_kernel_names_unique() -> None:
    owners: dict[str, list[str]] = collections.defaultdict(list)
    for name in ROW_NAMES:
        for spec in row_specs(name):
            owners[spec.name].append(f"{name}: {spec.in_params} -> {spec.out_params}")
    dups = {k: v for k, v in owners.items() if len(v) > 1}
    assert not dups, f"kernel names shared by several kernels: {dups}"


# Numeric literals (decimal, float, hex, with suffixes) and the C names of special values.
_LITERAL = re.compile(
    r"(?<![\w.])(?:0[xX][0-9a-fA-F.pP+-]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[fFlLuU]*"
    r"|\b(?:INFINITY|NAN|HUGE_VALF?|CUDART_\w+|__int_as_float|__longlong_as_double)\b"
)


def _literals(text: str) -> set[str]:
    return set(_LITERAL.findall(text))


@pytest.mark.parametrize("name", ROW_NAMES)
def test_no_scalar_literals(name: str) -> None:
    """Descriptor scalars are kernel arguments: the source holds no literal but the op table's own."""
    row = _ROW[name]
    allowed = set().union(*(_literals(e) for e in row.exprs.cuda.values()))
    for spec in row_specs(name):
        extra = _literals(spec.operation) - allowed
        assert not extra, f"{spec.name}: literals {sorted(extra)} in the operation\n{spec.operation}"
        rest = spec.preamble
        for src, _deps in HELPERS.values():
            rest = rest.replace(src, "")
        assert not rest.strip(), f"{spec.name}: preamble holds more than op-table helpers:\n{rest}"
        has_sb = spec.name.endswith("_scalebias")
        want = ((SCALE, BIAS) if has_sb else ()) + tuple(f.kernel_name for f in row.param_fields)
        assert spec.scalar_params == want, (spec.name, spec.scalar_params, want)
        fn = spec.kernel_function()
        for pname in want:
            assert re.search(rf"float32 {pname}\b|\w+ {pname}\b", spec.in_params), (pname, spec.in_params)
            assert re.search(rf"const [\w ]+ {pname}\b", fn), (pname, fn)
        if has_sb:
            assert f", {SCALE}, {BIAS})" in spec.operation, spec.operation
        else:
            assert SCALE not in spec.operation and BIAS not in spec.operation, spec.operation

    for plain, sb in _plain_and_scale_bias(row):
        # The ScaleBias kernel is the plain one with the first operand wrapped, nothing else.
        unwrapped = re.sub(rf"gpuops_scale_bias\((.*), {SCALE}, {BIAS}\)", r"\1", sb.operation)
        assert unwrapped == plain.operation, f"{sb.name}:\n{sb.operation}\nvs {plain.name}:\n{plain.operation}"
        assert sb.name == plain.name + "_scalebias"


# ---------------------------------------------------------------------------------------
# NVRTC


# Merged programs: consecutive rows (in test-id order, so under pytest-xdist a chunk's rows mostly run on one worker)
# up to about _CHUNK_KERNELS kernels per NVRTC program. Each program costs a header parse (about 0.1 s of CPU) plus
# about 15 ms per kernel and layout: chunks of 60 to 400 kernels cost the same (all rows: 30 % less CPU than a program
# per row and preamble, fused kernels 50 % less); smaller ones cost less where two workers share a chunk (each builds
# it).
_CHUNK_KERNELS = 100
_LAYOUTS = ((1, True, True), (3, False, False))  # compile_specs's: batch_source names them <name>_1d11, <name>_3d00
_ENTRY = re.compile(r"\.entry (\w+)\(")


def merged_source(specs: Sequence[KernelSpec]) -> str:
    """``compile_specs``'s program for kernels of several preambles: each preamble's ``batch_source`` in a namespace.

    Op-table helpers declare only ``gpuops_``-named functions and define no macros, so each kernel sees exactly its
    own preamble and CuPy's headers, as in its row's own program; ``extern "C"`` keeps the kernel names.
    """
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
    groups: dict[str, list[KernelSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.preamble, []).append(spec)
    parts = [headers]
    for i, group in enumerate(groups.values()):
        source = gnvrtc.batch_source(group, _LAYOUTS)
        assert source.startswith(headers), "batch_source no longer starts with the CuPy headers"
        body = source[len(headers) :]
        parts.append(f"namespace gpuops_merged_g{i} {{\n{body}\n}}  // namespace gpuops_merged_g{i}\n")
    return "\n".join(parts)


# A top-level line of an op-table helper: a closing brace, a comment, a template head, or (after one) a struct or a
# function, whose name is captured.
_HELPER_LINE = re.compile(
    r"\}.*|//.*|template <[^>]*>"
    r"|(?:template <[^>]*> )?(?:struct (\w+)\b.*|__device__ __forceinline__ [^(]*?\b(\w+)(?:<[\w, ]*>)?\(.*)"
)


def test_helpers_are_namespace_safe() -> None:
    """``merged_source`` is exact while helpers declare only ``gpuops_`` names and no preprocessor directives: in a
    namespace, a helper named like a CuPy function would hide its overloads, which the row's own program sees."""
    declared = 0
    for key, (src, _deps) in HELPERS.items():
        assert not re.search(r"^\s*#\s*(?!pragma\b)", src, re.MULTILINE), (key, src)
        for line in src.splitlines():
            if line and not line[0].isspace():
                match = _HELPER_LINE.fullmatch(line)
                assert match, f"{key}: unexpected top-level line {line!r}"
                name = match.group(1) or match.group(2)
                assert name is None or name.startswith("gpuops_"), f"{key}: {name} in {line!r}"
                declared += name is not None
    assert declared > len(HELPERS) // 2


def _chunks(names: Sequence[str], count: Callable[[str], int]) -> dict[str, tuple[str, ...]]:
    """Each name's chunk: consecutive names holding at most ``_CHUNK_KERNELS`` kernels together (or one name)."""
    chunks: list[list[str]] = [[]]
    size = 0
    for name in names:
        if chunks[-1] and size + count(name) > _CHUNK_KERNELS:
            chunks.append([])
            size = 0
        chunks[-1].append(name)
        size += count(name)
    return {name: tuple(chunk) for chunk in chunks for name in chunk}


@functools.cache
def _row_chunks() -> dict[str, tuple[str, ...]]:
    return _chunks(ROW_NAMES, lambda name: len(row_specs(name)))


@functools.cache
def _fused_chunks() -> dict[str, tuple[str, ...]]:
    return _chunks([r.name for r in _FUSED_HOSTS], lambda name: len(fused_specs(_ROW[name])))


@functools.cache
def _merged_entries(chunk: tuple[str, ...], fused: bool) -> frozenset[str] | None:
    """The ``.entry`` names of the chunk's kernels built as one program, or None where NVRTC rejects it."""
    specs = [s for name in chunk for s in (fused_specs(_ROW[name]) if fused else row_specs(name))]
    name = f"{'fused' if fused else 'rows'}_{chunk[0].lower()}_to_{chunk[-1].lower()}.cu"
    try:
        ptx = gnvrtc.compile_source(merged_source(specs), name)
    except gnvrtc.NvrtcUnavailable:
        raise
    except RuntimeError:
        return None  # each row of the chunk compiles alone: the failing one names itself
    return frozenset(_ENTRY.findall(ptx))


def _compiled_entries(name: str, groups: Sequence[Sequence[KernelSpec]], fused: bool) -> frozenset[str]:
    """The ``.entry`` names NVRTC built for ``groups`` (the kernels of row ``name``, by preamble)."""
    try:
        entries = _merged_entries((_fused_chunks() if fused else _row_chunks())[name], fused)
        if entries is not None:
            return entries
        found: set[str] = set()
        for i, specs in enumerate(groups):
            program = f"{name.lower()}_fused_{i}.cu" if fused else f"{name.lower()}_{i}.cu"
            found.update(_ENTRY.findall(gnvrtc.compile_specs(specs, program)))
        return frozenset(found)
    except gnvrtc.NvrtcUnavailable as exc:
        _require_nvrtc(exc)
        raise  # unreachable: _require_nvrtc skips or fails


def _assert_entries(specs: Sequence[KernelSpec], entries: frozenset[str]) -> None:
    for spec in specs:
        for ndim, contiguous, idx32 in _LAYOUTS:
            kernel = f"{spec.name}_{ndim}d{int(contiguous)}{int(idx32)}"
            assert kernel in entries, f"{kernel} missing from the PTX"


@pytest.mark.parametrize("name", ROW_NAMES)
def test_row_compiles(name: str) -> None:
    _check_nvrtc()
    groups: dict[str, list[KernelSpec]] = collections.defaultdict(list)
    for spec in row_specs(name):
        groups[spec.preamble].append(spec)
    assert groups
    _assert_entries(row_specs(name), _compiled_entries(name, list(groups.values()), fused=False))


def test_broken_kernel_fails() -> None:
    """The check can fail: a kernel calling an undefined function raises with NVRTC's log, alone or merged."""
    _check_nvrtc()
    spec = row_specs(ROW_NAMES[0])[0]
    broken = dataclasses.replace(spec, operation=spec.operation.replace("static_cast", "gpuops_no_such_fn", 1))
    assert broken.operation != spec.operation
    with pytest.raises(RuntimeError) as info:
        gnvrtc.compile_source(broken.cuda_module(), "broken.cu")
    if isinstance(info.value, gnvrtc.NvrtcUnavailable):
        _require_nvrtc(info.value)
    msg = str(info.value)
    assert "NVRTC failed on broken.cu" in msg
    assert "gpuops_no_such_fn" in msg and "error" in msg, msg
    # The intact kernel compiles: the failure above comes from the broken call alone.
    gnvrtc.compile_source(spec.cuda_module(), "intact.cu")
    # A merged program fails on one broken kernel among others (so the rows fall back to their own programs), and
    # builds kernels of different preambles side by side.
    other = next(s for name in ROW_NAMES for s in row_specs(name) if s.preamble and s.preamble != spec.preamble)
    broken = dataclasses.replace(broken, name=other.name + "_broken", preamble=other.preamble)
    with pytest.raises(RuntimeError, match="gpuops_no_such_fn"):
        gnvrtc.compile_source(merged_source([spec, broken, other]), "broken_merged.cu")
    _assert_entries([spec, other], frozenset(_ENTRY.findall(gnvrtc.compile_source(merged_source([spec, other])))))


def test_require_nvrtc_fails_instead_of_skipping(monkeypatch: pytest.MonkeyPatch) -> None:
    exc = gnvrtc.NvrtcUnavailable("simulated")
    monkeypatch.setenv("GPUOPS_REQUIRE_NVRTC", "1")
    with pytest.raises(pytest.fail.Exception, match="simulated"):
        _require_nvrtc(exc)
    monkeypatch.delenv("GPUOPS_REQUIRE_NVRTC")
    with pytest.raises(pytest.skip.Exception, match="simulated"):
        _require_nvrtc(exc)


# ---------------------------------------------------------------------------------------
# Fused activations: one kernel holding the operator and the activation.

_FUSABLE = [r for r in ELEMENTWISE_ROWS if r.fusable]
_FUSED_HOSTS = [r for r in ELEMENTWISE_ROWS if r.fused_field is not None]  # MVN1: test_composite_generated.py


def test_fused_hosts_are_arithmetic_with_float_outputs() -> None:
    for host in _FUSED_HOSTS:
        assert host.domain.name == "ARITH", host.name
        combos = dtype_combinations(host.name, FeatureLevel.FL_6_4)
        assert any(c[host.output_fields[0].name].is_float for c in combos), host.name


def fused_specs(host: OpRow) -> list[KernelSpec]:
    """ADD1: every fusable activation x every float type; other hosts: each activation once."""
    specs = []
    floats = [c for c in dtype_combinations(host.name, FeatureLevel.FL_6_4) if c[host.output_fields[0].name].is_float]
    for k, act in enumerate(_FUSABLE):
        combos = floats if not host.fused_field.extension else floats[k % len(floats) : k % len(floats) + 1]
        specs += [elementwise_kernel_spec(host, c, False, act) for c in combos]
    return specs


@pytest.mark.parametrize("name", [r.name for r in _FUSED_HOSTS])
def test_fused_kernels_compile(name: str) -> None:
    _check_nvrtc()
    specs = fused_specs(_ROW[name])
    assert specs
    groups: dict[str, list[KernelSpec]] = collections.defaultdict(list)
    for spec in specs:
        assert "_fused_" in spec.name
        groups[spec.preamble].append(spec)
    _assert_entries(specs, _compiled_entries(name, list(groups.values()), fused=True))
