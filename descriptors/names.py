"""The one operator-name parser: short names, synonyms, DirectML names, classes and ``OperatorType`` members.

Every operator has exactly one short name, derived from its ``OperatorType`` name: the family prefix
(``ELEMENT_WISE_``, ``ACTIVATION_``, ``ELTWISE_``) dropped and the rest in lower case (``ELEMENT_WISE_ADD`` ->
``add``, ``ACTIVATION_RELU`` -> ``relu``, ``ELTWISE_MISH_GRAD`` -> ``mish_grad``). Where two families share a
stem, the earlier family in that order keeps the short name and the other one is spelled in full:
``identity`` is ``ELEMENT_WISE_IDENTITY`` and ``activation_identity`` is ``ACTIVATION_IDENTITY``. A few
NumPy-style synonyms (``sub``, ``mul``, ``div``, ...) are accepted as input as well. ``row_of``,
``operator_support``, ``Device.operator_support``, ``desc_class`` and the command line all parse through
:func:`operator_type`. The parser itself is ``descriptors.spelling.OperatorNames`` (it knows no op table):
``descriptors.optable`` makes the one over ``OperatorType`` for ``row_of``, and this module offers its answers.
"""

from __future__ import annotations

from .optable import OPERATOR_NAMES, OperatorType
from .spelling import FAMILY_PREFIXES, SYNONYMS

__all__ = ["FAMILY_PREFIXES", "SYNONYMS", "operator_type", "short_name", "short_names"]


def short_names() -> dict[OperatorType, str]:
    """Every operator's short name (see the module docstring), in ``OperatorType`` order."""
    return OPERATOR_NAMES.short_names()


def short_name(op: OperatorType) -> str:
    """``OperatorType.ELEMENT_WISE_ADD`` -> ``"add"``."""
    return OPERATOR_NAMES.short_name(op)


def operator_type(op: object) -> OperatorType:
    """An ``OperatorType`` from any spelling: the member itself, a descriptor class or instance, or a name in any
    case (``add``, ``ADD``, ``sub``, ``element_wise_add``, ``Element-Wise-Add``, ``DML_OPERATOR_ELEMENT_WISE_ADD``).
    An unknown name is an ``UnknownOperatorError`` listing close matches; another type a ``TypeError``."""
    return OPERATOR_NAMES.operator_type(op)
