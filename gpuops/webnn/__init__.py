"""WebNN's vocabulary (W3C Web Neural Network API) over ``GraphBuilder`` and ``Device.compile_graph``.

>>> import numpy as np, gpuops
>>> from gpuops import webnn
>>> builder = webnn.MLGraphBuilder(gpuops.Device("numpy"))
>>> x = builder.input("x", {"dataType": "float32", "shape": [2, 3]})
>>> bias = builder.constant({"dataType": "float32", "shape": [3]}, np.float32([-1, 0, 1]))
>>> y = builder.reduceSum(builder.relu(builder.add(x, bias)), {"axes": [1]})
>>> graph = builder.build({"y": y})
>>> graph.compute({"x": np.arange(6, dtype=np.float32).reshape(2, 3)})["y"].tolist()
[4.0, 12.0]

Operations are ``MLGraphBuilder`` methods named as the specification writes them (``reduceSum``,
``leakyRelu``, ``greaterOrEqual``); options are a dict as in JavaScript (``{"axes": [1], "keepDimensions":
True}``) or keyword arguments (``keepDimensions=True``). ``build({name: operand})`` compiles an ``MLGraph``;
``MLGraph.compute({name: array})`` (or ``MLContext.compute`` / ``dispatch``) runs it on the builder's device
and returns ``{name: array}``; arrays are the device's own (NumPy on ``"numpy"``, CuPy on ``"cupy"``, the
emulator's on ``"emulator"``).

Where WebNN and DirectML differ, this module follows WebNN:

==========================  =========================================================================
WebNN                       how it runs
==========================  =========================================================================
broadcasting (NumPy rules)  inputs and constants are read through zero strides; an intermediate that
                            must broadcast (or change shape) ends a compiled graph and is read from
                            its buffer by the next one
0-D operands                run as shape (1,), returned with shape ()
clamp bounds                of the input's own type: ``ELEMENT_WISE_CLIP1`` with ``MinMaxDataType``
                            (CLIP's float32 bounds are wrong for int32 near 2**31)
``axes: []``                reduces nothing: a reduction over an appended axis of size 1
softmax(axis)               ``ACTIVATION_SOFTMAX1`` over that one axis
argMax / argMin             the first index among equal values (``AxisDirection.INCREASING``)
hardSwish                   ``ACTIVATION_HARD_SWISH`` with alpha 1/6, beta 0.5
quantize scale/zeroPoint    may cover blocks of the input: each input dimension is split into
                            (blocks, block size) and the scale is read with stride 0 in the block
notEqual                    ``LOGICAL_NOT`` of ``LOGICAL_EQUALS``
==========================  =========================================================================

What WebNN leaves open runs as gpuops' semantics (README): integer ``div`` truncates toward zero (0 for a
division by zero), integer ``pow`` is exact (a negative exponent truncates), ``max``/``min`` propagate NaN,
``cast`` from a float truncates toward zero and saturates (NaN to 0).
"""

from __future__ import annotations

from ._builder import MLGraphBuilder
from ._graph import MLContext, MLGraph, createContext
from ._operand import MLOperand, MLOperandDescriptor

__all__ = ["MLContext", "MLGraph", "MLGraphBuilder", "MLOperand", "MLOperandDescriptor", "createContext"]
