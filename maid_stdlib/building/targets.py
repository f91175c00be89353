"""What a building command names: the room you stand in, a thing in it, or a key."""

from __future__ import annotations

import re
from dataclasses import dataclass
from uuid import UUID

from maid_engine.commands import CommandContext, CommandError
from maid_stdlib.world.components import DataOrigin
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.movement import world_of
from maid_stdlib.world.schema import Entry
from maid_stdlib.world.service import WorldService

#: Words that name the room you are in.
HERE = frozenset({"here", "room"})
ARTICLES = frozenset({"a", "an", "the", "some"})


@dataclass
class Target:
    entry: Entry
    #: The entity the builder pointed at (None for a key of a template).
    entity: UUID | None = None


def data_of(ctx: CommandContext) -> WorldData:
    data: WorldData = ctx.service(WorldData)
    return data


def room_here(ctx: CommandContext) -> tuple[WorldService, str, Entry]:
    """The room the builder stands in and its data entry."""
    ws = world_of(ctx)
    room = ws.room_key_of(ctx.require_actor())
    if room is None:
        raise CommandError("You are nowhere.")
    entry = data_of(ctx).template(room, "room")
    if entry is None:
        raise CommandError(f"This room ({room}) is not defined in a world pack's files.")
    return ws, room, entry


def resolve(ctx: CommandContext, words: str) -> Target:
    """``here``, a keyword of an NPC or item in the room ("2.scout"), or a full key
    ("ironvale:gundrik") of any entry."""
    text = words.strip()
    if not text:
        raise CommandError("Name a thing: 'here', a keyword of something here, or a pack:key.")
    if text.lower() in HERE:
        _, _, entry = room_here(ctx)
        return Target(entry)
    ws = world_of(ctx)
    data = data_of(ctx)
    room = ws.room_key_of(ctx.require_actor())
    uid = ws.find_in_room(room, text, viewer=ctx.actor) if room is not None else None
    if uid is not None:
        origin = ctx.world.try_component(uid, DataOrigin)
        if origin is None or origin.kind not in ("npc", "item"):
            raise CommandError(f"'{text}' is not defined in a world pack's files.")
        found = data.template(f"{origin.pack}:{origin.key.partition('#')[0]}", origin.kind)
        if found is None:
            raise CommandError(f"'{text}' comes from an entry no longer in its pack's files.")
        return Target(found, uid)
    if ":" in text:
        keyed = data.template(text.lower())
        if keyed is not None:
            return Target(keyed)
    raise CommandError(f"Nothing here matches '{text}' (nor does a pack:key).")


def new_key(name: str, taken: set[str]) -> str:
    """A key from a name ("The Stable Yard" -> "stable_yard"), unique in ``taken``."""
    words = re.sub(r"[^a-z0-9]+", " ", name.lower()).split()
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    base = "_".join(words)[:32].strip("_") or "thing"
    key, n = base, 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    return key


def keywords_of(name: str) -> list[str]:
    words = [w for w in re.sub(r"[^a-z0-9' -]+", " ", name.lower()).split() if w]
    return [w for w in words if w not in ARTICLES] or words


def local_ref(pack: str, key: str) -> str:
    """How a file of ``pack`` names the room ``key``: local when it is its own."""
    owner, _, local = key.partition(":")
    return local if owner == pack else key
