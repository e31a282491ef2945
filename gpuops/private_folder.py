"""The one check every on-disk cache of gpuops makes before it uses a folder: that the folder is private.

Whoever can write into a cache folder can run code in the processes that read it: the NumPy backend's compiled
tier runs loop sources from ``<cache_dir>/numba`` and numba unpickles its index files there (``numba_loops``,
``numba_reduce``); the CUDA emulator loads shared objects from ``<cache_dir>/emulator`` (``emulator.build``).
A folder is used only if it is a real directory (not a symbolic link), owned by this user, with none of the
``forbidden`` permission bits (group and others: ``0o077``) and writable by this user; a missing one is made
with mode 0700. Each caller says what it does with a refused folder (one warning, then no disk cache).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = ["first_refusal", "refusal"]


def refusal(path: Path, forbidden: int = 0o077) -> str | None:
    """Create ``path`` with mode 0700 if it is missing; then why it is not a folder to run code from (a symbolic
    link, not a directory, another owner, a ``forbidden`` permission bit, no owner write permission), or None.
    OSError where it cannot be made or read (a missing parent folder, say)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    else:
        os.chmod(path, 0o700)  # whatever the umask left
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link (a cache folder must be a real directory)"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    geteuid = getattr(os, "geteuid", None)
    if geteuid is not None and st.st_uid != geteuid():
        return f"it is owned by uid {st.st_uid}, not by this user (uid {geteuid()})"
    if st.st_mode & forbidden:
        return f"its mode is {stat.S_IMODE(st.st_mode):04o}, so group or others have access (chmod 700 it)"
    if not st.st_mode & stat.S_IWUSR:  # a cache would go elsewhere (numba's), or nowhere
        return f"its mode is {stat.S_IMODE(st.st_mode):04o}, so this user cannot write it"
    return None


def first_refusal(checks: Iterable[tuple[Path, int]]) -> tuple[Path, str] | None:
    """``refusal`` of each ``(folder, forbidden bits)`` in turn, a folder's missing parents made first (list the
    outer folders first: they are made and checked before anything is made inside them): the first folder
    refused and why, or None where every one is private. OSError where a folder cannot be made or read."""
    for path, forbidden in checks:
        path.parent.mkdir(parents=True, exist_ok=True)
        why = refusal(path, forbidden)
        if why is not None:
            return path, why
    return None
