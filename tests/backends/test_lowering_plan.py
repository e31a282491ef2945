"""The compute plan is worked out once per lowering, and backends build by the lowering's row kind (issue 32).

``descriptors.compute.compute_plan`` is counted wherever gpuops or descriptors imported it while operators and graphs
compile on ``Device("numpy")`` and ``Device("emulator")`` (every kernel built anew: the kernel cache starts empty):
one call per lowered element-wise or reduction node, none for a scan (its kernel has no compute plan). Then each
backend's ``compile`` is shown to call the builder its table holds for the lowering's ``RowKind``, and nothing else.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import (
    ActivationReluOperatorDesc,
    CumulativeSummationOperatorDesc,
    DataType,
    ElementWiseAdd1OperatorDesc,
    ElementWiseAddOperatorDesc,
    ElementWiseIdentityOperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    ScaleBias,
    TensorDesc,
)
from descriptors import compute as compute_module
from gpuops import kernels
from gpuops.backends import numba_loops
from gpuops.backends.cpu import policy as cpu_policy
from gpuops.emulator import build as eb

F32, F16 = DataType.FLOAT32, DataType.FLOAT16
T = TensorDesc(F32, (4, 5))
# Past the numba tier's threshold, so that the compiled tier's loop specs are asked for too (numba installed).
COLUMNS = cpu_policy.POLICY.numba_min_elements // 2 + 19
BIG = TensorDesc(F16, (2, COLUMNS))


def _emulator_missing() -> str | None:
    try:
        eb.compiler()
    except eb.CompilerUnavailable as exc:
        return f"no C++ compiler for the CUDA emulator: {exc}"
    return None


_NO_EMULATOR = _emulator_missing()
_NEEDS_EMULATOR = pytest.mark.skipif(_NO_EMULATOR is not None, reason=str(_NO_EMULATOR))
BACKENDS = ["numpy", pytest.param("emulator", marks=_NEEDS_EMULATOR)]


@pytest.fixture
def plan_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The row names ``compute_plan`` is called with from now on (every module's reference to it counts); the
    process's kernel cache is empty meanwhile, so every kernel is built."""
    calls: list[str] = []
    original = compute_module.compute_plan

    def counting(row: Any, dtypes: Any, has_scale_bias: bool = False) -> Any:
        calls.append(row.name)
        return original(row, dtypes, has_scale_bias)

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("gpuops", "descriptors") and getattr(module, "compute_plan", None) is original:
            monkeypatch.setattr(module, "compute_plan", counting)
    monkeypatch.setattr(kernels, "_cache", {})
    return calls


OPERATORS = {
    "add": (ElementWiseAddOperatorDesc(T, T, T), ["ELEMENT_WISE_ADD"]),
    "add float16, numba-sized": (ElementWiseAddOperatorDesc(BIG, BIG, BIG), ["ELEMENT_WISE_ADD"]),
    "identity with ScaleBias": (
        ElementWiseIdentityOperatorDesc(T, T, scale_bias=ScaleBias(2.0, -1.0)),
        ["ELEMENT_WISE_IDENTITY"],
    ),
    # the fused activation's expression is the float class's always: no plan of its own
    "add1 with fused relu": (
        ElementWiseAdd1OperatorDesc(T, T, T, fused_activation=ActivationReluOperatorDesc(None, None)),
        ["ELEMENT_WISE_ADD1"],
    ),
    "reduce": (ReduceOperatorDesc(ReduceFunction.SUM, T, TensorDesc(F32, (4, 1)), axes=(1,)), ["REDUCE"]),
    "sum_square over every axis": (
        ReduceOperatorDesc(ReduceFunction.SUM_SQUARE, T, TensorDesc(F32, (1, 1)), axes=(0, 1)),
        ["REDUCE"],
    ),
    "cumulative summation": (CumulativeSummationOperatorDesc(T, T, axis=1), []),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(OPERATORS))
def test_one_plan_per_operator(backend: str, case: str, plan_calls: list[str]) -> None:
    desc, expected = OPERATORS[case]
    device = gpuops.Device(backend)
    op = device.compile_operator(device.create_operator(desc))
    assert op.kernel_source  # the CUDA source, shown on every backend, comes from the same plan
    assert plan_calls == expected, plan_calls
    if case == "add float16, numba-sized" and backend == "numpy" and numba_loops.available():
        assert op.launch_path == "numba"  # the compiled tier's loop was made from the lowering's plan too


