"""The import structure of the five packages, read from their source with ``ast``.

Layers, bottom to top: maid_engine -> maid_stdlib -> classic_rpg -> content_packs
and admin (the two top ones side by side: neither imports the other). A module
imports only its own layer and the ones below it, at module level, in functions
and under TYPE_CHECKING alike.

Project imports belong at the top of a module: an import inside a function body
hides a dependency (and usually a cycle it was put there to dodge). The import
graph of the packages has no cycles, counting every import: module-level,
function-body and TYPE_CHECKING ones alike. An import only for type checking does
not run, but a loop through it is still a loop in the design (two modules that
each need the other's types); break it with a leaf module or a Protocol.

Importing ``a.b.c`` runs package ``a.b``'s ``__init__`` first, but that implicit
edge is left out: a package re-exporting its submodules is not a dependency loop.
An explicit ``from a.b import name`` of something the package's ``__init__``
defines or re-exports is an edge to ``a.b``.

``importlib.import_module("pkg.mod")`` with a literal (or a module-level string
constant) counts as an import where it is called.

The allow-lists below are what is still open; each entry names who owns it, and a
test fails when an entry is no longer needed, so it is removed with the fix.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from maid_stdlib.world.graph import RoomGraph

ROOT = Path(__file__).resolve().parents[2]
#: Package -> layer; a module may import only packages of a layer <= its own, and
#: of the top layer only its own package.
LAYERS = {"maid_engine": 0, "maid_stdlib": 1, "classic_rpg": 2, "content_packs": 3, "admin": 3}

#: Project imports inside a function body still needed: (importing module, imported
#: module) -> owner and why. Remove an entry with the change that makes it unneeded.
_LAZY = "permanent: a heavy third-party library loads only when needed"
FUNCTION_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {
    # The engine's CLI runs the RPG layer's simulator, which it cannot import at the
    # top: maid_engine imports nothing above it (the one upward import, by design).
    (
        "maid_engine.cli",
        "classic_rpg.simulate.cli",
    ): "permanent: `maid simulate` is above the engine",
    (
        "maid_engine.cli",
        "classic_rpg.scaffold",
    ): "permanent: `maid new-pack` writes a pack on the RPG layer, above the engine",
    # Lazy on purpose: each keeps a heavy third-party library (SQLAlchemy behind
    # maid_engine.store, telnetlib3 behind maid_engine.net, aiohttp behind
    # maid_engine.web) out of processes that do
    # not need it; tests/engine/test_ports.py keeps the same list with its reasons.
    **{
        (module, target): _LAZY
        for module, target in [
            ("maid_engine.app", "maid_engine.net"),
            ("maid_engine.app", "maid_engine.web"),
            ("maid_engine.cli", "maid_engine.accounts.admin_cli"),
            ("maid_engine.cli", "maid_engine.app"),
            ("maid_engine.cli", "maid_engine.packcheck"),
            ("maid_engine.engine", "maid_engine.store"),
            ("maid_engine.reliability", "maid_engine.store"),
        ]
    },
}

#: Cycles of the import graph still open: the modules of each strongly connected
#: component -> owner.
CYCLES_ALLOWED: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the project module imported
    line: int
    in_function: bool
    type_checking: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            out[_module_name(path)] = path
    return out


MODULES = _modules()


def _resolve(dotted: str) -> str | None:
    """The project module ``dotted`` names, or contains (``pkg.mod.Name``)."""
    parts = dotted.split(".")
    while parts:
        name = ".".join(parts)
        if name in MODULES:
            return name
        parts.pop()
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, constants: dict[str, str]) -> None:
        self.module = module
        self.is_package = is_package
        self.constants = constants
        self.found: list[Import] = []
        self._functions = 0
        self._type_checking = 0

    # -- where we are ----------------------------------------------------------------
    def _in_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1

    visit_FunctionDef = _in_function
    visit_AsyncFunctionDef = _in_function
    visit_Lambda = _in_function

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self.visit(node.test)
        self._type_checking += 1
        for child in node.body:
            self.visit(child)
        self._type_checking -= 1
        for child in node.orelse:
            self.visit(child)

    # -- what is imported ------------------------------------------------------------
    def _add(self, dotted: str, line: int) -> None:
        target = _resolve(dotted)
        if target is not None and target != self.module:
            self.found.append(
                Import(self.module, target, line, self._functions > 0, self._type_checking > 0)
            )

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.module.split(".")
            if not self.is_package:
                base.pop()
            base = base[: len(base) - (node.level - 1)]
            package = ".".join([*base, node.module] if node.module else base)
        else:
            package = node.module or ""
        for alias in node.names:
            submodule = f"{package}.{alias.name}"
            self._add(submodule if submodule in MODULES else package, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("import_module", "__import__") and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                self._add(arg.value, node.lineno)
            elif isinstance(arg, ast.Name) and arg.id in self.constants:
                self._add(self.constants[arg.id], node.lineno)
        self.generic_visit(node)


def _string_constants(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in tree.body:
        value = getattr(node, "value", None)
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Name):
                out[target.id] = value.value
    return out


def _imports() -> list[Import]:
    found: list[Import] = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        collector = _Collector(module, path.name == "__init__.py", _string_constants(tree))
        collector.visit(tree)
        found.extend(collector.found)
    return found


IMPORTS = _imports()


def _package(module: str) -> str:
    return module.split(".", 1)[0]


def _upward(imp: Import) -> bool:
    own, other = _package(imp.module), _package(imp.target)
    if LAYERS[other] > LAYERS[own]:
        return True
    return LAYERS[other] == LAYERS[own] == max(LAYERS.values()) and other != own


def _function_imports() -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for imp in IMPORTS:
        if imp.in_function and not imp.type_checking:
            out.setdefault((imp.module, imp.target), []).append(imp.line)
    return out


def _graph(imports: list[Import]) -> dict[str, set[str]]:
    """Module -> the project modules it imports, however (TYPE_CHECKING included)."""
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for imp in imports:
        graph.setdefault(imp.module, set()).add(imp.target)
        graph.setdefault(imp.target, set())
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Components of more than one module, found by the room graph's Tarjan (the
    algorithm does not care that these nodes are modules, not rooms)."""
    adjacency = {node: [(child, "") for child in sorted(graph[node])] for node in sorted(graph)}
    groups: dict[int, set[str]] = {}
    for node, label in RoomGraph(adjacency).components().items():
        groups.setdefault(label, set()).add(node)
    return [frozenset(group) for group in groups.values() if len(group) > 1]


