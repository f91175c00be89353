"""What characters see: rooms, things, and names."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_stdlib.world.components import NPC, Describable
from maid_stdlib.world.text import capitalize, exit_order

if TYPE_CHECKING:
    from maid_stdlib.world.service import WorldService


def name_of(ws: WorldService, entity_id: UUID) -> str:
    """Display name: Describable, else the character name, else "something"."""
    world = ws.world
    desc = world.try_component(entity_id, Describable)
    if desc is not None and desc.name:
        return desc.name
    pc = world.try_component(entity_id, PlayerCharacter)
    if pc is not None and pc.name:
        return pc.name
    return "something"


def render_exits(ws: WorldService, room_key: str) -> str:
    names = sorted(ws.exits_of(room_key), key=exit_order)
    return "|gExits:|n " + (", ".join(names) if names else "none")


def render_room(ws: WorldService, room_key: str, viewer: UUID | None = None) -> str:
    """The room as ``look`` shows it: name, description, exits, then who and what is here."""
    room = ws.room(room_key)
    if room is None:
        return "You are nowhere. (Ask an admin to @goto you somewhere.)"
    lines = [f"|c{room.name}|n", room.description, render_exits(ws, room_key)]
    world = ws.world
    chars: list[str] = []
    npcs: list[str] = []
    things: list[str] = []
    for uid in ws.visible_in(room_key, viewer):
        desc = world.get_component(uid, Describable)
        line = desc.short or f"{capitalize(desc.name)} is here."
        if world.has_component(uid, PlayerCharacter):
            chars.append(line)
        elif world.has_component(uid, NPC):
            npcs.append(line)
        else:
            things.append(line)
    lines.extend(_grouped(chars + npcs + things))
    return "\n".join(lines)


def _grouped(lines: list[str]) -> list[str]:
    """Identical lines once, with a count: three scouts read "... [x3]"."""
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return [line if n == 1 else f"{line} [x{n}]" for line, n in counts.items()]


def render_entity(ws: WorldService, entity_id: UUID) -> str:
    desc = ws.world.try_component(entity_id, Describable)
    if desc is None:
        return "You see nothing special."
    text = desc.description.strip() or f"You see nothing special about {desc.name}."
    return f"|c{capitalize(desc.name)}|n\n{text}"


def find_detail(ws: WorldService, room_key: str, keyword: str) -> str | None:
    """A room's scenery description matching ``keyword`` (every word a keyword prefix)."""
    room = ws.room(room_key)
    if room is None:
        return None
    words = keyword.lower().split()
    if not words:
        return None
    for keys, text in room.details.items():
        options = keys.split()
        if all(any(o.startswith(w) for o in options) for w in words):
            return text
    return None
