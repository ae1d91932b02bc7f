"""No import cycles in ``src/``: every module is parsed with ``ast`` and the import graph is built from
every import statement, at module level or inside a function (a lazy import still runs, so it still
counts), absolute or relative.

The rule, edge by edge (M is the importing module):

* ``import a.b.c`` and ``from a.b.c import name`` are edges M -> ``a.b.c``; when ``name`` is itself a
  submodule (``from . import svg``, ``from .profiling import capture``) there is also an edge to it.
* ``from . import x`` / ``from .. import x`` is an edge to the package (its ``__init__`` runs), as
  any ``from P import x`` is.
* A package whose ``__init__`` maps names to submodules lazily (``_EXPORTS``, served by
  ``__getattr__``) does not import those submodules when it is imported, so the ``__init__`` has no
  edge to them. Importing a lazily exported name (``from measurefirst import compare``) is an edge to
  the module that defines it (``measurefirst.compare``) besides the edge to the package: that is
  where the import really goes, so a submodule that imports a lazily exported name back from its
  package closes a cycle exactly when the defining module imports the submodule.
* Only imports under ``if TYPE_CHECKING:`` are left out: they never run.
* Imports of modules outside ``src/`` (torch, rich, the standard library) are not edges.
* ``importlib.import_module`` with a computed name (the packages' ``__getattr__``, the CLI loading
  user code) cannot be resolved statically and is not an edge.

A cycle is a strongly connected component of more than one module, or a module that imports itself.

Two more rules read the imports under ``if TYPE_CHECKING:`` too (they never run, but a type that a
module needs from another ties the two as much as a run-time import does):

* no typing-only cycle: an edge that only typing makes may not close a cycle;
* a renderer (``measurefirst.render.*``) imports nothing but results (``measurefirst.results.*``), the
  words and other renderers.

Neither has an exception. Results reach the renderers through one seam: ``results.base.shown`` (and
``ResultBase.__str__``/``_repr_html_``) call :mod:`measurefirst.render.dispatch`, which imports each kind's
renderer by the name its table gives, when a result is first shown; so a renderer may name in its
annotations the result types it draws without closing a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

#: What a renderer may import besides results and other renderers: the package's version.
RENDERER_MAY_IMPORT = {"measurefirst", "measurefirst._version"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, typing: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Every import node, at any depth, except the body of ``if TYPE_CHECKING:`` (its ``else`` runs),
    unless ``typing``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        if not typing and isinstance(node, ast.If) and _is_type_checking(node.test):
            children: list[ast.AST] = [node.test, *node.orelse]
        else:
            children = list(ast.iter_child_nodes(node))
        for child in children:
            visit(child)

    visit(tree)
    return found


def _lazy_exports(tree: ast.Module) -> dict[str, str]:
    """A package's ``_EXPORTS = {"name": "submodule", ...}``, or an empty dict."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
                and isinstance(node.value, ast.Dict)):
            return {ast.literal_eval(k): ast.literal_eval(v) for k, v in zip(node.value.keys, node.value.values)
                    if k is not None}
    return {}


def import_graph(typing: bool = False) -> dict[str, set[str]]:
    trees: dict[str, ast.Module] = {}
    packages: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        name = module_name(path)
        trees[name] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        if path.name == "__init__.py":
            packages.add(name)
    lazy = {pkg: _lazy_exports(trees[pkg]) for pkg in packages}

    def targets(importer: str, node: ast.Import | ast.ImportFrom) -> set[str]:
        if isinstance(node, ast.Import):
            return {alias.name for alias in node.names}
        if node.level:
            base = importer.split(".") if importer in packages else importer.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        found = {target}
        for alias in node.names:
            if f"{target}.{alias.name}" in trees:
                found.add(f"{target}.{alias.name}")
            elif alias.name in lazy.get(target, {}):
                where = lazy[target][alias.name]
                found.add(where if where.startswith("measurefirst.") else f"{target}.{where}")
        if importer in packages and node.level == 1 and not node.module:
            found.discard(importer)  # a package's own ``from . import x`` imports x, not itself
        return found

    return {name: {t for node in _imports(tree, typing) for t in targets(name, node) if t in trees}
            for name, tree in trees.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module, and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
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
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_rule_finds_cycles_lazy_and_relative_imports_included() -> None:
    graph = {"p": set(), "p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.d"}, "p.e": {"p.a"}}
    assert cycles(graph) == [["p.a", "p.b", "p.c"], ["p.d"]]
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\nelse:\n    import y\n"
                     "def f():\n    from . import z\n")
    assert [ast.unparse(node) for node in _imports(tree)] == ["from typing import TYPE_CHECKING", "import y",
                                                               "from . import z"]


def test_the_graph_resolves_relative_lazy_and_submodule_imports() -> None:
    graph = import_graph()
    # render/report.py: ``from .._version import __version__`` inside a function: an edge to that module only
    assert "measurefirst._version" in graph["measurefirst.render.report"]
    assert "measurefirst" not in graph["measurefirst.render.report"]
    # ``from . import svg``: the package and the submodule
    assert {"measurefirst.render", "measurefirst.render.svg"} <= graph["measurefirst.render.report_profile"]
    # the lazy package does not import its submodules when it is imported
    assert "measurefirst.tools.compare" not in graph["measurefirst"]


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def _short(module: str) -> str:
    return module.removeprefix("measurefirst.")


