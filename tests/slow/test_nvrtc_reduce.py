"""Compile every generated reduction kernel with NVRTC, and check it is CuPy's own template.

The matrix: each reduction row (REDUCE, ARGMAX, ARGMIN) x each selector value (REDUCE's
twelve functions; ARGMAX/ARGMIN's two axis directions) x each data-type mapping that
validates at FL_6_4 (extensions included) x the one-pass kernel and the two-pass pair.
The one-pass kernels compile in two layouts (2-D -> 1-D, 32-bit indexing; 3-D -> 2-D,
64-bit), the pass kernels in one. Kernels sharing a row compile as one NVRTC program, each
in its own namespace; ``--device-debug`` skips NVVM's optimizer (3x faster), which checks
everything a kernel's C++ can get wrong.

``cuda_module`` mirrors CuPy's ``ReductionKernel`` template; where CuPy's generator
(``cupy._core._reduction._create_reduction_function_code``) is importable, the two are
compared text for text, so a CuPy upgrade that changes the template fails here.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from test_nvrtc import _check_nvrtc

import gpuops.nvrtc as gnvrtc
from descriptors import ROWS, FeatureLevel, dtype_combinations
from gpuops.codegen.reduce import ReductionSpec, reduction_kernel_spec, two_pass_specs

pytestmark = pytest.mark.nvrtc

LEVEL = FeatureLevel.FL_6_4
REDUCE_ROWS = {r.name: r for r in ROWS if r.is_reduction}


@functools.cache
def row_specs(name: str) -> tuple[tuple[ReductionSpec, ...], tuple[ReductionSpec, ...]]:
    """(one-pass kernels, pass-1 and pass-2 kernels) of every selector value and type mapping."""
    row = REDUCE_ROWS[name]
    ones: list[ReductionSpec] = []
    passes: list[ReductionSpec] = []
    for variant in row.reductions:
        for dtypes in dtype_combinations(name, LEVEL, variant=variant if row.variants else None):
            ones.append(reduction_kernel_spec(row, dtypes, variant))
            passes.extend(two_pass_specs(row, dtypes, variant))
    return tuple(ones), tuple(passes)


def test_every_reduction_row_has_kernels() -> None:
    assert set(REDUCE_ROWS) == {"REDUCE", "ARGMAX", "ARGMIN"}
    for name, row in REDUCE_ROWS.items():
        ones, passes = row_specs(name)
        assert len(passes) == 2 * len(ones)
        variants = {s.name.split("_")[2] for s in ones}
        assert len(variants) >= min(2, len(row.reductions)), name


def test_kernel_names_unique() -> None:
    names = [s.name for name in REDUCE_ROWS for part in row_specs(name) for s in part]
    dups = {n for n in names if names.count(n) > 1}
    assert not dups


@pytest.mark.parametrize("name", sorted(REDUCE_ROWS))
def test_nvrtc_compiles_every_reduction_kernel(name: str) -> None:
    _check_nvrtc()
    ones, passes = row_specs(name)
    source = gnvrtc.batch_reduction_source([(ones, [(2, 1, True), (3, 2, False)]), (passes, [(3, 2, True)])])
    ptx = gnvrtc.compile_source(source, f"{name.lower()}_reductions.cu", debug=True)
    for s in ones + passes:
        assert f"{s.name}_" in ptx, f"{s.name} missing from the PTX"


def test_nvrtc_optimized_build_of_one_kernel_per_function() -> None:
    """One kernel per selector value through NVVM's optimizer too, as CuPy builds it."""
    _check_nvrtc()
    specs = []
    for name in REDUCE_ROWS:
        ones, _ = row_specs(name)
        seen: set[str] = set()
        for s in ones:
            key = s.name.split("_float")[0].split("_int")[0].split("_uint")[0]
            if key not in seen:
                seen.add(key)
                specs.append(s)
    gnvrtc.compile_source(gnvrtc.batch_reduction_source([(specs, [(2, 1, True)])]), "reductions_optimized.cu")


