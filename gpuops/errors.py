"""gpuops' own exceptions (``DescriptorError`` comes from ``descriptors``)."""

from __future__ import annotations

__all__ = ["BindingError", "UnsupportedError"]


class UnsupportedError(RuntimeError):
    """The backend cannot provide what was asked (DirectML: ``DXGI_ERROR_UNSUPPORTED``)."""


class BindingError(ValueError):
    """A buffer bound to ``execute`` does not fit its tensor; raised before anything is written."""
