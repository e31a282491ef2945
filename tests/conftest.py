"""Shared fixtures: the backend matrix, GPU skipping, hypothesis profiles."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile

import kernel_cache_dir
import pytest
from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Compiled kernels (the emulator's objects, the numba tier's loops; both keyed by content) go to a test cache
# that survives between runs on this machine, apart from the user's: GPUOPS_TEST_CACHE_DIR, default
# <XDG_CACHE_HOME or ~/.cache>/gpuops-tests; GPUOPS_TEST_CACHE_DIR=fresh: a new temporary folder (a cold run).
# Files there unused for PRUNE_DAYS are removed at the end of a session.
_OWN_CACHE = "GPUOPS_CACHE_DIR" not in os.environ  # (pytest-xdist workers inherit the controller's)
if _OWN_CACHE:
    os.environ["GPUOPS_CACHE_DIR"] = kernel_cache_dir.folder()
# Where pytest-xdist workers exchange their dry runs' kernel sources (emulator_prebuild): one folder per session.
_OWN_EXCHANGE = "GPUOPS_TEST_EXCHANGE_DIR" not in os.environ  # (child pytest runs inherit their parent's)
if _OWN_EXCHANGE:
    os.environ["GPUOPS_TEST_EXCHANGE_DIR"] = tempfile.mkdtemp(prefix="gpuops-prebuild-")


@functools.cache
def cuda_unusable_reason() -> str | None:
    """None when CuPy can run kernels here, else why not (for the skip message)."""
    try:
        import cupy
    except Exception as exc:  # ImportError or a broken install
        return f"cupy is not importable ({exc.__class__.__name__}: {exc})"
    try:
        if not cupy.is_available():
            return "cupy is installed but no CUDA device/driver is usable (cupy.is_available() is False)"
    except Exception as exc:
        return f"cupy.is_available() failed: {exc}"
    return None


@functools.cache
def emulator_unusable_reason() -> str | None:
    """None when the CUDA emulator (``Device("emulator")``) can run kernels here, else why not."""
    if os.environ.get("GPUOPS_TEST_EMULATOR", "1") == "0":
        return "GPUOPS_TEST_EMULATOR=0"
    from gpuops.emulator.runtime import unavailable_reason

    return unavailable_reason()


def gpu_backend() -> str:
    """What gpu-marked tests run on: ``"cupy"`` on a usable CUDA device, else the CUDA emulator, which runs the
    CuPy backend's own code path with kernels compiled by the host C++ compiler (issue 14)."""
    if cuda_unusable_reason() is None or emulator_unusable_reason() is not None:
        return "cupy"
    return "emulator"


def pytest_report_header(config: pytest.Config) -> str:
    cuda, emu = cuda_unusable_reason(), emulator_unusable_reason()
    if cuda is None:
        return "gpu tests: on CUDA (cupy)"
    if emu is None:
        return f"gpu tests: on the CUDA emulator (no CUDA device: {cuda})"
    return f"gpu tests: skipped (no CUDA device: {cuda}; no emulator: {emu})"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    cuda = cuda_unusable_reason()
    if cuda is None:
        return
    emu = emulator_unusable_reason()
    skip_gpu = pytest.mark.skip(reason=f"gpu test: {cuda}; the CUDA emulator is not usable: {emu}")
    skip_cuda = pytest.mark.skip(reason=f"cuda test (what only a real CUDA device shows): {cuda}")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip_cuda)
        elif "gpu" in item.keywords and emu is not None:
            item.add_marker(skip_gpu)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """On the CUDA emulator, build every kernel the gpu tests need in one batch before they run: the generated
    matrix's kernels are enumerated from the op table (``emulator_kernel_set``), a dry run of the other gpu tests
    finds theirs, both shared by the pytest-xdist workers (``emulator_prebuild``). The real run then finds them
    built; kernels neither reaches are compiled when first launched. ``GPUOPS_TEST_PREBUILD=0`` turns it off."""
    if GPU != "emulator" or os.environ.get("GPUOPS_TEST_PREBUILD", "1") == "0" or session.config.option.collectonly:
        return
    items = [
        it
        for it in session.items
        if "gpu" in it.keywords
        and not any(getattr(getattr(it, "obj", None), a, False) for a in ("is_hypothesis_test", "hypothesis_inside"))
    ]
    if items:
        from emulator_prebuild import prebuild_for

        _PREBUILD.update(prebuild_for(session.config, items))


