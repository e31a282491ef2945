"""Shared fixtures: the backend matrix, GPU skipping, hypothesis profiles."""

from __future__ import annotations

import functools
import os
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Compiled loops of the NumPy backend's numba tier go to a folder of this test session, not the user's cache.
os.environ.setdefault("GPUOPS_CACHE_DIR", tempfile.mkdtemp(prefix="gpuops-test-cache-"))


@functools.cache
def cuda_unusable_reason() -> str | None:
    """None when CuPy can run kernels here, else why not (for the skip message)."""
    try:
        import cupy
    except Exception as exc:  # ImportError or a broken install
        return f"cupy is not importable ({exc.__class__.__name__}: {exc})"
    try:
        if not cupy.is_available():
            return "cupy is installed but no CUDA device/driver is usable (cupy.is_available() is False)"
    except Exception as exc:
        return f"cupy.is_available() failed: {exc}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = cuda_unusable_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"gpu test: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


BACKENDS = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def device(backend: str):  # type: ignore[no-untyped-def]
    import gpuops

    return gpuops.Device(backend)


@pytest.fixture
def xp(backend: str):  # type: ignore[no-untyped-def]
    """The array module of the backend (numpy or cupy)."""
    if backend == "cupy":
        import cupy

        return cupy
    import numpy

    return numpy
