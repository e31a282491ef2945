#!/usr/bin/env bash
# The whole GPU check in one script, for the GPU machine (reached through the `device`
# tool, which copies the working tree there and brings back what is written under $OUT).
# That machine has Python 3.12 with cupy-cuda13x 14.2, numpy, ml_dtypes, pytest,
# hypothesis and matplotlib preinstalled, and NO network.
#
#   bash ci/gpu_suite.sh            # results in $OUT, default benchmarks/results/gpu-latest
#
# Files written under $OUT (at most 8 in all; the benchmark adds its own, see its --out):
#   env.txt         nvidia-smi, versions, commit, how gpuops was made importable
#   pytest-gpu.log  the full pytest log (-rs lists every skip with its reason)
#   pytest-gpu.xml  JUnit XML of the same run
#   bench.log       benchmark log (only if benchmarks/__main__.py exists)
#   summary.json    exit codes, device, versions, date, test counts
# A test failure does not stop the script; it exits with pytest's exit code (or the
# benchmark's, when pytest passed) after writing everything.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-benchmarks/results/gpu-latest}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
export MPLBACKEND=Agg
start=$(date +%s)

# --- make gpuops importable (offline: no dependency resolution, maybe no build isolation)
install=""
if python3 -m pip install --no-deps -e . >"$OUT/.pip.log" 2>&1; then
    install="pip install --no-deps -e ."
elif python3 -m pip install --no-deps --no-build-isolation -e . >>"$OUT/.pip.log" 2>&1; then
    install="pip install --no-deps --no-build-isolation -e ."
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    install="PYTHONPATH=$PWD (pip install -e failed)"
fi
# Wheels the GPU image lacks (no network there), carried in by the device tool's `carry`:
#   pip download onnx==1.22.0 protobuf --python-version 3.12 --only-binary=:all: -d .whl
# then run with carry [".whl"]. Without them the ONNX conformance suite is skipped with its reason.
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install --no-deps --no-index .whl/*.whl >>"$OUT/.pip.log" 2>&1 \
        && install="$install; wheels: $(cd .whl && ls *.whl | tr '\n' ' ')"
fi
# The conformance tables (ONNX node tests, NumPy's umath accuracy) are written here too.
export GPUOPS_CONFORMANCE_OUT="$OUT"

commit="${GPUOPS_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    commit="$commit-dirty"
fi

# --- environment record
{
    echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "== commit: $commit"
    echo "== gpuops import: $install"
    echo "== nvidia-smi"
    nvidia-smi 2>&1 || echo "nvidia-smi failed (exit $?)"
    echo "== versions"
    python3 - <<'PY' 2>&1
import platform
import sys

print("python", sys.version.replace("\n", " "), platform.platform())
for mod in ("numpy", "ml_dtypes", "cupy", "pytest", "hypothesis", "matplotlib", "gpuops"):
    try:
        m = __import__(mod)
        print(mod, getattr(m, "__version__", "?"), getattr(m, "__file__", ""))
    except Exception as exc:
        print(mod, "NOT IMPORTABLE:", exc)
try:
    import cupy

    rt = cupy.cuda.runtime
    print("cuda runtime", rt.runtimeGetVersion(), "driver", rt.driverGetVersion())
    print("nvrtc", cupy.cuda.nvrtc.getVersion())
    print("device", rt.getDeviceProperties(0)["name"].decode())
except Exception as exc:
    print("cupy CUDA query failed:", exc)
PY
    echo "== pip install log (tail)"
    tail -n 20 "$OUT/.pip.log"
} >"$OUT/env.txt" 2>&1
rm -f "$OUT/.pip.log"
cat "$OUT/env.txt"

# --- tests: the gpu-marked ones (the CPU suite runs in CI). ~8000 cases over a few hundred
# distinct kernels: run them on every core (pytest-xdist, present on the GPU image; CuPy's
# on-disk kernel cache is shared by the workers) under a time limit that leaves the benchmark
# its share of the 10-minute call. GPUOPS_PYTEST_MARK="gpu or not gpu" runs everything.
pytest_rc=0
xdist=""
python3 -c "import xdist" 2>/dev/null && xdist="-n ${GPUOPS_WORKERS:-16}"
timeout "${GPUOPS_TEST_TIMEOUT:-400}" python3 -m pytest -q -m "${GPUOPS_PYTEST_MARK:-gpu}" $xdist -rs \
    -p no:cacheprovider --junitxml="$OUT/pytest-gpu.xml" 2>&1 | tee "$OUT/pytest-gpu.log" \
    || pytest_rc=${PIPESTATUS[0]}
echo "== pytest exit code: $pytest_rc"

# --- benchmarks, when the package exists
bench_rc=""
if [ -f benchmarks/__main__.py ]; then
    bench_rc=0
    python3 -m benchmarks --backend cupy --quick --out "$OUT" 2>&1 | tee "$OUT/bench.log" || bench_rc=$?
    echo "== benchmark exit code: $bench_rc"
fi

# --- summary
PYTEST_RC="$pytest_rc" BENCH_RC="$bench_rc" COMMIT="$commit" INSTALL="$install" OUT="$OUT" \
    ELAPSED="$(($(date +%s) - start))" python3 - <<'PY'
import datetime
import json
import os
import platform
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

out = Path(os.environ["OUT"])


def version(mod):
    try:
        return __import__(mod).__version__
    except Exception as exc:
        return f"not importable: {exc}"


def smi(query):
    try:
        r = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], capture_output=True, text=True, timeout=60
        )
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else None
    except Exception:
        return None


device = smi("name")
cuda = {}
try:
    import cupy

    rt = cupy.cuda.runtime
    cuda = {"runtime": rt.runtimeGetVersion(), "driver": rt.driverGetVersion(), "available": cupy.is_available()}
    device = device or rt.getDeviceProperties(0)["name"].decode()
except Exception as exc:
    cuda = {"error": str(exc)}

tests = None
try:
    root = ET.parse(out / "pytest-gpu.xml").getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    tests = {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
except Exception as exc:
    tests = {"error": f"no JUnit XML: {exc}"}

bench_rc = os.environ["BENCH_RC"]
summary = {
    "pytest_exit_code": int(os.environ["PYTEST_RC"]),
    "bench_exit_code": int(bench_rc) if bench_rc else None,
    "tests": tests,
    "device": device,
    "driver": smi("driver_version"),
    "cuda": cuda,
    "versions": {
        "python": platform.python_version(),
        "numpy": version("numpy"),
        "ml_dtypes": version("ml_dtypes"),
        "cupy": version("cupy"),
        "pytest": version("pytest"),
        "hypothesis": version("hypothesis"),
    },
    "commit": os.environ["COMMIT"],
    "gpuops_import": os.environ["INSTALL"],
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "elapsed_s": int(os.environ["ELAPSED"]),
}
files = sorted({p.name for p in out.iterdir()} | {"summary.json"})
summary["files"] = files
if len(files) > 8:
    summary["warning"] = f"{len(files)} files under OUT (limit 8)"
(out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
print(json.dumps(summary, indent=2))
PY

echo "== gpu_suite: pytest exit $pytest_rc, benchmark exit ${bench_rc:-not run}, $(($(date +%s) - start)) s"
if [ "$pytest_rc" -ne 0 ]; then
    exit "$pytest_rc"
fi
exit "${bench_rc:-0}"
