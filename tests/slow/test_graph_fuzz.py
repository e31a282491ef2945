"""Graph fuzzer (issue 34): random graphs of what users build with ``GraphBuilder``, compiled and checked.

Each graph (6 to 14 operator nodes, seeded: ``draw_graph(seed)`` replays one) mixes what users write and what the
older random-DAG test never drew (it combined values of equal sizes only, so reduction results only reached its
leaves): reductions over size-1 axes and over other axes whose results feed element-wise nodes, values read by
several nodes, several graph outputs (a value may be two of them), constants (arrays and numbers), inputs read
through zero strides (broadcast) or padded strides, float16 and float32 with casts between them.

Every graph is checked three ways: its plan (each step reads only graph inputs, constants and values earlier steps
wrote; every graph output is written), its compiled run against the nodes run one by one (bit for bit: the
planner's promise, README "Graphs" and tests/graphs/test_graph_compile.py), and against a float64 evaluation of the
operators' definitions with an error bound carried node by node (each node's rounding to its output type, its
float32 compute rounding, a few float32 ulps for sigmoid and tanh, the inputs' error through the operator).
Elements whose bound nears the output type's overflow threshold are checked against the nodes one by one only.
Outputs start as NaN, so an element no step writes shows.

Counts: ``GPUOPS_GRAPH_FUZZ_GRAPHS`` (default 2000 on NumPy, 50 on the CUDA emulator, 300 on a GPU);
``GPUOPS_GRAPH_FUZZ_SEED`` shifts the seeds (default 0: the same graphs every run).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, to_backend, to_host
from test_graph_compile import node_by_node

import gpuops
from descriptors import DataType, GraphDesc, ReduceFunction, ScaleBias, TensorDesc, desc_class
from descriptors.graph import ConstantNode
from gpuops.graph_builder import GraphBuilder, Value
from gpuops.graph_plan import FusedReduceStep, FusedStep, GraphPlan, NodeStep, Ref

F32, F16 = DataType.FLOAT32, DataType.FLOAT16
GRID = np.arange(-32, 33, dtype=np.float64) / 8  # exact in float16: products of a few stay far from overflow
NUMBERS = (0.5, -1.25, 2.0, 3.0, 0.1, -0.0)  # 0.1 is rounded once to the operand's type (GraphBuilder's rule)
FUNCTIONS = (
    ReduceFunction.SUM, ReduceFunction.SUM_SQUARE, ReduceFunction.MAX, ReduceFunction.MIN, ReduceFunction.AVERAGE,
    ReduceFunction.L1,
)  # fmt: skip
DEFAULT_GRAPHS = {"numpy": 2000, "emulator": 50, "cupy": 300}


@dataclasses.dataclass
class Drawn:
    """One drawn graph: the graph, a buffer per graph input (laid out as its tensor), what was drawn (text)."""

    seed: int
    graph: GraphDesc
    inputs: list[np.ndarray]
    recipe: list[str]


def draw_graph(seed: int) -> Drawn:
    """The graph of ``seed``: leaves first (1 to 3 inputs, some broadcast or padded, 0 to 2 array constants), then
    6 to 14 operator nodes, each reading earlier values (nodes preferred, unread ones most), then the outputs:
    every unread node, some read ones, now and then one value twice."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    base = tuple(int(rng.choice([1, 1, 2, 3, 4, 5, 7])) for _ in range(int(rng.integers(1, 4))))
    keep = rng.random() < 0.4  # reductions that keep the sizes: their results meet the values they came from
    if keep and 1 not in base:
        base = (*base[:-1], 1) if len(base) == 3 else (*base, 1)
    dt0 = F16 if rng.random() < 0.3 else F32
    values: list[Value] = []
    names: dict[int, str] = {}
    reads: dict[int, int] = {}  # id(Value) -> how many nodes read it
    use: dict[int, tuple[int, ...]] = {}  # graph input -> the sizes its readers read it at (one per input)
    inputs: list[np.ndarray] = []
    recipe = [f"seed {seed}: base sizes {base}, {dt0.name}" + (", reductions keep the sizes" if keep else "")]

    def add(v: Value, text: str) -> Value:
        names[id(v)] = f"v{len(values)}"
        values.append(v)
        recipe.append(f"{names[id(v)]} = {text}: {v.data_type.name} {v.sizes}")
        return v

    def smaller() -> tuple[int, ...]:
        """Sizes that broadcast to ``base``: some axes 1, sometimes the leading axis dropped."""
        sizes = [1 if rng.random() < 0.4 else s for s in base]
        if len(sizes) > 1 and rng.random() < 0.3:
            sizes = sizes[1:]
        return tuple(sizes)

    for _ in range(int(rng.integers(1, 4))):
        kind = rng.random()
        if kind < 0.4:
            t = TensorDesc(dt0, smaller())
        elif kind < 0.55 and base[-1] > 1:  # padded rows: read at its own sizes only
            t = TensorDesc(dt0, base, (*TensorDesc(dt0, base[:-1] + (base[-1] + 2,)).element_strides[:-1], 1))
        else:
            t = TensorDesc(dt0, base)
        inputs.append(buffer_for(t, rng.choice(GRID, size=t.sizes).astype(dt0.numpy_dtype)))
        add(b.input(t), f"input {len(inputs) - 1} (strides {t.strides})")
    for _ in range(int(rng.integers(0, 3))):
        data = rng.choice(GRID, size=smaller()).astype(dt0.numpy_dtype)
        add(b.constant(data), "constant")

    def fits(v: Value, sizes: tuple[int, ...]) -> bool:
        """Whether ``v`` may be read at ``sizes``: a node's value at its own sizes only (intermediate edges do
        not broadcast); a graph input at the one sizes all its readers use; a packed leaf broadcast."""
        if v.kind == "node" or not v.tensor.is_packed:
            return v.sizes == sizes
        if v.kind == "input" and use.get(v.index, sizes) != sizes:
            return False
        try:
            return np.broadcast_shapes(v.sizes, sizes) == sizes
        except ValueError:
            return False

    def pick(cands: list[Value]) -> Value:
        weights = np.array([1.0 if v.kind != "node" else 4.0 if not reads.get(id(v)) else 2.5 for v in cands])
        return cands[int(rng.choice(len(cands), p=weights / weights.sum()))]

    def read(sizes: tuple[int, ...], *vs: Value) -> None:
        for v in vs:
            reads[id(v)] = reads.get(id(v), 0) + 1
            if v.kind == "input":
                use.setdefault(v.index, sizes)

    nodes = int(rng.integers(6, 15))
    made = 0
    while made < nodes:
        a = pick([v for v in values if v.kind != "input" or fits(v, v.sizes)])
        dt = a.data_type  # output_type= given: GraphBuilder's search of the dtype tables takes ~10 ms a node
        choice = rng.random()
        if choice < 0.55:  # binary element-wise: the other operand any value that broadcasts with a, or a number
            op = str(rng.choice(["add", "subtract", "multiply", "max", "min", "add1"]))
            if rng.random() < 0.25 and op != "add1":
                number = float(rng.choice(NUMBERS))
                if op == "subtract" and rng.random() < 0.2:  # the operator, as users write it (a constant of dt)
                    v, text = number - a, f"{number!r} - {names[id(a)]}"
                else:
                    v, text = (
                        getattr(b, op)(a, b.constant(number, dt), output_type=dt),
                        f"{op}({names[id(a)]}, {number!r})",
                    )
                read(a.sizes, a)
                add(v, text)
                made += 1
                continue
            others = [values[k] for k in rng.permutation(len(values)) if values[k].data_type is dt]
            if rng.random() < 0.7:  # another node's value of a's sizes first: diamonds, reductions meeting inputs
                others.sort(key=lambda v: not (v.kind == "node" and v.sizes == a.sizes))
            for c in others:
                try:
                    sizes = tuple(int(s) for s in np.broadcast_shapes(a.sizes, c.sizes))
                except ValueError:
                    continue
                if fits(a, sizes) and fits(c, sizes):
                    break
            else:
                continue
            x, y = (a, c) if rng.random() < 0.5 else (c, a)
            if op == "add1":
                v = b.add1(x, y, fused_activation=desc_class("ACTIVATION_RELU")(None, None), output_type=dt)
            else:
                v = getattr(b, op)(x, y, output_type=dt)
            read(sizes, x, y)
            add(v, f"{op}({names[id(x)]}, {names[id(y)]})")
        elif choice < 0.75:  # unary element-wise (or a cast to the other float type), at the operand's sizes
            op = str(rng.choice(["relu", "sigmoid", "tanh", "abs", "negate", "identity", "clip", "cast"]))
            if op == "identity":
                sb = ScaleBias(float(rng.choice([0.5, -1.25, 3.0])), float(rng.choice([0.0, 1.5, -0.75])))
                v = b.identity(a, scale_bias=sb, output_type=dt)
            elif op == "clip":
                v = b.clip(a, min=-1.5, max=2.0, output_type=dt)
            elif op == "cast":
                v = b.cast(a, output_type=F32 if dt is F16 else F16)
            else:
                v = getattr(b, op)(a, output_type=dt)
            read(a.sizes, a)
            add(v, f"{op}({names[id(a)]})")
        else:  # a reduction: over size-1 axes alone (often) when there are some, else over 1 to all axes
            sizes = a.sizes
            ones = [d for d, s in enumerate(sizes) if s == 1]
            if ones and rng.random() < (0.9 if keep else 0.5):
                axes = tuple(sorted(rng.choice(ones, size=int(rng.integers(1, len(ones) + 1)), replace=False)))
            else:
                k = int(rng.integers(1, len(sizes) + 1))
                axes = tuple(sorted(rng.choice(len(sizes), size=k, replace=False)))
            fn = FUNCTIONS[int(rng.integers(len(FUNCTIONS)))]
            axes = tuple(int(d) for d in axes)
            v = b.reduce(a, function=fn, axes=axes, output_type=dt)
            read(a.sizes, a)
            add(v, f"reduce {fn.name} over {axes} of {names[id(a)]}")
        made += 1
    node_values = [v for v in values if v.kind == "node"]
    outputs = [v for v in node_values if not reads.get(id(v))]
    outputs += [v for v in node_values if reads.get(id(v)) and rng.random() < 0.25]
    if rng.random() < 0.15:
        outputs.append(outputs[int(rng.integers(len(outputs)))])  # one value, two graph outputs
    order = rng.permutation(len(outputs))
    outputs = [outputs[k] for k in order]
    recipe.append("outputs: " + ", ".join(names[id(v)] for v in outputs))
    return Drawn(seed, b.build(outputs), inputs, recipe)


