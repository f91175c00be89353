"""The ``valuables:`` section of item entries: whose property an item is.

    items:
      - key: strongbox
        ...
        valuables: {owner: vesk}

The owner is an NPC key of this pack (or ``pack:key``); the heist detector asks
whose grudge the item could settle. The component keeps the owner's template key,
so it stays right across restarts (entity ids of data NPCs are stable anyway).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from maid_engine.ecs import Component, World
from maid_stdlib.world.components import NPC
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData

__all__ = ["HeistValuables", "ValuablesData", "owner_of", "register_valuables"]

EXTENSION = "valuables"


class ValuablesData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    owner: str = Field(pattern=r"^([a-z0-9][a-z0-9_\-]*:)?[a-z0-9][a-z0-9_\-]*$")


@dataclass
class HeistValuables(Component):
    component_name = "HeistValuables"
    #: Template key of the owning NPC ("heist:vesk").
    owner: str = ""


def apply_valuables(ctx: ExtensionContext, value: ValuablesData) -> None:
    owner = value.owner if ":" in value.owner else f"{ctx.pack}:{value.owner}"
    ctx.world.add_component(ctx.entity_id, HeistValuables(owner))


def check_valuables(value: ValuablesData, scope: CheckScope) -> Iterable[str]:
    owner = scope.qualify(value.owner)
    # Owners in other packs are resolved at run time; only this pack's can be checked.
    if owner.startswith(f"{scope.pack}:") and owner not in scope.npc_keys:
        yield f"owner: unknown npc {owner!r}"


def register_valuables(data: WorldData, owner: str) -> None:
    if data.extension("item", EXTENSION) is None:
        data.register_extension(
            "item", EXTENSION, ValuablesData, apply_valuables, check=check_valuables, owner=owner
        )


def owner_of(world: World, valuables: HeistValuables) -> UUID | None:
    """The living owner NPC (the first instance of its template), or None."""
    found = sorted(uid for uid, npc in world.each(NPC) if npc.template == valuables.owner)
    return found[0] if found else None
