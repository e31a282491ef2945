"""``Device.compile_graph`` (issue 16): random DAGs of element-wise and reduction nodes, compiled (element-wise
groups fused into one kernel each), run on every backend and compared with the same nodes run one by one;
fused-kernel counts; constants, repeated outputs, strides that differ across an edge; binding errors.

The node-by-node reference below is the graph's meaning as DirectML states it: each node runs as its own
operator; a graph input or constant is read through the consumer's tensor descriptor, an intermediate edge
carries the producer's value (its sizes; the consumer reads it through the producer's layout, strides may
differ). A fused kernel rounds every node's result to the node's output type, so the two agree bit for bit
(NaN payloads aside).
"""

from __future__ import annotations

import dataclasses
import zlib
from typing import Any

import numpy as np
import pytest
from helpers import buffer_elements, buffer_for, checks_after_runs, read_tensor, to_backend, to_host

import gpuops
from descriptors import (
    DataType,
    DescriptorError,
    ExecutionFlags,
    FeatureLevel,
    ReduceFunction,
    ScaleBias,
    TensorDesc,
    desc_class,
)
from descriptors.graph import ConstantNode, GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge
from gpuops import config

F32, F16 = DataType.FLOAT32, DataType.FLOAT16

ADD, MUL, SUB, MAX = (desc_class(n) for n in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_SUBTRACT",
                                               "ELEMENT_WISE_MAX"))  # fmt: skip
ADD1, IDENTITY, RELU, SIGMOID = (desc_class(n) for n in ("ELEMENT_WISE_ADD1", "ELEMENT_WISE_IDENTITY",
                                                         "ACTIVATION_RELU", "ACTIVATION_SIGMOID"))  # fmt: skip
REDUCE = desc_class("REDUCE")
SQRT, IS_NAN, CAST = desc_class("ELEMENT_WISE_SQRT"), desc_class("ELEMENT_WISE_IS_NAN"), desc_class("CAST")


# ---------------------------------------------------------------------------------------------- reference


