#!/usr/bin/env bash
# The whole GPU check in one bounded command, for the GPU machine (reached through the `device` tool, which copies
# the working tree there and brings back what is written under $OUT: at most 8 files, 16 MiB each).
# That machine has Python 3.12 with cupy-cuda13x 14.2, numpy, ml_dtypes, pytest, pytest-xdist, hypothesis,
# matplotlib and torch (CUDA) preinstalled, 16 cores, and NO network.
#
#   GPUOPS_COMMIT=<sha> bash ci/gpu_suite.sh      # results in $OUT, default benchmarks/results/gpu-latest
#
# What it runs, all within GPUOPS_SUITE_BUDGET seconds (default 285: under 5 minutes):
#   1. pytest -m "gpu or cuda" (GPUOPS_PYTEST_MARK) on every core with pytest-xdist, --dist load (GPUOPS_DIST;
#      loadfile, one file per worker, did not fit: on an H200 the three generated-test files took 145-300 s each on
#      their one worker, and 8077 of 13511 tests ran in 200 s; with load all ran in 107 s), under `timeout` (GPUOPS_TEST_TIMEOUT, default 200 s, less if the budget is short; SIGINT first,
#      so that the JUnit XML of the tests that finished is still written). tests/conftest.py's device fault guard
#      synchronizes the device after each test: a CUDA fault fails the test that caused it ("device context poisoned
#      by this test") and ends that worker, which xdist replaces (--max-worker-restart, GPUOPS_MAX_WORKER_RESTART,
#      default 100) so that the fault cannot cascade into the tests after it. GPUOPS_PYTEST_ARGS adds arguments
#      (e.g. "-k add", "--tb=long"); GPUOPS_WORKERS sets -n (default: the cores, at most 16).
#   2. python -m benchmarks --backend cupy --quick --sizes 1048576,16777216,67108864 (GPUOPS_BENCH_ARGS replaces
#      those arguments: every case at 2^20, 2^24 and 2^26 elements, issue 33's sizes; the host-time case at 1000),
#      with PyTorch on the same device buffers as a peer where torch is importable, under `timeout` (at most 120 s)
#      with the rest of the budget (and --budget, so that it writes its JSON and plot with the cases it reached).
#      Then python -m benchmarks.host_overhead (host time per call, real launches and no-op ones) into bench.log.
#   3. ci/gpu_summary.py: summary.json and summary.txt: exit codes, counts, failures grouped by message class, the
#      tests that poisoned the device context, the slowest test files, the benchmark's ratios (x cupy, x torch).
#
# Files written under $OUT (8 in all):
#   env.txt          nvidia-smi, versions, commit, how gpuops was made importable
#   pytest-gpu.log   the full pytest log (--tb=short; -rfEs lists failures, errors and skips), then the
#                    conformance tables the tests wrote (umath-*.md, onnx-*.md)
#   pytest-gpu.xml   JUnit XML of the same run (gzipped to pytest-gpu.xml.gz if over 15 MiB)
#   bench.log        benchmark log (only if benchmarks/__main__.py exists)
#   bench-cupy.json  the benchmark's rows and summary, and bench-cupy.png its plot
#   summary.json     exit codes, timeouts, device, versions, date, test counts, failure classes, benchmark ratios
#   summary.txt      the short version of summary.json, for a person
# A test failure does not stop the script; it exits with pytest's exit code (124: timed out) or, when pytest
# passed, the benchmark's, after writing everything.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-benchmarks/results/gpu-latest}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
export MPLBACKEND=Agg PYTHONUNBUFFERED=1
start=$(date +%s)
deadline=$((start + ${GPUOPS_SUITE_BUDGET:-285}))
left() { echo $((deadline - $(date +%s))); }
min() { if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi; }

# --- make gpuops importable (offline: no dependency resolution, maybe no build isolation)
install=""
if (cd / && python3 -c "import gpuops, sys; sys.exit(not gpuops.__file__.startswith('$PWD/'))") 2>/dev/null; then
    install="already importable from this tree"
elif timeout 60 python3 -m pip install --no-deps -e . >"$OUT/.pip.log" 2>&1; then
    install="pip install --no-deps -e ."
