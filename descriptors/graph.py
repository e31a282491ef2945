"""``DML_GRAPH_DESC``: operator graphs as data, checked as DirectML states the rules.

A graph has ``input_count`` inputs and ``output_count`` outputs (bound in that order), nodes
(``OperatorNode``, an operator descriptor; ``ConstantNode``, bytes with one output) and three
lists of edges (``DML_INPUT_GRAPH_EDGE_DESC``, ``DML_OUTPUT_GRAPH_EDGE_DESC``,
``DML_INTERMEDIATE_GRAPH_EDGE_DESC``). Node input and output indices count the operator's input
and output tensors in struct order (``OperatorDesc.input_tensors`` / ``output_tensors``).

The rules (DirectML's ``DML_GRAPH_DESC`` and ``IDMLDevice1::CompileGraph`` pages), checked when
the ``GraphDesc`` is built, each failure a ``DescriptorError`` naming the node, the edge and the
field:

- every index is in range, and each edge is in the list of its own type;
- the graph is a directed acyclic graph;
- every present input of every node takes exactly one edge (an absent optional input takes
  none); every output of every node leaves by at least one edge (a value nobody reads is a
  mistake DirectML refuses too);
- every graph output is written by exactly one output edge;
- tensors joined by an edge have the same data type and sizes (strides, and so padding, may
  differ: the graph copies or re-indexes between layouts as needed); the node inputs one graph
  input feeds agree on data type, sizes and the ``OWNED_BY_DML`` flag, and so do a graph output
  and the node output that writes it when two edges share a graph output (refused above);
- a constant node's bytes fill exactly the ``total_tensor_size_in_bytes`` of every input it feeds.
- a typed constant node (``ConstantNode.data_type``: an array's dtype) feeds only tensors of that data type.

A graph input that feeds no node is allowed (DirectML's docs do not forbid it): it is bound and
not read. What depends on a feature level (graphs need FL 2_1, constant nodes FL 6_2, and each
operator its own tables) is checked by :func:`validate_graph`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from .descs import OperatorDesc
from .enums import DataType, FeatureLevel, TensorFlags
from .errors import DescriptorError, count
from .tensor import TensorDesc
from .validate import validate

__all__ = [
    "ConstantNode",
    "GraphDesc",
    "InputEdge",
    "IntermediateEdge",
    "OperatorNode",
    "OutputEdge",
    "Source",
    "validate_graph",
]

_UINT32_MAX = 2**32 - 1
GRAPH_LEVEL = FeatureLevel.FL_2_1  # IDMLDevice1::CompileGraph
CONSTANT_LEVEL = FeatureLevel.FL_6_2  # DML_GRAPH_NODE_TYPE_CONSTANT


def _index(value: object, where: str) -> int:
    """A UINT field: a Python/NumPy integer (not bool) in [0, 2^32)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{where}: expected a non-negative integer (got {type(value).__name__})")
    v = int(value)
    if not 0 <= v <= _UINT32_MAX:
        shown = repr(v) if v.bit_length() < 64 else f"an integer of {v.bit_length()} bits"
        raise DescriptorError(f"{where}: {shown} is not a UINT (0 to 2^32 - 1)", where.removeprefix("GraphDesc."))
    return v


def _what_bytes(dtype: np.dtype) -> str:
    """What the bytes of an array of a dtype no DataType has are, for ConstantNode's message."""
    if dtype.kind == "O":
        return "the addresses of Python objects"
    if dtype.fields is not None:
        return "records of several fields"
    return {"U": "UTF-32 text", "S": "byte strings", "V": "raw void records", "c": "complex pairs"}.get(
        dtype.kind, "values of no DataType"
    )