def node_by_node(device: gpuops.Device, xp: Any, graph: GraphDesc, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Each node as its own compiled operator, in topological order; the graph outputs' buffers (host)."""
    values: dict[tuple[int, int], tuple[Any, TensorDesc]] = {}
    for i in graph.order:
        node = graph.nodes[i]
        if isinstance(node, ConstantNode):
            continue
        desc = node.desc
        bufs, changes = [], {}
        for k, (field, src) in enumerate(zip(desc.row.input_fields, graph.sources[i], strict=True)):
            if src is None:
                bufs.append(None)
            elif src.node is None:
                bufs.append(to_backend(xp, inputs[src.index]))
            elif isinstance(graph.nodes[src.node], ConstantNode):
                t = desc.input_tensors[k]
                data = graph.nodes[src.node].data  # type: ignore[union-attr]
                bufs.append(to_backend(xp, np.frombuffer(data, t.data_type.numpy_dtype).copy()))
            else:
                buf, layout = values[(src.node, src.index)]
                bufs.append(buf)
                changes[field.name] = layout  # the producer's value, read through its layout
        desc = dataclasses.replace(desc, **changes)
        outs = [to_backend(xp, buffer_for(t, np.zeros(t.sizes), fill=0)) for t in desc.output_tensors]
        device.compile_operator(device.create_operator(desc)).execute(bufs, outs)
        for k, (buf, t) in enumerate(zip(outs, desc.output_tensors, strict=True)):
            values[(i, k)] = (buf, t)
    return [to_host(values[(s.node, s.index)][0]) for s in graph.outputs]  # type: ignore[index]


def run_compiled(
    device: gpuops.Device, xp: Any, graph: GraphDesc, inputs: list[np.ndarray]
) -> tuple[list[np.ndarray], gpuops.CompiledOperator]:
    compiled = device.compile_graph(graph)
    outs = []
    for g in range(graph.output_count):
        t = graph.output_tensor(g)
        outs.append(to_backend(xp, buffer_for(t, np.zeros(t.sizes), fill=0)))
    compiled.execute([to_backend(xp, a) for a in inputs], outs)
    return [to_host(o) for o in outs], compiled


def assert_same(got: np.ndarray, want: np.ndarray, t: TensorDesc, what: str) -> None:
    g, w = read_tensor(got, t), read_tensor(want, t)
    assert g.dtype == w.dtype
    same = (g == w) & (np.signbit(g) == np.signbit(w)) | (np.isnan(g) & np.isnan(w))
    assert same.all(), f"{what}: {np.flatnonzero(~same)[:8]} got {g[~same][:4]} want {w[~same][:4]}"


# ---------------------------------------------------------------------------------------------- random DAGs


@dataclasses.dataclass
class Builder:
    """A random graph under construction: values are (source, TensorDesc) where source is ("in", g) or
    ("node", i); each node's inputs come from earlier values of the same sizes and data type."""

    rng: np.random.Generator
    dt: DataType
    nodes: list[OperatorNode] = dataclasses.field(default_factory=list)
    values: list[tuple[tuple[str, int], TensorDesc]] = dataclasses.field(default_factory=list)
    input_edges: list[InputEdge] = dataclasses.field(default_factory=list)
    inter_edges: list[IntermediateEdge] = dataclasses.field(default_factory=list)
    input_count: int = 0
    used: set[tuple[str, int]] = dataclasses.field(default_factory=set)

    def add_input(self, t: TensorDesc) -> None:
        self.values.append((("in", self.input_count), t))
        self.input_count += 1

    def pick(self, sizes: tuple[int, ...] | None = None) -> tuple[tuple[str, int], TensorDesc] | None:
        cands = [v for v in self.values if sizes is None or v[1].sizes == sizes]
        return cands[int(self.rng.integers(len(cands)))] if cands else None

    def node(self, desc: Any, sources: list[tuple[str, int]]) -> None:
        i = len(self.nodes)
        self.nodes.append(OperatorNode(desc))
        for slot, src in enumerate(sources):
            self.used.add(src)
            if src[0] == "in":
                self.input_edges.append(InputEdge(src[1], i, slot))
            else:
                self.inter_edges.append(IntermediateEdge(src[1], 0, i, slot))
        self.values.append((("node", i), desc.output_tensors[0]))

    def step(self) -> None:
        src, t = self.pick()  # type: ignore[misc]
        out = TensorDesc(self.dt, t.sizes)
        # A consumer may read an intermediate through other strides (here: any layout of the same sizes).
        kind = int(self.rng.integers(7))
        if kind == 0:
            self.node(RELU(input_tensor=t, output_tensor=out), [src])
        elif kind == 1:
            sb = ScaleBias(float(self.rng.choice([0.5, -1.25, 3.0])), float(self.rng.choice([0.0, 1.5, -0.75])))
            self.node(IDENTITY(input_tensor=t, output_tensor=out, scale_bias=sb), [src])
        elif kind == 2:
            self.node(SIGMOID(input_tensor=t, output_tensor=out), [src])
        elif kind in (3, 4, 5):
            src2, t2 = self.pick(t.sizes)  # type: ignore[misc]
            cls = [ADD, MUL, SUB, MAX][int(self.rng.integers(4))]
            if kind == 5:
                self.node(ADD1(t, t2, out, fused_activation=RELU(None, None)), [src, src2])
            else:
                self.node(cls(a_tensor=t, b_tensor=t2, output_tensor=out), [src, src2])
        else:
            # Half the time the newest unread node value: a chain ending in a reduction (a fused prologue).
            fresh = [v for v in self.values if v[0][0] == "node" and v[0] not in self.used]
            if fresh and self.rng.random() < 0.5:
                src, t = fresh[-1]
            axis = int(self.rng.integers(len(t.sizes)))
            red = tuple(1 if d == axis else s for d, s in enumerate(t.sizes))
            fn = [ReduceFunction.SUM, ReduceFunction.MAX, ReduceFunction.SUM_SQUARE][int(self.rng.integers(3))]
            self.node(REDUCE(fn, t, TensorDesc(self.dt, red), axes=(axis,)), [src])

    def graph(self) -> GraphDesc:
        outputs = [v for v in self.values if v[0][0] == "node" and v[0] not in self.used]
        extra = [v for v in self.values if v[0][0] == "node" and v not in outputs and self.rng.random() < 0.3]
        output_edges = [OutputEdge(src[1], 0, g) for g, (src, _) in enumerate(outputs + extra)]
        return GraphDesc(
            self.input_count, len(output_edges), self.nodes, self.input_edges, output_edges, self.inter_edges
        )


SHAPES = [(7,), (3, 5), (2, 3, 4), (130, 257)]


def random_graph(seed: int) -> tuple[GraphDesc, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    dt = [F32, F32, F16][int(rng.integers(3))]
    sizes = SHAPES[int(rng.integers(len(SHAPES)))]
    b = Builder(rng, dt)
    for _ in range(int(rng.integers(1, 4))):
        strides = None
        if len(sizes) >= 2 and rng.random() < 0.3:  # a row broadcast: stride 0 on the first axis
            strides = (0, *TensorDesc(dt, sizes[1:]).element_strides)
        b.add_input(TensorDesc(dt, sizes, strides))
    for _ in range(int(rng.integers(1, 8))):
        b.step()
    graph = b.graph()
    inputs = []
    for g in range(graph.input_count):
        ts = graph.input_tensors(g)
        t = ts[0] if ts else TensorDesc(dt, sizes)
        values = rng.standard_normal(t.sizes) * 2
        if t.element_strides[0] == 0:
            values = np.broadcast_to(values[:1], t.sizes)
        inputs.append(buffer_for(t, values.astype(dt.numpy_dtype)))
    return graph, inputs


# Fixed seeds, one test each (tests/slow/test_graph_fuzz.py draws thousands of random graphs): the emulator's dry run
# meets every graph's kernels, which one hypothesis test stopped at its first (dry-run) failure left to compile alone.
@pytest.mark.parametrize("seed", [zlib.crc32(f"random graph {k}".encode()) for k in range(30)])
def test_random_graphs_match_node_by_node(seed: int, device: gpuops.Device, xp: Any) -> None:
    graph, inputs = random_graph(seed)
    got, compiled = run_compiled(device, xp, graph, inputs)
    want = node_by_node(device, xp, graph, inputs)
    for g, (a, b) in enumerate(zip(got, want, strict=True)):
        assert_same(a, b, graph.output_tensor(g), f"seed {seed} output {g} ({compiled.kernel_count} kernels)")
    assert 1 <= compiled.kernel_count <= len(graph.nodes) + graph.output_count


# ---------------------------------------------------------------------------------------------- fixed graphs

T = TensorDesc(F32, (4, 5))


def chain_graph(t: TensorDesc = T) -> GraphDesc:
    """out0 = relu(a * 0.5 + 1 + b) * c, out1 = relu(...): four element-wise nodes, two outputs."""
    nodes = [
        OperatorNode(IDENTITY(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(0.5, 1.0))),
        OperatorNode(ADD(a_tensor=t, b_tensor=t, output_tensor=t)),
        OperatorNode(RELU(input_tensor=t, output_tensor=t)),
        OperatorNode(MUL(a_tensor=t, b_tensor=t, output_tensor=t)),
    ]
    return GraphDesc(
        3,
        2,
        nodes,
        [InputEdge(0, 0, 0), InputEdge(1, 1, 1), InputEdge(2, 3, 1)],
        [OutputEdge(3, 0, 0), OutputEdge(2, 0, 1)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0), IntermediateEdge(2, 0, 3, 0)],
    )


def test_a_chain_is_one_kernel_and_matches_float64(device: gpuops.Device, xp: Any) -> None:
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(20).astype(np.float32) for _ in range(3))
    (out0, out1), compiled = run_compiled(device, xp, chain_graph(), [a, b, c])
    assert compiled.kernel_count == 1
    r = np.maximum((a.astype(np.float64) * 0.5 + 1.0).astype(np.float32).astype(np.float64) + b, 0)
    np.testing.assert_allclose(out1, r, rtol=2e-7)
    np.testing.assert_allclose(out0, r * c, rtol=4e-7)
    assert "gpuops_fused_identity_add_relu_multiply" in compiled.kernel_source


def one_input_chain(t: TensorDesc) -> GraphDesc:
    """((x * 0.5 + 1) -> relu) * x + x: four nodes, one input, one output (the benchmark's chain)."""
    nodes = [
        OperatorNode(IDENTITY(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(0.5, 1.0))),
        OperatorNode(RELU(input_tensor=t, output_tensor=t)),
        OperatorNode(MUL(a_tensor=t, b_tensor=t, output_tensor=t)),
        OperatorNode(ADD(a_tensor=t, b_tensor=t, output_tensor=t)),
    ]
    return GraphDesc(
        1, 1, nodes, [InputEdge(0, 0, 0), InputEdge(0, 2, 1), InputEdge(0, 3, 1)], [OutputEdge(3, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0), IntermediateEdge(2, 0, 3, 0)],
    )  # fmt: skip


