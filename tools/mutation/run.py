"""Mutation testing of one gpuops target with cosmic-ray: ``python tools/mutation/run.py <target>``.

Targets are the configs beside this script (``tools/mutation/<target>.toml``: the modules to mutate, a fast
test command, a per-mutant timeout, the operators left out). Run it with an interpreter that has cosmic-ray (the
``mutation`` extra: ``pip install -e ".[mutation]"``); the tests run with ``--python`` (default: this
interpreter), which needs the ``test`` extra.

cosmic-ray mutates files in place, so the run never touches this working tree: it copies the tree (the files
git tracks or would track) to ``build/mutation/<target>/tree``, byte-compiles it with checked-hash ``.pyc``
files (a mutated module is recompiled, every other module is loaded from its cache) and runs there. Per run:
``cosmic-ray init``, the operator filter, an optional deterministic sample (``--sample N``, the rest marked
skipped), ``cosmic-ray baseline`` (the test command must pass unmutated), ``cosmic-ray exec``. The session
(``build/mutation/<target>/session.sqlite``) keeps the results: ``--report`` prints them again, ``--resume``
goes on with its pending mutants (``--sample`` then draws from those), ``--recheck [JOB ...]`` runs its survivors
(or the mutants named) again on a fresh copy of the tree (``build/mutation/<target>/recheck``: new tests count)
and records the new results; the survivors (file:line, operator, diff) go to
``build/mutation/<target>/survivors.txt``.

Run it under ``nice -n 19`` on a shared machine; the test command is serial (``-n0``) by design.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from cosmic_ray.config import load_config
from cosmic_ray.mutating import mutate_and_test
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TARGETS = sorted(p.stem for p in HERE.glob("*.toml"))


def _tool(name: str) -> str:
    """A cosmic-ray command-line tool: beside this interpreter, else on PATH."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        sys.exit(f"run.py: {name} not found beside {sys.executable} or on PATH: pip install -e '.[mutation]'")
    return found


def _copy_tree(dest: Path) -> None:
    """The working tree as git sees it (tracked files and untracked ones not ignored), copied to ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    if dest.exists():
        shutil.rmtree(dest)
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run(args, cwd=cwd, env=env, check=True)


def _sample(session: Path, keep: int, seed: int) -> None:
    """Mark all but ``keep`` pending mutants (a seeded random choice) skipped, as "not sampled"."""
    with use_db(str(session), mode=WorkDB.Mode.open) as db:
        pending = sorted(item.job_id for item in db.pending_work_items)
        if len(pending) <= keep:
            return
        chosen = set(random.Random(seed).sample(pending, keep))
        dropped = [job for job in pending if job not in chosen]
        db.set_multiple_results(dropped, WorkResult(output="not sampled", worker_outcome=WorkerOutcome.SKIPPED))
        print(f"sampled {keep} of {len(pending)} pending mutants (seed {seed})", flush=True)


def report(target: str, session: Path) -> dict[str, int]:
    """Counts of the session's outcomes; writes ``survivors.txt`` beside the session."""
    counts = dict.fromkeys(("killed", "timeout", "survived", "incompetent", "skipped", "pending"), 0)
    survivors: list[str] = []
    with use_db(str(session), mode=WorkDB.Mode.open) as db:
        items = {item.job_id: item for item in db.work_items}
        done = dict(db.results)
        for job, item in sorted(items.items(), key=lambda kv: _where(kv[1])):
            result = done.get(job)
            if result is None:
                counts["pending"] += 1
            elif result.worker_outcome in (WorkerOutcome.SKIPPED, WorkerOutcome.NO_TEST):
                counts["skipped"] += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                counts["survived"] += 1
                m = item.mutations[0]
                survivors.append(f"{m.module_path}:{m.start_pos[0]} {m.operator_name} #{m.occurrence} [{job}]")
                survivors += [f"    {line}" for line in (result.diff or "").splitlines()[2:]]
            elif result.test_outcome == TestOutcome.KILLED:
                counts["timeout" if result.output == "timeout" else "killed"] += 1
            else:
                counts["incompetent"] += 1
    (session.parent / "survivors.txt").write_text("\n".join(survivors) + "\n", encoding="utf-8")
    run = counts["killed"] + counts["timeout"] + counts["survived"]
    rate = f"{100 * (run - counts['survived']) / run:.1f}%" if run else "n/a"
    print(
        f"{target}: {run} mutants run: {counts['killed']} killed, {counts['timeout']} timed out (killed), "
        f"{counts['survived']} survived; kill rate {rate}; {counts['incompetent']} incompetent, "
        f"{counts['skipped']} skipped (filtered or not sampled), {counts['pending']} pending; "
        f"survivors: {session.parent / 'survivors.txt'}",
        flush=True,
    )
    return counts


