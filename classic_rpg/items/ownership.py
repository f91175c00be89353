"""Goods that are someone's: the ``owner:`` section of item entries.

    items:
      - key: oil_cask
        name: a small cask of lamp oil
        room: selena_stall
        owner: selena
        stats: {tier: 1, value: 8}

The world's goods waiting to be carried (the oil chalked for the mine, the plough
share made for the Harrow farm) lie where anyone can pick them up, because carrying
them where they are wanted is what the living world's trades ask of players. What
``owner:`` adds is that they stay the owner's: a shopkeeper will not buy them from
anyone else (so they cannot be turned into gold and lost to the trades that want
them), ``examine`` says whose they are, and the owner takes them back when given
them (another NPC says whose they are). The owner is an NPC of the same pack placed
once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, cast
from uuid import UUID

from pydantic import RootModel

from classic_rpg.items.components import BelongsTo
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.gifts import Gifts
from classic_rpg.items.select import group_names
from maid_engine.ecs import World
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.text import join, possessive
from maid_stdlib.world.components import Describable, data_uuid
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import name_of
from maid_stdlib.world.schema import ThingSpec, qualify
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import instance_keys, thing_components
from maid_stdlib.world.text import capitalize

__all__ = [
    "BackInItsPlace",
    "OwnerData",
    "ReturnToOwner",
    "belongs_line",
    "owner_of",
    "register_owner_data",
]


class OwnerData(RootModel[str]):
    """The ``owner:`` section of an item entry: the key of the NPC whose it is."""


def check_owner(value: OwnerData, scope: CheckScope) -> Iterable[str]:
    full = scope.qualify(value.root)
    spec = scope.entry.spec
    if isinstance(spec, ThingSpec) and spec.room is None:
        yield "an owner needs the item placed in a room (copies spawned elsewhere are nobody's)"
    if full.partition(":")[0] != scope.pack or full not in scope.npc_keys:
        yield f"unknown NPC {full!r} (an owner is an NPC of this pack)"
    elif full not in scope.placed_npc_keys:
        yield f"NPC {full!r} is not one placed NPC (an owner needs a room and no count)"


def apply_owner(ctx: ExtensionContext, value: OwnerData) -> None:
    # Only the entry's placed things are the owner's: a copy made from the same
    # entry elsewhere (loot, a keeper's stock, a quest's reward) is nobody's.
    placed = {data_uuid(ctx.pack, "item", key) for key in instance_keys(ctx.entry)}
    spec = ctx.entry.spec
    if ctx.entity_id in placed and isinstance(spec, ThingSpec) and spec.room is not None:
        pack, _, key = qualify(ctx.pack, value.root).partition(":")
        owner = data_uuid(pack, "npc", key)
        ctx.world.add_component(ctx.entity_id, BelongsTo(owner, qualify(ctx.pack, spec.room)))


def register_owner_data(data: WorldData, owner: str) -> None:
    data.register_extension("item", "owner", OwnerData, apply_owner, check_owner, owner=owner)


def owner_of(world: World, item: UUID) -> UUID | None:
    """Whose ``item`` is, if it is someone's who is still in the world."""
    belongs = world.try_component(item, BelongsTo)
    if belongs is None or belongs.owner is None or not world.entity_exists(belongs.owner):
        return None
    return belongs.owner


def belongs_line(world: World, ws: WorldService, item: UUID) -> str | None:
    """What ``examine`` says of whose the item is ("It belongs to Selena.")."""
    owner = owner_of(world, item)
    return None if owner is None else f"It belongs to {name_of(ws, owner)}."


class OwnershipHost(WorldPort, ServicesPort, Protocol):
    """What the owners' gift taker and hand-back read: the items and their owners."""


class ReturnToOwner:
    """The items' gift taker for owners: an NPC given back what is theirs takes it;
    given what is someone else's, it says whose it is."""

    def __init__(self, engine: OwnershipHost) -> None:
        self.engine = engine

    def __call__(self, giver: UUID, receiver: UUID, template: str) -> int | str | None:
        items: ItemFactory = self.engine.services.get(ItemFactory)
        world = self.engine.world
        theirs = 0
        other: tuple[UUID, UUID] | None = None
        free = False
        for item in items.carried(giver):
            if items.template_of(item) != template:
                continue
            owner = owner_of(world, item)
            if owner == receiver:
                theirs += 1
            elif owner is not None and owner != giver:
                other = other or (item, owner)
            else:
                free = True
        if theirs:
            return theirs
        if other is None or free:
            # One of the kind is the giver's to give: the other takers answer.
            return None
        ws: WorldService = self.engine.services.get(WorldService)
        thing, owner = other
        whose = possessive(name_of(ws, owner))
        return f"{capitalize(name_of(ws, thing))} is {whose}, not yours to give."


class BackInItsPlace:
    """The gifts' taken hook for owners: an owner given back its goods puts them
    back in the room they were placed in, with their own room line, instead of
    keeping them in a pocket where the trades that want them cannot find them."""

    def __init__(self, engine: OwnershipHost, taker: ReturnToOwner) -> None:
        self.engine = engine
        #: The owners' taker: what the other takers want is kept (a quest's
        #: delivery to the owner is not put back for the next one to carry).
        self.taker = taker

    def __call__(self, giver: UUID, receiver: UUID, items: list[UUID]) -> list[str]:
        world = self.engine.world
        services = self.engine.services
        factory: ItemFactory = services.get(ItemFactory)
        ws: WorldService = services.get(WorldService)
        gifts: Gifts = services.get(Gifts)
        wanted: dict[str, int] = {}
        homes: dict[str, list[UUID]] = {}
        for item in items:
            belongs = world.try_component(item, BelongsTo)
            if belongs is None or belongs.owner != receiver or ws.room(belongs.home) is None:
                continue
            if factory.holder_of(item) != receiver:
                continue
            template = factory.template_of(item) or ""
            if template not in wanted:
                wanted[template] = gifts.answer(giver, receiver, template, skip=self.taker)[0]
            if wanted[template] > 0:
                wanted[template] -= 1
                continue
            homes.setdefault(belongs.home, []).append(item)
        lines = []
        owner = capitalize(name_of(ws, receiver))
        for home, back in homes.items():
            for item in back:
                factory.move_to_room(item, home, reason="returned")
                self._own_line(factory, item)
            # After "You give X to Selena.", "it" or "them" says which, unless only
            # some of what was given goes back.
            several = len(back) > 1
            what = ("them" if several else "it") if len(back) == len(items) else None
            room = ws.room(home)
            assert room is not None  # only rooms there are were kept above
            if ws.room_key_of(receiver) == home:
                where = "back in their place" if several else "back in its place"
                verb = "puts"
            else:
                where, verb = f"back to {room.name}", "sends"
            named = what or join(group_names(ws, back))
            lines.append(f"{owner} {verb} {named} {where}.")
        return lines

    def _own_line(self, factory: ItemFactory, item: UUID) -> None:
        """The room line its entry spawns it with (a dropped item's is "... lies
        here.")."""
        world = self.engine.world
        desc = world.try_component(item, Describable)
        data = self.engine.services.try_get(WorldData)
        entry = data.template(factory.template_of(item) or "", "item") if data else None
        if desc is not None and entry is not None:
            desc.short = cast(Describable, thing_components(entry)[1]).short
            world.modified(item, desc)
