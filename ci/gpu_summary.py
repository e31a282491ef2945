"""The end of ``ci/gpu_suite.sh``: ``summary.json`` and ``summary.txt`` from the run's JUnit XML and benchmark JSON.

Failures (and errors) are grouped by message class: the first line of the failure message with addresses, numbers,
worker names and the test's own parameters normalized (``0x7f3a...`` -> ``0x?``, ``-13.148`` -> ``N``, ``gw12`` ->
``gwN``, ``ELEMENT_WISE_MIN`` in a message of ``test_x[cupy-ELEMENT_WISE_MIN-FLOAT32]`` -> ``<param>``), so that
one cause shows as one class with a count and a few example test ids.
Tests that poisoned the device context (tests/conftest.py's device fault guard) and tests skipped because their
worker was restarted after that are listed apart.

    python3 ci/gpu_summary.py --out DIR [--pytest-rc N] [--bench-rc N] ...   # what gpu_suite.sh runs
    python3 ci/gpu_summary.py --classes failures.tsv                          # classes of "test id<TAB>message" lines
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAX_FILES = 8  # what the device tool brings back from $OUT
POISON_PREFIX = "device context poisoned by this test"  # tests/conftest.py's device fault guard
RESTART_SKIP = "not run on worker"  # its skip for the test a restarted worker never started
CRASH = re.compile(r"worker '?gw\d+'? crashed while running")

_NORMALIZE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "0x?"),
    (re.compile(r"\bgw\d+\b"), "gwN"),
    (re.compile(r"'tests/[^']*'"), "'<test>'"),
    (re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])"), "N"),
]


BACKEND_NAMES = {"cupy", "numpy", "emulator"}


def _params(test_id: str) -> list[str]:
    """The parametrization of a test id (``[cupy-ELEMENT_WISE_MIN-FLOAT32-in_place_a]``) less backends and numbers."""
    m = re.search(r"\[(.*)\]$", test_id)
    toks = re.split(r"[-,]", m.group(1)) if m else []
    return sorted({t for t in toks if len(t) >= 3 and t not in BACKEND_NAMES and not t.isdigit()}, key=len)[::-1]


def message_class(message: str | None, test_id: str = "", limit: int = 200) -> str:
    """The class of a failure message: its first non-empty line with addresses, numbers, worker names and the
    test's own parameters (from its id: an op name, a dtype, a layout) normalized."""
    line = next((ln.strip() for ln in (message or "").splitlines() if ln.strip()), "(no message)")
    for tok in _params(test_id):
        line = re.sub(rf"(?<![A-Za-z0-9.]){re.escape(tok)}(?![A-Za-z0-9])", "<param>", line)
    for pattern, repl in _NORMALIZE:
        line = pattern.sub(repl, line)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def group_failures(failures: Iterable[tuple[str, str]], examples: int = 3) -> list[dict[str, Any]]:
    """``(test id, message)`` pairs -> classes, most frequent first: count, example ids, files with counts."""
    by_class: dict[str, list[str]] = collections.defaultdict(list)
    for test_id, message in failures:
        by_class[message_class(message, test_id)].append(test_id)
    out = []
    for cls, ids in sorted(by_class.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        files = collections.Counter(i.split("::")[0] for i in ids)
        out.append({"class": cls, "count": len(ids), "examples": ids[:examples], "files": dict(files.most_common(5))})
    return out


def _test_id(classname: str, name: str) -> str:
    """``tests.test_x.TestC`` + ``test_y[p]`` -> ``tests/test_x.py::TestC::test_y[p]`` (the module found on disk)."""
    parts = classname.split(".") if classname else []
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (ROOT / path).is_file():
            return "::".join([path, *parts[cut:], name])
    return "::".join([*parts, name]) if parts else name


def read_junit(path: Path) -> dict[str, Any]:
    """Counts, failing (test id, message) pairs, skips, per-file seconds from a pytest JUnit XML."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    counts = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
    failures: list[tuple[str, str]] = []
    skips: list[tuple[str, str]] = []
    seconds: collections.Counter[str] = collections.Counter()
    for case in root.iter("testcase"):
        tid = _test_id(case.get("classname", ""), case.get("name", ""))
        seconds[tid.split("::")[0]] += float(case.get("time", 0) or 0)
        for tag in ("failure", "error"):
            for el in case.findall(tag):
                msg = el.get("message") or (el.text or "")
                failures.append((tid, msg if tag == "failure" else f"[error] {msg}"))
        for el in case.findall("skipped"):
            skips.append((tid, el.get("message") or ""))
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return {"counts": counts, "failures": failures, "skips": skips, "seconds": seconds}


def failure_report(junit: dict[str, Any], max_classes: int = 40) -> dict[str, Any]:
    failures = junit["failures"]
    classes = group_failures(failures)
    poisoned = [
        {"test": t, "error": m.splitlines()[0].split(": ", 1)[-1]} for t, m in failures if POISON_PREFIX in m[:80]
    ]
    restarted = [t for t, m in junit["skips"] if RESTART_SKIP in m]
    crashed = [t for t, m in failures if CRASH.search(m)]
    report: dict[str, Any] = {
        "total": len(failures),
        "class_count": len(classes),
        "classes": classes[:max_classes],
        "poisoned_by": poisoned,
        "worker_restarts_after_poisoning": len(restarted),
        "restarted_before": restarted[:10],
        "crashed_workers": crashed[:10],
        "slowest_files_s": {f: round(s, 1) for f, s in junit["seconds"].most_common(10)},
    }
    if len(classes) > max_classes:
        report["classes_left_out"] = len(classes) - max_classes
    return report


# --------------------------------------------------------------------------- environment


def _version(mod: str) -> str:
    try:
        return str(__import__(mod).__version__)
    except Exception as exc:
        return f"not importable: {exc}"


def _smi(query: str) -> str | None:
    try:
        r = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], capture_output=True, text=True, timeout=60
        )
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else None
    except Exception:
        return None


def _cuda() -> tuple[dict[str, Any], str | None]:
    try:
        import cupy

        rt = cupy.cuda.runtime
        info: dict[str, Any] = {"available": cupy.is_available()}
        info.update(runtime=rt.runtimeGetVersion(), driver=rt.driverGetVersion())
        name = rt.getDeviceProperties(0)["name"] if info["available"] else None
        return info, name.decode() if isinstance(name, bytes) else name
    except Exception as exc:
        return {"error": str(exc)}, None


def _bench(out: Path) -> dict[str, Any] | None:
    """Per case from bench-<backend>.json: gpuops time over the baseline's and over torch's, at the largest size."""
    found = sorted(out.glob("bench-*.json"))
    if not found:
        return None
    path = found[0]
    try:
        res = json.loads(path.read_text())
    except ValueError as exc:
        return {"error": f"{path.name}: {exc}"}
    cases = {}
    for case, s in res.get("summary", {}).items():
        entry = {"n": s.get("largest_n"), "x_" + str(res.get("baseline")): s.get("ratio_to_baseline_at_largest")}
        if s.get("ratio_to_torch_at_largest") is not None:
            entry["x_torch"] = s["ratio_to_torch_at_largest"]
        if s.get("bw_vs_copy_at_largest") is not None:
            entry["of_copy_bandwidth"] = s["bw_vs_copy_at_largest"]
        cases[case] = {k: round(v, 3) if isinstance(v, float) else v for k, v in entry.items()}
    return {
        "file": path.name,
        "torch_peer": res.get("torch_peer"),
        "cases_left_out": res.get("cases_left_out"),
        "elapsed_s": res.get("elapsed_s"),
        "at_largest_n": cases,
    }


# --------------------------------------------------------------------------- the files

MAX_BYTES = 15 << 20  # the device tool brings back files of up to 16 MiB


def cap_sizes(out: Path) -> list[str]:
    """Keep every file under the size the device tool brings back: a big XML is gzipped (already summarized), a
    big log keeps its first 4 MiB and its last 10 MiB (the failures summary is at the end)."""
    notes = []
    for p in sorted(out.iterdir()):
        if not p.is_file() or p.stat().st_size <= MAX_BYTES:
            continue
        size = p.stat().st_size
        if p.suffix == ".xml":
            import gzip

            with p.open("rb") as src, gzip.open(p.with_name(p.name + ".gz"), "wb", compresslevel=6) as dst:
                dst.write(src.read())
            p.unlink()
            notes.append(f"{p.name} ({size} bytes) gzipped to {p.name}.gz")
        else:
            data = p.read_bytes()
            cut = f"\n\n[... {size - (14 << 20)} bytes cut by ci/gpu_summary.py to fit {MAX_BYTES} bytes ...]\n\n"
            p.write_bytes(data[: 4 << 20] + cut.encode() + data[-(10 << 20) :])
            notes.append(f"{p.name} ({size} bytes) cut to its first 4 MiB and last 10 MiB")
    return notes


def _text(summary: dict[str, Any]) -> str:
    t = summary["tests"]
    lines = [
        f"gpu_suite {summary['date']}  commit {summary['commit']}  "
        f"device {summary['device'] or 'none (no CUDA device)'}  {summary['elapsed_s']} s",
        f"pytest exit {summary['pytest_exit_code']}"
        + (" (TIMED OUT: the counts are of the tests that finished)" if summary.get("pytest_timed_out") else "")
        + f", benchmark exit {summary['bench_exit_code']}"
        + (" (TIMED OUT)" if summary.get("bench_timed_out") else ""),
    ]
    if "error" in t:
        lines.append(f"tests: {t['error']}")
    else:
        lines.append(
            f"tests: {t['tests']} run (of {summary.get('collected') or '?'} collected), {t['passed']} passed, "
            f"{t['failures']} failed, {t['errors']} errors, {t['skipped']} skipped"
        )
    f = summary.get("failures")
    if f:
        for p in f["poisoned_by"]:
            lines.append(f"POISONED the device context: {p['test']}  ({p['error']})")
        if f["worker_restarts_after_poisoning"]:
            lines.append(f"workers restarted after a poisoning: {f['worker_restarts_after_poisoning']}")
        for c in f["crashed_workers"]:
            lines.append(f"worker crashed in: {c}")
        if f["total"]:
            lines.append(f"\n{f['total']} failures and errors in {f['class_count']} message classes:")
            for c in f["classes"][:25]:
                lines.append(f"{c['count']:>6}  {c['class']}")
                lines.append(f"{'':>8}e.g. {', '.join(c['examples'])}")
            if f["class_count"] > 25:
                lines.append(f"{'':>6}  ... {f['class_count'] - 25} more classes in summary.json")
        if f["slowest_files_s"]:
            slow = ", ".join(f"{k} {v:g} s" for k, v in list(f["slowest_files_s"].items())[:5])
            lines.append(f"\nslowest test files (summed test time): {slow}")
    b = summary.get("bench")
    if b and "at_largest_n" in b:
        lines.append(f"\nbenchmark at the largest size (time ratio, > 1: gpuops slower); torch: {b['torch_peer']}")
        if b.get("cases_left_out"):
            lines.append(f"  left out: {', '.join(b['cases_left_out']['cases'])} ({b['cases_left_out']['why']})")
        for case, e in b["at_largest_n"].items():
            ratios = "  ".join(f"{k} {v}" for k, v in e.items() if k.startswith("x_") or k == "of_copy_bandwidth")
            lines.append(f"  {case:>18} n={e['n']}: {ratios}")
    if summary.get("warning"):
        lines.append(f"\nWARNING: {summary['warning']}")
    return "\n".join(lines) + "\n"


def write(out: Path, env: dict[str, str]) -> dict[str, Any]:
    cuda, name = _cuda()
    xml = out / "pytest-gpu.xml"
    try:
        junit = read_junit(xml)
        tests: dict[str, Any] = junit["counts"]
        failures: dict[str, Any] | None = failure_report(junit)
    except Exception as exc:
        tests, failures = {"error": f"no JUnit XML ({exc.__class__.__name__}: {exc})"}, None
    collected = None
    try:  # "2 workers [101 items]" (xdist) or "collected 101 items / 80 deselected / 21 selected"
        head = (out / "pytest-gpu.log").read_text(errors="replace")[:20000]
        m = re.search(r"workers \[(\d+) items?\]", head) or re.search(r"(\d+) selected", head)
        m = m or re.search(r"collected (\d+) items?", head)
        collected = int(m.group(1)) if m else None
    except OSError:
        pass
    bench_rc = env.get("BENCH_RC", "")
    summary: dict[str, Any] = {
        "pytest_exit_code": int(env.get("PYTEST_RC") or 0),
        "pytest_timed_out": env.get("PYTEST_RC") == "124",
        "bench_exit_code": int(bench_rc) if bench_rc else None,
        "bench_timed_out": bench_rc == "124",
        "pytest_args": env.get("PYTEST_ARGS"),
        "collected": collected,
        "tests": tests,
        "failures": failures,
        "bench": _bench(out),
        "device": _smi("name") or name,
        "driver": _smi("driver_version"),
        "cuda": cuda,
        "versions": {
            "python": platform.python_version(),
            **{m: _version(m) for m in ("numpy", "ml_dtypes", "cupy", "torch", "pytest", "xdist", "hypothesis")},
        },
        "commit": env.get("COMMIT", "unknown"),
        "gpuops_import": env.get("INSTALL"),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "elapsed_s": int(env.get("ELAPSED") or 0),
    }
    summary["size_caps"] = cap_sizes(out)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    summary["files"] = files = sorted(files | {"summary.json", "summary.txt"})
    if len(files) > MAX_FILES:
        summary["warning"] = f"{len(files)} files under OUT (the device tool brings back {MAX_FILES})"
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "summary.txt").write_text(_text(summary))
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the output folder (reads pytest-gpu.xml, bench-cupy.json)")
    parser.add_argument("--classes", type=Path, help="print the message classes of a 'test id<TAB>message' file")
    args = parser.parse_args(argv)
    if args.classes:
        pairs = [tuple(ln.split("\t", 1)) for ln in args.classes.read_text().splitlines() if "\t" in ln]
        for c in group_failures(pairs):  # type: ignore[arg-type]
            print(f"{c['count']:>6}  {c['class']}\n{'':>8}e.g. {', '.join(c['examples'][:2])}")
        return 0
    if args.out is None:
        parser.error("--out or --classes")
    write(args.out, dict(os.environ))
    print((args.out / "summary.txt").read_text(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
