"""Dask scale-out benchmark (issue 19): gpuops on a ``distributed.LocalCluster`` of 1 and then 2 worker processes.

    python -m benchmarks.bench_dask --out benchmarks/results/cpu-dask            # about two minutes on 2 cores
    python -m benchmarks.bench_dask --gib 0.25 --repeats 1 --out /tmp/dask-smoke  # a quick look

Two computations over a float32 array of ``--gib`` GiB (default 1), made chunk by chunk on the workers
(``dask.array.full``: it never exists whole, on the client or on any worker), each worker held to
``--memory-limit`` (default 600 MB, less than the array), one thread per worker:

- ``graph``: the 4-node graph ``relu(x * 0.5 + 1) * x + x`` with ``gpuops.dask.map_graph`` (one fused kernel per
  chunk), summed by Dask (a small result to bring back), vs the same expression in NumPy ufuncs through Dask;
- ``reduce``: ``gpuops.dask.reduce(x, "SUM_SQUARE", axes=(0, 1))`` vs Dask's ``(x * x).sum()``.

Reported per case and worker count: the median wall time of ``--repeats`` computes (after one warm-up that
compiles on every worker), GB/s of the array's bytes, and the speed-up of 2 workers over 1. Side by side in one
run: ``gpuops`` and ``dask-numpy`` alternate on the same cluster. JSON and a PNG go to ``--out``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from .report import git_commit, versions

__all__ = ["main", "run"]

CHUNK = (2048, 4096)  # 32 MiB of float32 per chunk


def _array(gib: float) -> Any:
    import dask.array as da

    rows = max(CHUNK[0], int(gib * 2**30 / 4 / CHUNK[1]) // CHUNK[0] * CHUNK[0])
    # Each chunk made where it is used, by a fill (a memset's cost, so the times are gpuops' and NumPy's work,
    # not a random generator's: da.random's normals ran at 0.3 GB/s here, slower than either).
    return da.full((rows, CHUNK[1]), -0.75, chunks=CHUNK, dtype=np.float32)


def _cases(x: Any) -> dict[str, dict[str, Any]]:
    import dask.array as da

    import gpuops.dask as gd

    graph = gd.map_graph(lambda b, v: b.relu(v * 0.5 + 1.0) * v + v, x).sum()
    numpy_graph = (da.maximum(x * np.float32(0.5) + np.float32(1.0), np.float32(0)) * x + x).sum()
    return {
        "graph": {"gpuops": graph, "dask-numpy": numpy_graph},
        "reduce": {"gpuops": gd.reduce(x, "SUM_SQUARE", axes=(0, 1)), "dask-numpy": (x * x).sum()},
    }


def run(gib: float, repeats: int, memory_limit: str, workers: tuple[int, ...]) -> dict[str, Any]:
    from distributed import Client, LocalCluster

    x = _array(gib)
    nbytes = int(np.prod(x.shape)) * 4
    rows: list[dict[str, Any]] = []
    for n in workers:
        with (
            LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                host="127.0.0.1", dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):  # fmt: skip
            cases = _cases(x)
            for case, variants in cases.items():
                for v in variants.values():  # warm-up: every worker compiles its kernels, imports gpuops
                    client.compute(v).result()
                times: dict[str, list[float]] = {k: [] for k in variants}
                for r in range(repeats):
                    order = list(variants) if r % 2 == 0 else list(variants)[::-1]
                    for name in order:
                        t0 = time.perf_counter()
                        client.compute(variants[name]).result()
                        times[name].append(time.perf_counter() - t0)
                for name, ts in times.items():
                    med = statistics.median(ts)
                    rows.append(
                        {"case": case, "variant": name, "workers": n, "median_s": med, "min_s": min(ts),
                         "GB_s": nbytes / med / 1e9, "samples": len(ts)}
                    )  # fmt: skip
                    print(f"{case:7s} {name:11s} workers={n} median {med:7.3f} s  {nbytes / med / 1e9:6.2f} GB/s")
    for r in rows:
        one = next(o for o in rows if o["case"] == r["case"] and o["variant"] == r["variant"] and o["workers"] == 1)
        r["speedup_vs_1_worker"] = one["median_s"] / r["median_s"]
    return {
        "benchmark": "bench_dask",
        "array": {"shape": list(x.shape), "chunks": list(CHUNK), "dtype": "float32", "bytes": nbytes},
        "memory_limit_per_worker": memory_limit,
        "threads_per_worker": 1,
        "cpu_count": os.cpu_count(),
        "versions": versions(),
        "git_commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "notes": "median wall time of client.compute(...).result() after a warm-up; GB_s = array bytes / time; "
        "gpuops and dask-numpy alternate on the same cluster",
        "rows": rows,
    }


def plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    fig, axes = plt.subplots(1, len(cases), figsize=(5 * len(cases), 3.6), squeeze=False)
    for ax, case in zip(axes[0], cases, strict=True):
        variants = list(dict.fromkeys(r["variant"] for r in rows if r["case"] == case))
        workers = sorted({r["workers"] for r in rows})
        width = 0.8 / len(variants)
        for k, v in enumerate(variants):
            gbs = [
                next(r["GB_s"] for r in rows if (r["case"], r["variant"], r["workers"]) == (case, v, w))
                for w in workers
            ]
            ax.bar([i + k * width for i in range(len(workers))], gbs, width, label=v)
        ax.set_xticks(
            [i + width * (len(variants) - 1) / 2 for i in range(len(workers))], [f"{w} worker(s)" for w in workers]
        )
        ax.set_ylabel("GB/s of the array")
        ax.set_title(f"{case}: {result['array']['bytes'] / 2**30:.2f} GiB, {result['memory_limit_per_worker']}/worker")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dask", description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="array size in GiB (float32)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-limit", default="600MB", help="per worker (less than the array)")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args.gib, args.repeats, args.memory_limit, tuple(int(w) for w in args.workers.split(",")))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "bench-dask.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out / 'bench-dask.json'}")
        if plot(result, args.out / "bench-dask.png"):
            print(f"wrote {args.out / 'bench-dask.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
