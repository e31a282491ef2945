"""Shows the ONNX conformance tables at the end of a pytest run (with or without ``-s``).

Without the ``onnx`` package (the ``test`` extra installs it; the GPU machine's image lacks
it) the node tests are not collected, and ``test_onnx_available.py`` says why: a skip with
the reason, or a failure under CI (``CI`` set), where the extra must be installed.
"""

from __future__ import annotations

import importlib.util

import pytest

ONNX_MISSING = None if importlib.util.find_spec("onnx") else "onnx is not installed (pip install -e .[test])"
collect_ignore = ["test_onnx_nodes.py"] if ONNX_MISSING else []

_TABLES = pytest.StashKey[dict[str, str]]()


@pytest.fixture
def conformance_report(request: pytest.FixtureRequest) -> dict[str, str]:
    """backend -> the conformance table a test produced; printed in the terminal summary."""
    return request.config.stash.setdefault(_TABLES, {})


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under pytest-xdist the tables are a worker's: ``tests/conftest.py`` sends them to the controller, which
    prints them (this conftest is not loaded there)."""
    if hasattr(session.config, "workeroutput"):
        session.config.gpuops_conformance_tables = dict(session.config.stash.get(_TABLES, {}))  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    for backend, table in config.stash.get(_TABLES, {}).items():
        terminalreporter.section(f"ONNX node conformance ({backend})")
        terminalreporter.write(table)
