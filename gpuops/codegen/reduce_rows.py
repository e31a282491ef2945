"""gpuops' own reduction kernels for CuPy ``RawKernel`` (issue 33): pure strings from a ``ReductionSpec``.

Each takes the spec's map, reduce, identity and post-map expressions (those of its ``ReductionKernel``) and lays
the reduction out on the GPU its own way: :func:`rows_kernel` (one contiguous span per output, a group of threads
per row), :func:`split_rows_kernel` (a few long rows, each in parts, the last block of a row combining them) and
:func:`columns_kernel` (an outer or a middle axis, neighbouring outputs side by side). Which one runs, and with what
geometry, is ``gpuops.layout.reduce_plan``'s decision.
"""

from __future__ import annotations

from ..layout.reduce_plan import ROWS_BLOCK
from . import _HEADERS, C_TYPES
from .reduce import ReductionSpec

__all__ = ["columns_kernel", "rows_kernel", "split_rows_kernel"]


def rows_kernel(
    spec: ReductionSpec,
    threads: int,
    block: int = ROWS_BLOCK,
    *,
    with_preamble: bool = True,
    strided: tuple[bool, ...] | None = None,
) -> tuple[str, str]:
    """``(name, translation unit)`` of the rows kernel (issue 33; ``reduce_plan.plan_rows``): one group of
    ``threads`` threads per output, ``block // threads`` outputs per block, a grid-stride loop over them.
    Thread ``t`` of a group reduces elements ``t, t + threads, ...`` of its row (coalesced reads of the
    contiguous span), then the group combines its ``threads`` accumulators in a shared-memory tree (pairs
    ``(t, t + threads / 2)``, then half as many, ...). The same map, reduce and post-map expressions as the
    ``ReductionKernel`` (``_J``: the element's index in its row, row-major over the reduced axes); only the
    order the accumulators are combined in differs, and it depends on the row length only.

    Parameters: the input buffers, the scalars (``scalar_params``: a fused prologue's and epilogue's, then
    ``gpuops_n``), the output buffer, the rows and columns, each input's row stride (and column stride where
    ``strided`` says so: a fused reduction's input broadcast over the row, ``reduce_plan.line_strides``; else
    its elements are consecutive), the output's row stride (elements, 64-bit). ``with_preamble=False``:
    without CuPy's headers and the preamble (a batch of many kernels puts them, and the helpers, first once)."""
    ((y, out_dt),) = spec.outputs
    strided = _flags(spec, strided)
    if threads & (threads - 1) or not 1 < threads <= block or block % threads:
        raise ValueError(f"{spec.name}: rows kernel of {threads} threads per row in blocks of {block}")
    suffix, buffers, scalars, steps, lines, reads, headers = _row_parts(spec, strided, with_preamble)
    name = f"{spec.name}_rows{threads}{suffix}"
    source = f"""{headers}
#define REDUCE(a, b) ({spec.reduce_expr})
#define POST_MAP(a) ({spec.post_map_expr})

typedef {spec.reduce_type} _type_reduce;
extern "C" __global__ void {name}({buffers}{scalars}{C_TYPES[out_dt]}* _raw_{y},
    const long long _rows, const long long _cols{steps}, const long long _out_stride) {{
  __shared__ char _sdata_raw[{block} * sizeof(_type_reduce)];
  _type_reduce *_sdata = reinterpret_cast<_type_reduce*>(_sdata_raw);
  const unsigned int _tid = threadIdx.x;
  const unsigned int _lane = _tid & {threads - 1}u;
  const long long _group = _tid / {threads}u;
  for (long long _base = (long long)blockIdx.x * {block // threads}; _base < _rows;
  _base += (long long)gridDim.x * {block // threads}) {{
    const long long _row = _base + _group;
    _type_reduce _s = _type_reduce({spec.identity});
    if (_row < _rows) {{
      {lines}
      for (long long _J = _lane; _J < _cols; _J += {threads}) {{
        {reads}
        _type_reduce _a = static_cast<_type_reduce>({spec.map_expr});
        _s = REDUCE(_s, _a);
      }}
    }}
    _sdata[_tid] = _s;
    __syncthreads();
    for (unsigned int _half = {threads // 2}u; _half > 0; _half >>= 1) {{
      if (_lane < _half) {{
        _type_reduce _a = _sdata[_tid], _b = _sdata[_tid + _half];
        _sdata[_tid] = REDUCE(_a, _b);
      }}
      __syncthreads();
    }}
    if (_lane == 0 && _row < _rows) {{
      _s = _sdata[_tid];
      {C_TYPES[out_dt]} &{y} = _raw_{y}[_row * _out_stride];
      POST_MAP(_s);
    }}
    __syncthreads();
  }}
}}
"""
    return name, source


