"""Bounties: the ``bounty:`` section of NPC entries.

    npcs:
      - key: voss
        bounty:
          - item: bandit_insignia
            pays: 2
            says: Voss turns the cloth over and drops it in a box by the map.

An NPC with a bounty takes every one of those items a character gives it, pays
``pays`` gold for each and keeps none of them (the token has done its work).
``look <npc>`` says what it pays for, so a player holding the proof a description
promises someone "would want to see" can find out who pays for it. A quest that
asks for the same items to be brought to the NPC comes first: what it still wants
is taken for the quest, not paid for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, RootModel

from classic_rpg.characters.levels import send_status
from classic_rpg.components import CharacterStats
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.gifts import Gifts, GiftTaker
from maid_engine.ecs import Component
from maid_engine.ports import ServicesPort, SessionsPort, WorldPort
from maid_stdlib.text import join
from maid_stdlib.text.morph import counted, strip_article
from maid_stdlib.text.pronouns import pronouns
from maid_stdlib.world.components import Describable
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import name_of
from maid_stdlib.world.schema import ThingSpec, qualify
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

__all__ = [
    "Bounty",
    "BountyData",
    "BountyLine",
    "BountyOnLook",
    "PaysBounty",
    "register_bounty_data",
]


class BountyLine(BaseModel):
    """One item an NPC pays for."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    #: Item template: "key" in this pack or "pack:key".
    item: str = Field(pattern=r"^(?:[a-z0-9][a-z0-9_\-]*:)?[a-z0-9][a-z0-9_\-]*$")
    #: Gold paid for each one.
    pays: int = Field(ge=1, le=1_000_000)
    #: What the giver reads as the NPC takes them, before the payment ("" none).
    says: str = Field(default="", max_length=400)


class BountyData(RootModel[list[BountyLine]]):
    """The ``bounty:`` section of an NPC entry."""

    model_config = ConfigDict(frozen=True)


@dataclass
class Bounty(Component):
    """What an NPC pays for: item template -> gold each, and what it says."""

    component_name = "Bounty"
    pays: dict[str, int] = field(default_factory=dict)
    says: dict[str, str] = field(default_factory=dict)


def check_bounty(value: BountyData, scope: CheckScope) -> Iterable[str]:
    seen: set[str] = set()
    for i, line in enumerate(value.root):
        full = scope.qualify(line.item)
        if full.partition(":")[0] == scope.pack and full not in scope.item_keys:
            yield f"[{i}].item: unknown item template {full!r}"
        if full in seen:
            yield f"[{i}].item: {full!r} is paid for twice"
        seen.add(full)


def apply_bounty(ctx: ExtensionContext, value: BountyData) -> None:
    pays = {qualify(ctx.pack, line.item): line.pays for line in value.root}
    says = {qualify(ctx.pack, line.item): line.says for line in value.root if line.says}
    ctx.world.add_component(ctx.entity_id, Bounty(pays, says))


def register_bounty_data(data: WorldData, owner: str) -> None:
    data.register_extension("npc", "bounty", BountyData, apply_bounty, check_bounty, owner=owner)


class BountyHost(WorldPort, ServicesPort, SessionsPort, Protocol):
    """What the bounty's taker and payment read: the items, gifts and gold."""


class PaysBounty:
    """The items' gift taker and taken hook for bounties: an NPC takes every item
    it pays for, then pays for those no other taker wanted (a quest's delivery)
    and does away with them."""

    def __init__(self, engine: BountyHost) -> None:
        self.engine = engine
        #: The gift taker, one object: ``Gifts.answer`` leaves it out by identity
        #: (each read of a method would make a new bound method).
        self.taker: GiftTaker = self._takes

    def _takes(self, giver: UUID, receiver: UUID, template: str) -> int | None:
        bounty = self.engine.world.try_component(receiver, Bounty)
        if bounty is None or template not in bounty.pays:
            return None
        items: ItemFactory = self.engine.services.get(ItemFactory)
        return sum(1 for item in items.carried(giver) if items.template_of(item) == template)

    def taken(self, giver: UUID, receiver: UUID, items: list[UUID]) -> list[str]:
        world = self.engine.world
        bounty = world.try_component(receiver, Bounty)
        if bounty is None:
            return []
        services = self.engine.services
        factory: ItemFactory = services.get(ItemFactory)
        gifts: Gifts = services.get(Gifts)
        ws: WorldService = services.get(WorldService)
        by_kind: dict[str, list[UUID]] = {}
        for item in items:
            template = factory.template_of(item)
            if template in bounty.pays and factory.holder_of(item) == receiver:
                by_kind.setdefault(template, []).append(item)
        lines: list[str] = []
        paid = 0
        bought: list[UUID] = []
        for template, kind in by_kind.items():
            # What a quest still wants of the kind was taken for it, not sold.
            for_quests = gifts.answer(giver, receiver, template, skip=self.taker)[0]
            sold = kind[for_quests:]
            if not sold:
                continue
            if bounty.says.get(template):
                lines.append(bounty.says[template])
            paid += bounty.pays[template] * len(sold)
            bought.extend(sold)
        if not bought:
            return []
        counts = Counter(name_of(ws, item) for item in bought)
        what = join([counted(n, name) for name, n in counts.items()])
        stats = world.get_or_add(giver, CharacterStats)
        stats.gold += paid
        world.modified(giver, stats)
        for item in bought:
            factory.destroy(item)
        send_status(self.engine, giver)
        lines.append(f"{capitalize(name_of(ws, receiver))} pays you {paid} gold for {what}.")
        return lines


class BountyOnLook:
    """``look <npc>`` says what it pays a bounty on (a LookExtras provider)."""

    def __init__(self, engine: BountyHost) -> None:
        self.engine = engine

    def __call__(self, target: UUID, viewer: UUID | None) -> list[str] | None:
        bounty = self.engine.world.try_component(target, Bounty)
        if bounty is None or not bounty.pays:
            return None
        data = self.engine.services.try_get(WorldData)
        ws: WorldService = self.engine.services.get(WorldService)
        parts = []
        for template, gold in bounty.pays.items():
            entry = data.template(template, "item") if data is not None else None
            spec = entry.spec if entry is not None else None
            name = spec.name if isinstance(spec, ThingSpec) else template.partition(":")[2]
            parts.append(f"{gold} gold for each {strip_article(name)}")
        desc = self.engine.world.try_component(target, Describable)
        them = pronouns(desc.pronouns if desc is not None else "").object
        who = capitalize(name_of(ws, target))
        return [f"{who} pays a bounty of {join(parts)} brought to {them}."]
