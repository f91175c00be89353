"""The engine's collaborators depend on ports, not on ``GameEngine``.

Imports are read with ``ast`` from the source, so an import under
``if TYPE_CHECKING:`` or inside a function counts like any other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from maid_engine.config import Settings
from maid_engine.content import PackHost
from maid_engine.engine import GameEngine
from maid_engine.ports import Host

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("maid_engine", "maid_stdlib", "classic_rpg", "content_packs", "admin")
#: The engine itself and the modules that build one.
MAY_IMPORT_ENGINE = {
    "maid_engine/engine.py",
    "maid_engine/app.py",
    "maid_engine/cli.py",
    "maid_engine/packcheck.py",
    "classic_rpg/simulate/runner.py",
}
#: Imports inside function bodies in maid_engine, and why each is not at the top.
#: None of them breaks a cycle: each keeps a heavy third-party library (SQLAlchemy
#: behind maid_engine.store, telnetlib3 behind maid_engine.net, aiohttp behind
#: maid_engine.web) from loading in
#: processes that do not need it.
LAZY_IN_ENGINE = {
    ("maid_engine/engine.py", "maid_engine.store"),
    ("maid_engine/reliability.py", "maid_engine.store"),
    ("maid_engine/app.py", "maid_engine.net"),
    ("maid_engine/app.py", "maid_engine.web"),
    ("maid_engine/cli.py", "maid_engine.app"),
    ("maid_engine/cli.py", "maid_engine.packcheck"),
    ("maid_engine/cli.py", "maid_engine.accounts.admin_cli"),
}


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)


def _imported(node: ast.AST) -> list[str]:
    """Modules an import statement names (``from a import b`` names ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return []


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _function_imports(tree: ast.Module) -> Iterator[str]:
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(func):
                yield from _imported(node)


def test_only_the_engine_and_its_builders_import_the_engine_module() -> None:
    offenders = [
        rel
        for rel, tree in _sources()
        if rel not in MAY_IMPORT_ENGINE
        and any("maid_engine.engine" in _imported(node) for node in ast.walk(tree))
    ]
    assert offenders == []


def test_the_check_sees_imports_under_type_checking() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from maid_engine.engine import GameEngine\n"
        "def f():\n"
        "    from maid_engine import engine\n"
    )
    found = [name for node in ast.walk(tree) for name in _imported(node)]
    assert found.count("maid_engine.engine") == 2


#: Where the composite ``Host`` may be named: the places that hand the engine on
#: to other packs' code, which may reach anything (a system, a command body, a
#: pack registering itself, a score section), and the overrides of ``System.bind``,
#: which must accept what the base accepts. Everything else names the small ports
#: it uses.
HOST_ALLOWED = {
    "maid_engine/ecs/system.py",
    "maid_engine/commands/command.py",
    "maid_engine/content/pack.py",
    "maid_stdlib/world/info.py",
    "maid_stdlib/consequences/system.py",
    "maid_stdlib/grounding/monitor.py",
}


def _imports_host(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "maid_engine.ports"
        and any(alias.name == "Host" for alias in node.names)
        for node in ast.walk(tree)
    )


def test_host_is_named_only_where_the_engine_goes_to_plugin_code() -> None:
    users = {rel for rel, tree in _sources() if _imports_host(tree)}
    assert users - HOST_ALLOWED == set(), "type these against the small ports they use"
    assert HOST_ALLOWED - users == set(), "no longer names Host: remove from HOST_ALLOWED"


def test_the_host_check_sees_imports_under_type_checking() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from maid_engine.ports import ClockPort, Host\n"
    )
    assert _imports_host(tree)
    assert not _imports_host(ast.parse("from maid_engine.ports import WorldPort\n"))


def test_ports_imports_nothing_of_the_project_at_run_time() -> None:
    tree = ast.parse((ROOT / "maid_engine/ports.py").read_text(encoding="utf-8"))
    runtime = [
        name
        for node in tree.body
        if not (isinstance(node, ast.If) and _is_type_checking(node))
        for name in _imported(node)
    ]
    assert [name for name in runtime if name.split(".")[0] in PACKAGES] == []


def test_no_import_inside_a_function_breaks_a_cycle_in_the_engine() -> None:
    found = {
        (rel, name)
        for rel, tree in _sources()
        if rel.startswith("maid_engine/")
        for name in _function_imports(tree)
        if name.startswith("maid_engine")
    }
    # ``from maid_engine.store import X`` also names ``maid_engine.store.X``.
    unexplained = {
        (rel, name)
        for rel, name in found
        if (rel, name) not in LAZY_IN_ENGINE and (rel, name.rsplit(".", 1)[0]) not in LAZY_IN_ENGINE
    }
    assert unexplained == set()


@pytest.mark.parametrize("port", [Host, PackHost])
def test_the_engine_satisfies_the_composite_ports(tmp_path: Path, port: type) -> None:
    engine = GameEngine(Settings(data_dir=tmp_path), use_store=False)
    # Every member the port declares is there (mypy checks the types); ``store``
    # is looked up on the class, as it raises without a database.
    missing = [
        name
        for name in dir(port)
        if not name.startswith("_")
        and not hasattr(type(engine), name)
        and not hasattr(engine, name)
    ]
    assert missing == []