@pytest.mark.parametrize("dt", [F32, F16, DataType.BFLOAT16])
@pytest.mark.parametrize("layout", ["packed", "padded"])
def test_a_chain_is_one_compiled_loop_on_the_cpu(dt: DataType, layout: str, device: gpuops.Device, xp: Any) -> None:
    """Large enough for the compiled tier: one numba loop on the NumPy backend (flat, or rows over padded
    rows), equal bit for bit to the nodes run one by one; one kernel on the CuPy path."""
    from gpuops.backends import numba_loops

    t = TensorDesc(dt, (64, 300), (320, 1) if layout == "padded" else None)
    graph = one_input_chain(t)
    x = buffer_for(t, (np.random.default_rng(3).standard_normal(t.sizes) * 4).astype(dt.numpy_dtype))
    (got,), compiled = run_compiled(device, xp, graph, [x])
    assert compiled.kernel_count == 1
    if device.backend == "numpy" and numba_loops.available():
        assert compiled.step_paths == ("numba",)  # type: ignore[attr-defined]
    assert_same(got, node_by_node(device, xp, graph, [x])[0], t, f"{dt.name} {layout}")


def test_without_fusion_each_node_is_a_kernel(device: gpuops.Device) -> None:
    from gpuops.compiled_graph import CompiledGraph

    assert CompiledGraph(device, chain_graph(), ExecutionFlags.NONE, fuse=False).kernel_count == 4


def test_a_reduction_splits_the_groups(device: gpuops.Device, xp: Any) -> None:
    """relu(x) -> SUM over axis 1 -> * 2 (a constant): prologue, reduction, epilogue."""
    t, r = TensorDesc(F32, (3, 4)), TensorDesc(F32, (3, 1))
    two = np.full(3, 2.0, np.float32)
    nodes = [
        OperatorNode(RELU(input_tensor=t, output_tensor=t)),
        OperatorNode(REDUCE(ReduceFunction.SUM, t, r, axes=(1,))),
        ConstantNode(two),
        OperatorNode(MUL(a_tensor=r, b_tensor=r, output_tensor=r)),
        OperatorNode(SIGMOID(input_tensor=r, output_tensor=r)),
    ]
    graph = GraphDesc(
        1,
        1,
        nodes,
        [InputEdge(0, 0, 0)],
        [OutputEdge(4, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 3, 0), IntermediateEdge(2, 0, 3, 1),
         IntermediateEdge(3, 0, 4, 0)],
    )  # fmt: skip
    x = np.arange(-6, 6, dtype=np.float32) / 2
    (got,), compiled = run_compiled(device, xp, graph, [x])
    # relu fused into the SUM kernel's map expression on the CuPy path (two passes on the CPU), then
    # (multiply, sigmoid): 2 kernels on CuPy and the emulator, 3 passes on NumPy.
    assert compiled.kernel_count == (3 if device.backend == "numpy" else 2)
    s = np.maximum(x.reshape(3, 4).astype(np.float64), 0).sum(axis=1) * 2
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-s)), rtol=3e-7)
    assert_same(got, node_by_node(device, xp, graph, [x])[0], graph.output_tensor(0), "reduce graph")


@pytest.mark.parametrize("dt", [F32, F16])
def test_a_prologue_runs_inside_the_reduction(dt: DataType, device: gpuops.Device, xp: Any) -> None:
    """REDUCE(SUM_SQUARE, x * 0.5 + 1 - y) over the last axis: the scale-bias and subtract nodes become the
    reduction's map expression (one kernel on the CuPy path), and give what the nodes give one by one."""
    t, r = TensorDesc(dt, (6, 70)), TensorDesc(dt, (6, 1))
    graph = GraphDesc(
        2, 1,
        [OperatorNode(IDENTITY(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(0.5, 1.0))),
         OperatorNode(SUB(a_tensor=t, b_tensor=t, output_tensor=t)),
         OperatorNode(REDUCE(ReduceFunction.SUM_SQUARE, t, r, axes=(1,)))],
        [InputEdge(0, 0, 0), InputEdge(1, 1, 1)], [OutputEdge(2, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)],
    )  # fmt: skip
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal(420).astype(dt.numpy_dtype) for _ in range(2))
    (got,), compiled = run_compiled(device, xp, graph, [x, y])
    assert compiled.kernel_count == (2 if device.backend == "numpy" else 1)
    if device.backend != "numpy":
        assert "gpuops_prologue_" in compiled.kernel_source
    # The same values (each node rounded to its type) reduced in the same order: equal bit for bit.
    assert_same(got, node_by_node(device, xp, graph, [x, y])[0], r, f"SUM_SQUARE prologue {dt.name}")
    g = read_tensor(got, r).astype(np.float64)
    v = (x.astype(np.float32) * np.float32(0.5) + np.float32(1)).astype(dt.numpy_dtype).astype(np.float32)
    d = (v - y.astype(np.float32)).astype(dt.numpy_dtype).astype(np.float64).reshape(6, 70)
    np.testing.assert_allclose(g.ravel(), (d * d).sum(axis=1), rtol=1e-5 if dt is F32 else 2e-3)


@pytest.mark.parametrize("dt", [F32, F16])
def test_an_epilogue_runs_in_the_reductions_post_map(dt: DataType, device: gpuops.Device, xp: Any) -> None:
    """sqrt(REDUCE(SUM_SQUARE, x)) * 2 - 1 over the last axis (an L2 norm, then ScaleBias): the SQRT and IDENTITY
    nodes become the reduction's post-map (one kernel on the CuPy path, a pass each on NumPy), and give what the
    nodes give one by one, the reduction's result rounded to its type before the epilogue reads it."""
    t, r = TensorDesc(dt, (5, 90)), TensorDesc(dt, (5, 1))
    padded = TensorDesc(dt, (5, 1), (3, 1))  # the output through other strides than the value's
    graph = GraphDesc(
        1, 1,
        [OperatorNode(REDUCE(ReduceFunction.SUM_SQUARE, t, r, axes=(1,))),
         OperatorNode(SQRT(input_tensor=r, output_tensor=r)),
         OperatorNode(IDENTITY(input_tensor=r, output_tensor=padded, scale_bias=ScaleBias(2.0, -1.0)))],
        [InputEdge(0, 0, 0)], [OutputEdge(2, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)],
    )  # fmt: skip
    x = np.random.default_rng(11).standard_normal(450).astype(dt.numpy_dtype)
    (got,), compiled = run_compiled(device, xp, graph, [x])
    assert compiled.kernel_count == (2 if device.backend == "numpy" else 1)
    if device.backend != "numpy":
        assert "gpuops_epilogue_" in compiled.kernel_source
    assert_same(got, node_by_node(device, xp, graph, [x])[0], padded, f"SUM_SQUARE epilogue {dt.name}")
    norm = np.sqrt((x.astype(np.float64).reshape(5, 90) ** 2).sum(axis=1))
    g = read_tensor(got, padded).astype(np.float64).ravel()
    np.testing.assert_allclose(g, norm * 2 - 1, rtol=1e-5 if dt is F32 else 4e-3)


