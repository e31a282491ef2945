"""No import circles in ``descriptors`` and ``gpuops`` (issue 32), and ``descriptors`` never imports ``gpuops``.

The graph is read from the source with ``ast``, nothing is imported. Its nodes are the modules under
``descriptors/`` and ``gpuops/`` (a package is its ``__init__``); an edge ``a -> b`` means module ``a`` imports
module ``b``:

* ``import x.y.z`` and ``from x.y import z`` name the module ``x.y.z`` when it exists (``z`` a submodule),
  else ``x.y`` (``z`` a name defined there); relative imports resolve against the importing module's package.
  The parent packages Python initialises on the way (``x``, ``x.y``) are not edges: otherwise every package
  whose ``__init__`` re-exports a submodule would be a circle with it. A name taken from a package's
  ``__init__`` (``from . import f`` in one of its modules, ``f`` defined there) is an edge to the package, and a
  circle when that ``__init__`` imports the module: it works only while ``f`` is defined above that import.
* An import inside a function counts: it is still a dependency, only a deferred one, and hiding an import in a
  function is the usual way to keep a circle from failing at import time rather than to remove it. The circles
  made of module-level imports alone are reported separately in the failure message.
* Imports under ``if TYPE_CHECKING:`` do not count: they are never executed, only type checkers read them.
* Dynamic imports (``importlib.import_module(name)``, ``__import__``) are invisible here.

Every strongly connected component with more than one module (Tarjan's algorithm) is a circle; the test fails
listing each, with the import lines that close it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("descriptors", "gpuops")


@dataclass(frozen=True)
class Edge:
    """One import statement of ``source`` that names module ``target``."""

    source: str
    target: str
    line: int
    local: bool  # inside a function (deferred to the call)


def _modules() -> dict[str, Path]:
    """Every module of PACKAGES by dotted name (``pkg.sub`` for ``pkg/sub/__init__.py``)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, in_function: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it sits in a function, skipping ``if TYPE_CHECKING:`` bodies."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), in_function)
        else:
            local = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from _imports(node, local)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> Iterator[str]:
    """The modules of ``known`` that one import statement of ``module`` names."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            while name and name not in known:  # import x.y.z where only x.y is ours: x.y
                name = name.rpartition(".")[0]
            if name:
                yield name
        return
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join([*base, node.module] if node.module else base)
    else:
        prefix = node.module or ""
    for alias in node.names:
        submodule = f"{prefix}.{alias.name}"
        if submodule in known:
            yield submodule
        elif prefix in known:
            yield prefix


def module_edges(module: str, is_package: bool, source: str, known: set[str]) -> list[Edge]:
    """The edges from ``module`` (its ``source``; ``is_package``: an ``__init__.py``) to the modules of ``known``."""
    edges: list[Edge] = []
    for node, local in _imports(ast.parse(source)):
        for target in dict.fromkeys(_targets(module, is_package, node, known)):
            if target != module:
                edges.append(Edge(module, target, node.lineno, local))
    return edges


def import_edges() -> list[Edge]:
    """Every edge of the import graph of PACKAGES, in file and line order."""
    modules = _modules()
    known = set(modules)
    return [
        e
        for module, path in modules.items()
        for e in module_edges(module, path.name == "__init__.py", path.read_text(encoding="utf-8"), known)
    ]


def strongly_connected(nodes: set[str], edges: list[Edge]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node, each sorted, sorted by first node."""
    succ: dict[str, set[str]] = {n: set() for n in nodes}
    for e in edges:
        succ[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        # Recursive: the graph's depth is bounded by its ~200 modules, well under the recursion limit.
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(components)


def _describe(components: list[list[str]], edges: list[Edge]) -> str:
    lines = []
    for component in components:
        members = set(component)
        lines.append("circle: " + ", ".join(component))
        for e in edges:
            if e.source in members and e.target in members:
                where = "in a function" if e.local else "module level"
                lines.append(f"    {e.source} -> {e.target}  (line {e.line}, {where})")
    return "\n".join(lines)


def test_edges_of_each_kind_of_import() -> None:
    """The rules of the module docstring on a module made up here (``p.q.m``, a module of package ``p.q``)."""
    known = {"p", "p.q", "p.q.m", "p.q.sib", "p.r", "p.r.deep", "p.r.deep.leaf"}
    source = """
from typing import TYPE_CHECKING
import numpy
import p.r.deep.leaf.missing
from . import sib
from .. import r, name_in_p
from ..r import deep
from ..r.deep import some_function
if TYPE_CHECKING:
    from p import r
else:
    from p.r import deep
def f():
    import p.r
    class C:
        from . import sib
"""
    got = [(e.target, e.line, e.local) for e in module_edges("p.q.m", False, source, known)]
    assert got == [
        ("p.r.deep.leaf", 4, False),  # the longest known prefix of a dotted import
        ("p.q.sib", 5, False),  # a submodule named in from-import
        ("p.r", 6, False),  # level 2 from a module: the package above its own
        ("p", 6, False),  # a name defined in p's __init__
        ("p.r.deep", 7, False),
        ("p.r.deep", 8, False),  # a function of p.r.deep: the module itself
        ("p.r.deep", 12, False),  # the else branch of TYPE_CHECKING runs; its body (line 10) does not
        ("p.r", 14, True),
        ("p.q.sib", 16, True),  # in a class in a function: deferred to the call
    ]
    # In a package's __init__, level 1 is the package itself.
    assert [e.target for e in module_edges("p.q", True, "from . import m\nfrom .m import x\n", known)] == [
        "p.q.m",
        "p.q.m",
    ]


def test_graph_sees_the_imports() -> None:
    """The parser finds the edges a reader sees (a broken parser would find no circle and pass)."""
    edges = {(e.source, e.target) for e in import_edges()}
    assert ("gpuops", "gpuops.device") in edges  # from .device import ...  (package __init__, relative)
    assert ("gpuops", "gpuops.config") in edges  # from . import config  (a submodule named in from-import)
    assert ("gpuops", "descriptors") in edges  # from descriptors import DescriptorError (absolute, a name)
    assert ("gpuops.device", "gpuops.backends") in edges


def test_tarjan_finds_circles() -> None:
    """The circle finder on a graph made up here: a->b->c->a and d<->e are circles, f->a and a self-loop are not."""
    edges = [Edge(s, t, 1, False) for s, t in ["ab", "bc", "ca", "de", "ed", "fa", "gg"]]
    assert strongly_connected(set("abcdefg"), edges) == [["a", "b", "c"], ["d", "e"]]


def test_no_import_circles() -> None:
    edges = import_edges()
    nodes = set(_modules())
    components = strongly_connected(nodes, edges)
    top_level = strongly_connected(nodes, [e for e in edges if not e.local])
    assert not components, (
        f"{len(components)} import circle(s), function-local imports included:\n"
        + _describe(components, edges)
        + f"\n\nof which {len(top_level)} made of module-level imports alone: "
        + ("; ".join(", ".join(c) for c in top_level) or "none")
    )


def gpuops_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of ``gpuops`` or a module in it, anywhere in ``source`` (in functions and
    under ``TYPE_CHECKING`` too). Relative imports stay inside their own package."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [(node.lineno, n) for n in names if n == "gpuops" or n.startswith("gpuops.")]
    return found


def test_gpuops_imports_are_found() -> None:
    source = "import gpuopsx\nimport os, gpuops.device\ndef f():\n    from gpuops import run\nfrom . import gpuops\n"
    assert gpuops_imports(source) == [(2, "gpuops.device"), (4, "gpuops")]


def test_descriptors_never_imports_gpuops() -> None:
    """descriptors is the pure-Python model under gpuops: it imports neither gpuops nor anything in it."""
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in sorted((ROOT / "descriptors").rglob("*.py"))
        for line, name in gpuops_imports(path.read_text(encoding="utf-8"))
    ]
    assert not offending, "descriptors imports gpuops:\n" + "\n".join(offending)
