"""The NumPy backend: now the package ``gpuops.backends.cpu`` (its docstring maps the modules); this module
re-exports the names it used to define. The thresholds it held are fields of ``cpu.policy.CpuPolicy``."""

from __future__ import annotations

from .cpu.backend import NumpyBackend
from .cpu.fast import FastPaths, fast_paths
from .cpu.reductions import NumpyReduceKernel
from .cpu.ufunc_kernels import NumpyKernel
from .cpu.views import logical_index, may_overlap, pointer, view_maker

__all__ = [
    "FastPaths",
    "NumpyBackend",
    "NumpyKernel",
    "NumpyReduceKernel",
    "fast_paths",
    "logical_index",
    "may_overlap",
    "pointer",
    "view_maker",
]
