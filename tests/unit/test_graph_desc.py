"""DML_GRAPH_DESC as data (descriptors/graph.py): every rule DirectML states, one test each.

The rules come from DirectML's DML_GRAPH_DESC and CompileGraph pages (docs/reference/directml.md,
sections 8 and 13); each refusal must name the edge or node and the field.
"""

from __future__ import annotations

import numpy as np
import pytest

from descriptors import (
    ActivationReluOperatorDesc,
    DataType,
    DescriptorError,
    ElementWiseAddOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    TensorDesc,
    TensorFlags,
)
from descriptors.graph import (
    ConstantNode,
    GraphDesc,
    InputEdge,
    IntermediateEdge,
    OperatorNode,
    OutputEdge,
    Source,
    validate_graph,
)

F32 = DataType.FLOAT32
T = TensorDesc(F32, (2, 3))


def add(a: TensorDesc = T, b: TensorDesc = T, out: TensorDesc = T) -> OperatorNode:
    return OperatorNode(ElementWiseAddOperatorDesc(a, b, out), "add")


def relu(x: TensorDesc = T, out: TensorDesc = T) -> OperatorNode:
    return OperatorNode(ActivationReluOperatorDesc(x, out), "relu")


def chain(**changes: object) -> GraphDesc:
    """relu(x + b) * x: three nodes, two graph inputs (x feeds two nodes), one output."""
    parts: dict[str, object] = {
        "input_count": 2,
        "output_count": 1,
        "nodes": [add(), relu(), OperatorNode(ElementWiseMultiplyOperatorDesc(T, T, T))],
        "input_edges": [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(0, 2, 1)],
        "output_edges": [OutputEdge(2, 0, 0)],
        "intermediate_edges": [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)],
    }
    parts.update(changes)
    return GraphDesc(**parts)  # type: ignore[arg-type]


def refused(field: str, *words: str, **changes: object) -> DescriptorError:
    with pytest.raises(DescriptorError) as info:
        chain(**changes)
    assert info.value.field == field, (info.value.field, str(info.value))
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    return info.value


def test_valid_chain_has_sources_order_and_outputs() -> None:
    g = chain()
    assert g.order == (0, 1, 2)
    assert g.sources == ((Source(None, 0), Source(None, 1)), (Source(0, 0),), (Source(1, 0), Source(None, 0)))
    assert g.outputs == (Source(2, 0),)
    assert g.input_tensors(0) == (T, T) and g.output_tensor(0) == T
    validate_graph(g, "3_0")


def test_order_puts_each_node_after_what_it_reads() -> None:
    # The same graph with its nodes listed backwards: mul, relu, add.
    g = chain(
        nodes=[OperatorNode(ElementWiseMultiplyOperatorDesc(T, T, T)), relu(), add()],
        input_edges=[InputEdge(0, 2, 0), InputEdge(1, 2, 1), InputEdge(0, 0, 1)],
        output_edges=[OutputEdge(0, 0, 0)],
        intermediate_edges=[IntermediateEdge(2, 0, 1, 0), IntermediateEdge(1, 0, 0, 0)],
    )
    assert g.order == (2, 1, 0)


def test_cycle_is_refused() -> None:
    refused(
        "intermediate_edges",
        "cycle",
        nodes=[add(), relu()],
        input_edges=[InputEdge(0, 0, 0)],
        output_edges=[OutputEdge(1, 0, 0)],
        intermediate_edges=[IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 0, 1)],
        input_count=1,
    )


def test_self_loop_is_refused() -> None:
    refused(
        "intermediate_edges",
        "cycle",
        nodes=[add()],
        input_count=1,
        input_edges=[InputEdge(0, 0, 0)],
        output_edges=[OutputEdge(0, 0, 0)],
        intermediate_edges=[IntermediateEdge(0, 0, 0, 1)],
    )


