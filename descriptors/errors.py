"""The one exception type of the descriptor model."""

from __future__ import annotations

__all__ = ["DescriptorError"]


class DescriptorError(ValueError):
    """An invalid descriptor (DirectML answers ``E_INVALIDARG`` from CreateOperator).

    ``field`` is the dotted path of the offending field, for example ``"b_tensor.sizes"``.
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field
