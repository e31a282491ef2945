"""Per process: a device per backend, compiled operators and graphs cached per (backend, descriptor), and which
backend a chunk belongs to, as the backends' registry says (``gpuops.backends.backend_owning``: ``numpy.ndarray``:
"numpy"; ``cupy.ndarray``: "cupy"; the CUDA emulator's ``gpuops.emulator.memory.ndarray``: "emulator", the CuPy
backend's code path on the CPU). Shared by ``gpuops.dask``'s blockwise maps and its tree reductions, so a worker
compiles each descriptor once whichever of them asks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from descriptors import GraphDesc
from descriptors.exact import Exact

from .. import backends
from ..device import CompiledOperator, Device

__all__ = ["array_module", "backend_of", "compiled", "device"]


@functools.cache
def _emulator_ndarray() -> type:
    """The emulator's array type; importing it also teaches Dask to join its chunks (``concatenate_lookup``), as
    ``dask.array`` does for CuPy, so tree reductions and ``compute()`` work on emulator chunks."""
    from dask.array.dispatch import concatenate_lookup

    from ..emulator import array_functions, memory

    concatenate_lookup.register(memory.ndarray, array_functions.concatenate)
    return memory.ndarray


def array_module(backend: str) -> Any:
    """The array library of a backend's chunks, the backend's own (``xp``): NumPy, CuPy, or the emulator's CuPy-like
    module (``gpuops.emulator.runtime``)."""
    return backends.load(backend).xp


@functools.cache
def device(backend: str) -> Device:
    return Device(backend)


def compiled(backend: str, what: Any) -> CompiledOperator:
    """Compiled once per process, backend and descriptor (an operator's, or a GraphDesc), then shared; cached by
    the descriptor's exact bits (``descriptors.exact``: ``-0.0`` is not ``+0.0``, ``True`` is not ``1``)."""
    return _compiled_exact(backend, Exact(what))


@functools.lru_cache(maxsize=1024)
def _compiled_exact(backend: str, exact: Exact[Any]) -> CompiledOperator:
    what = exact.value
    dev = device(backend)
    if isinstance(what, GraphDesc):
        return dev.compile_graph(what)
    return dev.compile_operator(dev.create_operator(what))


def backend_of(chunks: Sequence[Any]) -> str:
    """The backend of the chunks of one task (the registry's ``backend_owning``); TypeError for a chunk of no backend,
    or chunks of several."""
    kinds = set()
    for c in chunks:
        kind = backends.backend_owning(c)
        if kind is None:
            raise TypeError(
                f"gpuops.dask: a chunk is a {type(c).__module__}.{type(c).__name__}; gpuops runs numpy.ndarray "
                "chunks (backend 'numpy'), cupy.ndarray chunks (backend 'cupy') and the CUDA emulator's arrays "
                "(backend 'emulator')"
            )
        if kind == "emulator":
            _emulator_ndarray()  # Dask joins the emulator's chunks from now on
        kinds.add(kind)
    if len(kinds) != 1:
        raise TypeError(
            f"gpuops.dask: one task got chunks of several backends ({', '.join(sorted(kinds))}); put the arrays on "
            "one side first"
        )
    return kinds.pop()
