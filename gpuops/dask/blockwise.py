"""Element-wise operators and graphs over Dask arrays, chunk by chunk (``map_operator``, ``map_graph``); the
package docstring (``gpuops.dask``) says how they map onto Dask."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import operator as _operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from descriptors import DataType, GraphDesc, TensorDesc, desc_class
from descriptors.exact import Exact
from descriptors.graph import OperatorNode

from ..graph_builder import GraphBuilder, Value
from ._runtime import _emulator_ndarray
from ._runtime import backend_of as _backend_of
from ._runtime import compiled as _compiled
from ._runtime import device as _device

__all__ = ["map_graph", "map_operator"]

_MISSING = (
    "gpuops.dask needs Dask's array module and distributed: pip install gpuops[dask] "
    "(or pip install 'dask[array]' distributed)"
)


def _dask_array() -> Any:
    try:
        import dask.array as da
    except ImportError as exc:  # dask, or its array extra (toolz, ...), is missing
        raise ImportError(_MISSING) from exc
    return da


# -- what a task carries ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _OperatorSpec:
    """One element-wise operator, shape-free: its name, its other fields, the output type if given."""

    name: str
    fields: tuple[tuple[str, Any], ...]
    output_type: DataType | None

    def build(self, b: GraphBuilder, *xs: Value) -> Value:
        return b.op(self.name, *xs, output_type=self.output_type, **dict(self.fields))


@dataclasses.dataclass(frozen=True)
class _GraphSpec:
    """A graph, shape-free: the user's ``build(b, *inputs)``; ``what`` names it in messages."""

    build: Callable[..., Any]
    what: str


def _outputs(result: Any, what: str) -> list[Value]:
    outs = [result] if isinstance(result, Value) else list(result) if isinstance(result, (list, tuple)) else None
    if not outs or not all(isinstance(v, Value) for v in outs):
        raise TypeError(f"{what}: build(b, *inputs) must return a Value or a non-empty list of Values (got {result!r})")
    return outs


def _is_elementwise(desc: Any) -> bool:
    row = desc.row
    return not (
        row.is_reduction
        or row.is_composite
        or row.is_scan
        or getattr(row, "reads_index", False)
        or len(row.output_fields) != 1
    )


def _graph(
    spec: _OperatorSpec | _GraphSpec, shapes: tuple[tuple[int, ...], ...], dtypes: tuple[DataType, ...]
) -> tuple[GraphDesc, tuple[TensorDesc, ...], bool]:
    """The graph of ``spec`` for inputs of these shapes and types, its output tensors (checked element-wise) and
    whether ``build`` gave one bare Value (not a list). Cached by the spec's exact bits (``descriptors.exact``:
    an operator's ``alpha=-0.0`` is not ``alpha=0.0``)."""
    return _graph_exact(Exact(spec), shapes, dtypes)


@functools.lru_cache(maxsize=256)
def _graph_exact(
    exact: Exact[_OperatorSpec | _GraphSpec], shapes: tuple[tuple[int, ...], ...], dtypes: tuple[DataType, ...]
) -> tuple[GraphDesc, tuple[TensorDesc, ...], bool]:
    spec = exact.value
    what = spec.what if isinstance(spec, _GraphSpec) else f"gpuops.dask.map_operator({spec.name})"
    b = GraphBuilder()
    xs = [b.input(TensorDesc(dt, shape)) for dt, shape in zip(dtypes, shapes, strict=True)]
    built = spec.build(b, *xs)
    outs = _outputs(built, what)
    graph = b.build(outs)
    for node in graph.nodes:
        if isinstance(node, OperatorNode) and not _is_elementwise(node.desc):
            raise ValueError(
                f"{what}: {node.desc.row.name} is not element-wise (a reduction, scan or composite reads across "
                "chunks, FILL_VALUE_SEQUENCE reads the element's index), so it cannot map chunk by chunk"
            )
    sizes = tuple(int(s) for s in np.broadcast_shapes(*shapes))
    for k, v in enumerate(outs):
        if tuple(v.sizes) != sizes:
            raise ValueError(f"{what}: output {k} has sizes {tuple(v.sizes)}; blockwise needs the inputs' {sizes}")
    return graph, tuple(v.tensor for v in outs), isinstance(built, Value)


def _run_chunk(spec: _OperatorSpec | _GraphSpec, output: int | None, *chunks: Any) -> Any:
    """One task: the descriptor of these chunk shapes, compiled (cached) on the chunks' backend, called."""
    backend = _backend_of(chunks)
    shapes = tuple(tuple(int(s) for s in c.shape) for c in chunks)
    out_shape = tuple(int(s) for s in np.broadcast_shapes(*shapes))
    dtypes = tuple(DataType.from_numpy(c.dtype) for c in chunks)
    if 0 in out_shape:  # an empty chunk: nothing to compute (DirectML has no empty tensors)
        _, out_tensors, _ = _graph(spec, tuple((1,) * len(shape) for shape in shapes), dtypes)
        xp = _device(backend).backend_impl.xp
        outs = tuple(xp.empty(out_shape, dtype=t.data_type.numpy_dtype) for t in out_tensors)
    else:
        graph, _, _ = _graph(spec, shapes, dtypes)
        node = graph.nodes[0]
        single = isinstance(spec, _OperatorSpec) and len(graph.nodes) == 1 and isinstance(node, OperatorNode)
        compiled = _compiled(backend, node.desc if single and isinstance(node, OperatorNode) else graph)
        xp = compiled.device.backend_impl.xp
        # Flat buffers: a broadcast chunk (size 1 or missing dimensions) is read through zero strides.
        result = compiled(*(xp.ascontiguousarray(c).reshape(-1) for c in chunks))
        outs = result if isinstance(result, tuple) else (result,)
    return outs if output is None else outs[output]