_PREBUILD: dict[str, float] = {}


def _sanitized() -> bool:
    from gpuops.emulator.build import _sanitize_default

    return _sanitize_default()


def emulator_pairs() -> list[tuple[str, str]]:
    """Every (op-table row, launch path) pair the emulator can run: element-wise rows on ``flat``,
    ``rows`` and ``elementwise``; each REDUCE function, ARGMAX and ARGMIN on each reduction path (rows, split
    rows, columns, split columns, CuPy's one pass and two passes); each scan row on ``scan``; each composite a row
    program covers (``gpuops.row_program``) on ``row program``."""
    from descriptors import ReduceFunction
    from descriptors.optable import ELEMENTWISE_ROWS, REDUCTION_ROWS, SCAN_ROWS

    pairs = [(r.name, p) for r in ELEMENTWISE_ROWS for p in ("flat", "rows", "elementwise")]
    names = [f"REDUCE {f.name}" if r.name == "REDUCE" else r.name for r in REDUCTION_ROWS for f in ReduceFunction]
    names = list(dict.fromkeys(n for n in names if n.startswith("REDUCE ") or n in ("ARGMAX", "ARGMIN")))
    pairs += [(r.name, "scan") for r in SCAN_ROWS]
    softmax = ("ACTIVATION_SOFTMAX", "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX1")
    hardmax = ("ACTIVATION_HARDMAX", "ACTIVATION_HARDMAX1")
    pairs += [(n, "row program") for n in (*softmax, *hardmax, "MEAN_VARIANCE_NORMALIZATION1")]
    paths = ("rows reduction", "split rows reduction", "columns reduction", "split columns reduction")
    paths += ("reduction", "two-pass reduction")
    return pairs + [(n, p) for n in names for p in paths]


def _launches_here() -> dict[tuple[str, str], int]:
    """(row, launch path) -> executions on the emulator in this process."""
    import sys

    mod = sys.modules.get("gpuops.emulator.launches")
    return dict(mod.launches()) if mod is not None else {}


# Under pytest-xdist each worker runs part of the suite: what the session-wide checks and the summary need
# travels to the controller in ``workeroutput`` (launches, the prebuild's figures, the conformance tables).
_FROM_WORKERS: dict[str, object] = {"launches": {}, "prebuild": [], "tables": {}}


def _emulator_coverage() -> tuple[list[str], int, int] | None:
    """(pairs not run, pairs wanted, executions) when the emulator ran operators in this session (every worker's
    launches, under pytest-xdist)."""
    ran = dict(_launches_here())
    for key, n in _FROM_WORKERS["launches"].items():  # type: ignore[attr-defined]
        row, _, path = key.partition("\t")
        ran[(row, path)] = ran.get((row, path), 0) + n
    if not ran:
        return None
    want = emulator_pairs()
    return [f"{n} on {p}" for n, p in want if (n, p) not in ran], len(want), sum(ran.values())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """Controller side (pytest-xdist): gather what a finished worker sent (see ``_FROM_WORKERS``)."""
    out = getattr(node, "workeroutput", None) or {}
    sent = out.get("gpuops")
    if not sent:
        return
    launches = _FROM_WORKERS["launches"]
    for key, n in sent["launches"].items():
        launches[key] = launches.get(key, 0) + n  # type: ignore[index, union-attr, operator]
    if sent["prebuild"]:
        _FROM_WORKERS["prebuild"].append(sent["prebuild"])  # type: ignore[union-attr]
    _FROM_WORKERS["tables"].update(sent["tables"])  # type: ignore[union-attr]


