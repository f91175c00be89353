"""Finding content packs and ordering them by their dependencies."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from importlib.metadata import entry_points

from maid_engine.content.pack import ContentPack, PackError

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
    """A pack class from an entry-point name or a ``module:Class`` path."""
    available = available_packs() if available is None else available
    if ref in available:
        return _import(available[ref], ref)
    if ":" in ref:
        return _import(ref, ref)
    known = ", ".join(sorted(available)) or "none installed"
    raise PackError(ref, f"not found (installed packs: {known})")


def collect_packs(
    refs: Iterable[str | type[ContentPack] | ContentPack],
    available: dict[str, str] | None = None,
) -> list[ContentPack]:
    """Instances of the requested packs and everything they require, in load order."""
    available = available_packs() if available is None else available
    chosen: dict[str, ContentPack] = {}
    todo: list[str | type[ContentPack] | ContentPack] = list(refs)
    requested_by: dict[str, str] = {}
    while todo:
        ref = todo.pop(0)
        if isinstance(ref, ContentPack):
            pack = ref
        elif isinstance(ref, type):
            pack = ref()
        else:
            if ref in chosen:
                continue
            try:
                pack = resolve_pack(ref, available)()
            except PackError as exc:
                if ref in requested_by:
                    raise PackError(
                        requested_by[ref], f"requires {ref!r}, which is missing ({exc})"
                    ) from exc
                raise
        if pack.name in chosen:
            continue
        chosen[pack.name] = pack
        for dep in pack.requires:
            if dep not in chosen:
                requested_by.setdefault(dep, pack.name)
                todo.append(dep)
    return order_packs(list(chosen.values()))


def order_packs(packs: Sequence[ContentPack]) -> list[ContentPack]:
    """Topological order (dependencies first); stable for independent packs.

    Raises :class:`PackError` naming the pack for a missing dependency or a cycle.
    """
    by_name = {p.name: p for p in packs}
    for pack in packs:
        for dep in pack.requires:
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
        for dep in by_name[name].requires:
            visit(dep, [*path, name])
        state[name] = 2
        ordered.append(by_name[name])

    for pack in packs:
        visit(pack.name, [])
    return ordered
