"""Events the engine itself emits."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.events.bus import Event


@dataclass
class EntityDestroyedEvent(Event):
    """An entity was removed from the world (emitted at the safe point after a system)."""

    entity_id: UUID
    reason: str = "destroyed"


@dataclass
class EngineStartedEvent(Event):
    pass


@dataclass
class EngineStoppingEvent(Event):
    reason: str = "shutdown"


@dataclass
class CharacterConnectedEvent(Event):
    """A session started puppeting a character (login or takeover)."""

    character_id: UUID
    session_id: str
    takeover: bool = False


@dataclass
class CharacterDisconnectedEvent(Event):
    """The session puppeting a character went away."""

    character_id: UUID
    session_id: str
    reason: str = "quit"


@dataclass
class ShutdownRequestedEvent(Event):
    reason: str = ""
    requested_by: UUID | None = None
