"""Events of the world layer."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.events import Event


@dataclass
class EntityRelocatedEvent(Event):
    """An entity changed rooms (or was placed into / taken out of the world).

    ``from_room`` is ``None`` when it was placed from nowhere (spawn, login), and
    ``to_room`` is ``None`` when it left the world (e.g. picked up into an inventory).
    ``reason``: "walk", "goto", "spawn", "login", "teleport", ...
    """

    entity_id: UUID
    from_room: str | None
    to_room: str | None
    reason: str = "walk"


@dataclass
class CharacterCreatedEvent(Event):
    """A new player character entity was created (other layers add their components)."""

    character_id: UUID
    name: str
    account_id: str
