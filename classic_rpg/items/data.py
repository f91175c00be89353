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
    model_config = ConfigDict(extra="forbid", frozen=True)
    tier: int = Field(default=1, ge=1, le=5)
    #: Worth in gold.
    value: int = Field(default=0, ge=0)
    slot: Slot | None = None
    #: [min, max] damage when wielded (makes it a weapon; needs slot: weapon).
    damage: tuple[int, int] | None = None
    armor: int = Field(default=0, ge=0)
    stackable: bool = False
    #: Health restored by ``drink``/``eat`` (the item is used up).
    heal: int = Field(default=0, ge=0)


def check_item_stats(value: ItemStatsData, scope: CheckScope) -> Iterable[str]:
    if value.damage is not None:
        low, high = value.damage
        if low < 0 or high < low:
            yield f"damage {list(value.damage)} must be [min, max] with 0 <= min <= max"
        if value.slot != "weapon":
            yield "damage needs slot: weapon"


def apply_item_stats(ctx: ExtensionContext, value: ItemStatsData) -> None:
    low, high = value.damage if value.damage is not None else (0, 0)
    ctx.world.add_component(
        ctx.entity_id,
        ItemStats(
            tier=value.tier,
            value=value.value,
            slot=value.slot,
            damage_min=low,
            damage_max=high,
            armor=value.armor,
            stackable=value.stackable,
            heal=value.heal,
        ),
    )


def register_item_data(data: WorldData, owner: str) -> None:
    data.register_extension(
        "item", "stats", ItemStatsData, apply_item_stats, check_item_stats, owner=owner
    )
