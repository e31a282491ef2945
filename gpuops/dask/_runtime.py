"""Per process: a device per backend, compiled operators and graphs cached per (backend, descriptor), and which
backend a chunk belongs to. Shared by ``gpuops.dask``'s blockwise maps and its tree reductions, so a worker
compiles each descriptor once whichever of them asks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from descriptors import GraphDesc

from ..device import CompiledOperator, Device

__all__ = ["backend_of", "compiled", "device"]


@functools.cache
def device(backend: str) -> Device:
    return Device(backend)


@functools.lru_cache(maxsize=1024)
def compiled(backend: str, what: Any) -> CompiledOperator:
    """Compiled once per process, backend and descriptor (an operator's, or a GraphDesc), then shared."""
    dev = device(backend)
    if isinstance(what, GraphDesc):
        return dev.compile_graph(what)
    return dev.compile_operator(dev.create_operator(what))


def backend_of(chunks: Sequence[Any]) -> str:
    kinds = set()
    for c in chunks:
        if type(c) is np.ndarray:
            kinds.add("numpy")
        elif type(c).__module__.split(".")[0] == "cupy" and type(c).__name__ == "ndarray":
            kinds.add("cupy")
        else:
            raise TypeError(
                f"gpuops.dask: a chunk is a {type(c).__module__}.{type(c).__name__}; gpuops runs numpy.ndarray "
                "chunks (backend 'numpy') and cupy.ndarray chunks (backend 'cupy')"
            )
    if len(kinds) != 1:
        raise TypeError("gpuops.dask: one task got both NumPy and CuPy chunks; put the arrays on one side first")
    return kinds.pop()
