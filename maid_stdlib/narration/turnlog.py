"""The turn log: every narrated turn, stored in the ``narrated_turns`` collection.

One document per turn: room, actor, action index, the player's text, the narration,
the snapshot taken before the turn was applied and the whole report (all three
lists). The next turn's refusals and replayed history are read back from here, so
what the model hears is exactly what was stored (once, a write path that
dropped two of the three lists went unnoticed because tests built the column by
hand).

Undone and retried turns stay in the log, marked inactive, for the record.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from maid_engine.ports import StorePort
from maid_engine.store import Store, Transaction
from maid_stdlib.worldstate import Report, Snapshot

COLLECTION = "narrated_turns"

#: Outcomes of a turn. Only ``ok`` turns are replayed to the model as story.
OK = "ok"


class TurnRecord(BaseModel):
    """One stored turn (the document's shape)."""

    model_config = ConfigDict(extra="ignore")

    key: str
    room: str
    actor: str
    actor_name: str = ""
    action_index: int
    kind: str = "act"
    player_text: str
    narration: str = ""
    reply: str = ""
    outcome: str = OK
    active: bool = True
    status: str = "applied"
    scope: str = ""
    #: Schema NPC id -> entity id of the NPCs the turn could write; undo restores these.
    npcs: dict[str, str] = Field(default_factory=dict)
    snapshot_before: dict[str, Any] | None = None
    report: dict[str, Any] | None = None
    #: The world-state sections the model was given (the turn's context snapshot).
    context: dict[str, str] = Field(default_factory=dict)
    game_time: float = 0.0
    created_at: float = Field(default_factory=time.time)
    retry_of: str | None = None
    model: str = ""
    #: Wall seconds of the model call, and the tokens it used (0 when no model was asked).
    latency: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @staticmethod
    def new_key(room: str, action_index: int) -> str:
        # A retried or undone index is used again, so the index alone is not unique.
        return f"{room}#{action_index:06d}-{uuid.uuid4().hex[:8]}"

    def snapshot(self) -> Snapshot | None:
        return (
            None if self.snapshot_before is None else Snapshot.model_validate(self.snapshot_before)
        )

    def parsed_report(self) -> Report | None:
        return None if self.report is None else Report.from_json(self.report)

    def to_doc(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class TurnLog(Protocol):
    def commit(self, *records: TurnRecord) -> Awaitable[int]:
        """Store turns together with everything the world changed since the last
        checkpoint, in one transaction (``StorePort.commit_now``). Call it holding
        the world lock, right after the turn changed the world; await the result for
        the write (it raises if the turn was not stored)."""

    async def get(self, key: str) -> TurnRecord | None: ...

    async def recent(self, room: str, limit: int) -> list[TurnRecord]:
        """The room's active turns, newest first."""

    async def last_of(self, room: str, actor: str) -> TurnRecord | None:
        """The actor's newest active turn in the room."""

    async def all_of(self, room: str) -> list[TurnRecord]:
        """Every stored turn of the room, active or not, oldest first."""


class StoreTurnLog:
    """The turn log on the engine's store (the real write path).

    A turn is written by a commit of the whole world, never with just the entities
    it touched: the acting character may hold the other half of a trade made since
    the last checkpoint, and a crash must not find one half on disk without the
    other. A character created since then is on disk whole, never as a row holding
    nothing but its narrated stats.
    """

    def __init__(self, engine: StorePort) -> None:
        self.engine = engine

    @property
    def store(self) -> Store:
        return self.engine.store

    def commit(self, *records: TurnRecord) -> Awaitable[int]:
        docs = {r.key: r.to_doc() for r in records}

        async def put(tx: Transaction) -> None:
            await tx.documents.put_many(COLLECTION, docs)

        return self.engine.commit_now(put)

    async def get(self, key: str) -> TurnRecord | None:
        doc = await self.store.documents.get(COLLECTION, key)
        return None if doc is None else TurnRecord.model_validate(doc)

    async def recent(self, room: str, limit: int) -> list[TurnRecord]:
        docs = await self.store.documents.query(
            COLLECTION,
            {"room": room, "active": True},
            order_by="action_index",
            descending=True,
            limit=limit,
        )
        return [TurnRecord.model_validate(d) for d in docs]

    async def last_of(self, room: str, actor: str) -> TurnRecord | None:
        docs = await self.store.documents.query(
            COLLECTION,
            {"room": room, "actor": actor, "active": True},
            order_by="action_index",
            descending=True,
            limit=1,
        )
        return TurnRecord.model_validate(docs[0]) if docs else None

    async def all_of(self, room: str) -> list[TurnRecord]:
        docs = await self.store.documents.query(COLLECTION, {"room": room})
        return [TurnRecord.model_validate(d) for d in docs]


class MemoryTurnLog:
    """For engines without a store (``use_store=False``): the log lives in memory.

    Documents are copied through JSON on the way in and out, so a reader never sees
    anything a real store would not have kept.
    """

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}

    def commit(self, *records: TurnRecord) -> Awaitable[int]:
        for record in records:
            self.docs[record.key] = TurnRecord.model_validate_json(
                record.model_dump_json()
            ).to_doc()
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        done.set_result(0)
        return done

    async def get(self, key: str) -> TurnRecord | None:
        doc = self.docs.get(key)
        return None if doc is None else TurnRecord.model_validate(doc)

    def _active(self, room: str) -> list[TurnRecord]:
        found = [
            TurnRecord.model_validate(d)
            for d in self.docs.values()
            if d["room"] == room and d["active"]
        ]
        return sorted(found, key=lambda r: r.action_index, reverse=True)

    async def recent(self, room: str, limit: int) -> list[TurnRecord]:
        return self._active(room)[:limit]

    async def last_of(self, room: str, actor: str) -> TurnRecord | None:
        return next((r for r in self._active(room) if r.actor == actor), None)

    async def all_of(self, room: str) -> list[TurnRecord]:
        return [TurnRecord.model_validate(d) for d in self.docs.values() if d["room"] == room]
