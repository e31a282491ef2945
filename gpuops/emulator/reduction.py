"""``ReductionKernel`` of the emulator: CuPy's plain reduction path (``cupy/_core/_reduction.pyx``,
``_AbstractReductionKernel._call``) in Python.

CuPy's own functions decide the axes (``_get_axis``, ``_get_out_shape``), the types
(``_decide_params_type``), the block (``_get_block_specs``: 512 threads, ``_block_stride`` outputs per
block) and the kernel text (``_ReductionKernel_get_cached_function_code``). Between them this module
transposes the input so the reduced axes come first, merges dimensions, and launches
``out_block_num`` blocks of ``block_size`` threads. CuPy's CUB and optimizer paths are not emulated:
gpuops never takes them (see ``gpuops.codegen.reduce``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .elementwise import (
    Indexer,
    arg_infos,
    broadcast,
    linear_launch,
    out_args_with_params,
    preprocess,
    reduce_dims,
)
from .memory import ndarray

__all__ = ["ReductionKernel"]


def _contiguous_size(args: Sequence[Any], params: Sequence[Any], out_shape: Sequence[int], ndim: int) -> int:
    """CuPy's ``_get_contiguous_size``: outputs contiguous in the innermost (output) axes of the inputs."""
    out_ndim = len(out_shape)
    best = 1
    for a, p in zip(args, params, strict=False):
        if not isinstance(a, ndarray) or p.raw:
            continue
        run = 1
        for j in range(out_ndim):
            if a.strides[ndim - j - 1] != run * a.itemsize:
                break
            run *= out_shape[out_ndim - j - 1]
        best = max(best, run)
    return best


class ReductionKernel:
    """``cupy.ReductionKernel``: the same constructor, called ``(*inputs, *outputs, axis=, keepdims=)``."""

    def __init__(
        self,
        in_params: str,
        out_params: str,
        map_expr: str,
        reduce_expr: str,
        post_map_expr: str,
        identity: str | None,
        name: str = "reduce_kernel",
        **kwargs: Any,
    ) -> None:
        import cupy

        k = cupy.ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name, **kwargs)
        self._cupy = k
        self.in_params, self.out_params, self._params = k.in_params, k.out_params, k._params
        self.nin, self.nout, self.nargs = k.nin, k.nout, k.nargs
        self.name, self.identity, self.reduce_type = k.name, k.identity, k.reduce_type
        self.map_expr, self.reduce_expr, self.post_map_expr = k.map_expr, k.reduce_expr, k.post_map_expr
        self.preamble, self.options, self.reduce_dims = k.preamble, k.options, k.reduce_dims

    def __call__(self, *args: Any, **kwargs: Any) -> ndarray:
        out = kwargs.pop("out", None)
        axis = kwargs.pop("axis", None)
        keepdims = kwargs.pop("keepdims", False)
        kwargs.pop("stream", None)
        if kwargs:
            raise TypeError(f"Wrong arguments {kwargs}")
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name}")
        out_args = list(args[self.nin :])
        if out is not None:
            if self.nout != 1:
                raise NotImplementedError("")
            if out_args:
                raise ValueError("cannot specify 'out' as both a positional and keyword argument")
            out_args = [out]
        in_args = preprocess(args[: self.nin])
        out_args = preprocess(out_args)
        in_args, shape = broadcast(in_args, self.in_params, False)
        return self._call(in_args, out_args, shape, axis, keepdims)

    def _call(
        self, in_args: list[Any], out_args: list[Any], a_shape: tuple[int, ...], axis: Any, keepdims: bool
    ) -> Any:
        from cupy._core._kernel import _decide_params_type, _TypeMap
        from cupy._core._reduction import (
            _get_axis,
            _get_block_specs,
            _get_out_shape,
            _ReductionKernel_get_cached_function_code,
        )

        in_types = tuple(a.dtype.type if isinstance(a, ndarray) else None for a in in_args)
        out_dtypes = tuple(a.dtype.type if isinstance(a, ndarray) else None for a in out_args)
        in_types, out_types, type_map = _decide_params_type(self.in_params, self.out_params, in_types, out_dtypes)
        reduce_axis, out_axis = _get_axis(axis, len(a_shape))
        if len(in_args) == 1 and len(out_axis) <= 1 and not in_args[0]._c_contiguous:
            strides = in_args[0].strides
            reduce_axis = tuple(sorted(reduce_axis, key=lambda i: -abs(strides[i])))
            out_axis = tuple(sorted(out_axis, key=lambda i: -abs(strides[i])))
        out_shape = tuple(_get_out_shape(a_shape, reduce_axis, out_axis, keepdims))
        out_args = out_args_with_params(out_args, out_types, out_shape, self.out_params, False)
        ret = out_args[0]
        if ret.size == 0:
            return ret
        if self.identity == "" and 0 in a_shape:
            raise ValueError(f"zero-size array to reduction operation {self.name} which has no identity")
        index_type = "int64" if math.prod(a_shape) / math.prod(out_shape) > 0x7FFFFFFF else "int32"
        type_map = _TypeMap((*type_map._pairs, ("IndexT", index_type)))
        for x, t in zip(in_args, in_types, strict=True):
            if not isinstance(x, ndarray):
                x.apply_dtype(t)
        perm = reduce_axis + out_axis
        in_shape = a_shape
        if perm != tuple(range(len(perm))):
            in_args = [a.transpose(perm) if isinstance(a, ndarray) else a for a in in_args]
            in_shape = tuple(a_shape[i] for i in perm)
        if self.reduce_dims:
            in_shape = reduce_dims(in_args, self.in_params, in_shape)
            out_shape = reduce_dims(out_args, self.out_params, out_shape)
        contiguous = _contiguous_size(in_args, self.in_params, out_shape, len(in_shape))
        block_size, block_stride, out_block_num = _get_block_specs(
            math.prod(in_shape), math.prod(out_shape), contiguous, -1
        )
        from cupy._core._scalar import CScalar

        stride_arg = CScalar(block_stride)
        stride_arg.apply_dtype("int32")
        inout = [*in_args, *out_args, Indexer(in_shape), Indexer(out_shape), stride_arg]
        code = _ReductionKernel_get_cached_function_code(
            self.nin, self.nout, self._params, arg_infos(inout), type_map, self.name, block_size,
            self.reduce_type, self.identity, self.map_expr, self.reduce_expr, self.post_map_expr,
            self.preamble, self.options,
        )  # fmt: skip
        linear_launch(code, self.name, out_block_num * block_size, inout, block_size)
        return ret