def _inputs(*edges: InputEdge) -> dict:
    return {"input_edges": [InputEdge(0, 0, 0), *edges]}


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        (_inputs(InputEdge(1, 0, 1), InputEdge(0, 7, 1)), "input_edges[2].to_node_index", ["7", "3 nodes"]),
        (_inputs(InputEdge(1, 0, 1), InputEdge(0, 2, 5)), "input_edges[2].to_node_input_index", ["2 inputs", "5"]),
        (_inputs(InputEdge(2, 0, 1), InputEdge(0, 2, 1)), "input_edges[1].graph_input_index", ["input_count is 2"]),
        ({"output_edges": [OutputEdge(2, 0, 1)]}, "output_edges[0].graph_output_index", ["output_count is 1"]),
        ({"output_edges": [OutputEdge(2, 1, 0)]}, "output_edges[0].from_node_output_index", ["1 output ("]),
        (
            {"intermediate_edges": [IntermediateEdge(9, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)]},
            "intermediate_edges[0].from_node_index",
            ["9"],
        ),
    ],
)
def test_indices_out_of_range(changes: dict, field: str, words: list[str]) -> None:
    refused(field, *words, **changes)


def test_node_input_fed_twice() -> None:
    edges = [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(0, 2, 1), InputEdge(1, 1, 0)]
    err = refused("intermediate_edges[0].to_node_input_index", "already fed", "input_edges[3]", input_edges=edges)
    assert "nodes[1] (ACTIVATION_RELU, 'relu')" in str(err)


def test_node_input_unconnected() -> None:
    refused("nodes[2]", "input 1", "connected to no edge", input_edges=[InputEdge(0, 0, 0), InputEdge(1, 0, 1)])


def test_node_output_read_by_nobody() -> None:
    # relu's output feeds nothing: the multiply reads the add instead.
    refused(
        "nodes[1]",
        "output 0",
        "leaves by no edge",
        intermediate_edges=[IntermediateEdge(0, 0, 1, 0), IntermediateEdge(0, 0, 2, 0)],
    )


def test_graph_output_unwritten_and_written_twice() -> None:
    refused("output_edges", "graph output 1", output_count=2)
    refused(
        "output_edges[1].graph_output_index", "already written", output_edges=[OutputEdge(2, 0, 0), OutputEdge(1, 0, 0)]
    )


def test_a_node_output_may_be_read_and_be_a_graph_output() -> None:
    g = chain(output_count=2, output_edges=[OutputEdge(2, 0, 0), OutputEdge(0, 0, 1)])
    assert g.outputs == (Source(2, 0), Source(0, 0))


@pytest.mark.parametrize(
    ("other", "words"),
    [(TensorDesc(DataType.FLOAT16, (2, 3)), ["FLOAT32 vs FLOAT16"]), (TensorDesc(F32, (3, 2)), ["(2, 3) vs (3, 2)"])],
)
def test_intermediate_edge_joins_one_type_and_sizes(other: TensorDesc, words: list[str]) -> None:
    nodes = [add(), relu(other, other), OperatorNode(ElementWiseMultiplyOperatorDesc(T, T, T))]
    refused("intermediate_edges[0]", *words, nodes=nodes)


def test_strides_may_differ_across_an_edge() -> None:
    padded = TensorDesc(F32, (2, 3), strides=(4, 1))
    g = chain(nodes=[add(), relu(padded, T), OperatorNode(ElementWiseMultiplyOperatorDesc(T, T, T))])
    assert g.nodes[1].inputs[0] == padded


def test_one_graph_input_feeds_tensors_that_agree() -> None:
    mul = OperatorNode(ElementWiseMultiplyOperatorDesc(T, TensorDesc(F32, (6,)), T))
    refused("input_edges[2]", "graph input 0", "(2, 3) vs (6,)", nodes=[add(), relu(), mul])
    owned = TensorDesc(F32, (2, 3), flags=TensorFlags.OWNED_BY_DML)
    mul = OperatorNode(ElementWiseMultiplyOperatorDesc(T, owned, T))
    refused("input_edges[2]", "OWNED_BY_DML", nodes=[add(), relu(), mul])


