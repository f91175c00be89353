"""What ``@quest`` reads: the live state of quest generation, in one place.

Every figure comes from the running engine, never from a copy: the
QuestGenerationService (seed queue, builds in flight, throttle, build records),
the QuestGen toolkit (history with chain links, validator), the QuestManager
(who holds which quest in which state, closed quests), the ``generated_quests``
side-table (the GeneratedQuest in full) and the consequence audit. Services a
layer did not install read as absent, so the admin tools degrade instead of
failing when, say, the consequence layer is not loaded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from classic_rpg.systems.quests import QuestManager
from classic_rpg.systems.quests.questlog import QuestLog
from maid_engine.ports import ClockPort, ServicesPort, StorePort, SystemsPort, WorldPort
from maid_stdlib.consequences import AUDIT_COLLECTION, ConsequencesAppliedEvent
from maid_stdlib.consequences.sidetable import GeneratedQuestIndex
from maid_stdlib.grounding import QuestGroundingMonitor
from maid_stdlib.questgen import GENERATED_QUESTS_COLLECTION, GeneratedQuest, QuestGen
from maid_stdlib.questgen.history import QuestHistoryEntry
from maid_stdlib.questgen.pipeline import BuildRecord
from maid_stdlib.questgen.quest import quest_from_document
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.vocabulary import QuestState

__all__ = ["ACTIVE_STATUSES", "AdminState", "QuestOps", "QuestRow"]

#: Statuses ``list-generated --active`` shows: the quest can still be played.
ACTIVE_STATUSES = frozenset({"generated", "offered", "active"})


@dataclass(frozen=True)
class QuestRow:
    quest_id: str
    status: str
    archetype_id: str
    seed_type: str
    grounding: float
    title: str
    giver: str
    created_at: float
    chain_depth: int
    chain_parent_id: str | None


class AdminState:
    """What the admin pack remembers (a service it provides).

    ``by_quest``: consequence batches applied since start-up, per quest. The
    store's ``quest_consequences`` collection has them too; this works without a
    store and costs no query. ``forced``: giver -> game time of the last
    force-generated seed, so repeated force-generates spread over givers."""

    MAX_PER_QUEST = 20

    def __init__(self) -> None:
        self.by_quest: dict[str, deque[ConsequencesAppliedEvent]] = {}
        self.forced: dict[UUID, float] = {}

    def on_applied(self, event: ConsequencesAppliedEvent) -> None:
        self.by_quest.setdefault(event.quest_id, deque(maxlen=self.MAX_PER_QUEST)).append(event)


class OpsHost(WorldPort, ClockPort, ServicesPort, StorePort, SystemsPort, Protocol):
    """What the admin quest operations read: quest logs in the world, game time,
    the quest services, the stored quests and consequence audits, and the story
    system (force-generate asks it for the situations of now)."""


class QuestOps:
    def __init__(self, engine: OpsHost) -> None:
        self.engine = engine
        services = engine.services
        self.qg: QuestGen = services.get(QuestGen)
        self.generation = services.try_get(QuestGenerationService)
        self.manager = services.try_get(QuestManager)
        self.index = services.try_get(GeneratedQuestIndex)
        self.monitor = services.try_get(QuestGroundingMonitor)
        self.admin = services.try_get(AdminState)

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    def name(self, entity: UUID | None) -> str:
        return self.qg.facts.name(entity) if entity is not None else "nobody"

    # -- which quests -----------------------------------------------------------------
    def entry(self, quest_id: str) -> QuestHistoryEntry | None:
        return self.qg.history.get(quest_id)

    def known_ids(self) -> list[str]:
        """Every generated quest: recorded by the generator or registered as generated
        with the QuestManager (a pack may register one directly)."""
        ids = {e.quest_id for e in self.qg.history.entries()}
        if self.manager is not None:
            ids |= {q.quest_id for q in self.manager.quests() if q.source == "generated"}
        return sorted(ids)

    def is_generated(self, quest_id: str) -> bool:
        if self.entry(quest_id) is not None:
            return True
        quest = self.manager.get_quest(quest_id) if self.manager is not None else None
        return quest is not None and quest.source == "generated"

    def is_authored(self, quest_id: str) -> bool:
        quest = self.manager.get_quest(quest_id) if self.manager is not None else None
        return quest is not None and quest.source != "generated"

    async def quest(self, quest_id: str) -> GeneratedQuest | None:
        """The GeneratedQuest in full: open in the system, cached by the consequence
        layer, or read back from the side-table."""
        open_quest = self.generation.open_quest(quest_id) if self.generation is not None else None
        if open_quest is not None:
            return open_quest.quest
        if self.index is not None:
            quest = await self.index.get(quest_id)
            if quest is not None:
                return quest
        if not self.engine.has_store:
            return None
        doc = await self.engine.store.documents.get(GENERATED_QUESTS_COLLECTION, quest_id)
        if doc is None:
            return None
        doc = {k: v for k, v in doc.items() if k != "delivery"}
        try:
            return quest_from_document(doc)
        except ValueError:
            return None

    # -- who holds it, and how it stands ---------------------------------------------
    def holders(self, quest_id: str) -> list[tuple[UUID, QuestState]]:
        """Every character with the quest in its log, any state, by name."""
        out = []
        for uid, qlog in self.engine.world.each(QuestLog):
            entry = qlog.entry(quest_id)
            if entry is not None:
                out.append((uid, entry.state))
        return sorted(out, key=lambda h: self.name(h[0]))

    def status(self, quest_id: str) -> str:
        """generated, offered, active, turned_in, completed/perfect/... (history
        outcome), failed, abandoned, expired or invalidated."""
        # A turned-in quest may be closed afterwards (the grounding sweep finds its
        # item delivered); how it ended matters more than how it was closed.
        entry = self.entry(quest_id)
        if entry is not None and entry.outcome is not None and entry.outcome != "failed":
            return entry.outcome
        if self.manager is not None:
            closed = self.manager.registry.status(quest_id)
            if closed is not None:
                return closed[0]
        states = {state for _, state in self.holders(quest_id)}
        if states & {QuestState.IN_PROGRESS, QuestState.COMPLETED}:
            return "active"
        if entry is not None and entry.outcome is not None:
            return entry.outcome
        for state in (
            QuestState.TURNED_IN,
            QuestState.AVAILABLE,
            QuestState.FAILED,
            QuestState.ABANDONED,
        ):
            if state in states:
                return "offered" if state is QuestState.AVAILABLE else state.value
        return "generated"

    def row(self, quest_id: str) -> QuestRow:
        entry = self.entry(quest_id)
        quest = self.manager.get_quest(quest_id) if self.manager is not None else None
        open_quest = self.generation.open_quest(quest_id) if self.generation is not None else None
        title = (
            quest.title
            if quest is not None
            else (open_quest.quest.title if open_quest is not None else "")
        )
        giver = (
            entry.quest_giver_id
            if entry is not None
            else (quest.giver_npc_id if quest is not None else None)
        )
        return QuestRow(
            quest_id=quest_id,
            status=self.status(quest_id),
            archetype_id=entry.archetype_id if entry is not None else "?",
            seed_type=entry.seed_type if entry is not None else "?",
            grounding=entry.grounding_score if entry is not None else 0.0,
            title=title,
            giver=self.name(giver),
            created_at=entry.created_at if entry is not None else 0.0,
            chain_depth=entry.chain_depth if entry is not None else 0,
            chain_parent_id=entry.chain_parent_id if entry is not None else None,
        )

    def rows(self, which: str = "active") -> list[QuestRow]:
        """Newest first; ``which`` is active, expired or all."""
        rows = [self.row(q) for q in self.known_ids()]
        if which == "active":
            rows = [r for r in rows if r.status in ACTIVE_STATUSES]
        elif which == "expired":
            rows = [r for r in rows if r.status == "expired"]
        return sorted(rows, key=lambda r: (-r.created_at, r.quest_id))

    # -- chains ---------------------------------------------------------------------
    def children(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for e in self.qg.history.entries():
            if e.chain_parent_id:
                out.setdefault(e.chain_parent_id, []).append(e.quest_id)
        for kids in out.values():
            kids.sort(key=lambda q: (self._created(q), q))
        return out

    def _created(self, quest_id: str) -> float:
        entry = self.entry(quest_id)
        return entry.created_at if entry is not None else 0.0

    def chain_root(self, quest_id: str) -> str:
        chain = self.qg.history.chain_of(quest_id)
        return chain[0].quest_id if chain else quest_id

    # -- build records and audits -----------------------------------------------------
    def records_for(self, quest_id: str) -> list[BuildRecord]:
        if self.generation is None:
            return []
        return [r for r in self.generation.build_records() if r.quest_id == quest_id]

    async def audits(self, quest_id: str) -> list[dict[str, Any]]:
        """Consequence batches of the quest: the store's audit documents, else what
        was applied since start-up."""
        if self.engine.has_store:
            docs = await self.engine.store.documents.query(AUDIT_COLLECTION, {"quest_id": quest_id})
            if docs:
                return docs
        events = self.admin.by_quest.get(quest_id, ()) if self.admin is not None else ()
        return [
            {
                "outcome": e.outcome,
                "status": "applied",
                "audit_key": e.audit_key,
                "mutations": [None] * e.mutations,
                "character_ids": [str(c) for c in e.character_ids],
            }
            for e in events
        ]
