"""DirectML-style buffer binding, checked before anything is written.

Rules (API.md; shared/reference/directml.md section 8, BindInputs): one buffer per tensor in
the operator's order, ``None`` only for an absent optional tensor; each buffer is a
C-contiguous array of the backend with the tensor's dtype and at least
``total_tensor_size_in_bytes`` bytes; the tensor is read or written through its sizes and
element strides from the buffer's first element. An output may be the very same buffer
(same start, same size) as an input only when the operator supports in-place execution and
both tensor descriptors are identical; any other overlap involving an output is rejected.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from descriptors import OperatorDesc, TensorDesc
from descriptors.schema import OpRow

from .errors import BindingError

__all__ = ["Binding", "check_bindings"]


@dataclasses.dataclass(frozen=True, slots=True)
class Binding:
    """A checked binding: the buffers per role, and which outputs alias which input."""

    inputs: dict[str, Any]
    outputs: dict[str, Any]
    aliased: frozenset[str]  # output roles bound to the same buffer as an input


def _describe(buf: object) -> str:
    shape = getattr(buf, "shape", None)
    dtype = getattr(buf, "dtype", None)
    return f"{type(buf).__module__}.{type(buf).__name__}" + (f"(shape={shape}, dtype={dtype})" if shape is not None else "")


def check_bindings(
    desc: OperatorDesc,
    row: OpRow,
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    array_type: type,
    pointer: Any,
    backend: str,
) -> Binding:
    """Check every buffer against its tensor; return the binding or raise BindingError.

    ``pointer(buf)`` gives the device address of a buffer's first byte.
    """
    op = row.name
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Sequence):
        raise BindingError(f"{op}: inputs must be a list of buffers (got {type(inputs).__name__})")
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Sequence):
        raise BindingError(f"{op}: outputs must be a list of buffers (got {type(outputs).__name__})")
    in_fields, out_fields = row.input_fields, row.output_fields
    if len(inputs) != len(in_fields):
        raise BindingError(
            f"{op}: {len(inputs)} input buffers bound; the operator has {len(in_fields)} inputs "
            f"({', '.join(f.name for f in in_fields)}); pass None for an absent optional tensor"
        )
    if len(outputs) != len(out_fields):
        raise BindingError(
            f"{op}: {len(outputs)} output buffers bound; the operator has {len(out_fields)} outputs "
            f"({', '.join(f.name for f in out_fields)})"
        )
    spans: dict[str, tuple[int, int]] = {}
    bound_in: dict[str, Any] = {}
    bound_out: dict[str, Any] = {}
    for is_output, fields, bufs, bound in ((False, in_fields, inputs, bound_in), (True, out_fields, outputs, bound_out)):
        for f, buf in zip(fields, bufs, strict=True):
            tensor: TensorDesc | None = getattr(desc, f.name)
            if tensor is None:
                if buf is not None:
                    raise BindingError(f"{op}: {f.name} is absent from the descriptor, so its buffer must be None")
                continue
            if buf is None:
                raise BindingError(f"{op}: {f.name} needs a buffer (got None)")
            if not isinstance(buf, array_type):
                raise BindingError(
                    f"{op}: {f.name} must be bound to a {array_type.__module__}.{array_type.__name__} on the "
                    f"{backend} backend (got {_describe(buf)})"
                )
            if not buf.flags.c_contiguous:
                raise BindingError(f"{op}: {f.name} buffer must be C-contiguous (got strides {buf.strides})")
            want = tensor.data_type.numpy_dtype
            if buf.dtype != want:
                raise BindingError(
                    f"{op}: {f.name} buffer has dtype {buf.dtype}; the tensor is {tensor.data_type.name} ({want})"
                )
            need = tensor.total_tensor_size_in_bytes
            assert need is not None
            if buf.nbytes < need:
                raise BindingError(
                    f"{op}: {f.name} buffer holds {buf.nbytes} bytes; the tensor needs "
                    f"total_tensor_size_in_bytes = {need}"
                )
            ptr = int(pointer(buf))
            align = tensor.guaranteed_base_offset_alignment
            if align and ptr % align:
                raise BindingError(
                    f"{op}: {f.name} buffer address {ptr:#x} is not a multiple of "
                    f"guaranteed_base_offset_alignment = {align}"
                )
            if is_output and not getattr(buf.flags, "writeable", True):
                raise BindingError(f"{op}: {f.name} buffer is read-only")
            spans[f.name] = (ptr, buf.nbytes)
            bound[f.name] = buf
    aliased: set[str] = set()
    out_roles = list(bound_out)
    for i, o in enumerate(out_roles):
        o_lo, o_n = spans[o]
        for other in out_roles[i + 1 :]:
            lo, n = spans[other]
            if lo < o_lo + o_n and o_lo < lo + n:
                raise BindingError(f"{op}: outputs {o} and {other} overlap in memory")
        for r in bound_in:
            lo, n = spans[r]
            if not (lo < o_lo + o_n and o_lo < lo + n):
                continue
            if (lo, n) != (o_lo, o_n):
                raise BindingError(
                    f"{op}: {o} partially overlaps {r} (bytes [{o_lo:#x}, +{o_n}) vs [{lo:#x}, +{n})); "
                    "only an identical buffer may be shared (in-place execution)"
                )
            if not row.in_place:
                raise BindingError(f"{op}: {o} is bound to the same buffer as {r}, but {op} does not run in place")
            if getattr(desc, o) != getattr(desc, r):
                raise BindingError(
                    f"{op}: {o} shares its buffer with {r}, which needs identical tensor descriptors "
                    f"(got {getattr(desc, o)} vs {getattr(desc, r)})"
                )
            aliased.add(o)
    return Binding(bound_in, bound_out, frozenset(aliased))
