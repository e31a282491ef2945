"""The NumPy backend's compiled tier: one numba loop per (operator, data types, ScaleBias, activation).

numba is optional (the ``jit`` extra). Where it is installed and ``GPUOPS_NUMBA`` is not ``0``,
an element-wise operator whose tensors are packed, of one shape and at least ``MIN_ELEMENTS``
long, and whose row ``codegen_numba`` translates, runs as one pass over memory instead of
NumPy's chunked ufunc chain: float16 add through float32 chunks is about twenty ufunc passes
per chunk, ADD1 + RELU two, a unary op with ScaleBias three. Above ``THREAD_MIN`` elements the
loop runs over blocks on the backend's threads; a numba loop holds no GIL while it runs.

Sources are written to a cache folder (``GPUOPS_CACHE_DIR``, else ``~/.cache/gpuops``) and
imported from there, so numba's own on-disk cache (``cache=True``) spares later processes
the compile (about 0.1-0.3 s per loop); the file name holds a hash of the source and of the
conversion module it calls, so an edit never meets a stale cache. Where the folder cannot be
written (or numba finds no place for its cache), the source is compiled in memory (no cross-process cache).

Loops are compiled when the operator is compiled (``compile_operator``), not on first execute.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from descriptors import DataType

from ..codegen_numba import LoopSpec
from ..launch_plan import FastPlan
from . import numpy_backend as nb

__all__ = ["MIN_ELEMENTS", "NumbaLoopKernel", "RowsLayout", "available", "rows_layout"]

# Below this many elements an operator keeps NumPy's ufunc path: a few microseconds there, so
# a loop's compile (tenths of a second, once per process without the disk cache) would take
# too many calls to pay back. From 2**10 on the loop saves 8-35 us per call (benchmarks, quick
# run: float16 add 13.6 vs 49 us, ADD1 + RELU 7.0 vs 14.8 us at 1024 elements).
MIN_ELEMENTS = 1 << 10

_available: bool | None = None
log = logging.getLogger("gpuops")


def available() -> bool:
    """numba imports and ``GPUOPS_NUMBA`` is not ``0``.

    The first call imports numba (about 0.2-0.5 s): an installed numba that fails to import
    (say, built for another NumPy) turns the tier off with a warning instead of failing
    ``compile_operator``.
    """
    global _available
    if os.environ.get("GPUOPS_NUMBA", "1") == "0":
        return False
    if _available is None:
        _available = False
        if importlib.util.find_spec("numba") is not None:
            try:
                import numba  # noqa: F401
            except Exception as exc:  # ImportError, or whatever a broken install raises
                log.warning("gpuops: numba is installed but does not import (%s); compiled tier off", exc)
            else:
                _available = True
    return _available


def _cache_dir() -> Path:
    root = os.environ.get("GPUOPS_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "gpuops")
    return Path(root) / "numba"


def _dependency_hash() -> str:
    """A hash of the conversion module the loops import: numba's cache does not track it."""
    path = Path(__file__).with_name("numba_convert.py")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.exists() else ""


def _load(spec: LoopSpec) -> tuple[Any, Any]:
    """The flat and rows numba dispatchers, from a cached source file (or from memory if none can be written)."""
    digest = hashlib.sha256((spec.source + _dependency_hash()).encode()).hexdigest()[:16]
    module_name = f"gpuops_loop_{spec.name}_{digest}"
    try:
        folder = _cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{module_name}.py"
        if not path.exists():
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(spec.source)
            os.replace(tmp, path)  # atomic: a concurrent process sees all of it or nothing
        mod_spec = importlib.util.spec_from_file_location(module_name, path)
        assert mod_spec is not None and mod_spec.loader is not None
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[module_name] = module
        mod_spec.loader.exec_module(module)
    except (OSError, RuntimeError):  # unwritable folder, or numba finds no place for its cache files
        sys.modules.pop(module_name, None)
        namespace: dict[str, Any] = {}
        exec(compile(spec.source.replace("cache=True", "cache=False"), module_name, "exec"), namespace)
        return namespace[spec.name], namespace[spec.name + "_rows"]
    return getattr(module, spec.name), getattr(module, spec.name + "_rows")


def _storage(dt: DataType) -> np.dtype:
    """The dtype a loop sees: 16-bit floats as their uint16 bits."""
    return np.dtype(np.uint16) if dt in (DataType.FLOAT16, DataType.BFLOAT16) else dt.numpy_dtype


