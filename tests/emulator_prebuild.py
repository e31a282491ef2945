"""Build every emulator kernel the gpu tests need in one batch, before they run (see ``conftest.pytest_runtestloop``).

The generated matrix's kernels are enumerated from the op table (``emulator_kernel_set``: each case's operator run
once under ``gpuops.emulator.kernels.recording``, no test body); a dry run of the other gpu tests (kernels recorded,
not compiled, their launches doing nothing; results and failures ignored) finds theirs. ``prebuild`` then compiles
them merged into a few translation units (~25 ms of compiler time per kernel at -O0 instead of ~0.2-0.4 s alone).

Under pytest-xdist both are shared: worker ``k`` of ``n`` enumerates every ``n``-th case and dry-runs every ``n``-th
other gpu test from the ``k``-th on, writes the sources it found to ``$GPUOPS_TEST_EXCHANGE_DIR/<run>/<k>.pickle``,
waits for the other workers' files, and then every worker asks ``prebuild`` for the union in the same order. The
build's merged units are then the same in every worker, and its per-unit file locks let each unit be compiled once
(a worker finds a unit another one is compiling, waits for it, and loads it). A worker that waits longer than
``WAIT_S`` (another one died) builds what it has; the rest is compiled when first launched (the summary counts them).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

WAIT_S = 900.0

_OUTCOMES = (Exception, pytest.skip.Exception, pytest.fail.Exception, pytest.xfail.Exception)


def dry_run(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """pytest's runtestprotocol (setup, call, teardown hooks) without reports: a failure costs no traceback."""
    if hasattr(item, "_request") and not item._request:
        item._initrequest()  # as pytest does for a re-run item
    try:
        try:
            item.ihook.pytest_runtest_setup(item=item)
            item.ihook.pytest_runtest_call(item=item)
        except _OUTCOMES:
            pass
        with contextlib.suppress(*_OUTCOMES):
            item.ihook.pytest_runtest_teardown(item=item, nextitem=nextitem)
    finally:
        if hasattr(item, "_request"):
            item._request = False
            item.funcargs = None


def _share(config: pytest.Config) -> tuple[int, int, Path | None]:
    """(this worker's index, the number of workers, the folder the workers exchange sources in)."""
    workerinput = getattr(config, "workerinput", None)
    if not workerinput:
        return 0, 1, None
    k = int(str(workerinput.get("workerid", "gw0")).lstrip("gw") or 0)
    n = int(workerinput.get("workercount", 1))
    exchange = os.environ.get("GPUOPS_TEST_EXCHANGE_DIR")  # made by the controller's conftest, mode 0700
    if not exchange:
        return 0, 1, None
    folder = Path(exchange) / str(workerinput.get("testrunuid", "run"))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return k % max(n, 1), n, folder


def _gather(folder: Path, n: int, k: int, mine: dict[tuple[str, str], Any]) -> list[Any]:
    """Publish this worker's sources, wait for every worker's, and return their union in worker order."""
    tmp = folder / f".{k}.{os.getpid()}.tmp"
    tmp.write_bytes(pickle.dumps(list(mine.values())))
    os.replace(tmp, folder / f"{k}.pickle")
    deadline = time.monotonic() + WAIT_S
    files = [folder / f"{j}.pickle" for j in range(n)]
    while not all(f.exists() for f in files) and time.monotonic() < deadline:
        time.sleep(0.1)
    union: dict[tuple[str, str], Any] = {}
    for f in files:
        if f.exists():
            for s in pickle.loads(f.read_bytes()):  # noqa: S301 - written by this run's own workers, mode 0700
                union.setdefault((s.code, s.name), s)
        else:
            union.update(mine)  # a worker gone missing: build ours, the rest compiles on first launch
    return list(union.values())


def _case(item: pytest.Item) -> tuple[str, dict[str, Any]] | None:
    """(test module, parameters) when the item is a case of the generated matrix whose operator
    ``emulator_kernel_set`` builds, else None."""
    from emulator_kernel_set import enumerated

    module = getattr(getattr(item, "module", None), "__name__", "").rpartition(".")[2]
    callspec = getattr(item, "callspec", None)
    if callspec is None or not enumerated(module, getattr(item, "originalname", item.name)):
        return None
    params = dict(callspec.params)
    if getattr(item, "originalname", "") == "test_reduction_kernel_on_rows_layouts":
        params["rows_off"] = True  # run under GPUOPS_CUPY_ROWS_REDUCE=0
    return module, params


def prebuild_for(config: pytest.Config, items: Sequence[pytest.Item]) -> dict[str, float]:
    """Enumerate this worker's share of the generated matrix's kernels, dry-run its share of the other ``items``,
    and build the kernels every worker found; return the figures shown in the terminal summary."""
    from emulator_kernel_set import record_kernels

    from gpuops.emulator.kernels import prebuild, recording

    k, n, folder = _share(config)
    cases = {it.nodeid: _case(it) for it in items}
    # One case per operator (the backend fixture's parameter does not change it), this worker's share of them.
    mine_cases = list({repr(c): c for c in cases.values() if c is not None}.values())[k::n]
    rest = [it for it in items if cases[it.nodeid] is None]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enumerated, errors = record_kernels(mine_cases)
    t1 = time.perf_counter()
    share = rest[k::n]
    with recording() as seen, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, item in enumerate(share):
            dry_run(item, share[i + 1] if i + 1 < len(share) else None)
    t2 = time.perf_counter()
    mine = {**enumerated, **seen}
    sources = _gather(folder, n, k, mine) if folder is not None else list(mine.values())
    t3 = time.perf_counter()
    prebuild(sources)
    return dict(
        cases=len(mine_cases),
        enum_errors=len(errors),
        enum_s=t1 - t0,
        tests=len(share),
        kernels=len(sources),
        dry_s=t2 - t1,
        wait_s=t3 - t2,
        build_s=time.perf_counter() - t3,
    )


def summary_lines(figures: Sequence[dict[str, float]], line: Callable[[str], None], how: str = "") -> None:
    """One line per process that prebuilt (each pytest-xdist worker)."""
    for p in figures:
        failed = f", {int(p['enum_errors'])} of them failed to run" if p.get("enum_errors") else ""
        line(
            f"CUDA emulator: {int(p.get('cases', 0))} operator cases enumerated from the op table "
            f"({p.get('enum_s', 0.0):.1f} s{failed}), a dry run of {int(p['tests'])} other gpu tests "
            f"({p['dry_s']:.1f} s); "
            f"{int(p['kernels'])} kernels found by all workers, built in one batch{how} in {p['build_s']:.1f} s "
            f"(after {p.get('wait_s', 0.0):.1f} s waiting for the other workers' dry runs); "
            f"{int(p.get('first_launch', 0))} compiled alone at their first launch"
        )
