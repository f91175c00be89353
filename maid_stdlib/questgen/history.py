"""QuestHistory: what the generator produced, for cooldowns, variety,
anti-patterns and analytics. Persisted in the ``quest_history`` collection.

Times are game seconds (one game clock). Quests finished more than
``RETENTION`` (30 game days) ago are pruned from memory (:meth:`QuestHistory.prune`):
every cooldown, variety and density rule looks back hours or days, and the
working set would otherwise grow with every quest ever generated. Their stored
records stay (analytics); the generation system drops their side-table documents.
The document of a quest (key: its id,
``character_id`` None, ``source`` "generated") uses the same field names as the
QuestManager's history entries in the same collection, so either side can read
what the other wrote; the generator adds ``area``, ``archetype`` facts and
``chain_parent_id``. Writes are queued and flushed by whoever owns the tick
(``flush(documents)``), never awaited inside a build.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from maid_engine.clock import GAME_DAY
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.scaling import DifficultyAdjustment
from maid_stdlib.questgen.vocabulary import SUCCESS_OUTCOMES

if TYPE_CHECKING:
    from maid_engine.store import DocumentStore

__all__ = ["COLLECTION", "RETENTION", "QuestHistory", "QuestHistoryEntry"]

COLLECTION = "quest_history"
#: How long a finished quest stays in the working history (game seconds).
RETENTION: Final = 30 * GAME_DAY


#: The QuestManager keeps its own entries in the same collection (the quest, then
#: one per character's run). Ours carry the build metadata and chain links under
#: keys of their own, so neither side overwrites the other.
RECORD_KIND = "generation"


def record_key(quest_id: str) -> str:
    return f"gen:{quest_id}"


class QuestHistoryEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    quest_id: str
    seed_type: str
    archetype_id: str
    quest_giver_id: UUID | None
    #: The quest's title (so a new quest can avoid a recent one's).
    title: str = ""
    character_id: UUID | None = None
    #: A QuestOutcome value ("completed", "expired" ...); None while still open.
    outcome: str | None = None
    importance: float = 0.0
    grounding_score: float = 0.0
    coherence_score: float = 0.0
    novelty_score: float = 0.0
    created_at: float = 0.0
    accepted_at: float | None = None
    completed_at: float | None = None
    finished_at: float | None = None
    chain_depth: int = 0
    chain_parent_id: str | None = None
    source: str = "generated"
    region: str | None = None
    area: str | None = None
    location: str | None = None
    objective_pattern: str = ""
    requires_combat: bool = False
    #: Characters who hold an unaccepted offer of it (pending-offer caps).
    offered_to: list[UUID] = []
    #: Characters who accepted it. (``character_id`` stays None: in the shared
    #: collection a set character_id marks a QuestManager run entry.)
    accepted_by: list[UUID] = []
    #: Order of recording: breaks ties between quests generated at the same game time.
    sequence: int = 0
    #: How the quest was fitted to each acceptance (per-character difficulty),
    #: newest last; one per accepting character (or group) and run.
    adjustments: list[DifficultyAdjustment] = []

    @property
    def active(self) -> bool:
        return self.outcome is None

    def document(self) -> dict[str, Any]:
        return {**self.model_dump(mode="json"), "record_kind": RECORD_KIND}


class QuestHistory:
    def __init__(self) -> None:
        self._entries: dict[str, QuestHistoryEntry] = {}
        self._pending: dict[str, dict[str, Any]] = {}
        self._sequence = 0

    # -- writing ------------------------------------------------------------------------
    def record(
        self,
        quest: GeneratedQuest,
        now: float,
        *,
        objective_pattern: str = "",
        requires_combat: bool = False,
    ) -> QuestHistoryEntry:
        """Record a newly generated quest. seed_type and importance come from the
        quest (which copied them from its seed), not from its scores."""
        self._sequence += 1
        entry = QuestHistoryEntry(
            sequence=self._sequence,
            quest_id=quest.id,
            seed_type=quest.seed_type,
            archetype_id=quest.archetype_id,
            quest_giver_id=quest.quest_giver_id,
            title=quest.title,
            importance=quest.importance,
            grounding_score=quest.grounding_score,
            coherence_score=quest.coherence_score,
            novelty_score=quest.novelty_score,
            created_at=now,
            chain_depth=quest.chain_depth,
            chain_parent_id=quest.chain_parent_id,
            region=quest.region,
            area=quest.area,
            location=quest.location,
            objective_pattern=objective_pattern,
            requires_combat=requires_combat,
        )
        self._put(entry)
        return entry

    def _put(self, entry: QuestHistoryEntry) -> None:
        self._entries[entry.quest_id] = entry
        self._pending[record_key(entry.quest_id)] = entry.document()

    def _update(self, quest_id: str, **changes: Any) -> QuestHistoryEntry | None:
        entry = self._entries.get(quest_id)
        if entry is None:
            return None
        updated = entry.model_copy(update=changes)
        self._put(updated)
        return updated

    def mark_offered(self, quest_id: str, character_id: UUID) -> None:
        entry = self._entries.get(quest_id)
        if entry is not None and character_id not in entry.offered_to:
            self._update(quest_id, offered_to=[*entry.offered_to, character_id])

    def mark_accepted(self, quest_id: str, character_id: UUID, now: float) -> None:
        entry = self._entries.get(quest_id)
        if entry is None:
            return
        offered = [c for c in entry.offered_to if c != character_id]
        accepted = (
            [*entry.accepted_by, character_id]
            if character_id not in entry.accepted_by
            else entry.accepted_by
        )
        self._update(
            quest_id, accepted_at=entry.accepted_at or now, offered_to=offered, accepted_by=accepted
        )

    def record_adjustment(self, quest_id: str, adjustment: DifficultyAdjustment) -> None:
        """Record how the quest was fitted to the characters accepting it."""
        entry = self._entries.get(quest_id)
        if entry is not None:
            self._update(quest_id, adjustments=[*entry.adjustments, adjustment])

    def adjustment_of(self, quest_id: str, character_id: UUID) -> DifficultyAdjustment | None:
        """The character's latest adjustment of the quest, if it was fitted to them."""
        entry = self._entries.get(quest_id)
        if entry is None:
            return None
        return next((a for a in reversed(entry.adjustments) if character_id in a.characters), None)

    def work_factor(self, quest_id: str, characters: Iterable[UUID]) -> float:
        """The mean reward factor the characters' adjustments applied (1.0 for a
        character the quest was not fitted to): success consequences scale by it."""
        factors = [
            a.reward_factor if a is not None else 1.0
            for a in (self.adjustment_of(quest_id, c) for c in characters)
        ]
        return sum(factors) / len(factors) if factors else 1.0

    def mark_finished(self, quest_id: str, outcome: str, now: float) -> None:
        """Close the quest (turned in, failed, expired or invalidated)."""
        entry = self._entries.get(quest_id)
        if entry is None or entry.outcome is not None:
            return
        success = outcome in SUCCESS_OUTCOMES
        self._update(
            quest_id,
            outcome=outcome,
            finished_at=now,
            completed_at=now if success else entry.completed_at,
            offered_to=[],
        )

    def prune(self, now: float, retention: float = RETENTION) -> list[str]:
        """Forget the quests finished more than ``retention`` game seconds ago; returns
        their ids. A quest still open, or an ancestor of a quest kept (its chain's
        stakes and depth are read from it), stays."""
        cutoff = now - retention
        old = {
            q
            for q, e in self._entries.items()
            if not e.active
            and (e.finished_at if e.finished_at is not None else e.created_at) < cutoff
        }
        if not old:
            return []
        for entry in list(self._entries.values()):
            if entry.quest_id in old:
                continue
            parent, seen = entry.chain_parent_id, set()
            while parent is not None and parent not in seen:
                seen.add(parent)
                old.discard(parent)
                above = self._entries.get(parent)
                parent = above.chain_parent_id if above is not None else None
        for quest_id in old:
            del self._entries[quest_id]
            # A record not written yet is still written: the store keeps them all.
        return sorted(old)

    # -- queries --------------------------------------------------------------------------
    def get(self, quest_id: str) -> QuestHistoryEntry | None:
        return self._entries.get(quest_id)

    def entries(self) -> list[QuestHistoryEntry]:
        return list(self._entries.values())

    def recent(self, count: int) -> list[QuestHistoryEntry]:
        """The ``count`` most recently generated quests, newest first."""
        ordered = sorted(
            self._entries.values(), key=lambda e: (e.created_at, e.sequence), reverse=True
        )
        return ordered[:count]

    def recent_types(self, count: int) -> list[str]:
        return [e.seed_type for e in self.recent(count)]

    def recent_quest_from_npc(self, npc_id: UUID, window_seconds: float, now: float) -> bool:
        cutoff = now - window_seconds
        return any(
            e.quest_giver_id == npc_id and e.created_at > cutoff for e in self._entries.values()
        )

    def count_from_npc_since(self, npc_id: UUID, since: float) -> int:
        return sum(
            1 for e in self._entries.values() if e.quest_giver_id == npc_id and e.created_at > since
        )

    def since(self, when: float) -> list[QuestHistoryEntry]:
        return [e for e in self._entries.values() if e.created_at > when]

    def titles_in_use(
        self, giver: UUID, now: float, giver_window: int = 5, exclude: str | None = None
    ) -> list[str]:
        """Titles a new quest of ``giver`` may not take: every quest's of the last
        game day, and the giver's last ``giver_window`` quests' (``exclude``: a
        quest re-checked does not collide with its own title)."""
        day = [e for e in self.since(now - GAME_DAY) if e.quest_id != exclude]
        mine = [e for e in self.recent(len(self._entries)) if e.quest_giver_id == giver]
        mine = [e for e in mine if e.quest_id != exclude][:giver_window]
        return list(dict.fromkeys(e.title for e in [*day, *mine] if e.title))

    def active_generated_quest_ids(self) -> set[str]:
        return {q for q, e in self._entries.items() if e.active}

    def count_active_in_region(self, region: str) -> int:
        return sum(1 for e in self._entries.values() if e.active and e.region == region)

    def count_pending_offers(self, character_id: UUID) -> int:
        return sum(1 for e in self._entries.values() if e.active and character_id in e.offered_to)

    def chain_of(self, quest_id: str) -> list[QuestHistoryEntry]:
        """The quest and its ancestors, oldest first (cycles cut)."""
        out: list[QuestHistoryEntry] = []
        seen: set[str] = set()
        current = self._entries.get(quest_id)
        while current is not None and current.quest_id not in seen:
            seen.add(current.quest_id)
            out.append(current)
            parent = current.chain_parent_id
            current = self._entries.get(parent) if parent else None
        return list(reversed(out))

    # -- persistence ----------------------------------------------------------------------
    @property
    def pending(self) -> int:
        return len(self._pending)

    def load_documents(self, docs: Iterable[dict[str, Any]]) -> int:
        count = 0
        for doc in docs:
            if doc.get("record_kind") != RECORD_KIND:
                continue
            entry = QuestHistoryEntry.model_validate(doc)
            self._entries[entry.quest_id] = entry
            self._sequence = max(self._sequence, entry.sequence)
            count += 1
        return count

    async def load(self, documents: DocumentStore) -> int:
        """Read the generation records (not the QuestManager's entries)."""
        where = {"record_kind": RECORD_KIND}
        return self.load_documents(await documents.query(COLLECTION, where))

    async def flush(self, documents: DocumentStore) -> int:
        if not self._pending:
            return 0
        pending, self._pending = self._pending, {}
        try:
            await documents.put_many(COLLECTION, pending)
        except Exception:
            self._pending = {**pending, **self._pending}
            raise
        return len(pending)
