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
axes=(1,))``; ``axes`` is a sequence of integers, as in the descriptor, never a bare int). Python's
``+ - * /``, unary ``-`` and the comparisons build ``ADD``, ``SUBTRACT``, ``MULTIPLY``, ``DIVIDE``,
``NEGATE`` and ``LOGICAL_*`` nodes; a Python number becomes a constant (``GraphBuilder`` states the
rule). An output's data type is the one the operator's tables allow for these inputs (the inputs' own
where it may be, e.g. ``UINT8`` for comparisons of other types), or ``output_type=``; its sizes are the
inputs' broadcast (element-wise) or the input's with the reduced axes set to 1. An operator without
tensor inputs (``fill_value_constant``, ``fill_value_sequence``) takes its output's sizes as
``output_sizes=`` and its data type as ``output_type=`` or its ``value_data_type=``. Graph inputs and
constants broadcast by zero strides, as DirectML callers write them; an intermediate value has fixed sizes
(DirectML's edges join tensors of equal sizes), so broadcasting one is an error naming it. Each node is
checked (``descriptors.validate`` at the builder's feature level) when its method is called, so a bad
field fails there, naming the method.

``build(outputs)`` gives the ``GraphDesc`` (inspect it, keep it); ``compile(outputs, device)`` compiles it.
"""

from __future__ import annotations

import dataclasses
import keyword
from collections.abc import Sequence
from typing import Any

import numpy as np

from descriptors import DataType, DescriptorError, FeatureLevel, GraphDesc, TensorDesc, desc_class, dtype_combinations
from descriptors.graph import ConstantNode, InputEdge, IntermediateEdge, OperatorNode, OutputEdge
from descriptors.names import short_names
from descriptors.optable import row_of
from descriptors.schema import FieldKind, OpRow
from descriptors.validate import validate

from .errors import count
from .graph_numbers import ConstantConversionError, allowed, array_as, is_number, number_as

__all__ = ["OPERATORS", "ConstantConversionError", "GraphBuilder", "Value"]


def _method_names() -> dict[str, OpRow]:
    """Each operator's short name (``descriptors.names``), ``_`` added to a Python keyword (``if_``)."""
    return {n + "_" if keyword.iskeyword(n) else n: row_of(op) for op, n in short_names().items()}


OPERATORS: dict[str, OpRow] = _method_names()
_METHOD: dict[str, str] = {row.name: method for method, row in OPERATORS.items()}  # "ELEMENT_WISE_ADD" -> "add"


def _axes(where: str, name: str, value: object) -> tuple[int, ...]:
    """An AXES field: a sequence of integers (a bare int, a float or a bool axis is refused)."""
    ok = isinstance(value, Sequence | np.ndarray) and not isinstance(value, str | bytes)
    items = list(np.asarray(value).reshape(-1)) if isinstance(value, np.ndarray) else list(value) if ok else []  # type: ignore[call-overload]
    if (
        not ok
        or (isinstance(value, np.ndarray) and value.ndim != 1)
        or not all(isinstance(a, int | np.integer) and not isinstance(a, bool | np.bool_) for a in items)
    ):
        raise TypeError(f"{where}: {name} must be a sequence of integers, e.g. (1,) (got {value!r})")
    return tuple(int(a) for a in items)


def _sizes(where: str, value: object) -> tuple[int, ...]:
    """``output_sizes=``: a sequence of positive integers."""
    if (
        not isinstance(value, Sequence)
        or isinstance(value, str | bytes)
        or not value
        or not all(isinstance(s, int | np.integer) and not isinstance(s, bool) and s > 0 for s in value)
    ):
        raise TypeError(
            f"{where}: output_sizes must be a non-empty sequence of positive integers, e.g. (2, 3) (got {value!r})"
        )
    return tuple(int(s) for s in value)


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

    def _binary(self, name: str, symbol: str, other: object, swap: bool = False) -> Value:
        builder = self.builder
        method = f"GraphBuilder.{_METHOD[name]}"
        expr = f"{other!r} {symbol} {self!r}" if swap else f"{self!r} {symbol} {other!r}"
        roles = [f.name for f in row_of(name).input_fields]
        b = builder._operand(f"{method} ({expr})", roles[0] if swap else roles[1], other, like=self)
        return builder.op(name, *((b, self) if swap else (self, b)))

    def __add__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_ADD", "+", other)

    def __radd__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_ADD", "+", other, swap=True)

    def __sub__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_SUBTRACT", "-", other)

    def __rsub__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_SUBTRACT", "-", other, swap=True)

    def __mul__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_MULTIPLY", "*", other)

    def __rmul__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_MULTIPLY", "*", other, swap=True)

    def __truediv__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_DIVIDE", "/", other)

    def __rtruediv__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_DIVIDE", "/", other, swap=True)

    def __neg__(self) -> Value:
        return self.builder.op("ELEMENT_WISE_NEGATE", self)

    def __lt__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_LESS_THAN", "<", other)

    def __le__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "<=", other)

    def __gt__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_GREATER_THAN", ">", other)

    def __ge__(self, other: object) -> Value:
        return self._binary("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", ">=", other)

    def __eq__(self, other: object) -> Value:  # type: ignore[override]
        return self._binary("ELEMENT_WISE_LOGICAL_EQUALS", "==", other)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError("a graph Value has no truth value until the graph runs (did you mean a comparison node?)")

    def __repr__(self) -> str:
        return f"Value({self.kind} {self.index}, {self.data_type.name} {self.sizes})"


class GraphBuilder:
    """Builds a ``GraphDesc`` from expressions (module docstring). ``feature_level``: the level whose tables
    pick output data types and check each node (default: every level gpuops implements).

    A number operand (``x * 0.5``, ``1 - x``, ``x > 0``: a Python bool, int or float, or a NumPy scalar) becomes
    a one-element constant of the other operand's data type, broadcast, only when it converts exactly; else
    ``ConstantConversionError`` names the method, the operand, the number, the data type and what it takes.
    Nothing is promoted: ``INT32 * 0.5`` is not ``INT32 * 0``, it is refused (cast the Value first).

    - integer types: an integer, or a float with an integral value, in the type's range (``INT32 * 2.0`` is
      ``* 2``; ``0.5``, NaN, ±inf and ``UINT8 + 300`` are refused; NumPy 2 raises ``OverflowError`` for the last);
    - ``BOOL``: 0 or 1 (False or True);
    - float types: any number, rounded to nearest (ties to even) once, as NumPy (NEP 50) and WebNN convert a weak
      scalar (``FLOAT16 * 0.1`` multiplies by 0.0999755859375; a tiny number may round to ±0); NaN, ±inf and -0.0
      keep their value and sign; a finite number that would round to ±inf is refused (``FLOAT16 * 1e6``);
    - a bool is the integer 0 or 1.

    ``constant(data, data_type)`` converts its data by the same rule, element by element."""

    def __init__(self, feature_level: FeatureLevel = FeatureLevel.FL_6_4) -> None:
        self.feature_level = FeatureLevel.parse(feature_level, "GraphBuilder: feature_level")
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

    def constant(self, data: object, data_type: DataType | str | None = None) -> Value:
        """A constant (``DML_GRAPH_NODE_TYPE_CONSTANT``, FL 6_2): an array, or a number (one element, broadcast
        where it is used). ``data_type`` defaults to the array's (a Python int is INT64, a float FLOAT64); a
        given one takes the data by the rule of ``GraphBuilder`` (exact conversions only, floats rounded to
        nearest, overflow refused): ``ConstantConversionError`` names the first element that does not fit."""
        where = "GraphBuilder.constant"
        if isinstance(data, Value):
            raise TypeError(f"{where}: data is already a Value ({data!r}); a constant holds an array or a number")
        dt = None if data_type is None else DataType.parse(data_type, f"{where}: data_type")
        shown = "" if dt is None else f"data_type={dt.name}"
        if dt is None and isinstance(data, bool | int | float):  # NumPy's defaults, without its OverflowError
            kind = bool if isinstance(data, bool) else float if isinstance(data, float) else int
            dt = {bool: DataType.BOOL, int: DataType.INT64, float: DataType.FLOAT64}[kind]
            shown = f"{dt.name} (a Python {kind.__name__}'s data type when no data_type= is given)"
        if dt is not None and is_number(data):
            arr, why = number_as(data, dt)
            if arr is None:
                raise ConstantConversionError(
                    f"{where}: the number {data!r} does not convert exactly to {shown} ({why}); {allowed(dt)}",
                    "data",
                )
        else:
            try:
                arr = np.asarray(data)
            except (OverflowError, ValueError, TypeError) as exc:
                raise TypeError(f"{where}: data is not an array of numbers ({exc})") from None
            if arr.dtype.kind in "biuf" and not arr.dtype.isnative:
                arr = arr.astype(arr.dtype.newbyteorder("="))
            try:
                src = DataType.from_numpy(arr.dtype)
            except TypeError:
                raise TypeError(
                    f"{where}: data of NumPy dtype {arr.dtype} holds no tensor elements; give numbers (an array "
                    f"of one of: {', '.join(str(d.numpy_dtype) for d in DataType)})"
                ) from None
            if dt is None:
                dt = src
            converted, why = array_as(arr, dt)
            if converted is None:
                raise ConstantConversionError(
                    f"{where}: data of dtype {arr.dtype} does not convert exactly to data_type={dt.name}: {why}; "
                    f"{allowed(dt)}",
                    "data",
                )
            arr = converted
        arr = np.ascontiguousarray(arr, dtype=dt.numpy_dtype)
        tensor = TensorDesc(dt, arr.shape or (1,))
        need = tensor.total_tensor_size_in_bytes or 0
        raw = arr.tobytes() + bytes(need - arr.nbytes)  # padded to DMLCalcBufferTensorSize's multiple of 4
        self._constants.append((raw, tensor))
        return Value(self, "constant", len(self._constants) - 1, tensor)

    def _operand(self, where: str, role: str, x: object, like: Value) -> Value:
        """Operand ``role`` of an operator overload: a Value of this builder, or a number made a constant of
        ``like``'s data type by the rule of ``GraphBuilder``."""
        if isinstance(x, Value):
            if x.builder is not self:
                raise ValueError(f"{where}: {role} is a Value of another GraphBuilder")
            return x
        if not is_number(x):
            raise TypeError(
                f"{where}: {role} must be a Value or a number (got {type(x).__name__}); "
                "an array operand is b.constant(array) or b.input(TensorDesc(...))"
            )
        dt = like.data_type
        arr, why = number_as(x, dt)
        if arr is None:
            raise ConstantConversionError(
                f"{where}: {role}, the number {x!r}, does not convert exactly to the other operand's data type "
                f"{dt.name} ({why}). A number operand becomes a constant of the other operand's data type only "
                f"when it converts exactly: {allowed(dt)}. For arithmetic in another type, cast the Value first "
                f"(b.cast(x, output_type=DataType.FLOAT32)) or make the constant with b.constant",
                role,
            )
        return self.constant(arr)

    # -- operators ---------------------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        row = OPERATORS.get(name)
        if row is None:
            raise AttributeError(f"GraphBuilder has no operator {name!r}; see gpuops.graph_builder.OPERATORS")
        return lambda *inputs, **fields: self.op(row.name, *inputs, **fields)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *OPERATORS})

    def op(
        self,
        operator_type: str,
        *inputs: Value | None,
        output_type: DataType | str | None = None,
        output_sizes: Sequence[int] | None = None,
        **fields: Any,
    ) -> Value:
        """A node of ``operator_type`` (a DirectML name, ``"ELEMENT_WISE_ADD"``) reading ``inputs`` (Values of this
        builder in the descriptor's tensor order; None for an absent optional one), the other fields by keyword.
        ``output_sizes``: only for an operator without tensor inputs (FILL_VALUE_*), its output's sizes. Arguments
        are checked up front, then the node (``descriptors.validate`` at ``feature_level``); errors name the
        method."""
        cls = desc_class(operator_type)
        row: OpRow = cls.row
        name = row.name
        where = f"GraphBuilder.{_METHOD.get(name, name)}"
        in_fields = row.input_fields
        params = {f.name: f for f in row.fields if not f.is_tensor}
        dataclass: Any = cls  # the generated descriptor classes are dataclasses (descs.pyi types them one by one)
        defaults = {
            d.name
            for d in dataclasses.fields(dataclass)
            if d.default is not dataclasses.MISSING or d.default_factory is not dataclasses.MISSING
        }
        if len(inputs) != len(in_fields):
            roles = ", ".join(f.name for f in in_fields) or "none"
            hint = ""
            if len(inputs) > len(in_fields) and params:
                hint = f"; the other fields go by keyword ({', '.join(f'{n}=' for n in params)})"
            raise TypeError(
                f"{where} ({name}): takes {count(len(in_fields), 'tensor input')} ({roles}), got {len(inputs)}{hint}"
            )
        for f, v in zip(in_fields, inputs, strict=True):
            if v is None:
                continue
            if not isinstance(v, Value):
                hint = (
                    " (a number is a constant: b.constant(value, data_type), or write the operator: x + 2)"
                    if is_number(v)
                    else ""
                )
                raise TypeError(f"{where}: {f.name} must be a Value of this builder or None (got {v!r}){hint}")
            if v.builder is not self:
                raise TypeError(f"{where}: {f.name} is a Value of another GraphBuilder ({v!r})")
        for key in fields:
            if key not in params:
                why = (
                    "a tensor: an input is given positionally, as a Value; an output is made by the builder"
                    if key in {f.name for f in row.fields if f.is_tensor}
                    else "not a field of the descriptor"
                )
                allowed = ", ".join(f"{n}=" for n in params) or "none"
                raise TypeError(f"{where}: {key}= is {why}; its keyword fields are: {allowed}")
        for f in params.values():
            if f.kind is FieldKind.AXES and f.name in fields:
                fields[f.name] = _axes(where, f.name, fields[f.name])
            required = f.name not in defaults and f.kind is not FieldKind.DATA_TYPE
            if required and f.name not in fields:
                example = ", e.g. (1,)" if f.kind is FieldKind.AXES else ""
                raise TypeError(f"{where}: {f.name}= is required ({f.kind.value}{example})")
        if output_type is not None:
            output_type = DataType.parse(output_type, f"{where}: output_type")
        present = [v for v in inputs if v is not None]
        if not in_fields:
            given = next((fields.get(f.name) for f in params.values() if f.kind is FieldKind.DATA_TYPE), None)
            if output_sizes is None or (output_type is None and given is None):
                raise TypeError(
                    f"{where}: {name} has no tensor inputs, so its output is described by output_sizes= (e.g. "
                    f"(2, 3)) and output_type= or value_data_type=: got output_sizes={output_sizes!r}, "
                    f"output_type={output_type!r}"
                )
            sizes = _sizes(where, output_sizes)
            if output_type is None:
                output_type = DataType.parse(given, f"{where}: value_data_type")
        elif output_sizes is not None:
            raise TypeError(f"{where}: output_sizes= is only for operators without tensor inputs (FILL_VALUE_*)")
        elif not present:
            raise TypeError(f"{where}: every tensor input is None; {name} needs at least one Value")
        elif row.is_reduction:
            (x,) = present
            axes = fields["axes"]
            sizes = tuple(1 if d in axes else s for d, s in enumerate(x.sizes))
        else:
            try:
                sizes = tuple(int(s) for s in np.broadcast_shapes(*(v.sizes for v in present)))
            except ValueError:
                shapes = ", ".join(str(v.sizes) for v in present)
                raise ValueError(f"{where} ({name}): inputs of sizes {shapes} do not broadcast") from None
        tensors: dict[str, TensorDesc | None] = {}
        for f, val in zip(in_fields, inputs, strict=True):
            if val is not None:  # a reduction reads its input at the input's own sizes
                tensors[f.name] = val.tensor if row.is_reduction else self._read_as(name, f.name, val, sizes)
            else:
                tensors[f.name] = None
        out_type = output_type or self._output_type(where, row, inputs)
        out_tensor = TensorDesc(out_type, sizes)
        for f in row.output_fields:
            tensors[f.name] = out_tensor
        for f in row.fields:
            if f.kind is FieldKind.DATA_TYPE and f.name not in fields:  # CLIP1's MinMaxDataType
                fields[f.name] = out_type
        desc = cls(**tensors, **fields)
        try:
            validate(desc, self.feature_level)
        except DescriptorError as exc:
            raise DescriptorError(f"{where}: {exc}", exc.field) from None
        self._nodes.append((desc, tuple(inputs)))
        return Value(self, "node", len(self._nodes) - 1, out_tensor)

    def _read_as(self, op: str, role: str, v: Value, sizes: tuple[int, ...]) -> TensorDesc:
        """How node input ``role`` reads ``v`` at ``sizes``: its own tensor, or a zero-stride broadcast."""
        if v.sizes == sizes:
            return v.tensor
        if v.kind == "node":
            raise ValueError(
                f"GraphBuilder.{_METHOD.get(op, op)} ({op}): {role} is the output of node {v.index} with sizes "
                f"{v.sizes}, read at {sizes}; DirectML's intermediate edges join tensors of equal sizes, so only "
                "graph inputs and constants broadcast (make this one an input, or give it the full sizes)"
            )
        if not v.tensor.is_packed:
            raise ValueError(
                f"GraphBuilder.{_METHOD.get(op, op)} ({op}): {role} ({v!r}) is strided; only packed inputs broadcast"
            )
        return TensorDesc.broadcast(v.data_type, v.sizes, to=sizes)

    def _output_type(self, where: str, row: OpRow, inputs: Sequence[Value | None]) -> DataType:
        name = row.name
        out_role = row.output_fields[0].name
        given = {f.name: v.data_type for f, v in zip(row.input_fields, inputs, strict=True) if v is not None}
        combos = [
            c
            for c in dtype_combinations(name, self.feature_level)
            if all(c.get(role) is dt for role, dt in given.items())
        ]
        if not combos:
            shown = ", ".join(f"{r}={dt.name}" for r, dt in given.items())
            raise ValueError(f"{where} ({name}): no data-type combination takes {shown}")
        outs = list(dict.fromkeys(c[out_role] for c in combos))
        first = next(iter(given.values()), None)
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
        nodes += [ConstantNode(raw, data_type=t.data_type) for raw, t in (self._constants[c] for c in constants)]
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
