"""``Device.compile_graph``: a ``GraphDesc`` compiled into one operator (``IDMLDevice1::CompileGraph``).

The graph is planned once (``gpuops.graph_plan``: fusion groups, steps, workspaces); each fused group becomes
one kernel of the device's backend (``Backend.compile_fused``), each other node a compiled operator of its own.
Constant nodes are copied to the device when the graph is compiled, so ``execute`` only binds, allocates the
workspaces (per call: one compiled graph may run on several threads) and launches. Buffers are bound as for an
operator: inputs and outputs in graph order, each a C-contiguous array of the backend with the data type of the
tensors it feeds (or is written from) and at least their ``total_tensor_size_in_bytes``; an output may not share
memory with an input or another output.

The buffers gpuops makes itself keep the promises of the tensors they are bound to: a workspace or constant whose
tensor promises ``guaranteed_base_offset_alignment`` starts at a multiple of it (NumPy's allocations are only
16-byte aligned, CuPy's 256-byte: a larger promise is kept by allocating more and starting at an aligned offset).
``execute`` checks the buffers of every step that runs after a step has written a graph output before the first
step runs, so a ``BindingError`` never follows a write to an output.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from descriptors import ExecutionFlags, GraphDesc, TensorDesc
from descriptors.graph import ConstantNode

from .binding import BindingPlan, Slot
from .compiled_operator import CompiledOperator
from .cost import Cost, kernel
from .graph_plan import FusedReduceStep, FusedStep, GraphPlan, NodeStep, Ref, composite_graph, plan_graph
from .lowering import FusedLowering, lower
from .row_program import plan_row_program

if TYPE_CHECKING:
    from .device import Device, Operator

__all__ = ["CompiledComposite", "CompiledGraph"]


def _slot(role: str, tensors: Sequence[TensorDesc]) -> Slot:
    """What a graph input (read through each of ``tensors``) or output needs from its buffer."""
    if not tensors:  # a graph input no node reads: any buffer of the backend, never read
        return Slot(role, None, None, 0, 0, unread=True)
    need = max(t.total_tensor_size_in_bytes or 0 for t in tensors)
    align = max(t.guaranteed_base_offset_alignment for t in tensors)
    return Slot(role, tensors[0], tensors[0].data_type.numpy_dtype, need, align)


class CompiledGraph(CompiledOperator):
    """A compiled ``GraphDesc``: ``execute(inputs, outputs)`` in graph order, ``kernel_count`` kernels per
    call, ``kernel_source`` the generated source of every step. Each ``execute`` takes workspaces of its own (the
    values read across steps; a graph fused into one kernel has none), so one compiled graph may run on several
    threads at once, as an operator may (``gpuops.run`` and ``gpuops.dask`` cache and share them)."""

    def __init__(
        self,
        device: Device,
        graph: GraphDesc,
        flags: ExecutionFlags,
        *,
        fuse: bool = True,
        single: tuple[Any, tuple[Ref, ...], tuple[Ref, ...]] | None = None,
    ) -> None:
        # CompiledOperator.__init__ compiles one descriptor; a graph compiles its steps instead. ``single``: one
        # kernel (run, input refs, output refs) in place of the plan's steps (a composite's row program).
        self.device = device
        self.graph = graph
        self.flags = flags
        self.plan: GraphPlan = plan_graph(graph, fuse=fuse) if single is None else GraphPlan((), ())
        backend = self._backend = device.backend_impl
        self._constants: dict[tuple[int, np.dtype], Any] = {}
        # (kernel or execute, input refs, output refs, is an operator); a constant's ref is its device buffer.
        self._steps: list[tuple[Any, Sequence[Any], Sequence[Ref], bool]] = []
        self._sources: list[str] = []
        # The compiled operator of each operator step (its ``execute`` may be a plain function, not a method).
        self._ops: list[CompiledOperator | None] = []
        for step in self.plan.steps:
            self._ops.append(None)
            if isinstance(step, NodeStep):
                op: CompiledOperator = device.compile_operator(device.create_operator(step.desc))
                in_refs = [
                    None if r is None or t is None else self._constant(r, t)
                    for r, t in zip(step.inputs, step.desc.input_tensors, strict=True)
                ]
                self._steps.append((op.execute, in_refs, step.outputs, True))
                self._ops[-1] = op
                self._sources.append(op.kernel_source)
            elif isinstance(step, FusedReduceStep):
                before, after = (
                    None if part is None else FusedLowering(part, tuple(lower(d) for d in part.descs))
                    for part in (step.prologue, step.epilogue)
                )
                kernel = backend.compile_fused_reduce(before, lower(step.desc), after)
                in_refs = [self._constant(r, t) for r, t in step.inputs]
                self._steps.append((kernel, in_refs, list(step.outputs), False))
                self._sources.append(str(getattr(kernel, "source", "")))
            elif isinstance(step, FusedStep):
                fused = FusedLowering(step, tuple(lower(d) for d in step.descs))
                kernel = backend.compile_fused(fused)
                in_refs = [self._constant(r, t) for r, t in step.inputs]
                self._steps.append((kernel, in_refs, [r for _, r, _ in step.outputs], False))
                self._sources.append(fused.spec.source)
            else:
                raise TypeError(f"compile_graph: a plan step of unknown kind {type(step).__name__}")
        if single is not None:
            run, run_in, run_out = single
            self._ops.append(None)
            self._steps.append((run, run_in, run_out, False))
            self._sources.append(str(getattr(run, "source", "")))
        # The steps that run after one has written a graph output: ``execute`` checks their buffers before the
        # first step runs (a step before them checks its own when it runs: nothing the caller sees is written yet).
        writes = [k for k, (_, _, out_refs, _) in enumerate(self._steps) if any(r.kind == "output" for r in out_refs)]
        self._checked_first = writes[0] + 1 if writes else len(self._steps)
        ins = tuple(_slot(f"inputs[{g}]", graph.input_tensors(g)) for g in range(graph.input_count))
        outs = tuple(_slot(f"outputs[{g}]", (graph.output_tensor(g),)) for g in range(graph.output_count))
        self._binding = BindingPlan.from_slots(
            "GRAPH", ins, outs, backend.array_type, backend.pointer, backend.may_overlap, backend.name,
            host=backend.binds_host_memory,
        )  # fmt: skip

    def _new_workspaces(self) -> list[Any]:
        """One buffer per workspace of the plan, for one ``execute``, aligned as its tensor promises; none for a
        graph fused into one kernel."""
        backend = self._backend
        make = [
            _aligned_empty(backend, _count(t), t.data_type.numpy_dtype, t.guaranteed_base_offset_alignment)
            for t in self.plan.workspaces
        ]
        return list(backend.unwrap(make))

    def _constant(self, ref: Ref, tensor: TensorDesc) -> Any:
        """``ref``, or for a constant node the device copy of its bytes (made once), typed as ``tensor`` and
        aligned as every tensor it feeds promises."""
        if ref.kind != "constant":
            return ref
        dt = tensor.data_type.numpy_dtype
        if (ref.index, dt) not in self._constants:
            node = self.graph.nodes[ref.index]
            if not isinstance(node, ConstantNode):
                raise TypeError(f"compile_graph: {ref} names nodes[{ref.index}], not a ConstantNode")
            host = np.frombuffer(node.data, dtype=np.uint8)
            host = np.concatenate([host, np.zeros(-host.size % dt.itemsize, np.uint8)]).view(dt)
            backend = self._backend
            buf = _aligned_empty(backend, host.size, dt, self._constant_alignment(ref.index))
            buf[...] = backend.to_device(host.copy())
            (self._constants[(ref.index, dt)],) = backend.unwrap([buf])
        return self._constants[(ref.index, dt)]

    def _constant_alignment(self, node: int) -> int:
        """The largest ``guaranteed_base_offset_alignment`` of the tensors constant node ``node`` feeds (each reads
        it through its own descriptor)."""
        align = 0
        for n, srcs in zip(self.graph.nodes, self.graph.sources, strict=True):
            for t, src in zip(n.inputs, srcs, strict=True):
                if t is not None and src is not None and src.node == node:
                    align = max(align, t.guaranteed_base_offset_alignment)
        return align

    def bound_tensors(self) -> tuple[tuple[TensorDesc | None, ...], tuple[TensorDesc, ...]]:
        """Each graph input's tensor (the first node input it feeds; None when it feeds none), each output's."""
        graph = self.graph
        ins = tuple(next(iter(graph.input_tensors(g)), None) for g in range(graph.input_count))
        return ins, tuple(graph.output_tensor(g) for g in range(graph.output_count))

    def _input_readers(self, k: int, t: TensorDesc) -> tuple[TensorDesc, ...]:
        """Each node input graph input ``k`` feeds (DirectML: one buffer, each reader with its own ``TensorDesc``;
        one data type and sizes, strides may differ), in an order that does not depend on the order of the graph's
        input edges; ``t`` when it feeds none."""
        tensors = set(self.graph.input_tensors(k)) or {t}
        # Packed first, then the largest buffer, then by strides: a layout every edge order agrees on.
        return tuple(
            sorted(tensors, key=lambda r: (not r.is_packed, -(r.total_tensor_size_in_bytes or 0), r.element_strides))
        )

    @property
    def kernel_count(self) -> int:
        """Kernels one ``execute`` launches: one per fused group (with the reduction it feeds or follows, on the
        CuPy path; the CPU runs a prologue, its reduction and an epilogue as a pass each), one per other node."""
        return sum(
            op.kernel_count if op is not None else getattr(run, "kernel_count", 1)
            for op, (run, _, _, _) in zip(self._ops, self._steps, strict=True)
        )

    def cost(self) -> Cost:
        """Kernel launches and device-memory bytes of one ``execute`` (``gpuops.cost``): the sum of the steps. An
        operator step costs what its compiled operator does; a fused group one kernel reading its external inputs
        and writing the values it materializes; a reduction with a fused prologue or epilogue one kernel reading
        the prologue's inputs and writing the reduction's (or the epilogue's) result."""
        total = Cost(0, 0, 0)
        for step, op in zip(self.plan.steps, self._ops, strict=True):
            if op is not None:
                total = total + op.cost()
            elif isinstance(step, FusedReduceStep):
                written = (
                    [t for _, _, t in step.epilogue.outputs] if step.epilogue is not None else step.desc.output_tensors
                )
                total = total + kernel([t for _, t in step.inputs], written)
            elif isinstance(step, FusedStep):
                total = total + kernel([t for _, t in step.inputs], [t for _, _, t in step.outputs])
        return total

    @property
    def kernel_source(self) -> str:
        """The generated source of every kernel, in launch order."""
        return "\n".join(f"// ---- step {k} ----\n{src}" for k, src in enumerate(self._sources))

    @property
    def launch_path(self) -> str:
        return "graph"

    @property
    def step_paths(self) -> tuple[str, ...]:
        """Each step's launch path, in launch order (``CompiledOperator.launch_path``'s words; a copy of a
        value into a second graph output is a step too)."""
        return tuple(
            op.launch_path if op is not None else run.launch_path
            for op, (run, _, _, _) in zip(self._ops, self._steps, strict=True)
        )

    @property
    def operator_name(self) -> str:
        return "GRAPH"

    @property
    def kernel_name(self) -> str:
        return f"graph of {len(self.graph.nodes)} nodes"

    @property
    def desc(self) -> Any:
        """The ``GraphDesc`` (a compiled graph has no single operator descriptor)."""
        return self.graph

    def execute(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Bind the graph's inputs and outputs (graph order) and run every step; ``BindingError`` before any
        write."""
        unwrap = self._backend.unwrap
        ins, outs, _ = self._binding.check(unwrap(inputs), unwrap(outputs))
        for launch in self._bind_steps(ins, outs, self._new_workspaces()):
            launch()

    def _bind_steps(
        self, ins: Sequence[Any], outs: Sequence[Any], spaces: Sequence[Any], check_all: bool = False
    ) -> list[Callable[[], Any]]:
        """The launches of every step, in order, over its buffers. Each step that runs after a graph output was
        written (each step, with ``check_all``) has its buffers checked by its operator's binding rules here, so
        that its ``BindingError`` comes before anything the caller sees is written; the other steps check theirs
        as they run. A fused kernel's buffers are the graph's (checked) or made to its layouts."""
        launches: list[Callable[[], Any]] = []
        first = 0 if check_all else self._checked_first
        for k, (op, (run, in_refs, out_refs, _)) in enumerate(zip(self._ops, self._steps, strict=True)):
            bound_in = [None if r is None else self._buffer(r, ins, outs, spaces) for r in in_refs]
            bound_out = [self._buffer(r, ins, outs, spaces) for r in out_refs]
            if op is None:
                launches.append(functools.partial(run, bound_in, bound_out, False))
            elif k < first:
                launches.append(functools.partial(op.execute, bound_in, bound_out))
            elif isinstance(op, CompiledComposite):  # its buffers, and those of each of its own steps
                c_in, c_out, _ = op._binding.check(bound_in, bound_out)
                launches.extend(op._bind_steps([c_in[j] for j in op._present], c_out, op._new_workspaces(), True))
            else:  # checked here, and again by its execute (for NumPy's small ufuncs a fast path of its own)
                op._binding.check(bound_in, bound_out)
                launches.append(functools.partial(op.execute, bound_in, bound_out))
        return launches

    def _buffer(self, ref: Any, ins: Sequence[Any], outs: Sequence[Any], spaces: Sequence[Any]) -> Any:
        if not isinstance(ref, Ref):  # a constant's device buffer
            return ref
        if ref.kind == "input":
            return ins[ref.index]
        if ref.kind == "output":
            return outs[ref.index]
        if ref.kind == "workspace":
            return spaces[ref.index]
        raise AssertionError(ref)

    def __repr__(self) -> str:
        return f"CompiledGraph({len(self.graph.nodes)} nodes, {self.kernel_count} kernels, {self.device.backend})"


class CompiledComposite(CompiledGraph):
    """A compiled composite operator (``schema.CompositeRow``: softmax, mean-variance normalization): the plan
    of its parts (``graph_plan.composite_graph``) compiled as a graph is, bound as the operator itself is."""

    def __init__(self, device: Device, operator: Operator, flags: ExecutionFlags) -> None:
        desc = operator.desc
        # One kernel where the parts run as a row program (issue 33) and the backend builds one (CuPy, the
        # emulator); the plan of parts otherwise. ``cost()`` states the CuPy path's figures on every backend.
        self.program = program = plan_row_program(desc)
        kernel = device.backend_impl.compile_row_program(program) if program is not None else None
        if program is not None and kernel is not None:
            super().__init__(device, program.graph, flags, single=(kernel, *program.refs))
        else:
            super().__init__(device, composite_graph(desc), flags)
        self.operator = operator
        self.row = desc.row
        backend = self._backend
        self._binding = BindingPlan(
            desc, self.row, backend.array_type, backend.pointer, backend.may_overlap, backend.name,
            host=backend.binds_host_memory,
        )  # fmt: skip
        self._present = tuple(k for k, t in enumerate(desc.input_tensors) if t is not None)

    def execute(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Bind buffers in the operator's tensor order (None for an absent optional input) and run the plan;
        ``BindingError`` before any write."""
        unwrap = self._backend.unwrap
        ins, outs, _ = self._binding.check(unwrap(inputs), unwrap(outputs))
        for launch in self._bind_steps([ins[k] for k in self._present], outs, self._new_workspaces()):
            launch()

    @property
    def desc(self) -> Any:
        return self.operator.desc

    def bound_tensors(self) -> tuple[tuple[TensorDesc | None, ...], tuple[TensorDesc, ...]]:
        return self.desc.input_tensors, self.desc.output_tensors

    def _input_readers(self, k: int, t: TensorDesc) -> tuple[TensorDesc, ...]:
        """Bound as the operator is: input ``k``'s buffer is read through ``t``."""
        return (t,)

    def cost(self) -> Cost:
        """The row program's one kernel (input read once, output written once) where the composite has one, else
        the sum of its plan's steps (``CompiledGraph.cost``)."""
        return self.program.cost() if self.program is not None else super().cost()

    @property
    def launch_path(self) -> str:
        return "composite"

    @property
    def operator_name(self) -> str:
        return self.row.name

    @property
    def kernel_name(self) -> str:
        return f"{self.row.name.lower()} plan of {len(self.graph.nodes)} operators"

    def __repr__(self) -> str:
        return f"CompiledComposite({self.row.name}, {self.kernel_count} kernels, {self.device.backend})"


def _aligned_empty(backend: Any, count: int, dtype: np.dtype, align: int) -> Any:
    """An uninitialized 1-D array of the backend (``count`` elements of ``dtype``) whose first element's address
    is a multiple of ``align`` (0: no promise). Every allocator aligns to the element size; a larger promise is
    kept by allocating ``align`` bytes more and starting at the first aligned byte (same memory, a view)."""
    xp = backend.xp
    if align <= dtype.itemsize:
        return xp.empty(count, dtype=dtype)
    nbytes = count * dtype.itemsize
    raw = xp.empty(nbytes + align, dtype=np.uint8)
    start = -backend.pointer(raw) % align
    return raw[start : start + nbytes].view(dtype)


def _count(t: TensorDesc) -> int:
    need = cast(int, t.total_tensor_size_in_bytes)  # TensorDesc.__post_init__ always sets it
    return max(1, math.ceil(need / t.data_type.itemsize))
