"""The ``stats:`` section of item entries (item templates).

    items:
      - key: rusty_sword
        name: a rusty sword
        keywords: [sword, rusty]
        description: Pitted, but it still has an edge.
        stats: {tier: 1, value: 8, slot: weapon, damage: [2, 6]}

Items without a ``stats:`` section are scenery: they cannot be picked up.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from classic_rpg.items.components import ItemStats
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData

Slot = Literal[
    "weapon", "shield", "head", "neck", "body", "arms", "hands", "waist", "legs", "feet",
    "finger",
]  # fmt: skip


class ItemStatsData(BaseModel):
    """The ``stats:`` section of an item entry (classic_rpg): what makes an item portable.

    An item entry without ``stats:`` is scenery (a notice board, a well): players
    can look at it but not pick it up. With it the item can be carried, bought and
    sold, and given a slot it can be worn or wielded:
    ``stats: {tier: 1, value: 8, slot: weapon, damage: [2, 6]}``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    tier: int = Field(default=1, ge=1, le=5)
    """1..5: quality, for loot tables and generated rewards."""
    value: int = Field(default=0, ge=0)
    """Worth in gold (shops' prices start from it)."""
    slot: Slot | None = None
    """Where it is worn or wielded (weapon, body, head ...); none: only carried."""
    damage: tuple[int, int] | None = None
    """[min, max] damage when wielded (makes it a weapon; needs slot: weapon)."""
    armor: int = Field(default=0, ge=0)
    """Damage it takes off each hit when worn."""
    stackable: bool = False
    """Several of it count as one stack in an inventory (coins, herbs)."""
    heal: int = Field(default=0, ge=0)
    """Health restored by ``drink``/``eat`` (the item is used up)."""


def check_item_stats(value: ItemStatsData, scope: CheckScope) -> Iterable[str]:
    if value.damage is not None:
        low, high = value.damage
        if low < 0 or high < low:
            yield f"damage {list(value.damage)} must be [min, max] with 0 <= min <= max"
        if value.slot != "weapon":
            yield "damage needs slot: weapon"


def stats_of(value: ItemStatsData) -> ItemStats:
    """The component an item of this ``stats:`` section is spawned with."""
    low, high = value.damage if value.damage is not None else (0, 0)
    return ItemStats(
        tier=value.tier,
        value=value.value,
        slot=value.slot,
        damage_min=low,
        damage_max=high,
        armor=value.armor,
        stackable=value.stackable,
        heal=value.heal,
    )


def apply_item_stats(ctx: ExtensionContext, value: ItemStatsData) -> None:
    ctx.world.add_component(ctx.entity_id, stats_of(value))


def register_item_data(data: WorldData, owner: str) -> None:
    data.register_extension(
        "item", "stats", ItemStatsData, apply_item_stats, check_item_stats, owner=owner
    )
