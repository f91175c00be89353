"""ItemFactory: spawning items from templates and moving them between rooms,
inventories and equipment.

An item is in exactly one place: a room (it has a Position, kept in the
WorldService index), a holder's ``Inventory.items``, or a holder's
``Equipment.slots``. Carried and worn items have a :class:`HeldBy` back-reference
and no Position. Everything that moves an item goes through this service, so the
room index and both sides of the holder relationship stay consistent. Its methods
do not emit the player-action events (ItemPickedUpEvent ...); the commands do, so
a quest reward granted with ``spawn(holder=...)`` is not mistaken for a pickup.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.components import Equipment, Inventory
from classic_rpg.items.components import HeldBy, ItemStats
from maid_stdlib.world.components import Describable, Item
from maid_stdlib.world.extensions import ExtensionHost
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import spawn_template
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    from maid_engine.ecs import World

log = logging.getLogger("maid.rpg.items")


class ItemHost(ExtensionHost, Protocol):
    """What the item factory uses: the world and its index, and spawning items
    from templates, which hands the engine on to the world data's extensions (so
    it is what they get: world, events, services, game time, the seeded random)."""


class ItemFactory:
    """Service: create items from templates and keep track of who holds what."""

    def __init__(self, engine: ItemHost) -> None:
        self.engine = engine

    @property
    def world(self) -> World:
        return self.engine.world

    @property
    def ws(self) -> WorldService:
        return self.engine.services.get(WorldService)

    # -- creating and destroying ------------------------------------------------------
    def spawn(self, template_key: str, room: str | None = None, holder: UUID | None = None) -> UUID:
        """A new item from ``template_key`` ("ironvale:rusty_sword"), put in ``room``
        or in ``holder``'s inventory (holder wins; capacity is not enforced, so a
        reward is never lost). LookupError if there is no such item template."""
        uid = spawn_template(self.engine, template_key, None, kind="item", reason="spawn")
        if holder is not None:
            self.add_to_inventory(uid, holder)
        elif room is not None:
            self.ws.place(uid, room, reason="spawn")
            self._lies_here(uid)
        return uid

    def destroy(self, item: UUID) -> None:
        """Take the item out of wherever it is and destroy it (e.g. a used potion)."""
        self.detach(item)
        self.world.destroy_entity(item)

    # -- where items are --------------------------------------------------------------
    def holder_of(self, item: UUID) -> UUID | None:
        held = self.world.try_component(item, HeldBy)
        return held.holder if held is not None else None

    def carried(self, holder: UUID) -> list[UUID]:
        """Items in the holder's inventory (not worn), in the order they were got."""
        inv = self.world.try_component(holder, Inventory)
        if inv is None:
            return []
        alive = [i for i in inv.items if self.world.entity_exists(i)]
        if len(alive) != len(inv.items):
            inv.items = alive  # something destroyed an item behind our back
        return list(alive)

    def equipped(self, holder: UUID) -> dict[str, UUID]:
        eq = self.world.try_component(holder, Equipment)
        if eq is None:
            return {}
        return {s: i for s, i in eq.slots.items() if self.world.entity_exists(i)}

    def all_items(self, holder: UUID) -> list[UUID]:
        """Carried and worn items."""
        return self.carried(holder) + list(self.equipped(holder).values())

    def template_of(self, item: UUID) -> str:
        marker = self.world.try_component(item, Item)
        return marker.template if marker is not None else ""

    def existing(self, template: str) -> int:
        """How many items of ``template`` exist in the whole world (wherever they
        are). Walks every item: for the rare question of a one-of-a-kind drop."""
        return sum(1 for _, marker in self.world.each(Item) if marker.template == template)

    def count(self, holder: UUID, template: str, include_worn: bool = True) -> int:
        """How many items of ``template`` the holder has (quests' COLLECT checks)."""
        items = self.all_items(holder) if include_worn else self.carried(holder)
        return sum(1 for i in items if self.template_of(i) == template)

    def is_portable(self, item: UUID) -> bool:
        return self.world.has_component(item, ItemStats)

    # -- moving -----------------------------------------------------------------------
    def detach(self, item: UUID) -> None:
        """Remove the item from its holder (inventory or equipment) or its room."""
        world = self.world
        held = world.try_component(item, HeldBy)
        if held is not None and held.holder is not None:
            holder = held.holder
            inv = world.try_component(holder, Inventory)
            if inv is not None and item in inv.items:
                inv.items.remove(item)
                world.modified(holder, inv)
            eq = world.try_component(holder, Equipment)
            if eq is not None:
                for slot, worn in list(eq.slots.items()):
                    if worn == item:
                        del eq.slots[slot]
                        world.modified(holder, eq)
        if world.entity_exists(item):
            world.remove_component(item, HeldBy)
        if self.ws.room_key_of(item) is not None:
            self.ws.remove_from_world(item, reason="taken")

    def add_to_inventory(self, item: UUID, holder: UUID) -> None:
        """Move the item (from anywhere) into ``holder``'s inventory."""
        self.detach(item)
        world = self.world
        inv = world.get_or_add(holder, Inventory)
        inv.items.append(item)
        world.modified(holder, inv)
        world.add_component(item, HeldBy(holder))

    def move_to_room(self, item: UUID, room: str, reason: str = "dropped") -> None:
        self.detach(item)
        self.ws.place(item, room, reason=reason)
        self._lies_here(item)

    def _lies_here(self, item: UUID) -> None:
        desc = self.world.try_component(item, Describable)
        if desc is not None and desc.short:
            # The authored room line fits where the builder placed the item ("...
            # stands on the bar"); one dropped or fallen from a body simply lies there.
            desc.short = f"{capitalize(desc.name)} lies here."

    def has_room_for(self, holder: UUID, extra: int = 1) -> bool:
        inv = self.world.try_component(holder, Inventory)
        if inv is None:
            return True
        return len(self.carried(holder)) + extra <= inv.capacity

    def equip(self, holder: UUID, item: UUID) -> UUID | None:
        """Wear ``item`` (it must be carried and have a slot); what was in that slot
        goes back to the inventory and is returned."""
        world = self.world
        stats = world.try_component(item, ItemStats)
        if stats is None or stats.slot is None:
            raise ValueError("that item cannot be worn")
        replaced = self.equipped(holder).get(stats.slot)
        self.detach(item)
        if replaced is not None:
            self.add_to_inventory(replaced, holder)
        eq = world.get_or_add(holder, Equipment)
        eq.slots[stats.slot] = item
        world.modified(holder, eq)
        world.add_component(item, HeldBy(holder))
        return replaced

    def unequip(self, holder: UUID, item: UUID) -> None:
        """Take a worn item off, back into the inventory."""
        self.add_to_inventory(item, holder)

    def take(self, holder: UUID, template: str, count: int = 1) -> int:
        """Destroy up to ``count`` of the holder's items of ``template`` (carried ones
        first), e.g. a quest consuming what was delivered. Returns how many."""
        taken = 0
        for item in self.carried(holder) + list(self.equipped(holder).values()):
            if taken >= count:
                break
            if self.template_of(item) == template:
                self.destroy(item)
                taken += 1
        return taken
