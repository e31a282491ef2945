"""DirectML-style buffer binding, checked before anything is written.

Rules (API.md; docs/reference/directml.md section 8, BindInputs): one buffer per tensor in
the operator's order, ``None`` only for an absent optional tensor; each buffer is a
C-contiguous array of the backend with the tensor's dtype and at least
``total_tensor_size_in_bytes`` bytes; the tensor is read or written through its sizes and
element strides from the buffer's first element. On a device backend (CuPy, the emulator) a buffer's address
must also be a multiple of its element size: a CUDA load or store of an element that is not aligned to its width
faults (``cudaErrorMisalignedAddress``, sticky for the process), so such a buffer is refused here and never reaches
a kernel. DirectML asks more (``DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT``, 16 bytes); gpuops runs any element-aligned
buffer correctly instead, choosing the flat kernel's vector packs per execute only when every pointer allows them
(``launch_plan.is_aligned``). Host memory has no such rule: NumPy reads unaligned arrays.
A DirectML binding is a range of memory (``DML_BUFFER_BINDING``), so a buffer of any shape is read
through its flat 1-D view: binding
hands every backend path 1-D arrays only, and no kernel sees a shape it did not plan for.
The buffer must be the backend's array type itself (``numpy.memmap`` too, which is plain
memory); other subclasses (``numpy.matrix``, masked arrays, ...) are rejected rather than
read with their own meaning dropped. An output may be the very same buffer
(same start, same size) as an input only when the operator supports in-place execution and
both tensor descriptors are identical; any other overlap involving an output is rejected.

Everything that depends only on the descriptor is computed once per compiled operator
(:class:`BindingPlan`); a call checks the buffers against it and computes addresses only
where an alignment is guaranteed or two buffers may overlap. The common binding is decided by one predicate
built from the same slots (:class:`FastCheck`): ``BindingPlan.check``'s common path and every backend's fast path
(``BindingPlan.fast_check``) bind through it, and hand anything it does not accept to :meth:`BindingPlan.check_all`,
which applies every rule and raises the detailed error.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from descriptors import OperatorDesc, TensorDesc
from descriptors.schema import OpRow

from .errors import BindingError, count

__all__ = ["BindingPlan", "FastCheck", "Slot"]


def _describe(buf: object) -> str:
    shape = getattr(buf, "shape", None)
    dtype = getattr(buf, "dtype", None)
    name = f"{type(buf).__module__}.{type(buf).__name__}"
    return name + (f"(shape={shape}, dtype={dtype})" if shape is not None else "")


@dataclasses.dataclass(frozen=True, slots=True)
class Slot:
    """One tensor of the operator, with what binding needs to know about it."""

    role: str
    tensor: TensorDesc | None
    dtype: np.dtype | None
    need: int
    align: int
    unread: bool = False  # a compiled graph's input that feeds no node: any buffer (or None), never read


def _size_hint(t: TensorDesc, need: int) -> str:
    """What a too-short buffer needs, in elements too, with the likely mistake named."""
    item = t.data_type.itemsize
    elements = -(-need // item)
    hint = (
        f"the tensor (sizes {tuple(t.sizes)}) needs total_tensor_size_in_bytes = {need}: pad the buffer to "
        f"{count(elements, t.data_type.name + ' element')}"
    )
    if t.strides is not None and len(t.sizes) > 1:
        packed = [1] * len(t.sizes)
        for d in range(len(t.sizes) - 2, -1, -1):
            packed[d] = packed[d + 1] * t.sizes[d + 1]
        if tuple(t.strides) == tuple(p * item for p in packed):
            hint += (
                f". The strides {tuple(t.strides)} look like byte strides: TensorDesc strides count elements "
                f"({tuple(packed)}, or None, for this packed tensor)"
            )
    return hint


#: ``accepts(inputs, outputs) -> bool``: the buffers pass every binding rule as they are (see :class:`FastCheck`).
Accepts = Callable[[Sequence[Any], Sequence[Any]], bool]


@dataclasses.dataclass(frozen=True, slots=True)
class FastCheck:
    """The binding rules of one plan as one predicate, for the common binding: ``accepts(inputs, outputs)`` is
    True only where :meth:`BindingPlan.check_all` accepts the buffers as they are (lists or tuples of the right
    lengths; each buffer of exactly the backend's array type and the tensor's dtype object, 1-D and packed,
    ``elements`` long (``exact``) or at least that (the size rule); on a device each starts on an element
    boundary; on the host the output is writeable) and no output shares memory with an input. False decides
    nothing: the general path then applies every rule and raises the detailed error, or agrees.

    Two buffers are disjoint without asking ``may_overlap`` (host memory only) when they lie in distinct
    allocations: a NumPy array without a ``base`` is an allocation, and NumPy gives every view the array owning
    its memory as ``base``. CuPy arrays (and the emulator's) are always writeable and have no such flag; their
    overlap is always ``may_overlap``'s.

    The same rules, compiled from one text per number of inputs (``_predicate_text``), take the buffers as
    arguments too: ``accepts_buffers(*inputs, output)`` for a caller that holds them apart (no sequences to
    check), ``accepts_inputs(*inputs)`` for one that allocates the output itself (of the output's dtype and
    elements: writeable, and apart from every input)."""

    #: ``(dtype, elements)`` of each input, and of the one output.
    inputs: tuple[tuple[np.dtype, int], ...]
    output: tuple[np.dtype, int]
    #: Element counts are exact (a fast path's buffers: the tensors' own shapes), else a minimum (the size rule).
    exact: bool
    accepts: Accepts
    accepts_buffers: Callable[..., bool]
    accepts_inputs: Callable[..., bool]


def _predicate_text(n: int, exact: bool, host: bool) -> str:
    """``make(at, pointer, overlap, d0, u0, n0, w0, ..., do, uo, no, wo)`` returning the three predicates of
    :class:`FastCheck` for ``n`` inputs and one output, unrolled (a loop over the buffers costs a fast path a
    third of its time) and closed over a plan's values (dtype ``d``, strides ``u``, elements ``n``, itemsize
    ``w``): ``i0``... are the inputs, ``o`` the output."""
    ins = [f"i{k}" for k in range(n)]
    cmp = "==" if exact else ">="

    def tests(bufs: list[tuple[str, str]]) -> str:
        """Each buffer's rules, in an order that reads nothing a buffer of another type may lack."""
        out = []
        for x, k in bufs:
            out += [f"type({x}) is at", f"{x}.dtype is d{k}", f"{x}.strides == u{k}", f"len({x}) {cmp} n{k}"]
            if not host:
                out.append(f"not pointer({x}) % w{k}")
        return " and ".join(out) or "True"

    in_bufs = [(x, str(k)) for k, x in enumerate(ins)]
    bufs = [*in_bufs, ("o", "o")]
    rules = [f"if not ({tests(bufs)}):", "    return False"]  # the buffers, then whether the output is apart
    if host:
        rules += [
            "if not o.flags.writeable:",
            "    return False",
            # Arrays without a base: an allocation each, so disjoint unless the same object.
            f"if {' and '.join(f'{x}.base is None' for x, _ in bufs)}:",
            f"    return {' and '.join(f'o is not {x}' for x in ins) or 'True'}",
            # Views: their base names their allocation (an array without a base); else ask overlap.
            "r = o.base",
            "ro = o if r is None else r if type(r) is at and r.base is None else None",
        ]
        for x in ins:
            rules += [
                f"r = {x}.base",
                f"r = {x} if r is None else r if type(r) is at and r.base is None else None",
                f"if (ro is None or r is None or r is ro) and overlap(o, {x}):",
                "    return False",
            ]
    else:
        for x in ins:
            rules += [f"if overlap(o, {x}):", "    return False"]
    rules.append("return True")
    params = ", ".join(f"d{k}, u{k}, n{k}, w{k}" for _, k in bufs)
    lines = [
        f"def make(at, pointer, overlap, {params}):",
        f"    def accepts_inputs({', '.join(ins)}):",
        f"        return {tests(in_bufs)}",
        "",
        f"    def accepts_buffers({', '.join([*ins, 'o'])}):",
        *(f"        {line}" for line in rules),
        "",
        "    def accepts(inputs, outputs):",
        "        ti = type(inputs)",
        "        to = type(outputs)",
        "        if not ((ti is list or ti is tuple) and (to is list or to is tuple)",
        f"                and len(inputs) == {n} and len(outputs) == 1):",
        "            return False",
        f"        ({', '.join(ins)},) = inputs" if ins else "",
        "        o = outputs[0]",
        *(f"        {line}" for line in rules),
        "",
        "    return accepts, accepts_buffers, accepts_inputs",
    ]
    return "\n".join(lines)