# ---------------------------------------------------------------------------------------------- float64 reference

_U = {F32: 2.0**-24, F16: 2.0**-11}  # unit roundoff of the output type
_TINY = {F32: 2.0**-126, F16: 2.0**-24}  # below: subnormal rounding, or a float32 flush to zero
_UC = 2.0**-24  # float32 compute (float16 nodes compute in float32)
_ULPS = 8  # sigmoid and tanh: a few float32 ulps (IEEE does not round them correctly)


@dataclasses.dataclass
class Approx:
    """A float64 value, a bound on how far a correct run's value may be from it, and where that bound nears the
    output type's overflow (those elements are left to the node-by-node comparison)."""

    v: np.ndarray
    e: np.ndarray
    wild: np.ndarray


def _reduced(x: Approx, fn: ReduceFunction, axes: tuple[int, ...], u: float) -> tuple[np.ndarray, np.ndarray]:
    a, e = x.v, x.e
    n = int(np.prod([a.shape[d] for d in axes]))
    s = dict(axis=axes, keepdims=True)
    mag = np.abs(a) + e
    if fn is ReduceFunction.SUM:
        return a.sum(**s), e.sum(**s) + n * u * mag.sum(**s)
    if fn is ReduceFunction.AVERAGE:
        return a.mean(**s), (e.sum(**s) + n * u * mag.sum(**s)) / n
    if fn is ReduceFunction.L1:
        return np.abs(a).sum(**s), e.sum(**s) + n * u * mag.sum(**s)
    if fn is ReduceFunction.SUM_SQUARE:
        return (a * a).sum(**s), (2 * np.abs(a) * e + e * e).sum(**s) + n * u * (mag * mag).sum(**s)
    if fn is ReduceFunction.MAX:
        return a.max(**s), e.max(**s)
    if fn is ReduceFunction.MIN:
        return a.min(**s), e.max(**s)
    raise NotImplementedError(fn)