def test_edge_in_the_wrong_list() -> None:
    refused("input_edges[0]", "InputEdge", "OutputEdge", input_edges=[OutputEdge(0, 0, 0)])
    refused("nodes[1]", "OperatorNode or ConstantNode", nodes=[add(), ActivationReluOperatorDesc(T, T)])


def test_empty_graphs() -> None:
    refused("nodes", "at least one node", nodes=[])
    refused("output_count", "at least one output", output_count=0, output_edges=[])


def test_unused_graph_input_is_allowed() -> None:
    g = chain(input_count=3)
    assert g.input_tensors(2) == ()


def test_index_types_and_ranges() -> None:
    with pytest.raises(TypeError, match="non-negative integer"):
        chain(input_count=2.0)
    with pytest.raises(TypeError, match="non-negative integer"):
        chain(output_edges=[OutputEdge(2, 0, True)])
    with pytest.raises(DescriptorError, match="not a UINT") as info:
        chain(input_edges=[InputEdge(-1, 0, 0)])
    assert info.value.field == "input_edges[0].graph_input_index"
    with pytest.raises(DescriptorError, match="of 4001 bits"):
        chain(input_count=2**4000)
    with pytest.raises(TypeError, match="GraphDesc.nodes: expected a list"):
        chain(nodes=add())
    with pytest.raises(TypeError, match="name must be a str"):
        OperatorNode(ElementWiseAddOperatorDesc(T, T, T), name=3)  # type: ignore[arg-type]
    assert chain(input_count=np.uint32(2)).input_count == 2


def _const_graph(data: object) -> GraphDesc:
    """x + constant: the constant read through the add's b tensor."""
    return GraphDesc(
        1,
        1,
        [add(), ConstantNode(data, "bias")],  # type: ignore[arg-type]
        [InputEdge(0, 0, 0)],
        [OutputEdge(0, 0, 0)],
        [IntermediateEdge(1, 0, 0, 1)],
    )


def test_constant_node() -> None:
    g = _const_graph(np.arange(6, dtype=np.float32))
    assert g.nodes[1].data == np.arange(6, dtype=np.float32).tobytes()
    assert g.sources[0] == (Source(None, 0), Source(1, 0))
    validate_graph(g, "6_2")
    with pytest.raises(DescriptorError, match="FL_6_2") as info:
        validate_graph(g, "6_1")
    assert info.value.field == "nodes[1]"


def test_constant_node_size_must_fill_the_tensor() -> None:
    with pytest.raises(DescriptorError, match="holds 20 bytes but feeds a tensor of total_tensor_size_in_bytes 24"):
        _const_graph(b"\0" * 20)
    with pytest.raises(DescriptorError, match="DataSize is 0"):
        ConstantNode(b"")
    with pytest.raises(TypeError, match="bytes or a NumPy array"):
        ConstantNode([1.0, 2.0])  # type: ignore[arg-type]


def test_constant_node_is_not_a_graph_output() -> None:
    with pytest.raises(DescriptorError, match="constant node") as info:
        GraphDesc(
            1,
            2,
            [add(), ConstantNode(b"\0" * 24)],
            [InputEdge(0, 0, 0)],
            [OutputEdge(0, 0, 0), OutputEdge(1, 0, 1)],
            [IntermediateEdge(1, 0, 0, 1)],
        )
    assert info.value.field == "output_edges[1]"


def test_validate_graph_levels_and_node_errors() -> None:
    with pytest.raises(DescriptorError, match="FL_2_1"):
        validate_graph(chain(), "2_0")
    # A node invalid at the level: before FL 3_0 ADD takes 4 or 5 dimensions, not 2; the field names the node.
    g = GraphDesc(2, 1, [add()], [InputEdge(0, 0, 0), InputEdge(1, 0, 1)], [OutputEdge(0, 0, 0)])
    validate_graph(g, "3_0")
    with pytest.raises(DescriptorError) as info:
        validate_graph(g, "2_1")
    assert info.value.field.startswith("nodes[0].") and "nodes[0] (ELEMENT_WISE_ADD, 'add')" in str(info.value)
    with pytest.raises(TypeError):
        validate_graph("graph", "6_4")  # type: ignore[arg-type]


