"""Events of the RPG layer. Quest lifecycle events live in maid_stdlib.questgen.events,
``EntityDiedEvent`` in maid_stdlib.world.events (other layers react to them)."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.events import Event


@dataclass
class DamageDealtEvent(Event):
    """Damage was applied. ``target_health``/``target_max_health`` are after the hit,
    so listeners (e.g. the quest progress tracker) can record the lowest health."""

    attacker_id: UUID | None
    target_id: UUID
    amount: int
    target_health: int
    target_max_health: int
    damage_type: str = "physical"


@dataclass
class CombatStartedEvent(Event):
    attacker_id: UUID
    target_id: UUID


@dataclass
class ItemPickedUpEvent(Event):
    holder_id: UUID
    item_id: UUID
    template: str
    room: str


@dataclass
class ItemDroppedEvent(Event):
    holder_id: UUID
    item_id: UUID
    template: str
    room: str


@dataclass
class ItemGivenEvent(Event):
    giver_id: UUID
    receiver_id: UUID
    item_id: UUID
    template: str


@dataclass
class GoldGivenEvent(Event):
    """``give <n> gold <someone>``."""

    giver_id: UUID
    receiver_id: UUID
    amount: int


@dataclass
class TalkedToEvent(Event):
    """A character talked to an NPC (``talk <npc>``)."""

    character_id: UUID
    npc_id: UUID
    room: str
    #: "" for ``talk <npc>``; the topic for ``ask <npc> about <topic>``.
    topic: str = ""


@dataclass
class LevelUpEvent(Event):
    character_id: UUID
    level: int


@dataclass
class ProgressChangedEvent(Event):
    """Experience, level or gold changed; the GMCP layer sends Char.Status to the owner."""

    character_id: UUID


@dataclass
class VitalsChangedEvent(Event):
    """Health/mana changed; the GMCP layer sends Char.Vitals to the owner."""

    entity_id: UUID
