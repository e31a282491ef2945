"""Device memory of the CUDA emulator: allocations, ``MemoryPointer`` and a CuPy-like ``ndarray``.

An allocation is a block of host memory (a NumPy ``uint8`` array, 256-byte aligned like ``cudaMalloc``, or
the memory of a NumPy array wrapped without a copy). An :class:`ndarray` is a strided view of one
allocation with CuPy's attributes (``shape``, ``strides`` in bytes, ``data.ptr``, ``flags``, ...) and CuPy's
internal flags the kernel generators read (``_c_contiguous``, ``_index_32_bits``). Unlike CuPy, a view
that would reach outside its allocation is refused when it is made, not when a kernel faults.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import faults

__all__ = [
    "Allocation",
    "MemoryPointer",
    "ndarray",
    "array",
    "ascontiguousarray",
    "asarray",
    "asnumpy",
    "empty",
    "empty_like",
    "expand_dims",
    "ones_like",
    "clip",
    "concatenate",
    "isnan",
    "may_share_memory",
    "where",
    "shares_memory",
    "zeros_like",
    "from_numpy",
    "full",
    "ones",
    "zeros",
]

ALIGNMENT = 256  # cudaMalloc returns addresses aligned to at least 256 bytes
_INDEX_32 = 1 << 31


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


class Flags:
    """``ndarray.flags`` as CuPy has it: ``c_contiguous``, ``f_contiguous``, ``owndata``."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, c: bool, f: bool, owndata: bool) -> None:
        self.c_contiguous, self.f_contiguous, self.owndata = c, f, owndata

    def __getitem__(self, name: str) -> bool:
        return bool(getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous"}.get(name, name)))

    def __repr__(self) -> str:
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n  OWNDATA : {self.owndata}"


def c_contiguity(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    """CuPy's ``internal.get_c_contiguity`` (size-1 dimensions ignored; an empty array is contiguous)."""
    if 0 in shape:
        return True
    expected = itemsize
    for sh, st in zip(reversed(shape), reversed(strides), strict=True):
        if sh != 1:
            if st != expected:
                return False
            expected *= sh
    return True


def _extent(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> tuple[int, int]:
    """Byte range ``[lo, hi)`` a view reaches, relative to its first element (``(0, 0)`` when empty)."""
    if 0 in shape:
        return 0, 0
    lo = sum((s - 1) * st for s, st in zip(shape, strides, strict=True) if st < 0)
    hi = sum((s - 1) * st for s, st in zip(shape, strides, strict=True) if st > 0)
    return lo, hi + itemsize


def _contiguous_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    out = []
    step = itemsize
    for s in reversed(shape):
        out.append(step)
        step *= max(s, 1)
    return tuple(reversed(out))


def _shape_of(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    out = tuple(int(s) for s in shape)
    if any(s < 0 for s in out):
        raise ValueError(f"negative dimensions are not allowed (got shape {out})")
    return out


class ndarray:  # noqa: N801 - CuPy's name
    """``cupy.ndarray`` over emulator memory.

    ``ndarray(shape, dtype=float, memptr=None, strides=None)``: a new C-contiguous allocation, or (with
    ``memptr``) a view of existing memory, which must lie inside ``memptr``'s allocation (ValueError).
    """

    def __init__(
        self,
        shape: Any,
        dtype: Any = float,
        memptr: MemoryPointer | None = None,
        strides: Sequence[int] | None = None,
        order: str = "C",
    ) -> None:
        shape_t = _shape_of(shape)
        dt = np.dtype(dtype)
        if order != "C" and strides is None:
            raise NotImplementedError("gpuops emulator: only order='C' is supported")
        if memptr is None:
            mem = Allocation.new(math.prod(shape_t) * dt.itemsize)
            memptr = MemoryPointer(mem, 0)
            fresh = True
        elif not isinstance(memptr, MemoryPointer):
            raise TypeError(f"memptr must be a MemoryPointer of the emulator (got {type(memptr).__name__})")
        else:
            fresh = False
        st = _contiguous_strides(shape_t, dt.itemsize) if strides is None else tuple(int(s) for s in strides)
        if len(st) != len(shape_t):
            raise ValueError("len(shape) != len(strides)")
        self._init(memptr, shape_t, st, dt, None)
        if fresh:
            self._index_32_bits = self.nbytes <= _INDEX_32
        else:
            lo, hi = _extent(shape_t, st, dt.itemsize)
            self._index_32_bits = max(hi - lo, self.nbytes) <= _INDEX_32

    def _init(
        self, memptr: MemoryPointer, shape: tuple[int, ...], strides: tuple[int, ...], dt: np.dtype, base: Any
    ) -> None:
        mem = memptr.mem
        lo, hi = _extent(shape, strides, dt.itemsize)
        if hi > lo and (memptr._offset + lo < 0 or memptr._offset + hi > mem.nbytes):
            raise ValueError(
                f"gpuops emulator: a view of shape {shape}, strides {strides} at byte offset {memptr._offset} "
                f"reaches bytes [{memptr._offset + lo}, {memptr._offset + hi}) of an allocation of {mem.nbytes} "
                "bytes (on a GPU this reads or writes outside the buffer)"
            )
        if hi > lo:
            self._arr = np.ndarray(shape, dt, buffer=mem.bytes, offset=memptr._offset, strides=strides)
        else:  # nothing to reach: an empty array
            self._arr = np.empty(shape, dt)
        self.data = memptr
        self.dtype = dt
        self._shape = shape
        self._strides = strides
        self.size = math.prod(shape)
        self.base = base
        self._c_contiguous = c_contiguity(shape, strides, dt.itemsize)
        self._f_contiguous = c_contiguity(shape[::-1], strides[::-1], dt.itemsize)

    # ---- CuPy's internal view constructor (flags inherited, then optionally updated)

    def _view(
        self,
        shape: Sequence[int],
        strides: Sequence[int],
        update_c: bool,
        update_f: bool,
        offset: int = 0,
        dtype: np.dtype | None = None,
    ) -> ndarray:
        v = ndarray.__new__(ndarray)
        base = self.base if self.base is not None else self
        v._init(self.data + offset, tuple(shape), tuple(strides), self.dtype if dtype is None else dtype, base)
        if not update_c:
            v._c_contiguous = self._c_contiguous
        if not update_f:
            v._f_contiguous = self._f_contiguous
        v._index_32_bits = self._index_32_bits
        return v

    def _from_numpy_view(self, view: np.ndarray) -> ndarray:
        """An ndarray over ``view``, a NumPy view of this array's memory (flags recomputed)."""
        offset = int(view.__array_interface__["data"][0]) - self.data.ptr if view.size else 0
        return self._view(view.shape, view.strides, True, True, offset, view.dtype)

    # ---- attributes

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        return self._strides

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def flags(self) -> Flags:
        return Flags(self._c_contiguous, self._f_contiguous, self.base is None)

    @property
    def device(self) -> int:
        return 0

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __repr__(self) -> str:
        return f"emulator.ndarray({self._arr!r})"

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array "
            "explicitly."
        )

    # ---- views and copies

    def _scalar(self, what: str) -> Any:
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars ({what})")
        return self._arr.reshape(-1)[0]

    def __int__(self) -> int:  # CuPy converts a size-1 array (a device-to-host copy)
        return int(self._scalar("int"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def reshape(self, *shape: Any, order: str = "C") -> ndarray:
        if order != "C":
            raise NotImplementedError("gpuops emulator: reshape supports order='C' only")
        new = shape[0] if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)) else shape
        view = self._arr.reshape(new)
        if view.size and not np.shares_memory(view, self._arr):
            out = empty(view.shape, self.dtype)
            out._arr[...] = view
            return out
        return self._from_numpy_view(view)

    def ravel(self) -> ndarray:
        return self.reshape(-1)

    def __getitem__(self, key: Any) -> ndarray:
        view = self._arr[key]
        if not isinstance(view, np.ndarray):
            view = self._arr[key if isinstance(key, tuple) else (key,)][...]  # a 0-d view, not a scalar
        if view.size and not np.shares_memory(view, self._arr):
            raise NotImplementedError("gpuops emulator: advanced indexing is not supported")
        return self._from_numpy_view(view)

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, ndarray):
            value = value._arr
        elif isinstance(value, np.ndarray):
            raise TypeError("gpuops emulator: assign a NumPy array with ndarray.set() or asarray(), as in CuPy")
        self._arr[key] = value

    def transpose(self, *axes: Any) -> ndarray:
        perm = axes[0] if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)) else (axes or None)
        return self._from_numpy_view(self._arr.transpose(perm))

    @property
    def T(self) -> ndarray:  # noqa: N802 - NumPy's name
        return self.transpose()

    def copy(self) -> ndarray:
        out = empty(self._shape, self.dtype)
        out._arr[...] = self._arr
        return out

    def fill(self, value: Any) -> None:
        self._arr.fill(value)

    def get(self, stream: Any = None, order: str = "C", out: np.ndarray | None = None) -> np.ndarray:
        """A NumPy copy (``cupy.ndarray.get``)."""
        faults.check()
        if out is not None:
            out[...] = self._arr
            return out
        return np.array(self._arr, order=order, copy=True)  # type: ignore[call-overload]

    def set(self, arr: np.ndarray, stream: Any = None) -> None:
        """Copy a NumPy array of the same dtype and shape in (``cupy.ndarray.set``)."""
        faults.check()
        arr = np.asarray(arr)
        if arr.dtype != self.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if arr.shape != self._shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._shape}, new shape: {arr.shape}")
        self._arr[...] = arr

    def view(self, dtype: Any = None) -> ndarray:
        return self._from_numpy_view(self._arr if dtype is None else self._arr.view(dtype))

    def astype(self, dtype: Any, copy: bool = True) -> ndarray:
        dt = np.dtype(dtype)
        if dt == self.dtype and not copy:
            return self
        out = empty(self._shape, dt)
        out._arr[...] = self._arr.astype(dt)
        return out

    # ---- CuPy's operators (Dask's chunk code and gpuops.dask's combine steps use them): computed by NumPy
    # over the emulated memory, each giving a new emulator array as CuPy's give a new device array.

    def _op(self, fn: Any, other: Any, swap: bool = False) -> ndarray:
        a, b = self._arr, _operand(other, fn.__name__)
        return _wrap(np.asarray(fn(b, a) if swap else fn(a, b)))

    def __eq__(self, other: Any) -> ndarray:  # type: ignore[override]
        return self._op(np.equal, other)

    def __ne__(self, other: Any) -> ndarray:  # type: ignore[override]
        return self._op(np.not_equal, other)

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Any) -> ndarray:
        return self._op(np.add, other)

    def __radd__(self, other: Any) -> ndarray:
        return self._op(np.add, other, swap=True)

    def __sub__(self, other: Any) -> ndarray:
        return self._op(np.subtract, other)

    def __rsub__(self, other: Any) -> ndarray:
        return self._op(np.subtract, other, swap=True)

    def __mul__(self, other: Any) -> ndarray:
        return self._op(np.multiply, other)

    def __rmul__(self, other: Any) -> ndarray:
        return self._op(np.multiply, other, swap=True)

    def __floordiv__(self, other: Any) -> ndarray:
        return self._op(np.floor_divide, other)

    def __mod__(self, other: Any) -> ndarray:
        return self._op(np.remainder, other)

    def __and__(self, other: Any) -> ndarray:
        return self._op(np.bitwise_and, other)

    def __or__(self, other: Any) -> ndarray:
        return self._op(np.bitwise_or, other)

    def __neg__(self) -> ndarray:
        return _wrap(np.negative(self._arr))


