"""Device memory of the CUDA emulator: a CuPy-like ``ndarray`` over its allocations (``allocation``).

An :class:`ndarray` is a strided view of one allocation (``allocation.Allocation``: host memory, 256-byte aligned
like ``cudaMalloc``, or a NumPy array's memory wrapped without a copy) with CuPy's attributes (``shape``,
``strides`` in bytes, ``data.ptr``, ``flags``, ...) and CuPy's internal flags the kernel generators read
(``_c_contiguous``, ``_index_32_bits``). Unlike CuPy, a view that would reach outside its allocation is refused
when it is made, not when a kernel faults. Here too: ``empty``, the transfers ``asarray`` / ``asnumpy``, and the
operands of CuPy's operators; the other array functions are ``array_functions``'.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import faults
from .allocation import Allocation, MemoryPointer

__all__ = ["Allocation", "MemoryPointer", "asarray", "asnumpy", "empty", "ndarray"]

_INDEX_32 = 1 << 31


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


# ---------------------------------------------------------------------------------------------- creation, transfers
# (the other array functions: ``array_functions``)


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """``cupy.empty``: a new C-contiguous array (contents undefined)."""
    return ndarray(shape, dtype, order=order)


def asarray(a: Any, dtype: Any = None) -> ndarray:
    """``cupy.asarray``: an emulator array as it is; anything else copied into a new allocation."""
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    host = np.asarray(a, dtype=dtype)
    out = empty(host.shape, host.dtype)
    out._arr[...] = host
    return out


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: np.ndarray | None = None) -> np.ndarray:
    """``cupy.asnumpy``."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    host = np.asarray(a, order=order)  # type: ignore[call-overload]
    if out is not None:
        out[...] = host
        return out
    return host


# ---------------------------------------------------------------------------------------------- operands
# NumPy computes CuPy's operators and library functions over the emulated memory, each result copied into a new
# emulator array as CuPy gives a new device array.


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