CYCLES = strongly_connected(_graph(IMPORTS))


# -- the checker itself ----------------------------------------------------------------
def test_the_checker_sees_every_kind_of_import() -> None:
    source = """
from typing import TYPE_CHECKING
import importlib
from maid_engine import events
from . import ecs
TARGET = "maid_stdlib.world.look"
if TYPE_CHECKING:
    from maid_engine.engine import GameEngine
def f():
    from maid_stdlib.world.service import WorldService
    importlib.import_module(TARGET)
class C:
    def g(self):
        import maid_engine.clock
"""
    tree = ast.parse(source)
    collector = _Collector("maid_engine.fake", False, _string_constants(tree))
    collector.visit(tree)
    seen = {(i.target, i.in_function, i.type_checking) for i in collector.found}
    assert seen == {
        ("maid_engine.events", False, False),
        ("maid_engine.ecs", False, False),
        ("maid_engine.engine", False, True),
        ("maid_stdlib.world.service", True, False),
        ("maid_stdlib.world.look", True, False),
        ("maid_engine.clock", True, False),
    }


def test_the_cycle_finder_finds_cycles_and_only_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}}
    assert strongly_connected(graph) == [frozenset({"a", "b", "c"})]


def test_an_import_under_type_checking_closes_a_cycle() -> None:
    imports = [
        Import("pkg.a", "pkg.b", 1, in_function=False, type_checking=False),
        Import("pkg.b", "pkg.a", 1, in_function=False, type_checking=True),
    ]
    assert frozenset({"pkg.a", "pkg.b"}) in strongly_connected(_graph(imports))


def test_every_package_is_read() -> None:
    assert {_package(m) for m in MODULES} == set(LAYERS)
    assert len(IMPORTS) > 1000  # the project's own imports, not a parse gone quiet


# -- the rules -------------------------------------------------------------------------
def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in IMPORTS
        if _upward(imp) and (imp.module, imp.target) not in FUNCTION_IMPORTS_ALLOWED
    ]
    assert upward == [], "imports against the layering:\n" + "\n".join(upward)


def test_no_project_import_inside_a_function_body() -> None:
    found = _function_imports()
    unexpected = [
        f"{module}:{','.join(map(str, lines))} imports {target} inside a function"
        for (module, target), lines in sorted(found.items())
        if (module, target) not in FUNCTION_IMPORTS_ALLOWED
    ]
    assert unexpected == [], (
        "move these imports to the top of the module (if that makes a cycle, remove "
        "the cycle):\n" + "\n".join(unexpected)
    )


def test_the_function_import_allow_list_has_no_stale_entries() -> None:
    found = _function_imports()
    stale = [
        f"{module} -> {target} ({owner})"
        for (module, target), owner in FUNCTION_IMPORTS_ALLOWED.items()
        if (module, target) not in found
    ]
    assert stale == [], "no longer imported in a function: remove from the allow-list:\n" + (
        "\n".join(stale)
    )


def test_the_import_graph_has_no_cycles() -> None:
    unexpected = [" <-> ".join(sorted(cycle)) for cycle in CYCLES if cycle not in CYCLES_ALLOWED]
    assert unexpected == [], "import cycles:\n" + "\n".join(unexpected)


def test_the_cycle_allow_list_has_no_stale_entries() -> None:
    stale = [
        f"{sorted(cycle)} ({owner})"
        for cycle, owner in CYCLES_ALLOWED.items()
        if cycle not in CYCLES
    ]
    assert stale == [], "gone or changed: remove or update the allow-list entry:\n" + "\n".join(
        stale
    )
