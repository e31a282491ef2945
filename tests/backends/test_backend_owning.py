"""``gpuops.backends.backend_owning``: the registry says which backend an array belongs to (issue 32), for
``gpuops.dask``'s chunks: exactly a backend's ``array_type``, never a subclass; no CuPy import for a NumPy array,
and no failure where CuPy cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuops.backends import backend_owning

ROOT = Path(__file__).resolve().parents[2]


def test_numpy_arrays_are_numpys_and_subclasses_are_nobodys(tmp_path: Path) -> None:
    assert backend_owning(np.zeros(3, np.float32)) == "numpy"
    assert backend_owning(np.zeros((2, 0), np.int8)) == "numpy"
    assert backend_owning(np.float32(1)) is None  # a NumPy scalar is not an array
    assert backend_owning(np.ma.masked_array([1.0])) is None
    assert backend_owning(np.memmap(tmp_path / "m", np.float32, "w+", shape=(2,))) is None
    assert backend_owning([1.0, 2.0]) is None
    assert backend_owning(None) is None


def test_emulator_arrays_are_the_emulators() -> None:
    from gpuops.emulator import memory, runtime

    assert backend_owning(runtime.asarray(np.arange(4, dtype=np.float32))) == "emulator"
    assert backend_owning(memory.empty((2, 3), np.float16)[:, 1]) == "emulator"  # a view too


SCRIPT = """
import json, sys
import numpy as np
if sys.argv[1] == "blocked":
    sys.modules["cupy"] = None  # import cupy raises ImportError, as where CuPy is not installed
from gpuops.backends import backend_owning
seen = {"numpy": backend_owning(np.zeros(2))}
seen["cupy_imported"] = sys.modules.get("cupy") is not None
from gpuops.emulator import runtime
seen["emulator"] = backend_owning(runtime.zeros(2, np.float32))
seen["masked"] = backend_owning(np.ma.masked_array([1.0]))
print(json.dumps(seen))
"""


@pytest.mark.parametrize("cupy", ["blocked", "as installed"])
def test_a_numpy_array_imports_no_cupy_and_no_cupy_breaks_nothing(cupy: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, cupy], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["numpy"] == "numpy" and not seen["cupy_imported"], seen
    assert seen["emulator"] == "emulator" and seen["masked"] is None, seen