# ---------------------------------------------------------------------------------------------- creation


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """``cupy.empty``: a new C-contiguous array (contents undefined)."""
    return ndarray(shape, dtype, order=order)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> ndarray:
    out = empty(shape, np.asarray(fill_value).dtype if dtype is None else dtype)
    out._arr.fill(fill_value)
    return out


def zeros(shape: Any, dtype: Any = float) -> ndarray:
    return full(shape, 0, dtype)


def ones(shape: Any, dtype: Any = float) -> ndarray:
    return full(shape, 1, dtype)


def from_numpy(a: np.ndarray) -> ndarray:
    """An ndarray over the memory of a C-contiguous NumPy array: no copy, writes reach ``a``."""
    if not isinstance(a, np.ndarray) or not a.flags.c_contiguous:
        raise ValueError("from_numpy: a C-contiguous numpy.ndarray is needed")
    raw = a.reshape(-1).view(np.uint8) if a.size else np.empty(0, np.uint8)
    mem = Allocation(a, raw)
    out = ndarray(a.shape, a.dtype, memptr=MemoryPointer(mem, 0), strides=a.strides if a.size else None)
    return out


def asarray(a: Any, dtype: Any = None) -> ndarray:
    """``cupy.asarray``: an emulator array as it is; anything else copied into a new allocation."""
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    host = np.asarray(a, dtype=dtype)
    out = empty(host.shape, host.dtype)
    out._arr[...] = host
    return out


