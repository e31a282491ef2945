"""pytest plugin of the sanitizer sample's child runs (``-p sanitizer_sample``: tests/slow/test_emulator_sanitize.py).

The emulator's own tests (``tests/backends/test_emulator_device.py``) name ``Device("emulator")`` themselves and are
not gpu-marked, so the suite's dry run (``conftest.pytest_runtestloop``) leaves them out and each of their kernels is
compiled alone at its first launch: under the sanitizers, seconds of compiler time each instead of a share of
the merged batch. In the child every selected test runs on the emulator, so every one joins the dry run, and their
kernels are built in the same batch as the gpu tests'. What runs, and how it is checked, is unchanged.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "gpu" not in item.keywords:
            item.keywords["gpu"] = True  # a keyword only (no marker): the dry run's filter sees it
