"""WebNN's element-wise operations (binary, comparison, logical, unary, activations) as operator nodes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from descriptors import (
    DataType,
    IsInfinityMode,
    RoundingMode,
)

from ._core import _BuilderCore
from ._operand import (
    _ANY,
    _FLOAT,
    _SIGNED,
    _TYPES,
    MLOperand,
    _is_number,
    _Options,
)


class _ElementwiseOps(_BuilderCore):
    """``MLGraphBuilder``'s element-wise operations."""

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
