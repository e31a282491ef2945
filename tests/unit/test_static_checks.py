"""The repository's static checks run with the tests, so CI holds every commit to them (issue 15):
``mypy descriptors gpuops`` (the strict settings in pyproject.toml, the descriptor classes typed through
``descriptors/descs.pyi``), ``ruff check`` and ``ruff format --check`` over the whole repository.

mypy and ruff are in the ``test`` extra, so a missing one is a failure, not a skip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_is_clean(tmp_path: Path) -> None:
    done = _run("mypy", "--cache-dir", str(tmp_path / "mypy"), "descriptors", "gpuops")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("command", [("check",), ("format", "--check")], ids=["check", "format"])
def test_ruff_is_clean(command: tuple[str, ...]) -> None:
    done = _run("ruff", *command, "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_package_is_installed() -> None:
    """pyproject.toml lists packages by name (setuptools' ``packages``): a new subpackage missing from the list is
    absent from a wheel or non-editable install, though every test run from the tree finds it."""
    import re

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^\[tool\.setuptools\]\npackages = \[(.*?)\]", text, re.M | re.S)
    assert block, "pyproject.toml has no [tool.setuptools] packages list"
    listed = set(re.findall(r'"([\w.]+)"', block.group(1)))
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("descriptors", "gpuops")
        for p in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found == listed, {"not listed": sorted(found - listed), "listed, not a package": sorted(listed - found)}
