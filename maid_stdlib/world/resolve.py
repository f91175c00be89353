"""The one way staff commands name an entity: by key, name or keyword.

``@kick``, ``@mute``, ``@ban``, ``@living``, ``@goto`` and ``@quest force-generate``
all accept the same words for the same thing: the data key ("reedwater:odda"), the
key without its pack ("odda"), the full name ("Odda Flint"), a keyword or one word
of the name ("odda", "flint"), or the start of the name ("odd"). The first of these
tiers that finds anything wins, so an exact key or name is never ambiguous with a
looser match; several finds in one tier are listed, never guessed between.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import CommandError
from maid_engine.ecs import Component
from maid_stdlib.world.components import NPC, DataOrigin, Describable, Item
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService

__all__ = ["describe", "find_entities", "key_of", "resolve_entity"]

#: At most this many candidates are named in an ambiguity message.
LISTED = 8


def key_of(ws: WorldService, entity: UUID) -> str:
    """The data key of ``entity`` ("reedwater:odda"), or "" for a player or a thing
    made at run time."""
    world = ws.world
    npc = world.try_component(entity, NPC)
    if npc is not None and npc.template:
        return npc.template
    item = world.try_component(entity, Item)
    if item is not None and item.template:
        return item.template
    origin = world.try_component(entity, DataOrigin)
    if origin is not None and origin.key:
        return f"{origin.pack}:{origin.key}" if origin.pack else origin.key
    return ""


def describe(ws: WorldService, entity: UUID) -> str:
    """How a candidate is listed: its name, key and where it is."""
    parts = [p for p in (key_of(ws, entity), ws.room_key_of(entity)) if p]
    if ws.world.has_component(entity, PlayerCharacter):
        parts.insert(0, "player")
    return f"{name_of(ws, entity)} ({', '.join(parts)})" if parts else name_of(ws, entity)


def _names(ws: WorldService, entity: UUID) -> tuple[str, list[str]]:
    world = ws.world
    desc = world.try_component(entity, Describable)
    pc = world.try_component(entity, PlayerCharacter)
    name = (desc.name if desc is not None and desc.name else "") or (pc.name if pc else "")
    keywords = [k.casefold() for k in desc.keywords] if desc is not None else []
    return name.casefold(), keywords


def _candidates(ws: WorldService, kinds: Iterable[type[Component]]) -> list[UUID]:
    world = ws.world
    wanted = tuple(kinds) or (NPC, Item, PlayerCharacter)
    found: set[UUID] = set()
    for kind in wanted:
        found.update(uid for uid, _ in world.each(kind))
    return sorted(found, key=str)


def find_entities(ws: WorldService, text: str, kinds: Iterable[type[Component]] = ()) -> list[UUID]:
    """Every entity of ``kinds`` (default: NPCs, items and players) ``text`` names,
    from the first tier that names any (see the module's docstring)."""
    wanted = " ".join(text.split()).casefold()
    if not wanted:
        return []
    pool = _candidates(ws, kinds)
    keys = {uid: key_of(ws, uid).casefold() for uid in pool}
    names = {uid: _names(ws, uid) for uid in pool}

    def words(uid: UUID) -> set[str]:
        name, keywords = names[uid]
        return {*keywords, *name.split()}

    tiers: list[Callable[[UUID], bool]] = [
        lambda uid: keys[uid] == wanted,
        lambda uid: ":" in keys[uid] and keys[uid].partition(":")[2] == wanted,
        lambda uid: names[uid][0] == wanted,
        lambda uid: all(w in words(uid) for w in wanted.split()),
        lambda uid: (
            names[uid][0].startswith(wanted)
            or all(any(k.startswith(w) for k in words(uid)) for w in wanted.split())
        ),
    ]
    for tier in tiers:
        hits = [uid for uid in pool if tier(uid)]
        if hits:
            return hits
    return []


def resolve_entity(
    ws: WorldService,
    text: str,
    kinds: Iterable[type[Component]] = (),
    *,
    what: str = "anyone or anything",
) -> UUID:
    """The one entity ``text`` names; CommandError naming the candidates if several
    match, or saying so if none does."""
    kinds = tuple(kinds)
    hits = find_entities(ws, text, kinds)
    if not hits:
        raise CommandError(f"There is no {what} called '{text.strip()}'.")
    if len(hits) > 1:
        listed = [describe(ws, uid) for uid in hits[:LISTED]]
        more = f" and {len(hits) - LISTED} more" if len(hits) > LISTED else ""
        raise CommandError(
            f"'{text.strip()}' could be: {'; '.join(listed)}{more}. Use the full name or the key."
        )
    return hits[0]