def _whole_suite(config: pytest.Config) -> bool:
    """The default selection: the configured test paths, no -k, no -m."""
    return (
        config.args_source is pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
    )


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The whole suite on the emulator must run every (row, launch path) pair: a row or path the
    generated tests stopped reaching fails the run (the CUDA emulator issue's "done when"). Under pytest-xdist
    a worker sends its part to the controller, which checks the union."""
    config = session.config
    if "tests" in _PREBUILD:  # what the batch build missed: compiled alone when first launched
        from gpuops.emulator.kernels import first_launch_builds

        _PREBUILD["first_launch"] = float(first_launch_builds())
    if hasattr(config, "workeroutput"):
        config.workeroutput["gpuops"] = {
            "launches": {f"{row}\t{path}": n for (row, path), n in _launches_here().items()},
            "prebuild": dict(_PREBUILD),
            "tables": dict(getattr(config, "gpuops_conformance_tables", {})),
        }
        return
    if _OWN_EXCHANGE:  # never the folder of a parent session (the sanitizer sample runs a child pytest)
        shutil.rmtree(os.environ["GPUOPS_TEST_EXCHANGE_DIR"], ignore_errors=True)
    if _OWN_CACHE:  # never a folder the caller chose with GPUOPS_CACHE_DIR
        kernel_cache_dir.prune(os.environ["GPUOPS_CACHE_DIR"])
    cov = _emulator_coverage()
    if cov and cov[0] and exitstatus == 0 and _whole_suite(config):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        _PREBUILD["coverage_failed"] = 1.0


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for backend, table in _FROM_WORKERS["tables"].items():  # type: ignore[attr-defined]
        terminalreporter.section(f"ONNX node conformance ({backend})")
        terminalreporter.write(table)
    cov = _emulator_coverage()
    if cov:
        missing, wanted, executions = cov
        terminalreporter.write_line(
            f"CUDA emulator: {wanted - len(missing)} of {wanted} (op-table row, launch path) pairs ran "
            f"({executions} executions)"
            + (f"; not run: {', '.join(missing[:12])}" if missing else "")
            + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
            + (" -- FAILED: the whole suite must run every pair" if _PREBUILD.get("coverage_failed") else "")
        )
    from emulator_prebuild import summary_lines

    figures = [p for p in [_PREBUILD, *_FROM_WORKERS["prebuild"]] if "tests" in p]  # type: ignore[misc]
    summary_lines(figures, terminalreporter.write_line, " with AddressSanitizer and UBSan" if _sanitized() else "")


GPU = gpu_backend()
BACKENDS = ["numpy", pytest.param(GPU, marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def device(backend: str):  # type: ignore[no-untyped-def]
    import gpuops

    return gpuops.Device(backend)


@pytest.fixture
def xp(backend: str):  # type: ignore[no-untyped-def]
    """The array module of the backend (numpy, cupy, or the emulator's stand-in for cupy)."""
    from gpuops import backends

    return backends.load(backend).xp


# --------------------------------------------------------------------------- device fault guard (ci/gpu_suite.sh)
# A CUDA fault (cudaErrorMisalignedAddress, an illegal address, a trap) is sticky: every later CUDA call in that
# process fails, so one faulting test used to fail every test after it in its pytest-xdist worker (issue 30). After
# each test phase the device is synchronized; a fault is reported as a failure of the test that caused it, and the
# worker process ends before its next test, so that pytest-xdist replaces it with a fresh process (a fresh CUDA
# context) for the remaining tests; `ci/gpu_suite.sh` sets --max-worker-restart for that. xdist reports the test the
# worker was about to run as "crashed"; that report becomes a skip naming the poisoned test, and the test runs again
# on the fresh worker. Without xdist the session stops after the poisoning test (as with -x), naming it.
#
# Active where a check exists for the backend the gpu tests run on (``GPU``): real CUDA, and the CUDA emulator, whose
# device faults as a GPU does (gpuops.emulator.faults); its fault is reported against the test and then cleared.
# The hooks use `specname` so that their names cannot collide with
# hooks defined elsewhere in this file.


def _cuda_fault() -> tuple[str, bool] | None:
    """``(error, sticky)`` when synchronizing the CUDA device raises, else None."""
    import cupy

    try:
        cupy.cuda.runtime.deviceSynchronize()
        return None
    except Exception as exc:  # CUDARuntimeError; anything else from a synchronize is no better
        error = f"{exc.__class__.__name__}: {exc}"
    try:  # a sticky fault fails every later call; a non-sticky error is cleared once returned
        cupy.cuda.runtime.deviceSynchronize()
        return error, False
    except Exception:
        return error, True


def _emulator_fault() -> tuple[str, bool] | None:
    """The emulated device's sticky fault (``gpuops.emulator.faults``): reported against the test that caused it,
    then cleared (``faults.reset``, the emulator's new process), so that it cannot cascade into later tests."""
    from gpuops.emulator import faults

    first = faults.reset()
    return None if first is None else (first, False)


# backend the gpu tests run on -> check.
_DEVICE_FAULT_CHECKS = {"cupy": _cuda_fault, "emulator": _emulator_fault}
_FAULT_CHECK = _DEVICE_FAULT_CHECKS.get(GPU) if GPU != "cupy" or cuda_unusable_reason() is None else None
_FAULT_STATE: dict[str, str] = {}  # "poisoned_by": nodeid, "error": message, once the device is poisoned


def _fault_marker(controller_pid: int, worker: str) -> str:
    """The file a worker leaves for the controller before it exits on purpose."""
    return os.path.join(tempfile.gettempdir(), f"gpuops-device-fault-{controller_pid}-{worker}.txt")


@pytest.hookimpl(wrapper=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_device_fault(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if _FAULT_CHECK is None or "poisoned_by" in _FAULT_STATE:
        return report
    fault = _FAULT_CHECK()
    if fault is None:
        return report
    error, sticky = fault
    worker = getattr(item.config, "workerinput", {}).get("workerid")
    if sticky:
        _FAULT_STATE.update(poisoned_by=item.nodeid, error=error)
        after = (
            f"worker {worker} ends before its next test; pytest-xdist starts a fresh one for the rest"
            if worker
            else "the session stops after this test (run under pytest-xdist to go on in a fresh worker)"
        )
        head = f"device context poisoned by this test ({call.when}): {error}"
        detail = f"a {GPU} fault is sticky: every later call in this process would fail; {after}"
        if not worker:
            item.session.shouldstop = f"device context poisoned by {item.nodeid}: {error}"
    elif GPU == "emulator":
        head = f"the emulated device faulted in this test ({call.when}): {error}"
        detail = "sticky, as on a GPU; the emulated device was reset for the tests after it (a new process on a GPU)"
    else:
        head = f"device error after this test ({call.when}): {error}"
        detail = "not sticky: the device went on working"
    earlier = f"\n\n{report.longrepr}" if report.failed and report.longrepr else ""
    report.outcome = "failed"
    report.longrepr = f"{head}\n{detail}{earlier}"
    return report


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_protocol")
def pytest_runtest_protocol_device_fault(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """In a pytest-xdist worker whose device was poisoned by an earlier test: leave a note, end the process."""
    if "poisoned_by" not in _FAULT_STATE or not hasattr(item.config, "workerinput"):
        return
    worker = item.config.workerinput["workerid"]
    with open(_fault_marker(os.getppid(), worker), "w") as f:
        f.write(f"{_FAULT_STATE['poisoned_by']}\t{_FAULT_STATE['error']}\n")
    os._exit(3)


@pytest.hookimpl(optionalhook=True, specname="pytest_handlecrashitem")
def pytest_handlecrashitem_device_fault(crashitem: str, report: pytest.TestReport, sched: object) -> None:
    """Controller side: a worker that ended on purpose did not crash in ``crashitem``, which never started; it
    becomes a skip that names the poisoned test (pytest-xdist runs it again on the fresh worker)."""
    node = getattr(report, "node", None)
    worker = getattr(getattr(node, "gateway", None), "id", None)
    if worker is None:
        return
    path = _fault_marker(os.getpid(), worker)
    try:
        with open(path) as f:
            poisoned_by, _, error = f.read().rstrip("\n").partition("\t")
        os.unlink(path)
    except OSError:
        return  # a real crash: xdist's report stands
    report.outcome = "skipped"
    report.longrepr = (
        crashitem.split("::")[0],
        None,
        f"{crashitem} not run on worker {worker}: the worker ended after {poisoned_by} poisoned the device "
        f"context ({error}); it runs again on a fresh worker",
    )
