"""Crafting requests: someone wants a thing a keeper makes, and the keeper's
material does not come (``classic_rpg.crafting_requests``).

What a keeper makes is in its shop data: a stock line tied to a ``resource`` is
made from it, and a ``buys`` line for one item template with the same resource
names the material a player may bring instead (the smith works bought ore into
swords). A crafting request is a situation the living world holds on its own:

* an NPC has an open goal whose target names a thing a keeper makes (Captain
  Voss wants iron shortswords for the watch);
* that keeper's supply of the thing's resource is cut (the iron road is
  blocked), so the order cannot be filled the usual way;
* the material can still be had somewhere (loot, a lump lying about).

The detector raises ``CRAFTING_REQUEST`` for it; the contract grounds a
``crafting_request`` seed whose giver is the keeper (who needs the material
brought), whose item is the material and whose recipient is the one who wants the
thing. The RPG's supply-chain archetype (pattern ``craft_and_deliver``) builds it:
get the material, bring it to the keeper, tell the one who wants the thing. When
the road clears (or the want goes), the situation resolves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from classic_rpg.questgen.register import RpgQuestGenPlugin
from classic_rpg.shops.components import Shop
from classic_rpg.shops.market import Market
from classic_rpg.shops.register import ShopsPlugin
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.questgen import QuestGen, QuestSeedTypes, SeedGrounding, WorldFacts
from maid_stdlib.questgen.contract import SignalContract
from maid_stdlib.questgen.signals import StorySignalLike
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.story.detectors import Detection, DetectionContext, Detector, StoryDetectors
from maid_stdlib.story.register import StoryPlugin

__all__ = [
    "SIGNAL_TYPE",
    "Craft",
    "CraftingRequestPlugin",
    "crafting_contract",
    "crafts_of",
    "detect_crafting_requests",
]

SIGNAL_TYPE = "CRAFTING_REQUEST"
DETECTOR = "crafting_requests"
#: How much a crafting request matters, relative to the wanting goal's priority:
#: an order waiting on material is rarely as pressing as the shortage behind it.
IMPORTANCE_SHARE = 0.8


@dataclass(frozen=True)
class Craft:
    """One thing a keeper makes: ``product`` from ``material`` (item templates),
    both tied to the keeper's ``resource``."""

    keeper: UUID
    product: str
    material: str
    resource: str


def crafts_of(keeper: UUID, shop: Shop) -> list[Craft]:
    """What ``keeper`` makes, read from its stock and what it buys."""
    out = []
    for line in shop.stock:
        if not line.resource:
            continue
        for rule in shop.buys:
            if rule.template and rule.resource == line.resource and rule.template != line.template:
                out.append(Craft(keeper, line.template, rule.template, line.resource))
    return out


def _wants(target: str | None, product: str, product_name: str) -> bool:
    """Whether a goal after ``target`` ("iron shortsword") is after ``product``:
    every word of the target is a word of the product's key or name."""
    wanted = topic_tokens(target or "")
    return bool(wanted) and wanted <= topic_tokens(product.split(":")[-1], product_name)


def detect_crafting_requests(ctx: DetectionContext) -> Iterator[Detection]:
    market = ctx.engine.services.try_get(Market)
    qg = ctx.engine.services.try_get(QuestGen)
    if market is None or qg is None:
        return
    facts = qg.facts
    world = ctx.world
    crafts = [
        c
        for keeper, (shop,) in world.query(Shop)
        if world.entity_exists(keeper)
        for c in crafts_of(keeper, shop)
    ]
    if not crafts:
        return
    for npc, goals in world.each(GoalsComponent):
        if not world.entity_exists(npc) or ctx.living.is_threat(npc):
            continue
        for goal in goals.open_goals():
            for craft in crafts:
                if craft.keeper == npc:
                    continue
                product_name = facts.item_name(craft.product)
                if not _wants(goal.target, craft.product, product_name):
                    continue
                blocker = market.blocker(craft.keeper, craft.resource)
                if blocker is None or not facts.item_obtainable(craft.material):
                    continue  # the keeper can fill it, or nobody can help
                yield Detection(
                    SIGNAL_TYPE,
                    f"craft:{npc}:{craft.product}",
                    round(min(1.0, max(0.0, goal.priority * IMPORTANCE_SHARE)), 3),
                    [craft.keeper, npc],
                    {
                        "crafter": str(craft.keeper),
                        "crafter_name": ctx.name(craft.keeper),
                        "requester": str(npc),
                        "requester_name": ctx.name(npc),
                        "product": craft.product,
                        "product_name": product_name,
                        "material": craft.material,
                        "material_name": facts.item_name(craft.material),
                        "resource": craft.resource,
                        "goal_id": goal.id,
                        "blocker": blocker,
                        "description": (
                            f"{ctx.name(npc)} wants {product_name}, and "
                            f"{ctx.name(craft.keeper)} cannot make it: {blocker}"
                        ),
                    },
                )


def _uuid(value: Any) -> UUID | None:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError:
        return None


def _ground(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    crafter, requester = _uuid(ctx["crafter"]), _uuid(ctx["requester"])
    material = str(ctx["material"])
    if crafter is None or requester is None or crafter == requester:
        return None
    if not (facts.is_alive(crafter) and facts.is_alive(requester)):
        return None
    room = facts.room_of(crafter)
    if room is None or not facts.item_obtainable(material):
        return None
    product = str(ctx.get("product_name") or facts.item_name(str(ctx["product"])))
    return SeedGrounding(
        crafter,
        room,
        {
            "item_template": material,
            "recipient": requester,
            "resource_type": str(ctx.get("resource") or material),
            "subject": product,
        },
        involved_npcs=[requester],
    )


def crafting_contract() -> SignalContract:
    return SignalContract(
        SIGNAL_TYPE,
        (QuestSeedTypes.CRAFTING_REQUEST,),
        ("crafter", "requester", "product", "material"),
        _ground,
    )


class CraftingRequestPlugin(ContentPack):
    """The crafting-request detector and the contract that turns its signals into
    ``crafting_request`` seeds."""

    name = "classic_rpg.crafting_requests"
    requires = (ShopsPlugin, RpgQuestGenPlugin, StoryPlugin)
    description = "Orders a keeper cannot fill for want of material become quests."

    def register(self, ctx: PackContext) -> None:
        ctx.service(StoryDetectors).add_from(
            ctx.pack.name, Detector(DETECTOR, SIGNAL_TYPE, detect_crafting_requests)
        )
        qg = ctx.service(QuestGen)
        qg.add_contract(ctx.pack.name, crafting_contract())
        # An order is its own errand: merged with whatever else its two people are
        # in (the captain's rivalry), it would become that quest and be lost.
        kind = QuestSeedTypes.CRAFTING_REQUEST
        qg.seed_types.register(kind, qg.seed_types.description(kind) or kind, merge=False)
