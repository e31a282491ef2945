"""Execution backends, one module each, behind one protocol (``base.Backend``).

``REGISTRY`` is the only place that knows which backends exist: ``Device`` asks it whether a backend is
usable here and loads it (modules are imported only when selected, so CuPy is never imported on the
NumPy backend). Adding a backend is a module implementing ``base.Backend`` plus one entry here.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

__all__ = ["REGISTRY", "backend_owning", "load", "unavailable_reason"]

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


def backend_owning(array: object) -> str | None:
    """The name of the backend whose arrays ``array`` is one of: ``type(array)`` is exactly that backend's
    ``array_type`` (a subclass, such as a masked array or a memmap, is no backend's); None where no backend's.

    Asks each backend of ``REGISTRY`` in order, as :func:`load` makes it: no ``Device`` is made and no device
    touched; the first match ends the question, so a NumPy array never loads another backend. A backend that
    cannot be loaded here (CuPy not installed, or failing to import) owns nothing, and is not tried again."""
    kind = type(array)
    for name in REGISTRY:
        if _array_type(name) is kind:
            return name
    return None


@functools.cache
def _array_type(name: str) -> type | None:
    """``load(name).array_type``, or None where the backend cannot be loaded."""
    try:
        owned: type = load(name).array_type
    except Exception:  # ImportError, or whatever a broken install raises: then none of its arrays exist here
        return None
    return owned
