"""The compiled tier's disk cache runs nobody else's code (issue 13, item 7).

Loop sources are run from ``<cache_dir>/numba`` and numba keeps pickles next to them, so a cache
folder that someone else can write is refused (the loop compiles in memory, with one warning),
and a source file that does not hold exactly its loop's source is never run.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import DataType, TensorDesc, desc_class
from gpuops import config, kernels

pytest.importorskip("numba")

from gpuops.backends import numba_loops  # noqa: E402

F16 = DataType.FLOAT16
N = numba_loops.MIN_ELEMENTS + 38
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
