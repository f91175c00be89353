"""PublishStage: a checked quest made real and brought to the players.

The rules layer's :class:`~maid_stdlib.questgen.register.QuestSink` registers it
(no sink: stage ``no_sink``; the sink raising: stage ``register``), then it is
recorded in the QuestHistory, leaves the seed queue, becomes an open quest (with
the topics and gossip keys delivery matches on), goes to the ``generated_quests``
side-table and is matched to the characters online -- a few of them a tick
(``delivery_spread``, ``deliveries_per_tick``): one character's match is
independent of another's, and matching a quest to a crowd at once stalled a tick.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from math import ceil
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
        delivery_spread: float = 0.0,
        deliveries_per_tick: int = 1,
    ) -> None:
        self._sink = sink
        self._record = record
        self._facts = facts
        self._queue = queue
        self._open_quests = open_quests
        self._side_table = side_table
        self._deliveries = deliveries
        self._characters_online = characters_online
        self._spread = delivery_spread
        self._per_tick = deliveries_per_tick
        #: (quest id, the characters online when it opened not matched yet, how many
        #: of them a game second), oldest first
        self._waiting: deque[tuple[str, deque[UUID], float]] = deque()
        #: Game seconds of the latest tick (the allowance follows game time).
        self._delta = 0.0
        self._allowance_at: float | None = None
        self._matched = 0

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

    def tick_started(self, delta: float) -> None:
        self._delta = max(delta, 0.0)

    def deliver(self, quest: GeneratedQuest) -> None:
        """Match the quest to the characters online now: this tick's share of them
        at once, the rest on the next ticks (``deliver_waiting``)."""
        characters = deque(self._characters_online())
        rate = len(characters) / self._spread if self._spread > 0 else float("inf")
        self._waiting.append((quest.id, characters, rate))
        self.deliver_waiting()

    @property
    def waiting(self) -> int:
        """Characters a new quest has still to be matched to."""
        return sum(len(chars) for _, chars, _rate in self._waiting)

    def deliver_waiting(self) -> int:
        """Match waiting (quest, character) pairs, oldest first, within this tick's
        allowance: each waiting quest's crowd spread evenly over ``delivery_spread``
        game seconds from its opening, at least ``deliveries_per_tick`` a tick; a
        tick as long as the spread (a simulation's) does all of them. Returns how
        many characters were matched."""
        if not self._waiting:
            return 0
        now = self._facts.now
        if self._allowance_at != now:
            self._allowance_at, self._matched = now, 0
        rate = sum(r for _, _, r in self._waiting)
        share = self._matched + self.waiting if rate == float("inf") else ceil(rate * self._delta)
        limit = max(self._per_tick, share)
        online = set(self._characters_online())
        done = 0
        while self._waiting and self._matched < limit:
            quest_id, characters, _rate = self._waiting[0]
            batch: list[UUID] = []
            while characters and self._matched + len(batch) < limit:
                character = characters.popleft()
                if character in online:  # gone since: their next login matches them
                    batch.append(character)
            if not characters:
                self._waiting.popleft()
            if batch:
                self._deliveries.match([quest_id], batch)
            self._matched += len(batch)
            done += len(batch)
        return done

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
