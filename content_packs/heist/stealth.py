"""The "go unseen" objective of heist quests.

The QuestManager completes CUSTOM objectives only when told. This watcher tells
it: when a character on a heist picks up the valuables, the objective
``stay-unseen`` is completed if nobody who watches that room is in it, and the
quest fails ("seen by Hobb") if someone is. Picking up anything else, or picking
it up off-quest, is none of its business.
"""

from __future__ import annotations

import logging
from typing import Protocol
from uuid import UUID

from classic_rpg.events import ItemPickedUpEvent
from classic_rpg.systems.quests import QuestError, QuestManager
from content_packs.heist.questgen import STEALTH_OBJECTIVE
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.living.facts import WatchedRooms
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestState
from maid_stdlib.world.components import Describable
from maid_stdlib.world.service import WorldService

__all__ = ["StealthWatcher"]

log = logging.getLogger("maid.heist")


class StealthHost(WorldPort, ServicesPort, Protocol):
    """What the watcher reads: the world and the world and quest services."""


class StealthWatcher:
    def __init__(self, engine: StealthHost) -> None:
        self.engine = engine

    def witnesses(self, room: str) -> list[UUID]:
        """Who watches ``room`` and stands in it right now."""
        ws = self.engine.services.get(WorldService)
        return sorted(
            uid
            for uid, watched in self.engine.world.each(WatchedRooms)
            if room in watched.rooms and ws.room_key_of(uid) == room
        )

    def on_picked_up(self, event: ItemPickedUpEvent) -> None:
        manager = self.engine.services.try_get(QuestManager)
        if manager is None:
            return
        character = event.holder_id
        for quest, entry in manager.objectives.running(character):
            stealth = quest.objective(STEALTH_OBJECTIVE)
            if stealth is None or stealth.objective_type is not ObjectiveType.CUSTOM:
                continue
            if not any(
                o.objective_type is ObjectiveType.COLLECT and o.item_template == event.template
                for o in quest.objectives
            ):
                continue
            progress = entry.objectives.get(STEALTH_OBJECTIVE)
            if progress is None or not progress.open or entry.state is not QuestState.IN_PROGRESS:
                continue
            seen_by = self.witnesses(event.room)
            try:
                if seen_by:
                    names = " and ".join(self._name(u) for u in seen_by)
                    self.engine.services.get(WorldService).message_room(
                        event.room, f'{names} shouts: "Thief! Stop, thief!"'
                    )
                    manager.fail_quest(character, quest.quest_id, detail=f"seen by {names}")
                else:
                    manager.complete_custom(character, quest.quest_id, STEALTH_OBJECTIVE)
            except QuestError as exc:
                log.debug("heist objective of %s not settled: %s", quest.quest_id, exc)

    def _name(self, uid: UUID) -> str:
        desc = self.engine.world.try_component(uid, Describable)
        return desc.name if desc is not None and desc.name else "someone"
