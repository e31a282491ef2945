"""One row plus one OpInfo record is enough (issue 15, "done when"): a throwaway unary and binary operator,
written in a temporary module the repository does not know, get a descriptor class, capability tables,
validation, kernels on every backend and the whole generated suite, with nothing else added.

The module is named by ``GPUOPS_OP_MODULES`` (``descriptors.optable``) in a child pytest run over the
generated suites; the test reads that run's JUnit report and asserts each operator ran every layout of its
family on the NumPy backend and on the CuPy code path (a GPU, or the CUDA emulator), and passed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What an out-of-tree author writes: rows from the schema's parts, references from the formulas (float64).
THROWAWAY_MODULE = '''
"""Two operators gpuops does not have: x**3 (unary, ScaleBias) and |a - b| (binary)."""
import numpy as np

from descriptors.enums import DataType, FeatureLevel
from descriptors.ops.binary import BINARY_FIELDS
from descriptors.ops.unary import UNARY_SB_FIELDS
from descriptors.schema import Domain, ElementwiseRow, Exprs, Family, Tier, types


def _cube(x, out):
    np.multiply(x, x, out=out)
    np.multiply(out, x, out=out)


def _abs_diff(x, y, out):
    np.subtract(x, y, out=out)
    np.abs(out, out=out)


_F = types("F32 F16")
ROWS = (
    ElementwiseRow(
        name="ELEMENT_WISE_THROWAWAY_CUBE",
        struct="DML_ELEMENT_WISE_THROWAWAY_CUBE_OPERATOR_DESC",
        fields=UNARY_SB_FIELDS,
        family=Family.UNARY,
        domain=Domain.ARITH,
        exprs=Exprs(cuda={"float": "x * x * x"}, numpy={"float": _cube}),
        tiers=(Tier(FeatureLevel.FL_1_0, (1, 8), {"input_tensor": _F, "output_tensor": _F},
                    (("input_tensor", "output_tensor"),), "a test's throwaway row"),),
        summary="x * x * x",
        in_place=True,
        extension=True,
    ),
    ElementwiseRow(
        name="ELEMENT_WISE_THROWAWAY_ABS_DIFF",
        struct="DML_ELEMENT_WISE_THROWAWAY_ABS_DIFF_OPERATOR_DESC",
        fields=BINARY_FIELDS[:3],
        family=Family.BINARY,
        domain=Domain.ARITH,
        exprs=Exprs(cuda={"float": "(x > y ? x - y : y - x)"}, numpy={"float": _abs_diff}),
        tiers=(Tier(FeatureLevel.FL_1_0, (1, 8), {"a_tensor": _F, "b_tensor": _F, "output_tensor": _F},
                    (("a_tensor", "b_tensor", "output_tensor"),), "a test's throwaway row"),),
        summary="|a - b|",
        in_place=True,
        extension=True,
    ),
)


def _cube_reference(inputs, out_dtype, params, scale_bias):
    x = inputs[0].astype(np.float32)
    if scale_bias is not None:
        x = x * np.float32(scale_bias[0]) + np.float32(scale_bias[1])
    x = x.astype(np.float64)
    return x * x * x


def _abs_diff_reference(inputs, out_dtype, params, scale_bias):
    a, b = inputs
    return np.abs(a.astype(np.float64) - b.astype(np.float64))


OPINFOS = (
    {"name": "ELEMENT_WISE_THROWAWAY_CUBE", "reference": _cube_reference, "tolerance": (4.0, 0.0),
     "edges": (([[2.0, -0.0, float("inf")]], {}, [8.0, -0.0, float("inf")], True,
                {"input_tensor": DataType.FLOAT32, "output_tensor": DataType.FLOAT32}),)},
    {"name": "ELEMENT_WISE_THROWAWAY_ABS_DIFF", "reference": _abs_diff_reference,
     "edges": (([[1.0, -float("inf"), float("nan")], [3.0, 0.0, 1.0]], {}, [2.0, float("inf"), float("nan")], True,
                {"a_tensor": DataType.FLOAT32, "b_tensor": DataType.FLOAT32, "output_tensor": DataType.FLOAT32}),)},
)
'''


def _run_suites(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "throwaway_ops.py").write_text(THROWAWAY_MODULE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["GPUOPS_OP_MODULES"] = "throwaway_ops"
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), env.get("PYTHONPATH", "")])
    suites = ["tests/ops/test_ops_generated.py", "tests/ops/test_nary_generated.py", "tests/unit/test_completeness.py"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *suites,
         "-k", "THROWAWAY or every_row or every_nary_row or covers_every_row or operator_type_members",
         f"--junitxml={tmp_path / 'report.xml'}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def test_one_row_and_one_record_are_enough(tmp_path: Path) -> None:
    done = _run_suites(tmp_path)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    cases = ET.parse(tmp_path / "report.xml").getroot().iter("testcase")
    passed: list[str] = []
    for case in cases:
        outcome = [c.tag for c in case]
        assert not ({"failure", "error", "skipped"} & set(outcome)), (case.get("name"), outcome)
        passed.append(f"{case.get('classname')}::{case.get('name')}")
    for op in ("THROWAWAY_CUBE", "THROWAWAY_ABS_DIFF"):
        mine = [p for p in passed if op in p]
        for backend in ("numpy", "emulator" if "emulator" in " ".join(passed) else "cupy"):
            ran = [p for p in mine if f"-{backend}]" in p or f"[{backend}-" in p or f"-{backend}-" in p]
            assert any("test_matches_reference" in p for p in ran), (op, backend, mine[:5])
            assert any("test_edge_values" in p for p in ran), (op, backend)
            assert any("in_place" in p for p in ran), (op, backend)
    cube = [p for p in passed if "THROWAWAY_CUBE" in p and "test_matches_reference" in p]
    layouts = {"packed1d", "packed3d", "padded", "permuted", "bcast"}
    assert all(any(lay in p for p in cube) for lay in layouts), cube
    assert any("THROWAWAY_CUBE" in p and "test_scale_bias" in p for p in passed)
    # The completeness checks ran with the throwaway rows in the table, and passed.
    assert any("test_every_row_has_a_reference_and_back" in p for p in passed)


def test_a_bad_operator_module_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad_ops.py").write_text("ROWS = ['not a row']\n", encoding="utf-8")
    env = {**os.environ, "GPUOPS_OP_MODULES": "bad_ops, missing_ops_module"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    done = subprocess.run(
        [sys.executable, "-c", "import descriptors"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "GPUOPS_OP_MODULES: bad_ops.ROWS must be a tuple of ElementwiseRow (got list)" in done.stderr
    env["GPUOPS_OP_MODULES"] = "missing_ops_module"
    done = subprocess.run(
        [sys.executable, "-c", "import descriptors"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert "GPUOPS_OP_MODULES: cannot import operator module 'missing_ops_module'" in done.stderr