def _name(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: a name must be a str (got {type(value).__name__})")
    return value


@dataclasses.dataclass(frozen=True)
class OperatorNode:
    """``DML_OPERATOR_GRAPH_NODE_DESC``: an operator (its descriptor) and an optional name."""

    desc: OperatorDesc
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.desc, OperatorDesc):
            raise TypeError(f"OperatorNode.desc: expected an operator descriptor (got {type(self.desc).__name__})")
        _name(self.name, "OperatorNode.name")

    @property
    def inputs(self) -> tuple[TensorDesc | None, ...]:
        return self.desc.input_tensors

    @property
    def outputs(self) -> tuple[TensorDesc, ...]:
        return self.desc.output_tensors


@dataclasses.dataclass(frozen=True)
class ConstantNode:
    """``DML_CONSTANT_DATA_GRAPH_NODE_DESC`` (FL 6_2): bytes with one output, read by each input it
    feeds through that input's ``TensorDesc``. ``data``: ``bytes``-like or a NumPy array (its bytes
    in C order, native byte order), copied.

    ``data_type``: what the bytes hold. An array's is its dtype's (an array of a dtype no ``DataType``
    has, such as object, str, void or a structured dtype, is refused: its bytes are no tensor's
    elements); for raw bytes it is None (untyped, as DirectML's struct) unless given (``DataType.parse``
    reads it: ``DataType.INT32``, ``"int32"``, ``np.int32``). A typed constant
    may feed only tensors of its data type (``GraphDesc`` checks it); ``DescriptorError`` otherwise."""

    data: bytes
    name: str = ""
    data_type: DataType | None = dataclasses.field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        _name(self.name, "ConstantNode.name")
        data = self.data
        label = f"ConstantNode {self.name!r}" if self.name else "ConstantNode"
        given = None if self.data_type is None else DataType.parse(self.data_type, f"{label}.data_type")
        object.__setattr__(self, "data_type", given)
        if isinstance(data, np.ndarray):
            dtype = data.dtype
            if dtype.kind in "biuf" and not dtype.isnative:  # a big-endian array: its values, in native order
                dtype = dtype.newbyteorder("=")
            try:
                held = DataType.from_numpy(dtype)
            except TypeError:
                raise DescriptorError(
                    f"{label}.data: a NumPy array of dtype {data.dtype} holds no tensor elements (its bytes would "
                    f"be {_what_bytes(data.dtype)}); allowed: the dtypes of the DataTypes "
                    f"({', '.join(str(d.numpy_dtype) for d in DataType)})",
                    "data",
                ) from None
            if given is not None and given is not held:
                raise DescriptorError(
                    f"{label}.data: a NumPy array of dtype {data.dtype} ({held.name}) given with "
                    f"data_type={given.name}; they must agree (convert the array: array.astype(...))",
                    "data_type",
                )
            object.__setattr__(self, "data_type", held)
            data = np.ascontiguousarray(data, dtype=dtype).tobytes()
        elif isinstance(data, bytes | bytearray | memoryview):
            data = bytes(data)
        else:
            raise TypeError(f"{label}.data: expected bytes or a NumPy array (got {type(data).__name__})")
        if not data:
            raise DescriptorError(f"{label}.data: DataSize is 0; a constant node holds at least one byte", "data")
        object.__setattr__(self, "data", data)

    @property
    def inputs(self) -> tuple[TensorDesc | None, ...]:
        return ()

    @property
    def outputs(self) -> tuple[None]:
        return (None,)  # typed by the inputs it feeds


@dataclasses.dataclass(frozen=True)
class InputEdge:
    """``DML_INPUT_GRAPH_EDGE_DESC``: graph input ``graph_input_index`` feeds input
    ``to_node_input_index`` of node ``to_node_index``."""

    graph_input_index: int
    to_node_index: int
    to_node_input_index: int
    name: str = ""


@dataclasses.dataclass(frozen=True)
class OutputEdge:
    """``DML_OUTPUT_GRAPH_EDGE_DESC``: output ``from_node_output_index`` of node ``from_node_index``
    is graph output ``graph_output_index``."""

    from_node_index: int
    from_node_output_index: int
    graph_output_index: int
    name: str = ""


