"""References and test data for the operators with other than two tensor inputs.

Every family module (``reference_unary.py``, ``reference_activation.py``, ``reference_backward.py``)
contributes:

- ``REFERENCES``: name -> ``ref(inputs, out_dtype, params, scale_bias) -> Expected``, where
  ``inputs`` are the logical input arrays (already broadcast to the output shape, in the
  row's input-field order), ``params`` the parameter values the descriptor carries (defaults
  filled in), ``scale_bias`` a ``(scale, bias)`` pair or None. Written from the DirectML /
  oneDNN formulas in float64 (or exact integers), never from the op table's own code.
- ``DATA``: name -> per-input data generators ``gen(dt, shape, rng) -> ndarray`` (default:
  ``helpers.random_values(dt, shape, rng, "arith")``).
- ``PARAMS``: name -> list of parameter dicts to run (default: ``[{}]``, the defaults).
- ``TOLERANCE``: name -> ``(ulps, atol)`` for float32/float64 outputs (default ``(4.0, 0.0)``).
- ``EDGES``: name -> list of ``(inputs, params, expected, exact, data types by role)`` with literal values
  (expected from the formula or from Python's math module).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reference_activation as _act
import reference_backward as _bwd
import reference_unary as _un

_FAMILIES = (_un, _act, _bwd)
REFERENCES: dict[str, Callable[..., Any]] = {k: v for m in _FAMILIES for k, v in m.REFERENCES.items()}
DATA: dict[str, tuple[Callable[..., Any], ...]] = {k: v for m in _FAMILIES for k, v in m.DATA.items()}
PARAMS: dict[str, list[dict[str, Any]]] = {k: v for m in _FAMILIES for k, v in m.PARAMS.items()}
TOLERANCE: dict[str, tuple[float, float]] = {k: v for m in _FAMILIES for k, v in m.TOLERANCE.items()}
EDGES: dict[str, list[tuple[Any, ...]]] = {k: v for m in _FAMILIES for k, v in m.EDGES.items()}


def _out_of_tree() -> None:
    """Rows of out-of-tree operator modules (``GPUOPS_OP_MODULES``) other than binary: their OpInfo records."""
    from opinfo import out_of_tree

    from descriptors.schema import Family

    for info in out_of_tree():
        if info.family is Family.BINARY:
            continue
        REFERENCES[info.name] = info.expected
        if info.data:
            DATA[info.name] = info.data
        if info.params:
            PARAMS[info.name] = [dict(p) for p in info.params]
        if info.tolerance is not None:
            TOLERANCE[info.name] = info.tolerance
        if info.edges:
            EDGES[info.name] = list(info.edges)


_out_of_tree()
