"""``DML_BUFFER_TENSOR_DESC`` and DirectMLX's ``DMLCalcBufferTensorSize``."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from .enums import DataType, TensorFlags
from .errors import DescriptorError

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
    bits = DataType(data_type).element_bits
    if strides is None:
        elements = math.prod(sizes)
    else:
        elements = sum((s - 1) * st for s, st in zip(sizes, strides, strict=True)) + 1
    nbytes = (elements * bits + 7) // 8
    return (nbytes + 3) & ~3


def _as_uint_tuple(values: object, what: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence | range):
        try:
            values = tuple(values)  # type: ignore[call-overload]
        except TypeError:
            raise DescriptorError(f"TensorDesc.{what} must be a sequence of integers (got {values!r})", what) from None
    out = []
    for v in values:  # type: ignore[union-attr]
        if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
            raise DescriptorError(f"TensorDesc.{what} must hold integers (got {v!r} in {tuple(values)!r})", what)
        out.append(int(v.__index__()))
    return tuple(out)


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
        try:
            data_type = DataType(self.data_type)
        except ValueError:
            allowed = ", ".join(d.name for d in DataType)
            raise DescriptorError(
                f"TensorDesc.data_type must be a DataType (got {self.data_type!r}); allowed: {allowed}", "data_type"
            ) from None
        object.__setattr__(self, "data_type", data_type)
        object.__setattr__(self, "sizes", _as_uint_tuple(self.sizes, "sizes"))
        if self.strides is not None:
            object.__setattr__(self, "strides", _as_uint_tuple(self.strides, "strides"))
        object.__setattr__(self, "flags", TensorFlags(self.flags))
        if self.total_tensor_size_in_bytes is None:
            strides_ok = self.strides is None or len(self.strides) == len(self.sizes)
            size = calc_buffer_tensor_size(data_type, self.sizes, self.strides if strides_ok else None)
            object.__setattr__(self, "total_tensor_size_in_bytes", size)
        else:
            object.__setattr__(
                self,
                "total_tensor_size_in_bytes",
                _as_uint_tuple((self.total_tensor_size_in_bytes,), "total_tensor_size_in_bytes")[0],
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
    def packed(cls, data_type: DataType, sizes: Sequence[int]) -> TensorDesc:
        """A packed row-major tensor (DirectMLX's default ``TensorPolicy``)."""
        return cls(DataType(data_type), tuple(sizes))

    @classmethod
    def broadcast(cls, data_type: DataType, sizes: Sequence[int], to: Sequence[int]) -> TensorDesc:
        """A tensor of shape ``sizes`` read as shape ``to`` (NumPy rules, stride 0 on broadcast dims).

        DirectML never broadcasts implicitly: the caller gives the input the output's sizes
        and zero strides (MicrosoftDocs/sdk-api PR #1262). This builds exactly that.
        """
        sizes = tuple(sizes)
        to = tuple(to)
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
        return cls(DataType(data_type), to, tuple(strides))
