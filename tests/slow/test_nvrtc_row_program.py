"""Compile every row program kernel (issue 33; ``codegen.row_program``) with NVRTC for the real target.

The matrix: each composite row that runs as a row program (SOFTMAX, LOG_SOFTMAX, HARDMAX and their 1 forms,
MEAN_VARIANCE_NORMALIZATION1) x each data-type mapping at FL_6_4 x row lengths giving each geometry (32 threads
holding 1 and 2 elements, 64 threads holding 8, 256 threads holding 16), and for MVN the reads of ScaleTensor and
BiasTensor along rows and along columns, without NormalizeVariance, and each fusable activation (float32). One
NVRTC program for all (CuPy's headers and the helpers once, then each kernel once; the names are unique), with
the ``--fmad=false`` the backend builds them with; each kernel's ``.entry`` is checked in the PTX. The emulator runs
the same text in CI (tests/ops/test_composite_generated.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_nvrtc import _check_nvrtc, _require_nvrtc

import gpuops.nvrtc as gnvrtc
from descriptors import ROWS, DataType, FeatureLevel, TensorDesc, desc_class, dtype_combinations
from descriptors.optable import ELEMENTWISE_ROWS, HELPERS
from gpuops.codegen import _HEADERS
from gpuops.codegen.row_program import RowProgramSpec
from gpuops.row_program import plan_row_program

pytestmark = pytest.mark.nvrtc

LEVEL = FeatureLevel.FL_6_4
MVN = "MEAN_VARIANCE_NORMALIZATION1"
SOFTMAX_NAMES = ["ACTIVATION_SOFTMAX", "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX1"]
ROW_NAMES = [*SOFTMAX_NAMES, "ACTIVATION_HARDMAX", "ACTIVATION_HARDMAX1", MVN]
SHAPES = ((5, 1), (6, 40), (3, 257), (2, 3000))  # (threads, elements each): (32, 1), (32, 2), (64, 8), (256, 16)
# MVN: (sizes, axes, scale sizes, bias sizes, normalize_variance)
MVN_CASES = (
    ((2, 3, 4, 5), (2, 3), (1, 3, 1, 1), (1, 3, 1, 1), True),  # per channel: one row dimension
    ((2, 3, 4), (1, 2), (1, 3, 1), (1, 1, 4), True),  # along the columns: two column dimensions, then one
    ((2, 3, 4, 5), (3,), (2, 1, 4, 1), None, False),  # three row dimensions; no bias, no variance
    ((6, 40), (1,), None, None, True),
)


def _descs(name: str, dt: DataType) -> list[Any]:
    cls = desc_class(name)
    if name != MVN:
        axes = {"axes": (1,)} if name.endswith("1") else {}
        return [cls(input_tensor=TensorDesc(dt, s), output_tensor=TensorDesc(dt, s), **axes) for s in SHAPES]
    out = []
    for sizes, axes, scale, bias, normalize in MVN_CASES:
        t = TensorDesc(dt, sizes)
        st, bt = (TensorDesc(dt, s) if s is not None else None for s in (scale, bias))
        out.append(cls(t, st, bt, t, axes=axes, normalize_variance=normalize))
    if dt is DataType.FLOAT32:
        t = TensorDesc(dt, (6, 40))
        for row in ELEMENTWISE_ROWS:
            if row.fusable:
                act = desc_class(row.name)(**{f.name: 0.5 for f in row.param_fields})  # values: arguments
                out.append(cls(t, None, None, t, axes=(1,), fused_activation=act))
    return out


def programs(name: str) -> list[RowProgramSpec]:
    """The row program of every case of ``name``: each kernel once."""
    found: dict[str, RowProgramSpec] = {}
    for combo in dtype_combinations(name, LEVEL):
        for desc in _descs(name, combo["input_tensor"]):
            program = plan_row_program(desc)
            assert program is not None, f"{name}: {desc} should run as a row program"
            found.setdefault(program.spec.name, program.spec)
    return list(found.values())


def test_every_covered_row_is_listed() -> None:
    """The composites a row program covers are these seven (HARDMAX's: ARGMAX, an index sequence, issue 33)."""
    covered = set()
    for row in ROWS:
        if row.is_composite:
            t = TensorDesc(DataType.FLOAT32, (4, 8))
            fields = {"axes": (1,)} if any(f.name == "axes" for f in row.fields) else {}
            if row.name == MVN:
                fields |= {"scale_tensor": None, "bias_tensor": None}
            if plan_row_program(desc_class(row.name)(input_tensor=t, output_tensor=t, **fields)) is not None:
                covered.add(row.name)
    assert covered == set(ROW_NAMES)


def test_row_programs_compile() -> None:
    """Every kernel of every row in one NVRTC program (SOFTMAX's and SOFTMAX1's over the last axis are the same
    kernels: each once), so CuPy's headers are parsed once."""
    _check_nvrtc()
    rows: dict[str, list[str]] = {}
    specs: dict[str, RowProgramSpec] = {}
    for name in ROW_NAMES:
        found = programs(name)
        geometry = {(s.threads, s.per_thread) for s in found}
        assert {(32, 1), (32, 2), (64, 8), (256, 16)} <= geometry or name == MVN, (name, geometry)
        for spec in found:
            rows.setdefault(spec.name, []).append(name)
            specs[spec.name] = spec
    helpers = tuple(dict.fromkeys(h for s in specs.values() for h in s.helpers))
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
    source = "\n".join([headers, HELPERS.source(helpers), *(s.kernel for s in specs.values())])
    try:
        ptx = gnvrtc.compile_source(source, "row_programs.cu", options=("--fmad=false",))
    except gnvrtc.NvrtcUnavailable as exc:
        _require_nvrtc(exc)
    missing = {n: rows[n] for n in specs if f".entry {n}(" not in ptx}
    assert not missing, f"kernels missing from the PTX (and their rows): {missing}"
