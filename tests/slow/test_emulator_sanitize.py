"""A sample of the generated gpu tests, run on the CUDA emulator with AddressSanitizer and UBSan.

Every element-wise row of the op table at float32 on three layouts (packed 1-D and 3-D: the ``flat``
path; a broadcast row: ``rows``), every float32 reduction on 1-D, inner and outer axes, and the emulator's
own tests, in a pytest subprocess started with the sanitizer runtime preloaded
(``gpuops.emulator.build.sanitizer_environment``) and ``GPUOPS_EMULATOR_SANITIZE=1``. A read or write
outside a buffer, a signed overflow the GPU would wrap silently, or an overflowing shift ends that process
with the sanitizer's report, which this test shows.

The sample runs in two parts, a subprocess each, that two pytest-xdist workers run at once: the files are split
between them and both use the same ``-k``, so every selected test is in exactly one part
(``test_the_sample_parts_split_its_files_exactly``). The sanitized objects go to the suite's kernel cache
(``GPUOPS_CACHE_DIR``): the build's cache key holds the compiler flags, so they never stand in for plain builds
(nor the reverse), and a second run on the same machine finds them built.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import emulator_unusable_reason

ROOT = Path(__file__).resolve().parents[2]
FILES = [
    "ops/test_ops_generated.py",
    "ops/test_nary_generated.py",
    "ops/test_reduce_generated.py",
    "backends/test_emulator_device.py",
    "graphs/test_graph_compile.py",
]
# Plus the fused graph kernels: chains (flat, rows, multi-output ElementwiseKernel) and reductions with a prologue
# and/or an epilogue.
SAMPLE = (
    "emulator and FLOAT32 and (packed1d or bcast_row or packed3d or 1d or inner or outer) or test_emulator_device"
    " or (emulator and (chain or prologue or epilogue))"
)
# part -> (its files, the fewest tests it must pass). The parts cost about the same (compiler time under the
# sanitizers, and the emulator's slowest tests: the binary/reduce part took 67 s and the other 38 s with the
# emulator's own tests in the first, so they moved); their floors add up to the whole sample's (450; 671 passed at
# 51f0ad0: 357 in the nary/graphs part, 314 in the binary/reduce/device part, of which ~32 the device's).
PARTS: dict[str, tuple[tuple[str, ...], int]] = {
    "nary+graphs+device": (
        ("ops/test_nary_generated.py", "graphs/test_graph_compile.py", "backends/test_emulator_device.py"),
        270,
    ),
    "binary+reduce": (("ops/test_ops_generated.py", "ops/test_reduce_generated.py"), 180),
}
SAMPLE_FLOOR = 450

emulator_only = pytest.mark.skipif(
    emulator_unusable_reason() is not None, reason=f"CUDA emulator unusable: {emulator_unusable_reason()}"
)


def _run_part(part: str, tmp_path: Path) -> None:
    """Run one part of the sample in a child pytest under the sanitizers; it must pass at least its floor."""
    from gpuops.emulator.build import sanitizer_environment

    files, floor = PARTS[part]
    env = dict(os.environ)
    san = sanitizer_environment()  # raises (fails the test) where the compiler has no libasan
    env.update(san, LD_PRELOAD=san["LD_PRELOAD"].replace(" ", ":"))
    cache = os.environ.get("GPUOPS_CACHE_DIR") or str(tmp_path)  # the suite's (conftest), kept between runs
    # The whole generated grid (gpu_grid.FULL_GRID), of which -k takes the float32 sample.
    env.update(
        GPUOPS_EMULATOR_SANITIZE="1", GPUOPS_CACHE_DIR=cache, GPUOPS_TEST_EMULATOR="1", GPUOPS_EMULATOR_GRID="full"
    )
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "tests"), env.get("PYTHONPATH")) if p)
    env.pop("GPUOPS_TEST_PREBUILD", None)
    plugin = ["-p", "sanitizer_sample"]  # the emulator's own tests' kernels join the batch build
    paths = [f"tests/{f}" for f in files]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *plugin, *paths]
    res = subprocess.run([*cmd, "-k", SAMPLE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    tail = (res.stdout[-4000:], res.stderr[-4000:])
    assert res.returncode == 0, tail
    assert "with AddressSanitizer and UBSan" in res.stdout, tail  # the kernels were sanitized builds
    passed = int(res.stdout.rsplit(" passed", 1)[0].rsplit(None, 1)[-1])
    assert passed >= floor, tail  # the part really ran


# The two parts are not next to each other in the file: pytest-xdist (--dist worksteal) never takes away the test a
# busy worker will run next, so two neighbouring parts would run one after the other on one worker.


@emulator_only
def test_nary_graph_and_device_sample_runs_clean_under_the_sanitizers(tmp_path: Path) -> None:
    _run_part("nary+graphs+device", tmp_path)


def test_the_sample_parts_split_its_files_exactly() -> None:
    """Each file in exactly one part (the same -k in every part: each selected test runs in exactly one), and the
    parts' floors no lower in all than the whole sample's."""
    in_parts = sorted(f for files, _ in PARTS.values() for f in files)
    assert in_parts == sorted(FILES), "a sample file in no part or in two"
    assert all((ROOT / "tests" / f).is_file() for f in FILES)
    assert sum(floor for _, floor in PARTS.values()) >= SAMPLE_FLOOR


@emulator_only
def test_binary_and_reduce_sample_runs_clean_under_the_sanitizers(tmp_path: Path) -> None:
    _run_part("binary+reduce", tmp_path)