def reference64(graph: GraphDesc, inputs: list[np.ndarray]) -> list[Approx]:
    """Each graph output by the operators' definitions in float64 (graph inputs and constants read through each
    reader's own tensor, an intermediate edge carrying its producer's value), with its error bound."""
    vals: dict[tuple[int, int], Approx] = {}
    for i in graph.order:
        node = graph.nodes[i]
        if isinstance(node, ConstantNode):
            continue
        desc = node.desc
        args: list[Approx] = []
        for t, src in zip(node.inputs, graph.sources[i], strict=True):
            if t is None or src is None:
                continue
            if src.node is None:
                x = read_tensor(inputs[src.index], t)
            elif isinstance(graph.nodes[src.node], ConstantNode):
                x = read_tensor(np.frombuffer(graph.nodes[src.node].data, t.data_type.numpy_dtype), t)
            else:
                args.append(vals[(src.node, src.index)])
                continue
            x = x.astype(np.float64)
            args.append(Approx(x, np.zeros_like(x), np.zeros(x.shape, bool)))
        out = desc.output_tensors[0]
        u = _U[out.data_type]
        name = desc.row.name
        if name == "REDUCE":
            (x,) = args
            v, e = _reduced(x, ReduceFunction(desc.function), tuple(desc.axes), u)
            wild = x.wild.any(axis=tuple(desc.axes), keepdims=True)
        else:
            wild = np.zeros(out.sizes, bool)
            for x in args:
                wild = wild | x.wild
            a = args[0]
            if len(args) == 2:
                c = args[1]
                if name in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_ADD1"):
                    v, e = a.v + c.v, a.e + c.e
                    if name == "ELEMENT_WISE_ADD1":  # fused RELU
                        v = np.maximum(v, 0)
                elif name == "ELEMENT_WISE_SUBTRACT":
                    v, e = a.v - c.v, a.e + c.e
                elif name == "ELEMENT_WISE_MULTIPLY":
                    v, e = a.v * c.v, np.abs(a.v) * c.e + np.abs(c.v) * a.e + a.e * c.e
                elif name in ("ELEMENT_WISE_MAX", "ELEMENT_WISE_MIN"):
                    v = (np.maximum if name == "ELEMENT_WISE_MAX" else np.minimum)(a.v, c.v)
                    e = np.maximum(a.e, c.e)
                else:
                    raise NotImplementedError(name)
            elif name == "ACTIVATION_RELU":
                v, e = np.maximum(a.v, 0), a.e
            elif name == "ACTIVATION_SIGMOID":
                v = 1 / (1 + np.exp(-a.v))
                e = a.e / 4 + _ULPS * _UC * v
            elif name == "ELEMENT_WISE_TANH":
                v = np.tanh(a.v)
                e = a.e + _ULPS * _UC * np.abs(v)
            elif name == "ELEMENT_WISE_ABS":
                v, e = np.abs(a.v), a.e
            elif name == "ELEMENT_WISE_NEGATE":
                v, e = -a.v, a.e
            elif name == "ELEMENT_WISE_IDENTITY":
                sb = desc.scale_bias or ScaleBias(1.0, 0.0)
                v = a.v * sb.scale + sb.bias
                e = abs(sb.scale) * a.e + 2 * _UC * (abs(sb.scale) * (np.abs(a.v) + a.e) + np.abs(v))
            elif name == "ELEMENT_WISE_CLIP":
                v, e = np.clip(a.v, desc.min, desc.max), a.e
            elif name == "CAST":
                v, e = a.v.copy(), a.e
            else:
                raise NotImplementedError(name)
        e = e + (u + _UC) * (np.abs(v) + e) + _TINY[out.data_type]  # the compute's rounding and the output's
        top = float(np.finfo(out.data_type.numpy_dtype).max)
        vals[(i, 0)] = Approx(v, e, wild | (np.abs(v) + e > top / 4))
    return [vals[(s.node, s.index)] for s in graph.outputs]  # type: ignore[index]