class NumbaLoopKernel:
    """A compiled-tier lowering with the NumPy kernel's interface (``prepare``, ``run``), plus
    ``run_rows`` for the layouts ``gpuops.launch_plan`` plans as rows (broadcasts, padding,
    transposes): one kernel object per (operator, data types, ScaleBias, activation)."""

    def __init__(self, spec: LoopSpec, dtypes: Mapping[str, DataType], scalar_types: Sequence[DataType]) -> None:
        self.spec = spec
        self.loop, self.rows_loop = _load(spec)
        self.in_storage = tuple(_storage(dtypes[r]) for r in spec.input_roles)
        self.out_storage = _storage(dtypes[spec.output_role])
        self.scalar_types = tuple(scalar_types)
        self._compiled: set[str] = set()

    def compile(self, kind: str) -> None:
        """Compile the ``"flat"`` or ``"rows"`` loop now (``compile_operator``), not on first execute:
        empty arrays have the numba types of the real arguments."""
        if kind in self._compiled:
            return
        empty = [np.empty(0, d) for d in self.in_storage]
        scalars = [t.numpy_dtype.type(0) for t in self.scalar_types]
        out = np.empty(0, self.out_storage)
        if kind == "flat":
            self.loop(*empty, *scalars, out)
        else:
            self.rows_loop(*empty, *scalars, out, 0, 0, 0, 0, *([0] * (2 * (len(empty) + 1))))
        self._compiled.add(kind)

    def prepare(self, scalars: Mapping[str, Any]) -> tuple[Any, ...]:
        """The loop's scalar arguments, typed as the CUDA kernel's (``codegen.scalar_params``)."""
        return tuple(scalars[n] for n in self.spec.scalar_params)

    def run(self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: tuple[Any, ...], aliased: bool) -> None:
        """The flat loop over 1-D views of equal length. Every element's inputs are loaded before
        its output is stored, so exact in-place aliasing (the only aliasing binding lets through)
        is safe. No NumPy ufunc runs, so NumPy's floating-point error state is neither read nor
        changed (the loops use ``error_model="numpy"``: no exception for a division by zero)."""
        xs = [v.view(np.uint16) if v.itemsize == 2 else v for v in ins]
        o = out.view(np.uint16) if out.itemsize == 2 else out
        size = o.shape[0]
        if size < nb.THREAD_MIN:
            self.loop(*xs, *prepared, o)
            return
        blocks = list(nb._chunks(o.shape, nb.THREAD_BLOCK))

        def work(part: Iterable[Any]) -> None:
            for idx in part:
                self.loop(*(x[idx] for x in xs), *prepared, o[idx])

        nb._parallel(blocks, work, size)

    def run_rows(
        self, bufs: Sequence[np.ndarray], out: np.ndarray, prepared: tuple[Any, ...], layout: RowsLayout
    ) -> None:
        """The rows loop over the bound buffers themselves (no views), in row or column blocks
        on the backend's threads above ``THREAD_MIN`` elements. In place is safe as in ``run``:
        an output may share only an input's identical buffer and layout."""
        xs = [b.view(np.uint16) if b.itemsize == 2 else b for b in bufs]
        o = out.view(np.uint16) if out.itemsize == 2 else out
        rows, cols, strides = layout
        size = rows * cols
        if size < nb.THREAD_MIN:
            self.rows_loop(*xs, *prepared, o, 0, rows, 0, cols, *strides)
            return
        if rows > 1:
            step = max(1, nb.THREAD_BLOCK // cols)
            blocks = [(r, min(r + step, rows), 0, cols) for r in range(0, rows, step)]
        else:
            blocks = [(0, 1, c, min(c + nb.THREAD_BLOCK, cols)) for c in range(0, cols, nb.THREAD_BLOCK)]

        def work(part: Iterable[Any]) -> None:
            for r0, r1, c0, c1 in part:
                self.rows_loop(*xs, *prepared, o, r0, r1, c0, c1, *strides)

        nb._parallel(blocks, work, size)


RowsLayout = tuple[int, int, tuple[int, ...]]  # rows, cols, (rs, cs) of each input, then of the output


def rows_layout(plan: FastPlan) -> RowsLayout | None:
    """The rows loop's sizes and strides for a ``gpuops.launch_plan`` plan (a flat plan's
    broadcast inputs become one row whose single element every column reads), or None where
    an operand steps through memory along a row (a transposed input, a strided output): read
    element by element across cache lines, that ran 2x slower than the ufunc path's 256 x 256
    tiles (float16 1024 x 1024 transposed add: 18.1 vs 8.4 ms)."""
    flat = (*(((0, 0) if b else (0, 1)) for b in plan.broadcast), (0, 1))
    strides = plan.strides if plan.kind == "rows" else flat
    if any(cs not in (0, 1) for _, cs in strides):
        return None
    return plan.rows, plan.cols, tuple(x for st in strides for x in st)
