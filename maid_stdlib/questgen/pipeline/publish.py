"""PublishStage: a checked quest made real and brought to the players.

The rules layer's :class:`~maid_stdlib.questgen.register.QuestSink` registers it
(no sink: stage ``no_sink``; the sink raising: stage ``register``), then it is
recorded in the QuestHistory, leaves the seed queue, becomes an open quest (with
the topics and gossip keys delivery matches on), goes to the ``generated_quests``
side-table and is matched to the characters online.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from uuid import UUID

from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.delivery_service import QuestDeliveryService
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistoryEntry
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.register import QuestSink
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.side_table import GeneratedQuestTable
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = ["PublishStage"]

log = logging.getLogger("maid.questgen.system")


class PublishStage:
    def __init__(
        self,
        sink: Callable[[], QuestSink | None],
        record: Callable[[GeneratedQuest], QuestHistoryEntry],
        facts: WorldFacts,
        queue: SeedQueue,
        open_quests: dict[str, OpenQuest],
        side_table: GeneratedQuestTable,
        deliveries: QuestDeliveryService,
        characters_online: Callable[[], list[UUID]],
    ) -> None:
        self._sink = sink
        self._record = record
        self._facts = facts
        self._queue = queue
        self._open_quests = open_quests
        self._side_table = side_table
        self._deliveries = deliveries
        self._characters_online = characters_online

    def register(self, quest: GeneratedQuest) -> Rejection | None:
        """Hand the quest to the rules layer; None when it took it."""
        sink = self._sink()
        if sink is None:
            return Rejection("no_sink", "no quest sink is installed (no rules layer)", ("no_sink",))
        try:
            sink.register(quest)
        except Exception as exc:
            log.exception("registering generated quest %s failed", quest.id)
            return Rejection(
                "register", f"the sink raised {type(exc).__name__}: {exc}", ("sink_error",)
            )
        return None

    def open(self, seed: QuestSeed, quest: GeneratedQuest) -> None:
        """The registered quest is recorded, leaves the queue and becomes open."""
        self._record(quest)
        self._queue.built(seed)
        oq = self._open_quest(seed, quest)
        self._open_quests[quest.id] = oq
        self._side_table.put(oq)

    def giver_name(self, quest: GeneratedQuest) -> str:
        return self._facts.name(quest.quest_giver_id)

    def deliver(self, quest: GeneratedQuest) -> None:
        self._deliveries.match([quest.id], self._characters_online())

    def _open_quest(self, seed: QuestSeed, quest: GeneratedQuest) -> OpenQuest:
        facts = self._facts
        targets = [
            u
            for o in quest.objectives
            if o.objective_type is ObjectiveType.KILL
            for u in o.target_entity_ids
        ]
        topics = topic_tokens(
            seed.threat_source,
            seed.subject,
            seed.resource_type,
            seed.blocker,
            seed.discovery_type,
            facts.area_name(quest.area),
            *(o.target for o in quest.objectives if o.objective_type is ObjectiveType.KILL),
        )
        return OpenQuest(quest, frozenset(topics), frozenset(facts.threat_keys(targets)))
