"""The ufunc tier of element-wise operators: ``NumpyKernel`` runs an op-table row's NumPy expression with DirectML
semantics, and decides for itself when threads pay (a self-timing decision for compute-bound work).

Fast path: a row whose NumPy expression is one ufunc, on operands already in their compute
type, runs as a single ufunc call straight on strided views of the bound buffers (NumPy
handles exact in-place aliasing itself). Every other case (float16/bfloat16 computed in
float32, raw-bit views, ScaleBias, multi-step expressions) runs over chunks of about
``CpuPolicy.chunk`` elements so the float32 intermediates stay in cache (docs/reference/performance.md
3.4, 4.1) and no full-size temporary is ever allocated.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from descriptors import DataType
from descriptors.schema import Domain, ElementwiseRow

from ...codegen import BIAS, FUSED_PREFIX, SCALE, ElementwiseImpl, elementwise_impl
from ..fpstate import ignore, restore
from ..half_convert import MIN_F16, MIN_F32, f16_to_f32, f32_to_f16
from . import policy as _policy
from . import threads as _threads
from .views import _strided_inner, logical_index

if TYPE_CHECKING:
    from ...lowering import Lowering

__all__ = ["NumpyKernel", "Prepared"]


def _tiles(shape: tuple[int, ...]) -> list[Any]:
    """``CpuPolicy.tile`` x ``tile`` tiles of the last two axes (for every index of the others).

    A transposed operand read tile by tile touches ``tile``-element runs of its rows, instead of
    one element per cache line across the whole array (docs/reference/performance.md 4.1:
    the 6-7x cliff, 2.9x back with 256 x 256 tiles).
    """
    *head, rows, cols = shape
    tile = _policy.POLICY.tile
    out = []
    for lead in itertools.product(*(range(h) for h in head)):
        for i in range(0, rows, tile):
            for j in range(0, cols, tile):
                out.append((*lead, slice(i, i + tile), slice(j, j + tile)))
    return out


_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _cast(src: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = src`` with NumPy's casting; float16 <-> float32 through ``half_convert``
    (bit-identical, and faster than NumPy's element-by-element software cast: ``benchmarks/``)."""
    if src.dtype == _F16 and out.dtype == _F32 and src.size >= MIN_F32:
        f16_to_f32(src, out)
    elif src.dtype == _F32 and out.dtype == _F16 and src.size >= MIN_F16:
        f32_to_f16(src, out)
    else:  # below half_convert's break-even sizes: NumPy's cast, without half_convert's checks
        np.copyto(out, src, casting="unsafe")


class Prepared(NamedTuple):
    """A kernel's arguments for one descriptor: row parameters, fused ones, ScaleBias."""

    params: dict[str, Any]
    fused_params: dict[str, Any]
    scale_bias: tuple[np.float32, np.float32] | None


