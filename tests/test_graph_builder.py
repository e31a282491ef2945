"""``gpuops.GraphBuilder`` (issue 16, item 4): expressions become a ``GraphDesc`` that compiles and runs on every
backend; references are float64 NumPy; errors name the operator and the argument."""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest
from helpers import to_backend, to_host

import gpuops
from descriptors import DataType, GraphDesc, ReduceFunction, TensorDesc
from gpuops import graph_builder

F32 = DataType.FLOAT32


def test_the_module_example_runs() -> None:
    result = doctest.testmod(graph_builder, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0


def test_operators_and_methods(device: gpuops.Device, xp: Any) -> None:
    """y0 = sigmoid((a - b) / 2 + clip(-a, 0, 1)), y1 = SUM over axis 1 of a * a, y2 = a >= b (UINT8)."""
    gb = gpuops.GraphBuilder()
    a = gb.input(TensorDesc(F32, (3, 4)))
    b = gb.input(TensorDesc(F32, (4,)))  # a row, broadcast by a zero stride
    y0 = gb.sigmoid((a - b) / 2 + gb.clip(-a, min=0.0, max=1.0))
    y1 = gb.reduce(a * a, function=ReduceFunction.SUM, axes=(1,))
    y2 = a >= b
    graph = gb.build([y0, y1, y2])
    assert isinstance(graph, GraphDesc) and graph.input_count == 2 and graph.output_count == 3
    assert y1.sizes == (3, 1) and y2.data_type is DataType.UINT8
    compiled = device.compile_graph(graph)
    av = np.linspace(-2, 2, 12, dtype=np.float32)
    bv = np.float32([0.5, -1, 0, 3])
    outs = [to_backend(xp, np.zeros(12, np.float32)), to_backend(xp, np.zeros(3, np.float32)),
            to_backend(xp, np.zeros(12, np.uint8))]  # fmt: skip
    compiled.execute([to_backend(xp, av), to_backend(xp, bv)], outs)
    a64, b64 = av.reshape(3, 4).astype(np.float64), bv.astype(np.float64)
    want0 = 1 / (1 + np.exp(-((a64 - b64) / 2 + np.clip(-a64, 0, 1))))
    np.testing.assert_allclose(to_host(outs[0]).reshape(3, 4), want0, rtol=1e-6)
    np.testing.assert_allclose(to_host(outs[1]), (a64 * a64).sum(axis=1), rtol=1e-6)
    assert to_host(outs[2]).reshape(3, 4).tolist() == (a64 >= b64).astype(np.uint8).tolist()
    # (a - b) / 2 + clip(...) -> sigmoid: one kernel; a * a, then SUM; the comparison joins a's group or not:
    assert compiled.kernel_count <= 4


def test_numbers_become_constants_of_the_operand_type() -> None:
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(DataType.FLOAT16, (5,)))
    y = 1 - x * 0.5
    graph = gb.build([y])
    assert y.data_type is DataType.FLOAT16
    assert sum(1 for n in graph.nodes if type(n).__name__ == "ConstantNode") == 2
    out = np.zeros(6, np.float16)
    gb.compile([y], gpuops.Device("numpy")).execute([np.float16([0, 1, 2, 4, -2, 0])], [out])
    assert out[:5].tolist() == [1.0, 0.5, 0.0, -1.0, 2.0]


def test_errors_name_the_operator() -> None:
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    row = gb.reduce(x, function=ReduceFunction.SUM, axes=(0,))  # sizes (1, 3)
    with pytest.raises(ValueError, match=r"ELEMENT_WISE_ADD: b_tensor is the output of node 0 with sizes \(1, 3\)"):
        x + row
    with pytest.raises(ValueError, match=r"do not broadcast"):
        x + gb.input(TensorDesc(F32, (4,)))
    with pytest.raises(TypeError, match=r"takes 2 tensor inputs"):
        gb.add(x)
    with pytest.raises(AttributeError, match="no operator 'frobnicate'"):
        gb.frobnicate(x)
    with pytest.raises(ValueError, match="a graph output must be a node's output"):
        gb.build([x])
    with pytest.raises(TypeError, match="no truth value"):
        bool(x > 0)


def test_every_operator_has_a_method() -> None:
    from descriptors import ROWS

    assert sorted(r.name for r in graph_builder.OPERATORS.values()) == sorted(r.name for r in ROWS)
    gb = gpuops.GraphBuilder()
    assert "relu" in dir(gb) and "activation_identity" in dir(gb) and "if_" in dir(gb)


def test_the_readme_graph_is_what_build_writes() -> None:
    """The README's "same graph as data" listing, edge for edge."""
    from descriptors.graph import ConstantNode, InputEdge, IntermediateEdge, OutputEdge

    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    bias = gb.input(TensorDesc(F32, (3,)))
    graph = gb.build([gb.relu(x * 0.5 + bias)])
    kinds = [type(n).__name__ if isinstance(n, ConstantNode) else n.desc.row.name for n in graph.nodes]
    assert kinds == ["ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_ADD", "ACTIVATION_RELU", "ConstantNode"]
    assert graph.input_edges == (InputEdge(0, 0, 0), InputEdge(1, 1, 1))
    assert graph.output_edges == (OutputEdge(2, 0, 0),)
    assert graph.intermediate_edges == (IntermediateEdge(3, 0, 0, 1), IntermediateEdge(0, 0, 1, 0),
                                        IntermediateEdge(1, 0, 2, 0))  # fmt: skip
    assert graph.nodes[1].desc.b_tensor.element_strides == (0, 1)  # type: ignore[union-attr]