@functools.cache
def _predicate_factory(n: int, exact: bool, host: bool) -> Callable[..., tuple[Callable[..., bool], ...]]:
    """:func:`_predicate_text`, compiled once per process."""
    namespace: dict[str, Any] = {}
    name = f"<gpuops.binding predicate: {n} inputs, elements {'==' if exact else '>='}, {'host' if host else 'device'}>"
    exec(compile(_predicate_text(n, exact, host), name, "exec"), namespace)
    return cast(Callable[..., tuple[Callable[..., bool], ...]], namespace["make"])


class BindingPlan:
    """The binding rules of one descriptor on one backend, applied to each ``execute``."""

    def __init__(
        self,
        desc: OperatorDesc,
        row: OpRow,
        array_type: type[Any],
        pointer: Callable[[Any], int],
        may_overlap: Callable[[Any, Any], bool],
        backend: str,
        host: bool = False,
    ) -> None:
        """``host``: the backend binds host memory (NumPy arrays), so ``numpy.memmap`` is accepted too."""

        def slot(role: str) -> Slot:
            t: TensorDesc | None = getattr(desc, role)
            if t is None:
                return Slot(role, None, None, 0, 0)
            need = cast(int, t.total_tensor_size_in_bytes)  # TensorDesc.__post_init__ always sets it
            return Slot(role, t, t.data_type.numpy_dtype, need, t.guaranteed_base_offset_alignment)

        ins = tuple(slot(f.name) for f in row.input_fields)
        outs = tuple(slot(f.name) for f in row.output_fields)
        # Output -> inputs it may legally share a buffer with (in place, identical descriptors).
        shareable = {o.role: frozenset(i.role for i in ins if row.in_place and i.tensor == o.tensor) for o in outs}
        self._setup(row.name, ins, outs, row.in_place, shareable, array_type, pointer, may_overlap, backend, host)

    @classmethod
    def from_slots(
        cls,
        op: str,
        inputs: tuple[Slot, ...],
        outputs: tuple[Slot, ...],
        array_type: type[Any],
        pointer: Callable[[Any], int],
        may_overlap: Callable[[Any, Any], bool],
        backend: str,
        host: bool = False,
    ) -> BindingPlan:
        """The rules for buffers described by slots alone (a compiled graph's inputs and outputs): no output
        may share memory with an input or another output."""
        plan = cls.__new__(cls)
        shareable = {o.role: frozenset[str]() for o in outputs}
        plan._setup(op, inputs, outputs, False, shareable, array_type, pointer, may_overlap, backend, host)
        return plan

    def _setup(
        self,
        op: str,
        inputs: tuple[Slot, ...],
        outputs: tuple[Slot, ...],
        in_place: bool,
        shareable: dict[str, frozenset[str]],
        array_type: type[Any],
        pointer: Callable[[Any], int],
        may_overlap: Callable[[Any, Any], bool],
        backend: str,
        host: bool,
    ) -> None:
        self.op = op
        self.in_place = in_place
        self.array_type = array_type
        self.pointer = pointer
        self.may_overlap = may_overlap
        self.backend = backend
        self.inputs = inputs
        self.outputs = outputs
        self.shareable = shareable
        # Host arrays may be read-only (NumPy's WRITEABLE flag); CuPy's flags have no such attribute (c_contiguous,
        # f_contiguous and owndata only), so it is read on host backends alone. Device buffers must be aligned
        # to their element size (a misaligned CUDA access faults); host ones need not be.
        self._host = host
        # The array types bound as they are: the backend's own, and numpy.memmap (plain memory).
        self._accepted: frozenset[type] = frozenset({array_type, np.memmap} if host else {array_type})
        # The rules as one predicate each (FastCheck): check()'s common path (the size rule: at least the bytes
        # needed), and the fast paths' exact buffers (fast_check()). None where a rule needs more than a predicate
        # reads (an absent optional tensor, an alignment promise, several outputs).
        self._sized = self._predicate(exact=False)
        self._accepts = None if self._sized is None else self._sized.accepts
        self._exact = self._predicate(exact=True)

    def _predicate(self, exact: bool) -> FastCheck | None:
        """The :class:`FastCheck` of these slots: exact element counts (a packed tensor whose elements hold its
        ``total_tensor_size_in_bytes``, else None), or the size rule's minimum."""
        if len(self.outputs) != 1:
            return None
        counts: list[tuple[np.dtype, int]] = []
        for s in (*self.inputs, *self.outputs):
            t = s.tensor
            if t is None or s.dtype is None or s.align or s.unread:
                return None
            item = s.dtype.itemsize
            if not exact:
                counts.append((s.dtype, -(-s.need // item)))
            elif t.is_packed and t.element_count * item >= s.need:
                counts.append((s.dtype, t.element_count))
            else:
                return None
        make = _predicate_factory(len(self.inputs), exact, self._host)
        values = [v for d, n in counts for v in (d, (d.itemsize,), n, d.itemsize)]
        accepts, accepts_buffers, accepts_inputs = make(self.array_type, self.pointer, self.may_overlap, *values)
        return FastCheck(tuple(counts[:-1]), counts[-1], exact, accepts, accepts_buffers, accepts_inputs)

    def fast_check(self) -> FastCheck | None:
        """The exact-buffer predicate every backend's fast path binds through (built once per plan): a buffer
        of exactly its tensor's dtype and 1-D shape ``(element_count,)``, packed, meets every size rule here and
        is its own flat view. None where no such shape exists (an absent optional tensor, an alignment promise,
        several outputs, a size DirectML rounds up past the elements, a strided or broadcast tensor): those
        always take :meth:`check`."""
        return self._exact

    def common_check(self) -> Accepts | None:
        """The predicate :meth:`check`'s common path binds through (the size rule), or None where there is none:
        True only where ``check(inputs, outputs)`` would return ``(inputs, outputs, False)``."""
        return self._accepts

    def exact_buffers(self) -> tuple[tuple[tuple[np.dtype, tuple[int]], ...], tuple[np.dtype, tuple[int]]] | None:
        """``(dtype, shape)`` of each input and of the one output of :meth:`fast_check`, or None."""
        exact = self._exact
        if exact is None:
            return None
        return tuple((d, (n,)) for d, n in exact.inputs), (exact.output[0], (exact.output[1],))

    def _count(self, what: str, bufs: object, slots: tuple[Slot, ...]) -> Sequence[Any]:
        if isinstance(bufs, (str, bytes)) or not isinstance(bufs, (list, tuple)):
            raise BindingError(f"{self.op}: {what} must be a list of buffers (got {type(bufs).__name__})")
        if len(bufs) != len(slots):
            optional = "; pass None for an absent optional tensor" if what == "inputs" else ""
            raise BindingError(
                f"{self.op}: {count(len(bufs), what[:-1] + ' buffer')} bound; the operator has "
                f"{count(len(slots), what[:-1])} "
                f"({', '.join(s.role for s in slots)}){optional}"
            )
        return bufs

    def _buffer(self, s: Slot, buf: Any, is_output: bool) -> None:
        op = self.op
        if s.tensor is None:
            if buf is not None and not s.unread:
                raise BindingError(f"{op}: {s.role} is absent from the descriptor, so its buffer must be None")
            return
        if buf is None:
            raise BindingError(f"{op}: {s.role} needs a buffer (got None)")
        at = self.array_type
        if not isinstance(buf, at):
            raise BindingError(
                f"{op}: {s.role} must be bound to a {at.__module__}.{at.__name__} on the {self.backend} backend "
                f"(got {_describe(buf)})"
            )
        if type(buf) not in self._accepted:
            raise BindingError(
                f"{op}: {s.role} is bound to a subclass of {at.__module__}.{at.__name__} ({_describe(buf)}); "
                f"binding reads plain memory and would drop what the subclass means (a mask, matrix shapes), so "
                f"pass a plain array (np.asarray(buf) is a view, no copy)"
            )
        flags = buf.flags
        if not flags.c_contiguous:
            raise BindingError(f"{op}: {s.role} buffer must be C-contiguous (got strides {buf.strides})")
        if buf.dtype != s.dtype:
            raise BindingError(
                f"{op}: {s.role} buffer has dtype {buf.dtype}; the tensor is {s.tensor.data_type.name} ({s.dtype})"
            )
        if buf.nbytes < s.need:
            raise BindingError(
                f"{op}: {s.role} buffer holds {count(buf.nbytes, 'byte')}; {_size_hint(s.tensor, s.need)}"
            )
        if s.align:
            ptr = self.pointer(buf)
            if ptr % s.align:
                raise BindingError(
                    f"{op}: {s.role} buffer address {ptr:#x} is not a multiple of "
                    f"guaranteed_base_offset_alignment = {s.align}"
                )
        if not self._host:
            ptr = self.pointer(buf)
            if ptr % buf.itemsize:
                raise BindingError(
                    f"{op}: {s.role} buffer address {ptr:#x} is {ptr % buf.itemsize} bytes past a multiple of "
                    f"{buf.itemsize}, the size of its {s.tensor.data_type.name} elements: a GPU access must be "
                    "aligned to its width (cudaErrorMisalignedAddress otherwise), so bind a buffer that starts on an "
                    "element boundary"
                )
        if is_output and self._host and not flags.writeable:
            raise BindingError(f"{op}: {s.role} buffer is read-only")

    def check(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> tuple[Sequence[Any], Sequence[Any], bool]:
        """Check every buffer; return ``(inputs, outputs, aliased)``: the buffers as 1-D arrays
        (flat views of N-D ones) and whether an output shares an input's buffer (in place).

        The common case (every tensor present, no alignment promised, one output; 1-D buffers of the right
        type, layout, dtype, size and, on a device, element alignment; no buffer shared) is decided by the plan's
        predicate (:class:`FastCheck`, a few attribute reads per buffer) and returns the sequences as given.
        Anything else goes through :meth:`check_all`, which raises with the detailed reason or agrees.
        """
        accepts = self._accepts
        if accepts is not None and accepts(inputs, outputs):
            return inputs, outputs, False
        return self.check_all(inputs, outputs)

    def check_all(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> tuple[list[Any], list[Any], bool]:
        """Every rule, with a detailed ``BindingError`` for the first one broken; the buffers
        come back as plain 1-D arrays (see :meth:`check`)."""
        ins = self._count("inputs", inputs, self.inputs)
        outs = self._count("outputs", outputs, self.outputs)
        for s, buf in zip(self.inputs, ins, strict=True):
            self._buffer(s, buf, False)
        for s, buf in zip(self.outputs, outs, strict=True):
            self._buffer(s, buf, True)
        aliased = False
        for k, (o, obuf) in enumerate(zip(self.outputs, outs, strict=True)):
            for o2, obuf2 in zip(self.outputs[k + 1 :], outs[k + 1 :], strict=True):
                if self.may_overlap(obuf, obuf2):
                    raise BindingError(f"{self.op}: outputs {o.role} and {o2.role} overlap in memory")
            for i, ibuf in zip(self.inputs, ins, strict=True):
                if ibuf is None or i.tensor is None or not self.may_overlap(obuf, ibuf):
                    continue
                o_lo, i_lo = self.pointer(obuf), self.pointer(ibuf)
                if (o_lo, obuf.nbytes) != (i_lo, ibuf.nbytes):
                    raise BindingError(
                        f"{self.op}: {o.role} partially overlaps {i.role} (bytes [{o_lo:#x}, +{obuf.nbytes}) vs "
                        f"[{i_lo:#x}, +{ibuf.nbytes})); only an identical buffer may be shared (in-place execution)"
                    )
                if not self.in_place:
                    raise BindingError(
                        f"{self.op}: {o.role} is bound to the same buffer as {i.role}, but {self.op} does not run "
                        "in place"
                    )
                if i.role not in self.shareable[o.role]:
                    raise BindingError(
                        f"{self.op}: {o.role} shares its buffer with {i.role}, which needs identical tensor "
                        f"descriptors (got {o.tensor} vs {i.tensor})"
                    )
                aliased = True
        flat_ins = [self._flat(b) if s.tensor is not None else None for s, b in zip(self.inputs, ins, strict=True)]
        return flat_ins, [self._flat(b) for b in outs], aliased

    def _flat(self, buf: Any) -> Any:
        """A checked buffer as a plain 1-D array of the backend: the same memory, no copy."""
        if buf is None:
            return None
        if type(buf) is not self.array_type:
            buf = buf.view(self.array_type)  # numpy.memmap: plain memory
        return buf if buf.ndim == 1 else buf.reshape(-1)
