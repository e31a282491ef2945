"""How a validated ``GraphDesc`` runs: fusion groups, steps and the buffers between them (pure planning; it reads
one setting, ``GPUOPS_CUPY_ROWS_REDUCE``: whether a long reduction may take fused neighbours).

``IDMLDevice1::CompileGraph`` compiles a ``DML_GRAPH_DESC`` into one operator. gpuops plans it in three moves:

1. **Intermediate edges carry values, not memory.** An edge joins tensors of one data type and sizes whose
   strides may differ (``descriptors.graph``); the consumer reads the producer's *value*. So each consumer
   input fed by an intermediate edge is read through the producer's output layout (the descriptor is
   rewritten so), and graph inputs and constants through the consumer's own layout, as bound.
2. **Fusion.** Element-wise nodes joined by intermediate edges are merged into groups, greedily in
   topological order, unless a merge would make the group both before and after another step (a cycle
   through a reduction, or through another group: the check follows the groups, which run as one step each,
   not single nodes); such nodes stay in groups of their own. A group of two or more nodes is one kernel: each
   node computes in its compute type and rounds to its output type at the node boundary, exactly as the nodes
   run one by one, but intermediates stay in registers. A group whose one exit value only a reduction reads
   becomes the reduction's prologue (its map expression); the front of the group reading a reduction's result
   and nothing else, its epilogue (its post-map): ``FusedReduceStep``. A reduction the GPU runs in two passes
   (``reduce_plan.plan_two_pass`` on the layout it reads, rows aside: those take the split rows kernel, fused or
   not) takes neither: a fused kernel is one pass, and its sum would round in another order than the nodes' run
   one by one.
3. **Homes.** A value read outside its group (or by a non-fused node) is materialized: in the graph output it
   is (the first one, when it is several), else in a workspace buffer the compiled graph owns. A value that
   is more than one graph output is copied into the others by ``ELEMENT_WISE_IDENTITY`` steps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from descriptors import OperatorDesc, TensorDesc, desc_class
from descriptors.graph import ConstantNode, GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge, Source
from descriptors.schema import CompositeRow

from . import config
from .layout.reduce_plan import plan_columns, plan_rows, plan_two_pass

__all__ = ["FusedReduceStep", "FusedStep", "GraphPlan", "NodeStep", "Ref", "Step", "composite_graph", "plan_graph"]


@dataclasses.dataclass(frozen=True)
class Ref:
    """A run-time buffer: graph ``"input"`` / ``"output"`` ``index``, ``"constant"`` (the constant node's
    index), or ``"workspace"`` ``index``."""

    kind: str
    index: int


@dataclasses.dataclass(frozen=True)
class NodeStep:
    """One operator node run as its own compiled operator: ``desc`` (intermediate inputs rewritten to their
    producers' layouts), the buffer of each input (None where absent) and of each output."""

    node: int
    desc: OperatorDesc
    inputs: tuple[Ref | None, ...]
    outputs: tuple[Ref, ...]


@dataclasses.dataclass(frozen=True)
class FusedStep:
    """Element-wise nodes run as one kernel.

    ``nodes``: node indices in topological order, ``descs`` their (rewritten) descriptors. ``operands[k][j]``:
    where input ``j`` of ``nodes[k]`` comes from: ``("in", n)`` (external input ``n``), ``("node", m)`` (the
    value of ``nodes[m]``), or None (absent optional input). ``inputs``: (buffer, layout) of each external
    input; ``outputs``: (position in ``nodes``, buffer, layout) of each materialized value.
    """

    nodes: tuple[int, ...]
    descs: tuple[OperatorDesc, ...]
    operands: tuple[tuple[tuple[str, int] | None, ...], ...]
    inputs: tuple[tuple[Ref, TensorDesc], ...]
    outputs: tuple[tuple[int, Ref, TensorDesc], ...]


@dataclasses.dataclass(frozen=True)
class FusedReduceStep:
    """A reduction and the element-wise nodes fused into its kernel around it.

    ``prologue`` (or None): a fused group whose one output (``Ref("reduce", 0)``) is the reduction's input
    value, never stored; it becomes the reduction's map expression. ``epilogue`` (or None): a fused group whose
    one external input (``Ref("reduce", 0)``) is the reduction's result and which reads nothing else; it becomes
    the post-map, so the reduction's result is never stored either. ``desc`` is the reduction's descriptor (its
    input read through the value's layout); ``inputs`` the kernel's input buffers (the prologue's external
    inputs, else the reduction's input); ``outputs`` what the kernel writes (the epilogue's one materialized
    value, else the reduction's outputs).
    """

    prologue: FusedStep | None
    node: int
    desc: OperatorDesc
    inputs: tuple[tuple[Ref, TensorDesc], ...]
    outputs: tuple[Ref, ...]
    epilogue: FusedStep | None = None


Step = NodeStep | FusedStep | FusedReduceStep


@dataclasses.dataclass(frozen=True)
class GraphPlan:
    """The steps in run order, and the workspace buffers (layouts of the values they hold)."""

    steps: tuple[Step, ...]
    workspaces: tuple[TensorDesc, ...]

    @property
    def kernel_count(self) -> int:
        return len(self.steps)


def _readers(graph: GraphDesc) -> dict[tuple[int, int], set[int]]:
    """The nodes reading each (node, output index) value."""
    readers: dict[tuple[int, int], set[int]] = {}
    for i, srcs in enumerate(graph.sources):
        for s in srcs:
            if s is not None and s.node is not None:
                readers.setdefault((s.node, s.index), set()).add(i)
    return readers


def _is_elementwise(node: OperatorNode | ConstantNode) -> bool:
    """A node that may join a fused group: an element-wise operator (not a reduction, not a scan, whose threads
    walk whole lines, not a composite, whose plan runs as steps of its own). Not one reading the element's logical
    index (FILL_VALUE_SEQUENCE, ``ElementwiseRow.reads_index``): a fused kernel's loop (a reduction's map, the NumPy
    backend's blocks of a group) does not carry it, so such a node runs as an operator of its own, its value
    materialized."""
    if not isinstance(node, OperatorNode) or len(node.outputs) != 1:
        return False
    row = node.desc.row
    return not (row.is_reduction or row.is_composite or row.is_scan or getattr(row, "reads_index", False))


def _widens(graph: GraphDesc, i: int, k: int) -> bool:
    """Whether input ``k`` of node ``i`` reads an intermediate value at larger sizes than it has (a broadcast
    edge of a composite's plan): a value of another index, so never fused into the reader's kernel."""
    src = graph.sources[i][k]
    if src is None or src.node is None or isinstance(graph.nodes[src.node], ConstantNode):
        return False
    reader = graph.nodes[i].inputs[k]
    written = graph.nodes[src.node].outputs[src.index]
    return reader is not None and written is not None and written.sizes != reader.sizes


def _operator(graph: GraphDesc, i: int) -> OperatorNode:
    """Node ``i``, an operator node (the planner never gives a constant node a step)."""
    node = graph.nodes[i]
    if not isinstance(node, OperatorNode):
        raise TypeError(f"graph plan: nodes[{i}] is a {type(node).__name__}, not an OperatorNode")
    return node


def _node_of(src: Source) -> int:
    """The node a graph output reads (an output edge always leaves a node)."""
    if src.node is None:
        raise ValueError(f"graph plan: {src} reads a graph input, not a node output")
    return src.node


def _rewritten(graph: GraphDesc, i: int) -> OperatorDesc:
    """Node ``i``'s descriptor with each intermediate-fed input read through its producer's output layout."""
    desc = _operator(graph, i).desc
    changes = {}
    for k, (field, src) in enumerate(zip(desc.row.input_fields, graph.sources[i], strict=True)):
        producer = None if src is None or src.node is None else graph.nodes[src.node]
        read = desc.input_tensors[k]
        if src is None or not isinstance(producer, OperatorNode) or read is None:
            continue  # absent, a graph input or a constant: read through this node's own layout
        layout = producer.outputs[src.index].read_as(read.sizes)  # a broadcast edge: stride 0 where it widens
        if layout != read:
            changes[field.name] = layout
    return dataclasses.replace(desc, **changes) if changes else desc  # type: ignore[type-var]


def _groups(graph: GraphDesc) -> list[list[int]]:
    """Fusion groups (node indices in topological order); every other node is a group of one.

    Element-wise neighbours merge greedily in topological order. A group runs as one step, so the check is made
    between groups, not nodes: two groups merge unless some chain of groups leads from one to the other through a
    third (the merged step would then run both before and after that third one: a cycle), in which case they stay
    apart. The groups stay a DAG after every merge, whatever the graph."""
    n = len(graph.nodes)
    owner = list(range(n))
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    succ: dict[int, set[int]] = {i: set() for i in range(n)}  # group -> the groups reading its values
    pred: dict[int, set[int]] = {i: set() for i in range(n)}  # group -> the groups it reads
    for i, srcs in enumerate(graph.sources):
        for s in srcs:
            if s is not None and s.node is not None:
                succ[s.node].add(i)
                pred[i].add(s.node)

    def through_another(a: int, b: int) -> bool:
        """Whether a chain of groups leads from group ``a`` to group ``b`` through some third group."""
        stack = [c for c in succ[a] if c != b]
        seen = set(stack)
        while stack:
            for d in succ[stack.pop()]:
                if d == b:
                    return True
                if d not in seen:
                    seen.add(d)
                    stack.append(d)
        return False

    def merge(a: int, b: int) -> None:
        """Group ``b`` joins group ``a``."""
        for c in pred[b]:
            succ[c].discard(b)
            if c != a:
                succ[c].add(a)
        for c in succ[b]:
            pred[c].discard(b)
            if c != a:
                pred[c].add(a)
        succ[a] = (succ[a] | succ.pop(b)) - {a, b}
        pred[a] = (pred[a] | pred.pop(b)) - {a, b}
        for i in members[b]:
            owner[i] = a
        members[a] += members.pop(b)

    for i in graph.order:
        if not _is_elementwise(graph.nodes[i]):
            continue
        for k, s in enumerate(graph.sources[i]):
            if s is None or s.node is None or not _is_elementwise(graph.nodes[s.node]) or _widens(graph, i, k):
                continue
            a, b = owner[s.node], owner[i]
            if a != b and not through_another(a, b) and not through_another(b, a):
                merge(a, b)
    groups: dict[int, list[int]] = {}
    for i in graph.order:
        if not isinstance(graph.nodes[i], ConstantNode):
            groups.setdefault(owner[i], []).append(i)
    return list(groups.values())


def _with_prologues(graph: GraphDesc, groups: list[list[int]]) -> list[list[int]]:
    """Each reduction whose input is the one value an element-wise group lets out (read by the reduction only,
    not a graph output) takes that group in as its prologue: one group, the reduction last."""
    owner = {i: g for g, nodes in enumerate(groups) for i in nodes}
    readers = _readers(graph)
    outputs = {(s.node, s.index) for s in graph.outputs}
    merged: dict[int, int] = {}  # element-wise group -> the reduction's group that took it
    for g, nodes in enumerate(groups):
        if len(nodes) != 1:
            continue
        (r,) = nodes
        node = graph.nodes[r]
        if not isinstance(node, OperatorNode) or not node.desc.row.is_reduction or _splits(graph, r):
            continue
        (src,) = (s for s in graph.sources[r] if s is not None)
        if src.node is None or src.node not in owner or not _is_elementwise(graph.nodes[src.node]):
            continue
        if _widens(graph, r, 0):
            continue
        pg = owner[src.node]
        if pg in merged:
            continue
        exits = [
            (i, k)
            for i in groups[pg]
            for k in range(len(graph.nodes[i].outputs))
            if (i, k) in outputs or any(owner.get(j) != pg for j in readers.get((i, k), ()))
        ]
        if exits == [(src.node, src.index)] and readers[exits[0]] == {r} and exits[0] not in outputs:
            merged[pg] = g
    out = []
    for g, nodes in enumerate(groups):
        if g in merged:
            continue
        prologue = [i for pg, rg in merged.items() if rg == g for i in groups[pg]]
        out.append(prologue + nodes)
    return out


def _is_reduction(node: OperatorNode | ConstantNode) -> bool:
    return isinstance(node, OperatorNode) and node.desc.row.is_reduction


def _splits(graph: GraphDesc, r: int) -> bool:
    """Whether the GPU runs reduction node ``r`` in two passes (``reduce_plan.plan_two_pass`` on the layout it
    reads, unless its rows take the split rows kernel, ``reduce_plan.plan_rows``, which fused kernels run too): such
    a reduction takes in no prologue or epilogue (a fused kernel is one pass), so that the fused graph sums in the
    same order, and gives the same bits, as its nodes run one by one."""
    desc = _rewritten(graph, r)
    x, y = desc.input_tensors[0], desc.output_tensors[0]
    axes = tuple(sorted(int(a) for a in desc.axes))  # type: ignore[attr-defined]
    if x is None or plan_two_pass(x.sizes, x.element_strides, axes) is None:
        return False
    own = config.settings().own_reductions  # GPUOPS_CUPY_ROWS_REDUCE=0: CuPy's two passes for rows too
    mine = plan_rows(x.sizes, x.element_strides, y.element_strides, axes) or plan_columns(
        x.sizes, x.element_strides, y.element_strides, axes
    )
    return not own or mine is None


def _with_epilogues(graph: GraphDesc, groups: list[list[int]]) -> list[list[int]]:
    """Each reduction takes in, as its epilogue, the element-wise nodes after it that read its result and each
    other's values only: the longest such front of the one element-wise group reading its result, when the
    result is read by that front alone (not a graph output) and the front lets out one value. The rest of that
    group stays a group of its own, reading the front's value."""
    owner = {i: g for g, nodes in enumerate(groups) for i in nodes}
    readers = _readers(graph)
    outputs = {(s.node, s.index) for s in graph.outputs}
    taken: dict[int, list[int]] = {}  # the reduction's group -> its epilogue's nodes
    for g, nodes in enumerate(groups):
        r = nodes[-1]
        result = (r, 0)
        if not _is_reduction(graph.nodes[r]) or result in outputs or not readers.get(result) or _splits(graph, r):
            continue
        (e, *others) = {owner[j] for j in readers[result]}
        if others or not all(_is_elementwise(graph.nodes[i]) for i in groups[e]):
            continue
        front: list[int] = []
        values = {result}
        for i in groups[e]:
            srcs = graph.sources[i]
            if all(s is None or (s.node, s.index) in values and not _widens(graph, i, k) for k, s in enumerate(srcs)):
                front.append(i)
                values.add((i, 0))
        exits = [(i, 0) for i in front if (i, 0) in outputs or any(j not in front for j in readers.get((i, 0), ()))]
        if front and readers[result] <= set(front) and len(exits) == 1:
            taken[g] = front
    gone = {i for front in taken.values() for i in front}
    out = []
    for g, nodes in enumerate(groups):
        kept = [i for i in nodes if i not in gone] + taken.get(g, [])
        if kept:
            out.append(kept)
    return out


def _step_order(graph: GraphDesc, groups: list[list[int]]) -> list[list[int]]:
    """Groups in an order where each runs after every group it reads from (Kahn's, lowest first)."""
    owner = {i: g for g, nodes in enumerate(groups) for i in nodes}
    deps: list[set[int]] = [set() for _ in groups]
    for g, nodes in enumerate(groups):
        for i in nodes:
            for s in graph.sources[i]:
                if s is not None and s.node is not None and s.node in owner and owner[s.node] != g:
                    deps[g].add(owner[s.node])
    done: list[int] = []
    ready = sorted(g for g in range(len(groups)) if not deps[g])
    while ready:
        g = ready.pop(0)
        done.append(g)
        for h in range(len(groups)):
            if h not in done and h not in ready and deps[h] <= set(done):
                ready.append(h)
        ready.sort()
    if len(done) != len(groups):  # _groups keeps the groups a DAG: only a planner bug gets here
        stuck = [groups[g] for g in range(len(groups)) if g not in done]
        raise RuntimeError(
            f"compile_graph: the fused steps of node groups {stuck} read each other in a cycle (a gpuops planner "
            "bug: please report it with the graph; CompiledGraph(device, graph, flags, fuse=False) runs it unfused)"
        )
    return [groups[g] for g in done]


def plan_graph(graph: GraphDesc, fuse: bool = True) -> GraphPlan:
    """The :class:`GraphPlan` of a validated graph (``fuse=False``: every node a step of its own)."""
    groups = _groups(graph) if fuse else [[i] for i in graph.order if not isinstance(graph.nodes[i], ConstantNode)]
    if fuse:
        groups = _with_epilogues(graph, _with_prologues(graph, groups))
    groups = _step_order(graph, groups)
    owner = {i: g for g, nodes in enumerate(groups) for i in nodes}
    descs = {i: _rewritten(graph, i) for nodes in groups for i in nodes}

    # Where each node output is read: by which nodes, and as which graph outputs.
    readers = _readers(graph)
    graph_outputs: dict[tuple[int, int], list[int]] = {}
    for g, src in enumerate(graph.outputs):
        graph_outputs.setdefault((_node_of(src), src.index), []).append(g)

    workspaces: list[TensorDesc] = []
    home: dict[tuple[int, int], Ref] = {}
    for g, nodes in enumerate(groups):
        for i in nodes:
            for k, layout in enumerate(descs[i].output_tensors):
                key = (i, k)
                if key in graph_outputs:
                    home[key] = Ref("output", graph_outputs[key][0])
                elif len(nodes) == 1 or any(owner.get(r) != g for r in readers.get(key, ())):
                    home[key] = Ref("workspace", len(workspaces))
                    workspaces.append(layout)

    def ref_of(src: Source) -> Ref:
        if src.node is None:
            return Ref("input", src.index)
        if isinstance(graph.nodes[src.node], ConstantNode):
            return Ref("constant", src.node)
        return home[(src.node, src.index)]

    reductions = {i for nodes in groups if len(nodes) > 1 for i in nodes if _is_reduction(graph.nodes[i])}
    for r in reductions:
        if (r, 0) not in home:  # read by its epilogue only: the kernel's post-map passes it on
            home[(r, 0)] = Ref("reduce", 0)

    steps: list[Step] = []
    for nodes in groups:
        found = [i for i in nodes if i in reductions]
        if found:
            (r,) = found
            front, back = nodes[: nodes.index(r)], nodes[nodes.index(r) + 1 :]
            (src,) = (s for s in graph.sources[r] if s is not None)
            prologue: FusedStep | None = None
            epilogue: FusedStep | None = None
            if front:
                made = _node_of(src)  # a prologue's value is a node's
                prologue = _fused_step(graph, front, descs, ref_of, home)
                value = descs[made].output_tensors[src.index]
                prologue = dataclasses.replace(prologue, outputs=((front.index(made), Ref("reduce", 0), value),))
                inputs = prologue.inputs
            else:
                inputs = ((ref_of(src), _present(descs[r].input_tensors[0], r, 0)),)
            if back:
                epilogue = _fused_step(graph, back, descs, ref_of, home)
                outs = tuple(ref for _, ref, _ in epilogue.outputs)
            else:
                outs = tuple(home[(r, k)] for k in range(len(descs[r].output_tensors)))
            steps.append(FusedReduceStep(prologue, r, descs[r], inputs, outs, epilogue))
        elif len(nodes) == 1:
            (i,) = nodes
            ins = tuple(None if s is None else ref_of(s) for s in graph.sources[i])
            outs = tuple(home[(i, k)] for k in range(len(descs[i].output_tensors)))
            steps.append(NodeStep(i, descs[i], ins, outs))
        else:
            steps.append(_fused_step(graph, nodes, descs, ref_of, home))
        for i in nodes:  # a value that is several graph outputs: copies into the others
            for k, layout in enumerate(descs[i].output_tensors):
                for g in graph_outputs.get((i, k), [])[1:]:
                    copy = desc_class("ELEMENT_WISE_IDENTITY")(
                        input_tensor=layout, output_tensor=graph.output_tensor(g)
                    )
                    steps.append(NodeStep(i, copy, (home[(i, k)],), (Ref("output", g),)))
    return GraphPlan(tuple(steps), tuple(workspaces))


def _present(tensor: TensorDesc | None, i: int, k: int) -> TensorDesc:
    """Input ``k`` of node ``i``, which an edge feeds (GraphDesc: an input has an edge exactly when present)."""
    if tensor is None:
        raise ValueError(f"graph plan: input {k} of nodes[{i}] is absent but an edge feeds it")
    return tensor


def _fused_step(
    graph: GraphDesc,
    nodes: Sequence[int],
    descs: dict[int, OperatorDesc],
    ref_of: Callable[[Source], Ref],
    home: dict[tuple[int, int], Ref],
) -> FusedStep:
    position = {i: k for k, i in enumerate(nodes)}
    externals: list[tuple[Ref, TensorDesc]] = []
    operands: list[tuple[tuple[str, int] | None, ...]] = []
    for i in nodes:
        row: list[tuple[str, int] | None] = []
        for j, s in enumerate(graph.sources[i]):
            if s is None:
                row.append(None)
            elif s.node is not None and s.node in position:
                row.append(("node", position[s.node]))
            else:
                ext = (ref_of(s), _present(descs[i].input_tensors[j], i, j))
                if ext not in externals:
                    externals.append(ext)
                row.append(("in", externals.index(ext)))
        operands.append(tuple(row))
    outputs = tuple((k, home[(i, 0)], descs[i].output_tensors[0]) for k, i in enumerate(nodes) if (i, 0) in home)
    return FusedStep(tuple(nodes), tuple(descs[i] for i in nodes), tuple(operands), tuple(externals), outputs)


def composite_graph(desc: OperatorDesc) -> GraphDesc:
    """The graph of a composite operator's parts (``CompositeRow.decompose``): graph input ``g`` is the
    descriptor's ``g``-th present input tensor, the one graph output the last part's output; intermediate edges
    may broadcast (``GraphDesc.broadcast_edges``)."""
    row = desc.row
    if not isinstance(row, CompositeRow):
        raise TypeError(f"composite_graph: {row.name} is not a composite operator (CompositeRow)")
    parts = row.decompose(desc)
    present = [k for k, t in enumerate(desc.input_tensors) if t is not None]
    graph_input = {k: g for g, k in enumerate(present)}
    input_edges: list[InputEdge] = []
    inter_edges: list[IntermediateEdge] = []
    for i, part in enumerate(parts):
        for slot, read in enumerate(part.reads):
            if read is None:
                continue
            kind, index = read
            if kind == "input":
                input_edges.append(InputEdge(graph_input[index], i, slot))
            else:
                inter_edges.append(IntermediateEdge(index, 0, i, slot))
    nodes = tuple(OperatorNode(part.desc) for part in parts)
    output = (OutputEdge(len(parts) - 1, 0, 0),)
    return GraphDesc(len(present), 1, nodes, tuple(input_edges), output, tuple(inter_edges), broadcast_edges=True)
