"""Compile every generated kernel with NVRTC: no GPU or driver needed.

The matrix is every op-table row times every data-type mapping that validates at
FL_6_4 (gpuops extensions included), plus the ScaleBias variant of each row that has a
ScaleBias field wherever gpuops defines it. All kernels of one row that share a preamble
compile as one NVRTC program (contiguous 1-D and strided 3-D layouts), so a failure names
the operator.

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

import pytest

import gpuops.nvrtc as gnvrtc
from descriptors import ROWS, FeatureLevel, dtype_combinations
from descriptors.compute import plan_problem
from descriptors.optable import HELPERS
from descriptors.schema import OpRow
from gpuops.codegen import BIAS, SCALE, KernelSpec, elementwise_kernel_spec

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


@pytest.mark.parametrize("name", ROW_NAMES)
def test_row_compiles(name: str) -> None:
    _check_nvrtc()
    groups: dict[str, list[KernelSpec]] = collections.defaultdict(list)
    for spec in row_specs(name):
        groups[spec.preamble].append(spec)
    assert groups
    for i, specs in enumerate(groups.values()):
        try:
            ptx = gnvrtc.compile_specs(specs, f"{name.lower()}_{i}.cu")
        except gnvrtc.NvrtcUnavailable as exc:
            _require_nvrtc(exc)
        for spec in specs:
            # batch_source names each layout <name>_<ndim>d<contiguous><idx32>.
            for suffix in ("1d11", "3d00"):
                assert f".entry {spec.name}_{suffix}(" in ptx, f"{spec.name}_{suffix} missing from the PTX"


def test_broken_kernel_fails() -> None:
    """The check can fail: a kernel calling an undefined function raises with NVRTC's log."""
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
    for i, group in enumerate(groups.values()):
        gnvrtc.compile_specs(group, f"{name.lower()}_fused_{i}.cu")