def array(a: Any, dtype: Any = None, copy: bool = True) -> ndarray:
    """``cupy.array``: a copy (or ``asarray`` when ``copy=False``)."""
    if isinstance(a, ndarray) and copy:
        return a.astype(a.dtype if dtype is None else dtype, copy=True)
    return asarray(a, dtype)


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: np.ndarray | None = None) -> np.ndarray:
    """``cupy.asnumpy``."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    host = np.asarray(a, order=order)  # type: ignore[call-overload]
    if out is not None:
        out[...] = host
        return out
    return host


def expand_dims(a: ndarray, axis: int | Sequence[int]) -> ndarray:
    """``cupy.expand_dims``: a view with size-1 axes inserted."""
    if not isinstance(a, ndarray):
        raise TypeError(f"expand_dims: expected an emulator ndarray (got {type(a).__name__})")
    return a._from_numpy_view(np.expand_dims(a._arr, axis))


def ascontiguousarray(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.ascontiguousarray``: ``a`` itself when C-contiguous (and of ``dtype``), else a C-contiguous copy."""
    if not isinstance(a, ndarray):
        raise TypeError(f"ascontiguousarray: expected an emulator ndarray (got {type(a).__name__})")
    if a.flags.c_contiguous and (dtype is None or np.dtype(dtype) == a.dtype):
        return a
    out = empty(a.shape, a.dtype if dtype is None else dtype)
    out._arr[...] = a._arr
    return out


