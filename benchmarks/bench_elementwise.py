"""Element-wise benchmark: gpuops against the raw ufunc and a same-size copy, interleaved.

The harness is split by job: ``benchmarks/cases.py`` (what is measured), ``benchmarks/timers.py`` (how),
``benchmarks/report.py`` (environment, table, summary, plot) and this module (the run and the command line).

    python -m benchmarks --backend numpy --quick --out benchmarks/results/cpu-latest
    python -m benchmarks --backend cupy --quick --out "$OUT"      # on a GPU machine

Cases (every one measured for gpuops, the backend's own ufunc and a copy of the same
element count, round-robin within one process so that clock or thermal drift hits all
three alike):

- ``add_f32``: ``ELEMENT_WISE_ADD`` float32 vs ``xp.add(a, b, out=c)`` vs ``xp.copyto(c, a)``.
- ``add_f16``: float16 add (gpuops computes in float32, rounds once) vs the backend's float16 add.
- ``add_bf16``: bfloat16 add (ml_dtypes' ufunc on the NumPy backend) likewise.
- ``add1_relu_f32``: ``ELEMENT_WISE_ADD1`` with a fused ``ACTIVATION_RELU`` vs the two-ufunc
  chain ``add(a, b, out=c); maximum(c, 0, out=c)``.
- ``exp_scalebias_f32``: ``ELEMENT_WISE_EXP`` with ScaleBias vs ``multiply``, ``add``, ``exp``
  with ``out=``.
- ``row_bcast_f32``: ``[M, C] + [C]`` with ``C = 1024`` (``--cols``); gpuops reads B through a stride-0
  descriptor, the ufunc through NumPy/CuPy broadcasting; ``row_bcast_f16`` the same in float16 (a bias
  add; the NumPy backend's compiled rows loop). ``col_bcast_f32``: ``[M, C] + [M, 1]``.
- ``transposed_f32``: ``A.T + B`` for square ``[S, S]`` (``n = S * S``): A read through
  transposed strides.
- ``sum_full_f32``, ``sum_inner_f32``, ``sum_outer_f32``, ``max_inner_f32``: ``REDUCE`` over
  all of ``[n]``, over the last axis of ``[n / C, C]`` and over its first axis, vs
  ``xp.sum``/``xp.max(axis=..., out=...)``; 4 B/elem counted (the input read once). ``sum_middle_f32``: over the
  middle axis of ``[n / (16 C), 16, C]``; ``argmax_inner_f32``: ``ARGMAX`` (INT64) over the last axis vs
  ``xp.argmax`` and ``torch.argmax``.
- ``graph_chain4_f32``: the 4-node graph ``relu(x * 0.5 + 1) * x + x`` compiled (one fused kernel) vs its
  nodes run one by one (``gpuops-node-by-node``), NumPy's five-ufunc chain and a copy.
- ``softmax_inner_f32``, ``log_softmax_inner_f32``, ``mvn_inner_f32``: ``ACTIVATION_SOFTMAX1``,
  ``ACTIVATION_LOG_SOFTMAX1``, ``MEAN_VARIANCE_NORMALIZATION1`` (no scale or bias) over the last axis of
  ``[n / C, C]`` (composites: one row-program kernel on CuPy where a row fits, else their parts) vs the array
  library's formula, ``torch.softmax`` / ``log_softmax`` / ``layer_norm`` (no affine) and a copy; 8 B/elem counted.
- ``overhead_f32``: 1000 elements; the per-call cost of ``CompiledOperator.execute`` (binding
  checks included) vs one ufunc call. Host time on both backends.

Where PyTorch is installed (the ``bench`` extra; ``GPUOPS_BENCH_TORCH=0`` leaves it out), every case also times PyTorch
on the same buffers in the same round-robin: on the NumPy backend its CPU kernels (``torch.from_numpy``; its own thread
count, 2 here), on the CuPy backend its CUDA kernels on the same device buffers (``torch.from_dlpack`` of the CuPy
arrays, no copy), timed by the same CUDA events as gpuops and CuPy: ``torch`` rows, ``ratio_to_torch`` ("x torch",
> 1: gpuops is slower) in the rows, the table, the summary and the plot. Without torch (or without CUDA in torch, on
the CuPy backend) the peer is left out and the run says why (``torch_peer`` in the JSON). From 1 MiB a ``copy-2t``
row times the copy split over two threads (NumPy backend), the bandwidth a multi-threaded kernel should be held to
(``bw_vs_copy_2t``). The overhead case also times the convenience call ``op(a, b)`` (``gpuops-call``, which
allocates its output).

Sizes 2^10..2^22 elements with ``--quick`` (every other power of two), 2^10..2^26 otherwise.
Timing: NumPy, ``time.perf_counter`` around batches of calls; CuPy,
``cupyx.profiler.benchmark`` (CUDA-event GPU times; host times for the overhead case).
Reported: the median over repeats, counted GB/s (useful bytes: 12 B/elem for a float32
binary op, 6 for float16, 8 for a float32 copy or a row-broadcast add), the time ratio to
the ufunc (``ratio_to_baseline``, > 1 is slower) and the counted bandwidth relative to the
copy (``bw_vs_copy``, 1.0 = copy speed).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gpuops
from descriptors import (
    DataType,
)

from .cases import CASES, NORMALIZE_CASES, REDUCE_CASES, ROW_C, Bench, sizes
from .report import _fmt_table, device_info, git_commit, plot, summarize, versions

__all__ = ["main", "run"]


def run(
    backend: str = "auto",
    quick: bool = False,
    out: Path | None = None,
    max_log2: int | None = None,
    repeats: int | None = None,
    cases: Sequence[str] = CASES,
    explicit_sizes: Sequence[int] = (),
    cols: int = ROW_C,
    budget: float | None = None,
) -> dict[str, Any]:
    bench = Bench(backend, quick, repeats, cols)
    started = time.perf_counter()
    left_out: list[str] = []
    print(
        f"gpuops benchmark: backend {bench.backend}, {'quick' if quick else 'full'}, "
        f"{bench.repeats} interleaved repeats; timer: {bench.timer.clock}\ntorch peer: {bench.torch_note}"
    )
    rows: list[dict[str, Any]] = []
    for case in cases:
        if budget is not None and time.perf_counter() - started > budget:
            left_out.append(case)  # out of time: the JSON and plot still come, with what was measured
            continue
        if case == "overhead_f32":
            groups = [bench.overhead()]
        else:
            groups = []
            for n in sizes(quick, max_log2, bench.backend, explicit_sizes):
                if case == "add_f32":
                    groups.append(bench.binary(case, n, DataType.FLOAT32))
                elif case == "add_f16":
                    groups.append(bench.binary(case, n, DataType.FLOAT16))
                elif case == "add_bf16":
                    groups.append(bench.binary(case, n, DataType.BFLOAT16))
                elif case == "add1_relu_f32":
                    groups.append(bench.add1_relu(n))
                elif case == "exp_scalebias_f32":
                    groups.append(bench.exp_scalebias(n))
                elif case == "col_bcast_f32":
                    groups.append(bench.col_bcast(n))
                elif case == "transposed_f32":
                    groups.append(bench.transposed(n))
                elif case == "row_bcast_f32":
                    groups.append(bench.row_bcast(n))
                elif case == "row_bcast_f16":
                    groups.append(bench.row_bcast(n, DataType.FLOAT16))
                elif case in REDUCE_CASES:
                    groups.append(bench.reduction(case, n))
                elif case == "graph_chain4_f32":
                    groups.append(bench.graph_chain(n))
                elif case in NORMALIZE_CASES:
                    groups.append(bench.normalize(case, n))
                else:
                    raise ValueError(f"unknown case {case!r}; known: {', '.join(CASES)}")
        case_rows: list[dict[str, Any]] = []
        for g in groups:
            case_rows += bench.measure(g)
            g.variants.clear()  # drop the closures (and their arrays) before the next size
        print(f"\n== {case}")
        print("\n".join(_fmt_table(case_rows, bench.baseline)))
        rows += case_rows
    result: dict[str, Any] = {
        "benchmark": "bench_elementwise",
        "backend": bench.backend,
        "baseline": bench.baseline,
        "quick": quick,
        "device": device_info(bench),
        "versions": versions(),
        "git_commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "timer": bench.timer.clock,
        "torch_peer": bench.torch_note,
        "repeats": bench.repeats,
        "row_cols": bench.cols,
        "notes": "median over interleaved repeats; GB_s counts useful bytes (bytes_per_elem * n); "
        "ratio_to_baseline = time / baseline time (> 1 is slower); bw_vs_copy = GB_s / copy GB_s",
        "summary": summarize(rows),
        "cases_left_out": {"cases": left_out, "why": f"past --budget {budget} s"} if left_out else None,
        "rows": rows,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    print("\n== summary (gpuops time / baseline time; counted bandwidth vs copy)")
    for case, s in result["summary"].items():
        line = (
            f"{case:>14}: geomean x{s['geomean_ratio_to_baseline']:.2f}, at n={s['largest_n']}: "
            f"x{s['ratio_to_baseline_at_largest']:.2f}"
        )
        if s["bw_vs_copy_at_largest"] is not None:
            line += f", {s['bw_vs_copy_at_largest']:.2f} of copy bandwidth ({s['GB_s_at_largest']:.2f} GB/s)"
        if "ratio_to_torch_at_largest" in s:
            line += f"; vs torch x{s['ratio_to_torch_at_largest']:.2f} (worst x{s['worst_ratio_to_torch']:.2f})"
        if "bw_vs_copy_2t_at_largest" in s:
            line += f", {s['bw_vs_copy_2t_at_largest']:.2f} of the 2-thread copy"
        if "overhead_us_per_call" in s:
            line += (
                f"; {s['gpuops_us_per_call']:.2f} us vs {s['baseline_us_per_call']:.2f} us per call "
                f"(+{s['overhead_us_per_call']:.2f} us)"
            )
            if "call_us_per_call" in s:
                line += f"; op(a, b) {s['call_us_per_call']:.2f} us (x{s['call_ratio_to_baseline']:.2f})"
        print(line)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        jpath = out / f"bench-{bench.backend}.json"
        jpath.write_text(json.dumps(result, indent=2) + "\n")
        print(f"\nwrote {jpath}")
        ppath = out / f"bench-{bench.backend}.png"
        if plot(result, ppath):
            print(f"wrote {ppath}")
    if left_out:
        print(f"left out (past --budget {budget} s): {', '.join(left_out)}")
    print(f"elapsed {result['elapsed_s']} s")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("auto", "numpy", "cupy"), default="auto")
    parser.add_argument("--quick", action="store_true", help="sizes 2^10..2^22, fewer repeats (about a minute on CPU)")
    parser.add_argument("--out", type=Path, default=None, help="directory for bench-<backend>.json and .png")
    parser.add_argument("--max-log2", type=int, default=None, help="largest size as a power of two (smoke tests)")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats per measurement")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated subset of {', '.join(CASES)}")
    parser.add_argument(
        "--sizes", default="", help="comma-separated element counts instead of the default ladder (e.g. 1e7,1e8)"
    )
    parser.add_argument(
        "--cols",
        type=int,
        default=ROW_C,
        help=f"row length of the broadcast, reduction and softmax cases ([n / cols, cols]; default {ROW_C})",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds: cases not started by then are left out (listed in the JSON), so that a bounded run still "
        "writes its results",
    )
    args = parser.parse_args(argv)
    try:
        explicit = [int(float(x)) for x in args.sizes.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--sizes: not a list of numbers: {args.sizes!r}")
    if any(n < 1 for n in explicit):
        parser.error(f"--sizes: element counts must be positive (got {args.sizes!r})")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    try:
        run(args.backend, args.quick, args.out, args.max_log2, args.repeats, cases, explicit, args.cols, args.budget)
    except gpuops.UnsupportedError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    return 0
