"""gpuops' own exceptions (``DescriptorError`` comes from ``descriptors``)."""

from __future__ import annotations

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


def count(n: int, noun: str) -> str:
    """``count(1, "output")`` -> ``"1 output"``, ``count(2, "output")`` -> ``"2 outputs"``: messages say it right."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
