"""``DML_BUFFER_TENSOR_DESC`` and DirectMLX's ``DMLCalcBufferTensorSize``."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence

from .enums import DataType, TensorFlags
from .errors import DescriptorError, count

__all__ = ["TensorDesc", "calc_buffer_tensor_size", "packed_strides"]


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major packed strides in elements (what a null ``Strides`` means)."""
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    return tuple(strides)


def calc_buffer_tensor_size(data_type: DataType, sizes: Sequence[int], strides: Sequence[int] | None = None) -> int:
    """Bytes a buffer must hold for the tensor: DirectMLX ``DMLCalcBufferTensorSize``.

    Packed: ``prod(sizes)`` elements; strided: up to the last element's index
    ``sum((size - 1) * stride)`` plus one. Rounded up to whole bytes, then to a multiple of 4
    (every bound buffer is DWORD sized). 64-bit arithmetic throughout (DirectML PR #296).
    """
    try:
        bits = DataType(data_type).element_bits
    except ValueError:
        raise DescriptorError(f"calc_buffer_tensor_size: {data_type!r} is not a DataType", "data_type") from None
    if strides is not None and len(strides) != len(sizes):
        raise DescriptorError(
            f"calc_buffer_tensor_size: {count(len(strides), 'stride')} for {count(len(sizes), 'size')}; "
            "give one stride per dimension",
            "strides",
        )
    if strides is None:
        elements = math.prod(sizes)
    else:
        elements = sum((s - 1) * st for s, st in zip(sizes, strides, strict=True)) + 1
    nbytes = (elements * bits + 7) // 8
    return (nbytes + 3) & ~3


UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1
# DirectML allows 8 dimensions at most (DML_TENSOR_DIMENSION_COUNT_MAX1); a descriptor is refused
# far above that before any work is done on its sizes (validate states the per-level limit).
MAX_DIMENSIONS = 64


def _show(v: int) -> str:
    """An integer for a message: huge ones by their size (str() of a 5000-digit int raises)."""
    return repr(v) if -(2**64) < v < 2**64 else f"an integer of {v.bit_length()} bits"