def test_prologue_reduction_and_epilogue_in_one_kernel(device: gpuops.Device, xp: Any) -> None:
    """IS_NAN(MAX(relu(x) - y)): a prologue, the reduction and an epilogue whose output type (UINT8) is not the
    reduction's; one kernel on the CuPy path."""
    t, r, flags = TensorDesc(F32, (4, 33)), TensorDesc(F32, (4, 1)), TensorDesc(DataType.UINT8, (4, 1))
    graph = GraphDesc(
        2, 1,
        [OperatorNode(RELU(input_tensor=t, output_tensor=t)),
         OperatorNode(SUB(a_tensor=t, b_tensor=t, output_tensor=t)),
         OperatorNode(REDUCE(ReduceFunction.MAX, t, r, axes=(1,))),
         OperatorNode(IS_NAN(input_tensor=r, output_tensor=flags))],
        [InputEdge(0, 0, 0), InputEdge(1, 1, 1)], [OutputEdge(3, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0), IntermediateEdge(2, 0, 3, 0)],
    )  # fmt: skip
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(132).astype(np.float32), rng.standard_normal(132).astype(np.float32)
    y[33 * 2 + 7] = np.nan  # row 2 has a NaN: MAX propagates it (directml.md: REDUCE MAX and NaN)
    (got,), compiled = run_compiled(device, xp, graph, [x, y])
    assert compiled.kernel_count == (3 if device.backend == "numpy" else 1)
    assert read_tensor(got, flags).ravel().tolist() == [0, 0, 1, 0]
    assert_same(got, node_by_node(device, xp, graph, [x, y])[0], flags, "prologue + MAX + IS_NAN")


# A reduction fused with a prologue and an epilogue on the rows kernel (issue 33): the same summation order as
# the reduction run alone on the materialized product, whatever layout the prologue's inputs and the output have:
# (name, axes, y's element strides over sizes (3, 4, 40), output strides over the kept sizes) -- how the kernel
# reads each: consecutive, through a column stride, or through a packed copy; the output through its row stride or
# a packed copy.
FUSED_ROWS_LAYOUTS = [
    ("packed", (2,), (160, 40, 1), None),
    ("y-broadcast-over-the-row", (2,), (4, 1, 0), None),  # column stride 0
    ("y-broadcast-over-the-rows", (2,), (0, 0, 1), None),  # row stride 0
    ("y-transposed", (2,), (4, 1, 12), None),  # stored as (40, 3, 4): column stride 12
    ("y-partly-broadcast", (1, 2), (4, 0, 1), None),  # the reduced axes form no stride run: a packed copy
    ("output-transposed", (2,), (160, 40, 1), (1, 3, 1)),  # the kept axes of the output form no run
    # The columns kernel (an outer or a middle axis): (outer, reduced, inner) strides per input.
    ("middle-axis", (1,), (160, 40, 1), None),
    ("outer-axis", (0,), (160, 40, 1), None),
    ("middle-y-broadcast", (1,), (40, 0, 1), None),  # reduced stride 0
    ("outer-y-partly-broadcast", (0, 1), (0, 40, 1), None),  # the reduced axes form no run: a packed copy
    ("outer-output-transposed", (0,), (160, 40, 1), (1, 1, 4)),  # the output's inner axes form no run
]


def fused_rows_graph(
    dt: DataType, axes: tuple[int, ...], y_strides: tuple[int, ...], out_strides: tuple[int, ...] | None
) -> GraphDesc:
    """sqrt(SUM(x * y)) * 2 - 1 over ``axes`` of (3, 4, 40), y and the output through the strides given."""
    sizes = (3, 4, 40)
    kept = tuple(1 if a in axes else s for a, s in enumerate(sizes))
    t, r = TensorDesc(dt, sizes), TensorDesc(dt, kept)
    ty, out = TensorDesc(dt, sizes, y_strides), TensorDesc(dt, kept, out_strides)
    return GraphDesc(
        2, 1,
        [OperatorNode(MUL(a_tensor=t, b_tensor=ty, output_tensor=t)),
         OperatorNode(REDUCE(ReduceFunction.SUM, t, r, axes=axes)),
         OperatorNode(SQRT(input_tensor=r, output_tensor=r)),
         OperatorNode(IDENTITY(input_tensor=r, output_tensor=out, scale_bias=ScaleBias(2.0, -1.0)))],
        [InputEdge(0, 0, 0), InputEdge(1, 0, 1)], [OutputEdge(3, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0), IntermediateEdge(2, 0, 3, 0)],
    )  # fmt: skip


@pytest.mark.parametrize("dt", [F32, F16])
@pytest.mark.parametrize(("name", "axes", "y_strides", "out_strides"), FUSED_ROWS_LAYOUTS, ids=lambda v: str(v))
def test_fused_reduction_on_the_rows_kernel_keeps_the_bits(
    dt: DataType,
    name: str,
    axes: tuple[int, ...],
    y_strides: tuple[int, ...],
    out_strides: tuple[int, ...] | None,
    device: gpuops.Device,
    xp: Any,
) -> None:
    """sqrt(SUM(x * y)) * 2 - 1 over axes of (3, 4, 40): on the CuPy path one launch of gpuops' rows kernel (inner
    axes) or columns kernel (an outer or a middle axis), the multiply its map, SQRT and the ScaleBias its post-map,
    giving the bits of the nodes run one by one, each reduction on its materialized input (the same kernel), and
    within rounding of a float64 reference."""
    sizes = (3, 4, 40)
    graph = fused_rows_graph(dt, axes, y_strides, out_strides)
    ty, out = graph.nodes[0].desc.b_tensor, graph.output_tensor(0)
    rng = np.random.default_rng(seed=len(name) * 7 + len(axes))
    x = rng.uniform(0.25, 2.0, 480).astype(dt.numpy_dtype)
    y = rng.uniform(0.25, 2.0, buffer_elements(ty)).astype(dt.numpy_dtype)  # broadcast positions share one element
    (got,), compiled = run_compiled(device, xp, graph, [x, y])
    if device.backend != "numpy":
        path = "rows reduction" if axes[-1] == 2 else "columns reduction"
        assert compiled.step_paths == (path,) and compiled.kernel_count == 1
        strided = name in ("y-broadcast-over-the-row", "y-transposed")  # y read through a column stride
        assert ("_cs_i1" in compiled.kernel_source) == strided, compiled.kernel_source
    assert_same(got, node_by_node(device, xp, graph, [x, y])[0], out, f"fused rows {name} {dt.name}")
    yv = read_tensor(y, ty).astype(np.float64)
    m = (x.astype(np.float64).reshape(sizes) * yv).astype(dt.numpy_dtype).astype(np.float64)
    want = np.sqrt(m.sum(axis=axes, keepdims=True)) * 2 - 1
    g = read_tensor(got, out).astype(np.float64)
    np.testing.assert_allclose(g, want, rtol=1e-5 if dt is F32 else 4e-3)