# -- issue 31, item 10: a constant's array is tensor elements of one DataType, and feeds only that DataType


@pytest.mark.parametrize(
    ("array", "dtype_shown"),
    [
        (np.array([1.0, "x", None, 4.0, 5.0, 6.0], dtype=object), "object"),  # its bytes: PyObject* addresses
        (np.array(["abcdef"] * 1), "<U6"),
        (np.array([b"abcdefgh"] * 3), "|S8"),
        (np.zeros(3, "V8"), "|V8"),
        (np.zeros(3, [("re", "<f4"), ("im", "<f4")]), "('re', '<f4')"),
        (np.zeros(3, np.complex64), "complex64"),
        (np.zeros(3, "datetime64[s]"), "datetime64[s]"),
    ],
    ids=["object", "str", "bytes", "void", "structured", "complex", "datetime"],
)
def test_constant_node_refuses_arrays_of_no_data_type(array: np.ndarray, dtype_shown: str) -> None:
    with pytest.raises(DescriptorError, match=r"ConstantNode 'bias'\.data: a NumPy array of dtype ") as info:
        ConstantNode(array, "bias")
    assert dtype_shown in str(info.value) and "holds no tensor elements" in str(info.value)
    assert info.value.field == "data"


def test_a_typed_constant_feeds_only_its_data_type() -> None:
    """Six FLOAT32 elements are 24 bytes, and so are three FLOAT64 ones or six INT32 ones: the size alone let
    those through as float32 bit patterns."""
    g = _const_graph(np.arange(6, dtype=np.float32))
    assert g.nodes[1].data_type is F32  # type: ignore[union-attr]
    with pytest.raises(DescriptorError, match=r"nodes\[1\] \(constant, 'bias'\) holds FLOAT64 data") as info:
        _const_graph(np.arange(3, dtype=np.float64))
    assert "feeds a tensor of data type FLOAT32" in str(info.value) and info.value.field == "nodes[1].data_type"
    with pytest.raises(DescriptorError, match=r"holds INT32 data \(NumPy dtype int32\) but feeds .* FLOAT32"):
        _const_graph(np.zeros(6, np.int32))
    typed = ConstantNode(b"\0" * 24, "bias", data_type=DataType.INT32)
    with pytest.raises(DescriptorError, match=r"holds INT32 data"):
        GraphDesc(1, 1, [add(), typed], [InputEdge(0, 0, 0)], [OutputEdge(0, 0, 0)], [IntermediateEdge(1, 0, 0, 1)])
    with pytest.raises(DescriptorError, match=r"dtype float32 \(FLOAT32\) given with data_type=INT32; they must agree"):
        ConstantNode(np.zeros(6, np.float32), data_type=DataType.INT32)
    assert ConstantNode(b"\0" * 24, data_type="int32").data_type is DataType.INT32  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match=r"ConstantNode 'w'\.data_type: 'float31' is not a data type"):
        ConstantNode(b"\0" * 24, "w", data_type="float31")  # type: ignore[arg-type]
    assert _const_graph(b"\0" * 24).nodes[1].data_type is None  # raw bytes stay untyped, as DirectML's struct


def test_a_big_endian_array_gives_its_values() -> None:
    """The bytes of a constant are read as native (little-endian) elements, so a '>f4' array's values are
    written, not its big-endian bytes."""
    node = ConstantNode(np.array([1.5, -2.0, 0.0, 8.0, 3.25, -0.5], ">f4"))
    assert node.data == np.float32([1.5, -2.0, 0.0, 8.0, 3.25, -0.5]).tobytes() and node.data_type is F32
