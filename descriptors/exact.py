"""Exact identity of descriptors, for caches: by type and bits, never by ``==``.

Python's ``==`` is the wrong key for a cache of compiled operators: ``0.0 == -0.0``, ``True == 1`` and
``1 == 1.0``, so a cache keyed by equal descriptors hands ``FILL_VALUE_CONSTANT(-0.0)`` the operator compiled
for ``+0.0`` (its sign lost), and ``axes=(True,)`` the operator validated for ``(1,)`` (the refusal skipped);
and ``nan != nan`` makes a NaN parameter miss every time. :func:`exact_key` maps a value to a key that is
equal only when the values are the same type and the same bits (floats by their IEEE bit pattern, so -0.0 and
each NaN payload are their own keys); :class:`Exact` wraps a value so that a ``functools.lru_cache`` keys it
that way.
"""

from __future__ import annotations

import dataclasses
import enum
import struct
from collections.abc import Hashable
from typing import Generic, TypeVar

import numpy as np

from .tensor import TensorDesc

__all__ = ["Exact", "exact_key"]

T = TypeVar("T")

# Types whose == is already exact: enums compare by identity; a TensorDesc's __post_init__ turns every field into
# ints, tuples of ints and enums (bools and floats refused), so equal tensors are the same bits.
_SELF_KEYED: tuple[type, ...] = (TensorDesc, enum.Enum)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(t: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(t)
    if names is None:
        names = _FIELD_NAMES[t] = tuple(f.name for f in dataclasses.fields(t))
    return names


def exact_key(value: object) -> Hashable:
    """A hashable key equal for two values exactly when they have the same types and bits, recursively through
    dataclasses (descriptors, tensors, graphs), tuples, lists, dicts and NumPy arrays."""
    t = type(value)
    if value is None or t is str or t is bytes or isinstance(value, _SELF_KEYED):
        return value
    if t is int or t is bool:
        return (t, value)
    if t is float:
        return (float, struct.pack("<d", value))
    if isinstance(value, np.generic | np.ndarray):
        arr = np.asarray(value)
        if arr.dtype.hasobject:
            raise TypeError(f"an array of Python objects has no bits to key by ({arr.dtype})")
        return (t, arr.dtype.str, arr.shape, np.ascontiguousarray(arr).tobytes())
    if isinstance(value, tuple | list):
        return (t, tuple(exact_key(v) for v in value))
    if isinstance(value, dict):
        return (t, tuple((exact_key(k), exact_key(v)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (t, tuple(exact_key(getattr(value, name)) for name in _field_names(t)))
    if isinstance(value, float | int | str | bytes):  # subclasses: their type and their base value
        base = float if isinstance(value, float) else int if isinstance(value, int) else type(value).__mro__[-2]
        return (t, exact_key(base(value)))
    hash(value)  # unhashable: TypeError, as a plain cache would raise
    return (t, value)


class Exact(Generic[T]):
    """``value``, hashed and compared by :func:`exact_key` (``lru_cache(f)(Exact(desc))`` keys ``desc``
    exactly). The key is computed once."""

    __slots__ = ("_key", "value")

    def __init__(self, value: T) -> None:
        self.value = value
        self._key = exact_key(value)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Exact) and self._key == other._key

    def __repr__(self) -> str:
        return f"Exact({self.value!r})"
