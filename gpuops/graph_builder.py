"""``GraphBuilder``: operator graphs written as expressions (DirectMLX's ``dml::Graph``, WebNN's ``MLGraphBuilder``).

>>> import numpy as np, gpuops
>>> from descriptors import DataType, TensorDesc
>>> b = gpuops.GraphBuilder()
>>> x = b.input(TensorDesc(DataType.FLOAT32, (2, 3)))
>>> bias = b.input(TensorDesc(DataType.FLOAT32, (3,)))          # broadcast along rows by a zero stride
>>> y = b.relu(x * 2 + bias)
>>> compiled = b.compile([y], gpuops.Device("numpy"))
>>> compiled.kernel_count                                        # multiply, add, relu: one fused kernel
1
>>> out = np.empty(6, np.float32)
>>> compiled.execute([np.arange(6, dtype=np.float32) - 3, np.float32([1, 0, -1])], [out])
>>> out.tolist()
[0.0, 0.0, 0.0, 1.0, 2.0, 3.0]

One method per operator of the op table, named after it without its family prefix (``add``, ``relu``,
``reduce``, ``clip``; ``activation_identity`` where an element-wise operator has the short name, ``if_``
for ``ELEMENT_WISE_IF``): tensor inputs positionally in the descriptor's order, every other field of the
descriptor by keyword (``b.clip(x, min=0.0, max=6.0)``, ``b.reduce(x, function=ReduceFunction.SUM,
axes=(1,))``). Python's ``+ - * /``, unary ``-`` and the comparisons build ``ADD``, ``SUBTRACT``,
``MULTIPLY``, ``DIVIDE``, ``NEGATE`` and ``LOGICAL_*`` nodes; a Python number becomes a constant. An
output's data type is the one the operator's tables allow for these inputs (the inputs' own where it
may be, e.g. ``UINT8`` for comparisons of other types), or ``output_type=``; its sizes are the inputs'
broadcast (element-wise) or the input's with the reduced axes set to 1. Graph inputs and constants
broadcast by zero strides, as DirectML callers write them; an intermediate value has fixed sizes
(DirectML's edges join tensors of equal sizes), so broadcasting one is an error naming it.

``build(outputs)`` gives the ``GraphDesc`` (inspect it, keep it); ``compile(outputs, device)`` compiles it.
"""

from __future__ import annotations

import dataclasses
import keyword
from collections.abc import Sequence
from typing import Any

import numpy as np

from descriptors import DataType, FeatureLevel, GraphDesc, TensorDesc, desc_class, dtype_combinations
from descriptors.graph import ConstantNode, InputEdge, IntermediateEdge, OperatorNode, OutputEdge
from descriptors.names import short_names
from descriptors.optable import row_of
from descriptors.schema import FieldKind, OpRow

from .errors import count

__all__ = ["OPERATORS", "GraphBuilder", "Value"]


def _method_names() -> dict[str, OpRow]:
    """Each operator's short name (``descriptors.names``), ``_`` added to a Python keyword (``if_``)."""
    return {n + "_" if keyword.iskeyword(n) else n: row_of(op) for op, n in short_names().items()}


OPERATORS: dict[str, OpRow] = _method_names()


@dataclasses.dataclass(frozen=True, eq=False)
class Value:
    """A tensor of the graph under construction: a graph input, a constant or a node output. ``tensor`` is its
    descriptor (sizes, data type; for inputs and constants the layout their buffer is read through)."""

    builder: GraphBuilder
    kind: str  # "input", "constant" or "node"
    index: int
    tensor: TensorDesc

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(self.tensor.sizes)

    @property
    def data_type(self) -> DataType:
        return self.tensor.data_type

    def _binary(self, name: str, other: object, swap: bool = False) -> Value:
        a, b = self, self.builder._value(other, like=self)
        return self.builder.op(name, *((b, a) if swap else (a, b)))

    def __add__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_ADD", other)

    def __radd__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_ADD", other, swap=True)

    def __sub__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_SUBTRACT", other)

    def __rsub__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_SUBTRACT", other, swap=True)

    def __mul__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_MULTIPLY", other)

    def __rmul__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_MULTIPLY", other, swap=True)

    def __truediv__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_DIVIDE", other)

    def __rtruediv__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_DIVIDE", other, swap=True)

    def __neg__(self) -> Value:
        return self.builder.op("ELEMENT_WISE_NEGATE", self)

    def __lt__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_LESS_THAN", other)

    def __le__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", other)

    def __gt__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_GREATER_THAN", other)

    def __ge__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", other)

    def __eq__(self, other: object) -> Value:  # type: ignore[override]
        return self._binary("ELEMENT_WISE_LOGICAL_EQUALS", other)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError("a graph Value has no truth value until the graph runs (did you mean a comparison node?)")

    def __repr__(self) -> str:
        return f"Value({self.kind} {self.index}, {self.data_type.name} {self.sizes})"


