"""The API reference (tools/build_docs.py, pdoc): it builds without a warning and documents every
public name of the API contract (API.md) and every name in the packages' ``__all__``."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

import descriptors

pytest.importorskip("pdoc")

ROOT = Path(__file__).resolve().parents[2]
API_MD = ROOT.parent / "shared" / "API.md"  # the contract, kept beside the repository when it is there

# API.md's public names, by the page that documents them (its tables' first column, plus the
# names its descriptions introduce). Methods and properties are qualified by their class.
API_NAMES: dict[str, tuple[str, ...]] = {
    "descriptors": (
        "DataType",
        "DataType.numpy_dtype",
        "DataType.from_numpy",
        "TensorFlags",
        "FeatureLevel",
        "TensorDesc",
        "TensorDesc.dimension_count",
        "calc_buffer_tensor_size",
        "OperatorType",
        "desc_class",
        "ScaleBias",
        "ReduceFunction",
        "RoundingMode",
        "IsInfinityMode",
        "AxisDirection",
        "DescriptorError",
        "validate",
        "operator_support",
        "GraphDesc",
        "OperatorNode",
        "ConstantNode",
        "InputEdge",
        "OutputEdge",
        "IntermediateEdge",
    ),
    "gpuops": (
        "Device",
        "Device.backend",
        "Device.feature_level",
        "Device.supports_data_type",
        "Device.max_supported_feature_level",
        "Device.operator_support",
        "Device.create_operator",
        "Device.compile_operator",
        "Device.compile_graph",
        "CompiledOperator",
        "CompiledOperator.kernel_source",
        "CompiledOperator.execute",
        "CompiledOperator.kernel_count",
        "CompiledOperator.__call__",
        "UnsupportedError",
        "BindingError",
        "DescriptorError",
        "run",
        "webnn",
    ),
    "gpuops.webnn": (
        "MLGraphBuilder",
        "MLGraphBuilder.input",
        "MLGraphBuilder.constant",
        "MLGraphBuilder.build",
        "MLOperandDescriptor",
        "MLGraph",
        "MLGraph.compute",
    ),
}

FRONTENDS = ("gpuops.frontends.tensorrt", "gpuops.frontends.onednn", "gpuops.frontends.openvino")


def _build_docs():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("build_docs", ROOT / "tools" / "build_docs.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference, built once for this module; ``build`` raises on any warning."""
    return _build_docs().build(tmp_path_factory.mktemp("docs"))


def _page(site: Path, module: str) -> str:
    path = site / (module.replace(".", "/") + ".html")
    assert path.is_file(), f"no page for {module}"
    return path.read_text(encoding="utf-8")


def _lookup(module: ModuleType, qualname: str) -> bool:
    """Whether ``module.qualname`` exists in the code: a dunder only where the class defines it, an
    instance attribute where the class assigns ``self.<name>``."""
    owner: object = module
    *path, last = qualname.split(".")
    for part in path:
        owner = getattr(owner, part, None)
    if not isinstance(owner, type):
        return owner is not None and hasattr(owner, last)
    if last.startswith("__"):
        return any(last in vars(c) for c in owner.__mro__ if c not in (object, type))
    return hasattr(owner, last) or f"self.{last}" in inspect.getsource(owner)


def test_build_has_no_warnings_and_is_searchable(site: Path) -> None:
    assert (site / "index.html").is_file()
    search = (site / "search.js").read_text(encoding="utf-8")
    assert "Device.compile_operator" in search and "ElementWiseAddOperatorDesc" in search
    for module in FRONTENDS:
        _page(site, module)
    assert not (site / "gpuops" / "frontends" / "_common.html").exists()  # private


# API.md names whose issues are still open (17: convenience calls). Each must be
# absent: when one lands, this test fails until it leaves the list and its reference entry is checked.
NOT_YET: set[tuple[str, str]] = set()


@pytest.mark.parametrize(("module", "qualname"), [(m, q) for m, names in API_NAMES.items() for q in names])
def test_api_md_name_is_documented(site: Path, module: str, qualname: str) -> None:
    present = _lookup(importlib.import_module(module), qualname)
    if (module, qualname) in NOT_YET:
        assert not present, f"{module}.{qualname} has landed: take it out of NOT_YET"
        return
    assert present, f"{module}.{qualname} is in API.md but not in the code"
    if isinstance(getattr(importlib.import_module(module), qualname, None), ModuleType):  # a submodule: its own page
        _page(site, f"{module}.{qualname}")  # asserts that the page exists
        return
    assert f'id="{qualname}"' in _page(site, module), f"{module}.{qualname} is missing from the API reference"


@pytest.mark.parametrize("module", ["descriptors", "gpuops", "gpuops.dask", *FRONTENDS])
def test_every_public_name_is_documented(site: Path, module: str) -> None:
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None) or [
        n for n, v in vars(mod).items() if not n.startswith("_") and getattr(v, "__module__", None) == module
    ]
    page = _page(site, module)
    missing = [n for n in names if not isinstance(getattr(mod, n), ModuleType) and f'id="{n}"' not in page]
    assert not missing, f"{module}: not in the API reference: {missing}"


def test_reference_cites_only_sources_a_reader_can_open(site: Path) -> None:
    """No page points at the project's private notes (``shared/seeds``, ``shared/reference``)."""
    cited = {p.relative_to(site).as_posix() for p in site.rglob("*.html") if "shared/" in p.read_text(encoding="utf-8")}
    assert not cited


def test_every_operator_descriptor_is_documented(site: Path) -> None:
    page = _page(site, "descriptors")
    missing = [op.name for op in descriptors.OperatorType if f'id="{descriptors.desc_class(op).__name__}"' not in page]
    assert not missing


def test_simple_tables_become_markdown_tables() -> None:
    text = "intro\n\n====  =====\nname  what\n====  =====\na|b   one\n      more\nc     two\n====  =====\n\nend"
    got = _build_docs().simple_tables(text)
    assert "| name | what |\n|---|---|\n| a\\|b | one more |\n| c | two |" in got
    assert got.startswith("intro\n") and got.endswith("\nend")
    assert _build_docs().simple_tables("====  ====\nnot a table") == "====  ====\nnot a table"


def test_documented_call_is_in_the_reference(tmp_path: Path) -> None:
    """The template override shows a documented ``__call__`` (pdoc hides special methods)."""
    source = tmp_path / "callme.py"
    source.write_text('class Op:\n    def __call__(self, x: int) -> int:\n        """Run it."""\n        return x\n')
    page = (_build_docs().build(tmp_path / "site", [str(source)]) / "callme.html").read_text(encoding="utf-8")
    assert 'id="Op.__call__"' in page


@pytest.mark.skipif(not API_MD.is_file(), reason="API.md is not beside the repository")
def test_api_names_cover_api_md() -> None:
    """Every name in API.md's tables (first column) is in API_NAMES, so the list cannot drift."""
    listed = {q for names in API_NAMES.values() for q in names}
    found: set[str] = set()
    for cell in re.findall(r"^\| (.+?) \|", API_MD.read_text(encoding="utf-8"), re.M):
        for code in re.findall(r"`([^`]+)`", cell):
            name = re.sub(r"^(gpuops|descriptors)\.", "", code.split("(")[0])
            if re.fullmatch(r"[A-Za-z_][\w.]*", name) and name not in ("python",):
                found.add(name)
    assert found and not found - listed, sorted(found - listed)