def split_rows_kernel(
    spec: ReductionSpec, block: int = ROWS_BLOCK, *, with_preamble: bool = True, strided: tuple[bool, ...] | None = None
) -> tuple[str, str]:
    """``(name, translation unit)`` of the split rows kernel (issue 33; ``reduce_plan.split_rows``): a few long
    rows in one launch. Block ``u`` reduces part ``p = u % parts`` of row ``r = u / parts`` (columns
    ``p * span`` up to ``(p + 1) * span``): thread ``t`` its columns ``p * span + t, + block, ...`` in order, then
    the block's tree (pairs ``(t, t + block / 2)``, ...); thread 0 stores the partial accumulator in the
    workspace (a 16-byte slot per part), makes it visible (``__threadfence``) and takes a ticket of its row
    (``atomicAdd``); the block that takes the row's last ticket reduces the row's partials the same way (thread
    ``t``: parts ``t, t + block, ...``, then the tree; read with ``__ldcg``, past the caches another block's
    store may not have reached) and stores the post-map. The order depends on the shape only.

    Parameters as :func:`rows_kernel`'s, then the parts, the span, the workspace (``parts`` x rows slots of 16
    bytes) and the rows' tickets (unsigned int, zero at the launch)."""
    ((y, out_dt),) = spec.outputs
    strided = _flags(spec, strided)
    if block & (block - 1) or block < 2:
        raise ValueError(f"{spec.name}: split rows kernel of blocks of {block}")
    suffix, buffers, scalars, steps, lines, reads, headers = _row_parts(spec, strided, with_preamble)
    name = f"{spec.name}_split{suffix}"
    tree = f"""for (unsigned int _half = {block // 2}u; _half > 0; _half >>= 1) {{
      if (_tid < _half) {{
        _type_reduce _a = _sdata[_tid], _b = _sdata[_tid + _half];
        _sdata[_tid] = REDUCE(_a, _b);
      }}
      __syncthreads();
    }}"""
    source = f"""{headers}
#define REDUCE(a, b) ({spec.reduce_expr})
#define POST_MAP(a) ({spec.post_map_expr})

typedef {spec.reduce_type} _type_reduce;
extern "C" __global__ void {name}({buffers}{scalars}{C_TYPES[out_dt]}* _raw_{y},
    const long long _rows, const long long _cols{steps}, const long long _out_stride,
    const long long _parts, const long long _span, unsigned char* _ws, unsigned int* _tickets) {{
  static_assert(sizeof(_type_reduce) <= 16 && alignof(_type_reduce) <= 16, "a partial fits its 16-byte slot");
  __shared__ char _sdata_raw[{block} * sizeof(_type_reduce)];
  __shared__ bool _last;
  _type_reduce *_sdata = reinterpret_cast<_type_reduce*>(_sdata_raw);
  const unsigned int _tid = threadIdx.x;
  for (long long _u = blockIdx.x; _u < _rows * _parts; _u += gridDim.x) {{
    const long long _row = _u / _parts, _p = _u % _parts;
    const long long _end = (_p + 1) * _span < _cols ? (_p + 1) * _span : _cols;
    _type_reduce _s = _type_reduce({spec.identity});
    {lines}
    for (long long _J = _p * _span + _tid; _J < _end; _J += {block}) {{
      {reads}
      _type_reduce _a = static_cast<_type_reduce>({spec.map_expr});
      _s = REDUCE(_s, _a);
    }}
    _sdata[_tid] = _s;
    __syncthreads();
    {tree}
    if (_tid == 0) {{
      memcpy(_ws + _u * 16, &_sdata[0], sizeof(_type_reduce));
      __threadfence();
      _last = atomicAdd(&_tickets[_row], 1u) == (unsigned int)(_parts - 1);
    }}
    __syncthreads();
    if (_last) {{
{_combine(spec, "_tid", str(block), "_slot", "_ws + (_row * _parts + _k) * 16")}
      _sdata[_tid] = _t;
      __syncthreads();
      {tree}
      if (_tid == 0) {{
        _s = _sdata[0];
        {C_TYPES[out_dt]} &{y} = _raw_{y}[_row * _out_stride];
        POST_MAP(_s);
      }}
    }}
    __syncthreads();
  }}
}}
"""
    return name, source


