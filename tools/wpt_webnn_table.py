"""Print the WPT WebNN conformance results of tests/frontends/test_webnn_wpt.py as a Markdown table, a row per WPT file.

    python tools/wpt_webnn_table.py                      # runs the tests (pytest, this interpreter)
    python tools/wpt_webnn_table.py --junit results.xml  # reads a finished run's JUnit XML

Columns: the file (``op``), the WPT cases it holds, and per device run (``numpy``, and the GPU backend: ``emulator``
or ``cupy``) how many passed, were skipped (with their reasons, counted) and failed. A case runs once on NumPy and,
when it has a float32/float16 tensor, once more on the GPU backend (see the test module), so a column's counts
add up to the cases that ran on that device. On the CUDA emulator that is one case per signature (operators,
option names, data types, constant, broadcast) of each file unless ``GPUOPS_WPT_EMULATOR_ALL=1`` is set.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "conformance" / "webnn"
_ID = re.compile(r"test_wpt_case\[(?P<stem>[^/\]]+)/(?P<case>.*)/(?P<device>[^/\]]+)\]$")


def run_junit(extra: list[str]) -> Path:
    """Run the conformance tests, returning the JUnit XML they wrote (pytest's exit status is not an error here:
    failures are what the table reports)."""
    out = Path(tempfile.mkdtemp(prefix="wpt-webnn-")) / "junit.xml"
    cmd = [sys.executable, "-m", "pytest", "-q", "tests/frontends/test_webnn_wpt.py", "-p", "no:cacheprovider"]
    cmd += ["-k", "test_wpt_case", f"--junitxml={out}", *extra]
    subprocess.run(cmd, cwd=ROOT, check=False, env={**os.environ})
    if not out.exists():
        sys.exit(f"pytest wrote no JUnit XML ({' '.join(cmd)})")
    return out


def collect(junit: Path) -> dict[str, dict[str, collections.Counter[str]]]:
    """``{file stem: {device: Counter(outcome)}}``; a skip's outcome is ``skipped: <reason>``."""
    table: dict[str, dict[str, collections.Counter[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(collections.Counter)
    )
    for tc in ET.parse(junit).getroot().iter("testcase"):
        m = _ID.search(tc.get("name", ""))
        if not m:
            continue
        if tc.find("failure") is not None or tc.find("error") is not None:
            outcome = "failed"
        elif (skip := tc.find("skipped")) is not None:
            reason = (skip.get("message") or "").removeprefix("Skipped: ")
            outcome = f"skipped: {reason}"
        else:
            outcome = "passed"
        table[m["stem"]][m["device"]][outcome] += 1
    return table


def markdown(table: dict[str, dict[str, collections.Counter[str]]]) -> str:
    devices = sorted({d for per in table.values() for d in per}, key=lambda d: (d != "numpy", d))
    head = ["op", "cases"] + [f"passed ({d})" for d in devices] + ["skipped (reasons)", "failed"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    totals: collections.Counter[str] = collections.Counter()
    for stem in sorted(table):
        cases = len(json.loads((DATA / f"{stem}.json").read_text(encoding="utf-8"))["tests"])
        per = table[stem]
        passed = [per[d]["passed"] for d in devices]
        skips: collections.Counter[str] = collections.Counter()
        failed = 0
        for d in devices:
            for outcome, n in per[d].items():
                if outcome.startswith("skipped: "):
                    skips[f"{d}: {outcome[9:]}"] += n
                elif outcome == "failed":
                    failed += n
        shown = "; ".join(f"{n} {why}" for why, n in sorted(skips.items())) or "0"
        lines.append("| " + " | ".join([stem, str(cases), *map(str, passed), shown, str(failed)]) + " |")
        totals["cases"] += cases
        for d, n in zip(devices, passed, strict=True):
            totals[d] += n
        totals["skipped"] += sum(skips.values())
        totals["failed"] += failed
    row = ["**total**", str(totals["cases"]), *(str(totals[d]) for d in devices)]
    lines.append("| " + " | ".join([*row, str(totals["skipped"]), str(totals["failed"])]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--junit", type=Path, help="a JUnit XML of a finished run (default: run the tests now)")
    ap.add_argument("pytest_args", nargs="*", help="more pytest arguments when running the tests")
    args = ap.parse_args(argv)
    junit = args.junit or run_junit(args.pytest_args)
    print(markdown(collect(junit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
