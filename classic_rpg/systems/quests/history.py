"""QuestHistory: every quest and every character's run of it.

Persisted in the ``quest_history`` collection. Two kinds of entries share it:

* the quest entry (key ``<quest_id>``, ``character_id`` None): created when a quest
  is registered (the generation pipeline adds its metadata with ``record``) and
  closed (``outcome`` set) when the quest expires or is invalidated;
* run entries (key ``<quest_id>:<character_id>:<run>``): one per acceptance, with
  the character's timestamps and outcome.

Times are game seconds (the one game clock, so time scaling cannot skew them), not datetimes.
Writes are queued and flushed by the QuestSystem each tick; turn-ins write their
run entry inside the turn-in transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.questlog import QuestEntry
from maid_stdlib.questgen.vocabulary import QuestOutcome

if TYPE_CHECKING:
    from maid_engine.store import DocumentStore

COLLECTION = "quest_history"


class QuestHistoryEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    quest_id: str
    character_id: UUID | None = None
    source: str = "authored"
    seed_type: str = ""
    archetype_id: str = ""
    quest_giver_id: UUID | None = None
    outcome: QuestOutcome | None = None
    importance: float = 0.0
    grounding_score: float = 0.0
    coherence_score: float = 0.0
    novelty_score: float = 0.0
    region: str | None = None
    created_at: float = 0.0
    accepted_at: float | None = None
    completed_at: float | None = None
    finished_at: float | None = None
    chain_depth: int = 0
    chain_parent_id: str | None = None
    #: failed/expired/invalidated, with details, for failed runs.
    fail_reason: str | None = None

    def document(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def run_key(quest_id: str, character_id: UUID, run: int) -> str:
    return f"{quest_id}:{character_id}:{run}"


class QuestHistory:
    """In-memory quest entries (for the generator's variety checks) + queued writes."""

    def __init__(self) -> None:
        self._entries: dict[str, QuestHistoryEntry] = {}
        self._pending: dict[str, dict[str, Any]] = {}

    # -- quest entries ---------------------------------------------------------------
    def record(self, entry: QuestHistoryEntry) -> None:
        """Add or replace a quest entry (``character_id`` None)."""
        if entry.character_id is not None:
            raise ValueError("record() takes quest entries; runs are written by the manager")
        self._entries[entry.quest_id] = entry
        self._pending[entry.quest_id] = entry.document()

    def get(self, quest_id: str) -> QuestHistoryEntry | None:
        return self._entries.get(quest_id)

    def close(self, quest_id: str, outcome: QuestOutcome, now: float, reason: str) -> None:
        entry = self._entries.get(quest_id)
        if entry is None or entry.outcome is not None:
            return
        closed = entry.model_copy(
            update={"outcome": outcome, "finished_at": now, "fail_reason": reason}
        )
        self.record(closed)

    def active_generated_quest_ids(self) -> set[str]:
        return {
            q for q, e in self._entries.items() if e.source == "generated" and e.outcome is None
        }

    def count_active_in_region(self, region: str) -> int:
        """Open generated quests recorded with ``region`` (the density limit)."""
        return sum(
            1
            for e in self._entries.values()
            if e.source == "generated" and e.outcome is None and e.region == region
        )

    def recent_quest_from_npc(self, npc_id: UUID, window_seconds: float, now: float) -> bool:
        cutoff = now - window_seconds
        return any(
            e.quest_giver_id == npc_id and e.created_at > cutoff for e in self._entries.values()
        )

    def recent_types(self, count: int) -> list[str]:
        recent = sorted(self._entries.values(), key=lambda e: e.created_at, reverse=True)
        return [e.seed_type for e in recent[:count]]

    def entries(self) -> list[QuestHistoryEntry]:
        return list(self._entries.values())

    # -- runs ------------------------------------------------------------------------
    def write_run(self, quest: Quest | None, character: UUID, entry: QuestEntry, now: float) -> str:
        """Queue the run entry of a character's quest; returns its key."""
        key = run_key(entry.quest_id, character, entry.run)
        self._pending[key] = QuestHistoryEntry(
            quest_id=entry.quest_id,
            character_id=character,
            source=quest.source if quest else "authored",
            quest_giver_id=quest.giver_npc_id if quest else None,
            outcome=entry.outcome,
            created_at=entry.offered_at or now,
            accepted_at=entry.accepted_at,
            completed_at=entry.completed_at,
            finished_at=entry.finished_at,
            fail_reason=entry.fail_reason.value if entry.fail_reason else None,
        ).document()
        return key

    def take_run(self, key: str) -> dict[str, Any] | None:
        """Remove a queued run write (the turn-in transaction writes it instead)."""
        return self._pending.pop(key, None)

    # -- persistence -----------------------------------------------------------------
    @property
    def pending(self) -> int:
        return len(self._pending)

    def discard_pending(self) -> None:
        """Forget queued writes (an engine without a store never flushes)."""
        self._pending.clear()

    async def load(self, documents: DocumentStore) -> None:
        # The generation pipeline keeps its own records in this collection (keys
        # "gen:<quest_id>", record_kind "generation"); they are not ours to load.
        where = {"character_id": None, "record_kind": None}
        for doc in await documents.query(COLLECTION, where):
            entry = QuestHistoryEntry.model_validate(doc)
            self._entries[entry.quest_id] = entry

    async def flush(self, documents: DocumentStore) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        try:
            await documents.put_many(COLLECTION, pending)
        except Exception:
            # Keep what was not written (newer writes of the same key win).
            self._pending = {**pending, **self._pending}
            raise