@pytest.mark.parametrize(
    ("sizes", "axes", "own", "paths"),
    [
        # reduced axes not adjacent: two passes on the GPU, so the multiply and the sqrt stay kernels of their own
        ((64, 2, 64), (0, 2), True, ("flat", "two-pass reduction", "flat")),
        # a long outer axis: the split columns kernel (one launch), which takes the prologue and the epilogue in
        ((5003, 2), (0,), True, ("split columns reduction",)),
        # one long row: the split rows kernel (one launch), which takes the prologue and the epilogue in
        ((5003,), (0,), True, ("split rows reduction",)),
        # the same with gpuops' reduction kernels off (GPUOPS_CUPY_ROWS_REDUCE=0): CuPy's two passes, nothing fused
        ((5003,), (0,), False, ("flat", "two-pass reduction", "flat")),
    ],
)
def test_a_long_reduction_between_element_wise_nodes_keeps_the_bits(
    sizes: tuple[int, ...],
    axes: tuple[int, ...],
    own: bool,
    paths: tuple[str, ...],
    device: gpuops.Device,
    xp: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sqrt(SUM(x * y)) over a long axis, under a policy that splits it on the GPU (the default policy's threshold,
    2^18 elements, in miniature): a two-pass reduction takes no prologue or epilogue (a fused kernel is one pass,
    summing in another order), the split rows kernel takes both (fused or not, the same kernel); either way the
    graph gives the bits of its nodes run one by one."""
    from gpuops.layout import reduce_plan

    small = reduce_plan.TwoPassPolicy(min_reduced=1024, min_total=1 << 12, min_part=256)
    monkeypatch.setattr(reduce_plan, "DEFAULT_POLICY", small)
    kept = tuple(1 if a in axes else s for a, s in enumerate(sizes))
    t, r = TensorDesc(F32, sizes), TensorDesc(F32, kept)
    graph = GraphDesc(
        2, 1,
        [OperatorNode(MUL(a_tensor=t, b_tensor=t, output_tensor=t)),
         OperatorNode(REDUCE(ReduceFunction.SUM, t, r, axes=axes)),
         OperatorNode(SQRT(input_tensor=r, output_tensor=r))],
        [InputEdge(0, 0, 0), InputEdge(1, 0, 1)], [OutputEdge(2, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)],
    )  # fmt: skip
    rng = np.random.default_rng(23)
    n = t.element_count
    x, y = rng.uniform(0.5, 1.5, n).astype(np.float32), rng.uniform(0.5, 1.5, n).astype(np.float32)
    with config.override(cupy_rows_reduce=own):
        (got,), compiled = run_compiled(device, xp, graph, [x, y])
        if device.backend != "numpy":
            assert compiled.step_paths == paths
        nodes = node_by_node(device, xp, graph, [x, y])[0]
    assert_same(got, nodes, r, f"long SUM {sizes} between element-wise nodes")
    m = (x.astype(np.float64) * y).astype(np.float32).astype(np.float64).reshape(sizes)
    want = np.sqrt(m.sum(axis=axes, keepdims=True))
    np.testing.assert_allclose(read_tensor(got, r).astype(np.float64).reshape(kept), want, rtol=1e-5)


def test_an_epilogue_takes_only_what_reads_the_result_alone(device: gpuops.Device, xp: Any) -> None:
    """sigmoid(SUM(x)) * c (c a constant): SIGMOID reads the result alone and joins the reduction's kernel; the
    multiply reads a constant too, so it stays a kernel of its own (NumPy: a pass each). A result that is also
    a graph output is stored, so nothing joins it: the reduction, then SIGMOID and MUL fused."""
    t, r = TensorDesc(F32, (3, 4)), TensorDesc(F32, (3, 1))
    c = np.array([0.5, -2.0, 4.0], np.float32)
    nodes = [
        OperatorNode(REDUCE(ReduceFunction.SUM, t, r, axes=(1,))),
        OperatorNode(SIGMOID(input_tensor=r, output_tensor=r)),
        ConstantNode(c),
        OperatorNode(MUL(a_tensor=r, b_tensor=r, output_tensor=r)),
    ]
    edges = [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 3, 0), IntermediateEdge(2, 0, 3, 1)]
    x = np.arange(-6, 6, dtype=np.float32) / 4
    want = 1 / (1 + np.exp(-x.reshape(3, 4).astype(np.float64).sum(axis=1))) * c
    cases = (([OutputEdge(3, 0, 0)], 2, 3), ([OutputEdge(3, 0, 0), OutputEdge(0, 0, 1)], 2, 2))
    with checks_after_runs() as check:
        for outputs, kernels, passes in cases:
            graph = GraphDesc(1, len(outputs), nodes, [InputEdge(0, 0, 0)], outputs, edges)
            got, compiled = run_compiled(device, xp, graph, [x])
            assert compiled.kernel_count == (passes if device.backend == "numpy" else kernels), outputs
            check(np.testing.assert_allclose, read_tensor(got[0], r).ravel(), want, 3e-7)
            for g, w in zip(got, node_by_node(device, xp, graph, [x]), strict=True):
                check(assert_same, g, w, r, f"{len(outputs)} outputs")


def test_casts_fuse_with_their_neighbours(device: gpuops.Device, xp: Any) -> None:
    """float64 -> CAST float16 -> RELU -> CAST int8, one kernel: each node rounds to its own output type at its
    boundary, so the float16 value is correctly rounded once (1 + 2**-11 + 2**-40 -> 1 + 2**-10) and the int8
    cast truncates and saturates what RELU gave (README semantics of CAST)."""
    t64, t16, t8 = TensorDesc(DataType.FLOAT64, (2, 4)), TensorDesc(F16, (2, 4)), TensorDesc(DataType.INT8, (2, 4))
    graph = GraphDesc(
        1, 1,
        [OperatorNode(CAST(t64, t16)), OperatorNode(RELU(input_tensor=t16, output_tensor=t16)),
         OperatorNode(CAST(t16, t8))],
        [InputEdge(0, 0, 0)], [OutputEdge(2, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)],
    )  # fmt: skip
    x = np.array([1 + 2**-11 + 2**-40, -5.0, 300.7, 127.5, np.nan, 1e10, 2.99, -0.0])
    (got,), compiled = run_compiled(device, xp, graph, [x])
    assert compiled.kernel_count == 1
    assert read_tensor(got, t8).ravel().tolist() == [1, 0, 127, 127, 0, 127, 2, 0]
    assert_same(got, node_by_node(device, xp, graph, [x])[0], t8, "CAST chain")


QSHAPE = (3, 4)


def quantized_graph() -> tuple[GraphDesc, list[TensorDesc]]:
    """QUANTIZED_LINEAR_ADD (absent zero points, scales per column, per row and per tensor by zero strides)
    feeding another, then DEQUANTIZE_LINEAR; and the graph inputs' layouts. Inputs: 0 a, 1 a_scale, 2 b,
    3 b_scale, 4 b_zero_point, 5 the scale and 6 the zero point of node 0's output (node 1 reads its A with
    them), 7 c, 8 c_scale, 9 node 1's output scale (DEQUANTIZE's scale too)."""
    qla, deq = desc_class("ELEMENT_WISE_QUANTIZED_LINEAR_ADD"), desc_class("ELEMENT_WISE_DEQUANTIZE_LINEAR")
    i8, u8 = DataType.INT8, DataType.UINT8
    full = {dt: TensorDesc(dt, QSHAPE) for dt in (i8, u8, F32)}
    per_col, per_row = TensorDesc(F32, QSHAPE, (0, 1)), TensorDesc(F32, QSHAPE, (1, 0))
    one = {dt: TensorDesc(dt, QSHAPE, (0, 0)) for dt in (i8, u8, F32)}
    nodes = [
        OperatorNode(qla(full[i8], per_col, None, full[u8], one[F32], one[u8], one[F32], one[i8], full[i8])),
        OperatorNode(qla(full[i8], one[F32], one[i8], full[i8], per_row, None, one[F32], None, full[i8])),
        OperatorNode(deq(full[i8], one[F32], None, full[F32])),
    ]
    slots = [(0, 0, 0), (1, 0, 1), (2, 0, 3), (3, 0, 4), (4, 0, 5), (5, 0, 6), (6, 0, 7), (5, 1, 1), (6, 1, 2),
             (7, 1, 3), (8, 1, 4), (9, 1, 6), (9, 2, 1)]  # fmt: skip
    graph = GraphDesc(10, 1, nodes, [InputEdge(g, n, k) for g, n, k in slots], [OutputEdge(2, 0, 0)],
                      [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)])  # fmt: skip
    layouts = [full[i8], per_col, full[u8], one[F32], one[u8], one[F32], one[i8], full[i8], per_row, one[F32]]
    return graph, layouts


def test_quantized_adds_fuse_with_a_dequantize(device: gpuops.Device, xp: Any) -> None:
    """:func:`quantized_graph` (eight-input nodes) is one kernel, each node's result its own int8 value at the
    node boundary: bit for bit the nodes run one by one, and the composition of the references."""
    from opinfo import record

    graph, layouts = quantized_graph()
    rng = np.random.default_rng(11)
    a = rng.integers(-128, 128, QSHAPE).astype(np.int8)
    b = rng.integers(0, 256, QSHAPE).astype(np.uint8)
    c = rng.integers(-128, 128, QSHAPE).astype(np.int8)
    sa = np.float32([0.5, 0.1, 0.25, 3.0])  # one per column
    sc = np.float32([0.125, 0.3, 2.0]).reshape(3, 1)  # one per row
    sb, zb, s1, z1, s2 = np.float32([0.25]), np.uint8([128]), np.float32([0.75]), np.int8([-3]), np.float32([0.2])
    logical = [np.broadcast_to(v, QSHAPE) for v in (a, sa, b, sb, zb, s1, z1, c, sc, s2)]
    inputs = [buffer_for(t, v) for t, v in zip(layouts, logical, strict=True)]
    (got,), compiled = run_compiled(device, xp, graph, inputs)
    assert compiled.kernel_count == 1
    out_t = TensorDesc(F32, QSHAPE)
    assert_same(got, node_by_node(device, xp, graph, inputs)[0], out_t, "QLA, QLA, DEQUANTIZE")
    add, dq = record("ELEMENT_WISE_QUANTIZED_LINEAR_ADD"), record("ELEMENT_WISE_DEQUANTIZE_LINEAR")
    la, lsa, lb, lsb, lzb, ls1, lz1, lc, lsc, ls2 = logical
    v0 = add.evaluate([la, lsa, None, lb, lsb, lzb, ls1, lz1], np.dtype(np.int8)).values
    v1 = add.evaluate([v0, ls1, lz1, lc, lsc, None, ls2, None], np.dtype(np.int8)).values
    want = dq.evaluate([v1, ls2, None], np.dtype(np.float32)).values
    assert np.array_equal(read_tensor(got, out_t), want)


def test_a_value_that_is_two_graph_outputs_is_copied(device: gpuops.Device, xp: Any) -> None:
    graph = GraphDesc(1, 2, [OperatorNode(RELU(input_tensor=T, output_tensor=T))], [InputEdge(0, 0, 0)],
                      [OutputEdge(0, 0, 0), OutputEdge(0, 0, 1)])  # fmt: skip
    x = np.linspace(-1, 1, 20, dtype=np.float32)
    (o0, o1), compiled = run_compiled(device, xp, graph, [x])
    assert compiled.kernel_count == 2
    assert np.array_equal(o0, np.maximum(x, 0)) and np.array_equal(o1, o0)


def test_an_edge_between_different_strides_carries_the_value(device: gpuops.Device, xp: Any) -> None:
    """The consumer's input descriptor reads (4, 5) through transposed strides; the edge still carries the
    producer's value, element for element (fused or not)."""
    transposed = TensorDesc(F32, (4, 5), (1, 4))
    reduce = REDUCE(ReduceFunction.SUM, transposed, TensorDesc(F32, (4, 1)), axes=(1,))
    results = []
    for consumer in (RELU(input_tensor=transposed, output_tensor=T), reduce):
        graph = GraphDesc(
            2, 1,
            [OperatorNode(ADD(a_tensor=T, b_tensor=T, output_tensor=T)), OperatorNode(consumer)],
            [InputEdge(0, 0, 0), InputEdge(1, 0, 1)],
            [OutputEdge(1, 0, 0)],
            [IntermediateEdge(0, 0, 1, 0)],
        )  # fmt: skip
        a = np.arange(20, dtype=np.float32) - 10
        b = np.ones(20, np.float32)
        (got,), _ = run_compiled(device, xp, graph, [a, b])
        s = (a + b).reshape(4, 5)
        want = np.maximum(s, 0).ravel() if consumer.row.name == "ACTIVATION_RELU" else s.sum(axis=1)
        results.append((consumer.row.name, got, want))
    for name, got, want in results:  # after both ran (helpers.checks_after_runs)
        assert np.array_equal(got[: want.size], want), (name, got, want)


