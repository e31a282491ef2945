"""gpuops: DirectML's operator-descriptor model, lowered to CuPy kernels (or run on NumPy).

>>> import numpy as np, gpuops
>>> from descriptors import DataType, TensorDesc, ElementWiseAddOperatorDesc
>>> t = TensorDesc(DataType.FLOAT32, (2, 3))
>>> dev = gpuops.Device("numpy")
>>> op = dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
>>> a = np.arange(6, dtype=np.float32); out = np.empty(6, np.float32)
>>> op.execute([a, a], [out]); out.tolist()
[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
"""

from __future__ import annotations

import logging

from descriptors import *  # noqa: F403 - every public name of descriptors: from gpuops import TensorDesc
from descriptors import DescriptorError

from . import (
    config,  # reads and validates GPUOPS_* once: a bad value is a ConfigError here
    webnn,  # WebNN's vocabulary: MLGraphBuilder over GraphBuilder
)
from .convenience import run
from .device import BACKEND_FEATURE_LEVEL, CompiledOperator, Device, Operator
from .errors import BindingError, ConfigError, UnsupportedError
from .graph_builder import GraphBuilder
from .kernels import build_count

logging.getLogger("gpuops").addHandler(logging.NullHandler())

__version__ = "0.1.0"

__all__ = [
    "BACKEND_FEATURE_LEVEL",
    "BindingError",
    "CompiledOperator",
    "ConfigError",
    "DescriptorError",
    "Device",
    "GraphBuilder",
    "Operator",
    "UnsupportedError",
    "build_count",
    "config",
    "run",
    "webnn",
]
# Every public name of descriptors is importable from gpuops too (``from gpuops import TensorDesc``); they
# stay out of __all__ so the API reference documents each once, on the descriptors page.