def columns_kernel(
    spec: ReductionSpec, columns: int, block: int = ROWS_BLOCK, *, with_preamble: bool = True, split: bool = False
) -> tuple[str, str]:
    """``(name, translation unit)`` of the columns kernel (issue 33; ``reduce_plan.plan_columns``): a reduction
    over an outer or a middle axis. A block is ``columns`` neighbouring outputs (consecutive inner indices:
    coalesced reads) x ``block // columns`` lanes; lane ``l`` reduces ``J = l, l + lanes, ...`` of its output
    in order, then the lanes combine in a shared-memory tree (pairs ``(l, l + lanes / 2)``, ...); a grid-stride
    loop over the tiles of outputs. The map, reduce and post-map expressions of the ``ReductionKernel``
    (``_J``: the index over the reduced axes, row-major); the order depends on the shape only.

    ``split`` (a few outputs over a long reduced extent, ``reduce_plan.split_columns``): block ``u`` takes part
    ``p = u % parts`` (``J`` from ``p * span`` up to ``(p + 1) * span``) of tile ``u / parts``, its lanes' trees
    giving a partial per column, stored in the workspace (a 16-byte slot per column and part); after a fence, thread
    0 takes a ticket of the tile (``atomicAdd``), and the block taking the tile's last ticket combines each column's
    partials the same way (lane ``l``: parts ``l, l + lanes, ...``, read with ``__ldcg``, then the tree) and stores
    the post-map: one launch where two passes took two.

    Parameters: the input buffers, the scalars (``scalar_params``), the output buffer, the outer, reduced and
    inner sizes, each input's outer, reduced and inner strides, the output's outer and inner strides
    (elements, 64-bit); split, then the parts, the span, the workspace and the tiles' tickets (zero at the launch)."""
    ((y, out_dt),) = spec.outputs
    if columns & (columns - 1) or not 1 < columns < block or block % columns:
        raise ValueError(f"{spec.name}: columns kernel of {columns} columns in blocks of {block}")
    lanes = block // columns
    name = f"{spec.name}_cols{columns}" + ("_split" if split else "")
    buffers = "".join(f"const {C_TYPES[dt]}* _raw_{n}, " for n, dt in spec.inputs)
    scalars = "".join(f"const {C_TYPES[dt]} {n}, " for n, dt in spec.scalar_params)
    steps = "".join(
        f", const long long _so_{n}, const long long _sr_{n}, const long long _si_{n}" for n, _ in spec.inputs
    )
    lines = " ".join(
        f"const {C_TYPES[dt]}* _line_{n} = _raw_{n} + _o * _so_{n} + _i * _si_{n};" for n, dt in spec.inputs
    )
    reads = " ".join(f"const {C_TYPES[dt]} {n} = _line_{n}[_J * _sr_{n}];" for n, dt in spec.inputs)
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS) + spec.preamble if with_preamble else ""
    tree = f"""for (unsigned int _half = {lanes // 2}u; _half > 0; _half >>= 1) {{
      if (_lane < _half) {{
        _type_reduce _a = _sdata[_tid], _b = _sdata[_tid + _half * {columns}u];
        _sdata[_tid] = REDUCE(_a, _b);
      }}
      __syncthreads();
    }}"""
    store = f"""if (_lane == 0 && _i < _inner) {{
      _s = _sdata[_tid];
      {C_TYPES[out_dt]} &{y} = _raw_{y}[_o * _out_so + _i * _out_si];
      POST_MAP(_s);
    }}"""
    if split:
        extra = ",\n    const long long _parts, const long long _span, unsigned char* _ws, unsigned int* _tickets"
        units, tile, first = "_tiles * _parts", "_u / _parts", "_p * _span + _lane"
        end = "const long long _end = (_p + 1) * _span < _reduced ? (_p + 1) * _span : _reduced;"
        head = f"const long long _p = _u % _parts;\n    {end}"
        finish = f"""const long long _slot0 = ((_tile * {columns} + _col) * _parts) * 16;
    if (_lane == 0) {{
      memcpy(_ws + _slot0 + _p * 16, &_sdata[_tid], sizeof(_type_reduce));
      __threadfence();
    }}
    __syncthreads();
    if (_tid == 0) {{
      _last = atomicAdd(&_tickets[_tile], 1u) == (unsigned int)(_parts - 1);
    }}
    __syncthreads();
    if (_last) {{
{_combine(spec, "_lane", str(lanes), "_w8", "_ws + _slot0 + _k * 16")}
      _sdata[_tid] = _t;
      __syncthreads();
      {tree}
      {store}
    }}"""
        shared = (
            '  static_assert(sizeof(_type_reduce) <= 16 && alignof(_type_reduce) <= 16, "a partial fits its slot");\n'
            "  __shared__ bool _last;\n"
        )
    else:
        extra, units, tile, first, head, finish, shared = "", "_tiles", "_u", "_lane", "", store, ""
    source = f"""{headers}
#define REDUCE(a, b) ({spec.reduce_expr})
#define POST_MAP(a) ({spec.post_map_expr})

typedef {spec.reduce_type} _type_reduce;
extern "C" __global__ void {name}({buffers}{scalars}{C_TYPES[out_dt]}* _raw_{y},
    const long long _outer, const long long _reduced, const long long _inner{steps},
    const long long _out_so, const long long _out_si{extra}) {{
{shared}  __shared__ char _sdata_raw[{block} * sizeof(_type_reduce)];
  _type_reduce *_sdata = reinterpret_cast<_type_reduce*>(_sdata_raw);
  const unsigned int _tid = threadIdx.x;
  const unsigned int _col = _tid & {columns - 1}u;
  const long long _lane = _tid / {columns}u;
  const long long _per_outer = (_inner + {columns - 1}) / {columns};
  const long long _tiles = _outer * _per_outer;
  for (long long _u = blockIdx.x; _u < {units}; _u += gridDim.x) {{
    const long long _tile = {tile};
    {head}
    const long long _o = _tile / _per_outer;
    const long long _i = (_tile % _per_outer) * {columns} + _col;
    _type_reduce _s = _type_reduce({spec.identity});
    if (_i < _inner) {{
      {lines}
      for (long long _J = {first}; _J < {"_end" if split else "_reduced"}; _J += {lanes}) {{
        {reads}
        _type_reduce _a = static_cast<_type_reduce>({spec.map_expr});
        _s = REDUCE(_s, _a);
      }}
    }}
    _sdata[_tid] = _s;
    __syncthreads();
    {tree}
    {finish}
    __syncthreads();
  }}
}}
"""
    return name, source