# ---------------------------------------------------------------------------------------------- checks


def plan_problems(graph: GraphDesc, plan: GraphPlan) -> list[str]:
    """What is wrong with ``plan``: a step reading a workspace or graph output no earlier step wrote, a graph
    output no step writes."""
    problems = []
    written: set[Ref] = set()
    for k, step in enumerate(plan.steps):
        if isinstance(step, NodeStep):
            reads = [r for r in step.inputs if r is not None]
            writes = list(step.outputs)
        elif isinstance(step, FusedReduceStep):
            reads, writes = [r for r, _ in step.inputs], list(step.outputs)
        elif isinstance(step, FusedStep):
            reads, writes = [r for r, _ in step.inputs], [r for _, r, _ in step.outputs]
        else:
            raise TypeError(step)
        for r in reads:
            if r.kind in ("workspace", "output") and r not in written:
                problems.append(f"step {k} reads {r}, which no earlier step wrote")
        written.update(writes)
    for g in range(graph.output_count):
        if Ref("output", g) not in written:
            problems.append(f"no step writes graph output {g}")
    return problems


def _mismatch(got: np.ndarray, want: np.ndarray, t: TensorDesc) -> str | None:
    g, w = read_tensor(got, t), read_tensor(want, t)
    same = (g == w) & (np.signbit(g) == np.signbit(w)) | (np.isnan(g) & np.isnan(w))
    if same.all():
        return None
    bad = np.flatnonzero(~same)
    return f"at {bad[:6].tolist()}: got {g.ravel()[bad[:4]].tolist()}, one by one {w.ravel()[bad[:4]].tolist()}"


