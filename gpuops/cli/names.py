"""Operator short names and feature-level parsing for the command line (``descriptors.names`` does the work).

Every operator has exactly one short name, derived from its ``OperatorType`` name: the family
prefix (``ELEMENT_WISE_``, ``ACTIVATION_``, ``ELTWISE_``) dropped and the rest in lower case
(``ELEMENT_WISE_ADD`` -> ``add``, ``ACTIVATION_RELU`` -> ``relu``, ``ELTWISE_MISH_GRAD`` ->
``mish_grad``). Where two families share a stem, the earlier family in that order keeps the short
name and the other one is spelled in full: ``identity`` is ``ELEMENT_WISE_IDENTITY`` and
``activation_identity`` is ``ACTIVATION_IDENTITY``. A few NumPy-style synonyms (``sub``, ``mul``,
``div``, ...) are accepted as input as well.
"""

from __future__ import annotations

from descriptors import FeatureLevel, OperatorType
from descriptors.errors import UnknownOperatorError
from descriptors.names import FAMILY_PREFIXES, SYNONYMS, operator_type, short_name, short_names

__all__ = ["FAMILY_PREFIXES", "SYNONYMS", "UsageError", "parse_level", "resolve_operator", "short_name", "short_names"]


class UsageError(Exception):
    """A bad command-line value: printed to stderr, exit code 2."""


def resolve_operator(name: str) -> OperatorType:
    """``descriptors.names.operator_type`` for the command line: an unknown name is a ``UsageError``."""
    try:
        return operator_type(name)
    except UnknownOperatorError as exc:
        raise UsageError(str(exc)) from None


def parse_level(text: str) -> FeatureLevel:
    """``5_1``, ``5.1``, ``FL_5_1`` or hexadecimal ``0x5100`` -> FeatureLevel; else a ``UsageError``."""
    try:
        return FeatureLevel.parse(text)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
