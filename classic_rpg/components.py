"""Core RPG components shared by combat, items and quests."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.ecs import Component


@dataclass
class Health(Component):
    component_name = "Health"
    current: int = 20
    maximum: int = 20

    @property
    def fraction(self) -> float:
        return self.current / self.maximum if self.maximum > 0 else 0.0


@dataclass
class Mana(Component):
    component_name = "Mana"
    current: int = 10
    maximum: int = 10


@dataclass
class CharacterStats(Component):
    """Level, experience and gold of a player character or NPC."""

    component_name = "CharacterStats"
    level: int = 1
    experience: int = 0
    gold: int = 0


@dataclass
class Attributes(Component):
    component_name = "Attributes"
    strength: int = 10
    dexterity: int = 10
    constitution: int = 10
    intelligence: int = 10
    wisdom: int = 10
    charisma: int = 10


@dataclass
class Inventory(Component):
    """Items carried (entity ids). Mutate through the item helpers (they touch())."""

    component_name = "Inventory"
    items: list[UUID] = field(default_factory=list)
    capacity: int = 30


@dataclass
class Equipment(Component):
    """Slot name -> item entity id."""

    component_name = "Equipment"
    slots: dict[str, UUID] = field(default_factory=dict)
