"""The NumPy backend's compiled tier: one numba loop per (operator, data types, ScaleBias, activation).

numba is optional (the ``jit`` extra). Where it is installed and ``GPUOPS_NUMBA`` is not ``0``, an element-wise
operator whose tensors are packed, of one shape and at least ``CpuPolicy.numba_min_elements`` long, and whose
row ``codegen.numba`` translates, runs as one pass over memory instead of NumPy's chunked ufunc chain: float16
add through float32 chunks is about twenty ufunc passes per chunk, ADD1 + RELU two, a unary op with ScaleBias
three. An operator NumPy runs as one ufunc (``NumpyKernel.direct``: float32 add, multiply, maximum...) joins the
tier where the loop is faster: from ``CpuPolicy.direct_min`` elements on when native threads are usable, and for
row broadcasts (``row_broadcast``).

Threads. From ``CpuPolicy.par_min`` (2**15) elements on a loop runs on numba's native threads: the module's
``_par`` drivers (``codegen.numba``) split the output into one contiguous block (rows layouts: a row or column
range) per thread in a ``numba.prange``, each block running the serial loop, so every element gets the serial
loop's bits. A launch costs about 1.6 us with the omp layer on a 2-vCPU VM, against 80-90 us for a hand-off to
the backend's Python pool, which gained nothing below ``CpuPolicy.thread_min`` (2**21); measured per execute on
that VM, 2 threads: float16 add 12.7 vs 15.5 us serial at 2**15, 56 vs 95 at 2**18, 205 vs 361 at 2**20; float32
add (through the general execute path) 16.2 vs 19.0 us for np.add at 2**17, 79 vs 157 at 2**20. At 2**15 a
float32 add breaks even (4 us a call), so ``par_min`` is where the heavier loops (16-bit conversions,
activations, ScaleBias) gain. Native threads are decided once per process (``native_threads``), at the first
parallel driver's compile, by launching it on empty arrays: usable where numba's pool (``NUMBA_NUM_THREADS``)
has two threads or more and the threading layer numba then picked is ``omp`` or ``tbb``. The ``workqueue`` layer
(numba's fallback where neither library loads) is refused: it is not thread-safe (launches from two Python
threads at once abort the process) and costs 80-95 us a launch. Each call launches on ``min(gpuops' thread
count, NUMBA_NUM_THREADS)`` threads (``cpu.threads.threads``: ``GPUOPS_NUM_THREADS``, else the CPUs this process
may use), read per call: one thread means no launch (the serial loop). numba's thread count belongs to the
calling thread; a launch on fewer threads than numba's pool sets it and restores it (``cpu.threads._launch``).
GNU OpenMP is thread-safe but not fork-safe: numba terminates a forked child that launches after its parent did,
so a child forked after the threading layer started (a ``multiprocessing`` fork, not ``subprocess``' fork and
exec) runs loops without native threads. Where they are unusable, loops run as before: serially, and in blocks
on the backend's Python pool from ``CpuPolicy.thread_min`` on; a numba loop holds no GIL while it runs. OpenMP's
idle threads spin for a while after a launch: on a heavily oversubscribed machine launches were seen to take
milliseconds; ``GPUOPS_NUM_THREADS=1`` avoids that (libgomp's ``OMP_WAIT_POLICY=passive`` made single launches
1.7-3x slower: float16 add at 2**16 62 vs 19 us). One native launch at a time runs (``launch_alone``, the guard
in ``cpu.threads``): a Python thread that finds another's launch running runs its own call serially; several
Python threads executing large operators at once get more from ``GPUOPS_NUM_THREADS=1`` (each call on its own
thread) than from native threads.

Sources are written to a cache folder (``GPUOPS_CACHE_DIR``, else ``~/.cache/gpuops``; its
``numba`` subfolder) and run from there, so numba's own on-disk cache (``cache=True``) spares
later processes the compile (about 0.1-0.3 s per loop); the file name holds a hash of the
source and of the conversion module it calls, so an edit never meets a stale cache. Whoever can
write into that folder could run code in every process that compiles a loop (a planted source, or
numba's index files, which are pickles), so the folder must be private: gpuops creates it with mode
0700, and uses an existing one only if it is a real directory (not a symbolic link), owned by this
user, with no permission bits for group or others. A source file is read without following links
and compared byte for byte with the source it should hold; what runs is that expected source,
never the file's bytes (nor a ``.pyc``). A folder refused, or one that cannot be written (or where
numba finds no place for its cache), gets the loop compiled in memory (no cross-process cache),
with one warning on the ``gpuops`` logger saying which folder and why.

Loops are compiled when the operator is compiled (``compile_operator``), not on first execute.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import logging
import os
import stat
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from descriptors import DataType

from .. import config, private_folder
from ..codegen.numba import LoopSpec
from ..layout.launch_plan import FastPlan
from .cpu import policy as _policy
from .cpu import threads as _threads
from .cpu.threads import launch_alone

__all__ = ["NumbaLoopKernel", "RowsLayout", "available", "launch_alone", "rows_layout"]

# Its thresholds (numba_min_elements, par_min, direct_min) are fields of cpu.policy.CpuPolicy; the launch guard
# (launch_alone, its thread count and pause) is cpu.threads'.

_available: bool | None = None
_available_lock = threading.Lock()
log = logging.getLogger("gpuops")

# Whether numba's native threads are usable in this process: None until the first parallel driver
# is compiled (``native_threads``), then decided once. Tests set False to force the Python pool.
_native: bool | None = None
_native_lock = threading.Lock()


def available() -> bool:
    """numba imports and ``GPUOPS_NUMBA`` is not ``0`` (``gpuops.config``).

    The first call imports numba (about 0.2-0.5 s): an installed numba that fails to import
    (say, built for another NumPy) turns the tier off with a warning instead of failing
    ``compile_operator``. Thread-safe: callers that arrive during the import wait for its answer.
    """
    global _available
    if not config.settings().numba:
        return False
    if _available is None:
        with _available_lock:
            if _available is None:  # another thread may have answered while this one waited
                _available = _import_numba()
    return _available


def _import_numba() -> bool:
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        import numba  # noqa: F401
    except Exception as exc:  # ImportError, or whatever a broken install raises
        log.warning("gpuops: numba is installed but does not import (%s); compiled tier off", exc)
        return False
    return True


def native_threads(probe: Callable[[], None] | None = None) -> bool:
    """Whether loops may run on numba's native threads: decided once per process, under a lock, by
    ``probe`` (a parallel driver's first launch, on empty arrays) where not decided yet (without a
    probe, an undecided answer is False). Usable where numba's pool has at least two threads and its
    threading layer, which numba picks at the first launch, is ``omp`` or ``tbb``: the ``workqueue``
    layer is not thread-safe (two Python threads launching at once abort the process) and costs
    80-95 us a launch, no better than the Python pool."""
    global _native
    if _native is None and probe is not None:
        with _native_lock:
            if _native is None:
                _native = _decide(probe)
    return bool(_native)


def _decide(probe: Callable[[], None]) -> bool:
    import numba

    if _threads._max_threads() < 2 or str(getattr(numba.config, "THREADING_LAYER", "")).startswith("workqueue"):
        return False
    try:
        probe()
        layer = numba.threading_layer()
    except Exception as exc:  # a layer that fails to load, a driver numba refuses
        log.warning("gpuops: numba's native threads are unusable (%s); loops use the backend's thread pool", exc)
        return False
    if layer not in ("omp", "tbb"):
        log.info("gpuops: numba's threading layer is %s: loops use the backend's thread pool", layer)
        return False
    return True


def _after_fork_in_child() -> None:
    """GNU OpenMP's pool does not survive a fork: numba terminates a child that launches parallel code
    after its parent did. A forked child of a process whose threading layer started runs loops on the
    Python pool (a fork followed by exec, as ``subprocess`` does, is not affected)."""
    global _native
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if _native or getattr(parallel, "_is_initialized", False):
        _native = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()


def _warn_once(folder: Path, why: str) -> None:
    """One warning per (folder, reason) and process: the loops of that folder compile in memory."""
    with _warned_lock:
        if (str(folder), why) in _warned:
            return
        _warned.add((str(folder), why))
    log.warning("gpuops: not caching compiled loops in %s: %s; compiling them in memory (no disk cache)", folder, why)


def _numba_cache_dir() -> Path | None:
    """``NUMBA_CACHE_DIR``, where set: numba keeps every cache (pickled indexes too) there instead."""
    numba_config = sys.modules.get("numba.core.config")
    where = getattr(numba_config, "CACHE_DIR", "") if numba_config is not None else ""
    return Path(where) if where else None


def _numba_locators() -> str:
    """``NUMBA_CACHE_LOCATOR_CLASSES`` (numba 0.62 on), where set: numba's caches go where those classes say."""
    numba_config = sys.modules.get("numba.core.config")
    return str(getattr(numba_config, "CACHE_LOCATOR_CLASSES", "") or "") if numba_config is not None else ""