def test_float16_intermediates_round_at_node_boundaries(device: gpuops.Device, xp: Any) -> None:
    """(a + b) + c in float16: the intermediate a + b is rounded to float16 before c is added, as when the
    nodes run one by one (2048 + 1 rounds to 2048; 2048 + 1 + 1 stays 2048, not 2050)."""
    t = TensorDesc(F16, (3,))
    graph = GraphDesc(3, 1, [OperatorNode(ADD(a_tensor=t, b_tensor=t, output_tensor=t)),
                             OperatorNode(ADD(a_tensor=t, b_tensor=t, output_tensor=t))],
                      [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(2, 1, 1)], [OutputEdge(1, 0, 0)],
                      [IntermediateEdge(0, 0, 1, 0)])  # fmt: skip
    a, b, c = (buffer_for(t, np.array(v, np.float16)) for v in ([2048, 1, 0.5], [1, 2048, 0.25], [1, 1, 0.125]))
    (got,), compiled = run_compiled(device, xp, graph, [a, b, c])
    assert compiled.kernel_count == 1
    assert got[:3].tolist() == [2048.0, 2048.0, 0.875]


def test_constant_nodes_feed_fused_kernels(device: gpuops.Device, xp: Any) -> None:
    bias = np.arange(20, dtype=np.float32)
    graph = GraphDesc(1, 1, [ConstantNode(bias), OperatorNode(ADD(a_tensor=T, b_tensor=T, output_tensor=T)),
                             OperatorNode(RELU(input_tensor=T, output_tensor=T))],
                      [InputEdge(0, 1, 0)], [OutputEdge(2, 0, 0)],
                      [IntermediateEdge(0, 0, 1, 1), IntermediateEdge(1, 0, 2, 0)])  # fmt: skip
    x = -np.full(20, 10, np.float32)
    (got,), compiled = run_compiled(device, xp, graph, [x])
    assert compiled.kernel_count == 1
    assert np.array_equal(got, np.maximum(bias - 10, 0))


