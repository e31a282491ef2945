"""gpuops' environment variables: read once at ``import gpuops``, validated there (issue 13, item 8).

A bad value is a ``ConfigError`` (a ``ValueError``) naming the variable, the value and what is
allowed, at import; ``reload()`` and ``override()`` change settings in-process; neither
``compile_operator`` nor ``execute`` reads the environment.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, TensorDesc
from gpuops import ConfigError, config, kernels
from gpuops.backends.cpu import policy as cpu_policy
from gpuops.backends.cpu import threads as cpu_threads

ROOT = Path(__file__).resolve().parents[2]
NAMES = [v.name for v in config.VARIABLES]

BAD = [
    ("GPUOPS_NUM_THREADS", "abc"),
    ("GPUOPS_NUM_THREADS", "-1"),
    ("GPUOPS_NUM_THREADS", "1e3"),
    ("GPUOPS_NUM_THREADS", "0"),
    ("GPUOPS_NUM_THREADS", "2.0"),
    ("GPUOPS_NUM_THREADS", " 4"),
    ("GPUOPS_NUM_THREADS", "+4"),
    ("GPUOPS_NUM_THREADS", "\u0664"),  # an Arabic-Indic four: a digit to str.isdigit, not to us
    ("GPUOPS_NUMBA", "yes"),
    ("GPUOPS_NUMBA", "true"),
    ("GPUOPS_NUMBA", "2"),
    ("GPUOPS_CUPY_FAST", "off"),
    ("GPUOPS_CUPY_FAST", "00"),
    ("GPUOPS_DUMP_SOURCE", "yes"),
    ("GPUOPS_CACHE_DIR", "relative/cache"),
    ("GPUOPS_CACHE_DIR", "./cache"),
]
ALLOWED = {v.name: v.allowed for v in config.VARIABLES}


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """``monkeypatch`` for the environment; the settings are read again from the restored one afterwards."""
    yield monkeypatch
    monkeypatch.undo()
    config.reload()


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without GPUOPS_* (but the test cache folder), plus ``extra``."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith("GPUOPS_") or k == "GPUOPS_CACHE_DIR"}
    return {**keep, **extra}


def _python(code: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=_clean_env(**extra), timeout=120
    )


def _says_what_is_wrong(message: str, name: str, value: str) -> None:
    assert f"{name}={value!r} is not valid" in message, message
    assert ALLOWED[name] in message, message


@pytest.mark.parametrize(("name", "value"), BAD)
def test_bad_values_are_refused_with_what_is_allowed(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as info:
        config.read({name: value})
    _says_what_is_wrong(str(info.value), name, value)
    assert info.value.variable == name and info.value.value == value
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("name", "value"), [("GPUOPS_NUM_THREADS", "1e3"), ("GPUOPS_NUMBA", "yes"), ("GPUOPS_CACHE_DIR", "rel")]
)
def test_a_bad_value_fails_import_gpuops(name: str, value: str) -> None:
    done = _python("import gpuops", **{name: value})
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("gpuops.errors.ConfigError: "), done.stderr
    _says_what_is_wrong(last, name, value)


def test_valid_values_are_read_at_import() -> None:
    code = "import json, gpuops; s = gpuops.config.settings(); print(json.dumps(vars(s), default=str))"
    env = {"GPUOPS_NUM_THREADS": "3", "GPUOPS_NUMBA": "0", "GPUOPS_CUPY_FAST": "0", "GPUOPS_DUMP_SOURCE": "1"}
    env["GPUOPS_EMULATOR_SANITIZE"] = "1"
    done = _python(code, GPUOPS_CACHE_DIR="~/somewhere", **env)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {
        "num_threads": 3,
        "numba": False,
        "cupy_fast": False,
        "dump_source": True,
        "cache_dir": os.path.expanduser("~/somewhere"),
        "emulator_sanitize": True,
        "cupy_rows_reduce": True,
    }


def test_unset_and_empty_mean_the_defaults() -> None:
    want = config.read({})
    assert config.read({name: "" for name in NAMES}) == want
    assert (want.num_threads, want.numba, want.cupy_fast, want.dump_source) == (None, True, True, False)
    assert want.cache_dir == Path(os.path.expanduser("~")) / ".cache" / "gpuops"


@given(st.integers(1, 10**6))
def test_any_positive_integer_is_a_thread_count(n: int) -> None:
    assert config.read({"GPUOPS_NUM_THREADS": str(n)}).num_threads == n


def test_reload_applies_a_changed_environment_and_keeps_the_settings_on_error(env: pytest.MonkeyPatch) -> None:
    env.setenv("GPUOPS_NUM_THREADS", "3")
    assert config.reload().num_threads == 3
    assert cpu_threads._thread_count() == 3
    env.setenv("GPUOPS_NUM_THREADS", "three")
    with pytest.raises(ConfigError, match="GPUOPS_NUM_THREADS='three'"):
        config.reload()
    assert config.settings().num_threads == 3


def test_override_changes_fields_for_a_block() -> None:
    before = config.settings()
    with config.override(num_threads=2, numba=False) as inside:
        assert config.settings() is inside and inside.num_threads == 2 and not inside.numba
        assert cpu_threads._thread_count() == 2
    assert config.settings() is before
    with pytest.raises(ConfigError), config.override(num_threads=0):
        pass
    with pytest.raises(TypeError), config.override(threads=2):
        pass
    assert config.settings() is before


def _f16_add(n: int) -> ElementWiseAddOperatorDesc:
    t = TensorDesc(DataType.FLOAT16, (n,))
    return ElementWiseAddOperatorDesc(t, t, t)


def test_gpuops_numba_0_keeps_operators_on_ufuncs(env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    dev = gpuops.Device("numpy")
    desc = _f16_add(4096)
    env.setenv("GPUOPS_NUMBA", "0")
    config.reload()
    assert dev.compile_operator(dev.create_operator(desc)).launch_path == "numpy"
    env.setenv("GPUOPS_NUMBA", "1")
    config.reload()
    assert dev.compile_operator(dev.create_operator(desc)).launch_path == "numba"


def test_gpuops_cupy_fast_0_turns_the_fast_paths_off(env: pytest.MonkeyPatch) -> None:
    assert config.settings().cupy_fast is True  # what device.py reads for each CuPy compile_operator
    env.setenv("GPUOPS_CUPY_FAST", "0")
    config.reload()
    assert config.settings().cupy_fast is False


def test_gpuops_dump_source_logs_each_kernel_built(
    env: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(kernels, "_cache", {})
    dev = gpuops.Device("numpy")
    t = TensorDesc(DataType.FLOAT32, (8,))
    with caplog.at_level(logging.INFO, logger="gpuops"):
        env.setenv("GPUOPS_DUMP_SOURCE", "0")
        config.reload()
        dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
        assert "gpuops kernel" not in caplog.text
        env.setenv("GPUOPS_DUMP_SOURCE", "1")
        config.reload()
        monkeypatch.setattr(kernels, "_cache", {})
        op = dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    assert "gpuops kernel" in caplog.text and op.kernel_source in caplog.text


def test_gpuops_cache_dir_holds_the_compiled_loops(
    env: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("numba")
    monkeypatch.setattr(kernels, "_cache", {})
    env.setenv("GPUOPS_CACHE_DIR", str(tmp_path / "cache"))
    config.reload()
    dev = gpuops.Device("numpy")
    assert dev.compile_operator(dev.create_operator(_f16_add(2048))).launch_path == "numba"
    assert list((tmp_path / "cache" / "numba").glob("gpuops_loop_*.py"))


class _Spy(dict):  # type: ignore[type-arg]
    """An ``os.environ`` stand-in that records which GPUOPS_* variables were looked up."""

    def __init__(self, real: Any) -> None:
        super().__init__(real)
        self.asked: list[str] = []

    def _note(self, key: object) -> None:
        if isinstance(key, str) and key.startswith("GPUOPS_"):
            self.asked.append(key)

    def __getitem__(self, key: str) -> str:
        self._note(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self._note(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return super().__contains__(key)


@pytest.mark.parametrize("dt", [DataType.FLOAT32, DataType.FLOAT16], ids=["float32", "float16"])
def test_compile_and_execute_never_read_the_environment(dt: DataType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Garbage in every variable after import changes nothing: the threaded ufunc path (float32)
    and the compiled tier (float16, where numba is installed) run on the settings read at import."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(thread_min=16, thread_block=100))
    monkeypatch.setattr(kernels, "_cache", {})
    for name in NAMES:
        monkeypatch.setenv(name, "garbage")
    spy = _Spy(os.environ)
    monkeypatch.setattr(os, "environ", spy)
    n = 2048
    t = TensorDesc(dt, (n,))
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(n).astype(dt.numpy_dtype) for _ in range(2))
    out = np.empty(n, dt.numpy_dtype)
    op.execute([a, b], [out])
    assert spy.asked == []
    want = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(dt.numpy_dtype)
    np.testing.assert_array_equal(out, want)
