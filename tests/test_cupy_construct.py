"""Every generated kernel is accepted by ``cupy.ElementwiseKernel`` (no GPU needed).

NVRTC (tests/test_nvrtc.py) proves the CUDA compiles; this proves CuPy parses the
parameter strings (dtype names such as ``bfloat16``, scalar parameters, arity), which is
what the CuPy backend hands it at run time.
"""

from __future__ import annotations

import os

import pytest

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


@pytest.mark.parametrize("row", [r for r in d.ROWS if not r.is_reduction], ids=lambda r: r.name)
def test_cupy_accepts_every_generated_kernel(row: d.schema.OpRow) -> None:
    cupy = _cupy()
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
