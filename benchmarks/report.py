"""What a benchmark run reports: environment (device, versions, commit), the text table, the summary and
the plot."""

from __future__ import annotations

import math
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import gpuops

from . import ROOT
from .cases import ALTERNATIVES, CALL, CASES, COPY2, ELEMENTWISE, NODES, OVERHEAD_N, TORCH, UFUNCS, Bench

__all__ = ["device_info", "git_commit", "plot", "summarize", "versions"]
# --------------------------------------------------------------------------- environment


def git_commit() -> str | None:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except Exception:
        return os.environ.get("GPUOPS_COMMIT")
    return head + ("-dirty" if dirty else "")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_info(bench: Bench) -> dict[str, Any]:
    info: dict[str, Any] = {"backend": bench.backend, "cpu": _cpu_model(), "cpu_count": os.cpu_count()}
    if bench.backend == "cupy":
        import cupy

        rt = cupy.cuda.runtime
        props = rt.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        info.update(
            {
                "name": name.decode() if isinstance(name, bytes) else str(name),
                "compute_capability": f"{props['major']}.{props['minor']}",
                "total_memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
                "cuda_runtime": rt.runtimeGetVersion(),
                "cuda_driver": rt.driverGetVersion(),
            }
        )
    else:
        info["name"] = f"{info['cpu']} ({info['cpu_count']} CPUs)"
    return info


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version(), "gpuops": gpuops.__version__}
    for mod in ("numpy", "ml_dtypes", "numba", "cupy", "torch", "matplotlib"):
        try:
            out[mod] = str(__import__(mod).__version__)
        except Exception:
            out[mod] = None
    return out


# --------------------------------------------------------------------------- report


