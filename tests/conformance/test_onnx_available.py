"""The ONNX node tests need the ``onnx`` package: say so when it is missing (fail under CI)."""

from __future__ import annotations

import os

import pytest

from conformance.conftest import ONNX_MISSING


def test_onnx_is_installed() -> None:
    if ONNX_MISSING is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{ONNX_MISSING}: CI installs the test extra, so the conformance suite must run")
    pytest.skip(f"ONNX conformance not run: {ONNX_MISSING}")
