"""Finding content packs and ordering them by their dependencies."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from importlib.metadata import entry_points

from maid_engine.content.errors import PackError
from maid_engine.content.folder import is_path_ref, pack_from_path
from maid_engine.content.pack import (
    ContentPack,
    PackContext,
    PackHost,
    requirement_name,
)

ENTRY_POINT_GROUP = "maid.content_packs"


def available_packs() -> dict[str, str]:
    """Installed packs: entry-point name -> "module:Class"."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _import(spec: str, label: str) -> type[ContentPack]:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise PackError(label, f"cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    if not attr:
        raise PackError(label, f"{spec!r} must be 'module:ClassName'")
    cls = getattr(module, attr, None)
    if not (isinstance(cls, type) and issubclass(cls, ContentPack)):
        raise PackError(label, f"{spec} is not a ContentPack subclass")
    if not cls.name:
        raise PackError(label, f"{spec} has no name")
    return cls


def resolve_pack(ref: str, available: dict[str, str] | None = None) -> type[ContentPack]:
    """A pack class from an entry-point name, a ``module:Class`` path or a pack
    folder (``./mypack``, see :mod:`maid_engine.content.folder`)."""
    available = available_packs() if available is None else available
    if ref not in available and is_path_ref(ref):
        return pack_from_path(ref)
    if ref in available:
        return _import(available[ref], ref)
    if ":" in ref:
        return _import(ref, ref)
    known = ", ".join(sorted(available)) or "none installed"
    raise PackError(ref, f"not found (installed packs: {known})")


def _label(pack: ContentPack, adder: str | None) -> str:
    cls = type(pack)
    where = f"{cls.__module__}.{cls.__qualname__}"
    return f"{where} (added by {adder})" if adder else f"{where} (required)"


def collect_packs(
    refs: Iterable[str | type[ContentPack] | ContentPack],
    available: dict[str, str] | None = None,
) -> list[ContentPack]:
    """Instances of the requested packs, their groups' plugins and everything they
    require, in load order.

    A plugin is added once: the same name added twice (by two entries of ``refs``,
    two groups, or a group and an entry), or two classes under one name, is a
    :class:`PackError` naming both. A requirement only refers to a plugin: it is
    resolved (entry point, ``module:Class`` or the class itself) when nothing
    added it.
    """
    available = available_packs() if available is None else available
    chosen: dict[str, ContentPack] = {}
    added_by: dict[str, str | None] = {}

    def add(pack: ContentPack, adder: str | None) -> None:
        name = pack.name
        if not name:
            raise PackError(type(pack).__qualname__, f"has no name (added by {adder})")
        old = chosen.get(name)
        if old is not None:
            first = added_by[name]
            if type(old) is not type(pack) or (first is not None and adder is not None):
                raise PackError(
                    name,
                    f"added twice: {_label(old, first)} and {_label(pack, adder)}",
                )
            if adder is not None:
                added_by[name] = adder
            return
        chosen[name] = pack
        added_by[name] = adder
        for member in pack.plugins:
            add(member(), f"group {name!r}")

    for ref in refs:
        if isinstance(ref, ContentPack):
            add(ref, "the pack list")
        elif isinstance(ref, type):
            add(ref(), "the pack list")
        else:
            add(resolve_pack(ref, available)(), "the pack list")

    # Requirements pulled in may be groups requiring more: until nothing is missing.
    pending = True
    while pending:
        pending = False
        for pack in list(chosen.values()):
            for req in pack.requires:
                req_name = requirement_name(req)
                if req_name in chosen:
                    continue
                if isinstance(req, type):
                    add(req(), None)
                else:
                    try:
                        add(resolve_pack(req, available)(), None)
                    except PackError as exc:
                        raise PackError(
                            pack.name, f"requires {req!r}, which is missing ({exc})"
                        ) from exc
                pending = True
    return order_packs(list(chosen.values()))


def _needs(pack: ContentPack) -> list[str]:
    """What must register before ``pack``: its requirements, and a group's plugins."""
    return [*(requirement_name(r) for r in pack.requires), *(m.name for m in pack.plugins)]


def order_packs(packs: Sequence[ContentPack]) -> list[ContentPack]:
    """Topological order (requirements and a group's plugins first); stable for
    independent packs.

    Raises :class:`PackError` naming the pack for a missing requirement or a cycle.
    """
    by_name = {p.name: p for p in packs}
    for pack in packs:
        for dep in _needs(pack):
            if dep not in by_name:
                raise PackError(pack.name, f"requires {dep!r}, which is not available")
    ordered: list[ContentPack] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, path: list[str]) -> None:
        mark = state.get(name)
        if mark == 2:
            return
        if mark == 1:
            cycle = " -> ".join([*path[path.index(name) :], name])
            raise PackError(name, f"dependency cycle: {cycle}")
        state[name] = 1
        for dep in _needs(by_name[name]):
            visit(dep, [*path, name])
        state[name] = 2
        ordered.append(by_name[name])

    for pack in packs:
        visit(pack.name, [])
    return ordered


def register_pack(engine: PackHost, pack: ContentPack) -> None:
    """Run ``pack.register`` once; check it provided what it declares."""
    ctx = PackContext(engine, pack)
    try:
        pack.register(ctx)
    except PackError:
        raise
    except Exception as exc:
        raise PackError(pack.name, f"register() failed: {type(exc).__name__}: {exc}") from exc
    missing = [key.__name__ for key in pack.provides if key not in engine.services]
    if missing:
        raise PackError(pack.name, f"declares but did not provide: {', '.join(missing)}")


def finish_pack(engine: PackHost, pack: ContentPack) -> None:
    """Run ``pack.finish`` (after every pack registered)."""
    try:
        pack.finish(PackContext(engine, pack))
    except PackError:
        raise
    except Exception as exc:
        raise PackError(pack.name, f"finish() failed: {type(exc).__name__}: {exc}") from exc


def register_packs(engine: PackHost, packs: Sequence[ContentPack]) -> None:
    """Register every pack in order, then let each one finish."""
    for pack in packs:
        register_pack(engine, pack)
    for pack in packs:
        finish_pack(engine, pack)
