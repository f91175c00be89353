"""OpenQuestLifecycle: what happens to an open generated quest after publishing.

Accepted (its pending deliveries to that character go), turned in (closed for
new offers), expired past its expiry in game time (the sink withdraws the
offers), or closed by the rules layer elsewhere (forgotten as failed). Each is
written to the QuestHistory.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.delivery_service import QuestDeliveryService
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.register import QuestSink

__all__ = ["OpenQuestLifecycle"]


class OpenQuestLifecycle:
    def __init__(
        self,
        open_quests: dict[str, OpenQuest],
        deliveries: QuestDeliveryService,
        history: QuestHistory,
        sink: Callable[[], QuestSink | None],
    ) -> None:
        self._open_quests = open_quests
        self._deliveries = deliveries
        self._history = history
        self._sink = sink

    def check_expiry(self, now: float) -> list[str]:
        """Expire open quests past their expiry; forget those closed elsewhere."""
        expired = []
        offers = self._deliveries.offers
        for quest_id, oq in list(self._open_quests.items()):
            if now > oq.quest.expiry:
                sink = self._sink()
                if sink is not None:
                    sink.expire(quest_id)
                self._history.mark_finished(quest_id, "expired", now)
                self._deliveries.forget_quest(quest_id)
                expired.append(quest_id)
            elif offers is not None and not offers.is_open(quest_id):
                self._history.mark_finished(quest_id, "failed", now)
                self._deliveries.forget_quest(quest_id)
        return expired

    def accepted(self, quest_id: str, character: UUID, now: float) -> None:
        self._history.mark_accepted(quest_id, character, now)
        self._deliveries.drop(character, quest_id)

    def turned_in(self, quest_id: str, outcome: str, now: float) -> None:
        """The situation is resolved: the quest is closed for new offers."""
        if quest_id in self._open_quests:
            self._history.mark_finished(quest_id, outcome, now)
            self._deliveries.forget_quest(quest_id)
