"""gpuops' environment variables, read once and validated: ``settings()``, ``reload()``, ``override()``.

``import gpuops`` reads every variable below once; an invalid value raises ``gpuops.ConfigError`` there,
naming the variable, the value given and what is allowed. Nothing reads the environment later, so
``compile_operator`` and ``execute`` never fail on it. An empty value is the same as an unset one.

========================  ==============================  ================================  ==========================
variable                  allowed                         default                           takes effect
========================  ==============================  ================================  ==========================
GPUOPS_NUM_THREADS        a positive integer              the CPUs this process may run on  next ``execute``
GPUOPS_NUMBA              ``0`` or ``1``                  ``1`` (tier on where numba is)    next ``compile_operator``
GPUOPS_CUPY_FAST          ``0`` or ``1``                  ``1``                             next ``compile_operator``
GPUOPS_CACHE_DIR          an absolute path (``~`` too)    ``~/.cache/gpuops``               next ``compile_operator``
GPUOPS_DUMP_SOURCE        ``0`` or ``1``                  ``0``                             next ``compile_operator``
GPUOPS_EMULATOR_SANITIZE  ``0`` or ``1``                  ``0``                             next emulator build
========================  ==============================  ================================  ==========================

To change a setting in a running process: ``reload()`` re-reads ``os.environ`` (after the process
changed it), ``override(numba=False)`` replaces fields for a ``with`` block. Both are process-wide:
meant for tests, benchmarks and start-up code, not for threads that disagree.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from .errors import ConfigError

__all__ = ["VARIABLES", "Settings", "override", "read", "reload", "settings"]


@dataclass(frozen=True)
class Settings:
    """What gpuops' environment variables asked for (``VARIABLES`` maps each field to its variable).

    ``num_threads``: threads the NumPy backend splits large operations over (None: the CPUs this
    process may run on). ``numba``: the NumPy backend's compiled tier. ``cupy_fast``: gpuops' flat and
    rows kernels on CuPy. ``cache_dir``: the compiled tier's disk cache (None: compile in memory only).
    ``dump_source``: log each generated kernel's source on the ``gpuops`` logger when it is built.
    ``emulator_sanitize``: build the CUDA emulator's kernels with AddressSanitizer and UBSan.
    ``cupy_rows_reduce``: gpuops' rows kernel for reductions over one contiguous span per output (issue 33), alone
    and fused into a graph alike (so that fusing keeps every bit); off: CuPy's ``ReductionKernel``.
    """

    num_threads: int | None
    numba: bool
    cupy_fast: bool
    cache_dir: Path | None
    dump_source: bool
    emulator_sanitize: bool = False
    cupy_rows_reduce: bool = True

    @property
    def own_reductions(self) -> bool:
        """Whether the CuPy backend runs reductions on gpuops' rows, columns and split kernels (``cupy_fast`` and
        ``cupy_rows_reduce``), else CuPy's ``ReductionKernel`` (two launches for a long one): compile, graph
        planning and ``cost()`` all ask this."""
        return self.cupy_fast and self.cupy_rows_reduce

    def __post_init__(self) -> None:
        n = self.num_threads
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ConfigError(f"Settings.num_threads must be a positive integer or None (got {n!r})")
        for name in ("numba", "cupy_fast", "dump_source", "emulator_sanitize", "cupy_rows_reduce"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"Settings.{name} must be True or False (got {getattr(self, name)!r})")
        if self.cache_dir is not None:
            path = Path(self.cache_dir)
            if not path.is_absolute():
                raise ConfigError(f"Settings.cache_dir must be an absolute path or None (got {self.cache_dir!r})")
            object.__setattr__(self, "cache_dir", path)


class Variable(NamedTuple):
    """One environment variable: its ``Settings`` field, what it allows and what unset means."""

    name: str
    field: str
    allowed: str
    default: str
    parse: Callable[[str], Any]


def _positive_int(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise ValueError(text)
    return int(text)


def _flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError(text)
    return text == "1"


def _absolute_path(text: str) -> Path:
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        raise ValueError(text)
    return path


def _default_cache_dir() -> Path | None:
    home = Path(os.path.expanduser("~"))
    return home / ".cache" / "gpuops" if home.is_absolute() else None  # no home: no disk cache


VARIABLES: tuple[Variable, ...] = (
    Variable(
        "GPUOPS_NUM_THREADS",
        "num_threads",
        "a positive integer (1, 2, 3, ...: decimal digits only)",
        "the CPUs this process may run on",
        _positive_int,
    ),
    Variable("GPUOPS_NUMBA", "numba", "0 (compiled tier off) or 1 (on)", "1", _flag),
    Variable("GPUOPS_CUPY_FAST", "cupy_fast", "0 (CuPy's ElementwiseKernel only) or 1", "1", _flag),
    Variable(
        "GPUOPS_CUPY_ROWS_REDUCE",
        "cupy_rows_reduce",
        "0 (CuPy's ReductionKernel) or 1 (gpuops' rows kernel for one contiguous span per output)",
        "1",
        _flag,
    ),
    Variable("GPUOPS_CACHE_DIR", "cache_dir", "an absolute path (~ expands)", "~/.cache/gpuops", _absolute_path),
    Variable("GPUOPS_DUMP_SOURCE", "dump_source", "0 or 1 (log each kernel's source when it is built)", "0", _flag),
    Variable(
        "GPUOPS_EMULATOR_SANITIZE",
        "emulator_sanitize",
        "0 or 1 (build the CUDA emulator's kernels with AddressSanitizer and UBSan)",
        "0",
        _flag,
    ),
)


def read(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``environ`` (default ``os.environ``); ``ConfigError`` on the first invalid value."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {"num_threads": None, "numba": True, "cupy_fast": True, "dump_source": False}
    values["emulator_sanitize"], values["cupy_rows_reduce"] = False, True
    values["cache_dir"] = _default_cache_dir()
    for var in VARIABLES:
        text = env.get(var.name, "")
        if text == "":
            continue
        try:
            values[var.field] = var.parse(text)
        except ValueError:
            raise ConfigError(
                f"{var.name}={text!r} is not valid; allowed: {var.allowed} (unset or empty means {var.default})",
                var.name,
                text,
            ) from None
    return Settings(**values)


_lock = threading.Lock()
_current: Settings = read()


def settings() -> Settings:
    """The settings in force (read at ``import gpuops``, or by the last ``reload()``)."""
    return _current


def reload() -> Settings:
    """Re-read the environment; on ``ConfigError`` the settings in force stay as they were."""
    global _current
    fresh = read()
    with _lock:
        _current = fresh
    return fresh


@contextmanager
def override(**changes: Any) -> Iterator[Settings]:
    """Replace fields of the settings for a ``with`` block (``override(numba=False, num_threads=2)``),
    then restore them; an unknown field is a ``TypeError``, an invalid value a ``ConfigError``."""
    global _current
    with _lock:
        saved = _current
        _current = dataclasses.replace(saved, **changes)
        inside = _current
    try:
        yield inside
    finally:
        with _lock:
            _current = saved
