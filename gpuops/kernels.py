"""The process-wide kernel cache: each (backend, operator, data types, ScaleBias) is built once.

Thread-safe: concurrent ``compile_operator`` calls for the same key build one kernel.
``build_count()`` tells tests and curious users how many kernels were really built.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import Any

from . import config

__all__ = ["build_count", "get_or_build"]

log = logging.getLogger("gpuops")
_lock = threading.Lock()
_cache: dict[Hashable, Any] = {}
_key_locks: dict[Hashable, threading.Lock] = {}
_builds = 0


def get_or_build(key: Hashable, build: Callable[[], Any], source: Callable[[], str] | None = None) -> Any:
    """The cached kernel for ``key``, building it with ``build()`` exactly once."""
    global _builds
    hit = _cache.get(key)
    if hit is not None:
        return hit
    with _lock:
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        hit = _cache.get(key)
        if hit is not None:
            return hit
        kernel = build()
        # GPUOPS_DUMP_SOURCE=1, and the logger shows INFO (else log.info drops the record: no source made for it)
        if source is not None and log.isEnabledFor(logging.INFO) and config.settings().dump_source:
            log.info("gpuops kernel %s:\n%s", key, source())
        with _lock:
            _cache[key] = kernel
            _builds += 1
        return kernel


def build_count() -> int:
    """How many kernels this process has built (a cache hit builds none)."""
    return _builds
