"""What a finished heist leads to: the mark finds the strongroom empty.

A chain rule of the consequence layer (an emergent follow-up). After a completed heist the
owner of the valuables raises a DISCOVERY signal ("theft" at the vault) so the
next quest is an investigation for the mark, grounded in the same room and the
same guard -- the emergent second link of the chain.
"""

from __future__ import annotations

from uuid import UUID

from content_packs.heist.questgen import STEALTH_PATTERN
from content_packs.heist.valuables import HeistValuables, owner_of
from maid_stdlib.consequences.chains import ChainContext
from maid_stdlib.questgen import ObjectiveType
from maid_stdlib.story.signals import StorySignal, StorySignalType
from maid_stdlib.world.components import Item

__all__ = ["heist_follow_up"]


def _mark(ctx: ChainContext) -> UUID | None:
    world = ctx.facts.engine.world
    templates = {
        o.item_template
        for o in ctx.quest.objectives
        if o.objective_type is ObjectiveType.COLLECT and o.item_template
    }
    for uid, valuables in world.each(HeistValuables):
        item = world.try_component(uid, Item)
        if item is not None and item.template in templates:
            return owner_of(world, valuables)
    return None


def heist_follow_up(ctx: ChainContext) -> StorySignal | None:
    if ctx.pattern != STEALTH_PATTERN:
        return None
    mark, vault = _mark(ctx), ctx.quest.location
    if mark is None or vault is None or not ctx.facts.is_alive(mark):
        return None
    name = ctx.facts.name(mark)
    return ctx.signal(
        StorySignalType.DISCOVERY,
        [mark],
        "follow_up",
        discovery_type="theft",
        discovery_location=vault,
        discovery_location_key=vault,
        description=f"{name} has found {ctx.facts.room_name(vault)} empty and wants the "
        "thief found.",
    )
