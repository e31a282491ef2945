"""The one exception type of the descriptor model."""

from __future__ import annotations

__all__ = ["DescriptorError", "UnknownOperatorError"]


class DescriptorError(ValueError):
    """An invalid descriptor or argument (DirectML answers ``E_INVALIDARG``, as from CreateOperator).

    ``field`` is the dotted path of the offending field, for example ``"b_tensor.sizes"``.
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class UnknownOperatorError(DescriptorError, KeyError):
    """An operator name the op table does not know: a ``DescriptorError``, and a ``KeyError``
    for callers that look operators up as in a mapping."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def count(n: int, noun: str) -> str:
    """``count(1, "output")`` -> ``"1 output"``, ``count(2, "output")`` -> ``"2 outputs"``: messages say it right
    (``gpuops.errors`` re-exports it)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
