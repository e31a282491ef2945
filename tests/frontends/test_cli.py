"""The command line (``python -m gpuops caps|info|demo``), the README and the benchmark harness."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from descriptors import ROWS, FeatureLevel, OperatorType, operator_support
from gpuops.__main__ import main, resolve_operator
from gpuops.cli.caps import WIDTH
from gpuops.cli.names import SYNONYMS, short_names
from gpuops.cli.streams import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, quiet_streams

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# --------------------------------------------------------------------------- caps


def test_caps_plain_lists_every_operator(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "caps")
    assert rc == 0
    for row in ROWS:
        assert re.search(rf"^{row.name}\s", out, re.M), row.name
    assert "DirectML types" in out and "extension types" in out


@pytest.mark.parametrize(
    ("op", "level", "extensions"),
    [
        ("ELEMENT_WISE_ADD", "5_1", True),
        ("ELEMENT_WISE_ADD", "2_1", True),
        ("ELEMENT_WISE_DIVIDE", "4_1", False),
        ("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", "2_0", True),  # not yet introduced
        ("ELEMENT_WISE_FLOOR_DIVIDE", "6_4", False),  # extension operator, extensions off
        ("ELEMENT_WISE_BIT_SHIFT_LEFT", "6_4", True),
    ],
)
def test_caps_json_matches_operator_support(
    capsys: pytest.CaptureFixture[str], op: str, level: str, extensions: bool
) -> None:
    argv = ["caps", "--json", "--op", op, "--feature-level", level]
    if not extensions:
        argv.append("--no-extensions")
    rc, out, _ = run_cli(capsys, *argv)
    assert rc == 0
    got = json.loads(out)
    want = operator_support(OperatorType[op], FeatureLevel.parse(level), extensions=extensions).to_dict()
    assert got == [want]


def test_caps_json_all_operators(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "caps", "--json", "--feature-level", "FL_3_0")
    assert rc == 0
    got = json.loads(out)
    assert [d["operator"] for d in got] == [r.name for r in ROWS]
    assert got == [operator_support(OperatorType[r.name], FeatureLevel.FL_3_0).to_dict() for r in ROWS]


@pytest.mark.parametrize("name", ["add", "ADD", "Add", "element_wise_add", "ELEMENT-WISE-ADD"])
def test_caps_op_name_forms(capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert resolve_operator(name) is OperatorType.ELEMENT_WISE_ADD
    rc, out, _ = run_cli(capsys, "caps", "--op", name)
    assert rc == 0
    assert "ELEMENT_WISE_ADD" in out
    assert "ELEMENT_WISE_SUBTRACT" not in out


def _tensor_line(out: str, role: str) -> tuple[str, str]:
    """(dims, rest of the row) of one tensor's row in the plain caps table, wrapped lines joined."""
    m = re.search(rf"^(\s+){role}\s+(?:input|output)\s+(\S+)\s+(.*)$((?:\n\1 {{{len(role)},}}\S.*$)*)", out, re.M)
    assert m, f"no {role} row in:\n{out}"
    return m.group(2), " ".join([m.group(3), *m.group(4).split()])


def test_caps_add_at_2_1_has_4_to_5_dims(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "caps", "--op", "add", "--feature-level", "2_1")
    assert rc == 0
    assert "FL 2_1" in out
    for role in ("a_tensor", "b_tensor", "output_tensor"):
        dims, rest = _tensor_line(out, role)
        assert dims == "4-5"
        assert "FLOAT32 FLOAT16 INT32 UINT32" in rest
        assert "INT8" not in rest  # INT8 arrives at FL 5_1
    rc, out, _ = run_cli(capsys, "caps", "--op", "add", "--feature-level", "5_1")
    assert rc == 0
    assert _tensor_line(out, "a_tensor")[0] == "1-8"
    assert "INT8" in _tensor_line(out, "a_tensor")[1]


def test_caps_not_supported_and_no_extensions(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "caps", "--op", "logical_less_than_or_equal", "--feature-level", "2_1")
    assert rc == 0 and "not supported at FL 2_1" in out and "3_0" in out
    rc, out, _ = run_cli(capsys, "caps", "--op", "add", "--no-extensions")
    assert rc == 0 and "BFLOAT16" not in out and "FLOAT64" not in out
    rc, out, _ = run_cli(capsys, "caps", "--op", "floor_divide", "--no-extensions")
    assert rc == 0 and "extension" in out and "not supported" in out


@pytest.mark.parametrize(("name", "suggestion"), [("addd", "ELEMENT_WISE_ADD"), ("divde", "ELEMENT_WISE_DIVIDE")])
def test_caps_unknown_op_exit_code_2(capsys: pytest.CaptureFixture[str], name: str, suggestion: str) -> None:
    rc, out, err = run_cli(capsys, "caps", "--op", name)
    assert rc == 2
    assert out == ""
    assert "unknown operator" in err and repr(name) in err and suggestion in err


def test_bad_usage_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run_cli(capsys, "caps", "--feature-level", "9_9")
    assert rc == 2 and "unknown feature level" in err
    assert run_cli(capsys, "frobnicate")[0] == 2
    assert run_cli(capsys)[0] == 2
    assert run_cli(capsys, "demo", "--backend", "tpu")[0] == 2
    assert run_cli(capsys, "--help")[0] == 0


# --------------------------------------------------------------------------- info


def test_info_plain(capsys: pytest.CaptureFixture[str]) -> None:
    import gpuops

    rc, out, _ = run_cli(capsys, "info")
    assert rc == 0
    for key in ("gpuops", "python", "numpy", "ml_dtypes", "numba", "cupy", "CUDA usable", "backend (auto)", "NVRTC"):
        assert re.search(rf"^{re.escape(key)}\s", out, re.M), key
    assert gpuops.__version__ in out
    assert "feature level 6_4" in out


def test_info_json(capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    import gpuops

    rc, out, _ = run_cli(capsys, "info", "--json")
    assert rc == 0
    info = json.loads(out)
    assert info["gpuops"] == gpuops.__version__
    assert info["numpy"] == np.__version__
    assert info["backend"]["auto"] in ("numpy", "cupy")
    assert info["backend"]["feature_level"] == "6_4"
    has_numba = importlib.util.find_spec("numba") is not None
    assert (info["numba"] is not None) == has_numba
    assert info["numba_tier"] == (has_numba and gpuops.config.settings().numba)
    assert info["settings"]["GPUOPS_NUMBA"] == gpuops.config.settings().numba
    cuda = info["cuda"]
    assert isinstance(cuda["usable"], bool)
    if cuda["usable"]:
        assert info["backend"]["auto"] == "cupy"
        assert re.fullmatch(r"\d+\.\d+", cuda["device"]["compute_capability"])
    else:
        assert info["backend"]["auto"] == "numpy"
        assert cuda["reason"]
    assert info["nvrtc"] is None or re.fullmatch(r"\d+\.\d+", info["nvrtc"])


# --------------------------------------------------------------------------- demo


def _check_demo_output(out: str) -> None:
    assert "[[-12., -10.,  -6.]," in out  # the TensorRT seed's expected PROD output
    assert "-12" in out and "12." in out
    assert out.count("check: PASS") == 7
    assert "FAIL" not in out
    assert "strides=(0, 1)" in out  # the stride-0 broadcast of input2
    assert "strides=(6, 0, 1, 0)" in out and "strides=(0, 5, 0, 1)" in out  # OpenVINO (8,1,6,1) / (7,1,5)
    for kernel in ("multiply_float32", "divide_float32", "floor_divide_int32"):
        assert f"// gpuops ElementwiseKernel gpuops_element_wise_{kernel}" in out


def test_demo_numpy(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "demo", "--backend", "numpy")
    assert rc == 0, out
    _check_demo_output(out)
    assert "backend: numpy" in out


@pytest.mark.gpu
def test_demo_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import GPU

    rc, out, _ = run_cli(capsys, "demo", "--backend", GPU)
    assert rc == 0, out
    _check_demo_output(out)
    assert f"backend: {GPU}" in out


def test_demo_cupy_without_cuda_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuops.backends.cupy_backend import is_usable

    if is_usable():
        pytest.skip("CUDA is usable here")
    rc, _, err = run_cli(capsys, "demo", "--backend", "cupy")
    assert rc == 2 and "cupy" in err


def test_python_m_gpuops_demo_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpuops", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _check_demo_output(proc.stdout)


# --------------------------------------------------------------------------- README


def _section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"README has no '## {title}' section"
    return m.group(1)


def test_readme_setup_has_exactly_the_two_commands() -> None:
    setup = _section(README.read_text(encoding="utf-8"), "Set up")
    blocks = re.findall(r"```bash\n(.*?)```", setup, re.S)
    assert [b.strip() for b in blocks] == [
        "pip install -e . && python -m gpuops demo",
        'pip install -e ".[test,nvrtc,jit]" && GPUOPS_REQUIRE_NVRTC=1 python -m pytest -q -n auto',
    ]
    assert all(b.count("\n") == 1 for b in blocks)
    assert ".[cuda12]" in setup and ".[cuda13]" in setup


def test_readme_architecture_names_modules_that_exist() -> None:
    """Every module the README's pipeline names is a file or folder of the repository (the drawing
    names bare files under the folder a stage lives in), and every registered backend is drawn."""
    arch = _section(README.read_text(encoding="utf-8"), "Architecture")
    paths = set(re.findall(r"`((?:descriptors|gpuops)/[\w/.<>]+)`", arch))
    assert len(paths) >= 10, paths
    missing = [p for p in paths if "<" not in p and not (ROOT / p).exists()]
    assert not missing, missing
    drawn = re.search(r"```text\n(.*?)```", arch, re.S)
    assert drawn is not None
    for name in re.findall(r"[\w/]+\.py", drawn.group(1)):
        assert list(ROOT.glob(f"*/{name}")) or list(ROOT.glob(f"*/*/{name}")) or (ROOT / name).exists(), name
    from gpuops import backends

    for module, _ in backends.REGISTRY.values():
        assert module.split(".")[-1] + ".py" in arch, module


def test_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "README has no python example"
    for code in blocks:
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    assert "[[10. 21. 32.]" in out
    assert "a_tensor.sizes" in out and "FL_3_0" in out
    assert "[-1.0, 4.0, 9.0] [0.5, 5.0, 9.5] [2.0, 2.0, 2.0]" in out  # the Dask section


def _gen_readme_ops():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_readme_ops", ROOT / "tools" / "gen_readme_ops.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_ops_table_up_to_date() -> None:
    gen = _gen_readme_ops()
    table = gen.ops_table()
    assert table.count("\n") == sum(len(r.variants) or 1 for r in ROWS) + 2  # REDUCE: a line per function
    assert gen.readme_table(README.read_text(encoding="utf-8")) == table, (
        "README operator table is out of date: run `python tools/gen_readme_ops.py --write`"
    )


# --------------------------------------------------------------------------- benchmarks


def test_benchmark_harness_smoke(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--backend",
            "numpy",
            "--quick",
            "--max-log2",
            "12",
            "--repeats",
            "3",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads((tmp_path / "bench-numpy.json").read_text())
    assert result["backend"] == "numpy" and result["baseline"] == "numpy"
    assert {"device", "versions", "git_commit", "date", "rows", "summary"} <= result.keys()
    cases = {(r["case"], r["variant"]) for r in result["rows"]}
    for case in ("add_f32", "add_f16", "row_bcast_f32"):
        assert {(case, "gpuops"), (case, "numpy"), (case, "copy")} <= cases
    assert {("overhead_f32", "gpuops"), ("overhead_f32", "numpy")} <= cases
    assert {r["n"] for r in result["rows"] if r["case"] == "add_f32"} == {1 << 10, 1 << 12}
    for r in result["rows"]:
        assert r["median_us"] > 0 and r["GB_s"] > 0 and r["ratio_to_baseline"] > 0
    # gpuops rows state their kernels' cost (CompiledOperator.cost): add float32 moves 12 bytes per element in one
    # launch, exactly the fewest passes' bytes
    add = next(r for r in result["rows"] if (r["case"], r["variant"]) == ("add_f32", "gpuops"))
    assert (add["launches"], add["moved_bytes_per_elem"], add["predicted_ratio"]) == (1, 12.0, 1.0)
    assert all("launches" not in r for r in result["rows"] if r["variant"] in ("numpy", "copy"))
    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / "bench-numpy.png").stat().st_size > 10_000
    if importlib.util.find_spec("numba") is not None:  # the compiled tier, timed beside the ufunc path
        assert ("add_f16", "gpuops-ufuncs") in cases and ("add_f32", "gpuops-ufuncs") not in cases


def test_benchmark_explicit_sizes(tmp_path: Path) -> None:
    """--sizes takes any element count; 2-D cases round down to whole rows of 1024."""
    args = ["--backend", "numpy", "--sizes", "3e3", "--repeats", "3", "--out", str(tmp_path)]
    args += ["--cases", "add1_relu_f32,row_bcast_f32,sum_inner_f32"]
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads((tmp_path / "bench-numpy.json").read_text())["rows"]
    sizes = {r["case"]: r["n"] for r in rows if r["variant"] == "gpuops"}
    assert sizes == {"add1_relu_f32": 3000, "row_bcast_f32": 2048, "sum_inner_f32": 2048}
    bad = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--sizes", "1e7,x"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "--sizes" in bad.stderr


def test_caps_short_names_reach_every_family() -> None:
    from gpuops.__main__ import resolve_operator

    assert resolve_operator("gelu") is OperatorType.ACTIVATION_GELU
    assert resolve_operator("identity") is OperatorType.ELEMENT_WISE_IDENTITY  # ELEMENT_WISE_ first
    assert resolve_operator("activation_identity") is OperatorType.ACTIVATION_IDENTITY
    assert resolve_operator("mish_grad") is OperatorType.ELTWISE_MISH_GRAD


# --------------------------------------------------------------------------- Unix behaviour (issue 17, item 5)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import gpuops

    rc, out, err = run_cli(capsys, "--version")
    assert (rc, out, err) == (0, f"gpuops {gpuops.__version__}\n", "")


def _run_into_closed_pipe(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m gpuops ARGV`` with stdout a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "gpuops", *argv], cwd=ROOT, stdout=write_end, stderr=subprocess.PIPE, timeout=120
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("argv", [("caps",), ("caps", "--json")])
def test_closed_pipe_is_quiet(argv: tuple[str, ...]) -> None:
    proc = _run_into_closed_pipe(*argv)
    assert proc.stderr == b""
    assert proc.returncode == EXIT_BROKEN_PIPE == 141


@pytest.mark.skipif(shutil.which("head") is None, reason="needs head(1)")
def test_caps_piped_into_head_exits_cleanly() -> None:
    cmd = f"{shlex.quote(sys.executable)} -m gpuops caps | head -1"
    proc = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert proc.stdout.startswith("gpuops capability tables at FL 6_4") and proc.stdout.count("\n") == 1


def test_interrupt_is_quiet() -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    assert quiet_streams(interrupted) == EXIT_INTERRUPTED == 130
    assert quiet_streams(lambda: 0) == 0


@pytest.mark.parametrize("argv", [(), ("--no-extensions",), ("--level", "2_1"), ("reduce", "argmax")])
def test_caps_fits_100_columns(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    rc, out, _ = run_cli(capsys, "caps", *argv)
    assert rc == 0
    assert max(len(line) for line in out.splitlines()) <= WIDTH == 100
    assert "source:" not in out


def test_caps_wide_and_json_carry_provenance(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "caps", "--wide", "add", "reduce")
    assert rc == 0
    assert "source: sdk-api ns-directml-dml_element_wise_add_operator_desc.md" in out
    assert max(len(line) for line in out.splitlines()) > WIDTH  # one line per tensor
    assert re.search(r"^  a_tensor .* FLOAT32 .* UINT8  FLOAT64 BFLOAT16$", out, re.M)  # unwrapped
    rc, out, _ = run_cli(capsys, "caps", "--json", "add")
    assert json.loads(out)[0]["source"] == "sdk-api ns-directml-dml_element_wise_add_operator_desc.md"


def test_short_names_are_unique_and_map_back() -> None:
    names = short_names()
    assert list(names) == list(OperatorType)
    assert len(set(names.values())) == len(OperatorType)  # one operator per short name
    for op, name in names.items():
        assert name == name.lower() and " " not in name
        assert resolve_operator(name) is op
        assert resolve_operator(op.name) is op and resolve_operator(op.name.lower()) is op
    assert names[OperatorType.ELEMENT_WISE_ADD] == "add"
    assert names[OperatorType.ACTIVATION_RELU] == "relu"
    assert names[OperatorType.ACTIVATION_IDENTITY] == "activation_identity"  # ELEMENT_WISE_IDENTITY is "identity"
    full_names = {op.name.lower() for op in OperatorType}
    for synonym, full in SYNONYMS.items():
        assert synonym not in names.values() and synonym not in full_names, synonym
        assert resolve_operator(synonym) is OperatorType[full]
    assert resolve_operator("sub") is OperatorType.ELEMENT_WISE_SUBTRACT
    assert resolve_operator("MUL") is OperatorType.ELEMENT_WISE_MULTIPLY
    assert resolve_operator("DML_OPERATOR_ELEMENT_WISE_ADD") is OperatorType.ELEMENT_WISE_ADD


def test_caps_takes_short_names_positionally_and_repeated(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "caps", "sub", "mul", "--op", "relu", "--op", "sub")
    assert rc == 0
    titles = re.findall(r"^([A-Z_0-9]+) \(", out, re.M)
    assert titles == ["ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY", "ACTIVATION_RELU"]
    assert "ELEMENT_WISE_SUBTRACT (subtract): a - b" in out
    rc, out, _ = run_cli(capsys, "caps", "--json", "sub", "div")
    assert [d["operator"] for d in json.loads(out)] == ["ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_DIVIDE"]


@pytest.mark.parametrize("flag", ["--level", "--feature-level"])
def test_caps_hex_levels(capsys: pytest.CaptureFixture[str], flag: str) -> None:
    rc, out, _ = run_cli(capsys, "caps", "--json", "add", flag, "0x5100")
    assert rc == 0
    assert json.loads(out) == [operator_support(OperatorType.ELEMENT_WISE_ADD, FeatureLevel.FL_5_1).to_dict()]
    rc, out, _ = run_cli(capsys, "caps", "add", flag, "0X2100")
    assert rc == 0 and "at FL 2_1" in out
    rc, out, err = run_cli(capsys, "caps", "add", flag, "0x5101")
    assert rc == 2 and out == "" and "unknown feature level '0x5101'" in err
