"""``python -m benchmarks.host_overhead``: gpuops' own host work per call, without a GPU (issue 33).

On the CUDA emulator (``gpuops.Device("emulator")``, the CuPy backend's code with emulator arrays) every kernel
launch is made a no-op (``RawKernel.__call__``) and the emulator's launch counting is switched off, so what is
timed is what gpuops does in Python around a launch: binding, the launch cache, argument lists. Cases: ``execute``
of ELEMENT_WISE_ADD (1000 float32, the flat kernel), of REDUCE SUM (rows kernel), of a fused element-wise graph,
the convenience call ``op(a, b)``; for reference a bare Python call and ``numpy.add(a, b, out=o)`` (1000 float32).
Where CuPy and a CUDA device are usable, the same with real launches on the GPU (``cupy.add(a, b, out=o)``, gpuops
``execute`` and the convenience call on ``Device("cupy")``), host time per call (no synchronisation inside the
loop). Each number is the median of ``--repeats`` batches of ``--calls`` calls: wall (perf_counter) and this
thread's CPU time (thread_time), in microseconds per call. JSON to ``--out`` (default
``benchmarks/results/host-overhead/host-overhead.json``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import gpuops
from descriptors import DataType, ReduceFunction, TensorDesc, desc_class
from descriptors.graph import GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge

__all__ = ["main", "measure"]

F32 = DataType.FLOAT32
N = 1000
DEFAULT_OUT = Path(__file__).parent / "results" / "host-overhead" / "host-overhead.json"


def measure(fn: Callable[[], Any], calls: int, repeats: int) -> dict[str, float]:
    """Median wall and CPU microseconds per call of ``fn`` over ``repeats`` batches of ``calls`` calls."""
    for _ in range(min(calls, 500)):
        fn()
    walls, cpus = [], []
    for _ in range(repeats):
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        for _ in range(calls):
            fn()
        t1, c1 = time.perf_counter_ns(), time.thread_time_ns()
        walls.append((t1 - t0) / calls / 1e3)
        cpus.append((c1 - c0) / calls / 1e3)
    return {"wall_us": round(statistics.median(walls), 3), "cpu_us": round(statistics.median(cpus), 3)}


@contextlib.contextmanager
def no_op_launches() -> Iterator[None]:
    """The emulator's ``RawKernel`` launches do nothing and are not counted, for the block's duration."""
    from gpuops.emulator import kernels, launches

    call, record = kernels.RawKernel.__call__, launches.record
    kernels.RawKernel.__call__ = lambda self, *args, **kwargs: None  # type: ignore[method-assign]
    launches.record = lambda operator, path: None
    try:
        yield
    finally:
        kernels.RawKernel.__call__ = call  # type: ignore[method-assign]
        launches.record = record


def _graph(t: TensorDesc) -> GraphDesc:
    """``relu(a + b) * c``: three element-wise nodes, one fused kernel."""
    add, relu, mul = (desc_class(n) for n in ("ELEMENT_WISE_ADD", "ACTIVATION_RELU", "ELEMENT_WISE_MULTIPLY"))
    nodes = [
        OperatorNode(add(a_tensor=t, b_tensor=t, output_tensor=t)),
        OperatorNode(relu(input_tensor=t, output_tensor=t)),
        OperatorNode(mul(a_tensor=t, b_tensor=t, output_tensor=t)),
    ]
    return GraphDesc(
        3,
        1,
        nodes,
        [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(2, 2, 1)],
        [OutputEdge(2, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)],
    )


def device_cases(device: gpuops.Device) -> dict[str, tuple[Callable[[], Any], str]]:
    """Name -> (a call of gpuops on ``device``, its launch path)."""
    xp = device.backend_impl.xp
    t = TensorDesc(F32, (N,))
    rng = np.random.default_rng(0)
    a, b, c, o = (xp.asarray(rng.standard_normal(N).astype(np.float32)) for _ in range(4))
    add = device.compile_operator(device.create_operator(desc_class("ELEMENT_WISE_ADD")(t, t, t)))
    rows = TensorDesc(F32, (8, 125))
    reduce = device.compile_operator(
        device.create_operator(
            desc_class("REDUCE")(ReduceFunction.SUM, rows, TensorDesc(F32, (8, 1)), axes=(1,))  # type: ignore[call-arg]
        )
    )
    r = xp.zeros(8, dtype=np.float32)
    graph = device.compile_graph(_graph(t))
    ins2, outs, ins3, outr = [a, b], [o], [a, b, c], [r]
    return {
        "execute_add_f32": (lambda: add.execute(ins2, outs), add.launch_path),
        "execute_reduce_sum_f32": (lambda: reduce.execute([a], outr), reduce.launch_path),
        "execute_graph_f32": (lambda: graph.execute(ins3, outs), graph.launch_path),
        "call_add_f32": (lambda: add(a, b), add.launch_path),
        "call_add_out_f32": (lambda: add(a, b, out=o), add.launch_path),
    }


def reference_cases() -> dict[str, Callable[[], Any]]:
    """A bare Python call and ``numpy.add(a, b, out=o)`` on 1000 float32."""
    a, b, o = (np.ones(N, np.float32) for _ in range(3))

    def bare() -> None:
        return None

    return {"python_call": bare, "numpy_add_out_f32": lambda: np.add(a, b, out=o)}


def gpu_cases() -> dict[str, Callable[[], Any]]:
    """Real launches on a GPU (host time per call), or nothing where CuPy or a device is not usable."""
    try:
        import cupy

        if not cupy.is_available():
            return {}
    except Exception:
        return {}
    a, b, o = (cupy.ones(N, cupy.float32) for _ in range(3))
    out: dict[str, Callable[[], Any]] = {"gpu_cupy_add_out_f32": lambda: cupy.add(a, b, out=o)}
    for name, (fn, _) in device_cases(gpuops.Device("cupy")).items():
        out["gpu_" + name] = fn
    return out


def run(calls: int, repeats: int, gpu: bool = True) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name, fn in reference_cases().items():
        results[name] = measure(fn, calls, repeats)
    device = gpuops.Device("emulator")
    cases = device_cases(device)
    for _, (fn, _) in cases.items():  # compiled and checked once with real launches
        fn()
    with no_op_launches():
        for name, (fn, path) in cases.items():
            results["emulator_" + name] = {**measure(fn, calls, repeats), "launch_path": path}
    if gpu:
        for name, fn in gpu_cases().items():
            results[name] = measure(fn, calls, repeats)
        with contextlib.suppress(Exception):
            import cupy

            cupy.cuda.Device().synchronize()
    return {
        "benchmark": "host_overhead",
        "elements": N,
        "calls": calls,
        "repeats": repeats,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "machine": platform.machine(),
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.host_overhead", description=__doc__)
    parser.add_argument("--calls", type=int, default=5000, help="calls per batch (default 5000)")
    parser.add_argument("--repeats", type=int, default=7, help="batches; the median is reported (default 7)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write")
    parser.add_argument("--no-gpu", action="store_true", help="skip the real-GPU cases even where CuPy is usable")
    args = parser.parse_args(argv)
    report = run(args.calls, args.repeats, gpu=not args.no_gpu)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    width = max(len(k) for k in report["results"])
    print(f"{'case':<{width}}  wall us  cpu us  path")
    for name, r in report["results"].items():
        print(f"{name:<{width}}  {r['wall_us']:7.2f}  {r['cpu_us']:6.2f}  {r.get('launch_path', '')}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
