"""The ``quest_consequences`` audit collection, and what one propagation did.

Every propagation -- applied or not -- leaves a document (key: the audit key
``<quest>:<characters>:<run>:<outcome>``) with its status, attempts, errors, the
merged mutations that were applied and the signals raised. An applied batch is
written in one transaction with the components it changed (and every other entity
changed since the last checkpoint), so the store never holds the audit without the
change or the change without its audit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from maid_engine.ecs import Component
from maid_engine.events import Event
from maid_engine.logs import ThrottledLog
from maid_engine.ports import StorePort, WorldPort
from maid_engine.store import Transaction
from maid_stdlib.consequences.mutations import WorldMutation
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.vocabulary import QuestOutcome
from maid_stdlib.story.signals import StorySignal

if TYPE_CHECKING:
    pass

__all__ = [
    "AUDIT_COLLECTION",
    "ConsequenceAudit",
    "ConsequencesAppliedEvent",
    "Propagation",
    "audit_document",
]

log = logging.getLogger("maid.consequences")

AUDIT_COLLECTION = "quest_consequences"


@dataclass
class ConsequencesAppliedEvent(Event):
    """A quest outcome's consequences were applied (``audit_key`` in the audit)."""

    quest_id: str
    character_ids: list[UUID]
    outcome: str
    audit_key: str
    mutations: int


@dataclass
class Propagation:
    """What one propagation did (returned by the ConsequenceSystem's ``on_*``)."""

    quest_id: str
    outcome: QuestOutcome
    #: "applied", "invalid" (validation refused it), "conflict" or "failed".
    status: str
    audit_key: str
    attempts: int = 0
    applied: list[WorldMutation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    signals: list[StorySignal] = field(default_factory=list)


def audit_document(
    quest: GeneratedQuest,
    result: Propagation,
    characters: list[UUID],
    game_time: float,
    wall_time: float,
) -> dict[str, Any]:
    return {
        "quest_id": quest.id,
        "character_ids": [str(c) for c in characters],
        "outcome": result.outcome.value,
        "status": result.status,
        "attempts": result.attempts,
        "errors": result.errors,
        "mutations": [m.document() for m in result.applied],
        "chain_depth": quest.chain_depth,
        "signals": [
            {
                "signal_type": s.signal_type,
                "importance": s.importance,
                "chain_type": s.context.get("chain_type"),
                "chain_depth": s.chain_depth,
                "waits_for": s.context.get("await_threat"),
            }
            for s in result.signals
        ],
        "game_time": game_time,
        "wall_time": wall_time,
    }


class AuditHost(WorldPort, StorePort, Protocol):
    """What the audit uses: the store it writes to and the world it applies to."""


class ConsequenceAudit:
    def __init__(self, engine: AuditHost) -> None:
        self.engine = engine
        self._pending: dict[str, dict[str, Any]] = {}
        # The retry runs every tick while the store is away: one line a minute.
        self._retry_failures = ThrottledLog(log)

    @property
    def pending(self) -> int:
        """Documents waiting for the store to come back."""
        return len(self._pending)

    async def already_applied(self, key: str) -> bool:
        if not self.engine.has_store:
            return False
        doc = await self.engine.store.documents.get(AUDIT_COLLECTION, key)
        return doc is not None and doc.get("status") == "applied"

    async def write(
        self, key: str, doc: dict[str, Any], touched: list[tuple[UUID, type[Component]]]
    ) -> None:
        """The audit document with the changed components, in one commit of the world
        (``commit_now``): every entity changed since the last checkpoint goes with it,
        never the batch's components alone, whose entities others may have changed
        too (one side of an exchange must not reach the disk without the other).
        Called where the world does not change under it (a handler or a system,
        under the world lock). If the store is down the document is retried later;
        the entities go back to the world and out with the next checkpoint."""
        if not self.engine.has_store:
            return
        world = self.engine.world
        for entity, ctype in touched:
            component = world.try_component(entity, ctype)
            if component is not None:
                # Changed in place by the batch: make sure the commit takes it.
                world.modified(entity, component)

        async def put(tx: Transaction) -> None:
            await tx.documents.put(AUDIT_COLLECTION, key, doc)

        try:
            await self.engine.commit_now(put)
        except Exception as exc:
            log.warning("writing the consequence audit %s failed, will retry: %s", key, exc)
            self._pending[key] = doc

    async def retry(self) -> None:
        if not self._pending or not self.engine.has_store:
            return
        pending, self._pending = self._pending, {}
        try:
            await self.engine.store.documents.put_many(AUDIT_COLLECTION, pending)
        except Exception as exc:
            self._pending = {**pending, **self._pending}
            self._retry_failures.warning(
                type(exc).__name__, "consequence audits still cannot be written: %s", exc
            )
        else:
            self._retry_failures.clear()
