"""What the front-ends share: arrays in and out, and running a descriptor on a device.

A front-end only translates: it turns a call in its own vocabulary into a descriptor and
runs it here (``Device.create_operator`` + ``compile_operator``, cached per descriptor, then
``execute``); it has no op logic of its own. Arrays: NumPy arrays (and anything
``numpy.asarray`` takes) on the NumPy backend; CuPy arrays, and anything with
``__cuda_array_interface__`` or ``__dlpack__`` (a torch tensor on the GPU), on the CuPy
backend; the emulator's arrays (``gpuops.emulator.runtime``, its stand-in for CuPy) on the emulator
backend. Nothing is moved between host and GPU behind the
caller's back: an array of the other side is a ``TypeError`` saying so.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from descriptors import DataType, OperatorDesc, TensorDesc, desc_class
from descriptors.exact import Exact

from ..arrays import return_like
from ..device import CompiledOperator, Device, default_device

__all__ = [
    "Arrays",
    "arrays",
    "cast",
    "compiled",
    "data_type",
    "default_device",
    "empty",
    "flat_buffer",
    "is_emulator_array",
    "return_like",
    "run",
    "shape_of",
    "tensor",
    "to_backend",
]


def is_emulator_array(x: object) -> bool:
    """An array of the CUDA emulator (``gpuops.emulator.runtime.ndarray``, its stand-in for ``cupy.ndarray``)."""
    return type(x).__module__ == "gpuops.emulator.memory" and type(x).__name__ == "ndarray"


class Arrays:
    """The array module of a device (numpy, cupy, or the emulator's stand-in for cupy) and conversions into it."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.xp: Any = device.backend_impl.xp

    def asarray(self, x: object, what: str) -> Any:
        """``x`` as an array of this backend, without copying where it already is one (``Backend.adopt``).

        A masked array is refused (its mask would be dropped, a silent wrong answer), and so are arrays of
        another machine (a GPU array on the NumPy backend, a host array on CuPy or the emulator, whose
        front-ends are as strict as CuPy's so that code passing NumPy arrays to a GPU device fails in CI)."""
        return self.device.backend_impl.adopt(x, what)


@functools.lru_cache(maxsize=64)
def arrays(device: Device) -> Arrays:
    """The :class:`Arrays` of a device, made once (front-end calls are a hot path)."""
    return Arrays(device)


def to_backend(device: Device, x: object, what: str) -> Any:
    """``x`` as an array of ``device``'s backend (see :class:`Arrays`)."""
    return arrays(device).asarray(x, what)


def data_type(arr: Any, what: str) -> DataType:
    """The DataType of an array, or a TypeError naming the argument and the dtype."""
    try:
        return DataType.from_numpy(arr.dtype)
    except TypeError:
        raise TypeError(f"{what} has dtype {arr.dtype}, which gpuops has no DataType for") from None


def shape_of(shape: Sequence[int]) -> tuple[int, ...]:
    """DirectML tensors have at least one dimension: a 0-d array runs as shape (1,)."""
    return tuple(int(s) for s in shape) or (1,)


def tensor(dt: DataType, sizes: Sequence[int], to: Sequence[int] | None = None) -> TensorDesc:
    """A packed tensor of ``sizes``, or one read as ``to`` through zero strides (broadcast)."""
    sizes = shape_of(sizes)
    if to is None or tuple(to) == sizes:
        return TensorDesc(dt, sizes)
    return TensorDesc.broadcast(dt, sizes, to=shape_of(to))


def flat_buffer(xp: Any, arr: Any) -> Any:
    """A C-contiguous 1-D buffer with ``arr``'s elements (``arr``'s own memory when it is one)."""
    return xp.ascontiguousarray(arr).reshape(-1)


def empty(xp: Any, shape: Sequence[int], dt: DataType) -> Any:
    return xp.empty(shape_of(shape), dtype=dt.numpy_dtype)


@functools.lru_cache(maxsize=1024)
def _compiled_exact(device: Device, desc: Exact[OperatorDesc]) -> CompiledOperator:
    return device.compile_operator(device.create_operator(desc.value))


def compiled(device: Device, desc: OperatorDesc) -> CompiledOperator:
    """The compiled operator of ``desc`` on ``device``, cached by the descriptor's exact bits
    (``descriptors.exact``: ``-0.0`` is not ``+0.0``, ``True`` is not ``1``)."""
    return _compiled_exact(device, Exact(desc))


def _sized(xp: Any, buf: Any, need_bytes: int | None) -> Any:
    """``buf``, or a zero-padded copy when it is shorter than the tensor's byte size.

    ``total_tensor_size_in_bytes`` rounds up to a multiple of 4 (DMLCalcBufferTensorSize),
    so three int8 or float16 elements need a 4- or 8-byte buffer; only such small odd-sized
    8/16-bit tensors pay for the copy.
    """
    if need_bytes is None:  # TensorDesc.__post_init__ always sets total_tensor_size_in_bytes
        raise TypeError("a tensor without total_tensor_size_in_bytes")
    count = -(-need_bytes // buf.itemsize)
    if buf.size >= count:
        return buf
    padded = xp.zeros(count, dtype=buf.dtype)
    padded[: buf.size] = buf
    return padded


def run(device: Device, desc: OperatorDesc, inputs: Sequence[Any], output: Any) -> None:
    """Run ``desc`` with these backend arrays (any layout; 0-d allowed), one per present input tensor, into
    ``output``.

    ``output`` must be C-contiguous (a front-end allocates it, or checks a caller's); inputs
    are read through contiguous buffers, copied only when not contiguous already (or too
    short for the tensor's byte size, see :func:`_sized`). Passing the output array as an
    input too runs in place when the operator allows it.
    """
    xp = arrays(device).xp
    if not output.flags.c_contiguous:
        raise ValueError("run: output must be C-contiguous")
    ins = [t for t in desc.input_tensors if t is not None]
    present = iter(
        [_sized(xp, flat_buffer(xp, a), t.total_tensor_size_in_bytes) for a, t in zip(inputs, ins, strict=True)]
    )
    bufs = [None if t is None else next(present) for t in desc.input_tensors]  # None: an absent optional tensor
    out = output.reshape(-1)
    target = _sized(xp, out, desc.output_tensors[0].total_tensor_size_in_bytes)
    compiled(device, desc).execute(bufs, [target])
    if target is not out:
        out[...] = target[: out.size]


def composite(device: Device, op: str, x_in: object, where: str, *extra: object, **fields: Any) -> Any:
    """``op`` (a composite row: softmax, log-softmax, MEAN_VARIANCE_NORMALIZATION1; or a scan row,
    CUMULATIVE_SUMMATION) over ``x_in``: input and output of ``x_in``'s type and shape, ``extra`` its other
    input tensors as (array or None), ``fields`` the rest of the descriptor. A type the device's table for
    ``op`` lacks is a TypeError; returns an array of ``x_in``'s kind."""
    arrs = arrays(device)
    x = arrs.asarray(x_in, f"{where}: input")
    dt = data_type(x, f"{where}: input")
    sup = device.operator_support(op)
    allowed = (*sup.tensors[0].data_types, *sup.tensors[0].extension_data_types) if sup.supported else ()
    if sup.supported and dt not in allowed:
        names = ", ".join(str(t.numpy_dtype) for t in allowed)
        raise TypeError(f"{where}: input is {x.dtype}; {op} takes {names} on {device!r}")
    shape = tuple(x.shape)
    if not shape:
        raise ValueError(f"{where}: input has rank 0 (a scalar); give it at least one dimension")
    out = empty(arrs.xp, shape, dt)
    if 0 in shape:  # DirectML sizes are >= 1: nothing to normalize
        return return_like(x_in, out)
    t = tensor(dt, shape)
    others = [None if e is None else arrs.asarray(e, f"{where}: input") for e in extra]
    in_fields = [f.name for f in desc_class(op).row.input_fields[1:]]
    tensors = {
        name: None if e is None else tensor(data_type(e, f"{where}: {name}"), tuple(e.shape))
        for name, e in zip(in_fields, others, strict=True)
    }
    desc = desc_class(op)(input_tensor=t, output_tensor=t, **tensors, **fields)
    run(device, desc, [x, *(e for e in others if e is not None)], out)
    return return_like(x_in, out)


def cast(device: Device, x_in: object, target: DataType, where: str) -> Any:
    """``x_in`` converted to ``target`` by DirectML's CAST (README "Semantics"), as the caller's kind of array.
    An empty array needs no kernel (DirectML sizes are >= 1)."""
    arrs = arrays(device)
    x = arrs.asarray(x_in, f"{where}: input")
    src = data_type(x, f"{where}: input")
    out = empty(arrs.xp, x.shape, target)
    if 0 not in x.shape:
        run(device, desc_class("CAST")(tensor(src, x.shape), tensor(target, x.shape)), [x], out)
    return return_like(x_in, out)