def recheck(session: Path, tree: Path, config: Path, jobs: set[str]) -> None:
    """Run the session's survivors (or ``jobs``) again with the test command on a fresh copy of the tree (new
    tests included), one by one, and record the new results in the session."""
    cfg = load_config(str(config))
    with use_db(str(session), mode=WorkDB.Mode.open) as db:
        survived = {job for job, result in db.results if result.test_outcome == TestOutcome.SURVIVED}
        items = [item for item in db.work_items if item.job_id in (jobs or survived)]
        here = Path.cwd()
        os.chdir(tree)  # cosmic-ray's module paths are relative to the tree
        try:
            for item in sorted(items, key=_where):
                result = mutate_and_test(item.mutations, cfg.test_command, cfg.timeout)
                db.set_result(item.job_id, result)
                m = item.mutations[0]
                failed = [line for line in (result.output or "").splitlines() if line.startswith("FAILED ")][:1]
                head = f"{m.module_path}:{m.start_pos[0]} {m.operator_name} [{item.job_id}]: {result.test_outcome}"
                print(head, *failed, sep="\n    ", flush=True)
        finally:
            os.chdir(here)


def _where(item: Any) -> tuple[str, int, str, int]:
    m = item.mutations[0]
    return (str(m.module_path), m.start_pos[0], m.operator_name, m.occurrence)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=TARGETS)
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the test command")
    parser.add_argument("--sample", type=int, default=0, help="run N of the pending mutants, chosen at random (0: all)")
    parser.add_argument(
        "--resume", action="store_true", help="go on with the last session's pending mutants (the tree copied afresh)"
    )
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--report", action="store_true", help="print the last session's counts, run nothing")
    parser.add_argument(
        "--recheck",
        nargs="*",
        metavar="JOB",
        help="run the last session's survivors (or these job ids) again on a fresh tree copy; record the results",
    )
    args = parser.parse_args(argv)
    python = os.path.abspath(args.python)  # not resolved: a venv's python is a link out of the venv

    work = ROOT / "build" / "mutation" / args.target
    session = work / "session.sqlite"
    if args.report:
        report(args.target, session)
        return 0
    config = HERE / f"{args.target}.toml"
    mutated = load_config(str(config))["module-path"]
    work.mkdir(parents=True, exist_ok=True)
    tree = work / ("recheck" if args.recheck is not None else "tree")
    _copy_tree(tree)
    # The test command's "python" is --python; CI=1 loads the derandomized hypothesis profile (tests/conftest.py).
    env = dict(os.environ, CI="1")
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    compile_all = ["-m", "compileall", "-q", "--invalidation-mode", "checked-hash", "descriptors", "gpuops", "tests"]
    _run([python, *compile_all], tree, env)
    if args.recheck is not None:
        os.environ.update(env)
        recheck(session, tree, config, set(args.recheck))
        report(args.target, session)
        return 0
    if not (args.resume and session.exists()):
        session.unlink(missing_ok=True)
        _run([_tool("cosmic-ray"), "init", str(config), str(session)], tree, env)
        _run([_tool("cr-filter-operators"), str(session), str(config)], tree, env)
    if args.sample:
        _sample(session, args.sample, args.seed)
    print(f"mutating {mutated} in {tree}", flush=True)
    _run([_tool("cosmic-ray"), "baseline", str(config)], tree, env)
    _run([_tool("cosmic-ray"), "exec", str(config), str(session)], tree, env)
    report(args.target, session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
