"""Every generated kernel is accepted by ``cupy.ElementwiseKernel`` (no GPU needed).

NVRTC (tests/slow/test_nvrtc.py) proves the CUDA compiles; this proves CuPy parses the
parameter strings (dtype names such as ``bfloat16``, scalar parameters, arity), which is
what the CuPy backend hands it at run time.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from grid_check import check_grid

import descriptors as d
from descriptors.compute import plan_problem
from gpuops.codegen import elementwise_kernel_spec

pytestmark = pytest.mark.nvrtc


def _cupy():  # type: ignore[no-untyped-def]
    try:
        import cupy
    except Exception as exc:
        if os.environ.get("GPUOPS_REQUIRE_NVRTC") == "1":
            pytest.fail(f"cupy is required here (GPUOPS_REQUIRE_NVRTC=1) but not importable: {exc}")
        pytest.skip(f"cupy not importable: {exc}")
    return cupy


ELEMENTWISE = [r for r in d.ROWS if not (r.is_reduction or r.is_composite or r.is_scan)]


def _check_row_kernels(cupy: Any, row: d.schema.OpRow) -> None:
    """Every data-type mapping of ``row`` (with and without ScaleBias where it has one)."""
    combos = d.dtype_combinations(row.name)
    assert combos
    for dtypes in combos:
        for sb in (False, True) if row.has_scale_bias else (False,):
            if sb and plan_problem(row, dtypes, True) is not None:
                continue
            spec = elementwise_kernel_spec(row, dtypes, sb)
            k = cupy.ElementwiseKernel(
                spec.in_params, spec.out_params, spec.operation, spec.name, preamble=spec.preamble
            )
            assert k.nin == len(spec.input_roles) + len(spec.scalar_params)
            assert k.nout == len(spec.output_roles)
            assert k.name == spec.name


def test_cupy_accepts_every_generated_kernel() -> None:
    """Every element-wise row (one test over all of them, listing every row whose kernels CuPy refuses)."""
    cupy = _cupy()
    check_grid(ELEMENTWISE, lambda row: _check_row_kernels(cupy, row), lambda row: row.name)


@pytest.mark.parametrize("row", [r for r in d.ROWS if r.is_composite], ids=lambda r: r.name)
def test_cupy_accepts_every_fused_kernel_of_a_composite(row: d.schema.OpRow) -> None:
    """A composite's own kernels are its plan's fused element-wise steps (its other steps are rows above)."""
    from gpuops.codegen.graph import fused_kernel_spec
    from gpuops.graph_plan import FusedStep, composite_graph, plan_graph
    from gpuops.lowering import lower

    cupy = _cupy()
    fused = 0
    for dtypes in d.dtype_combinations(row.name):
        dt = dtypes["input_tensor"]
        t = d.TensorDesc(dt, (1, 3, 4, 5))
        fields: dict = {"axes": (1, 3)} if any(f.name == "axes" for f in row.fields) else {}
        if row.name == "MEAN_VARIANCE_NORMALIZATION1":
            s = d.TensorDesc(dt, (1, 3, 1, 1))
            fields |= {"scale_tensor": s, "bias_tensor": s, "fused_activation": d.ActivationReluOperatorDesc()}
        desc = d.desc_class(row.name)(input_tensor=t, output_tensor=t, **fields)
        for step in plan_graph(composite_graph(desc)).steps:
            if isinstance(step, FusedStep):
                spec = fused_kernel_spec(step, [lower(x) for x in step.descs])
                k = cupy.ElementwiseKernel(
                    spec.in_params, spec.out_params, spec.operation, spec.name, preamble=spec.preamble
                )
                assert k.nin == len(spec.input_roles) + len(spec.scalar_params) and k.name == spec.name
                fused += 1
    assert fused >= 1, row.name


@pytest.mark.parametrize("row", [r for r in d.ROWS if r.is_scan], ids=lambda r: r.name)
def test_cupy_accepts_every_scan_kernel(row: d.schema.OpRow) -> None:
    """CUMULATIVE_*: one ElementwiseKernel per data-type mapping, every array raw (launched with size= lines)."""
    from gpuops.codegen.scan import scan_kernel_spec

    cupy = _cupy()
    for dtypes in d.dtype_combinations(row.name):
        spec = scan_kernel_spec(row, dtypes)  # type: ignore[arg-type]
        k = cupy.ElementwiseKernel(spec.in_params, spec.out_params, spec.operation, spec.name, preamble=spec.preamble)
        assert k.nin == 4 and k.nout == 1 and k.name == spec.name