def _cache_folder() -> Path | None:
    """``<cache_dir>/numba`` where it is private (``private_folder``: the cache folder and it mode 0700 or
    stricter, real directories owned by this user; numba's ``__pycache__`` in it, and ``NUMBA_CACHE_DIR``
    where set, writable by this user only; no ``NUMBA_CACHE_LOCATOR_CLASSES``), else None after one warning
    saying which folder and why. ``numba_reduce`` keeps its kernels' cache in that ``__pycache__`` too."""
    root = config.settings().cache_dir
    if root is None:
        return None
    folder = root / "numba"
    checks = [(root, 0o077), (folder, 0o077), (folder / "__pycache__", 0o022)]
    numba_dir = _numba_cache_dir()
    if numba_dir is not None:
        checks.append((numba_dir, 0o022))
    if _numba_locators():
        _warn_once(folder, "NUMBA_CACHE_LOCATOR_CLASSES is set, so numba would choose the cache folder unchecked")
        return None
    try:
        refused = private_folder.first_refusal(checks)
    except OSError as exc:
        _warn_once(root, f"it cannot be used ({exc})")
        return None
    if refused is not None:
        _warn_once(*refused)
        return None
    return folder


@functools.cache
def _dependency_hash() -> str:
    """A hash of the conversion module the loops import: numba's cache does not track it."""
    path = Path(__file__).with_name("numba_convert.py")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.exists() else ""


