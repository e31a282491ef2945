"""gpuops' DirectML-style descriptor model: pure Python over numpy and ml_dtypes.

Enums with DirectML's numbering, ``TensorDesc``, one descriptor dataclass per operator
(generated from the op table), the capability tables and ``validate``. Never imports
``cupy`` or ``gpuops``.
"""

from __future__ import annotations

from .capabilities import OperatorSupport, TensorSupport, dtype_combinations, operator_support
from .descs import *  # noqa: F403  (every descriptor class; descs.pyi lists them for type checkers)
from .descs import DESC_CLASSES, OperatorDesc, ScaleBias, desc_class
from .enums import (
    AxisDirection,
    DataType,
    ExecutionFlags,
    FeatureLevel,
    IsInfinityMode,
    ReduceFunction,
    RoundingMode,
    TensorFlags,
)
from .errors import DescriptorError
from .graph import ConstantNode, GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge, validate_graph
from .optable import ROWS, OperatorType, row_of
from .tensor import TensorDesc, calc_buffer_tensor_size, packed_strides
from .validate import validate

__all__ = [
    "ROWS",
    "AxisDirection",
    "ConstantNode",
    "DataType",
    "DescriptorError",
    "ExecutionFlags",
    "GraphDesc",
    "InputEdge",
    "IntermediateEdge",
    "FeatureLevel",
    "IsInfinityMode",
    "OperatorDesc",
    "OperatorNode",
    "OperatorSupport",
    "OperatorType",
    "OutputEdge",
    "ReduceFunction",
    "RoundingMode",
    "ScaleBias",
    "TensorDesc",
    "TensorFlags",
    "TensorSupport",
    "calc_buffer_tensor_size",
    "desc_class",
    "dtype_combinations",
    "operator_support",
    "packed_strides",
    "row_of",
    "validate",
    "validate_graph",
    *(c.__name__ for c in DESC_CLASSES.values()),
]
