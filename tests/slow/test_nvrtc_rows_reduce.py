"""Compile every reduction's rows and columns kernels (issue 33; ``reduce_rows.rows_kernel``,
``reduce_rows.columns_kernel``) with NVRTC for the real target.

The matrix of ``test_nvrtc_reduce.py``: each reduction row (REDUCE, ARGMAX, ARGMIN) x each selector value x each
data-type mapping at FL_6_4, the one-pass spec's rows kernel at one of the four thread counts per row (32 to 256,
rotating, so every count compiles for every row) and its columns kernel at one of the five column counts (2 to 32,
rotating, plain and split) and its split rows kernel, and every count of each for REDUCE SUM float32. One NVRTC
program per row (each kernel in its own namespace, the macros undefined after it); ``--device-debug`` as there.
The emulator runs the same text in CI (the generated reduction tests' layouts).
"""

from __future__ import annotations

import pytest
from test_nvrtc import _check_nvrtc, _require_nvrtc
from test_nvrtc_reduce import REDUCE_ROWS, row_specs

import gpuops.nvrtc as gnvrtc
from descriptors.optable import HELPERS
from gpuops.codegen import _HEADERS, reduce_rows
from gpuops.codegen.reduce import ReductionSpec

pytestmark = pytest.mark.nvrtc

THREADS = (32, 64, 128, 256)
COLUMNS = (2, 4, 8, 16, 32)


def batch(kernels: list[tuple[ReductionSpec, str, int]]) -> tuple[str, list[str]]:
    """One translation unit holding each (spec, kind, n)'s kernel in a namespace of its own (kind ``rows`` with n
    threads per row, ``columns`` / ``split columns`` with n columns, ``split rows``); the names."""
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
    helpers = tuple(dict.fromkeys(h for s, _, _ in kernels for h in s.helpers))
    parts, names = [headers, HELPERS.source(helpers)], []
    for k, (spec, kind, n) in enumerate(kernels):
        if kind == "rows":
            name, fn = reduce_rows.rows_kernel(spec, n, with_preamble=False)
        elif kind == "split rows":
            name, fn = reduce_rows.split_rows_kernel(spec, with_preamble=False)
        else:
            name, fn = reduce_rows.columns_kernel(spec, n, with_preamble=False, split=kind == "split columns")
        names.append(name)
        parts.append(f"namespace gpuops_r{k} {{\n{fn}\n}}\n#undef REDUCE\n#undef POST_MAP\n")
    return "\n".join(parts), names


@pytest.mark.parametrize("name", sorted(REDUCE_ROWS))
def test_rows_kernels_compile(name: str) -> None:
    _check_nvrtc()
    ones, _ = row_specs(name)
    kernels = [(s, "rows", THREADS[k % len(THREADS)]) for k, s in enumerate(ones)]
    kernels += [(s, "columns", COLUMNS[k % len(COLUMNS)]) for k, s in enumerate(ones)]
    kernels += [(s, "split columns", COLUMNS[(k + 2) % len(COLUMNS)]) for k, s in enumerate(ones)]
    kernels += [(s, "split rows", 0) for s in ones]
    if name == "REDUCE":
        total = next(s for s in ones if s.name == "gpuops_reduce_sum_float32")
        kernels += [(total, "rows", t) for t in THREADS]
        kernels += [(total, kind, c) for c in COLUMNS for kind in ("columns", "split columns")]
    kernels = list({(s.name, kind, n): (s, kind, n) for s, kind, n in kernels}.values())  # each name once
    source, names = batch(kernels)
    try:
        ptx = gnvrtc.compile_source(source, f"{name.lower()}_rows.cu", debug=True)
    except gnvrtc.NvrtcUnavailable as exc:
        _require_nvrtc(exc)
    for n in names:
        assert f"{n}(" in ptx, f"{n} missing from the PTX"


def test_rows_kernel_refuses_a_bad_thread_count() -> None:
    ones, _ = row_specs("REDUCE")
    for bad in (0, 1, 48, 512):
        with pytest.raises(ValueError, match="rows kernel"):
            reduce_rows.rows_kernel(ones[0], bad)
    for bad in (0, 1, 3, 256):
        with pytest.raises(ValueError, match="columns kernel"):
            reduce_rows.columns_kernel(ones[0], bad)
