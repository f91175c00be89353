"""Components of items: their rules stats and who holds them."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.ecs import Component

#: Equipment slots, in the order ``equipment`` lists them.
SLOTS: tuple[str, ...] = (
    "weapon", "shield", "head", "neck", "body", "arms", "hands", "waist", "legs", "feet",
    "finger",
)  # fmt: skip

#: Tiers run from common (1) to legendary (5).
TIER_NAMES: dict[int, str] = {1: "common", 2: "fine", 3: "superior", 4: "epic", 5: "legendary"}


@dataclass
class ItemStats(Component):
    """The rules side of an item, copied from its template's ``stats:`` at spawn.

    Items without ItemStats (scenery such as an anvil) cannot be picked up.
    """

    component_name = "ItemStats"
    tier: int = 1
    value: int = 0
    slot: str | None = None
    damage_min: int = 0
    damage_max: int = 0
    armor: int = 0
    stackable: bool = False
    #: Health restored when drunk or eaten (the item is used up); 0 = not consumable.
    heal: int = 0

    @property
    def is_weapon(self) -> bool:
        return self.damage_max > 0


@dataclass
class HeldBy(Component):
    """The character or NPC carrying (or wearing) this item.

    The holder's Inventory/Equipment is the source of truth for listing; this
    back-reference makes "who has this item?" O(1) and survives restarts.
    """

    component_name = "HeldBy"
    holder: UUID | None = None


@dataclass
class BelongsTo(Component):
    """Whose the item is, when it is someone's in the world's story (the lamp oil
    chalked for the mine at Selena's stall): anyone may carry it where it is
    wanted, but no shopkeeper buys it from anyone else, and its owner takes it
    back when given it, and puts it back where it waits. ``owner`` is a placed
    NPC's id, ``home`` the room the item was placed in ("pack:room")."""

    component_name = "BelongsTo"
    owner: UUID | None = None
    home: str = ""
