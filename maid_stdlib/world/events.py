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


@dataclass
class EntityDiedEvent(Event):
    """Something died. Emitted before its entity is destroyed (NPCs) or reset (players).

    A rules layer decides what dying is (classic_rpg's combat); the world layer
    defines the event so that whoever reacts to deaths (the rules layer's quest
    objectives, the stdlib's grounding monitor) needs no rules-layer type."""

    entity_id: UUID
    killer_id: UUID | None
    room: str
    template: str = ""
    is_player: bool = False
    #: What it was called: a handler may run once the entity is gone.
    name: str = ""


@dataclass
class PackReloadedEvent(Event):
    """A world pack's data was reloaded into the running world (``@reload``)."""

    pack: str
