"""The compiled tier's disk cache runs nobody else's code (issue 13, item 7; issue 31, item 1).

Loop sources are run from ``<cache_dir>/numba`` and numba keeps pickles next to them, so a cache
folder that someone else can write is refused (the loop compiles in memory, with one warning),
and a source file that does not hold exactly its loop's source is never run. The REDUCE tier's
kernels (``numba_reduce``) cache in that checked folder and nowhere else: an index file planted
where numba would look by itself (``NUMBA_CACHE_DIR``) or in a refused folder is never unpickled.
The folder check itself (``gpuops.private_folder``) is shared with the emulator's object cache.
"""

from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import DataType, TensorDesc, desc_class
from gpuops import config, kernels

pytest.importorskip("numba")

from gpuops.backends import numba_loops  # noqa: E402
from gpuops.backends.cpu.policy import POLICY  # noqa: E402

F16 = DataType.FLOAT16
N = POLICY.numba_min_elements + 38
DESC = desc_class("ELEMENT_WISE_ADD")(
    a_tensor=TensorDesc(F16, (N,)), b_tensor=TensorDesc(F16, (N,)), output_tensor=TensorDesc(F16, (N,))
)
LOOP_GLOB = "gpuops_loop_loop_element_wise_add_float16_*.py"


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every compile here builds its loop again (no kernel from an earlier test), and warns afresh."""
    monkeypatch.setattr(kernels, "_cache", {})
    monkeypatch.setattr(numba_loops, "_warned", set(), raising=False)


def _compile_and_check(cache_dir: Path) -> gpuops.CompiledOperator:
    """Compile DESC with ``cache_dir`` as the cache: it must be a compiled loop giving the right bits."""
    dev = gpuops.Device("numpy")
    with config.override(cache_dir=cache_dir):
        op = dev.compile_operator(dev.create_operator(DESC))
    assert op.launch_path == "numba"
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(N).astype(np.float16) for _ in range(2))
    out = np.empty(N, np.float16)
    op.execute([a, b], [out])
    want = (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))
    return op


def _refused(caplog: pytest.LogCaptureFixture, folder: Path, why: str) -> None:
    warnings = [r.getMessage() for r in caplog.records if r.name == "gpuops" and r.levelname == "WARNING"]
    assert len(warnings) == 1, warnings
    assert str(folder) in warnings[0] and why in warnings[0] and "in memory" in warnings[0], warnings[0]


def test_created_folders_are_private(tmp_path: Path) -> None:
    root = tmp_path / "new" / "gpuops"
    old = os.umask(0o022)
    try:
        _compile_and_check(root)
    finally:
        os.umask(old)
    for folder in (root, root / "numba"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    (source,) = (root / "numba").glob(LOOP_GLOB)
    assert stat.S_IMODE(source.stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize("where", ["root", "numba", "__pycache__"])
def test_a_folder_others_can_write_is_refused(where: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "shared"
    folder = {"root": root, "numba": root / "numba", "__pycache__": root / "numba" / "__pycache__"}[where]
    for path in (root, root / "numba", root / "numba" / "__pycache__"):  # private, but for ``folder``
        path.mkdir(mode=0o700)
        os.chmod(path, 0o777 if path == folder else 0o700)
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(root)
    _refused(caplog, folder, "0777")
    assert not list(root.rglob("*.py")), "a loop source was written into a folder others can write"


@pytest.mark.parametrize("where", ["root", "numba"])
def test_a_symlinked_folder_is_refused(where: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    root = tmp_path / "cache"
    if where == "root":
        root.symlink_to(real, target_is_directory=True)
        link = root
    else:
        root.mkdir(mode=0o700)
        link = root / "numba"
        link.symlink_to(real, target_is_directory=True)
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(root)
    _refused(caplog, link, "symbolic link")
    assert not any(real.iterdir()), "something was written through the link"


def test_a_folder_of_another_owner_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "theirs"
    root.mkdir(mode=0o700)
    uid = root.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)  # as if another user had made it
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(root)
    _refused(caplog, root, f"owned by uid {uid}")
    assert not list(root.rglob("*.py"))


def test_a_shared_numba_cache_dir_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``NUMBA_CACHE_DIR`` sends numba's pickled indexes elsewhere: that folder must not be shared either."""
    import numba.core.config

    shared = tmp_path / "numba-shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(shared))
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(tmp_path / "cache")
    _refused(caplog, shared, "0777")
    assert not any(shared.iterdir()), "numba cached a loop in a folder others can write"


