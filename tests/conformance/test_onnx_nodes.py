"""gpuops against the ONNX backend node tests, on every backend (``onnx_cases`` does the work).

* ``test_onnx_node``: one case per ONNX node test per backend, named by the ONNX test; a case
  gpuops does not take is skipped with its reason, a supported case that fails fails.
* ``test_conformance_table``: runs them all on the backend, prints the table (op, cases, passed,
  skipped with reasons, failed; shown in the terminal summary), writes it to
  ``$GPUOPS_CONFORMANCE_OUT/onnx-<backend>.md`` when that is set, and asserts zero failures.
* ``test_listed_ops_are_covered``: every listed op that onnx ships a node test for has a builder
  or an explicit "not supported" reason.

The cupy parameter is gpu-marked (``tests/conftest.py``): skipped without a usable CUDA device.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuops
from conformance.onnx_cases import (
    BUILDERS,
    DIRECTML_DIFFERENCES,
    NOT_SUPPORTED,
    OPS,
    Case,
    Difference,
    Node,
    Unsupported,
    cases_by_op,
    check_case,
    conformance_rows,
    discover,
    elementwise,
    format_table,
    load,
)
from descriptors import DataType

CASES = discover()

#: The ops issue 6 asks for (the n-ary Max/Min/Sum/Mean included).
REQUESTED = (
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "And", "Or", "Xor", "Not", "Equal", "Greater",
    "GreaterOrEqual", "Less", "LessOrEqual", "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Ceil", "Floor",
    "Round", "Sign", "Erf", "IsNaN", "IsInf", "Tanh", "Sigmoid", "HardSigmoid", "HardSwish", "Relu", "LeakyRelu",
    "PRelu", "Elu", "Selu", "Celu", "Softplus", "Softsign", "Mish", "Gelu", "Swish", "Shrink", "ThresholdedRelu",
    "Clip", "Where", "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceL1", "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "BitShift", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "BitwiseNot", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
    "Acosh", "Atanh", "Identity", "Sum", "Mean",
)  # fmt: skip
SKIP_KINDS = (
    "unsupported data type",
    "op not supported by gpuops",
    "outside gpuops' scope",
    "ONNX and DirectML differ",
)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_onnx_node(case: Case, device: gpuops.Device) -> None:
    try:
        check_case(case, device)
    except Unsupported as exc:
        pytest.skip(exc.reason)


def test_conformance_table(device: gpuops.Device, backend: str, conformance_report: dict[str, str]) -> None:
    rows = conformance_rows(device)
    table = format_table(rows, backend)
    print(table)
    conformance_report[backend] = table
    out_dir = os.environ.get("GPUOPS_CONFORMANCE_OUT")
    if out_dir:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        (Path(out_dir) / f"onnx-{backend}.md").write_text(table, encoding="utf-8")
    outcomes = [o for r in rows for o in r.outcomes]
    # Every node test of every listed op lands in exactly one category.
    assert sorted(o.case.name for o in outcomes) == sorted(c.name for c in CASES)
    assert all(len(r.passed) + len(r.skipped) + len(r.failed) == r.cases for r in rows)
    for o in (o for o in outcomes if o.status == "skipped"):
        assert o.detail.startswith(SKIP_KINDS), f"{o.case.name}: skip reason of no allowed kind: {o.detail}"
        assert "fail" not in o.detail.lower(), f"{o.case.name}: a case is never skipped for failing: {o.detail}"
    failed = [f"{o.case.name}: {o.detail}" for o in outcomes if o.status == "failed"]
    assert not failed, "supported ONNX node tests fail:\n" + "\n".join(failed)


def test_listed_ops_are_covered() -> None:
    assert set(REQUESTED) <= set(OPS), f"ops asked for but not in OPS: {sorted(set(REQUESTED) - set(OPS))}"
    shipped = cases_by_op()
    uncovered = [op for op in shipped if op not in BUILDERS and op not in NOT_SUPPORTED]
    assert not uncovered, f"ops with ONNX node tests but neither a builder nor a 'not supported' reason: {uncovered}"
    assert all(reason for reason in NOT_SUPPORTED.values())
    assert set(DIRECTML_DIFFERENCES) <= {c.name for c in CASES}, "a recorded difference names no node test"
    assert all(d.reason.startswith("ONNX and DirectML differ: ") for d in DIRECTML_DIFFERENCES.values())


def test_recorded_difference_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A recorded ONNX/DirectML difference skips only when gpuops gives DirectML's result and not ONNX's."""
    numpy_device = gpuops.Device("numpy")
    clip = next(c for c in CASES if c.name == "test_clip_min_greater_than_max")  # ONNX: every value is max
    x = load(clip).data_sets[0][0][0]
    take_min = Difference("ONNX and DirectML differ: (test) min wins", lambda ins: [np.full_like(x, ins[1])])
    take_max = Difference("ONNX and DirectML differ: (test) max wins", lambda ins: [np.full_like(x, ins[2])])
    monkeypatch.setitem(DIRECTML_DIFFERENCES, clip.name, take_min)
    with pytest.raises(AssertionError, match="DirectML's result"):  # gpuops does not give the claimed result
        check_case(clip, numpy_device)
    monkeypatch.setitem(DIRECTML_DIFFERENCES, clip.name, take_max)
    with pytest.raises(AssertionError, match="gpuops matches ONNX"):  # no difference at all: a stale entry
        check_case(clip, numpy_device)

    def clip1(node: Node, inputs: Sequence[Any], device: gpuops.Device) -> list[Any]:
        """ELEMENT_WISE_CLIP1, whose Min wins when Min > Max (DirectML's formula max(Min, min(x, Max)))."""
        x, lo, hi = inputs
        bounds = {"min": float(lo), "max": float(hi), "min_max_data_type": DataType.FLOAT32}
        return [elementwise(device, "ELEMENT_WISE_CLIP1", [x], x.shape, **bounds)]

    monkeypatch.setitem(BUILDERS, "Clip", clip1)
    monkeypatch.setitem(DIRECTML_DIFFERENCES, clip.name, take_min)
    with pytest.raises(Unsupported, match="min wins"):  # DirectML's result, not ONNX's: skipped with the reason
        check_case(clip, numpy_device)