def _fmt_table(rows: list[dict[str, Any]], baseline: str) -> list[str]:
    by_n: dict[int, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_n.setdefault(r["n"], {})[r["variant"]] = r
    has_torch = any(TORCH in v for v in by_n.values())
    has_copy2 = any(COPY2 in v for v in by_n.values())
    head = (
        f"{'n':>10}  {'gpuops us':>10}  {baseline + ' us':>10}  {'copy us':>10}  "
        f"{'gpuops GB/s':>11}  {baseline + ' GB/s':>11}  {'copy GB/s':>9}  {'x base':>6}  {'vs copy':>7}"
    )
    if has_torch:
        head += f"  {'torch us':>10}  {'x torch':>7}"
    if has_copy2:
        head += f"  {'copy-2t GB/s':>12}  {'vs copy-2t':>10}"
    general = next((a for a in (*ALTERNATIVES, CALL) if any(a in v for v in by_n.values())), None)
    lines = [head + (f"  {general + ' us':>24}" if general else "")]
    for n, v in sorted(by_n.items()):
        g, b, c = v["gpuops"], v[baseline], v.get("copy")
        line = (
            f"{n:>10}  {g['median_us']:>10.2f}  {b['median_us']:>10.2f}  "
            f"{(c['median_us'] if c else math.nan):>10.2f}  {g['GB_s']:>11.2f}  {b['GB_s']:>11.2f}  "
            f"{(c['GB_s'] if c else math.nan):>9.2f}  {g['ratio_to_baseline']:>6.2f}  "
            f"{(g['bw_vs_copy'] if c else math.nan):>7.2f}"
        )
        if has_torch:
            t = v.get(TORCH)
            line += f"  {(t['median_us'] if t else math.nan):>10.2f}  {g.get('ratio_to_torch', math.nan):>7.2f}"
        if has_copy2:
            c2 = v.get(COPY2)
            line += f"  {(c2['GB_s'] if c2 else math.nan):>12.2f}  {g.get('bw_vs_copy_2t', math.nan):>10.2f}"
        if general:
            e = v.get(general)
            line += f"  {(e['median_us'] if e else math.nan):>24.2f}"
        lines.append(line)
    return lines


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per case: geometric-mean and largest-size time ratio of gpuops to the baseline."""
    out: dict[str, Any] = {}
    for case in CASES:
        g = [r for r in rows if r["case"] == case and r["variant"] == "gpuops"]
        if not g:
            continue
        big = max(g, key=lambda r: r["n"])
        entry = {
            "geomean_ratio_to_baseline": math.exp(statistics.fmean(math.log(r["ratio_to_baseline"]) for r in g)),
            "largest_n": big["n"],
            "ratio_to_baseline_at_largest": big["ratio_to_baseline"],
            "bw_vs_copy_at_largest": big["bw_vs_copy"],
            "GB_s_at_largest": big["GB_s"],
        }
        with_torch = [r for r in g if "ratio_to_torch" in r]
        if with_torch:  # > 1: gpuops is slower than PyTorch's kernels (CPU or CUDA, the backend's)
            logs = [math.log(r["ratio_to_torch"]) for r in with_torch]
            entry["geomean_ratio_to_torch"] = math.exp(statistics.fmean(logs))
            entry["ratio_to_torch_at_largest"] = big.get("ratio_to_torch")
            entry["worst_ratio_to_torch"] = max(r["ratio_to_torch"] for r in with_torch)
        if "bw_vs_copy_2t" in big:
            entry["bw_vs_copy_2t_at_largest"] = big["bw_vs_copy_2t"]
        alt = {r["n"]: r for r in rows if r["case"] == case and r["variant"] == NODES}
        if big["n"] in alt:  # what fusion buys: the nodes one by one over the fused graph
            entry["node_by_node_over_fused_at_largest"] = alt[big["n"]]["median_us"] / big["median_us"]
        if case == "overhead_f32":
            others = ("gpuops", *ALTERNATIVES, CALL, TORCH, "copy", COPY2)
            base = next(r for r in rows if r["case"] == case and r["variant"] not in others)
            entry["gpuops_us_per_call"] = big["median_us"]
            entry["baseline_us_per_call"] = base["median_us"]
            entry["overhead_us_per_call"] = big["median_us"] - base["median_us"]
            call = next((r for r in rows if r["case"] == case and r["variant"] == CALL), None)
            if call is not None:
                entry["call_us_per_call"] = call["median_us"]
                entry["call_ratio_to_baseline"] = call["ratio_to_baseline"]
        out[case] = entry
    return out


def plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed (pip install -e .[bench]); no plot written", file=sys.stderr)
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, baseline = result["rows"], result["baseline"]
    cases = [c for c in CASES if c != "overhead_f32" and any(r["case"] == c for r in rows)]
    ncols = 4
    nrows = -(-(len(cases) + 1) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.6 * nrows), squeeze=False)
    styles = {
        "gpuops": ("C0", "o", "-"),
        ELEMENTWISE: ("C2", "x", "-."),
        UFUNCS: ("C2", "x", "-."),
        NODES: ("C3", "v", "-."),
        baseline: ("C1", "s", "--"),
        TORCH: ("C4", "D", "--"),
        "copy": ("0.5", "^", ":"),
        COPY2: ("0.3", "v", ":"),
        CALL: ("C5", "o", "-"),
    }
    for ax, case in zip(axes.flat, cases, strict=False):
        bpe = next(r["bytes_per_elem"] for r in rows if r["case"] == case and r["variant"] == "gpuops")
        for variant, (color, marker, ls) in styles.items():
            pts = sorted((r["n"], r["GB_s"]) for r in rows if r["case"] == case and r["variant"] == variant)
            if not pts:
                continue
            label = {
                "gpuops": "gpuops execute()",
                ELEMENTWISE: "gpuops, CuPy ElementwiseKernel path",
                UFUNCS: "gpuops, ufunc chain (no numba)",
                NODES: "gpuops, the nodes one by one",
                "copy": f"{baseline}.copyto",
                TORCH: "torch (CUDA, same buffers)" if result["backend"] == "cupy" else "torch (CPU)",
                COPY2: "copy on two threads",
            }.get(variant, f"{baseline} ufunc(s)")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker=marker, ls=ls, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("counted GB/s (log)")
        title = f"{case} ({bpe:g} B/elem counted)"
        xt = max((r for r in rows if r["case"] == case and r["variant"] == "gpuops"), key=lambda r: r["n"])
        if "ratio_to_torch" in xt:  # time ratio: > 1, gpuops is slower
            title += f"\nx torch {xt['ratio_to_torch']:.2f} at n={xt['n']}"
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(cases) + 1 :]:
        ax.axis("off")
    ax = axes.flat[len(cases)]
    over = [r for r in rows if r["case"] == "overhead_f32"]
    if over:
        names = [r["variant"] for r in over]
        vals = [r["median_us"] for r in over]
        bars = ax.bar(names, vals, color=[styles.get(n, ("C2",))[0] for n in names])
        ax.tick_params(axis="x", labelsize=7, labelrotation=25)
        for bar, v in zip(bars, vals, strict=True):
            ax.annotate(f"{v:.2f} us", (bar.get_x() + bar.get_width() / 2, v), ha="center", va="bottom", fontsize=9)
        ax.set_ylabel("host us per call (median)")
        xt = next((r.get("ratio_to_torch") for r in over if r["variant"] == "gpuops"), None)
        xt_text = f"; x torch {xt:.2f}" if xt is not None else ""
        ax.set_title(f"per-call cost at {OVERHEAD_N} float32 elements{xt_text}", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    dev = result["device"].get("name", result["backend"])
    commit = result.get("git_commit") or "unknown"
    commit = commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")
    fig.suptitle(f"gpuops {result['backend']} backend on {dev}\n{result['date']}  commit {commit}", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