class NumpyKernel:
    """One (row, data types, ScaleBias present, fused activation) lowering for NumPy.

    The row's NumPy callable is called ``impl(x, y, ..., out=out, **parameters)`` with one positional
    operand per input field (None for an absent optional input), in their compute types; a fused
    activation's callable then runs on the result, still in the compute type, before the one final
    cast to the output type. ``impl``: the plan and the row's NumPy callable (``Lowering.impl``, see
    :meth:`of`; else ``codegen.elementwise_impl``).
    """

    def __init__(
        self,
        row: ElementwiseRow,
        dtypes: Mapping[str, DataType],
        has_scale_bias: bool,
        fused: ElementwiseRow | None = None,
        impl: ElementwiseImpl | None = None,
    ) -> None:
        impl = impl if impl is not None else elementwise_impl(row, dtypes)
        self.row = row
        self.plan = impl.plan
        self.dtypes = dict(dtypes)
        self.in_roles = tuple(f.name for f in row.input_fields if f.name in dtypes)
        # Where each input field's operand is among the present ones (None: an absent optional input, passed
        # as None in its position so that the fields after it keep theirs); None when every input is present.
        slots = tuple(self.in_roles.index(f.name) if f.name in dtypes else None for f in row.input_fields)
        self.slots = None if None not in slots else slots
        # The input ScaleBias applies to; -1 for a row with no inputs (FILL_VALUE_CONSTANT reads none).
        self.primary_index = self.in_roles.index(row.primary_role) if row.primary_role in self.in_roles else -1
        self.out_role = row.output_fields[0].name
        self.impl = impl.numpy
        self.single = impl.single_ufunc
        self.has_scale_bias = has_scale_bias
        self.fused = fused
        self.fused_impl = fused.exprs.numpy_for("float") if fused is not None else None
        # A fused activation that may write over its own input runs in place on the result.
        self.fused_in_place = fused is not None and fused.exprs.is_single_ufunc("float")
        self.bits = row.domain is Domain.BITS
        in_np = {r: self.plan.inputs[r].numpy_dtype for r in self.in_roles}
        self.in_np = in_np
        self.out_np = self.plan.out_compute.numpy_dtype
        # float16 chunks convert through half_convert: about twenty short ufunc passes per
        # chunk, which two threads ran slower than one (13.9 vs 19.6 ms for a 2**22 float16 add
        # on a 2-vCPU VM: the GIL changes hands at every pass), so those stay on one thread.
        self.float16 = any(dt is DataType.FLOAT16 for dt in dtypes.values())
        # CpuPolicy.heavy_min elements or more: the fastest one-thread call's seconds per element (0: none yet), how
        # many were timed, and the fastest threaded call's (0: none yet)
        self.cost = 0.0
        self.timed = 0
        self.cost_threads = 0.0
        self.timed_threads = 0
        self.reads_index = row.reads_index  # the impl takes index= (FILL_VALUE_SEQUENCE): never the direct path
        self.direct = (
            self.single
            and not row.reads_index
            and not has_scale_bias
            and fused is None
            and all(in_np[r] == dtypes[r].numpy_dtype or self.bits for r in self.in_roles)
            and (self.out_np == dtypes[self.out_role].numpy_dtype or self.bits)
        )

    @classmethod
    def of(cls, lowering: Lowering) -> NumpyKernel:
        """The kernel of an element-wise lowering: its plan and NumPy callable as the lowering chose them."""
        return cls(lowering.elementwise_row, lowering.dtypes, lowering.has_scale_bias, lowering.fused, lowering.impl)

    def prepare(self, scalars: Mapping[str, Any]) -> Prepared:
        """The per-descriptor arguments, worked out once per compiled operator, not per call."""
        params = {f.name: scalars[f.kernel_name] for f in self.row.param_fields}
        fparams = {}
        if self.fused is not None:
            fparams = {f.name: scalars[FUSED_PREFIX + f.kernel_name] for f in self.fused.param_fields}
        sb = (np.float32(scalars[SCALE]), np.float32(scalars[BIAS])) if self.has_scale_bias else None
        return Prepared(params, fparams, sb)

    def _args(self, xs: Sequence[np.ndarray]) -> Sequence[np.ndarray | None]:
        """The impl's positional operands: the present inputs, None in an absent optional input's position."""
        return xs if self.slots is None else [None if i is None else xs[i] for i in self.slots]

    def run(self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: Prepared, aliased: bool) -> None:
        token = ignore()
        try:
            self._run(ins, out, prepared, aliased)
        finally:
            restore(token)

    def _run(self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: Prepared, aliased: bool) -> None:
        if self.bits:
            ins = [v.view(self.in_np[r]) for v, r in zip(ins, self.in_roles, strict=True)]
            out = out.view(self.out_np)
        size = out.size
        p = _policy.POLICY
        heavy = p.heavy_min <= size < p.thread_min and out.ndim >= 1 and self._heavy(size)
        if self.direct:
            params = prepared.params
            if size >= p.tile * p.tile and out.ndim >= 2 and _strided_inner(ins):
                blocks = _tiles(out.shape)
            elif size >= p.thread_min and out.ndim >= 1:
                blocks = list(_threads._chunks(out.shape, p.thread_block))
            elif heavy:
                blocks = list(_threads._chunks(out.shape, p.heavy_block))
            elif size < p.heavy_min:
                self.impl(*self._args(ins), out=out, **params)
                return
            else:
                self._timed(size, lambda: self.impl(*self._args(ins), out=out, **params))
                return

            def work(part: Iterable[Any]) -> None:
                for idx in part:
                    self.impl(*self._args([v[idx] for v in ins]), out=out[idx], **params)

            if heavy:
                self._timed_threads(size, lambda: _threads._parallel(blocks, work, p.thread_min))
            else:
                _threads._parallel(blocks, work, size)
            return
        blocks = [()] if size <= p.chunk else list(_threads._chunks(out.shape))  # () is the whole array
        work = lambda part: self._chunked(ins, out, prepared, aliased, part)  # noqa: E731
        if self.float16:  # one thread: see __init__
            work(blocks)
        elif heavy:
            self._timed_threads(size, lambda: _threads._parallel(blocks, work, p.thread_min))
        elif p.heavy_min <= size < p.thread_min:
            self._timed(size, lambda: work(blocks))
        else:
            _threads._parallel(blocks, work, size)

    def _heavy(self, size: int) -> bool:
        """Whether a call of ``size`` elements (``CpuPolicy.heavy_min`` .. ``thread_min``) goes to the pool: two
        one-thread calls were timed (a first call pays for page faults and cold caches), the fastest puts this one
        at ``heavy_s`` or more, and fewer than two threaded calls were timed (the first one may start the pool) or
        the fastest of them was faster per element."""
        cost = self.cost
        if self.timed < 2 or size * cost < _policy.POLICY.heavy_s:
            return False
        return self.timed_threads < 2 or self.cost_threads < cost

    def _timed(self, size: int, call: Callable[[], object]) -> None:
        """``call()`` on this thread (``size`` elements, ``heavy_min`` or more); its time per element into ``cost``."""
        start = time.perf_counter()
        call()
        took = (time.perf_counter() - start) / size
        if took < self.cost or self.cost == 0.0:
            self.cost = took
        self.timed += 1

    def _timed_threads(self, size: int, call: Callable[[], object]) -> None:
        """``call()``, a threaded call (:meth:`_heavy`); its time per element into ``cost_threads``."""
        start = time.perf_counter()
        call()
        took = (time.perf_counter() - start) / size
        if took < self.cost_threads or self.cost_threads == 0.0:
            self.cost_threads = took
        self.timed_threads += 1

    def _chunked(
        self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: Prepared, aliased: bool, blocks: Iterable[Any]
    ) -> None:
        params, fparams, sb = prepared
        n = min(math.prod(out.shape), _policy.POLICY.chunk)  # _chunks never yields more than that
        ws_in: list[np.ndarray | None] = [None] * len(self.in_roles)  # made on first need
        act: Any = self.fused_impl  # the fused activation's NumPy callable, or None
        fused = act is not None
        scale, bias = sb if sb is not None else (np.float32(1), np.float32(0))
        # The result goes straight into the output when it has the compute type, the output
        # does not alias an input of a multi-step expression, and the activation (if any) can
        # run in place there: no workspace, no final copy.
        into_out = out.dtype == self.out_np and (not aliased or self.single) and (not fused or self.fused_in_place)
        ws_out = None if into_out else np.empty(n, self.out_np)
        ws_act = np.empty(n, self.out_np) if fused and not into_out else None
        p = self.primary_index
        # One input, a single ufunc, the result straight into the output: the scaled operand is
        # made in the output chunk too and the ufunc runs there in place (the chain a user would
        # write: multiply, add, op, all into out), with no workspace.
        # (The output chunk must hold the operand's compute type, not merely the result's.)
        scale_in_out = (
            into_out and sb is not None and self.single and len(ins) == 1 and out.dtype == self.in_np[self.in_roles[p]]
        )
        for idx in blocks:
            o = out[idx]
            shape, size = o.shape, o.size
            if self.reads_index:
                params = {**prepared.params, "index": logical_index(out.shape, idx, shape)}
            xs = []
            for i, (v, r) in enumerate(zip(ins, self.in_roles, strict=True)):
                part = v[idx]
                scaled = i == p and sb is not None
                same = part.dtype == self.in_np[r]
                if same and not scaled:
                    xs.append(part)
                    continue
                if scale_in_out:
                    w = o
                else:
                    buf = ws_in[i]
                    if buf is None:
                        buf = ws_in[i] = np.empty(n, self.in_np[r])
                    w = buf[:size].reshape(shape)
                if same:  # scaled, already in the compute type: the multiply reads the operand itself
                    np.multiply(part, scale, out=w)
                else:
                    _cast(part, w)
                    if scaled:
                        np.multiply(w, scale, out=w)
                if scaled:
                    np.add(w, bias, out=w)
                xs.append(w)
            if ws_out is None:
                self.impl(*self._args(xs), out=o, **params)
                if fused:
                    act(o, out=o, **fparams)
                continue
            w = ws_out[:size].reshape(shape)
            self.impl(*self._args(xs), out=w, **params)
            if ws_act is not None:
                a = ws_act[:size].reshape(shape)
                act(w, out=a, **fparams)
                w = a
            _cast(w, o)