# ---------------------------------------------------------------------------------------------- errors


def test_compile_graph_refuses_what_is_not_a_graph() -> None:
    with pytest.raises(TypeError, match="compile_graph: expected a GraphDesc"):
        gpuops.Device("numpy").compile_graph(ADD(a_tensor=T, b_tensor=T, output_tensor=T))  # type: ignore[arg-type]


def test_compile_graph_needs_feature_level_2_1() -> None:
    dev = gpuops.Device("numpy", max_feature_level=FeatureLevel.FL_2_0)
    with pytest.raises(DescriptorError, match="need FL_2_1"):
        dev.compile_graph(chain_graph())


def test_graph_binding_errors_name_the_buffer() -> None:
    compiled = gpuops.Device("numpy").compile_graph(chain_graph())
    a = np.zeros(20, np.float32)
    out = [np.zeros(20, np.float32), np.zeros(20, np.float32)]
    with pytest.raises(gpuops.BindingError, match=r"GRAPH: 2 input buffers bound; the operator has 3 inputs"):
        compiled.execute([a, a], out)
    with pytest.raises(gpuops.BindingError, match=r"GRAPH: inputs\[1\] buffer has dtype float64"):
        compiled.execute([a, np.zeros(20), a], out)
    with pytest.raises(gpuops.BindingError, match=r"GRAPH: outputs\[0\] buffer holds 40 bytes"):
        compiled.execute([a, a, a], [np.zeros(10, np.float32), out[1]])
    with pytest.raises(gpuops.BindingError, match=r"outputs\[0\]"):
        compiled.execute([a, a, out[0]], out)  # an output that is an input: no in-place for graphs
    before = [o.copy() for o in out]
    with pytest.raises(gpuops.BindingError):
        compiled.execute([a, a, a], [out[0], out[0]])
    assert all(np.array_equal(o, b) for o, b in zip(out, before, strict=True)), "nothing written on error"


# ---------------------------------------------------------------------------------------------- NVRTC


def fused_step_sources(graphs: list[GraphDesc]) -> tuple[dict[str, str], int, int]:
    """The CUDA source of every fused kernel the plans of ``graphs`` launch (ElementwiseKernel, the flat/rows
    RawKernels of one-output groups, reductions with a prologue and/or an epilogue, as a ``ReductionKernel`` and, where
    the layout allows, as the rows kernel), by kernel name; and how many
    fused reductions and epilogues were among them."""
    import gpuops.nvrtc as gnvrtc
    from gpuops.backends.cupy_rows_reduce import FusedRowsReduceRun
    from gpuops.codegen import reduce_rows
    from gpuops.codegen.fast import fast_source
    from gpuops.codegen.graph import fused_kernel_spec, fused_reduction_spec
    from gpuops.graph_plan import FusedReduceStep, FusedStep, plan_graph
    from gpuops.lowering import lower

    sources: dict[str, str] = {}
    reductions = epilogues = 0
    for graph in graphs:
        for step in plan_graph(graph).steps:
            if isinstance(step, FusedReduceStep):
                before, after = step.prologue, step.epilogue
                spec = fused_reduction_spec(
                    before,
                    [lower(d) for d in before.descs] if before is not None else [],
                    lower(step.desc),
                    after,
                    [lower(d) for d in after.descs] if after is not None else [],
                )
                sources[spec.name] = spec.cuda_module(2, 1, True)
                low = lower(step.desc)  # the rows or columns kernel the CuPy backend launches instead (issue 33)
                strided = FusedRowsReduceRun.strided([t for _, t in step.inputs], low.axes)
                if low.rows is not None and low.rows.parts > 1:
                    name, source = reduce_rows.split_rows_kernel(spec, strided=strided)
                    sources[name] = source
                elif low.rows is not None:
                    name, source = reduce_rows.rows_kernel(spec, low.rows.threads, strided=strided)
                    sources[name] = source
                elif low.columns is not None:
                    split = low.columns.parts > 1
                    name, source = reduce_rows.columns_kernel(spec, low.columns.columns, split=split)
                    sources[name] = source
                reductions += 1
                epilogues += after is not None
            elif isinstance(step, FusedStep):
                spec = fused_kernel_spec(step, [lower(d) for d in step.descs])
                assert spec.options == ("--fmad=false",)
                sources[spec.name] = gnvrtc.batch_source([spec], ((1, True, True), (3, False, False)))
                if len(step.outputs) == 1:
                    for kind in ("flat", "rows"):
                        fast = fast_source(spec, kind)
                        sources[fast.name] = fast.source
    return sources, reductions, epilogues


