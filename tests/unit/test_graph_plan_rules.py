"""Graph planning rules the mutation run of ``gpuops/graph_plan.py`` found unpinned (tools/mutation/SURVIVORS.md):
which nodes never join a fused group, the layout a consumer reads an intermediate through whatever input precedes
it, and the prologue of a reduction the GPU runs in one pass.

References: the planning rules of ``gpuops/graph_plan.py``'s docstring and the README's Graphs section (an
intermediate edge carries the producer's value; scans and nodes reading the element's index run as steps of their
own; a one-pass reduction takes the group feeding it as its map expression), and float64 NumPy for the values.
"""

from __future__ import annotations

import numpy as np

import gpuops
from descriptors import DataType, ExecutionFlags, ReduceFunction, ScaleBias, TensorDesc, desc_class
from descriptors.graph import GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge
from gpuops.compiled_graph import CompiledGraph
from gpuops.graph_plan import FusedReduceStep, FusedStep, NodeStep, plan_graph

F32 = DataType.FLOAT32
ADD, IDENTITY, REDUCE = desc_class("ELEMENT_WISE_ADD"), desc_class("ELEMENT_WISE_IDENTITY"), desc_class("REDUCE")
NUMPY = gpuops.Device("numpy")


def run(graph: GraphDesc, inputs: list[np.ndarray], fuse: bool = True) -> np.ndarray:
    compiled = CompiledGraph(NUMPY, graph, ExecutionFlags.NONE, fuse=fuse)
    out = np.zeros(graph.output_tensor(0).element_count, np.float32)
    compiled.execute(inputs, [out])
    return out


def test_scans_and_index_readers_run_as_steps_of_their_own() -> None:
    """A scan walks whole lines and FILL_VALUE_SEQUENCE reads the element's logical index: neither joins the
    element-wise group around it, which still fuses (the ADD and RELU after each)."""
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    running = gb.op("CUMULATIVE_SUMMATION", x, axis=1)
    seq = gb.fill_value_sequence(output_sizes=(2, 3), value_data_type=F32, value_start=1.0, value_delta=0.5)
    y = gb.relu(running + x)
    z = gb.relu(seq + x)
    graph = gb.build([y, z])
    steps = plan_graph(graph).steps
    alone = sorted(s.desc.row.name for s in steps if isinstance(s, NodeStep))
    assert alone == ["CUMULATIVE_SUMMATION", "FILL_VALUE_SEQUENCE"]
    assert sorted(len(s.nodes) for s in steps if isinstance(s, FusedStep)) == [2, 2]
    compiled = NUMPY.compile_graph(graph)
    xv = np.float32([1, -2, 3, -4, 5, 0.5])
    outs = [np.zeros(6, np.float32), np.zeros(6, np.float32)]
    compiled.execute([xv], outs)
    x64 = xv.astype(np.float64).reshape(2, 3)
    np.testing.assert_array_equal(outs[0], np.maximum(np.cumsum(x64, axis=1) + x64, 0).ravel())
    np.testing.assert_array_equal(outs[1], np.maximum(1.0 + 0.5 * np.arange(6) + x64.ravel(), 0))


def test_an_intermediate_after_a_graph_input_is_read_through_its_producers_layout() -> None:
    """ADD(c, a + b) where the consumer's B descriptor is transposed (4, 5) strides (1, 4): the edge carries the
    producer's value element for element, so B is rewritten to the producer's packed layout, A (a graph input,
    read as bound) is not; fused or not, the result is c + a + b."""
    t = TensorDesc(F32, (4, 5))
    transposed = TensorDesc(F32, (4, 5), (1, 4))
    graph = GraphDesc(
        3, 1,
        [OperatorNode(ADD(a_tensor=t, b_tensor=t, output_tensor=t)),
         OperatorNode(ADD(a_tensor=t, b_tensor=transposed, output_tensor=t))],
        [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(2, 1, 0)],
        [OutputEdge(1, 0, 0)],
        [IntermediateEdge(0, 0, 1, 1)],
    )  # fmt: skip
    (_, consumer) = plan_graph(graph, fuse=False).steps
    assert isinstance(consumer, NodeStep) and consumer.desc.a_tensor == t and consumer.desc.b_tensor == t
    a = np.arange(20, dtype=np.float32)
    b = np.arange(20, dtype=np.float32) * 100
    c = np.full(20, 0.5, np.float32)
    want = c.astype(np.float64) + a + b
    for fuse in (False, True):
        np.testing.assert_array_equal(run(graph, [a, b, c], fuse=fuse), want)


