"""WebNN's shape, reduction, softmax, scan and quantization operations as operator nodes."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from descriptors import (
    AxisDirection,
    DataType,
    ReduceFunction,
)

from ._core import _BuilderCore
from ._operand import (
    _ANY,
    _FLOAT,
    _SUMMABLE,
    _TYPES,
    MLOperand,
    MLOperandDescriptor,
    _left_pad,
    _Options,
    _pad,
)


class _ShapeAndReduceOps(_BuilderCore):
    """``MLGraphBuilder``'s expand, reshape, reductions, argMax/argMin, softmax, cumulativeSum, quantize."""

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
