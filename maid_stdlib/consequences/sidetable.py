"""The generation side-tables the consequence layer reads and writes.

* ``generated_quests`` (key: quest id): the whole GeneratedQuest as JSON
  (``quest_to_document``), written by the generation pipeline when it registers a
  quest. Consequences, branches, chain potential and depth live only here, not on
  the QuestManager's Quest model. :class:`GeneratedQuestIndex` caches them; the
  grounding monitor writes hint updates back.
* ``quest_branch_choices`` (key: ``<quest id>:<character id>``): the option a
  character chose at each branch point, recorded by the in-game choice command.

Engines without a store keep both in memory only: the index then learns quests
from its *sources* (the QuestGenerationSystem's open quests are one, connected at
start-up) or from :meth:`GeneratedQuestIndex.remember`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from maid_engine.ports import ClockPort, ServicesPort, StorePort
from maid_stdlib.questgen.quest import GeneratedQuest, quest_from_document, quest_to_document
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION
from maid_stdlib.questgen.service import QuestGenerationService

if TYPE_CHECKING:
    pass

__all__ = ["BRANCH_CHOICES_COLLECTION", "BranchChoices", "GeneratedQuestIndex", "QuestSource"]

log = logging.getLogger("maid.consequences")

BRANCH_CHOICES_COLLECTION = "quest_branch_choices"

#: ``source(quest_id) -> GeneratedQuest | None``: where generated quests live in memory.
QuestSource = Callable[[str], "GeneratedQuest | None"]

_FIELDS = frozenset(f.name for f in dataclasses.fields(GeneratedQuest))


class GeneratedQuestIndex:
    """Read-through cache of the ``generated_quests`` side-table."""

    def __init__(self, engine: StorePort) -> None:
        self.engine = engine
        self._quests: dict[str, GeneratedQuest] = {}
        self._dirty: set[str] = set()
        self._sources: list[QuestSource] = []
        #: Whether the QuestGenerationSystem's open quests are a source already.
        self.generation_connected = False

    def add_source(self, source: QuestSource) -> None:
        """Look quests up in ``source`` before the store (e.g. the generation system's
        open quests, which reach the store only with its next background flush)."""
        self._sources.append(source)

    def remember(self, quest: GeneratedQuest) -> None:
        """Make ``quest`` known without writing it (the pipeline writes the document)."""
        self._quests[quest.id] = quest

    def cached(self, quest_id: str) -> GeneratedQuest | None:
        return self._quests.get(quest_id)

    def cached_ids(self) -> list[str]:
        return list(self._quests)

    async def get(self, quest_id: str) -> GeneratedQuest | None:
        """The generated quest, or None (an authored quest, or an unreadable document)."""
        quest = self._quests.get(quest_id)
        if quest is not None:
            return quest
        for source in self._sources:
            quest = source(quest_id)
            if quest is not None:
                self._quests[quest_id] = quest
                return quest
        if not self.engine.has_store:
            return None
        doc = await self.engine.store.documents.get(GENERATED_QUESTS_COLLECTION, quest_id)
        if doc is None:
            return None
        try:
            # Writers may keep their own keys next to the quest (delivery state).
            quest = quest_from_document({k: v for k, v in doc.items() if k in _FIELDS})
        except Exception as exc:
            log.warning(
                "generated quest %s has an unreadable side-table document: %s", quest_id, exc
            )
            return None
        self._quests[quest_id] = quest
        return quest

    def update(self, quest: GeneratedQuest) -> None:
        """Replace the cached quest and queue its document for :meth:`flush`."""
        self._quests[quest.id] = quest
        self._dirty.add(quest.id)

    @property
    def pending(self) -> int:
        return len(self._dirty)

    async def flush(self) -> int:
        if not self._dirty:
            return 0
        if not self.engine.has_store:
            self._dirty.clear()
            return 0
        dirty, self._dirty = self._dirty, set()
        documents = self.engine.store.documents
        try:
            docs = {}
            for quest_id in sorted(dirty & set(self._quests)):
                old = await documents.get(GENERATED_QUESTS_COLLECTION, quest_id) or {}
                extra = {k: v for k, v in old.items() if k not in _FIELDS}
                docs[quest_id] = {**quest_to_document(self._quests[quest_id]), **extra}
            await documents.put_many(GENERATED_QUESTS_COLLECTION, docs)
        except Exception:
            self._dirty |= dirty
            raise
        return len(docs)


def connect_generation(engine: ServicesPort, index: GeneratedQuestIndex) -> bool:
    """Make the QuestGenerationService's open quests a source of ``index`` (once)."""
    generation = engine.services.try_get(QuestGenerationService)
    if generation is None or index.generation_connected:
        return False

    def open_quest(quest_id: str) -> GeneratedQuest | None:
        found = generation.open_quest(quest_id)
        return found.quest if found is not None else None

    index.add_source(open_quest)
    index.generation_connected = True
    return True


class ChoicesHost(StorePort, ClockPort, Protocol):
    """What branch choices use: the store and game time."""


class BranchChoices:
    """Which option each character chose at each branch point of a quest."""

    def __init__(self, engine: ChoicesHost) -> None:
        self.engine = engine
        self._cache: dict[str, dict[str, Any]] = {}

    @staticmethod
    def key(quest_id: str, character: UUID) -> str:
        return f"{quest_id}:{character}"

    async def record(
        self,
        quest_id: str,
        character: UUID,
        branch_id: UUID | str,
        option_id: UUID | str,
        label: str = "",
    ) -> dict[str, Any]:
        """Remember the choice; durable (written to the store) when this returns."""
        key = self.key(quest_id, character)
        doc = dict(await self._load(key) or {})
        choices = dict(doc.get("choices") or {})
        choices[str(branch_id)] = str(option_id)
        doc.update(
            {
                "quest_id": quest_id,
                "character_id": str(character),
                "choices": choices,
                "option_id": str(option_id),
                "label": label,
                "chosen_at": self.engine.clock.game_time,
            }
        )
        if self.engine.has_store:
            await self.engine.store.documents.put(BRANCH_CHOICES_COLLECTION, key, doc)
        self._cache[key] = doc
        return doc

    async def get(self, quest_id: str, character: UUID) -> dict[str, str]:
        """branch id -> chosen option id (empty: nothing chosen)."""
        doc = await self._load(self.key(quest_id, character))
        return dict((doc or {}).get("choices") or {})

    async def _load(self, key: str) -> dict[str, Any] | None:
        doc = self._cache.get(key)
        if doc is None and self.engine.has_store:
            doc = await self.engine.store.documents.get(BRANCH_CHOICES_COLLECTION, key)
            if doc is not None:
                self._cache[key] = doc
        return doc