def prologue_graph(sizes: tuple[int, ...], axes: tuple[int, ...]) -> GraphDesc:
    """REDUCE(SUM, x * 2 + 1) over ``axes``, the ScaleBias an IDENTITY node."""
    t = TensorDesc(F32, sizes)
    r = TensorDesc(F32, tuple(1 if d in axes else s for d, s in enumerate(sizes)))
    return GraphDesc(
        1, 1,
        [OperatorNode(IDENTITY(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(2.0, 1.0))),
         OperatorNode(REDUCE(ReduceFunction.SUM, t, r, axes=axes))],
        [InputEdge(0, 0, 0)], [OutputEdge(1, 0, 0)], [IntermediateEdge(0, 0, 1, 0)],
    )  # fmt: skip


def test_a_one_pass_reduction_over_apart_axes_takes_its_prologue() -> None:
    """SUM over axes (0, 2) of (4, 3, 5): few elements (one pass on the GPU) and neither the rows nor the columns
    kernel's layout, so the ScaleBias node feeding it becomes its map expression: one fused reduction step."""
    graph = prologue_graph((4, 3, 5), (0, 2))
    (step,) = plan_graph(graph).steps
    assert isinstance(step, FusedReduceStep) and step.prologue is not None and step.epilogue is None
    x = (np.arange(60, dtype=np.float32) - 30) / 4  # exact sums in float32
    want = (x.astype(np.float64).reshape(4, 3, 5) * 2 + 1).sum(axis=(0, 2))
    np.testing.assert_array_equal(run(graph, [x]), want)


def test_a_long_reduction_takes_its_prologue_only_on_the_rows_kernel() -> None:
    """Long reductions (two passes by ``reduce_plan.plan_two_pass``'s default policy): over the inner axis of
    (4, 100000) the split rows kernel runs it in one launch, fused or not, so the ScaleBias node is its prologue;
    over axes (0, 2) of (64, 2, 4096) (apart: neither the rows nor the columns kernel) CuPy's two passes run it,
    which a fused kernel cannot, so the node stays a step of its own. Planning only: nothing runs."""
    (rows,) = plan_graph(prologue_graph((4, 100000), (1,))).steps
    assert isinstance(rows, FusedReduceStep) and rows.prologue is not None
    apart = plan_graph(prologue_graph((64, 2, 4096), (0, 2))).steps
    assert [type(s).__name__ for s in apart] == ["NodeStep", "NodeStep"]


def test_groups_merged_through_a_chain_keep_every_path_in_view() -> None:
    """e = relu(x) feeds a scan and k; the scan feeds p, p and q = x + x feed i, i feeds k = e + i. When i joins
    p's group and q's group then takes them both, the scan must lead to that group: e and k may not merge (the
    scan runs between them), and the plan compiles. Small integers: exact in float32."""
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    e = gb.relu(x)
    p = gb.relu(gb.op("CUMULATIVE_SUMMATION", e, axis=1))
    i = p + (x + x)
    k = e + i
    graph = gb.build([k])
    steps = plan_graph(graph).steps
    # e alone, the scan, then one kernel for relu(scan), x + x, i and k.
    assert [type(s).__name__ for s in steps] == ["NodeStep", "NodeStep", "FusedStep"]
    assert len(steps[2].nodes) == 4
    xv = np.float32([1, -2, 3, -4, 5, 2])
    x64 = xv.astype(np.float64).reshape(2, 3)
    e64 = np.maximum(x64, 0)
    want = e64 + np.maximum(np.cumsum(e64, axis=1), 0) + 2 * x64
    np.testing.assert_array_equal(run(graph, [xv]), want.ravel())
