"""Events of the living world."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.events import Event


@dataclass
class GoalFormedEvent(Event):
    """An NPC formed a goal because ``need`` fell below its threshold."""

    npc_id: UUID
    goal_id: str
    need: str | None


@dataclass
class GoalStatusChangedEvent(Event):
    """A goal became blocked, unblocked, done or failed."""

    npc_id: UUID
    goal_id: str
    old_status: str
    new_status: str
    blocker: str | None = None


@dataclass
class ThreatObservedEvent(Event):
    """An NPC learned first-hand of a threat (or that it is gone: ``cleared``)."""

    npc_id: UUID
    threat_key: str
    source: str
    room: str
    cleared: bool = False
