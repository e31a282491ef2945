"""``MLGraphBuilder``: WebNN's operations as operator nodes (each with the layout it reads its inputs through)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..device import Device
from ._elementwise import _ElementwiseOps
from ._graph import MLContext, MLGraph
from ._operand import (
    MLOperand,
    MLOperandDescriptor,
    _descriptor,
    _is_number,
)
from ._shapes import _ShapeAndReduceOps


class MLGraphBuilder(_ElementwiseOps, _ShapeAndReduceOps):
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
