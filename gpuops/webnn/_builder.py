"""``MLGraphBuilder``: WebNN's operations as operator nodes (each with the layout it reads its inputs through)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from descriptors import (
    AxisDirection,
    DataType,
    IsInfinityMode,
    ReduceFunction,
    RoundingMode,
    desc_class,
    dtype_combinations,
)

from ..device import Device
from ..errors import UnsupportedError
from ._graph import MLContext, MLGraph
from ._operand import (
    _ANY,
    _FLOAT,
    _NAMES,
    _SIGNED,
    _SUMMABLE,
    _TYPES,
    MLOperand,
    MLOperandDescriptor,
    Shape,
    _descriptor,
    _is_number,
    _left_pad,
    _Options,
    _pad,
)


class MLGraphBuilder:
    """WebNN's ``MLGraphBuilder`` on an ``MLContext``, a ``gpuops.Device``, a backend name, or the default
    device (``Device("auto")``)."""

    def __init__(self, context: MLContext | Device | str | None = None) -> None:
        self.context = context if isinstance(context, MLContext) else MLContext(context)
        self._inputs: dict[str, MLOperand] = {}
        self._built = False
        self._serial = 0

    # -- leaves ------------------------------------------------------------------------------------

    def input(self, name: str, descriptor: MLOperandDescriptor | Mapping[str, Any]) -> MLOperand:
        """A graph input, bound by ``name`` at ``compute``."""
        where = "webnn.input"
        self._check_open(where)
        if not isinstance(name, str) or not name:
            raise TypeError(f"{where}: name must be a non-empty string, got {name!r}")
        if name in self._inputs:
            raise ValueError(f"{where}: an input named {name!r} exists already")
        desc = _descriptor(descriptor, where)
        op = MLOperand(self, "input", desc.data_type, desc.shape, name=name)
        self._inputs[name] = op
        return op

    def constant(self, descriptor: MLOperandDescriptor | Mapping[str, Any] | str, data: object) -> MLOperand:
        """A constant: ``constant(descriptor, array)`` (the array's elements, copied now; an array of another
        dtype is refused), or ``constant(dataType, number)`` for a scalar."""
        where = "webnn.constant"
        self._check_open(where)
        if isinstance(descriptor, str):
            if not _is_number(data):
                raise TypeError(f"{where}: constant(dataType, value) takes a number, got {type(data).__name__}")
            descriptor = MLOperandDescriptor(descriptor, ())
        desc = _descriptor(descriptor, where)
        dtype = desc.data_type.numpy_dtype
        get = getattr(data, "get", None)
        host: Any = get() if callable(get) and not isinstance(data, np.ndarray) else data  # a CuPy array: to host
        if hasattr(host, "dtype") and np.dtype(host.dtype) != dtype:
            raise TypeError(f"{where}: data has dtype {host.dtype}; the descriptor's dataType is {desc.dataType}")
        try:
            arr = np.array(host, dtype=dtype).reshape(-1)
        except (OverflowError, ValueError, TypeError) as exc:
            raise TypeError(f"{where}: data cannot be {desc.dataType}: {exc}") from None
        if arr.size != math.prod(desc.shape):
            raise ValueError(
                f"{where}: data has {arr.size} elements; shape {list(desc.shape)} needs {math.prod(desc.shape)}"
            )
        return MLOperand(self, "constant", desc.data_type, desc.shape, data=arr)

    # -- plumbing ----------------------------------------------------------------------------------

    def _check_open(self, where: str) -> None:
        if self._built:
            raise RuntimeError(f"{where}: this MLGraphBuilder has built its graph; make a new one")

    def _operand(self, x: object, where: str, what: str, types: Sequence[str] = _ANY) -> MLOperand:
        self._check_open(where)
        if not isinstance(x, MLOperand):
            raise TypeError(f"{where}: {what} must be an MLOperand, got {type(x).__name__}")
        if x.builder is not self:
            raise ValueError(f"{where}: {what} belongs to another MLGraphBuilder")
        if x.dataType not in types:
            raise TypeError(f"{where}: {what} is {x.dataType}; WebNN's {where[6:]} takes {', '.join(types)}")
        return x

    def _node(
        self,
        where: str,
        row: str,
        inputs: Sequence[MLOperand | None],
        reads: Sequence[tuple[Shape, Shape] | None],
        shape: Shape,
        phys: Shape,
        out: DataType,
        **fields: Any,
    ) -> MLOperand:
        """An operator node; checks that gpuops' row takes these data types."""
        names = [f.name for f in _row_inputs(row)]
        given = {n: v.data_type for n, v in zip(names, inputs, strict=True) if v is not None}
        if not any(
            all(c.get(r) is dt for r, dt in given.items()) and c.get("output_tensor", out) is out
            for c in dtype_combinations(row)
        ):
            shown = ", ".join(f"{_NAMES[dt]}" for dt in given.values())
            raise UnsupportedError(f"{where}: WebNN allows {shown} -> {_NAMES[out]} here, but gpuops' {row} does not")
        stage = 0
        for v, read in zip(inputs, reads, strict=True):
            if v is not None and v.kind == "op":
                assert read is not None
                stage = max(stage, v.stage + (0 if read == (v.phys, v.phys) else 1))
        return MLOperand(
            self, "op", out, shape, phys, row=row, inputs=tuple(inputs), reads=tuple(reads), fields=fields, stage=stage
        )

    def _eltwise(
        self,
        where: str,
        row: str,
        operands: Sequence[MLOperand | None],
        out: DataType | None = None,
        shape: Shape | None = None,
        **fields: Any,
    ) -> MLOperand:
        """An element-wise node over ``operands`` broadcast together (NumPy rules), or to ``shape``."""
        present = [v for v in operands if v is not None]
        if shape is None:
            try:
                shape = tuple(int(s) for s in np.broadcast_shapes(*(v.logical for v in present)))
            except ValueError:
                shapes = " and ".join(str(list(v.logical)) for v in present)
                raise ValueError(f"{where}: shapes {shapes} do not broadcast (NumPy's rules)") from None
        if all(v.logical == shape for v in present):  # no broadcast: any layout of the same elements will do
            phys = next((v.phys for v in present if v.kind == "op"), _pad(shape))
            reads = [None if v is None else (phys, phys) for v in operands]
        else:
            phys = _pad(shape)
            reads = [None if v is None else (_left_pad(v.logical, len(phys)), phys) for v in operands]
        return self._node(where, row, operands, reads, shape, phys, out or present[0].data_type, **fields)

    def _unary(
        self, where: str, row: str, x: object, types: Sequence[str], out: DataType | None = None, **fields: Any
    ) -> MLOperand:
        return self._eltwise(where, row, [self._operand(x, where, "input", types)], out, **fields)

    def _binary(
        self, where: str, row: str, a: object, b: object, types: Sequence[str] = _ANY, out: DataType | None = None
    ) -> MLOperand:
        x = self._operand(a, where, "a", types)
        y = self._operand(b, where, "b", types)
        if x.data_type is not y.data_type:
            raise TypeError(f"{where}: a is {x.dataType} and b is {y.dataType}; WebNN requires one data type")
        return self._eltwise(where, row, [x, y], out)

    def _axes(self, where: str, x: MLOperand, axes: object) -> tuple[int, ...]:
        rank = len(x.logical)
        if isinstance(axes, (str, bytes)) or not isinstance(axes, Sequence):
            raise TypeError(f"{where}: options.axes must be a sequence of integers, got {axes!r}")
        out = tuple(axes)
        bad = [a for a in out if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < rank]
        if bad:
            raise ValueError(
                f"{where}: options.axes {list(out)} holds {bad[0]!r}, out of range for input of rank "
                f"{rank} (allowed: 0 to {rank - 1}, each once)"
            )
        if len(set(out)) != len(out):
            raise ValueError(f"{where}: options.axes {list(out)} names an axis twice")
        return tuple(int(a) for a in out)

    def _axis(self, where: str, x: MLOperand, axis: object) -> int:
        rank = len(x.logical)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not 0 <= axis < rank:
            raise ValueError(
                f"{where}: axis {axis!r} is out of range for input of rank {rank} (allowed: 0 to {rank - 1})"
            )
        return int(axis)

    def _whole(self, x: MLOperand) -> tuple[Shape, Shape]:
        """``x`` read at its own shape (an operator that reads its input by axis)."""
        return (_pad(x.logical), _pad(x.logical))

    # -- element-wise binary -----------------------------------------------------------------------

    def add(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a + b``."""
        return self._binary("webnn.add", "ELEMENT_WISE_ADD", a, b)

    def sub(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a - b``."""
        return self._binary("webnn.sub", "ELEMENT_WISE_SUBTRACT", a, b)

    def mul(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a * b``."""
        return self._binary("webnn.mul", "ELEMENT_WISE_MULTIPLY", a, b)

    def div(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a / b`` (integers: truncated toward zero, 0 for a division by zero)."""
        return self._binary("webnn.div", "ELEMENT_WISE_DIVIDE", a, b)

    def max(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """The larger of ``a`` and ``b`` (NaN if either is NaN)."""
        return self._binary("webnn.max", "ELEMENT_WISE_MAX", a, b)

    def min(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """The smaller of ``a`` and ``b`` (NaN if either is NaN)."""
        return self._binary("webnn.min", "ELEMENT_WISE_MIN", a, b)

    def pow(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a ** b`` (integers: exact; a negative exponent truncates toward zero)."""
        return self._binary("webnn.pow", "ELEMENT_WISE_POW", a, b)

    # -- comparisons and logical operators (uint8 results: 1 or 0) ---------------------------------

    def equal(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a == b``."""
        return self._binary("webnn.equal", "ELEMENT_WISE_LOGICAL_EQUALS", a, b, out=DataType.UINT8)

    def notEqual(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a != b`` (NaN != NaN)."""
        eq = self._binary("webnn.notEqual", "ELEMENT_WISE_LOGICAL_EQUALS", a, b, out=DataType.UINT8)
        return self._eltwise("webnn.notEqual", "ELEMENT_WISE_LOGICAL_NOT", [eq])

    def greater(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a > b``."""
        return self._binary("webnn.greater", "ELEMENT_WISE_LOGICAL_GREATER_THAN", a, b, out=DataType.UINT8)

    def greaterOrEqual(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a >= b``."""
        row = "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL"
        return self._binary("webnn.greaterOrEqual", row, a, b, out=DataType.UINT8)

    def lesser(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a < b``."""
        return self._binary("webnn.lesser", "ELEMENT_WISE_LOGICAL_LESS_THAN", a, b, out=DataType.UINT8)

    def lesserOrEqual(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """``a <= b``."""
        row = "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL"
        return self._binary("webnn.lesserOrEqual", row, a, b, out=DataType.UINT8)

    def logicalNot(self, a: MLOperand) -> MLOperand:
        """1 where ``a`` is 0, else 0 (uint8)."""
        return self._unary("webnn.logicalNot", "ELEMENT_WISE_LOGICAL_NOT", a, ("uint8",))

    def logicalAnd(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """1 where both are nonzero (uint8)."""
        return self._binary("webnn.logicalAnd", "ELEMENT_WISE_LOGICAL_AND", a, b, ("uint8",))

    def logicalOr(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """1 where either is nonzero (uint8)."""
        return self._binary("webnn.logicalOr", "ELEMENT_WISE_LOGICAL_OR", a, b, ("uint8",))

    def logicalXor(self, a: MLOperand, b: MLOperand) -> MLOperand:
        """1 where exactly one is nonzero (uint8)."""
        return self._binary("webnn.logicalXor", "ELEMENT_WISE_LOGICAL_XOR", a, b, ("uint8",))

    def where(self, condition: MLOperand, trueValue: MLOperand, falseValue: MLOperand) -> MLOperand:
        """``trueValue`` where ``condition`` (uint8) is nonzero, else ``falseValue``; all three broadcast."""
        w = "webnn.where"
        c = self._operand(condition, w, "condition", ("uint8",))
        t, f = self._operand(trueValue, w, "trueValue"), self._operand(falseValue, w, "falseValue")
        if t.data_type is not f.data_type:
            raise TypeError(f"{w}: trueValue is {t.dataType} and falseValue {f.dataType}; WebNN requires one type")
        return self._eltwise(w, "ELEMENT_WISE_IF", [c, t, f], t.data_type)

    # -- element-wise unary ------------------------------------------------------------------------

    def abs(self, input: MLOperand) -> MLOperand:
        """``|x|``."""
        return self._unary("webnn.abs", "ELEMENT_WISE_ABS", input, _SIGNED)

    def ceil(self, input: MLOperand) -> MLOperand:
        """Rounded up."""
        return self._unary("webnn.ceil", "ELEMENT_WISE_CEIL", input, _FLOAT)

    def floor(self, input: MLOperand) -> MLOperand:
        """Rounded down."""
        return self._unary("webnn.floor", "ELEMENT_WISE_FLOOR", input, _FLOAT)

    def roundEven(self, input: MLOperand) -> MLOperand:
        """Rounded to the nearest integer, halves to even."""
        mode = RoundingMode.HALVES_TO_NEAREST_EVEN
        return self._unary("webnn.roundEven", "ELEMENT_WISE_ROUND", input, _FLOAT, rounding_mode=mode)

    def exp(self, input: MLOperand) -> MLOperand:
        """``e ** x``."""
        return self._unary("webnn.exp", "ELEMENT_WISE_EXP", input, _FLOAT)

    def log(self, input: MLOperand) -> MLOperand:
        """Natural logarithm."""
        return self._unary("webnn.log", "ELEMENT_WISE_LOG", input, _FLOAT)

    def neg(self, input: MLOperand) -> MLOperand:
        """``-x``."""
        return self._unary("webnn.neg", "ELEMENT_WISE_NEGATE", input, _SIGNED)

    def sqrt(self, input: MLOperand) -> MLOperand:
        """Square root."""
        return self._unary("webnn.sqrt", "ELEMENT_WISE_SQRT", input, _FLOAT)

    def sin(self, input: MLOperand) -> MLOperand:
        """Sine."""
        return self._unary("webnn.sin", "ELEMENT_WISE_SIN", input, _FLOAT)

    def cos(self, input: MLOperand) -> MLOperand:
        """Cosine."""
        return self._unary("webnn.cos", "ELEMENT_WISE_COS", input, _FLOAT)

    def tan(self, input: MLOperand) -> MLOperand:
        """Tangent."""
        return self._unary("webnn.tan", "ELEMENT_WISE_TAN", input, _FLOAT)

    def erf(self, input: MLOperand) -> MLOperand:
        """The error function."""
        return self._unary("webnn.erf", "ELEMENT_WISE_ERF", input, _FLOAT)

    def reciprocal(self, input: MLOperand) -> MLOperand:
        """``1 / x``."""
        return self._unary("webnn.reciprocal", "ELEMENT_WISE_RECIP", input, _FLOAT)

    def sign(self, input: MLOperand) -> MLOperand:
        """-1, 0 or 1."""
        return self._unary("webnn.sign", "ELEMENT_WISE_SIGN", input, _SIGNED)

    def identity(self, input: MLOperand) -> MLOperand:
        """A copy."""
        return self._unary("webnn.identity", "ELEMENT_WISE_IDENTITY", input, _ANY)

    def isNaN(self, input: MLOperand) -> MLOperand:
        """1 where NaN (uint8)."""
        return self._unary("webnn.isNaN", "ELEMENT_WISE_IS_NAN", input, _FLOAT, DataType.UINT8)

    def isInfinite(self, input: MLOperand) -> MLOperand:
        """1 where +-infinity (uint8)."""
        mode = IsInfinityMode.EITHER
        return self._unary(
            "webnn.isInfinite", "ELEMENT_WISE_IS_INFINITY", input, _FLOAT, DataType.UINT8, infinity_mode=mode
        )

    def cast(self, input: MLOperand, type: str, options: Mapping[str, Any] | None = None) -> MLOperand:
        """``input`` as data type ``type`` (a float to an integer truncates toward zero and saturates, NaN 0)."""
        w = "webnn.cast"
        _Options(w, options, {}, set())
        x = self._operand(input, w, "input")
        if type not in _TYPES:
            raise TypeError(f"{w}: type {type!r} is not one of {', '.join(_TYPES)}")
        return self._eltwise(w, "CAST", [x], _TYPES[type])

    # -- activations -------------------------------------------------------------------------------

    def relu(self, input: MLOperand) -> MLOperand:
        """``max(0, x)``."""
        return self._unary("webnn.relu", "ACTIVATION_RELU", input, _SIGNED)

    def sigmoid(self, input: MLOperand) -> MLOperand:
        """``1 / (1 + exp(-x))``."""
        return self._unary("webnn.sigmoid", "ACTIVATION_SIGMOID", input, _FLOAT)

    def tanh(self, input: MLOperand) -> MLOperand:
        """Hyperbolic tangent."""
        return self._unary("webnn.tanh", "ACTIVATION_TANH", input, _FLOAT)

    def softsign(self, input: MLOperand) -> MLOperand:
        """``x / (1 + |x|)``."""
        return self._unary("webnn.softsign", "ACTIVATION_SOFTSIGN", input, _FLOAT)

    def softplus(self, input: MLOperand) -> MLOperand:
        """``log(1 + exp(x))``."""
        return self._unary("webnn.softplus", "ACTIVATION_SOFTPLUS", input, _FLOAT, steepness=1.0)

    def gelu(self, input: MLOperand) -> MLOperand:
        """``x * (1 + erf(x / sqrt(2))) / 2``."""
        return self._unary("webnn.gelu", "ACTIVATION_GELU", input, _FLOAT)

    def hardSwish(self, input: MLOperand) -> MLOperand:
        """``x * max(0, min(6, x + 3)) / 6``: HARD_SWISH with alpha 1/6, beta 0.5."""
        return self._unary("webnn.hardSwish", "ACTIVATION_HARD_SWISH", input, _FLOAT, alpha=1 / 6, beta=0.5)

    def elu(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``x`` if ``x >= 0`` else ``alpha * (exp(x) - 1)``; options ``alpha`` (1)."""
        o = _Options("webnn.elu", options, kw, {"alpha"})
        return self._unary(o.where, "ACTIVATION_ELU", input, _FLOAT, alpha=o.number("alpha", 1.0))

    def leakyRelu(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``x`` if ``x >= 0`` else ``alpha * x``; options ``alpha`` (0.01)."""
        o = _Options("webnn.leakyRelu", options, kw, {"alpha"})
        return self._unary(o.where, "ACTIVATION_LEAKY_RELU", input, _FLOAT, alpha=o.number("alpha", 0.01))

    def hardSigmoid(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``max(0, min(1, alpha * x + beta))``; options ``alpha`` (0.2), ``beta`` (0.5)."""
        o = _Options("webnn.hardSigmoid", options, kw, {"alpha", "beta"})
        return self._unary(
            o.where, "ACTIVATION_HARD_SIGMOID", input, _FLOAT, alpha=o.number("alpha", 0.2), beta=o.number("beta", 0.5)
        )

    def linear(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``alpha * x + beta``; options ``alpha`` (1), ``beta`` (0)."""
        o = _Options("webnn.linear", options, kw, {"alpha", "beta"})
        return self._unary(
            o.where, "ACTIVATION_LINEAR", input, _FLOAT, alpha=o.number("alpha", 1.0), beta=o.number("beta", 0.0)
        )

    def clamp(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``input`` limited to [``minValue``, ``maxValue``] (options; default: the type's whole range), bounds
        of the input's own type (``ELEMENT_WISE_CLIP1``)."""
        w = "webnn.clamp"
        o = _Options(w, options, kw, {"minValue", "maxValue"})
        x = self._operand(input, w, "input")
        dt = x.data_type.numpy_dtype
        if dt.kind == "f":
            lo_default: float = -math.inf
            hi_default: float = math.inf
        else:
            lo_default, hi_default = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
        bounds: list[float] = []
        for name, default in (("minValue", lo_default), ("maxValue", hi_default)):
            v = o.values.get(name, default)
            if not _is_number(v) or (dt.kind == "f" and math.isnan(float(v))):
                raise TypeError(f"{w}: options.{name} must be a number, got {v!r}")
            if dt.kind != "f":
                if not float(v).is_integer() or not lo_default <= int(v) <= hi_default:
                    raise TypeError(f"{w}: options.{name} {v!r} is not a {x.dataType} value")
                v = int(v)
            bounds.append(v)
        if bounds[0] > bounds[1]:
            raise ValueError(f"{w}: options.minValue {bounds[0]!r} is greater than options.maxValue {bounds[1]!r}")
        return self._eltwise(w, "ELEMENT_WISE_CLIP1", [x], min=bounds[0], max=bounds[1])

    def prelu(self, input: MLOperand, slope: MLOperand) -> MLOperand:
        """``x`` if ``x >= 0`` else ``slope * x``; ``slope`` broadcasts to ``input``'s shape."""
        w = "webnn.prelu"
        x, s = self._operand(input, w, "input", _SIGNED), self._operand(slope, w, "slope", _SIGNED)
        if x.data_type is not s.data_type:
            raise TypeError(f"{w}: input is {x.dataType} and slope {s.dataType}; WebNN requires one type")
        shape = self._broadcast_to(w, "slope", s, x.logical)
        return self._eltwise(w, "ACTIVATION_PARAMETERIZED_RELU", [x, s], shape=shape)

    def _broadcast_to(self, where: str, what: str, v: MLOperand, shape: Shape) -> Shape:
        """``shape``, checked that ``v`` broadcasts to it (unidirectionally)."""
        try:
            ok = np.broadcast_shapes(v.logical, shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{where}: {what} of shape {list(v.logical)} does not broadcast to {list(shape)}")
        return shape

    def expand(self, input: MLOperand, newShape: Sequence[int]) -> MLOperand:
        """``input`` broadcast to ``newShape``."""
        w = "webnn.expand"
        x = self._operand(input, w, "input")
        shape = MLOperandDescriptor(x.dataType, tuple(newShape)).shape
        self._broadcast_to(w, "input", x, shape)
        return self._eltwise(w, "ELEMENT_WISE_IDENTITY", [x], shape=shape)

    def reshape(self, input: MLOperand, newShape: Sequence[int]) -> MLOperand:
        """``input``'s elements, in order, as ``newShape``."""
        w = "webnn.reshape"
        x = self._operand(input, w, "input")
        shape = MLOperandDescriptor(x.dataType, tuple(newShape)).shape
        if math.prod(shape) != math.prod(x.logical):
            raise ValueError(
                f"{w}: newShape {list(shape)} holds {math.prod(shape)} elements, input "
                f"{list(x.logical)} {math.prod(x.logical)}"
            )
        phys = _pad(shape)
        return self._node(w, "ELEMENT_WISE_IDENTITY", [x], [(phys, phys)], shape, phys, x.data_type)

    # -- reductions --------------------------------------------------------------------------------

    def _reduce(
        self,
        name: str,
        function: ReduceFunction,
        types: Sequence[str],
        input: MLOperand,
        options: Mapping[str, Any] | None,
        kw: dict[str, Any],
    ) -> MLOperand:
        w = f"webnn.{name}"
        o = _Options(w, options, kw, {"axes", "keepDimensions"})
        x = self._operand(input, w, "input", types)
        rank = len(x.logical)
        axes = self._axes(w, x, o.values.get("axes", tuple(range(rank))))
        keep = o.flag("keepDimensions")
        if not axes:  # WebNN: nothing is reduced; each element is the reduction of itself
            view = (*_pad(x.logical), 1)
            return self._node(
                w, "REDUCE", [x], [(view, view)], x.logical, view, x.data_type, function=function, axes=(len(view) - 1,)
            )
        phys = tuple(1 if d in axes else s for d, s in enumerate(x.logical))
        shape = phys if keep else tuple(s for d, s in enumerate(x.logical) if d not in axes)
        return self._node(w, "REDUCE", [x], [self._whole(x)], shape, phys, x.data_type, function=function, axes=axes)

    def reduceSum(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Sum over ``axes`` (options ``axes``: default all, ``[]`` none; ``keepDimensions``: False)."""
        return self._reduce("reduceSum", ReduceFunction.SUM, _SUMMABLE, input, options, kw)

    def reduceMean(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Mean over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceMean", ReduceFunction.AVERAGE, _FLOAT, input, options, kw)

    def reduceMax(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Maximum over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceMax", ReduceFunction.MAX, _ANY, input, options, kw)

    def reduceMin(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Minimum over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceMin", ReduceFunction.MIN, _ANY, input, options, kw)

    def reduceProduct(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Product over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceProduct", ReduceFunction.MULTIPLY, _SUMMABLE, input, options, kw)

    def reduceL1(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Sum of ``|x|`` over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceL1", ReduceFunction.L1, _SUMMABLE, input, options, kw)

    def reduceL2(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``sqrt(sum(x * x))`` over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceL2", ReduceFunction.L2, _FLOAT, input, options, kw)

    def reduceLogSum(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``log(sum(x))`` over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceLogSum", ReduceFunction.LOG_SUM, _FLOAT, input, options, kw)

    def reduceLogSumExp(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """``log(sum(exp(x)))`` over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceLogSumExp", ReduceFunction.LOG_SUM_EXP, _FLOAT, input, options, kw)

    def reduceSumSquare(self, input: MLOperand, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Sum of ``x * x`` over ``axes`` (as ``reduceSum``)."""
        return self._reduce("reduceSumSquare", ReduceFunction.SUM_SQUARE, _SUMMABLE, input, options, kw)

    def _arg(
        self, name: str, row: str, input: MLOperand, axis: int, options: Mapping[str, Any] | None, kw: dict[str, Any]
    ) -> MLOperand:
        w = f"webnn.{name}"
        o = _Options(w, options, kw, {"keepDimensions", "outputDataType"})
        x = self._operand(input, w, "input")
        ax = self._axis(w, x, axis)
        out = o.values.get("outputDataType", "int32")
        if out not in ("int32", "int64"):
            raise TypeError(f"{w}: options.outputDataType {out!r} is not int32 or int64")
        phys = tuple(1 if d == ax else s for d, s in enumerate(x.logical))
        shape = phys if o.flag("keepDimensions") else tuple(s for d, s in enumerate(x.logical) if d != ax)
        return self._node(
            w, row, [x], [self._whole(x)], shape, phys, _TYPES[out], axes=(ax,), axis_direction=AxisDirection.INCREASING
        )

    def argMax(self, input: MLOperand, axis: int, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Index of the largest value along ``axis`` (the first of equal ones); options ``keepDimensions``
        (False), ``outputDataType`` (``"int32"`` or ``"int64"``)."""
        return self._arg("argMax", "ARGMAX", input, axis, options, kw)

    def argMin(self, input: MLOperand, axis: int, options: Mapping[str, Any] | None = None, **kw: Any) -> MLOperand:
        """Index of the smallest value along ``axis`` (as ``argMax``)."""
        return self._arg("argMin", "ARGMIN", input, axis, options, kw)

    def softmax(self, input: MLOperand, axis: int, options: Mapping[str, Any] | None = None) -> MLOperand:
        """``exp(x) / sum(exp(x))`` along ``axis`` (``ACTIVATION_SOFTMAX1``)."""
        w = "webnn.softmax"
        _Options(w, options, {}, set())
        x = self._operand(input, w, "input", _FLOAT)
        ax = self._axis(w, x, axis)
        return self._node(
            w, "ACTIVATION_SOFTMAX1", [x], [self._whole(x)], x.logical, _pad(x.logical), x.data_type, axes=(ax,)
        )

    def cumulativeSum(
        self, input: MLOperand, axis: int, options: Mapping[str, Any] | None = None, **kw: Any
    ) -> MLOperand:
        """Running sum along ``axis``; options ``exclusive`` (False: each sum includes its own element),
        ``reversed`` (False: from the start)."""
        w = "webnn.cumulativeSum"
        o = _Options(w, options, kw, {"exclusive", "reversed"})
        x = self._operand(input, w, "input", _SUMMABLE)
        ax = self._axis(w, x, axis)
        direction = AxisDirection.DECREASING if o.flag("reversed") else AxisDirection.INCREASING
        return self._node(
            w,
            "CUMULATIVE_SUMMATION",
            [x],
            [self._whole(x)],
            x.logical,
            _pad(x.logical),
            x.data_type,
            axis=ax,
            axis_direction=direction,
            has_exclusive_sum=o.flag("exclusive"),
        )

    # -- quantization ------------------------------------------------------------------------------

    def _quant(self, w: str, row: str, x: MLOperand, scale: MLOperand, zero: MLOperand, out: DataType) -> MLOperand:
        if scale.logical != zero.logical:
            raise ValueError(f"{w}: scale {list(scale.logical)} and zeroPoint {list(zero.logical)} differ in shape")
        if len(scale.logical) > len(x.logical):
            raise ValueError(f"{w}: scale has rank {len(scale.logical)}, above input's {len(x.logical)}")
        blocks = _left_pad(scale.logical, len(x.logical))
        phys: list[int] = []
        view: list[int] = []
        for d, (n, s) in enumerate(zip(x.logical, blocks, strict=True)):
            if n % s:
                raise ValueError(f"{w}: input dimension {d} ({n}) is not a multiple of scale's ({s})")
            if 1 < s < n:  # blocks of n // s elements share one scale: split the dimension
                phys += [s, n // s]
                view += [s, 1]
            else:
                phys.append(n)
                view.append(s)
        p = _pad(tuple(phys))
        reads = [(p, p), (_pad(tuple(view)), p), (_pad(tuple(view)), p)]
        return self._node(w, row, [x, scale, zero], reads, x.logical, p, out)

    def quantizeLinear(self, input: MLOperand, scale: MLOperand, zeroPoint: MLOperand) -> MLOperand:
        """``saturate(roundEven(input / scale) + zeroPoint)`` of ``zeroPoint``'s type; ``scale`` and
        ``zeroPoint`` (one shape) broadcast to ``input``, or each element covers a block of it."""
        w = "webnn.quantizeLinear"
        x = self._operand(input, w, "input", _FLOAT)
        s = self._operand(scale, w, "scale", _FLOAT)
        z = self._operand(zeroPoint, w, "zeroPoint", ("int8", "uint8", "int32"))
        if s.data_type is not x.data_type:
            raise TypeError(f"{w}: scale is {s.dataType} and input {x.dataType}; WebNN requires one type")
        return self._quant(w, "ELEMENT_WISE_QUANTIZE_LINEAR", x, s, z, z.data_type)

    def dequantizeLinear(self, input: MLOperand, scale: MLOperand, zeroPoint: MLOperand) -> MLOperand:
        """``(input - zeroPoint) * scale`` of ``scale``'s type; shapes as in ``quantizeLinear``."""
        w = "webnn.dequantizeLinear"
        x = self._operand(input, w, "input", ("int8", "uint8", "int32"))
        s = self._operand(scale, w, "scale", _FLOAT)
        z = self._operand(zeroPoint, w, "zeroPoint", ("int8", "uint8", "int32"))
        if z.data_type is not x.data_type:
            raise TypeError(f"{w}: zeroPoint is {z.dataType} and input {x.dataType}; WebNN requires one type")
        return self._quant(w, "ELEMENT_WISE_DEQUANTIZE_LINEAR", x, s, z, s.data_type)

    # -- the graph ---------------------------------------------------------------------------------

    def build(self, outputs: Mapping[str, MLOperand]) -> MLGraph:
        """Compile the graph computing ``outputs`` (``{name: operand}``, operators' results) on the device."""
        w = "webnn.build"
        self._check_open(w)
        if not isinstance(outputs, Mapping) or not outputs:
            raise TypeError(f"{w}: outputs must be a non-empty dict of name -> MLOperand")
        for name, v in outputs.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"{w}: output names must be non-empty strings, got {name!r}")
            self._operand(v, w, f"outputs[{name!r}]")
            if v.kind != "op":
                raise TypeError(f"{w}: outputs[{name!r}] is an {v.kind}; a graph output must be an operator's result")
        graph = MLGraph(self.context, dict(self._inputs), dict(outputs))
        self._built = True
        return graph


def _row_inputs(row: str) -> Sequence[Any]:
    return desc_class(row).row.input_fields
