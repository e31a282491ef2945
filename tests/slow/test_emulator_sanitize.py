"""A sample of the generated gpu tests, run on the CUDA emulator with AddressSanitizer and UBSan.

Every element-wise row of the op table at float32 on three layouts (packed 1-D and 3-D: the ``flat``
path; a broadcast row: ``rows``), every float32 reduction on 1-D, inner and outer axes, and the emulator's
own tests, in a pytest subprocess started with the sanitizer runtime preloaded
(``gpuops.emulator.build.sanitizer_environment``) and ``GPUOPS_EMULATOR_SANITIZE=1``. A read or write
outside a buffer, a signed overflow the GPU would wrap silently, or an overflowing shift ends that process
with the sanitizer's report, which this test shows.
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

pytestmark = pytest.mark.skipif(
    emulator_unusable_reason() is not None, reason=f"CUDA emulator unusable: {emulator_unusable_reason()}"
)


def test_generated_sample_runs_clean_under_the_sanitizers(tmp_path: Path) -> None:
    from gpuops.emulator.build import sanitizer_environment

    env = dict(os.environ)
    san = sanitizer_environment()  # raises (fails the test) where the compiler has no libasan
    env.update(san, LD_PRELOAD=san["LD_PRELOAD"].replace(" ", ":"))
    env.update(GPUOPS_EMULATOR_SANITIZE="1", GPUOPS_CACHE_DIR=str(tmp_path), GPUOPS_TEST_EMULATOR="1")
    env.pop("GPUOPS_TEST_PREBUILD", None)
    files = [f"tests/{f}" for f in FILES]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *files, "-k", SAMPLE]
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    tail = (res.stdout[-4000:], res.stderr[-4000:])
    assert res.returncode == 0, tail
    assert "with AddressSanitizer and UBSan" in res.stdout, tail  # the kernels were sanitized builds
    passed = int(res.stdout.rsplit(" passed", 1)[0].rsplit(None, 1)[-1])
    assert passed >= 450, tail  # the sample really ran
