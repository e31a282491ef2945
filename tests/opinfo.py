"""``OpInfo``: one operator's test record (PyTorch's OpInfo), and the one registry every generated suite reads.

Every element-wise operator has exactly one record (``test_completeness`` holds the table to it): its
reference, data generators, parameter sets, tolerance and literal edge cases. The records come from

- the family reference modules, each exporting ``OPINFOS``: ``reference.py`` (binary rows),
  ``reference_unary.py``, ``reference_activation.py``, ``reference_backward.py``; they write their
  references, data and edges as tables beside the DirectML transcriptions (``dml_*.py``) and turn them
  into records with :func:`from_tables`;
- the operator modules named by ``GPUOPS_OP_MODULES`` (``descriptors.optable``), which may export
  ``OPINFOS`` as plain mappings with :class:`OpInfo`'s fields (an operator module never imports test code).

So one row plus one record is all an element-wise operator needs to be tested on every data type,
layout and backend. Reductions keep their per-variant references in ``reference_reduce.py``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from descriptors import DataType
from descriptors.optable import OP_MODULES, row_of
from descriptors.schema import Family

__all__ = ["DEFAULT_TOLERANCE", "OpInfo", "from_tables", "out_of_tree", "record", "records"]

DEFAULT_TOLERANCE = (4.0, 0.0)


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """What the generated tests need beyond the row. One convention for every family.

    reference: ``ref(inputs, out_dtype, params, scale_bias)``: ``inputs`` the logical input arrays broadcast
        to the output shape in the row's input-field order, ``out_dtype`` the output's numpy dtype, ``params``
        the descriptor's parameter values with the defaults filled in (``{}`` for a row without parameters),
        ``scale_bias`` the ``(scale, bias)`` pair or None; a row that reads no input (FILL_VALUE_*) is called
        ``ref(inputs, out_dtype, params, scale_bias, shape=sizes)``, the output's logical sizes. Returns a
        ``reference.Expected``, or float64 values compared within ``tolerance``. Written from the operator's
        formula, never from its row. Call it through :meth:`evaluate`.
    data: per-input generators ``gen(dt, shape, rng)`` of random logical values, in input-field order; a
        missing or None entry: ``helpers.random_values(..., "arith")`` (:meth:`generate`).
    params: parameter sets to run (default: one set, the fields' defaults).
    tolerance: ``(ulps, atol)`` for float32/float64 outputs of the non-binary rows (the binary rows' tests
        use ``row.accuracy``).
    edges: literal cases ``(inputs, params, expected, exact, data types by role)``: ``inputs`` one sequence of
        values per input field, ``params`` the descriptor's parameters, ``expected`` the output's values (exact:
        equal in the output's type; else within a few ulps), ``data types by role`` a ``DataType`` for every
        tensor field.
    """

    name: str
    reference: Callable[..., Any]
    data: tuple[Any, ...] = ()
    params: tuple[Mapping[str, Any], ...] = ()
    tolerance: tuple[float, float] | None = None
    edges: tuple[tuple[Any, ...], ...] = ()

    @property
    def family(self) -> Family:
        return row_of(self.name).family

    @property
    def param_sets(self) -> list[dict[str, Any]]:
        """The parameter sets to run, as fresh dicts (``[{}]``: the fields' defaults)."""
        return [dict(p) for p in self.params] or [{}]

    @property
    def tol(self) -> tuple[float, float]:
        """``(ulps, atol)`` for float32/float64 outputs."""
        return self.tolerance if self.tolerance is not None else DEFAULT_TOLERANCE

    def generate(self, index: int, dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Random logical values of input ``index`` (``data``'s generator, else ``random_values``' arith)."""
        from helpers import random_values

        gen = self.data[index] if index < len(self.data) else None
        return gen(dt, shape, rng) if gen is not None else random_values(dt, shape, rng, "arith")

    def evaluate(
        self,
        inputs: list[np.ndarray],
        out_dtype: np.dtype,
        params: Mapping[str, Any] | None = None,
        scale_bias: tuple[float, float] | None = None,
        shape: tuple[int, ...] | None = None,
    ) -> Any:
        """The reference's ``Expected`` for the logical ``inputs`` (float64 values are compared within a
        tolerance). ``shape``: the output's logical sizes, which a row reading no input needs (its reference
        has nothing else to take them from)."""
        from reference import Expected  # reference.py imports this module: import it late

        args = (list(inputs), out_dtype, dict(params or {}), scale_bias)
        if row_of(self.name).input_fields:
            got = self.reference(*args)
        elif shape is None:
            raise TypeError(f"{self.name} reads no input: its reference needs the output's shape")
        else:
            got = self.reference(*args, shape=tuple(shape))
        return got if isinstance(got, Expected) else Expected(np.asarray(got, dtype=np.float64), False)


def from_tables(
    references: Mapping[str, Callable[..., Any]],
    data: Mapping[str, tuple[Any, ...]] | None = None,
    params: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
    tolerance: Mapping[str, tuple[float, float]] | None = None,
    edges: Mapping[str, Iterable[tuple[Any, ...]]] | None = None,
) -> tuple[OpInfo, ...]:
    """One record per key of ``references`` from a family module's tables; a key of another table without
    a reference is a mistake (a typo would silently drop its data)."""
    tables = {"data": data or {}, "params": params or {}, "tolerance": tolerance or {}, "edges": edges or {}}
    for what, table in tables.items():
        stray = sorted(set(table) - set(references))
        if stray:
            raise ValueError(f"{what} for operators without a reference: {stray}")
    return tuple(
        OpInfo(
            name=name,
            reference=ref,
            data=tuple(tables["data"].get(name, ())),
            params=tuple(tables["params"].get(name, ())),
            tolerance=tables["tolerance"].get(name),
            edges=tuple(tables["edges"].get(name, ())),
        )
        for name, ref in references.items()
    )


def out_of_tree() -> tuple[OpInfo, ...]:
    """The records of the operator modules in ``GPUOPS_OP_MODULES`` (none by default)."""
    found = []
    for module in OP_MODULES:
        for item in getattr(module, "OPINFOS", ()):
            info = item if isinstance(item, OpInfo) else OpInfo(**item)
            row_of(info.name)  # a record needs its row: UnknownOperatorError otherwise
            found.append(info)
    return tuple(found)


@functools.cache
def records() -> Mapping[str, OpInfo]:
    """Every element-wise operator's record by name (in-tree families, then out-of-tree modules)."""
    import reference
    import reference_activation
    import reference_backward
    import reference_unary

    merged: dict[str, OpInfo] = {}
    for module in (reference, reference_unary, reference_activation, reference_backward):
        for info in module.OPINFOS:
            if info.name in merged:
                raise ValueError(f"two OpInfo records for {info.name}")
            merged[info.name] = info
    for info in out_of_tree():
        if info.name in merged:
            raise ValueError(f"out-of-tree OpInfo record {info.name} shadows an in-tree one")
        merged[info.name] = info
    return merged


def record(name: str) -> OpInfo:
    """The record of operator ``name`` (``KeyError`` names the operator without one)."""
    try:
        return records()[name]
    except KeyError:
        raise KeyError(f"no OpInfo record for {name}") from None