def _as_uint_tuple(values: object, what: str, limit: int = UINT32_MAX) -> tuple[int, ...]:
    """``values`` as a tuple of Python ints, each 0 to ``limit`` (the C type of the field),
    checked one by one before anything is computed from them."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence | range):
        if not hasattr(values, "__iter__"):
            raise DescriptorError(
                f"TensorDesc.{what} must be a sequence of integers (got {type(values).__name__})", what
            )
        try:
            values = tuple(itertools.islice(values, MAX_DIMENSIONS + 1))
        except TypeError:
            raise DescriptorError(
                f"TensorDesc.{what} must be a sequence of integers (got {type(values).__name__})", what
            ) from None
    if len(values) > MAX_DIMENSIONS:
        raise DescriptorError(
            f"TensorDesc.{what} has more than {MAX_DIMENSIONS} entries; DirectML tensors have at most 8 dimensions",
            what,
        )
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
            raise DescriptorError(f"TensorDesc.{what} must hold integers (got {v!r} at index {i})", what)
        n = int(v.__index__())
        if not 0 <= n <= limit:
            at = f" at index {i}" if what in ("sizes", "strides") else ""
            raise DescriptorError(
                f"TensorDesc.{what} holds {_show(n)}{at}; the field is an unsigned "
                f"{limit.bit_length()}-bit integer (0 to 2**{limit.bit_length()}-1)",
                what,
            )
        out.append(n)
    return tuple(out)


def _flags(value: object) -> TensorFlags:
    """``DML_TENSOR_FLAGS``: NONE or OWNED_BY_DML; any other bit is refused (E_INVALIDARG)."""
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise DescriptorError(f"TensorDesc.flags must be a TensorFlags (got {value!r})", "flags")
    n = int(value.__index__())
    known = int(TensorFlags.OWNED_BY_DML)
    if n < 0 or n & ~known:
        raise DescriptorError(
            f"TensorDesc.flags is {hex(n) if 0 <= n <= UINT64_MAX else _show(n)}; allowed: NONE (0), "
            f"OWNED_BY_DML (0x1)",
            "flags",
        )
    return TensorFlags(n)


@dataclasses.dataclass(frozen=True, slots=True)
class TensorDesc:
    """A buffer tensor: ``DML_BUFFER_TENSOR_DESC``.

    ``strides`` are in ELEMENTS (0 broadcasts along that dimension); ``None`` means packed
    row-major. ``total_tensor_size_in_bytes=None`` is replaced by
    :func:`calc_buffer_tensor_size`. Values are checked against an operator by
    :func:`descriptors.validate`, as DirectML checks them in ``CreateOperator``.
    """

    data_type: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    flags: TensorFlags = TensorFlags.NONE
    total_tensor_size_in_bytes: int | None = None
    guaranteed_base_offset_alignment: int = 0

    def __post_init__(self) -> None:
        data_type = DataType.parse(self.data_type, "TensorDesc.data_type")
        object.__setattr__(self, "data_type", data_type)
        object.__setattr__(self, "sizes", _as_uint_tuple(self.sizes, "sizes"))
        if self.strides is not None:
            object.__setattr__(self, "strides", _as_uint_tuple(self.strides, "strides"))
        object.__setattr__(self, "flags", _flags(self.flags))
        if self.total_tensor_size_in_bytes is None:
            strides_ok = self.strides is None or len(self.strides) == len(self.sizes)
            size = calc_buffer_tensor_size(data_type, self.sizes, self.strides if strides_ok else None)
            object.__setattr__(self, "total_tensor_size_in_bytes", size)
        else:
            object.__setattr__(
                self,
                "total_tensor_size_in_bytes",
                _as_uint_tuple((self.total_tensor_size_in_bytes,), "total_tensor_size_in_bytes", UINT64_MAX)[0],
            )
        object.__setattr__(
            self,
            "guaranteed_base_offset_alignment",
            _as_uint_tuple((self.guaranteed_base_offset_alignment,), "guaranteed_base_offset_alignment")[0],
        )

    @property
    def dimension_count(self) -> int:
        """``DimensionCount``: ``len(sizes)``."""
        return len(self.sizes)

    @property
    def element_strides(self) -> tuple[int, ...]:
        """The strides in elements, packed row-major ones when ``strides`` is None."""
        return self.strides if self.strides is not None else packed_strides(self.sizes)

    @property
    def element_count(self) -> int:
        """Number of logical elements, ``prod(sizes)``."""
        return math.prod(self.sizes)

    @property
    def is_packed(self) -> bool:
        """True when the tensor is dense row-major (null strides or strides equal to packed)."""
        return self.strides is None or self.strides == packed_strides(self.sizes) or self.element_count == 1

    @classmethod
    def from_array(cls, array: object) -> TensorDesc:
        """The packed tensor of an array's data type and shape (a 0-d array is sizes ``(1,)``): any object with
        ``dtype`` and ``shape`` (NumPy, CuPy, the emulator's arrays, torch tensors through NumPy's dtype)."""
        dtype = getattr(array, "dtype", None)
        shape = getattr(array, "shape", None)
        if dtype is None or shape is None:
            raise TypeError(
                f"TensorDesc.from_array: expected an array with dtype and shape (got {type(array).__name__})"
            )
        return cls(DataType.parse(dtype, "TensorDesc.from_array"), tuple(int(s) for s in shape) or (1,))

    @classmethod
    def packed(cls, data_type: DataType, sizes: Sequence[int]) -> TensorDesc:
        """A packed row-major tensor (DirectMLX's default ``TensorPolicy``)."""
        return cls(data_type, sizes)  # type: ignore[arg-type]  # the constructor converts and checks both

    @classmethod
    def broadcast(cls, data_type: DataType, sizes: Sequence[int], to: Sequence[int]) -> TensorDesc:
        """A tensor of shape ``sizes`` read as shape ``to`` (NumPy rules, stride 0 on broadcast dims).

        DirectML never broadcasts implicitly: the caller gives the input the output's sizes
        and zero strides (MicrosoftDocs/sdk-api PR #1262). This builds exactly that.
        """
        sizes = _as_uint_tuple(sizes, "sizes")
        to = _as_uint_tuple(to, "sizes")
        if len(sizes) > len(to):
            raise DescriptorError(f"TensorDesc.broadcast: cannot broadcast {sizes} to fewer dimensions {to}", "sizes")
        padded = (1,) * (len(to) - len(sizes)) + sizes
        packed = packed_strides(padded)
        strides = []
        for s, t, st in zip(padded, to, packed, strict=True):
            if s == t:
                strides.append(st if t > 1 else 0)
            elif s == 1:
                strides.append(0)
            else:
                raise DescriptorError(f"TensorDesc.broadcast: cannot broadcast {sizes} to {to}", "sizes")
        return cls(data_type, to, tuple(strides))

    def read_as(self, to: Sequence[int]) -> TensorDesc:
        """This tensor read at sizes ``to`` (same rank): each dimension of size 1 that ``to`` widens gets stride
        0, the buffer (its total size) stays this one's. How a composite operator reads a reduced value or a
        broadcast ScaleTensor at its input's sizes."""
        to = tuple(int(t) for t in to)
        if len(to) != len(self.sizes) or any(s not in (1, t) for s, t in zip(self.sizes, to, strict=True)):
            raise DescriptorError(f"TensorDesc.read_as: sizes {self.sizes} do not broadcast to {to}", "sizes")
        if to == self.sizes:
            return self
        strides = tuple(0 if s != t else st for s, t, st in zip(self.sizes, to, self.element_strides, strict=True))
        return dataclasses.replace(self, sizes=to, strides=strides)