def empty_like(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.empty_like`` (C order)."""
    return empty(a.shape, a.dtype if dtype is None else dtype)


def ones_like(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.ones_like`` (C order)."""
    return ones(a.shape, a.dtype if dtype is None else dtype)


def shares_memory(a: ndarray, b: ndarray, max_work: Any = None) -> bool:
    """``cupy.shares_memory``: whether two emulator arrays overlap (exactly, through their NumPy views)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray):
        raise TypeError("shares_memory: both arguments must be emulator ndarrays")
    return bool(np.shares_memory(a._arr, b._arr))


def may_share_memory(a: ndarray, b: ndarray, max_work: Any = None) -> bool:
    """``cupy.may_share_memory``: whether the byte ranges of two emulator arrays overlap (bounds only)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray):
        raise TypeError("may_share_memory: both arguments must be emulator ndarrays")
    return bool(np.may_share_memory(a._arr, b._arr))


# ---------------------------------------------------------------------------------------------- library
# CuPy's own library functions the front-ends call (not gpuops kernels): computed by NumPy over the
# emulated device memory, each giving a new emulator array as CuPy gives a new device array.


def _operand(x: Any, what: str) -> Any:
    if isinstance(x, ndarray):
        return x._arr
    if isinstance(x, np.ndarray):
        raise TypeError(f"{what}: a NumPy array is not a device array (use asarray), as in CuPy")
    return x  # a Python or NumPy scalar


def _wrap(result: np.ndarray) -> ndarray:
    out = empty(result.shape, result.dtype)
    out._arr[...] = result
    return out


def where(condition: ndarray, x: Any, y: Any) -> ndarray:
    """``cupy.where(condition, x, y)``."""
    return _wrap(np.where(_operand(condition, "where"), _operand(x, "where"), _operand(y, "where")))


def isnan(x: ndarray) -> ndarray:
    """``cupy.isnan``."""
    return _wrap(np.isnan(_operand(x, "isnan")))


def clip(a: ndarray, a_min: Any, a_max: Any) -> ndarray:
    """``cupy.clip``."""
    return _wrap(np.clip(_operand(a, "clip"), _operand(a_min, "clip"), _operand(a_max, "clip")))


def zeros_like(a: ndarray, dtype: Any = None) -> ndarray:
    """``cupy.zeros_like`` (C order)."""
    return zeros(a.shape, a.dtype if dtype is None else dtype)


def concatenate(arrays: Sequence[ndarray], axis: int = 0) -> ndarray:
    """``cupy.concatenate`` (Dask's ``concatenate_lookup`` calls it to join chunks)."""
    return _wrap(np.concatenate([_operand(a, "concatenate") for a in arrays], axis=axis))
