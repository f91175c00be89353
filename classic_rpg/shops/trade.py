"""One trade with a keeper, on disk before the player is told.

A purchase changes the buyer (gold, inventory), the keeper (stock, purse, maybe
a need) and the goods. The trade is written by a commit of the whole world
(``StorePort.commit_now``) before anyone is told: never one side alone, so a
crash can neither hand out goods nobody paid for nor take gold for goods nobody
got. If the write fails, everything the trade touched is put back as it was and
the player is told nothing changed.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol
from uuid import UUID

from maid_engine.commands import CommandError
from maid_engine.ecs import dump_component, load_component
from maid_engine.ports import StorePort, WorldPort

log = logging.getLogger("maid.rpg.shops")


class TradeHost(WorldPort, StorePort, Protocol):
    """What a trade uses: the world it changes and the store it commits to."""


class Trade:
    """Snapshots of the parties, the change, then the commit (or the undo)."""

    def __init__(self, engine: TradeHost, *parties: UUID) -> None:
        self.engine = engine
        self._before: dict[UUID, dict[str, dict[str, Any]]] = {}
        #: Items the trade created (destroyed again on undo).
        self.spawned: list[UUID] = []
        for uid in parties:
            self.track(uid)

    def track(self, uid: UUID) -> None:
        """Remember ``uid`` as it is now, before the trade changes it."""
        if uid in self._before:
            return
        world = self.engine.world
        self._before[uid] = {
            c.component_name: dump_component(c) for c in world.components_of(uid) if c.persist
        }

    async def commit(self) -> None:
        """Write the world with the trade in it, or undo the trade and say so."""
        try:
            await self.engine.commit_now()
        except Exception as exc:
            log.exception("a trade could not be saved; undone")
            self.undo()
            raise CommandError(
                "The trade could not be recorded just now, so nothing changed hands; "
                "please try again in a moment."
            ) from exc

    def undo(self) -> None:
        world = self.engine.world
        for uid in self.spawned:
            if world.entity_exists(uid):
                world.destroy_entity(uid)
        for uid, comps in self._before.items():
            if not world.entity_exists(uid):
                continue
            for comp in list(world.components_of(uid)):
                if comp.persist and comp.component_name not in comps:
                    world.remove_component(uid, type(comp))
            for name, data in comps.items():
                world.add_component(uid, load_component(name, data))