def _combine(spec: ReductionSpec, first: str, step: str, slot: str, address: str) -> str:
    """The last block's loop over a split reduction's 16-byte partial slots (``_k`` from ``first`` by ``step``;
    ``address``: slot ``_k``'s bytes), read with ``__ldcg`` (from L2: other blocks wrote them) into ``_t``."""
    return f"""      _type_reduce _t = _type_reduce({spec.identity});
      for (long long _k = {first}; _k < _parts; _k += {step}) {{
        const long long* {slot} = reinterpret_cast<const long long*>({address});
        const long long _w[2] = {{__ldcg({slot}), __ldcg({slot} + 1)}};
        _type_reduce _b;
        memcpy(&_b, _w, sizeof(_type_reduce));
        _t = REDUCE(_t, _b);
      }}"""


def _flags(spec: ReductionSpec, strided: tuple[bool, ...] | None) -> tuple[bool, ...]:
    """The column-stride flags, one per input (all False by default)."""
    flags = strided if strided is not None else (False,) * len(spec.inputs)
    if len(flags) != len(spec.inputs):
        raise ValueError(f"{spec.name}: {len(flags)} column-stride flags for {len(spec.inputs)} inputs")
    return flags


def _row_parts(spec: ReductionSpec, strided: tuple[bool, ...], with_preamble: bool) -> tuple[str, ...]:
    """The text the rows and split rows kernels share: the name suffix of the stride flags, the input buffer and
    scalar parameters, each input's row (and column) stride parameters, the row pointers, the element reads, and
    the headers with the preamble (or nothing)."""
    suffix = "_s" + "".join("01"[f] for f in strided) if any(strided) else ""
    buffers = "".join(f"const {C_TYPES[dt]}* _raw_{n}, " for n, dt in spec.inputs)
    scalars = "".join(f"const {C_TYPES[dt]} {n}, " for n, dt in spec.scalar_params)
    steps = "".join(
        f", const long long _rs_{n}" + (f", const long long _cs_{n}" if s else "")
        for (n, _), s in zip(spec.inputs, strided, strict=True)
    )
    lines = " ".join(f"const {C_TYPES[dt]}* _line_{n} = _raw_{n} + _row * _rs_{n};" for n, dt in spec.inputs)
    reads = " ".join(
        f"const {C_TYPES[dt]} {n} = _line_{n}[{'_J * _cs_' + n if s else '_J'}];"
        for (n, dt), s in zip(spec.inputs, strided, strict=True)
    )
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS) + spec.preamble if with_preamble else ""
    return suffix, buffers, scalars, steps, lines, reads, headers
