"""``ElementwiseKernel`` of the emulator: CuPy's call path (``cupy/_core/_kernel.pyx``) in Python.

Parameter parsing, type decisions and the kernel text are CuPy's own functions, run on the host
(``_get_param_info`` through a ``cupy.ElementwiseKernel`` object, ``_decide_params_type``,
``_get_elementwise_kernel_code``); this module does what CuPy does between them: wrap scalars
(``CScalar``), broadcast, allocate outputs, merge dimensions (``_reduce_dims``), describe the arguments
(``_ArgInfo``), pack them and launch ``linear_launch``'s grid (``ceil(size / block_size)`` blocks of
``min(block_size, size)`` threads).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .kernels import cupy_headers, get_kernel, launch
from .memory import ndarray
from .packing import carray_bytes, cindexer_bytes, cscalar_bytes

__all__ = ["ElementwiseKernel", "Indexer", "arg_infos", "broadcast", "pack", "reduce_dims"]

ARG_KIND_NDARRAY, ARG_KIND_INDEXER, ARG_KIND_SCALAR = 1, 2, 3  # cupy/_core/_kernel.pxd ``_ArgKind``
_INDEX_32 = 1 << 31


class Indexer:
    """CuPy's ``_carray.Indexer``: a loop shape and its size (``CIndexer<ndim, 32-bit>`` in the kernel)."""

    def __init__(self, shape: Sequence[int]) -> None:
        self.shape = tuple(shape)
        self.size = math.prod(self.shape)
        self._index_32_bits = self.size <= _INDEX_32

    @property
    def ndim(self) -> int:
        return len(self.shape)


def cscalar(value: Any) -> Any:
    """CuPy's ``_preprocess_arg`` for a non-array: ``CScalar(value)`` (TypeError for unsupported types)."""
    from cupy._core._scalar import CScalar

    return CScalar(value)


def preprocess(args: Sequence[Any]) -> list[Any]:
    return [a if isinstance(a, ndarray) else cscalar(a) for a in args]


def broadcast(args: list[Any], params: Sequence[Any], use_size: bool) -> tuple[list[Any], tuple[int, ...]]:
    """CuPy's ``_broadcast``: the non-raw arrays broadcast to one shape (views), the rest as they are."""
    arrays = [a if not p.raw and isinstance(a, ndarray) else None for a, p in zip(args, params, strict=False)]
    present = [a for a in arrays if a is not None]
    if use_size:
        if present:
            raise ValueError("Specified 'size' can be used only if all of the ndarray are 'raw'.")
    elif not present:
        raise ValueError("Loop size is undecided.")
    shape = _broadcast_shape([a.shape for a in present])
    out = []
    for a, orig in zip(arrays, args, strict=False):
        if a is None:
            out.append(orig)
        elif a.shape == shape:
            out.append(a)
        else:
            lead = len(shape) - a.ndim
            strides = [0] * lead + [
                0 if s == 1 and t != 1 else st for s, t, st in zip(a.shape, shape[lead:], a.strides, strict=True)
            ]
            out.append(a._view(shape, strides, True, True))
    return out, shape


