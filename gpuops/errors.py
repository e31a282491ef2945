"""gpuops' own exceptions (``DescriptorError`` comes from ``descriptors``)."""

from __future__ import annotations

from descriptors.errors import count as count  # "1 output", "2 outputs": one helper for every message

__all__ = ["BindingError", "ConfigError", "UnsupportedError"]


class UnsupportedError(RuntimeError):
    """The backend cannot provide what was asked (DirectML: ``DXGI_ERROR_UNSUPPORTED``)."""


class BindingError(ValueError):
    """A buffer bound to ``execute`` does not fit its tensor; raised before anything is written."""


class ConfigError(ValueError):
    """An environment variable gpuops reads (``gpuops.config``) holds a value it does not allow.

    ``variable`` names it and ``value`` is what it held; raised by ``import gpuops`` or ``gpuops.config.reload()``.
    """

    def __init__(self, message: str, variable: str | None = None, value: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable
        self.value = value
