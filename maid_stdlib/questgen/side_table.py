"""The ``generated_quests`` side-table of the QuestGenerationSystem.

One document per generated quest: the whole GeneratedQuest (``quest_to_document``:
seed id and type, archetype, importance, consequences, failure consequences,
branches, chain potential and depth, the three quality scores -- more than the
designed side-table fields) plus ``delivery`` (topics and gossip ids), so that
open quests can be delivered after a restart. Writes are queued and flushed off
the tick, with the QuestHistory's, like the QuestManager's documents.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from maid_engine.logs import ThrottledLog
from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.quest import quest_from_document, quest_to_document
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION, QuestGen

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["GeneratedQuestTable"]

log = logging.getLogger("maid.questgen.system")


class GeneratedQuestTable:
    def __init__(self, qg: QuestGen) -> None:
        self.qg = qg
        self._docs: dict[str, dict[str, Any]] = {}
        #: Documents of quests pruned from the history, to delete with the next write.
        self._forgotten: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        # Retried every tick while the store is away: one line a minute.
        self._failures = ThrottledLog(log, clock=lambda: self.qg.engine.clock.monotonic())

    @staticmethod
    def document(oq: OpenQuest) -> dict[str, Any]:
        doc = quest_to_document(oq.quest)
        doc["delivery"] = {"topics": sorted(oq.topics), "gossip_ids": sorted(oq.gossip_ids)}
        return doc

    @staticmethod
    def open_quest(doc: dict[str, Any]) -> OpenQuest | None:
        data = dict(doc)
        extra = data.pop("delivery", None) or {}
        try:
            quest = quest_from_document(data)
        except ValueError as exc:
            log.warning("unreadable generated quest %s: %s", doc.get("id"), exc)
            return None
        return OpenQuest(
            quest, frozenset(extra.get("topics", ())), frozenset(extra.get("gossip_ids", ()))
        )

    async def load(self, quest_ids: Iterable[str]) -> list[OpenQuest]:
        """The stored quests of ``quest_ids`` (the ones the history has open)."""
        engine = self.qg.engine
        if not engine.has_store:
            return []
        out = []
        for quest_id in sorted(quest_ids):
            doc = await engine.store.documents.get(GENERATED_QUESTS_COLLECTION, quest_id)
            oq = self.open_quest(doc) if doc is not None else None
            if oq is not None:
                out.append(oq)
        return out

    def put(self, oq: OpenQuest) -> None:
        self._docs[oq.quest.id] = self.document(oq)

    def forget(self, quest_ids: Iterable[str]) -> None:
        """Delete the documents of ``quest_ids`` (finished long ago) with the next write."""
        for quest_id in quest_ids:
            self._docs.pop(quest_id, None)
            self._forgotten.add(quest_id)

    def flush_in_background(self) -> None:
        pending = self._docs or self._forgotten or self.qg.history.pending
        if not self.qg.engine.has_store or not pending:
            return
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._background())

    async def _background(self) -> None:
        try:
            await self._write()
        except Exception as exc:
            self._failures.warning(
                type(exc).__name__, "writing quest generation documents failed, will retry: %s", exc
            )
        else:
            self._failures.clear()

    async def flush(self) -> None:
        """Write what is queued now (after any write already under way)."""
        task = self._task
        if task is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)
        await self._write()

    async def _write(self) -> None:
        engine = self.qg.engine
        if not engine.has_store:
            self._docs.clear()
            self._forgotten.clear()
            return
        docs, self._docs = self._docs, {}
        try:
            if docs:
                await engine.store.documents.put_many(GENERATED_QUESTS_COLLECTION, docs)
        except Exception:
            self._docs = {**docs, **self._docs}
            raise
        while self._forgotten:
            quest_id = min(self._forgotten)
            await engine.store.documents.delete(GENERATED_QUESTS_COLLECTION, quest_id)
            self._forgotten.discard(quest_id)
        await self.qg.flush()
