"""gpuops under ``python -O`` (issue 34): Python strips ``assert`` statements there, so no check that guards the
library's behaviour may be one. A planner ``assert`` once stood between a fusion cycle and a compiled graph that
ran nothing: under ``-O`` ``execute`` returned with the outputs never written.

Three checks: no ``assert`` statement in library code (ruff's S101 holds the same, pyproject.toml), a fused graph
writes its outputs, and the graph, binding and graph-fuzz tests pass in a ``python -O`` interpreter (NumPy
backend; pytest rewrites the tests' own asserts, which ``-O`` keeps).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import gpuops
from descriptors import DataType, ReduceFunction, TensorDesc

ROOT = Path(__file__).resolve().parents[2]


def test_library_code_has_no_assert() -> None:
    found = []
    for top in ("gpuops", "descriptors"):
        for path in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            found += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    assert not found, f"assert statements in library code (python -O strips them): {found}"


def test_a_fused_graph_writes_its_outputs() -> None:
    """Issue 34's graph (M = x * 2; R = SUM of M over a size-1 axis; P = y + 1; outputs R + P, M + P) on NumPy:
    at least one kernel, and both NaN-filled outputs written with x * 2 + y + 1 (exact in float32). Also run by
    the ``python -O`` test below, where the old planner's stripped assert let it compile to nothing."""
    b = gpuops.GraphBuilder()
    x, y = b.input(TensorDesc(DataType.FLOAT32, (4, 1))), b.input(TensorDesc(DataType.FLOAT32, (4, 1)))
    m = x * 2.0
    r = b.reduce(m, function=ReduceFunction.SUM, axes=(1,))
    p = y + 1.0
    compiled = gpuops.Device("numpy").compile_graph(b.build([r + p, m + p]))
    xs, ys = np.float32([1.5, -2.25, 0.125, 7.0]), np.float32([0.5, 3.0, -1.0, -8.0])
    outs = [np.full(4, np.nan, np.float32), np.full(4, np.nan, np.float32)]
    compiled.execute([xs, ys], outs)
    want = (xs.astype(np.float64) * 2 + (ys.astype(np.float64) + 1)).tolist()
    assert compiled.kernel_count >= 1
    assert [o.tolist() for o in outs] == [want, want]


_RUN_OPTIMIZED = "import sys, pytest\nsys.exit(pytest.main(sys.argv[1:]) if sys.flags.optimize else 99)"


def test_graph_and_binding_tests_pass_under_python_O() -> None:  # noqa: N802 - Python's -O
    """The graph-compile, binding and graph-fuzz tests (200 graphs) and the check above in a ``python -O``
    interpreter, on NumPy (the hypothesis and NVRTC graph tests stay out: their time is spent outside gpuops'
    checks). Exit status 99: the interpreter did not run optimized."""
    env = dict(os.environ, GPUOPS_GRAPH_FUZZ_GRAPHS="200")
    args = [
        "-q", "-p", "no:cacheprovider", "-x",
        "-m", "not gpu and not cuda and not nvrtc",
        "-k", "not random_graphs_match_node_by_node and not fused_kernels_compile_with_nvrtc",
        "tests/graphs/test_graph_compile.py", "tests/backends/test_binding.py", "tests/slow/test_graph_fuzz.py",
        "tests/slow/test_optimized_mode.py::test_a_fused_graph_writes_its_outputs",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-O", "-c", _RUN_OPTIMIZED, *args], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
