"""descriptors/descs.pyi is the op table's (tools/gen_descs_stub.py), and the row links hold.

The descriptor classes are made at import from the rows; the stub spells them out for type
checkers. Like the README's operator table (tests/frontends/test_cli.py), the stub must be regenerated
when a row changes: ``python tools/gen_descs_stub.py --write``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

import pytest
from grid_check import check_grid

import descriptors
from descriptors import ROWS, desc_class
from descriptors.cuda_helpers import Helper, HelperRegistry
from descriptors.optable import ELEMENTWISE_ROWS, HELPERS, ROW_BY_NAME
from descriptors.schema import ElementwiseRow, Family, ReductionRow

ROOT = Path(__file__).resolve().parents[2]


def _gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_descs_stub", ROOT / "tools" / "gen_descs_stub.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_stub_is_up_to_date() -> None:
    stub = (ROOT / "descriptors" / "descs.pyi").read_text(encoding="utf-8")
    assert stub == _gen().stub_text(), "descriptors/descs.pyi is stale: run python tools/gen_descs_stub.py --write"


def _check_stub_fields(stub: str, row: ElementwiseRow | ReductionRow) -> None:
    block = stub.split(f"class {row.class_name}(OperatorDesc):\n", 1)[1].split("\n\n@", 1)[0]
    lines = [ln.strip() for ln in block.split("    row: ClassVar[", 1)[1].splitlines()[1:] if ln.strip()]
    cls = desc_class(row.name)
    params = list(inspect.signature(cls).parameters.values())
    want = []
    for p in params:
        if p.kind is inspect.Parameter.KEYWORD_ONLY and "_: dataclasses.KW_ONLY" not in want:
            want.append("_: dataclasses.KW_ONLY")
        want.append(p.name + ("" if p.default is inspect.Parameter.empty else " = ..."))
    got = [ln.split(":")[0] + (" = ..." if ln.endswith(" = ...") else "") for ln in lines]
    got = ["_: dataclasses.KW_ONLY" if g == "_" else g for g in got]
    assert got == want, "stub fields (want: the runtime signature's)"
    assert [f.name for f in dataclasses.fields(cls)] == [f.name for f in row.fields], "dataclass fields vs row fields"


def test_stub_fields_are_the_runtime_fields() -> None:
    """Every row: the stub's class lists the runtime dataclass's fields, in order, with the same
    positional / keyword-only split and the same presence of defaults."""
    stub = _gen().stub_text()
    check_grid(ROWS, lambda row: _check_stub_fields(stub, row), lambda row: row.name)


def test_every_class_is_a_package_name() -> None:
    for row in ROWS:
        assert getattr(descriptors, row.class_name) is desc_class(row.name)
        assert row.class_name in descriptors.__all__


# --- one row per op: the links each row states ------------------------------------------------


def test_grad_links_name_backward_rows() -> None:
    """``grad=`` / ``grad_use_dst=`` name GRAD rows; every oneDNN backward row has its forward."""
    linked = set()
    for row in ELEMENTWISE_ROWS:
        for link, use_dst in ((row.grad, False), (row.grad_use_dst, True)):
            if link:
                target = ROW_BY_NAME[link]
                assert target.family is Family.GRAD, (row.name, link)
                assert ("_USE_DST_FOR_BWD_" in link) is use_dst, (row.name, link)
                linked.add(link)
    eltwise = {r.name for r in ELEMENTWISE_ROWS if r.name.startswith("ELTWISE_")}
    assert linked == eltwise


def test_every_named_helper_is_declared_once() -> None:
    named = {h for r in ELEMENTWISE_ROWS for h in r.helpers}
    named |= {h for r in ROWS if isinstance(r, ReductionRow) for red in r.reductions.values() for h in red.helpers}
    assert named <= set(HELPERS)
    with pytest.raises(ValueError, match="declared by two families"):
        HelperRegistry({"x": Helper("a")}, {"x": Helper("b")})
    with pytest.raises(ValueError, match="undeclared"):
        HelperRegistry({"x": Helper("a", ("y",))})
    assert HELPERS.closure(["float_divmod"]) == ("float_overloads", "float_divmod")


def test_accuracy_is_stated_on_elementwise_rows_only() -> None:
    for row in ROWS:
        assert isinstance(row, ElementwiseRow) or not hasattr(row, "accuracy"), row.name
        acc = getattr(row, "accuracy", None)
        if acc is not None:
            assert acc.ulps >= 0 and acc.atol >= 0, row.name
            assert acc.per_dd == row.name.startswith("ELTWISE_"), row.name
