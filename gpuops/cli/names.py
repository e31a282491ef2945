"""Operator short names and feature-level parsing for the command line.

Every operator has exactly one short name, derived from its ``OperatorType`` name: the family
prefix (``ELEMENT_WISE_``, ``ACTIVATION_``, ``ELTWISE_``) dropped and the rest in lower case
(``ELEMENT_WISE_ADD`` -> ``add``, ``ACTIVATION_RELU`` -> ``relu``, ``ELTWISE_MISH_GRAD`` ->
``mish_grad``). Where two families share a stem, the earlier family in that order keeps the short
name and the other one is spelled in full: ``identity`` is ``ELEMENT_WISE_IDENTITY`` and
``activation_identity`` is ``ACTIVATION_IDENTITY``. A few NumPy-style synonyms (``sub``, ``mul``,
``div``, ...) are accepted as input as well.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from descriptors import FeatureLevel, OperatorType

__all__ = ["FAMILY_PREFIXES", "SYNONYMS", "UsageError", "parse_level", "resolve_operator", "short_name", "short_names"]

FAMILY_PREFIXES = ("ELEMENT_WISE_", "ACTIVATION_", "ELTWISE_")

# Input-only spellings from NumPy, ONNX and TensorRT; each names the operator NumPy means by it.
SYNONYMS: Mapping[str, str] = {
    "sub": "ELEMENT_WISE_SUBTRACT",
    "mul": "ELEMENT_WISE_MULTIPLY",
    "div": "ELEMENT_WISE_DIVIDE",
    "floordiv": "ELEMENT_WISE_FLOOR_DIVIDE",
    "mod": "ELEMENT_WISE_MODULUS_FLOOR",  # numpy.mod: the sign of the divisor
    "fmod": "ELEMENT_WISE_MODULUS_TRUNCATE",  # numpy.fmod: the sign of the dividend
    "neg": "ELEMENT_WISE_NEGATE",
    "reciprocal": "ELEMENT_WISE_RECIP",
    "atan2": "ELEMENT_WISE_ATAN_YX",
    "eq": "ELEMENT_WISE_LOGICAL_EQUALS",
    "gt": "ELEMENT_WISE_LOGICAL_GREATER_THAN",
    "ge": "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
    "lt": "ELEMENT_WISE_LOGICAL_LESS_THAN",
    "le": "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL",
    "isnan": "ELEMENT_WISE_IS_NAN",
    "isinf": "ELEMENT_WISE_IS_INFINITY",
}


class UsageError(Exception):
    """A bad command-line value: printed to stderr, exit code 2."""


def _stem(name: str) -> str:
    for prefix in FAMILY_PREFIXES:
        if name.startswith(prefix):
            return name.removeprefix(prefix)
    return name


def _family_rank(name: str) -> int:
    return next((i for i, p in enumerate(FAMILY_PREFIXES) if name.startswith(p)), len(FAMILY_PREFIXES))


def short_names() -> dict[OperatorType, str]:
    """Every operator's short name (see the module docstring), in ``OperatorType`` order."""
    owner: dict[str, OperatorType] = {}
    for op in sorted(OperatorType, key=lambda o: _family_rank(o.name)):
        owner.setdefault(_stem(op.name), op)
    return {op: (_stem(op.name) if owner[_stem(op.name)] is op else op.name).lower() for op in OperatorType}


_SHORT = short_names()
_BY_SHORT = {name: op for op, name in _SHORT.items()}


def short_name(op: OperatorType) -> str:
    """``OperatorType.ELEMENT_WISE_ADD`` -> ``"add"``."""
    return _SHORT[op]


def _key(name: str) -> str:
    return name.strip().upper().replace("-", "_").replace(" ", "_").removeprefix("DML_OPERATOR_")


def resolve_operator(name: str) -> OperatorType:
    """An operator from its short name, a synonym or its ``OperatorType`` name, in any case.

    ``add``, ``ADD``, ``element_wise_add``, ``Element-Wise-Add`` and ``DML_OPERATOR_ELEMENT_WISE_ADD``
    all give ELEMENT_WISE_ADD;
    ``sub`` gives ELEMENT_WISE_SUBTRACT. An unknown name is a ``UsageError`` with close matches.
    """
    key = _key(name)
    if key in OperatorType.__members__:
        return OperatorType[key]
    op = _BY_SHORT.get(key.lower())
    if op is None and key.lower() in SYNONYMS:
        op = OperatorType[SYNONYMS[key.lower()]]
    if op is not None:
        return op
    raise UsageError(f"unknown operator {name!r}; {_suggest(key)}")


def _suggest(key: str) -> str:
    """Close matches as ``short (FULL_NAME)``, or every short name when nothing is close."""
    spellings = {**{n.upper(): op for op, n in _SHORT.items()}, **{op.name: op for op in OperatorType}}
    spellings.update({s.upper(): OperatorType[full] for s, full in SYNONYMS.items()})
    stem = _stem(key)
    close = difflib.get_close_matches(key, list(spellings), n=6, cutoff=0.6)
    close += difflib.get_close_matches(stem, list(spellings), n=6, cutoff=0.6)
    close += [s for s in spellings if stem and stem in s]
    ops = list(dict.fromkeys(spellings[s] for s in close))[:6]
    if not ops:
        return "known operators: " + ", ".join(_SHORT.values())
    return "close matches: " + ", ".join(f"{_SHORT[op]} ({op.name})" for op in ops)


def parse_level(text: str) -> FeatureLevel:
    """``5_1``, ``5.1``, ``FL_5_1`` or hexadecimal ``0x5100`` -> FeatureLevel; else a ``UsageError``."""
    try:
        return FeatureLevel.parse(text)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