def _planted(tmp_path: Path) -> tuple[Path, bytes]:
    """The cached source of DESC's loop (compiled once into a private cache), and its bytes."""
    root = tmp_path / "cache"
    _compile_and_check(root)
    (source,) = (root / "numba").glob(LOOP_GLOB)
    return source, source.read_bytes()


def _payload(marker: Path, genuine: bytes) -> bytes:
    """The loop's own source, plus code that leaves ``marker`` behind if it ever runs."""
    return f"open({str(marker)!r}, 'w').close()\n".encode() + genuine


def test_a_tampered_source_file_is_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    marker = tmp_path / "ran"
    source, genuine = _planted(tmp_path)
    source.write_bytes(_payload(marker, genuine))
    monkeypatch.setattr(kernels, "_cache", {})
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(tmp_path / "cache")
    assert not marker.exists(), "the tampered source file was run"
    assert source.read_bytes() == genuine, "the file must be rewritten with the loop's source"
    assert str(source) in caplog.text and "does not hold the loop's source" in caplog.text


def test_a_source_file_replaced_by_a_link_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    marker = tmp_path / "ran"
    source, genuine = _planted(tmp_path)
    target = tmp_path / "theirs.py"
    target.write_bytes(_payload(marker, genuine))
    source.unlink()
    source.symlink_to(target)
    monkeypatch.setattr(kernels, "_cache", {})
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(tmp_path / "cache")
    assert not marker.exists(), "the linked file was run"
    assert not source.is_symlink() and source.read_bytes() == genuine
    assert target.read_bytes() == _payload(marker, genuine), "the link's target must not be written"