def _graph_fused(b: gpuops.GraphBuilder) -> list[Any]:
    x = b.input(TensorDesc(F32, (2, COLUMNS)))  # numba-sized: the fused loop is made on the CPU
    bias = b.input(TensorDesc(F32, (COLUMNS,)))
    return [b.relu(x * 0.5 + bias)]  # MULTIPLY, ADD, RELU: one fused group


def _graph_fused_reduce(b: gpuops.GraphBuilder) -> list[Any]:
    x = b.input(TensorDesc(F32, (2, COLUMNS)))
    s = b.reduce(x * 2.0 + 1.0, function=ReduceFunction.SUM_SQUARE, axes=(1,))  # a prologue of two nodes
    return [b.sqrt(s) * 3.0]  # an epilogue of two nodes


GRAPHS: dict[str, tuple[Callable[[gpuops.GraphBuilder], list[Any]], list[str]]] = {
    "fused group": (_graph_fused, ["ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_ADD", "ACTIVATION_RELU"]),
    "fused reduction": (
        _graph_fused_reduce,
        ["ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_ADD", "REDUCE", "ELEMENT_WISE_SQRT", "ELEMENT_WISE_MULTIPLY"],
    ),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(GRAPHS))
def test_one_plan_per_graph_node(backend: str, case: str, plan_calls: list[str]) -> None:
    build, expected = GRAPHS[case]
    b = gpuops.GraphBuilder()
    graph = b.build(build(b))
    plan_calls.clear()  # building validates nodes; what compiling costs is counted
    compiled = gpuops.Device(backend).compile_graph(graph)
    assert compiled.kernel_count >= 1
    assert sorted(plan_calls) == sorted(expected), plan_calls


def _lowerings() -> dict[Any, Any]:
    from gpuops.lowering import RowKind, lower

    return {
        RowKind.ELEMENTWISE: lower(OPERATORS["add"][0]),
        RowKind.REDUCTION: lower(OPERATORS["reduce"][0]),
        RowKind.SCAN: lower(OPERATORS["cumulative summation"][0]),
    }


class _Built:
    launch_path = "stub"  # what EmulatorBackend's counting wrapper reads of a built kernel


def _stub_table(calls: list[tuple[Any, Any]]) -> dict[Any, Callable[..., Any]]:
    from gpuops.lowering import RowKind

    def builder(kind: RowKind) -> Callable[..., Any]:
        def build(backend: Any, lowering: Any) -> _Built:
            calls.append((kind, lowering))
            return _Built()

        return build

    return {kind: builder(kind) for kind in RowKind}


def _backends() -> list[Any]:
    from gpuops.backends.cpu.backend import NumpyBackend
    from gpuops.backends.cupy_backend import CupyBackend

    made = [NumpyBackend(), CupyBackend(np)]  # CupyBackend over NumPy: compile dispatches, nothing launches
    if _NO_EMULATOR is None:
        from gpuops.emulator.backend import EmulatorBackend

        made.append(EmulatorBackend())
    return made


@pytest.mark.parametrize("backend", _backends(), ids=lambda b: type(b).__name__)
def test_compile_dispatches_by_row_kind(backend: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuops.lowering import RowKind

    assert set(type(backend).COMPILE) == set(RowKind)  # a builder for every kind, and only those
    calls: list[tuple[Any, Any]] = []
    monkeypatch.setattr(type(backend), "COMPILE", _stub_table(calls))
    for kind, lowering in _lowerings().items():
        assert lowering.kind is kind
        calls.clear()
        backend.compile(lowering)
        assert calls == [(kind, lowering)]


def test_lowering_kinds_and_plan() -> None:
    """Each row class lowers to its kind; the plan is the descriptor rule's (``compute_plan``), read once."""
    from gpuops.lowering import ElementwiseLowering, ReductionLowering, RowKind, ScanLowering

    lows = _lowerings()
    assert isinstance(lows[RowKind.ELEMENTWISE], ElementwiseLowering)
    assert isinstance(lows[RowKind.REDUCTION], ReductionLowering)
    assert isinstance(lows[RowKind.SCAN], ScanLowering)
    add = lows[RowKind.ELEMENTWISE]
    assert add.plan == compute_module.compute_plan(add.row, add.dtypes)
    assert add.plan is add.plan and add.impl.plan is add.plan
    # float32 ADD: the row's float CUDA expression, its NumPy callable for every class ("any"), one ufunc
    assert add.impl.cuda == add.row.exprs.cuda["float"] != add.row.exprs.cuda["int"]
    assert add.impl.single_ufunc and add.impl.numpy is add.row.exprs.numpy["any"]
    for kind in (RowKind.REDUCTION, RowKind.SCAN):
        with pytest.raises(TypeError, match="is not element-wise"):
            lows[kind].impl  # noqa: B018 - the property raises