class GraphBuilder:
    """Builds a ``GraphDesc`` from expressions (module docstring). ``feature_level``: the level whose tables
    pick output data types (default: every level gpuops implements)."""

    def __init__(self, feature_level: FeatureLevel = FeatureLevel.FL_6_4) -> None:
        self.feature_level = feature_level
        self._inputs: list[TensorDesc] = []
        self._constants: list[tuple[bytes, TensorDesc]] = []
        self._nodes: list[tuple[Any, tuple[Value | None, ...]]] = []  # (descriptor, input values)

    # -- leaves ------------------------------------------------------------------------------------

    def input(self, tensor: TensorDesc) -> Value:
        """Graph input number ``len(inputs so far)``, bound at ``execute`` in that order."""
        if not isinstance(tensor, TensorDesc):
            raise TypeError(f"GraphBuilder.input: expected a TensorDesc (got {type(tensor).__name__})")
        self._inputs.append(tensor)
        return Value(self, "input", len(self._inputs) - 1, tensor)

    def constant(self, data: object, data_type: DataType | None = None) -> Value:
        """A constant (``DML_GRAPH_NODE_TYPE_CONSTANT``, FL 6_2): an array, or a Python number (one element,
        broadcast where it is used); ``data_type`` defaults to the array's."""
        arr = np.asarray(data)
        dt = data_type if data_type is not None else DataType.from_numpy(arr.dtype)
        arr = np.ascontiguousarray(arr, dtype=dt.numpy_dtype)
        tensor = TensorDesc(dt, arr.shape or (1,))
        need = tensor.total_tensor_size_in_bytes or 0
        raw = arr.tobytes() + bytes(need - arr.nbytes)  # padded to DMLCalcBufferTensorSize's multiple of 4
        self._constants.append((raw, tensor))
        return Value(self, "constant", len(self._constants) - 1, tensor)

    def _value(self, x: object, like: Value) -> Value:
        if isinstance(x, Value):
            if x.builder is not self:
                raise ValueError("GraphBuilder: a Value of another builder was used")
            return x
        if isinstance(x, (bool, int, float, np.number)):
            return self.constant(np.asarray(x, dtype=like.data_type.numpy_dtype))
        raise TypeError(f"GraphBuilder: expected a Value or a number (got {type(x).__name__})")

    # -- operators ---------------------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        row = OPERATORS.get(name)
        if row is None:
            raise AttributeError(f"GraphBuilder has no operator {name!r}; see gpuops.graph_builder.OPERATORS")
        return lambda *inputs, **fields: self.op(row.name, *inputs, **fields)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *OPERATORS})

    def op(
        self, operator_type: str, *inputs: Value | None, output_type: DataType | None = None, **fields: Any
    ) -> Value:
        """A node of ``operator_type`` (a DirectML name, ``"ELEMENT_WISE_ADD"``) reading ``inputs`` (in the
        descriptor's tensor order; None for an absent optional one), the other fields by keyword."""
        cls = desc_class(operator_type)
        row: OpRow = cls.row
        name = row.name
        in_fields = row.input_fields
        if len(inputs) != len(in_fields):
            roles = ", ".join(f.name for f in in_fields)
            raise TypeError(
                f"GraphBuilder.{name}: takes {count(len(in_fields), 'tensor input')} ({roles}), got {len(inputs)}"
            )
        present = [v for v in inputs if v is not None]
        for v in present:
            if not isinstance(v, Value) or v.builder is not self:
                raise TypeError(f"GraphBuilder.{name}: inputs must be Values of this builder (got {v!r})")
        if row.is_reduction:
            (x,) = present
            axes = tuple(int(a) for a in fields.get("axes", range(len(x.sizes))))
            sizes = tuple(1 if d in axes else s for d, s in enumerate(x.sizes))
        else:
            try:
                sizes = tuple(int(s) for s in np.broadcast_shapes(*(v.sizes for v in present)))
            except ValueError:
                shapes = ", ".join(str(v.sizes) for v in present)
                raise ValueError(f"GraphBuilder.{name}: inputs of sizes {shapes} do not broadcast") from None
        tensors: dict[str, TensorDesc | None] = {}
        for f, val in zip(in_fields, inputs, strict=True):
            if val is not None:  # a reduction reads its input at the input's own sizes
                tensors[f.name] = val.tensor if row.is_reduction else self._read_as(name, f.name, val, sizes)
            else:
                tensors[f.name] = None
        out_type = output_type or self._output_type(name, row, inputs)
        out_tensor = TensorDesc(out_type, sizes)
        for f in row.output_fields:
            tensors[f.name] = out_tensor
        for f in row.fields:
            if f.kind is FieldKind.DATA_TYPE and f.name not in fields:  # CLIP1's MinMaxDataType
                fields[f.name] = out_type
        desc = cls(**tensors, **fields)
        self._nodes.append((desc, tuple(inputs)))
        return Value(self, "node", len(self._nodes) - 1, out_tensor)

    def _read_as(self, op: str, role: str, v: Value, sizes: tuple[int, ...]) -> TensorDesc:
        """How node input ``role`` reads ``v`` at ``sizes``: its own tensor, or a zero-stride broadcast."""
        if v.sizes == sizes:
            return v.tensor
        if v.kind == "node":
            raise ValueError(
                f"GraphBuilder.{op}: {role} is the output of node {v.index} with sizes {v.sizes}, read at {sizes}; "
                "DirectML's intermediate edges join tensors of equal sizes, so only graph inputs and constants "
                "broadcast (make this one an input, or give it the full sizes)"
            )
        if not v.tensor.is_packed:
            raise ValueError(f"GraphBuilder.{op}: {role} ({v!r}) is strided; only packed inputs broadcast")
        return TensorDesc.broadcast(v.data_type, v.sizes, to=sizes)

    def _output_type(self, name: str, row: OpRow, inputs: Sequence[Value | None]) -> DataType:
        out_role = row.output_fields[0].name
        given = {f.name: v.data_type for f, v in zip(row.input_fields, inputs, strict=True) if v is not None}
        combos = [
            c
            for c in dtype_combinations(name, self.feature_level)
            if all(c.get(role) is dt for role, dt in given.items())
        ]
        if not combos:
            shown = ", ".join(f"{r}={dt.name}" for r, dt in given.items())
            raise ValueError(f"GraphBuilder.{name}: no data-type combination takes {shown}")
        outs = list(dict.fromkeys(c[out_role] for c in combos))
        first = next(iter(given.values()))
        for preferred in (first, DataType.UINT8):  # the inputs' type; else UINT8 (comparisons, logical ops)
            if preferred in outs:
                return preferred
        return outs[0]

    # -- the graph ---------------------------------------------------------------------------------

    def build(self, outputs: Sequence[Value]) -> GraphDesc:
        """The ``GraphDesc`` computing ``outputs`` (graph outputs in that order): the nodes they need, every
        input made so far (graph input order = creation order), the constants they read."""
        if isinstance(outputs, Value) or not outputs:
            raise TypeError("GraphBuilder.build: pass a non-empty list of Values")
        for v in outputs:
            if not isinstance(v, Value) or v.builder is not self or v.kind != "node":
                raise ValueError(f"GraphBuilder.build: a graph output must be a node's output (got {v!r})")
        needed: set[int] = set()
        stack = [v.index for v in outputs]
        while stack:
            i = stack.pop()
            if i in needed:
                continue
            needed.add(i)
            stack.extend(v.index for v in self._nodes[i][1] if v is not None and v.kind == "node")
        order = sorted(needed)
        constants = sorted(
            {v.index for i in order for v in self._nodes[i][1] if v is not None and v.kind == "constant"}
        )
        node_of = {("node", i): k for k, i in enumerate(order)}
        node_of |= {("constant", c): len(order) + k for k, c in enumerate(constants)}
        nodes: list[OperatorNode | ConstantNode] = [OperatorNode(self._nodes[i][0]) for i in order]
        nodes += [ConstantNode(self._constants[c][0]) for c in constants]
        input_edges: list[InputEdge] = []
        inter_edges: list[IntermediateEdge] = []
        for k, i in enumerate(order):
            for slot, src in enumerate(self._nodes[i][1]):
                if src is None:
                    continue
                if src.kind == "input":
                    input_edges.append(InputEdge(src.index, k, slot))
                else:
                    inter_edges.append(IntermediateEdge(node_of[(src.kind, src.index)], 0, k, slot))
        output_edges = [OutputEdge(node_of[("node", v.index)], 0, g) for g, v in enumerate(outputs)]
        return GraphDesc(
            len(self._inputs), len(outputs), tuple(nodes), tuple(input_edges), tuple(output_edges), tuple(inter_edges)
        )

    def compile(self, outputs: Sequence[Value], device: Any = None) -> Any:
        """``device.compile_graph(self.build(outputs))`` (``device``: the front-ends' default device if None)."""
        if device is None:
            from .frontends._common import default_device

            device = default_device()
        return device.compile_graph(self.build(outputs))
