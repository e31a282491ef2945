"""The convenience call: ``compiled(*inputs, out=None)`` and ``gpuops.run(desc, *inputs)``.

``execute`` is DirectML's binding model: flat buffers holding each tensor's bytes, outputs allocated by the
caller with the padding ``total_tensor_size_in_bytes`` asks for. The convenience call does that work: an input
shaped like its tensor (its ``sizes``) is laid out into a buffer through the tensor's strides (a packed one
is only flattened, without a copy when it is contiguous); a 1-D array is taken as the buffer itself; outputs
are allocated and returned as views shaped like the output tensors (through their strides). Arrays of another
machine are refused as the front-ends refuse them (``Backend.adopt``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from descriptors import OperatorDesc, TensorDesc

from .errors import count

if TYPE_CHECKING:
    from .device import CompiledOperator, Device

__all__ = ["call", "run"]


def _elements(t: TensorDesc) -> int:
    """Elements of the buffer a tensor needs (``total_tensor_size_in_bytes`` rounded up to whole elements)."""
    need = t.total_tensor_size_in_bytes
    assert need is not None
    return -(-need // t.data_type.itemsize)


def _input_buffer(compiled: CompiledOperator, k: int, t: TensorDesc, x: object) -> Any:
    backend = compiled.device.backend_impl
    what = f"{compiled.operator_name}: input {k}"
    arr = backend.adopt(x, what)
    if arr.dtype != t.data_type.numpy_dtype:
        raise TypeError(f"{what} has dtype {arr.dtype}; the tensor is {t.data_type.name} ({t.data_type.numpy_dtype})")
    sizes = tuple(t.sizes)
    n = _elements(t)
    xp = backend.xp
    if tuple(arr.shape) == sizes and t.is_packed:
        flat = xp.ascontiguousarray(arr).reshape(-1)
    elif tuple(arr.shape) == sizes:  # strided: lay the values out through the tensor's strides
        flat = xp.zeros(n, dtype=arr.dtype)
        view = backend.view(t, flat)
        view[...] = arr
        if not np.array_equal(backend.to_host(view), backend.to_host(arr), equal_nan=arr.dtype.kind == "f"):
            raise ValueError(
                f"{what}: the tensor reads some elements at several positions (zero strides), and the array holds "
                "different values there; pass the buffer itself (1-D) or equal values"
            )
        return flat
    elif arr.ndim == 1:
        flat = arr  # the buffer itself (execute's binding checks its size)
    else:
        raise ValueError(
            f"{what} has shape {tuple(arr.shape)}; the tensor's sizes are {sizes}. Pass an array of those sizes, or "
            f"the flat buffer (1-D, at least {count(n, 'element')})"
        )
    reach = 1 + sum((s - 1) * st for s, st in zip(t.sizes, t.element_strides, strict=True))
    if reach <= flat.size < n:  # it holds every element; DirectML's size rounds up to 4 bytes: pad the rest
        padded = xp.zeros(n, dtype=flat.dtype)
        padded[: flat.size] = flat
        return padded
    return flat


def call(compiled: CompiledOperator, inputs: Sequence[object], out: object = None) -> Any:
    """``compiled(*inputs, out=None)``: see the module docstring. Returns the single output bare, several as a
    tuple, each shaped like its tensor, as the caller's kind of array (torch tensors for torch inputs, over the
    same memory); ``out`` (an array or a tuple of them, shaped like the tensors or flat) receives the results
    instead of new arrays and is what comes back."""
    in_tensors, out_tensors = compiled.bound_tensors()
    if len(inputs) != len(in_tensors):
        raise TypeError(f"{compiled.operator_name}: takes {count(len(in_tensors), 'input')}, got {len(inputs)}")
    backend = compiled.device.backend_impl
    bufs: list[Any] = []
    for k, (t, x) in enumerate(zip(in_tensors, inputs, strict=True)):
        if t is None:
            if x is not None:
                raise ValueError(f"{compiled.operator_name}: input {k} is absent from the descriptor; pass None")
            bufs.append(None)
        else:
            bufs.append(_input_buffer(compiled, k, t, x))
    xp = backend.xp
    if out is None:
        outs = [xp.zeros(_elements(t), dtype=t.data_type.numpy_dtype) for t in out_tensors]
        results = None
    else:
        given = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(given) != len(out_tensors):
            raise TypeError(
                f"{compiled.operator_name}: out holds {count(len(given), 'array')}; the operator has "
                f"{count(len(out_tensors), 'output')}"
            )
        outs, results = [], []
        for k, (t, o) in enumerate(zip(out_tensors, given, strict=True)):
            arr = backend.adopt(o, f"{compiled.operator_name}: out[{k}]")
            if tuple(arr.shape) == tuple(t.sizes) and t.is_packed and arr.flags.c_contiguous:
                outs.append(arr.reshape(-1))
            elif arr.ndim == 1:
                outs.append(arr)
            else:
                raise ValueError(
                    f"{compiled.operator_name}: out[{k}] must be C-contiguous with the tensor's sizes {tuple(t.sizes)} "
                    f"(packed tensors) or the flat buffer; got shape {tuple(arr.shape)}"
                )
            results.append(o)
    compiled.execute(bufs, outs)
    if results is None:
        from .frontends._common import return_like

        template = next((x for x in inputs if x is not None), None)
        results = [return_like(template, backend.view(t, o)) for t, o in zip(out_tensors, outs, strict=True)]
    return results[0] if len(results) == 1 else tuple(results)


@functools.lru_cache(maxsize=1024)
def _compiled(device: Device, desc: OperatorDesc) -> CompiledOperator:
    return device.compile_operator(device.create_operator(desc))


def run(desc: OperatorDesc, *inputs: object, device: Device | None = None, out: object = None) -> Any:
    """Create, compile (cached per device and descriptor) and call ``desc`` in one line:
    ``gpuops.run(ElementWiseAddOperatorDesc(t, t, t), a, b)``. ``device``: the front-ends' default (``"auto"``)."""
    if device is None:
        from .frontends._common import default_device

        device = default_device()
    return call(_compiled(device, desc), inputs, out)
