"""Allocations of the CUDA emulator's device memory and ``MemoryPointer``, CuPy's address into one.

An allocation is a block of host memory (a NumPy ``uint8`` array, 256-byte aligned like ``cudaMalloc``, or the
memory of a NumPy array wrapped without a copy); the arrays over it are ``memory.ndarray``.
"""

from __future__ import annotations

import numpy as np

from . import faults

__all__ = ["ALIGNMENT", "Allocation", "MemoryPointer"]

ALIGNMENT = 256  # cudaMalloc returns addresses aligned to at least 256 bytes


class Allocation:
    """A block of memory: ``nbytes`` bytes at address ``ptr``, kept alive by ``owner`` (a NumPy array)."""

    __slots__ = ("bytes", "nbytes", "owner", "ptr")

    def __init__(self, owner: np.ndarray, raw: np.ndarray) -> None:
        self.owner = owner
        self.bytes = raw  # 1-D uint8 over exactly the allocation
        self.nbytes = int(raw.nbytes)
        self.ptr = int(raw.__array_interface__["data"][0])

    @classmethod
    def new(cls, nbytes: int) -> Allocation:
        faults.check()  # a faulted device allocates nothing, as cudaMalloc after a sticky error
        block = np.empty(nbytes + ALIGNMENT, np.uint8)
        start = -int(block.__array_interface__["data"][0]) % ALIGNMENT
        return cls(block, block[start : start + nbytes])


class MemoryPointer:
    """``cupy.cuda.MemoryPointer``: an address inside an allocation (``ptr``); ``+ n`` moves it ``n`` bytes."""

    __slots__ = ("_offset", "mem", "ptr")

    def __init__(self, mem: Allocation, offset: int) -> None:
        self.mem = mem
        self._offset = int(offset)
        self.ptr = mem.ptr + self._offset

    device_id = 0

    def __add__(self, offset: int) -> MemoryPointer:
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
            return NotImplemented
        return MemoryPointer(self.mem, self._offset + int(offset))

    __radd__ = __add__

    def __sub__(self, offset: int) -> MemoryPointer:
        return self + (-int(offset))

    def __int__(self) -> int:
        return self.ptr

    def __repr__(self) -> str:
        return f"MemoryPointer(ptr={self.ptr:#x}, offset={self._offset} of {self.mem.nbytes} bytes)"
