"""The test sessions' kernel cache folder (``GPUOPS_CACHE_DIR`` of the tests): kept between runs on one machine.

The emulator's objects and the numba tier's loops are keyed by their content (source, headers, compiler and
flags), so a later session reuses what an earlier one built and compiles only what changed. A clean machine (CI)
starts cold. ``GPUOPS_TEST_CACHE_DIR`` chooses the folder; ``fresh`` makes a new temporary one for this session.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

PRUNE_DAYS = 14


def folder() -> str:
    """The folder (made private, mode 0700, as gpuops' cache checks require)."""
    chosen = os.environ.get("GPUOPS_TEST_CACHE_DIR", "")
    if chosen == "fresh":
        return tempfile.mkdtemp(prefix="gpuops-test-cache-")
    if chosen:
        path = Path(chosen).expanduser()
    else:
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpuops-tests"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        if path.stat().st_uid != os.getuid() or path.stat().st_mode & 0o077:
            raise PermissionError(f"{path} is not a private folder of this user")
    except OSError:
        return tempfile.mkdtemp(prefix="gpuops-test-cache-")  # gpuops would refuse it anyway: start cold
    return str(path)


def prune(root: str, days: float = PRUNE_DAYS) -> int:
    """Remove the cached files under ``root`` not used (read or written) for ``days``; return how many."""
    cutoff = time.time() - days * 86400
    removed = 0
    for sub in ("emulator", "numba"):
        base = Path(root, sub)
        if not base.is_dir():
            continue
        for p in base.rglob("*"):
            try:
                st = p.stat()
                if p.is_file() and max(st.st_mtime, st.st_atime) < cutoff:
                    p.unlink()
                    removed += 1
            except OSError:
                continue
    return removed
