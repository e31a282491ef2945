"""DLPack on the CPU backend: bound buffers and convenience-call arguments that are torch or JAX CPU tensors become
NumPy arrays over the same memory (no copy); GPU arrays and masked arrays are refused by name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["adopt", "unwrap"]


def _is_foreign(x: object) -> bool:
    """A DLPack exporter that is not a NumPy array (a torch or JAX CPU tensor)."""
    return x is not None and not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__")


def _from_dlpack(x: Any, what: str) -> np.ndarray:
    """A NumPy array over a DLPack tensor's memory (no copy). bfloat16, which NumPy's DLPack import does not
    know, comes through torch's 16-bit integer view; a tensor that requires grad is refused by name. Whatever
    else goes wrong in the exporter (its ``__dlpack__`` or ``__dlpack_device__`` raises, returns None or an
    object that is not a DLPack capsule) is a ``TypeError`` naming ``what``, never NumPy's bare capsule error."""
    if getattr(x, "requires_grad", False):
        raise TypeError(f"{what} requires grad; gpuops computes no gradients: pass x.detach()")
    try:
        if type(x).__module__.split(".")[0] == "torch" and str(getattr(x, "dtype", "")) == "torch.bfloat16":
            import ml_dtypes
            import torch

            return np.from_dlpack(x.view(torch.int16)).view(ml_dtypes.bfloat16)
        return np.from_dlpack(x)
    except Exception as exc:  # the exporter is foreign code: any failure of it is the argument's
        raise TypeError(
            f"{what} ({type(x).__module__}.{type(x).__name__}) cannot be read through DLPack "
            f"({type(exc).__name__}: {exc}); pass a NumPy array, or a CPU tensor whose __dlpack__() returns a "
            "DLPack capsule"
        ) from exc


def unwrap(buffers: Sequence[Any]) -> Sequence[Any]:
    """DLPack objects (torch or JAX CPU tensors) as NumPy arrays over the same memory; the rest as given."""
    if isinstance(buffers, list) and all(type(b) is np.ndarray for b in buffers):
        return buffers  # the common case: nothing to convert
    if not isinstance(buffers, (list, tuple)):
        return buffers
    return type(buffers)(
        _from_dlpack(b, f"the buffer at position {k}") if _is_foreign(b) else b for k, b in enumerate(buffers)
    )


def adopt(x: object, what: str) -> Any:
    """``x`` as a NumPy array, without a copy for NumPy arrays and DLPack CPU tensors (torch, JAX); a GPU
    or emulator array is refused (no silent device-to-host copy), and so is a masked array (``np.asarray``
    would drop its mask: a silent wrong answer; ``execute`` refuses it as a subclass)."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"{what} is a masked array; gpuops would ignore its mask. Pass x.filled(value) or np.asarray(x)"
        )
    module = type(x).__module__
    gpu = module.split(".")[0] == "cupy" or module == "gpuops.emulator.memory"
    if gpu or hasattr(x, "__cuda_array_interface__"):
        raise TypeError(
            f"{what} is a GPU array ({module}.{type(x).__name__}) but the device is on the "
            "NumPy backend: pass a NumPy array (x.get()), or use the device the array belongs to"
        )
    if _is_foreign(x):
        return _from_dlpack(x, what)
    return np.asarray(x)