@dataclasses.dataclass(frozen=True)
class IntermediateEdge:
    """``DML_INTERMEDIATE_GRAPH_EDGE_DESC``: a node output feeds another node's input."""

    from_node_index: int
    from_node_output_index: int
    to_node_index: int
    to_node_input_index: int
    name: str = ""


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a node input reads from: graph input ``index`` (``node is None``) or output ``index``
    of node ``node``."""

    node: int | None
    index: int


_EDGE_FIELDS = {
    InputEdge: ("graph_input_index", "to_node_index", "to_node_input_index"),
    OutputEdge: ("from_node_index", "from_node_output_index", "graph_output_index"),
    IntermediateEdge: ("from_node_index", "from_node_output_index", "to_node_index", "to_node_input_index"),
}


def _same_tensor(a: TensorDesc, b: TensorDesc, broadcast: bool = False) -> str | None:
    """Why two tensors joined by an edge disagree (None if they agree): data type and sizes (``broadcast``: the
    reader's sizes may widen the writer's dimensions of size 1)."""
    if a.data_type != b.data_type:
        return f"data type {a.data_type.name} vs {b.data_type.name}"
    if broadcast and len(a.sizes) == len(b.sizes) and all(x in (1, y) for x, y in zip(a.sizes, b.sizes, strict=True)):
        return None
    if tuple(a.sizes) != tuple(b.sizes):
        return f"sizes {tuple(a.sizes)} vs {tuple(b.sizes)}"
    return None


def _node_label(nodes: Sequence[Any], i: int) -> str:
    node = nodes[i]
    kind = "constant" if isinstance(node, ConstantNode) else node.desc.operator_type.name
    return f"nodes[{i}] ({kind}{', ' + repr(node.name) if node.name else ''})"


@dataclasses.dataclass(frozen=True)
class GraphDesc:
    """``DML_GRAPH_DESC``. Checked when built (module docstring); ``sources[i][k]`` is where input
    ``k`` of node ``i`` reads from (None for an absent optional input), ``order`` the nodes in a
    topological order (each after every node it reads), ``outputs[g]`` the node output that is
    graph output ``g``. ``broadcast_edges`` (not DirectML's; the plans of composite operators,
    ``descriptors.composite``, set it): an intermediate edge may widen its writer's dimensions of size 1, which
    the reader then reads with stride 0."""

    input_count: int
    output_count: int
    nodes: tuple[OperatorNode | ConstantNode, ...]
    input_edges: tuple[InputEdge, ...] = ()
    output_edges: tuple[OutputEdge, ...] = ()
    intermediate_edges: tuple[IntermediateEdge, ...] = ()
    broadcast_edges: bool = dataclasses.field(default=False, kw_only=True)
    sources: tuple[tuple[Source | None, ...], ...] = dataclasses.field(init=False, repr=False, compare=False)
    order: tuple[int, ...] = dataclasses.field(init=False, repr=False, compare=False)
    outputs: tuple[Source, ...] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "input_count", _index(self.input_count, "GraphDesc.input_count"))
        set_(self, "output_count", _index(self.output_count, "GraphDesc.output_count"))
        for field, kind in (
            ("nodes", (OperatorNode, ConstantNode)),
            ("input_edges", (InputEdge,)),
            ("output_edges", (OutputEdge,)),
            ("intermediate_edges", (IntermediateEdge,)),
        ):
            value = getattr(self, field)
            if isinstance(value, str | bytes) or not isinstance(value, Sequence):
                raise TypeError(f"GraphDesc.{field}: expected a list or tuple (got {type(value).__name__})")
            items = tuple(value)
            for i, item in enumerate(items):
                if not isinstance(item, kind):
                    allowed = " or ".join(k.__name__ for k in kind)
                    raise DescriptorError(
                        f"GraphDesc.{field}[{i}]: expected {allowed} (got {type(item).__name__}); "
                        "each edge goes in the list of its type",
                        f"{field}[{i}]",
                    )
                if kind != (OperatorNode, ConstantNode):
                    for f in _EDGE_FIELDS[type(item)]:
                        _index(getattr(item, f), f"GraphDesc.{field}[{i}].{f}")
                    _name(item.name, f"GraphDesc.{field}[{i}].name")
            set_(self, field, items)
        if not self.nodes:
            raise DescriptorError("GraphDesc.nodes: a graph has at least one node", "nodes")
        if self.output_count == 0:
            raise DescriptorError("GraphDesc.output_count: a graph has at least one output", "output_count")
        self._connect()

    # -- the checks ---------------------------------------------------------------------------------

    def _node(self, i: int, where: str) -> OperatorNode | ConstantNode:
        if i >= len(self.nodes):
            raise DescriptorError(
                f"GraphDesc.{where}: node index {i} is out of range (the graph has {count(len(self.nodes), 'node')})",
                where,
            )
        return self.nodes[i]

    def _connect(self) -> None:
        nodes = self.nodes
        sources: list[list[Source | None]] = [[None] * len(n.inputs) for n in nodes]
        fed_by: dict[tuple[int, int], str] = {}
        readers: dict[tuple[int, int], list[TensorDesc]] = {}  # node output -> the inputs it feeds
        graph_input_tensor: dict[int, tuple[TensorDesc, str]] = {}

        def take_input(edge_where: str, to: int, slot: int, source: Source) -> TensorDesc:
            node = self._node(to, f"{edge_where}.to_node_index")
            if slot >= len(node.inputs):
                raise DescriptorError(
                    f"GraphDesc.{edge_where}.to_node_input_index: {_node_label(nodes, to)} has "
                    f"{count(len(node.inputs), 'input')} (got index {slot})",
                    f"{edge_where}.to_node_input_index",
                )
            tensor = node.inputs[slot]
            if tensor is None:
                raise DescriptorError(
                    f"GraphDesc.{edge_where}: input {slot} of {_node_label(nodes, to)} is an absent optional "
                    "tensor (None in its descriptor); an edge cannot feed it",
                    f"{edge_where}.to_node_input_index",
                )
            if (to, slot) in fed_by:
                raise DescriptorError(
                    f"GraphDesc.{edge_where}: input {slot} of {_node_label(nodes, to)} is already fed by "
                    f"{fed_by[(to, slot)]}; a node input takes exactly one edge",
                    f"{edge_where}.to_node_input_index",
                )
            fed_by[(to, slot)] = edge_where
            sources[to][slot] = source
            return tensor

        def output_of(edge_where: str, frm: int, slot: int) -> None:
            node = self._node(frm, f"{edge_where}.from_node_index")
            if slot >= len(node.outputs):
                raise DescriptorError(
                    f"GraphDesc.{edge_where}.from_node_output_index: {_node_label(nodes, frm)} has "
                    f"{count(len(node.outputs), 'output')} (got index {slot})",
                    f"{edge_where}.from_node_output_index",
                )

        for i, e in enumerate(self.input_edges):
            where = f"input_edges[{i}]"
            if e.graph_input_index >= self.input_count:
                raise DescriptorError(
                    f"GraphDesc.{where}.graph_input_index: {e.graph_input_index} is out of range "
                    f"(input_count is {self.input_count})",
                    f"{where}.graph_input_index",
                )
            tensor = take_input(where, e.to_node_index, e.to_node_input_index, Source(None, e.graph_input_index))
            first = graph_input_tensor.setdefault(e.graph_input_index, (tensor, where))
            why = _same_tensor(first[0], tensor)
            if why is None and (first[0].flags & TensorFlags.OWNED_BY_DML) != (tensor.flags & TensorFlags.OWNED_BY_DML):
                why = "OWNED_BY_DML flag differs"
            if why:
                raise DescriptorError(
                    f"GraphDesc.{where}: graph input {e.graph_input_index} feeds tensors that disagree ({why}; "
                    f"see {first[1]}); the node inputs one graph input feeds must share its data type, sizes and flags",
                    where,
                )
        for i, m in enumerate(self.intermediate_edges):
            where = f"intermediate_edges[{i}]"
            output_of(where, m.from_node_index, m.from_node_output_index)
            tensor = take_input(
                where, m.to_node_index, m.to_node_input_index, Source(m.from_node_index, m.from_node_output_index)
            )
            readers.setdefault((m.from_node_index, m.from_node_output_index), []).append(tensor)
            produced = nodes[m.from_node_index].outputs[m.from_node_output_index]
            why = None if produced is None else _same_tensor(produced, tensor, self.broadcast_edges)
            if why:
                raise DescriptorError(
                    f"GraphDesc.{where}: output {m.from_node_output_index} of {_node_label(nodes, m.from_node_index)} "
                    f"and input {m.to_node_input_index} of {_node_label(nodes, m.to_node_index)} disagree ({why}); "
                    "an edge joins tensors of one data type and sizes (strides may differ)",
                    where,
                )
        outputs: list[Source | None] = [None] * self.output_count
        for i, o in enumerate(self.output_edges):
            where = f"output_edges[{i}]"
            output_of(where, o.from_node_index, o.from_node_output_index)
            if isinstance(nodes[o.from_node_index], ConstantNode):
                raise DescriptorError(
                    f"GraphDesc.{where}: {_node_label(nodes, o.from_node_index)} is a constant node; its bytes "
                    "have no tensor description of their own to be a graph output (feed them through an operator)",
                    where,
                )
            g = o.graph_output_index
            if g >= self.output_count:
                raise DescriptorError(
                    f"GraphDesc.{where}.graph_output_index: {g} is out of range (output_count is {self.output_count})",
                    f"{where}.graph_output_index",
                )
            if outputs[g] is not None:
                raise DescriptorError(
                    f"GraphDesc.{where}: graph output {g} is already written by another output edge; "
                    "every graph output is written exactly once",
                    f"{where}.graph_output_index",
                )
            outputs[g] = Source(o.from_node_index, o.from_node_output_index)
            readers.setdefault((o.from_node_index, o.from_node_output_index), [])
        for g, src in enumerate(outputs):
            if src is None:
                raise DescriptorError(
                    f"GraphDesc.output_edges: no output edge writes graph output {g}; every graph output is "
                    "written exactly once",
                    "output_edges",
                )
        for i, node in enumerate(nodes):
            for k, node_input in enumerate(node.inputs):
                if node_input is not None and sources[i][k] is None:
                    raise DescriptorError(
                        f"GraphDesc: input {k} of {_node_label(nodes, i)} is connected to no edge; every input "
                        "of every node takes exactly one edge",
                        f"nodes[{i}]",
                    )
            for k in range(len(node.outputs)):
                if (i, k) not in readers:
                    raise DescriptorError(
                        f"GraphDesc: output {k} of {_node_label(nodes, i)} leaves by no edge; every node output "
                        "is read by a node or is a graph output",
                        f"nodes[{i}]",
                    )
            if isinstance(node, ConstantNode):
                for tensor in readers[(i, 0)]:
                    if node.data_type is not None and tensor.data_type is not node.data_type:
                        raise DescriptorError(
                            f"GraphDesc: {_node_label(nodes, i)} holds {node.data_type.name} data (NumPy dtype "
                            f"{node.data_type.numpy_dtype}) but feeds a tensor of data type {tensor.data_type.name}; "
                            "a typed constant feeds only tensors of its data type",
                            f"nodes[{i}].data_type",
                        )
                    if tensor.total_tensor_size_in_bytes != len(node.data):
                        raise DescriptorError(
                            f"GraphDesc: {_node_label(nodes, i)} holds {count(len(node.data), 'byte')} but feeds a "
                            f"tensor of total_tensor_size_in_bytes {tensor.total_tensor_size_in_bytes}",
                            f"nodes[{i}].data",
                        )
        object.__setattr__(self, "sources", tuple(tuple(s) for s in sources))
        object.__setattr__(self, "outputs", tuple(outputs))
        object.__setattr__(self, "order", self._topological_order())

    def _topological_order(self) -> tuple[int, ...]:
        """Kahn's algorithm over the intermediate edges, lowest index first; a cycle is refused."""
        n = len(self.nodes)
        waiting = [sum(1 for s in srcs if s is not None and s.node is not None) for srcs in self.sources]
        consumers: list[list[int]] = [[] for _ in range(n)]
        for i, srcs in enumerate(self.sources):
            for s in srcs:
                if s is not None and s.node is not None:
                    consumers[s.node].append(i)
        ready = sorted(i for i in range(n) if waiting[i] == 0)
        order: list[int] = []
        while ready:
            i = ready.pop(0)
            order.append(i)
            for j in consumers[i]:
                waiting[j] -= 1
                if waiting[j] == 0:
                    ready.append(j)
            ready.sort()
        if len(order) < n:
            cycle = sorted(set(range(n)) - set(order))
            raise DescriptorError(
                f"GraphDesc.intermediate_edges: nodes {cycle} form a cycle (or depend on one); a graph is a "
                "directed acyclic graph",
                "intermediate_edges",
            )
        return tuple(order)

    # -- views --------------------------------------------------------------------------------------

    def input_tensors(self, graph_input_index: int) -> tuple[TensorDesc, ...]:
        """The ``TensorDesc`` of each node input graph input ``graph_input_index`` feeds, in edge order
        (one data type and sizes; strides may differ); empty when it feeds nothing."""
        return tuple(
            t
            for e in self.input_edges
            if e.graph_input_index == graph_input_index
            for t in (self.nodes[e.to_node_index].inputs[e.to_node_input_index],)
            if t is not None
        )

    def output_tensor(self, graph_output_index: int) -> TensorDesc:
        """The ``TensorDesc`` of graph output ``graph_output_index`` (its node output's)."""
        src = self.outputs[graph_output_index]
        tensor = self.nodes[src.node].outputs[src.index]  # type: ignore[index]
        if tensor is None:  # GraphDesc refuses a constant node as a graph output
            raise DescriptorError(f"GraphDesc: graph output {graph_output_index} has no tensor", "output_edges")
        return tensor


