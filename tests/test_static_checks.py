"""The repository's static checks run with the tests, so CI holds every commit to them (issue 15):
``mypy descriptors gpuops`` (the strict settings in pyproject.toml, the descriptor classes typed through
``descriptors/descs.pyi``), ``ruff check`` and ``ruff format --check`` over the whole repository.

mypy and ruff are in the ``test`` extra, so a missing one is a failure, not a skip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_is_clean(tmp_path: Path) -> None:
    done = _run("mypy", "--cache-dir", str(tmp_path / "mypy"), "descriptors", "gpuops")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("command", [("check",), ("format", "--check")], ids=["check", "format"])
def test_ruff_is_clean(command: tuple[str, ...]) -> None:
    done = _run("ruff", *command, "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr
