"""No module of ``gpuops`` is over 500 physical lines (issue 32): a module that grows past that is split into modules
whose names say what each does, not left to grow.

Physical lines as ``wc -l`` counts them (newline characters, plus a last line without one), docstrings, comments and
blank lines included: the size a reader scrolls through."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 500


def _lines(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def test_line_count_is_physical_lines(tmp_path: Path) -> None:
    cases = {b"": 0, b"x\n": 1, b"x": 1, b"x\ny": 2, b'"""a\n\nb"""\n\n# c\n': 5}
    for k, (data, want) in enumerate(cases.items()):
        path = tmp_path / f"m{k}.py"
        path.write_bytes(data)
        assert _lines(path) == want, data


def test_no_gpuops_module_is_over_500_lines() -> None:
    modules = sorted(p for p in (ROOT / "gpuops").rglob("*.py") if "__pycache__" not in p.parts)
    assert len(modules) > 50, "gpuops' modules were not found"
    over = {str(p.relative_to(ROOT)): n for p in modules if (n := _lines(p)) > LIMIT}
    assert not over, f"modules over {LIMIT} lines (split them by what each part does): {over}"
