"""The convenience call's arrays: ``compiled(*inputs, out=None)`` binds them (:func:`call`) and returns the caller's
kind of array (:func:`return_like`).

``execute`` is DirectML's binding model: flat buffers holding each tensor's bytes, outputs allocated by the
caller with the padding ``total_tensor_size_in_bytes`` asks for. The convenience call does that work: an input
shaped like its tensor (its ``sizes``) is laid out into a buffer through the tensor's strides (a packed one
is only flattened, without a copy when it is contiguous); a 1-D array is taken as the buffer itself; outputs
are allocated and returned as views shaped like the output tensors (through their strides). Arrays of another
machine are refused as the front-ends refuse them (``Backend.adopt``).

A core module under ``CompiledOperator`` (whose ``__call__`` is :func:`call`), ``gpuops.convenience``
(``gpuops.run``) and the front-ends, which re-export what they use from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import ml_dtypes
import numpy as np

from descriptors import TensorDesc

from .errors import BindingError, count

if TYPE_CHECKING:
    from .compiled_operator import CompiledOperator

__all__ = ["call", "return_like", "same_values"]


def _elements(t: TensorDesc) -> int:
    """Elements of the buffer a tensor needs (``total_tensor_size_in_bytes`` rounded up to whole elements)."""
    need = cast(int, t.total_tensor_size_in_bytes)  # TensorDesc.__post_init__ always sets it
    return -(-need // t.data_type.itemsize)


def same_values(a: Any, b: Any) -> bool:
    """Whether two host arrays of one dtype hold the same values bit for bit, any NaN matching any NaN (a
    buffer holds one NaN where two positions alias): ``-0.0`` is not ``+0.0``, as every kernel tells them apart;
    float16 and bfloat16 (dtype kind "V") included."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    width = a.dtype.itemsize
    if a.dtype.kind in "biu" or width not in (1, 2, 4, 8):
        return bool(np.array_equal(a, b))
    bits = np.dtype(f"u{width}")
    same = np.ascontiguousarray(a).view(bits) == np.ascontiguousarray(b).view(bits)
    if not same.all() and a.dtype.kind in "fcV":
        with np.errstate(invalid="ignore"):
            same |= np.isnan(a) & np.isnan(b)
    return bool(same.all())


def _input_buffer(compiled: CompiledOperator, k: int, t: TensorDesc, x: object) -> Any:
    backend = compiled.device.backend_impl
    what = f"{compiled.operator_name}: input {k}"
    arr = backend.adopt(x, what)
    if arr.dtype != t.data_type.numpy_dtype:
        raise TypeError(f"{what} has dtype {arr.dtype}; the tensor is {t.data_type.name} ({t.data_type.numpy_dtype})")
    readers = compiled._input_readers(k, t)
    sizes = tuple(t.sizes)
    n = max(_elements(r) for r in readers)
    xp = backend.xp
    if tuple(arr.shape) == sizes and all(r.is_packed for r in readers):
        flat = xp.ascontiguousarray(arr).reshape(-1)
    elif tuple(arr.shape) == sizes:  # strided: lay the values out through the tensors' strides
        flat = xp.zeros(n, dtype=arr.dtype)
        backend.view(readers[0], flat)[...] = arr
        host = backend.to_host(arr)
        strides = sorted({r.element_strides for r in readers})
        for r in readers:
            if not same_values(backend.to_host(backend.view(r, flat)), host):
                why = (
                    "the tensor reads some elements at several positions (zero strides), and the array holds "
                    "different values there"
                    if r is readers[0]
                    else f"its node inputs read it through different strides {strides}, and the array, laid out "
                    "through one, reads differently through another"
                )
                raise ValueError(f"{what}: {why}; pass the buffer itself (1-D) or equal values")
        return flat
    elif arr.ndim == 1:
        flat = arr  # the buffer itself (execute's binding checks its size)
    else:
        raise ValueError(
            f"{what} has shape {tuple(arr.shape)}; the tensor's sizes are {sizes}. Pass an array of those sizes, or "
            f"the flat buffer (1-D, at least {count(n, 'element')})"
        )
    reach = max(1 + sum((s - 1) * st for s, st in zip(r.sizes, r.element_strides, strict=True)) for r in readers)
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
    short: list[tuple[Any, Any]] = []  # (the caller's flat buffer, the padded one execute writes)
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
                flat = arr.reshape(-1)
            elif arr.ndim == 1:
                flat = arr
            else:
                raise ValueError(
                    f"{compiled.operator_name}: out[{k}] must be C-contiguous with the tensor's sizes {tuple(t.sizes)} "
                    f"(packed tensors) or the flat buffer; got shape {tuple(arr.shape)}"
                )
            n = _elements(t)
            reach = 1 + sum((s - 1) * st for s, st in zip(t.sizes, t.element_strides, strict=True))
            if reach <= flat.size < n and flat.dtype == t.data_type.numpy_dtype:
                if not getattr(flat.flags, "writeable", True):  # NumPy's flag; CuPy arrays are always writable
                    raise BindingError(f"{compiled.operator_name}: out[{k}] buffer is read-only")
                # Every element fits, but DirectML's byte size rounds up to 4 (three float16, six int8): execute
                # writes a padded buffer, copied into the caller's once it has run, as inputs are padded.
                padded = xp.zeros(n, dtype=flat.dtype)
                short.append((flat, padded))
                flat = padded
            outs.append(flat)
            results.append(o)
    compiled.execute(bufs, outs)
    for flat, padded in short:
        flat[...] = padded[: flat.size]
    if results is None:
        template = next((x for x in inputs if x is not None), None)
        results = [return_like(template, backend.view(t, o)) for t, o in zip(out_tensors, outs, strict=True)]
    return results[0] if len(results) == 1 else tuple(results)


def return_like(template: object, out: Any) -> Any:
    """``out`` as the kind of array the caller passed (a torch tensor for a torch tensor), without a copy. A
    NumPy array goes through ``torch.from_numpy`` (bfloat16 as its 16-bit integer view, which NumPy's DLPack
    export does not know); a device array through DLPack."""
    module = type(template).__module__.split(".")[0]
    if module != "torch":
        return out
    import torch

    if isinstance(out, np.ndarray):
        if out.dtype == ml_dtypes.bfloat16:
            return torch.from_numpy(out.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(out)
    return torch.from_dlpack(out)