# -- building the Dask arrays -----------------------------------------------------------------------------


def _as_dask(arrays: Sequence[Any], what: str) -> list[Any]:
    da = _dask_array()
    if not arrays:
        raise TypeError(f"{what}: pass at least one array")
    out = [a if isinstance(a, da.Array) else da.asarray(a) for a in arrays]
    for k, a in enumerate(out):
        if any(np.isnan(c) for cs in a.chunks for c in cs):
            raise ValueError(f"{what}: array {k} has unknown chunk sizes; call compute_chunk_sizes() first")
    return out


def _map(spec: _OperatorSpec | _GraphSpec, arrays: Sequence[Any], what: str, token: str) -> tuple[list[Any], bool]:
    da = _dask_array()
    arrs = _as_dask(arrays, what)
    shapes = tuple(tuple(int(s) for s in a.shape) for a in arrs)
    try:
        out_shape = tuple(int(s) for s in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(
            f"{what}: arrays of shapes {', '.join(map(str, shapes))} do not broadcast (NumPy's rules, shapes "
            "aligned on the right: each dimension equal, or 1)"
        ) from None
    squeeze = out_shape == ()
    if squeeze:  # DirectML tensors have at least one dimension
        arrs = [a.reshape((1,)) for a in arrs]
        shapes = tuple((1,) for _ in arrs)
    try:
        dtypes = tuple(DataType.from_numpy(a.dtype) for a in arrs)
    except (TypeError, ValueError, KeyError) as exc:
        raise TypeError(f"{what}: {exc}") from None
    # The whole arrays' graph: every mistake (types, fields, shapes) raised here, not on a worker.
    nonempty = tuple(tuple(max(n, 1) for n in shape) for shape in shapes)  # DirectML sizes start at 1
    graph, out_tensors, bare = _graph(spec, nonempty, dtypes)
    device = _device("numpy")
    for node in graph.nodes:
        if isinstance(node, OperatorNode):
            device.create_operator(node.desc)  # DescriptorError naming the field
    ndim = len(out_shape or (1,))
    metas = [da.utils.meta_from_array(arrs[0]._meta, ndim=ndim, dtype=t.data_type.numpy_dtype) for t in out_tensors]
    # Dask's broadcasting: indices aligned on the right (NumPy's rule); blockwise unifies the chunks and reads
    # block 0 of a dimension of size 1.
    out_ind = tuple(range(ndim))
    pairs: list[Any] = []
    for a in arrs:
        pairs += [a, out_ind[ndim - a.ndim :]]
    if len(out_tensors) == 1:
        func = functools.partial(_run_chunk, spec, 0)
        results = [da.blockwise(func, out_ind, *pairs, meta=metas[0], token=token)]
    else:  # one task per chunk computes every output (a tuple); each output array picks its item
        func = functools.partial(_run_chunk, spec, None)
        both = da.blockwise(func, out_ind, *pairs, meta=metas[0], token=token)
        results = [both.map_blocks(_operator.getitem, k, meta=m, token=f"{token}-out{k}") for k, m in enumerate(metas)]
    return ([r.reshape(()) for r in results] if squeeze else results), bare


def map_operator(operator: Any, *arrays: Any, output_type: Any = None, **fields: Any) -> Any:
    """``operator`` (``"add"``, ``"ELEMENT_WISE_ADD"``, ``OperatorType.ELEMENT_WISE_ADD``, the descriptor class)
    applied to Dask arrays chunk by chunk; returns a Dask array. ``arrays``: the tensor inputs in the
    descriptor's order (NumPy arrays are wrapped by ``dask.array.asarray``), broadcast by Dask's rules.
    ``fields``: the descriptor's other fields (``alpha=``, ``min=``, ``scale_bias=``, ``fused_activation=``);
    the tensor fields are made per chunk. ``output_type``: the output's data type (default: the one the
    operator's tables give for the inputs' types, as ``gpuops.GraphBuilder`` picks it)."""
    cls = desc_class(operator)
    name = cls.row.name
    what = f"gpuops.dask.map_operator({name})"
    out_type = None if output_type is None else DataType.parse(output_type, f"{what}: output_type")
    spec = _OperatorSpec(name, tuple(sorted(fields.items())), out_type)
    try:
        hash(spec)
    except TypeError:
        raise TypeError(f"{what}: field values must be hashable (tuples, numbers, enums, descriptors)") from None
    (result,), _ = _map(spec, arrays, what, token=f"gpuops-{name.lower()}")
    return result


def map_graph(build: Callable[..., Any], *arrays: Any) -> Any:
    """The graph ``build(b, *inputs)`` writes with a ``gpuops.GraphBuilder`` ``b`` (its inputs are Values of the
    chunk's shapes and the arrays' types; it returns the output Value, or a list of them), compiled and run
    chunk by chunk as one fused kernel per chunk. Returns a Dask array, or a tuple of them for a list.
    ``build`` is called once per distinct chunk shape in each process (and once on the whole arrays, to check
    it), so it must depend only on its inputs; it travels to the workers with the task graph (pickled)."""
    what = f"gpuops.dask.map_graph({getattr(build, '__name__', 'build')})"
    spec = _GraphSpec(build, what)
    results, single = _map(spec, arrays, what, token="gpuops-graph")
    return results[0] if single else tuple(results)


# Emulator chunks joinable by Dask in every process that imports gpuops.dask (a worker may only combine). Without
# dask.array gpuops.dask still imports, and says what is missing when used.
with contextlib.suppress(ImportError):
    _emulator_ndarray()