def validate_graph(graph: GraphDesc, feature_level: FeatureLevel | str, *, extensions: bool = True) -> None:
    """What depends on the level: ``CompileGraph`` needs FL 2_1, constant nodes FL 6_2, and each
    operator node its own tables (``validate``; errors name the node)."""
    if not isinstance(graph, GraphDesc):
        raise TypeError(f"validate_graph: expected a GraphDesc (got {type(graph).__name__})")
    level = FeatureLevel.parse(feature_level, "validate_graph")
    if level < GRAPH_LEVEL:
        raise DescriptorError(
            f"GraphDesc: operator graphs (IDMLDevice1::CompileGraph) need FL_2_1 or later (the device is at "
            f"{level.name})",
            "",
        )
    for i, node in enumerate(graph.nodes):
        if isinstance(node, ConstantNode):
            if level < CONSTANT_LEVEL:
                raise DescriptorError(
                    f"GraphDesc: {_node_label(graph.nodes, i)}: constant nodes (DML_GRAPH_NODE_TYPE_CONSTANT) need "
                    f"FL_6_2 or later (the device is at {level.name})",
                    f"nodes[{i}]",
                )
            continue
        try:
            validate(node.desc, level, extensions=extensions)
        except DescriptorError as exc:
            field = f"nodes[{i}].{exc.field}" if exc.field else f"nodes[{i}]"
            raise DescriptorError(f"GraphDesc: {_node_label(graph.nodes, i)}: {exc}", field) from None