def _broadcast_shape(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    if not shapes:
        return ()
    ndim = max(len(s) for s in shapes)
    out = []
    for d in range(ndim):
        sizes = {s[d - ndim + len(s)] for s in shapes if d - ndim + len(s) >= 0}
        big = sizes - {1}
        if len(big) > 1:
            shown = ", ".join(str(s) for s in shapes)
            raise ValueError(f"operands could not be broadcast together with shapes {shown}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def reduced_view(a: ndarray) -> ndarray:
    """CuPy's ``ndarray.reduced_view``: the fewest dimensions over the same elements."""
    if a.ndim <= 1:
        return a
    if a._c_contiguous:
        return a._view((a.size,), (a.itemsize,), False, True)
    shape: list[int] = []
    strides: list[int] = []
    prev = 0
    for sh, st in zip(a.shape, a.strides, strict=True):
        if sh == 0:
            shape, strides = [0], [a.itemsize]
            break
        if sh == 1:
            continue
        if not shape or prev != sh * st:
            shape.append(sh)
            strides.append(st)
        else:
            shape[-1] *= sh
            strides[-1] = st
        prev = st
    if len(shape) == a.ndim:
        return a
    return a._view(shape, strides, False, True)


def reduce_dims(args: list[Any], params: Sequence[Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    """CuPy's ``_reduce_dims``: merge dimensions contiguous in every array (``args`` updated in place)."""
    if len(shape) <= 1 or not args:
        return shape
    if len(args) == 1:
        a = args[0]
        if params[0].raw or not isinstance(a, ndarray):
            return shape
        v = reduced_view(a)
        if v is a:
            return shape
        args[0] = v
        return v.shape
    return _reduced_view_core(args, params, shape)


def _reduced_view_core(args: list[Any], params: Sequence[Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    ndim = len(shape)
    array_idx: list[int] = []
    strided_idx: list[int] = []
    for i, (a, p) in enumerate(zip(args, params, strict=False)):
        if p.raw or not isinstance(a, ndarray):
            continue
        array_idx.append(i)
        if not a._c_contiguous:
            if ndim == 2:  # CuPy's short cut
                return shape
            strided_idx.append(i)
    if not array_idx:
        return shape
    if not strided_idx:
        total = args[array_idx[0]].size
        for i in array_idx:
            a = args[i]
            args[i] = a._view((total,), (a.itemsize,), False, True)
        return (total,)
    vec = list(shape)
    axes: list[int] = []
    last = -1
    for ax in range(ndim):
        if vec[ax] == 1:
            continue
        if last < 0:
            last = ax
            continue
        if any(args[i].strides[ax] * vec[ax] != args[i].strides[last] for i in strided_idx):
            axes.append(last)
        else:
            vec[ax] *= vec[last]
        last = ax
    if last >= 0:
        axes.append(last)
    if len(axes) == ndim:
        return shape
    new_shape = tuple(vec[ax] for ax in axes)
    for i in array_idx:
        a = args[i]
        args[i] = a._view(new_shape, [a.strides[ax] for ax in axes], False, True)
    return new_shape


def arg_infos(args: Sequence[Any]) -> tuple[Any, ...]:
    """CuPy's ``_get_arginfos``: what the generated parameter list depends on."""
    from cupy._core._kernel import _ArgInfo
    from cupy._core._scalar import CScalar

    out = []
    for a in args:
        if isinstance(a, ndarray):
            out.append(_ArgInfo(ARG_KIND_NDARRAY, ndarray, a.dtype, a.ndim, a._c_contiguous, a._index_32_bits))
        elif isinstance(a, Indexer):
            out.append(_ArgInfo(ARG_KIND_INDEXER, Indexer, None, a.ndim, True, a._index_32_bits))
        elif isinstance(a, CScalar):
            out.append(_ArgInfo(ARG_KIND_SCALAR, CScalar, a.descr, 0, True, True))
        else:  # pragma: no cover - preprocess() made everything one of the three
            raise TypeError(f"Unsupported type {type(a)}")
    return tuple(out)


def pack(args: Sequence[Any]) -> list[tuple[bytes, bytes | None]]:
    """The bytes of each argument: CArray, CIndexer or scalar value."""
    out: list[tuple[bytes, bytes | None]] = []
    for a in args:
        if isinstance(a, ndarray):
            out.append((carray_bytes(a), None))
        elif isinstance(a, Indexer):
            out.append((cindexer_bytes(a.shape), None))
        else:
            out.append((cscalar_bytes(a), None))
    return out


def out_args_with_params(
    out_args: list[Any], out_types: Sequence[Any], shape: tuple[int, ...], out_params: Sequence[Any], sized: bool
) -> list[Any]:
    """CuPy's ``_get_out_args_with_params``: check given outputs, or allocate them."""
    from .memory import empty

    if not out_args:
        for p in out_params:
            if p.raw and not sized:
                raise ValueError("Output array size is Undecided")
        return [empty(shape, t) for t in out_types]
    for a, p in zip(out_args, out_params, strict=True):
        if not isinstance(a, ndarray):
            raise TypeError("Output arguments type must be cupy.ndarray")
        if not p.raw and a.shape != shape:
            raise ValueError("Out shape is mismatched")
    return out_args


def linear_launch(code: str, name: str, size: int, args: Sequence[Any], block_size: int) -> None:
    """CuPy's ``Function.linear_launch``: a 1-D grid covering ``size`` threads."""
    kernel = get_kernel(cupy_headers() + code, name)
    grid = min(0x7FFFFFFF, (size + block_size - 1) // block_size)
    launch(kernel, (grid, 1, 1), (min(block_size, size), 1, 1), pack(args))


class ElementwiseKernel:
    """``cupy.ElementwiseKernel``: the same constructor, called ``(*inputs, *outputs, size=, block_size=)``."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel", **kwargs: Any) -> None:
        import cupy

        self._cupy = cupy.ElementwiseKernel(in_params, out_params, operation, name, **kwargs)  # CuPy's parsing
        k = self._cupy
        self.in_params, self.out_params, self.params = k.in_params, k.out_params, k.params
        self.nin, self.nout, self.nargs = k.nin, k.nout, k.nargs
        self.name, self.operation, self.preamble = k.name, k.operation, k.preamble
        self.reduce_dims, self.no_return, self.return_tuple = k.reduce_dims, k.no_return, k.return_tuple
        self.kwargs = dict(k.kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from cupy._core._kernel import _decide_params_type, _get_elementwise_kernel_code

        size = kwargs.pop("size", -1)
        kwargs.pop("stream", None)
        block_size = kwargs.pop("block_size", 128)
        if kwargs:
            raise TypeError(f"Wrong arguments {kwargs}")
        if block_size <= 0:
            raise ValueError("block_size must be greater than zero")
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(
                f"Wrong number of arguments for {self.name!r}. It must be either {self.nin} or {self.nargs} "
                f"(with outputs), but given {len(args)}."
            )
        arg_list = preprocess(args)
        out_args = arg_list[self.nin :]
        bcast, shape = broadcast(arg_list, self.params, size != -1)
        in_args = bcast[: self.nin]
        in_types = tuple(a.dtype if isinstance(a, ndarray) else None for a in in_args)
        out_dtypes = tuple(a.dtype for a in out_args)
        in_types, out_types, type_map = _decide_params_type(self.in_params, self.out_params, in_types, out_dtypes)
        if size != -1:
            shape = (size,)
        out_args = out_args_with_params(out_args, out_types, shape, self.out_params, size != -1)
        ret = None if self.no_return else out_args[0] if not self.return_tuple and self.nout == 1 else tuple(out_args)
        if 0 in shape:
            return ret
        for i, x in enumerate(in_args):
            if not isinstance(x, ndarray):
                x.apply_dtype(in_types[i])
        inout = in_args + out_args
        if self.reduce_dims:
            shape = reduce_dims(inout, self.params, shape)
        indexer = Indexer(shape)
        inout.append(indexer)
        code = _get_elementwise_kernel_code(
            arg_infos(inout), type_map, self.params, self.operation, self.name, self.preamble, **self.kwargs
        )
        linear_launch(code, self.name, indexer.size, inout, block_size)
        return ret
