"""How operator names are spelled and read, over any enum of operator names (``descriptors.names`` has the rules).

:class:`OperatorNames` is the one operator-name parser. It depends on no op table: ``descriptors.optable`` makes
the parser of its ``OperatorType`` (``optable.OPERATOR_NAMES``, behind ``row_of``), and ``descriptors.names``
offers that parser's answers as functions, so the table and the names stay free of an import circle.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Mapping
from typing import Generic, TypeVar

from .errors import UnknownOperatorError

__all__ = ["FAMILY_PREFIXES", "SYNONYMS", "OperatorNames"]

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

E = TypeVar("E", bound=enum.Enum)


def _stem(name: str) -> str:
    for prefix in FAMILY_PREFIXES:
        if name.startswith(prefix):
            return name.removeprefix(prefix)
    return name


def _family_rank(name: str) -> int:
    return next((i for i, p in enumerate(FAMILY_PREFIXES) if name.startswith(p)), len(FAMILY_PREFIXES))


def _key(name: str) -> str:
    return name.strip().upper().replace("-", "_").replace(" ", "_").removeprefix("DML_OPERATOR_")


class OperatorNames(Generic[E]):
    """The short names of the members of ``operators`` (an enum of DirectML operator names) and the parser of
    every spelling of them."""

    def __init__(self, operators: type[E]) -> None:
        self.operators = operators
        self._short = self.short_names()
        self._by_short = {name: op for op, name in self._short.items()}

    def short_names(self) -> dict[E, str]:
        """Every operator's short name (``descriptors.names``' rules), in enum order."""
        owner: dict[str, E] = {}
        for op in sorted(self.operators, key=lambda o: _family_rank(o.name)):
            owner.setdefault(_stem(op.name), op)
        return {op: (_stem(op.name) if owner[_stem(op.name)] is op else op.name).lower() for op in self.operators}

    def short_name(self, op: E) -> str:
        """``ELEMENT_WISE_ADD`` -> ``"add"``."""
        return self._short[op]

    def operator_type(self, op: object) -> E:
        """The member ``op`` spells (see ``descriptors.names.operator_type``)."""
        ops = self.operators
        if isinstance(op, ops):
            return op
        row = getattr(op, "row", None)  # a descriptor class or instance
        if row is not None and getattr(row, "name", None) in ops.__members__:
            return ops[row.name]
        if not isinstance(op, str):
            raise TypeError(
                f"an operator is an OperatorType, a descriptor class or a name like 'ELEMENT_WISE_ADD' or 'add' "
                f"(got {type(op).__name__} {op!r})"
            )
        key = _key(op)
        if key in ops.__members__:
            return ops[key]
        found = self._by_short.get(key.lower())
        if found is None and key.lower() in SYNONYMS:
            found = ops[SYNONYMS[key.lower()]]
        if found is not None:
            return found
        raise UnknownOperatorError(f"unknown operator {op!r}; {self._suggest(key)}", "operator_type")

    def _suggest(self, key: str) -> str:
        """Close matches as ``short (FULL_NAME)``, or every short name when nothing is close."""
        ops, short = self.operators, self._short
        spellings = {**{n.upper(): op for op, n in short.items()}, **{op.name: op for op in ops}}
        spellings.update({s.upper(): ops[full] for s, full in SYNONYMS.items()})
        stem = _stem(key)
        close = difflib.get_close_matches(key, list(spellings), n=6, cutoff=0.6)
        close += difflib.get_close_matches(stem, list(spellings), n=6, cutoff=0.6)
        close += [s for s in spellings if stem and stem in s]
        found = list(dict.fromkeys(spellings[s] for s in close))[:6]
        if not found:
            return "known operators: " + ", ".join(short.values())
        return "close matches: " + ", ".join(f"{short[op]} ({op.name})" for op in found)