def _holds(path: Path, want: bytes) -> bool | None:
    """Whether ``path`` is a regular file holding exactly ``want`` (None: there is no such file).
    Opened without following a symbolic link (a link is a mismatch), nor blocking on a FIFO."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError:  # ELOOP: a symbolic link
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        data = b""
        while len(data) <= len(want):
            part = os.read(fd, len(want) + 1 - len(data))
            if not part:
                break
            data += part
        return data == want
    finally:
        os.close(fd)


def _write(folder: Path, path: Path, data: bytes) -> None:
    """``path`` replaced atomically (a concurrent process sees all of it or nothing), mode 0600."""
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _run_source(source: bytes, module_name: str, path: Path) -> types.ModuleType:
    """A module made by running ``source`` as the file ``path`` (numba's cache is located and
    stamped from that file); the bytes run are ``source``, never re-read from disk."""
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


_KINDS = ("", "_rows", "_par", "_rows_par")  # the module's dispatchers: flat, rows and their parallel drivers


def _load(spec: LoopSpec) -> tuple[Any, ...]:
    """The flat, rows, flat parallel and rows parallel numba dispatchers, from the cache folder's verified
    source file (or from memory where the folder is refused or cannot be written)."""
    digest = hashlib.sha256((spec.source + _dependency_hash()).encode()).hexdigest()[:16]
    module_name = f"gpuops_loop_{spec.name}_{digest}"
    want = spec.source.encode()
    folder = _cache_folder()
    if folder is not None:
        path = folder / f"{module_name}.py"
        try:
            held = _holds(path, want)
            if held is False:
                log.warning(
                    "gpuops: %s does not hold the loop's source (changed, or corrupt): not running it; rewriting it",
                    path,
                )
            if held is not True:
                _write(folder, path, want)
                if _holds(path, want) is not True:
                    raise OSError(f"{path} changed while it was written")
            module = _run_source(want, module_name, path)
            return tuple(getattr(module, spec.name + kind) for kind in _KINDS)
        except (OSError, RuntimeError) as exc:  # unwritable folder, or numba finds no place for its cache files
            _warn_once(folder, f"it cannot be used ({exc})")
    namespace: dict[str, Any] = {}
    exec(compile(spec.source.replace("cache=True", "cache=False"), module_name, "exec"), namespace)
    return tuple(namespace[spec.name + kind] for kind in _KINDS)


def _storage(dt: DataType) -> np.dtype:
    """The dtype a loop sees: 16-bit floats as their uint16 bits."""
    return np.dtype(np.uint16) if dt in (DataType.FLOAT16, DataType.BFLOAT16) else dt.numpy_dtype


class NumbaLoopKernel:
    """A compiled-tier lowering with the NumPy kernel's interface (``prepare``, ``run``), plus
    ``run_rows`` for the layouts ``gpuops.layout.launch_plan`` plans as rows (broadcasts, padding,
    transposes): one kernel object per (operator, data types, ScaleBias, activation)."""

    def __init__(self, spec: LoopSpec, dtypes: Mapping[str, DataType], scalar_types: Sequence[DataType]) -> None:
        self.spec = spec
        self.loop, self.rows_loop, self.par_loop, self.rows_par_loop = _load(spec)
        self.in_storage = tuple(_storage(dtypes[r]) for r in spec.input_roles)
        self.out_storage = _storage(dtypes[spec.output_role])
        self.scalar_types = tuple(scalar_types)
        self._compiled: set[str] = set()
        self.best = float("inf")  # the fastest native launch's seconds per element (``launch_alone``)

    def compile(self, kind: str) -> None:
        """Compile the ``"flat"`` or ``"rows"`` loop, or its parallel driver (``"flat_par"``, ``"rows_par"``:
        launched on empty arrays), now (``compile_operator``), not on first execute: empty arrays have the
        numba types of the real arguments."""
        if kind in self._compiled:
            return
        empty = [np.empty(0, d) for d in self.in_storage]
        scalars = [t.numpy_dtype.type(0) for t in self.scalar_types]
        out = np.empty(0, self.out_storage)
        rows = (0, 0, 0, 0, *([0] * (2 * (len(empty) + 1))))
        if kind == "flat":
            self.loop(*empty, *scalars, out)
        elif kind == "rows":
            self.rows_loop(*empty, *scalars, out, *rows)
        elif kind == "flat_par":
            self.par_loop(*empty, *scalars, out, 2)
        elif kind == "rows_par":
            self.rows_par_loop(*empty, *scalars, out, *rows, 2)
        else:
            raise ValueError(f"numba loop: no loop kind {kind!r} (flat, rows, flat_par, rows_par)")
        self._compiled.add(kind)

    def compile_native(self, kind: str) -> bool:
        """Compile the parallel driver of the ``"flat"`` or ``"rows"`` loop where native threads are usable
        (its first launch decides that, once per process: ``native_threads``) and gpuops may use more than
        one thread; whether the driver is ready. ``run`` and ``run_rows`` use a ready driver from ``par_min``
        elements on."""
        if _threads.threads() < 2:
            return False
        par = kind + "_par"
        if not native_threads(lambda: self.compile(par)):
            return False
        self.compile(par)
        return True

    def prepare(self, scalars: Mapping[str, Any]) -> tuple[Any, ...]:
        """The loop's scalar arguments, typed as the CUDA kernel's (``codegen.scalar_params``)."""
        return tuple(scalars[n] for n in self.spec.scalar_params)

    def run(self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: tuple[Any, ...], aliased: bool) -> None:
        """The flat loop over 1-D views of equal length: its parallel driver on native threads from
        ``par_min`` elements on where it is ready (``compile_native``), else the serial loop, or blocks on
        the backend's Python pool from ``CpuPolicy.thread_min`` on. Every element's inputs are loaded before its
        output is stored, by one thread, so exact in-place aliasing (the only aliasing binding lets through)
        is safe. No NumPy ufunc runs, so NumPy's floating-point error state is neither read nor
        changed (the loops use ``error_model="numpy"``: no exception for a division by zero)."""
        xs = [v.view(np.uint16) if v.itemsize == 2 else v for v in ins]
        o = out.view(np.uint16) if out.itemsize == 2 else out
        size = o.shape[0]
        p = _policy.POLICY
        if (
            size >= p.par_min
            and _native
            and "flat_par" in self._compiled
            and time.perf_counter() >= _threads._paused_until
        ):
            t = _threads.threads()
            if t > 1 and launch_alone(self, self.par_loop, (*xs, *prepared, o, t), t, size):
                return
        if size < p.thread_min:
            self.loop(*xs, *prepared, o)
            return
        blocks = list(_threads._chunks(o.shape, p.thread_block))

        def work(part: Iterable[Any]) -> None:
            for idx in part:
                self.loop(*(x[idx] for x in xs), *prepared, o[idx])

        _threads._parallel(blocks, work, size)

    def run_rows(
        self, bufs: Sequence[np.ndarray], out: np.ndarray, prepared: tuple[Any, ...], layout: RowsLayout
    ) -> None:
        """The rows loop over the bound buffers themselves (no views), in row or column blocks: on
        native threads from ``par_min`` elements on where its driver is ready, else on the backend's Python
        pool from ``CpuPolicy.thread_min`` on. In place is safe as in ``run``:
        an output may share only an input's identical buffer and layout."""
        xs = [b.view(np.uint16) if b.itemsize == 2 else b for b in bufs]
        o = out.view(np.uint16) if out.itemsize == 2 else out
        rows, cols, strides = layout
        size = rows * cols
        p = _policy.POLICY
        if (
            size >= p.par_min
            and _native
            and "rows_par" in self._compiled
            and time.perf_counter() >= _threads._paused_until
        ):
            t = _threads.threads()
            args = (*xs, *prepared, o, 0, rows, 0, cols, *strides, t)
            if t > 1 and launch_alone(self, self.rows_par_loop, args, t, size):
                return
        if size < p.thread_min:
            self.rows_loop(*xs, *prepared, o, 0, rows, 0, cols, *strides)
            return
        if rows > 1:
            step = max(1, p.thread_block // cols)
            blocks = [(r, min(r + step, rows), 0, cols) for r in range(0, rows, step)]
        else:
            blocks = [(0, 1, c, min(c + p.thread_block, cols)) for c in range(0, cols, p.thread_block)]

        def work(part: Iterable[Any]) -> None:
            for r0, r1, c0, c1 in part:
                self.rows_loop(*xs, *prepared, o, r0, r1, c0, c1, *strides)

        _threads._parallel(blocks, work, size)


RowsLayout = tuple[int, int, tuple[int, ...]]  # rows, cols, (rs, cs) of each input, then of the output


def row_broadcast(layout: RowsLayout) -> bool:
    """Several rows, every operand's columns adjacent (column stride 1), an input read by every row
    (row stride 0): the layout where the rows loop beats a single broadcasting NumPy ufunc. A zero column
    stride (a column or scalar broadcast) keeps LLVM from vectorizing the loop (its vector path assumes
    stride 1): float32 add 1024 x 1024 with a column broadcast took 447 us against NumPy's 243."""
    rows, _, strides = layout
    return rows > 1 and all(cs == 1 for cs in strides[1::2]) and 0 in strides[0:-2:2]


def rows_layout(plan: FastPlan) -> RowsLayout | None:
    """The rows loop's sizes and strides for a ``gpuops.layout.launch_plan`` plan (a flat plan's
    broadcast inputs become one row whose single element every column reads), or None where
    an operand steps through memory along a row (a transposed input, a strided output): read
    element by element across cache lines, that runs slower than the ufunc path's 256 x 256
    tiles (a float16 1024 x 1024 transposed add is the case that showed it)."""
    flat = (*(((0, 0) if b else (0, 1)) for b in plan.broadcast), (0, 1))
    strides = plan.strides if plan.kind == "rows" else flat
    if any(cs not in (0, 1) for _, cs in strides):
        return None
    return plan.rows, plan.cols, tuple(x for st in strides for x in st)