def test_nvrtc_rejects_a_broken_reduction() -> None:
    """The check can fail: a map expression naming an unknown function does not compile."""
    _check_nvrtc()
    ones, _ = row_specs("REDUCE")
    broken = ReductionSpec(**{**_fields(ones[0]), "map_expr": "gpuops_no_such_function(input)"})
    with pytest.raises(RuntimeError, match="gpuops_no_such_function"):
        gnvrtc.compile_source(broken.cuda_module(), "broken.cu", debug=True)


def _fields(spec: ReductionSpec) -> dict:
    return {f: getattr(spec, f) for f in spec.__dataclass_fields__}


# ---------------------------------------------------------------------------------------
# The mirror of CuPy's template against CuPy's own generator.


def _cupy_generator():  # type: ignore[no-untyped-def]
    try:
        import cupy
        from cupy._core import _carray, _kernel, _reduction, _scalar
    except Exception as exc:  # pragma: no cover - depends on the install
        pytest.skip(f"cupy's reduction generator is not importable: {exc}")
    return cupy, _carray, _kernel, _reduction, _scalar


def _cupy_code(spec: ReductionSpec, in_ndim: int, out_ndim: int, idx32: bool) -> str:
    """What CuPy 14 generates for this ReductionKernel with C-contiguous arguments."""
    cupy, _carray, _kernel, _reduction, _scalar = _cupy_generator()
    ndarray, indexer, scalar = 1, 2, 3  # cupy._core._kernel's _ArgInfo kinds
    ins = _kernel._get_param_info(spec.in_params, True)
    outs = _kernel._get_param_info(spec.out_params, False)
    extra = _kernel._get_param_info("CIndexer _in_ind, CIndexer _out_ind", False)
    params = ins + outs + extra + _kernel._get_param_info("int32 _block_stride", True)
    scalars = dict(spec.scalar_params)
    infos = []
    for p in ins:
        if p.name in scalars:
            infos.append(_kernel._ArgInfo(scalar, _scalar.CScalar, p.dtype, 0, True, True))
        else:
            infos.append(_kernel._ArgInfo(ndarray, cupy.ndarray, p.dtype, in_ndim, True, idx32))
    infos += [_kernel._ArgInfo(ndarray, cupy.ndarray, p.dtype, out_ndim, True, idx32) for p in outs]
    infos += [
        _kernel._ArgInfo(indexer, _carray.Indexer, None, in_ndim, True, idx32),
        _kernel._ArgInfo(indexer, _carray.Indexer, None, out_ndim, True, idx32),
        _kernel._ArgInfo(scalar, _scalar.CScalar, np.dtype("int32"), 0, True, True),
    ]
    type_map = _kernel._TypeMap((("IndexT", "int32" if idx32 else "int64"),))
    input_expr = " ".join(
        f"const {p.ctype} {p.name} = _raw_{p.name}[_in_ind.get()];" for p in ins if p.name not in scalars
    )
    output_expr = " ".join(f"{p.ctype} &{p.name} = _raw_{p.name}[_out_ind.get()];" for p in outs)
    return _reduction._create_reduction_function_code(
        spec.name, 512, spec.reduce_type, params, tuple(infos), spec.identity, spec.map_expr, spec.reduce_expr,
        spec.post_map_expr, type_map, input_expr, output_expr, spec.preamble, (),
    )  # fmt: skip


def _normalized(code: str) -> str:
    code = "\n".join(line for line in code.splitlines() if not line.startswith("#include"))
    return re.sub(r"\s+", " ", code).strip()


@pytest.mark.parametrize("name", sorted(REDUCE_ROWS))
@pytest.mark.parametrize("layout", [(2, 1, True), (3, 2, False)], ids=["2to1-idx32", "3to2-idx64"])
def test_template_is_cupys(name: str, layout: tuple[int, int, bool]) -> None:
    ones, passes = row_specs(name)
    for spec in (ones[0], ones[-1], *passes[:2], *passes[-2:]):
        ours = spec.kernel_function(*layout)
        assert _normalized(ours) == _normalized(_cupy_code(spec, *layout)), spec.name
