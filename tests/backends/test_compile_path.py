"""``NumpyBackend.compile`` returns to a module above at most 3 times (issue 32): the builder of the lowering's row
kind returns to the backend, the kernel cache to the builder, the run's construction to the builder.

The definition. ``sys.setprofile`` traces ``NumpyBackend().compile(lowering)``, the lowering made beforehand
(``gpuops.lowering.lower``). A return of a Python function of module ``a`` into its caller (the nearest Python
frame) of module ``b`` is a return *to a module above* when ``a`` and ``b`` are two modules of ``gpuops`` and ``b``
imports ``a``: an edge of the import graph ``tests/unit/test_import_graph.py`` reads from the source (an import in
a function counts, one under ``if TYPE_CHECKING:`` does not). So not counted: returns within a module; returns
into or out of any other package (``descriptors``' properties, NumPy, ``functools.cached_property``); a
function called by a module that does not import its module (the build function ``gpuops.kernels`` is handed, the
view maker a run of ``gpuops.backends.runs`` is handed); and the property getters of ``gpuops.lowering``'s
classes (reading the lowering is data access, not a layer). The ``gpuops`` logger is at WARNING, its default:
with ``GPUOPS_DUMP_SOURCE=1`` and the logger at INFO, each kernel built also reads ``config.settings``.

Each operator is traced uncached (``gpuops.kernels``' cache empty: every kernel is built) and cached (a fresh
lowering of the same descriptor, whose kernel is in the cache). On 67db9b0 ADD returned to a module above 7 times
uncached: codegen into the lowering (plan, implementations, scalar parameters, worked out on the backend's first
read), ``config.settings`` into ``kernels``, the cache and the run into the builder, the builder into the backend.

The sizes keep to the ufunc tier (below ``CpuPolicy.numba_min_elements`` and ``reduce_numba_min``): the compiled
tier's path (``numba_loops``, ``codegen.numba``, ``numba_reduce.warm_up``) is not covered here.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import pytest
from test_import_graph import import_edges

from descriptors import (
    CumulativeSummationOperatorDesc,
    DataType,
    ElementWiseAddOperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)
from gpuops import kernels
from gpuops import lowering as lowering_module
from gpuops.backends.cpu.backend import NumpyBackend
from gpuops.backends.cpu.policy import POLICY
from gpuops.lowering import lower

F32 = DataType.FLOAT32
VECTOR, MATRIX = TensorDesc(F32, (1000,)), TensorDesc(F32, (10, 100))
OPERATORS = {
    "ADD": ElementWiseAddOperatorDesc(VECTOR, VECTOR, VECTOR),
    "REDUCE": ReduceOperatorDesc(ReduceFunction.SUM, MATRIX, TensorDesc(F32, (10, 1)), axes=(1,)),
    "CUMULATIVE_SUMMATION": CumulativeSummationOperatorDesc(MATRIX, MATRIX, axis=1),
}
MOST = 3

Return = tuple[str, str, str]  # (callee's module, callee, caller's module)


@functools.cache
def _imports() -> frozenset[tuple[str, str]]:
    """(module, module it imports) for the modules of ``gpuops``."""
    ours = lambda module: module.split(".")[0] == "gpuops"  # noqa: E731
    return frozenset((e.source, e.target) for e in import_edges() if ours(e.source) and ours(e.target))


@functools.cache
def _lowering_properties() -> frozenset[CodeType]:
    """The code of every property getter of ``gpuops.lowering``'s classes (``cached_property`` ones included)."""
    codes = set()
    for cls in vars(lowering_module).values():
        if isinstance(cls, type) and cls.__module__ == lowering_module.__name__:
            for attr in vars(cls).values():
                getter = attr.fget if isinstance(attr, property) else getattr(attr, "func", None)
                if isinstance(attr, (property, functools.cached_property)) and getter is not None:
                    codes.add(getter.__code__)
    return frozenset(codes)


def returns_above(run: Callable[[], object]) -> list[Return]:
    """The returns to a module above (the module docstring) while ``run()`` runs, in order."""
    above, data = _imports(), _lowering_properties()
    found: list[Return] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        caller = frame.f_back
        if event != "return" or caller is None:
            return
        callee, into = frame.f_globals.get("__name__", ""), caller.f_globals.get("__name__", "")
        if (into, callee) in above and frame.f_code not in data:
            found.append((callee, frame.f_code.co_name, into))

    saved = sys.getprofile()
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(saved)
    return found


def test_the_definition_counts_a_return_into_an_importing_module(caplog: pytest.LogCaptureFixture) -> None:
    """The tracer on ``kernels.get_or_build`` logging a kernel's source: ``config.settings`` returning into
    ``kernels`` (which imports ``config``) is counted; the build and source functions this module hands it and
    ``get_or_build`` returning here are not (this module is not gpuops')."""
    from gpuops import config

    caplog.set_level(logging.INFO, logger="gpuops")
    key = ("test_compile_path", "definition")
    try:
        with config.override(dump_source=True):
            got = returns_above(lambda: kernels.get_or_build(key, lambda: object(), lambda: "// text"))
    finally:
        kernels._cache.pop(key, None)
    assert got == [("gpuops.config", "settings", "gpuops.kernels")], got
    assert "// text" in caplog.text


@pytest.mark.parametrize("cached", [False, True], ids=["uncached", "cached"])
@pytest.mark.parametrize("name", list(OPERATORS))
def test_numpy_compile_returns_to_a_module_above_at_most_3_times(
    name: str, cached: bool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert VECTOR.element_count < POLICY.numba_min_elements and MATRIX.element_count < POLICY.reduce_numba_min
    caplog.set_level(logging.WARNING, logger="gpuops")
    monkeypatch.setattr(kernels, "_cache", {})
    backend, desc = NumpyBackend(), OPERATORS[name]
    if cached:
        backend.compile(lower(desc))
    lowering = lower(desc)
    built = kernels.build_count()
    got = returns_above(lambda: backend.compile(lowering))
    assert kernels.build_count() == built + (0 if cached or name == "CUMULATIVE_SUMMATION" else 1)
    assert len(got) <= MOST, "\n".join(f"{callee}.{function} -> {into}" for callee, function, into in got)
    assert got[-1][1:] == ("compile_" + lowering.kind.name.lower(), "gpuops.backends.cpu.backend"), got
