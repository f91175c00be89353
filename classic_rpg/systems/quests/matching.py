"""Which entities and items an objective is about (used by the objective tracker)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.components import Inventory
from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests.models import QuestObjective
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.world.components import NPC, Describable, Item
from maid_stdlib.world.loader import WorldData

if TYPE_CHECKING:
    from maid_engine.ecs import World


class MatchHost(WorldPort, ServicesPort, Protocol):
    """What matching reads: the entities, and the item factory and world data."""


def count_items(engine: MatchHost, character: UUID, template: str) -> int:
    """How many items of ``template`` the character carries or wears."""
    factory = engine.services.try_get(ItemFactory)
    if factory is not None:
        return factory.count(character, template)
    world = engine.world
    inv = world.try_component(character, Inventory)
    items = inv.items if inv is not None else []
    return sum(
        1 for i in items if (marker := world.try_component(i, Item)) and marker.template == template
    )


def npc_matches(engine: MatchHost, o: QuestObjective, npc: UUID, template: str = "") -> bool:
    """Whether ``npc`` (built from ``template``, if known) is the objective's target:
    by entity id, else by NPC template, else by keyword."""
    if o.target_id is not None:
        return npc == o.target_id
    marker = engine.world.try_component(npc, NPC)
    actual = template or (marker.template if marker is not None else "")
    if o.target_template:
        return actual == o.target_template
    if o.target_keyword:
        return o.target_keyword.lower() in keywords_of(engine, npc, actual)
    return False


def keywords_of(engine: MatchHost, npc: UUID, template: str) -> list[str]:
    desc = engine.world.try_component(npc, Describable)
    if desc is not None:
        return [k.lower() for k in desc.keywords]
    # A dead NPC is destroyed before its EntityDiedEvent is dispatched: fall back
    # to the keywords of the data entry it was built from.
    entry = engine.services.get(WorldData).template(template) if template else None
    words = getattr(entry.spec, "keywords", []) if entry is not None else []
    return [str(k).lower() for k in words]


def template_name(engine: ServicesPort, template: str) -> str:
    """The display name of an NPC/item data entry ("" if unknown)."""
    entry = engine.services.get(WorldData).template(template) if template else None
    return str(getattr(entry.spec, "name", "")) if entry is not None else ""


def display_name(world: World, entity: UUID | None) -> str:
    """What quest messages call an entity: its name, or "someone"."""
    desc = world.try_component(entity, Describable) if entity else None
    return desc.name if desc is not None and desc.name else "someone"