def test_fused_kernels_compile_with_nvrtc() -> None:
    """Every fused kernel the plans of the fixed graphs and 80 random graphs make compiles with NVRTC for the
    real target, with the options the CuPy backend passes (--fmad=false)."""
    from test_nvrtc import _check_nvrtc

    import gpuops.nvrtc as gnvrtc

    _check_nvrtc()
    graphs = [chain_graph(), one_input_chain(TensorDesc(F16, (64, 300), (320, 1))), quantized_graph()[0]]
    graphs += [random_graph(seed)[0] for seed in range(80)]
    graphs += [fused_rows_graph(F16, axes, ys, outs) for _, axes, ys, outs in FUSED_ROWS_LAYOUTS]
    # The split rows and split columns kernels, fused.
    for long, axis in ((TensorDesc(F32, (2, 1 << 17)), 1), (TensorDesc(F32, (1 << 17, 2)), 0)):
        r = TensorDesc(F32, tuple(1 if a == axis else s for a, s in enumerate(long.sizes)))
        nodes = [
            OperatorNode(MUL(a_tensor=long, b_tensor=long, output_tensor=long)),
            OperatorNode(REDUCE(ReduceFunction.SUM, long, r, axes=(axis,))),
            OperatorNode(SQRT(input_tensor=r, output_tensor=r)),
        ]
        edges = [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)]
        graphs.append(GraphDesc(2, 1, nodes, [InputEdge(0, 0, 0), InputEdge(1, 0, 1)], [OutputEdge(2, 0, 0)], edges))
    sources, reductions, epilogues = fused_step_sources(graphs)
    assert reductions >= 3 and epilogues >= 3 and len(sources) >= 40, (reductions, epilogues, len(sources))
    assert any("_rows32_s01" in name for name in sources), "a rows kernel reading an input through a column stride"
    assert any("_cols32" in name for name in sources), "a columns kernel"
    assert any(name.endswith("_split") and "_cols" not in name for name in sources), "a split rows kernel"
    assert any(name.endswith("_cols2_split") for name in sources), "a split columns kernel"
    for name, source in sources.items():
        gnvrtc.compile_source(source, f"{name}.cu", syntax_only=True, options=("--fmad=false",))
    gnvrtc.compile_source(next(iter(sources.values())), "first_fused.cu", options=("--fmad=false",))  # to PTX


def test_one_compiled_graph_runs_on_many_threads(device: gpuops.Device, xp: Any) -> None:
    """Each execute takes workspaces of its own: r = relu(x) is read by two steps (a SUM and r * 3), so it lives
    in a workspace; eight inputs on four threads through one compiled graph each get their own answer."""
    import concurrent.futures

    b = gpuops.GraphBuilder()
    x = b.input(TensorDesc(F32, (16, 40)))
    r = b.relu(x)
    total = b.reduce(r, function=ReduceFunction.SUM, axes=(0, 1))
    graph = b.build([total, r * 3.0])
    compiled = device.compile_graph(graph)
    assert compiled.plan.workspaces, "the check needs a graph with a workspace"
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((16, 40)).astype(np.float32) * (k + 1) for k in range(8)]

    def one(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s, y = to_backend(xp, np.zeros(1, np.float32)), to_backend(xp, np.zeros(640, np.float32))
        for _ in range(5):
            compiled.execute([to_backend(xp, v.reshape(-1))], [s, y])
        return to_host(s), to_host(y)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, xs))
    for v, (s, y) in zip(xs, results, strict=True):
        relu = np.maximum(v.astype(np.float64), 0)
        np.testing.assert_allclose(s[0], relu.sum(), rtol=1e-5)
        np.testing.assert_allclose(y.reshape(16, 40), relu * 3, rtol=1e-6)


# ---------------------------------------------------------------------------------------------- issue 34


def reduction_in_a_diamond() -> GraphDesc:
    """Issue 34's graph: M = x * 2; R = REDUCE SUM of M over a size-1 axis; P = y + 1; outputs R + P and M + P.
    The planner merged M + P into M's group after P and R + P had merged: the two groups then read each other
    (M -> R -> R + P, P -> M + P), a cycle the check missed because it followed single nodes, not the groups that
    run as one step each. compile_graph raised AssertionError("fusion made a cycle"); under python -O nothing ran
    and execute returned with the outputs never written."""
    b = gpuops.GraphBuilder()
    x, y = b.input(TensorDesc(F32, (3, 1))), b.input(TensorDesc(F32, (3, 1)))
    m = x * 2.0
    r = b.reduce(m, function=ReduceFunction.SUM, axes=(1,))
    p = y + 1.0
    return b.build([r + p, m + p])


def test_a_reduction_in_a_diamond_compiles_fused_and_runs(device: gpuops.Device, xp: Any) -> None:
    """Issue 34's graph compiles on every backend: M and the reduction a step each, P, R + P and M + P one fused
    kernel (no merge that would close a cycle); both outputs equal the float64 reference (every value here is
    exact in float32) and the nodes run one by one, bit for bit; nothing is left unwritten (NaN-filled outputs)."""
    from gpuops.compiled_graph import CompiledGraph

    graph = reduction_in_a_diamond()
    x = np.float32([1.5, -2.25, 0.125])
    y = np.float32([0.5, 3.0, -1.0])
    compiled = device.compile_graph(graph)
    outs = [to_backend(xp, np.full(3, np.nan, np.float32)) for _ in range(2)]
    compiled.execute([to_backend(xp, x), to_backend(xp, y)], outs)
    got = [to_host(o) for o in outs]
    want = x.astype(np.float64) * 2 + (y.astype(np.float64) + 1)  # SUM over a size-1 axis is the value itself
    assert got[0].tolist() == want.tolist() and got[1].tolist() == want.tolist(), (got, want)
    for g, (a, b) in enumerate(zip(got, node_by_node(device, xp, graph, [x, y]), strict=True)):
        assert_same(a, b, graph.output_tensor(g), f"issue 34 graph, output {g}")
    kinds = [(type(s).__name__, getattr(s, "nodes", None)) for s in compiled.plan.steps]  # type: ignore[attr-defined]
    assert kinds == [("NodeStep", None), ("NodeStep", None), ("FusedStep", (2, 3, 4))], kinds
    assert compiled.kernel_count == 3
    unfused = CompiledGraph(device, graph, ExecutionFlags.NONE, fuse=False)
    outs = [to_backend(xp, np.full(3, np.nan, np.float32)) for _ in range(2)]
    unfused.execute([to_backend(xp, x), to_backend(xp, y)], outs)
    assert [to_host(o).tolist() for o in outs] == [want.tolist()] * 2
    assert unfused.kernel_count == 5


def test_a_planner_cycle_is_an_error_not_an_assert(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the fusion groups ever to read each other in a cycle (issue 34's old grouping of its graph, forced
    here), planning raises RuntimeError naming the groups: an explicit check, so python -O cannot strip it and
    compile an operator that runs nothing."""
    from gpuops import graph_plan

    monkeypatch.setattr(graph_plan, "_groups", lambda graph: [[0, 4], [1], [2, 3]])
    with pytest.raises(RuntimeError, match=r"node groups \[\[0, 4\], \[1\], \[2, 3\]\] read each other in a cycle"):
        gpuops.Device("numpy").compile_graph(reduction_in_a_diamond())