def check(device: gpuops.Device, xp: Any, drawn: Drawn) -> list[str]:
    """Everything wrong with one drawn graph on ``device`` (empty: all good)."""
    graph = drawn.graph
    try:
        compiled = device.compile_graph(graph)
        problems = plan_problems(graph, compiled.plan)  # type: ignore[attr-defined]
        outs = []
        for g in range(graph.output_count):
            t = graph.output_tensor(g)
            outs.append(to_backend(xp, buffer_for(t, np.full(t.sizes, np.nan), fill=np.nan)))
        compiled.execute([to_backend(xp, a) for a in drawn.inputs], outs)
    except Exception as exc:
        return [f"planning, compiling or running raised {type(exc).__name__}: {exc}"]
    got = [to_host(o) for o in outs]
    if compiled.kernel_count < 1:
        problems.append(f"kernel_count is {compiled.kernel_count}")
    want = node_by_node(device, xp, graph, drawn.inputs)
    for g, (a, w, ref) in enumerate(zip(got, want, reference64(graph, drawn.inputs), strict=True)):
        t = graph.output_tensor(g)
        diff = _mismatch(a, w, t)
        if diff:
            problems.append(f"output {g} differs from the nodes run one by one {diff}")
        v = read_tensor(a, t).astype(np.float64)
        ok = ref.wild | (np.abs(v - ref.v) <= 2 * ref.e)
        if not ok.all():
            at = np.flatnonzero(~ok)[:4]
            problems.append(
                f"output {g} off the float64 reference at {at.tolist()}: got {v.ravel()[at].tolist()}, want "
                f"{ref.v.ravel()[at].tolist()} within {(2 * ref.e).ravel()[at].tolist()}"
            )
    return problems


CHUNKS = 4  # the seeds in four tests, so that pytest-xdist spreads them over the cores


