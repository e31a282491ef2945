"""The one operator-name parser: short names, synonyms, DirectML names, classes and ``OperatorType`` members.

Every operator has exactly one short name, derived from its ``OperatorType`` name: the family prefix
(``ELEMENT_WISE_``, ``ACTIVATION_``, ``ELTWISE_``) dropped and the rest in lower case (``ELEMENT_WISE_ADD`` ->
``add``, ``ACTIVATION_RELU`` -> ``relu``, ``ELTWISE_MISH_GRAD`` -> ``mish_grad``). Where two families share a
stem, the earlier family in that order keeps the short name and the other one is spelled in full:
``identity`` is ``ELEMENT_WISE_IDENTITY`` and ``activation_identity`` is ``ACTIVATION_IDENTITY``. A few
NumPy-style synonyms (``sub``, ``mul``, ``div``, ...) are accepted as input as well. ``row_of``,
``operator_support``, ``Device.operator_support``, ``desc_class`` and the command line all parse through
:func:`operator_type`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from .errors import UnknownOperatorError
from .optable import ROW_BY_NAME, OperatorType

__all__ = ["FAMILY_PREFIXES", "SYNONYMS", "operator_type", "short_name", "short_names"]

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


def operator_type(op: object) -> OperatorType:
    """An ``OperatorType`` from any spelling: the member itself, a descriptor class or instance, or a name in any
    case (``add``, ``ADD``, ``sub``, ``element_wise_add``, ``Element-Wise-Add``, ``DML_OPERATOR_ELEMENT_WISE_ADD``).
    An unknown name is an ``UnknownOperatorError`` listing close matches; another type a ``TypeError``."""
    if isinstance(op, OperatorType):
        return op
    row = getattr(op, "row", None)  # a descriptor class or instance
    if row is not None and getattr(row, "name", None) in ROW_BY_NAME:
        return OperatorType[row.name]
    if not isinstance(op, str):
        raise TypeError(
            f"an operator is an OperatorType, a descriptor class or a name like 'ELEMENT_WISE_ADD' or 'add' "
            f"(got {type(op).__name__} {op!r})"
        )
    key = _key(op)
    if key in OperatorType.__members__:
        return OperatorType[key]
    found = _BY_SHORT.get(key.lower())
    if found is None and key.lower() in SYNONYMS:
        found = OperatorType[SYNONYMS[key.lower()]]
    if found is not None:
        return found
    raise UnknownOperatorError(f"unknown operator {op!r}; {_suggest(key)}", "operator_type")


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