elif timeout 60 python3 -m pip install --no-deps --no-build-isolation -e . >>"$OUT/.pip.log" 2>&1; then
    install="pip install --no-deps --no-build-isolation -e ."
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    install="PYTHONPATH=$PWD (pip install -e failed)"
fi
# Wheels the GPU image lacks (no network there), carried in by the device tool's `carry`:
#   pip download onnx==1.22.0 protobuf --python-version 3.12 --only-binary=:all: -d .whl
# then run with carry [".whl"]. Without them the ONNX conformance suite is skipped with its reason.
if ls .whl/*.whl >/dev/null 2>&1; then
    timeout 60 python3 -m pip install --no-deps --no-index .whl/*.whl >>"$OUT/.pip.log" 2>&1 \
        && install="$install; wheels: $(cd .whl && ls *.whl | tr '\n' ' ')"
fi
# The conformance tables (ONNX node tests, NumPy's umath accuracy) are written here, then appended to the log.
conf_dir="$(mktemp -d)"
export GPUOPS_CONFORMANCE_OUT="$conf_dir"

commit="${GPUOPS_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    commit="$commit-dirty"
fi
export GPUOPS_COMMIT="$commit" # the benchmark's JSON records it too (the copy may lack .git)

# --- environment record
{
    echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "== commit: $commit"
    echo "== gpuops import: $install"
    echo "== nvidia-smi"
    timeout 30 nvidia-smi 2>&1 || echo "nvidia-smi failed (exit $?)"
    echo "== versions"
    timeout 60 python3 - <<'PY' 2>&1
import platform
import sys

print("python", sys.version.replace("\n", " "), platform.platform())
for mod in ("numpy", "ml_dtypes", "cupy", "torch", "pytest", "xdist", "hypothesis", "matplotlib", "gpuops"):
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
    if [ -f "$OUT/.pip.log" ]; then
        echo "== pip install log (tail)"
        tail -n 20 "$OUT/.pip.log"
    fi
} >"$OUT/env.txt" 2>&1
rm -f "$OUT/.pip.log"
cat "$OUT/env.txt"

# --- tests: the gpu- and cuda-marked ones (the CPU suite runs in CI), spread over the workers test by test (load);
# a worker whose device context a test poisoned is replaced (see the top), so a fault cannot cascade.
bench_reserve=75   # seconds kept for the benchmark
summary_reserve=15 # and for the summary
avail=$(($(left) - bench_reserve - summary_reserve))
[ "$avail" -lt 30 ] && avail=30
test_timeout=$(min "${GPUOPS_TEST_TIMEOUT:-200}" "$avail")
xdist=()
if python3 -c "import xdist" 2>/dev/null; then
    workers="${GPUOPS_WORKERS:-$(min "$(nproc 2>/dev/null || echo 4)" 16)}"
    xdist=(-n "$workers" --dist "${GPUOPS_DIST:-load}" --max-worker-restart "${GPUOPS_MAX_WORKER_RESTART:-100}")
else
    echo "== pytest-xdist is not importable: the tests run in one process, which stops at a poisoned device context"
fi
# shellcheck disable=SC2206 # GPUOPS_PYTEST_ARGS is split into words on purpose
extra=(${GPUOPS_PYTEST_ARGS:-})
pytest_args=(-m "${GPUOPS_PYTEST_MARK:-gpu or cuda}" ${xdist[@]+"${xdist[@]}"} -rfEs --tb=short -p no:cacheprovider)
pytest_args+=(${extra[@]+"${extra[@]}"})
echo "== pytest ${pytest_args[*]} (timeout ${test_timeout} s)"
pytest_rc=0
timeout -s INT -k 20 "$test_timeout" python3 -m pytest "${pytest_args[@]}" --junitxml="$OUT/pytest-gpu.xml" 2>&1 \
    | tee "$OUT/pytest-gpu.log" || pytest_rc=${PIPESTATUS[0]}
if [ "$pytest_rc" -eq 124 ] || [ "$pytest_rc" -eq 137 ]; then
    echo "== pytest TIMED OUT after ${test_timeout} s (exit $pytest_rc)" | tee -a "$OUT/pytest-gpu.log"
fi
echo "== pytest exit code: $pytest_rc"
for table in "$conf_dir"/*; do
    [ -f "$table" ] || continue
    printf '\n== conformance table %s (written by the tests under $GPUOPS_CONFORMANCE_OUT)\n' "$(basename "$table")"
    cat "$table"
done >>"$OUT/pytest-gpu.log"
rm -rf "$conf_dir"

# --- benchmarks, when the package exists: the rest of the budget, less the summary's share
bench_rc=""
if [ -f benchmarks/__main__.py ]; then
    avail=$(($(left) - summary_reserve))
    [ "$avail" -lt 20 ] && avail=20
    bench_timeout=$(min "${GPUOPS_BENCH_TIMEOUT:-120}" "$avail")
    # shellcheck disable=SC2206
    bench_args=(${GPUOPS_BENCH_ARGS:---backend cupy --quick --sizes 1048576,16777216,67108864})
    echo "== python3 -m benchmarks ${bench_args[*]} (timeout ${bench_timeout} s)"
    bench_rc=0
    timeout -s INT -k 10 "$bench_timeout" python3 -m benchmarks "${bench_args[@]}" --out "$OUT" \
        --budget $((bench_timeout * 2 / 3)) 2>&1 | tee "$OUT/bench.log" || bench_rc=${PIPESTATUS[0]}
    echo "== benchmark exit code: $bench_rc"
    # Host time per call (issue 33): cupy.add(out=), gpuops execute and the convenience call with real launches,
    # and gpuops' own work with no-op launches on the emulator; its table joins bench.log (no file of its own).
    if [ -f benchmarks/host_overhead.py ] && [ "$(left)" -gt $((summary_reserve + 30)) ]; then
        timeout -s INT -k 10 30 python3 -m benchmarks.host_overhead --calls 2000 --repeats 5 \
            --out "$(mktemp -d)/host-overhead.json" 2>&1 | tee -a "$OUT/bench.log"
    fi
fi

# --- summary: summary.json and summary.txt (failures by message class), file sizes capped
PYTEST_RC="$pytest_rc" BENCH_RC="$bench_rc" COMMIT="$commit" INSTALL="$install" PYTEST_ARGS="${pytest_args[*]}" \
    ELAPSED="$(($(date +%s) - start))" timeout 60 python3 ci/gpu_summary.py --out "$OUT" \
    || echo "== ci/gpu_summary.py failed (exit $?)"

echo "== gpu_suite: pytest exit $pytest_rc, benchmark exit ${bench_rc:-not run}, $(($(date +%s) - start)) s;" \
    "$(find "$OUT" -type f | wc -l) files in $OUT"
if [ "$pytest_rc" -ne 0 ]; then
    exit "$pytest_rc"
fi
exit "${bench_rc:-0}"
