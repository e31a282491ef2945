"""Which cases of a generated matrix run on the GPU backend too (issue 34: the emulator's dtype x layout grid thinned).

The generated matrices (``tests/ops/test_*_generated.py``) are the op table's rows x data-type mappings x layouts.
Every case runs on the NumPy backend. On the GPU backend a case's kernel differs from its neighbours' in the data
types it is compiled for (conversions, accumulator, the CUDA expression's type) and in the layout it is launched on
(flat, rows, strided, broadcast, in place: ``CompiledOperator.launch_path``), and the two vary independently. So on
the CUDA emulator, per row (and reduction variant):

- the *representative* mapping (the one with the most layouts; the first such) runs on every layout;
- every other mapping runs on one layout, rotating through its layouts in the order the matrix lists them, so that
  the layouts are spread over the mappings and every layout still meets several data types.

A real GPU runs the whole grid (it is fast, and it is the truth: ``ci/gpu_suite.sh``); so does the emulator with
``GPUOPS_EMULATOR_GRID=full``. ``conftest``'s coverage gate still fails a run in which a (row, launch path) pair
stopped being reached.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import pytest
from conftest import GPU

__all__ = ["FULL_GRID", "gpu_picks", "with_backends"]

#: Every case on the GPU backend as well: on real CUDA, or when asked for.
FULL_GRID = GPU != "emulator" or os.environ.get("GPUOPS_EMULATOR_GRID", "thin") == "full"

#: ``key(values) -> (group, mapping, layout)``: a case's row (and variant), data-type mapping and layout.
Key = Callable[[Sequence[Any]], tuple[Hashable, Hashable, Hashable]]


def gpu_picks(cases: Sequence[Any], key: Key) -> list[bool]:
    """For each case, whether it runs on the GPU backend under the rule above (all True for :data:`FULL_GRID`)."""
    if FULL_GRID:
        return [True] * len(cases)
    keys = [key(p.values) for p in cases]
    layouts: dict[Hashable, dict[Hashable, list[Hashable]]] = {}
    for group, mapping, layout in keys:
        layouts.setdefault(group, {}).setdefault(mapping, []).append(layout)
    picked: dict[tuple[Hashable, Hashable], set[Hashable]] = {}
    for group, per_mapping in layouts.items():
        widest = max(len(v) for v in per_mapping.values())
        representative = next(m for m, v in per_mapping.items() if len(v) == widest)
        turn = 0
        for mapping, own in per_mapping.items():
            if mapping == representative:
                picked[group, mapping] = set(own)
            else:
                picked[group, mapping] = {own[turn % len(own)]}
                turn += 1
    return [layout in picked[group, mapping] for group, mapping, layout in keys]


def with_backends(cases: Sequence[Any], key: Key) -> list[Any]:
    """``cases`` (``pytest.param``s) with the backend as their first value: every case on ``"numpy"``, the
    :func:`gpu_picks` on the GPU backend (marked ``gpu``). Parametrize ``("backend", ...)``: the ``device`` and
    ``xp`` fixtures read it."""
    out = [pytest.param("numpy", *p.values, marks=p.marks, id=f"numpy-{p.id}") for p in cases]
    for p, pick in zip(cases, gpu_picks(cases, key), strict=True):
        if pick:
            out.append(pytest.param(GPU, *p.values, marks=[*p.marks, pytest.mark.gpu], id=f"{GPU}-{p.id}"))
    return out