def fuzz(device: gpuops.Device, xp: Any, chunk: int) -> None:
    """Draw and check every ``CHUNKS``-th graph of the backend's count, from ``chunk``; report every failing seed
    (each replays alone: ``check(device, xp, draw_graph(seed))``)."""
    count = int(os.environ.get("GPUOPS_GRAPH_FUZZ_GRAPHS", DEFAULT_GRAPHS.get(device.backend, 50)))
    first = int(os.environ.get("GPUOPS_GRAPH_FUZZ_SEED", "0"))
    seeds = range(first + chunk, first + count, CHUNKS)
    failures = []
    for seed in seeds:
        drawn = draw_graph(seed)
        problems = check(device, xp, drawn)
        if problems:
            failures.append("\n  ".join([*drawn.recipe, *problems]))
    shown = "\n".join(failures[:5])
    assert not failures, f"{len(failures)} of {len(seeds)} graphs failed on {device.backend}:\n{shown}"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_user_graphs(chunk: int, device: gpuops.Device, xp: Any) -> None:
    """The fuzzer on every backend: thousands of graphs on NumPy, a sample on the CUDA emulator. Every graph is
    checked before the test fails, so the emulator's dry run (tests/conftest.py) meets every kernel they need and
    builds them in one batch."""
    fuzz(device, xp, chunk)


def test_the_draws_cover_what_users_build() -> None:
    """The first 300 seeds draw what the fuzzer is for: reductions over size-1 axes and over longer ones whose
    results feed element-wise nodes, values read by several nodes, several outputs, one value as two outputs,
    constants, broadcast and padded inputs, both float types and casts (so a change to ``draw_graph`` cannot
    quietly stop drawing them)."""
    seen: dict[str, int] = {}

    def saw(what: str) -> None:
        seen[what] = seen.get(what, 0) + 1

    for seed in range(300):
        graph = draw_graph(seed).graph
        readers: dict[tuple[int, int], int] = {}
        for srcs in graph.sources:
            for s in srcs:
                if s is not None and s.node is not None:
                    readers[(s.node, s.index)] = readers.get((s.node, s.index), 0) + 1
        for i, node in enumerate(graph.nodes):
            if isinstance(node, ConstantNode):
                saw("constant")
                continue
            name = node.desc.row.name
            saw(name)
            if name == "REDUCE":
                t = node.inputs[0]
                ones = all(t.sizes[d] == 1 for d in node.desc.axes)  # type: ignore[union-attr]
                fed = any(
                    s is not None and s.node == i
                    for j, srcs in enumerate(graph.sources)
                    if not isinstance(graph.nodes[j], ConstantNode) and graph.nodes[j].desc.row.name != "REDUCE"
                    for s in srcs
                )
                saw(f"reduce over {'size-1' if ones else 'longer'} axes feeding an element-wise node" if fed else "-")
            if readers.get((i, 0), 0) >= 2:
                saw("value read by several nodes")
            for t in node.inputs:
                if t is not None and 0 in t.element_strides and t.element_count > 1:
                    saw("broadcast read")
                if t is not None and not t.is_packed and 0 not in t.element_strides:
                    saw("padded input")
        if graph.output_count >= 2:
            saw("several outputs")
        if len(set(graph.outputs)) < graph.output_count:
            saw("a value as two outputs")
        if {n.desc.output_tensors[0].data_type for n in graph.nodes if not isinstance(n, ConstantNode)} == {F16}:
            saw("float16 graph")
    wanted = [
        "reduce over size-1 axes feeding an element-wise node", "reduce over longer axes feeding an element-wise node",
        "value read by several nodes", "several outputs", "a value as two outputs", "constant", "broadcast read",
        "padded input", "float16 graph", "CAST", "ELEMENT_WISE_ADD1", "ELEMENT_WISE_CLIP", "ACTIVATION_SIGMOID",
    ]  # fmt: skip
    assert all(seen.get(w, 0) >= 10 for w in wanted), {w: seen.get(w, 0) for w in wanted}