def test_no_typing_only_cycle() -> None:
    run, full = import_graph(), import_graph(typing=True)
    component = {m: i for i, c in enumerate(cycles(full)) for m in c}
    found: dict[str, set[str]] = {}
    for a in full:
        for b in full[a] - run[a]:
            if a in component and component.get(b) == component[a]:
                found.setdefault(_short(a), set()).add(_short(b))
    assert not found, f"typing-only imports that close a cycle: {found}"
    assert not cycles(full), "cycles once typing imports count: " + "; ".join(" <-> ".join(c) for c in cycles(full))


def test_renderers_import_only_results_words_and_renderers() -> None:
    full = import_graph(typing=True)
    found = {_short(a): {_short(t) for t in ts if not (t in RENDERER_MAY_IMPORT or t.startswith("measurefirst.render")
                                                     or t.startswith("measurefirst.results"))}
             for a, ts in full.items() if a.startswith("measurefirst.render")}
    assert not {a: bs for a, bs in found.items() if bs}, "a renderer imports computation"


def test_the_typing_rules_read_type_checking_blocks() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\n")
    assert [ast.unparse(n) for n in _imports(tree, typing=True)] == ["from typing import TYPE_CHECKING", "import x"]
    assert cycles({"a": {"b"}, "b": {"a"}}) and not cycles({"a": {"b"}, "b": set()})


# ---- the floors (issue 39) ----------------------------------------------------------------------------------
#: The house's floors, bottom up: a module imports only modules of its own floor or of the floors below,
#: counting every import (at module level, inside functions and under ``TYPE_CHECKING``). The ground is
#: pure data and arithmetic (result kinds, protocol, statistics, fits, bandwidth formulas, regression
#: arithmetic) beside the package's two helpers; then measuring; the tools built on it (profiling, the
#: tools, the distributed measuring); the renderers, which read results only; the entry points last.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("_lazy", "_version"), ("results",), ("measure",), ("profiling",), ("tools",), ("distributed",), ("render",),
    ("lecture",), ("pytest",), ("cli",), ("notebook",), ("", "__main__"))
#: The one named exception: a result shows itself (``str(result)``, ``_repr_html_``) through the display
#: seam, which imports the kind's renderer when the result is first shown.
SEAM = {("measurefirst.results.base", "measurefirst.render.dispatch")}


def floor_of(module: str) -> int:
    """The floor of ``measurefirst.FOLDER.module`` (or of a top module: ``_lazy``, ``""`` for the package)."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    for i, folders in enumerate(FLOORS):
        if name in folders:
            return i
    raise AssertionError(f"{module} is on no floor: add its folder to FLOORS")


def backwards(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{_short(a)} -> {_short(b)}" for a, ts in graph.items() for b in ts
                  if floor_of(b) > floor_of(a) and (a, b) not in SEAM)


def test_every_folder_imports_only_its_floor_and_the_floors_below() -> None:
    found = backwards(import_graph(typing=True))
    assert not found, f"{len(found)} imports go up a floor:\n" + "\n".join(found)


def test_the_floor_rule_sees_an_import_inside_a_function_and_under_type_checking() -> None:
    graph = {"measurefirst.results.kinds": {"measurefirst.tools.sweep"}, "measurefirst.tools.sweep": set(),
             "measurefirst.results.base": {"measurefirst.render.dispatch"}, "measurefirst.render.dispatch": set()}
    assert backwards(graph) == ["results.kinds -> tools.sweep"]  # the seam is the one exception
    tree = ast.parse("def f():\n    from ..tools import fit\nif TYPE_CHECKING:\n    from ..cli import x\n")
    assert len(_imports(tree, typing=True)) == 2 and len(_imports(tree)) == 1
    assert [floor_of(m) for m in ("measurefirst._lazy", "measurefirst.results.kinds", "measurefirst.cli.parser",
                                  "measurefirst")] == [0, 1, 9, 11]


#: The most lines a module of src/ may hold: a room a reader can hold.
MAX_LINES = 600


def test_no_module_holds_more_than_600_lines() -> None:
    long = {str(p.relative_to(SRC)): n for p in sorted(SRC.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_package_faces_import_no_submodule_for_typing() -> None:
    """Issue 39: a package's ``__init__.py`` serves its names lazily (``_EXPORTS``); the names for type
    checkers are in its stub (``__init__.pyi``), so no reader of the code sees the face import its rooms
    under ``TYPE_CHECKING`` (a drawing of the house showed one circle of 48 files through them)."""
    run, full = import_graph(), import_graph(typing=True)
    faces = {m for m in full if (SRC / m.replace(".", "/") / "__init__.py").is_file()}
    assert {_short(f): sorted(full[f] - run[f]) for f in faces if full[f] - run[f]} == {}
    for face in ("__init__", "distributed/__init__", "profiling/__init__"):
        assert (SRC / "measurefirst" / f"{face}.pyi").is_file(), face