def test_an_intact_cache_is_used_silently(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The safe case keeps the disk cache: the source file stays, and nothing is logged."""
    root = tmp_path / "cache"
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(root)
        kernels._cache.clear()
        op: Any = _compile_and_check(root)
    assert not caplog.records
    (source,) = (root / "numba").glob(LOOP_GLOB)
    assert op._kernel.kernel.loop.py_func.__code__.co_filename == str(source)  # run as that file: numba caches it


def test_numba_locator_classes_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``NUMBA_CACHE_LOCATOR_CLASSES`` lets numba pick the cache folder itself: gpuops then caches nothing."""
    import numba.core.config

    monkeypatch.setattr(numba.core.config, "CACHE_LOCATOR_CLASSES", "UserWideCacheLocator", raising=False)
    root = tmp_path / "cache"
    with caplog.at_level("WARNING", logger="gpuops"):
        _compile_and_check(root)
    _refused(caplog, root / "numba", "NUMBA_CACHE_LOCATOR_CLASSES")
    assert not list(root.rglob("*.py"))


# ---------------------------------------------------------------------------------------------- the shared check


@pytest.mark.parametrize(
    ("mode", "forbidden", "why"),
    [
        (0o700, 0o077, None),
        (0o750, 0o077, "its mode is 0750, so group or others have access (chmod 700 it)"),
        (0o701, 0o077, "its mode is 0701, so group or others have access (chmod 700 it)"),
        (0o755, 0o022, None),  # numba's __pycache__: read access for others is allowed there
        (0o775, 0o022, "its mode is 0775, so group or others have access (chmod 700 it)"),
        (0o500, 0o077, "its mode is 0500, so this user cannot write it"),
    ],
)
def test_private_folder_modes(tmp_path: Path, mode: int, forbidden: int, why: str | None) -> None:
    from gpuops import private_folder  # (a module of its own since issue 32)

    folder = tmp_path / "f"
    folder.mkdir()
    os.chmod(folder, mode)
    try:
        assert private_folder.refusal(folder, forbidden) == why
    finally:
        os.chmod(folder, 0o700)


def test_private_folder_refuses_links_files_and_other_owners(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuops import private_folder  # (a module of its own since issue 32)

    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert private_folder.refusal(link) == "it is a symbolic link (a cache folder must be a real directory)"
    afile = tmp_path / "file"
    afile.write_text("")
    assert private_folder.refusal(afile) == "it is not a directory"
    uid = real.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)
    assert private_folder.refusal(real) == f"it is owned by uid {uid}, not by this user (uid {uid + 1})"


def test_private_folder_creates_missing_folders_private(tmp_path: Path) -> None:
    from gpuops import private_folder  # (a module of its own since issue 32)

    old = os.umask(0o022)
    try:
        outer, inner = tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"
        assert private_folder.first_refusal([(outer, 0o077), (inner, 0o077)]) is None
    finally:
        os.umask(old)
    assert stat.S_IMODE(outer.stat().st_mode) == 0o700 and stat.S_IMODE(inner.stat().st_mode) == 0o700


def test_first_refusal_stops_at_the_first_refused_folder(tmp_path: Path) -> None:
    from gpuops import private_folder  # (a module of its own since issue 32)

    outer = tmp_path / "outer"
    outer.mkdir()
    os.chmod(outer, 0o777)
    inner = outer / "inner"
    assert private_folder.first_refusal([(outer, 0o077), (inner, 0o077)]) == (
        outer,
        "its mode is 0777, so group or others have access (chmod 700 it)",
    )
    assert not inner.exists(), "nothing is made inside a refused folder"
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    with pytest.raises(OSError):
        private_folder.first_refusal([(blocker / "sub", 0o077)])


# ---------------------------------------------------------------------------------------------- numba_reduce

# One large float32 SUM (2**18 elements: the numba tier, REDUCE_NUMBA_MIN) in a fresh process. NUMBA_NUM_THREADS=1
# keeps numba's native drivers out (their compile is ~9 s in memory); the one-thread kernels read numba's cache.
REDUCE_SCRIPT = """
import json, logging
import numpy as np
from numba.core.caching import NullCache
from numba.core.dispatcher import Dispatcher

import gpuops
from descriptors import DataType, ReduceFunction, ReduceOperatorDesc, TensorDesc
from gpuops.backends import numba_reduce
from gpuops.backends.cpu import policy as cpu_policy

class Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen = []

    def emit(self, record):
        self.seen.append(record.getMessage())

keep = Keep()
logging.getLogger("gpuops").addHandler(keep)
kernels = {k: v for k, v in vars(numba_reduce).items() if isinstance(v, Dispatcher)}
at_import = sorted(k for k, v in kernels.items() if not isinstance(v._cache, NullCache))
rows, n = 64, 4096
assert rows * n >= cpu_policy.POLICY.reduce_numba_min
F32 = DataType.FLOAT32
desc = ReduceOperatorDesc(ReduceFunction.SUM, TensorDesc(F32, (rows, n)), TensorDesc(F32, (rows, 1)), axes=[1])
dev = gpuops.Device("numpy")
op = dev.compile_operator(dev.create_operator(desc))
x = np.random.default_rng(5).standard_normal((rows, n)).astype(np.float32)
out = np.empty((rows, 1), np.float32)
op.execute([x], [out])
want64 = x.astype(np.float64).sum(axis=1, keepdims=True)
print(json.dumps({
    "bits": bool(np.array_equal(out.view(np.uint32), np.add.reduce(x, axis=1, keepdims=True).view(np.uint32))),
    "close": bool(np.allclose(out, want64, rtol=1e-5, atol=1e-3)),
    "compiled": len(numba_reduce.row_sums.signatures),
    "hits": sum(sum(v.stats.cache_hits.values()) for v in kernels.values()),
    "cached_at_import": at_import,
    "warnings": keep.seen,
}))
"""


def _reduce_in_fresh_process(cache_dir: Path, numba_cache_dir: Path) -> dict[str, Any]:
    """REDUCE_SCRIPT in a new interpreter at the repository root (this checkout's gpuops)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUOPS_", "NUMBA_"))}
    env.update(GPUOPS_CACHE_DIR=str(cache_dir), NUMBA_CACHE_DIR=str(numba_cache_dir), NUMBA_NUM_THREADS="1")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(REDUCE_SCRIPT)],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["bits"] and result["close"], "the REDUCE's result is wrong"
    assert result["compiled"] >= 1, "the REDUCE did not run on numba_reduce"
    return result


def _no_cache_at_import(result: dict[str, Any]) -> None:
    """numba_reduce's kernels are declared without a disk cache: none is read before gpuops checks its folder."""
    assert result["cached_at_import"] == [], "numba_reduce kernels with numba's own (unchecked) disk cache"


def _poison(marker: Path) -> bytes:
    """A pickle whose load makes the folder ``marker`` (again and again): an index file that runs code when numba
    reads it."""

    class Plant:
        def __reduce__(self) -> tuple[Any, tuple[str, int, bool]]:
            return os.makedirs, (str(marker), 0o700, True)

    return pickle.dumps(Plant())


def _numba_default_indexes(numba_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The index file of every numba_reduce kernel where numba's own locators put it with ``NUMBA_CACHE_DIR``
    set (what ``cache=True`` reads)."""
    import numba.core.config
    from numba.core.caching import FunctionCache
    from numba.core.dispatcher import Dispatcher

    from gpuops.backends import numba_reduce

    kernels = [v for v in vars(numba_reduce).values() if isinstance(v, Dispatcher)]
    assert len(kernels) >= 4
    with monkeypatch.context() as m:
        m.setattr(numba.core.config, "CACHE_DIR", str(numba_cache_dir))
        m.setattr(numba.core.config, "CACHE_LOCATOR_CLASSES", "", raising=False)
        return [Path(FunctionCache(k.py_func)._cache_file._index_path) for k in kernels]


def test_a_planted_index_in_numba_cache_dir_is_never_unpickled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group-writable ``NUMBA_CACHE_DIR`` holding a pickle where numba would read numba_reduce's index: the large
    REDUCE neither runs it nor fails; the folder is refused, with a warning naming it."""
    shared = tmp_path / "numba-shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    marker = tmp_path / "ran"
    planted = _numba_default_indexes(shared, monkeypatch)
    for index in planted:
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(_poison(marker))
    before = sorted(p for p in shared.rglob("*") if p.is_file())
    result = _reduce_in_fresh_process(tmp_path / "cache", shared)
    assert not marker.exists(), "a planted numba index file was unpickled: it ran code in the gpuops process"
    assert sorted(p for p in shared.rglob("*") if p.is_file()) == before, "numba cached a kernel in the shared folder"
    assert any(str(shared) in w and "group or others have access" in w for w in result["warnings"]), result
    _no_cache_at_import(result)


def test_reduce_caches_in_the_checked_folder_and_refuses_it_once_shared(tmp_path: Path) -> None:
    """numba_reduce's disk cache is ``<cache_dir>/numba/__pycache__``: a later process compiles from it (cache
    hits, no warning). Made group-writable, with each index replaced by a pickle that runs code, it is refused:
    the REDUCE compiles in memory, right, and the pickles are never loaded."""
    root = tmp_path / "cache"
    own = tmp_path / "numba-own"  # a private NUMBA_CACHE_DIR: numba_reduce must not cache there either
    own.mkdir(mode=0o700)
    first = _reduce_in_fresh_process(root, own)
    pycache = root / "numba" / "__pycache__"
    indexes = sorted(pycache.glob("numba_reduce.*.nbi")) if pycache.is_dir() else []
    assert indexes, "numba_reduce cached nothing in gpuops' checked folder"
    assert not list(own.rglob("numba_reduce.*")), "numba_reduce cached in NUMBA_CACHE_DIR"
    assert first["warnings"] == [], first
    _no_cache_at_import(first)
    again = _reduce_in_fresh_process(root, own)
    assert again["hits"] >= 1 and again["warnings"] == [], again
    marker = tmp_path / "ran"
    for index in indexes:
        index.write_bytes(_poison(marker))
    os.chmod(pycache, 0o777)
    shared = _reduce_in_fresh_process(root, own)
    assert not marker.exists(), "an index file in a group-writable cache folder was unpickled"
    assert shared["hits"] == 0, shared
    assert any(str(pycache) in w and "0777" in w for w in shared["warnings"]), shared


def test_reduce_kernels_get_a_cache_only_in_the_checked_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every numba_reduce kernel, the native drivers too: its cache is in the checked folder, or none at all
    (folder refused, ``NUMBA_CACHE_LOCATOR_CLASSES`` set, no cache_dir)."""
    import numba.core.config
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    from gpuops.backends import numba_reduce

    kernels = [v for v in vars(numba_reduce).values() if isinstance(v, Dispatcher)]
    assert {k.py_func.__name__ for k in kernels} >= {"_rows", "row_sums", "row_sums_parallel", "pieces_parallel"}
    for k in kernels:
        monkeypatch.setattr(k, "_cache", k._cache)  # restored afterwards
    monkeypatch.setattr(numba_reduce, "_cached_in", None, raising=False)
    root = tmp_path / "cache"

    def caches() -> list[str | None]:
        numba_reduce._use_checked_cache()
        return [None if isinstance(k._cache, NullCache) else k._cache.cache_path for k in kernels]

    with config.override(cache_dir=root):
        assert caches() == [str(root / "numba" / "__pycache__")] * len(kernels)
    with config.override(cache_dir=None):
        assert caches() == [None] * len(kernels)
    with config.override(cache_dir=root):
        assert caches() == [str(root / "numba" / "__pycache__")] * len(kernels)
        with monkeypatch.context() as m:
            m.setattr(numba.core.config, "CACHE_LOCATOR_CLASSES", "UserWideCacheLocator", raising=False)
            assert caches() == [None] * len(kernels)
        os.chmod(root / "numba", 0o750)
        with caplog.at_level("WARNING", logger="gpuops"):
            assert caches() == [None] * len(kernels)
    assert "its mode is 0750, so group or others have access" in caplog.text
