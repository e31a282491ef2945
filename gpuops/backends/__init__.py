"""Execution backends, one module each, behind one protocol (``base.Backend``).

``REGISTRY`` is the only place that knows which backends exist: ``Device`` asks it whether a backend is
usable here and loads it (modules are imported only when selected, so CuPy is never imported on the
NumPy backend). Adding a backend is a module implementing ``base.Backend`` plus one entry here.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

__all__ = ["REGISTRY", "load", "unavailable_reason"]

#: ``Device(backend=...)`` name -> (module, class) implementing ``gpuops.backends.base.Backend``.
REGISTRY: dict[str, tuple[str, str]] = {
    "numpy": ("gpuops.backends.cpu.backend", "NumpyBackend"),
    "cupy": ("gpuops.backends.cupy_backend", "CupyBackend"),
    "emulator": ("gpuops.emulator.backend", "EmulatorBackend"),
}


def _backend_class(name: str) -> Any:
    module, cls = REGISTRY[name]
    return getattr(importlib.import_module(module), cls)


def unavailable_reason(name: str) -> str | None:
    """None when backend ``name`` can run here, else why not (``KeyError`` for an unknown name)."""
    try:
        cls = _backend_class(name)
    except ImportError as exc:
        return f"it cannot be imported ({exc})"
    why: str | None = cls.unavailable_reason()
    return why


@functools.cache
def load(name: str) -> Any:
    """The backend ``name`` (one instance per process); call :func:`unavailable_reason` first."""
    return _backend_class(name)()
