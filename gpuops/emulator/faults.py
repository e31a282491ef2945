"""The emulated device's sticky error, as a CUDA context has one.

A kernel fault on a GPU (``cudaErrorMisalignedAddress``, an illegal address) is sticky: every later CUDA call in
that process fails with the same error, and only a new process gets a working device. The emulator does the same:
the first fault a launch reports (``gpuops.emulator.build.DeviceFault``) poisons the emulated device, and from then
on every launch and every allocation or copy of device memory raises :class:`CUDARuntimeError` naming that first
fault. :func:`reset` is the emulator's stand-in for a new process (the test suite calls it after reporting which
test poisoned the device, so that one fault does not cascade through the tests after it).
"""

from __future__ import annotations

import threading

from .build import DeviceFault

__all__ = ["CUDARuntimeError", "check", "device_fault", "poison", "reset"]


class CUDARuntimeError(RuntimeError):
    """``cupy_backends.cuda.api.runtime.CUDARuntimeError`` of the emulated device: ``str()`` starts with the CUDA
    status name (``"cudaErrorMisalignedAddress: misaligned address"``), as CuPy's does."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status


_lock = threading.Lock()
_first: DeviceFault | None = None


def check() -> None:
    """Raise the sticky error if the device has faulted (called before every launch, allocation and copy)."""
    first = _first
    if first is not None:
        raise CUDARuntimeError(
            first.code, f"{first.message} (the emulated device faulted earlier and refuses all work: {first.detail})"
        )


def poison(fault: DeviceFault) -> CUDARuntimeError:
    """Record ``fault`` as the device's sticky error (the first one stays) and return the error to raise."""
    global _first
    with _lock:
        if _first is None:
            _first = fault
    return CUDARuntimeError(fault.code, f"{fault.message} ({fault.detail})")


def device_fault() -> str | None:
    """The first fault, as text, or None while the device is healthy."""
    first = _first
    return None if first is None else str(first)


def reset() -> str | None:
    """Clear the sticky error (a new process, on a GPU); returns what it was."""
    global _first
    with _lock:
        was, _first = _first, None
    return None if was is None else str(was)
