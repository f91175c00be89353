"""Episodic memories of NPCs (Doc 03-lite) and their persistence.

Reads are synchronous: every memory lives in an in-memory index loaded from the
DocumentStore (collection ``npc_memories``, one document per memory) when the
engine starts, so story detectors and dialogue can ask "what does Gundrik remember"
every tick without touching the database.

Durability:

* ``add(memory)`` acknowledges a memory once it is in the index and queued. Queued
  writes go to the store in a background flush every ``checkpoint_interval`` real
  seconds (the same cadence as entity checkpoints) and in a final flush when the
  engine stops cleanly. A crash can lose at most the memories of the last interval,
  exactly like entity state between checkpoints.
* ``await store(memory)`` adds and then flushes: durable when it returns. Use it for
  memories that must survive a crash (quest consequences).
* A failed flush keeps its writes queued for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from pydantic import TypeAdapter

from maid_engine.ecs import System
from maid_engine.jsontext import dump_json
from maid_engine.logs import ThrottledLog
from maid_engine.ports import ClockPort, RandomPort, StorePort
from maid_engine.turns import in_turns
from maid_stdlib.living.components import clamp_unit

log = logging.getLogger("maid.living.memory")

COLLECTION = "npc_memories"
#: Memories kept per NPC; beyond it the least important (then oldest) is forgotten.
MAX_MEMORIES_PER_NPC = 200


class MemoryVisibility(enum.StrEnum):
    """PUBLIC memories may be told to others and used in quest narratives;
    PRIVATE ones (the default) are the NPC's own and never leave it."""

    PUBLIC = "public"
    PRIVATE = "private"


class EmotionalValence(enum.StrEnum):
    VERY_NEGATIVE = "very_negative"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"
    POSITIVE = "positive"
    VERY_POSITIVE = "very_positive"

    @property
    def score(self) -> float:
        return _VALENCE_SCORE[self]


_VALENCE_SCORE = {
    EmotionalValence.VERY_NEGATIVE: -1.0,
    EmotionalValence.NEGATIVE: -0.5,
    EmotionalValence.NEUTRAL: 0.0,
    EmotionalValence.POSITIVE: 0.5,
    EmotionalValence.VERY_POSITIVE: 1.0,
}

_PUBLIC_TAG = "visibility:public"
_PRIVATE_TAG = "visibility:private"


@dataclass
class EpisodicMemory:
    npc_id: UUID
    content: str
    importance: float = 0.5
    emotional_valence: EmotionalValence = EmotionalValence.NEUTRAL
    emotional_intensity: float = 0.0
    tags: list[str] = field(default_factory=list)
    visibility: MemoryVisibility = MemoryVisibility.PRIVATE
    #: The character involved, if any.
    player_id: UUID | None = None
    #: Whom the memory is about (a betrayer, a rival), if not the character.
    subject_id: UUID | None = None
    #: Room key where it happened.
    location: str | None = None
    #: Game time; the service fills it in when None.
    game_time: float | None = None
    #: Assigned by the service when None.
    id: UUID | None = None

    def __post_init__(self) -> None:
        self.importance = clamp_unit(self.importance)
        self.emotional_intensity = clamp_unit(self.emotional_intensity)
        self.emotional_valence = EmotionalValence(self.emotional_valence)
        self.visibility = MemoryVisibility(self.visibility)
        # The seed tags quest memories "visibility:public"; honour the tag so both
        # conventions mean the same thing.
        if _PUBLIC_TAG in self.tags:
            self.visibility = MemoryVisibility.PUBLIC
        elif _PRIVATE_TAG in self.tags:
            self.visibility = MemoryVisibility.PRIVATE

    @property
    def is_public(self) -> bool:
        return self.visibility == MemoryVisibility.PUBLIC

    def retention(self) -> float:
        return self.importance + 0.5 * self.emotional_intensity


_ADAPTER: TypeAdapter[EpisodicMemory] = TypeAdapter(EpisodicMemory)


def memory_to_doc(memory: EpisodicMemory) -> dict[str, Any]:
    data = _ADAPTER.dump_python(memory, mode="json")
    assert isinstance(data, dict)
    return data


def memory_from_doc(doc: dict[str, Any]) -> EpisodicMemory:
    return _ADAPTER.validate_python(doc)


class MemoryHost(ClockPort, StorePort, RandomPort, Protocol):
    """What the memory service uses: game time (when a memory was made), the
    store it loads from and flushes to, and the seeded random source (forgetting)."""


class MemoryService:
    def __init__(self, engine: MemoryHost) -> None:
        self.engine = engine
        self._by_npc: dict[UUID, list[EpisodicMemory]] = {}
        self._by_id: dict[UUID, EpisodicMemory] = {}
        self._by_tag: dict[str, dict[UUID, None]] = {}
        # memory id -> memory to write, or None to delete.
        self._dirty: dict[UUID, EpisodicMemory | None] = {}
        self._lock: asyncio.Lock | None = None
        self._task: asyncio.Task[None] | None = None
        self._last_flush = time.monotonic()
        self.loaded = False
        self.flush_failures = 0
        # A flush is retried every few ticks while the store is away: one line a minute.
        self._flush_log = ThrottledLog(log, clock=lambda: self.engine.clock.monotonic())

    # -- loading ------------------------------------------------------------------
    async def load(self) -> int:
        """Read every stored memory into the index (once). Returns how many."""
        if self.loaded:
            return 0
        self.loaded = True
        if not self.engine.has_store:
            return 0
        docs = await self.engine.store.documents.query(COLLECTION)
        count = 0
        for doc in docs:
            try:
                memory = memory_from_doc(doc)
            except Exception as exc:
                log.warning("skipping an unreadable stored memory: %s", exc)
                continue
            if memory.id is not None:
                self._index(memory)
                count += 1
        for memories in self._by_npc.values():
            memories.sort(key=lambda m: m.game_time or 0.0)
        return count

    # -- writing --------------------------------------------------------------------
    def _new_id(self) -> UUID:
        return uuid.UUID(int=self.engine.random.getrandbits(128), version=4)

    def add(self, memory: EpisodicMemory) -> EpisodicMemory:
        """Remember ``memory`` now; durable at the next flush (see module doc)."""
        if memory.id is None:
            memory.id = self._new_id()
        if memory.game_time is None:
            memory.game_time = self.engine.clock.game_time
        old = self._by_id.get(memory.id)
        if old is not None:
            self._unindex(old)
        self._index(memory)
        self._dirty[memory.id] = memory
        self._evict(memory.npc_id)
        return memory

    async def store(self, memory: EpisodicMemory) -> EpisodicMemory:
        """Add ``memory`` and flush: durable when this returns."""
        self.add(memory)
        await self.flush()
        return memory

    def update(self, memory: EpisodicMemory) -> None:
        """Queue a changed memory (e.g. made public) for writing."""
        if memory.id is None or memory.id not in self._by_id:
            raise KeyError("the memory is not in the service; add() it first")
        self._dirty[memory.id] = memory

    def forget(self, memory_id: UUID) -> bool:
        memory = self._by_id.get(memory_id)
        if memory is None:
            return False
        self._unindex(memory)
        self._dirty[memory_id] = None
        return True

    def forget_npc(self, npc_id: UUID) -> int:
        """Forget every memory of an NPC (it was destroyed)."""
        memories = list(self._by_npc.get(npc_id, ()))
        for memory in memories:
            assert memory.id is not None
            self.forget(memory.id)
        return len(memories)

    def _index(self, memory: EpisodicMemory) -> None:
        assert memory.id is not None
        self._by_id[memory.id] = memory
        self._by_npc.setdefault(memory.npc_id, []).append(memory)
        for tag in memory.tags:
            self._by_tag.setdefault(tag, {})[memory.id] = None

    def _unindex(self, memory: EpisodicMemory) -> None:
        assert memory.id is not None
        self._by_id.pop(memory.id, None)
        memories = self._by_npc.get(memory.npc_id)
        if memories is not None:
            memories[:] = [m for m in memories if m.id != memory.id]
            if not memories:
                del self._by_npc[memory.npc_id]
        for tag in memory.tags:
            bucket = self._by_tag.get(tag)
            if bucket is not None:
                bucket.pop(memory.id, None)
                if not bucket:
                    del self._by_tag[tag]

    def _evict(self, npc_id: UUID) -> None:
        memories = self._by_npc.get(npc_id, [])
        while len(memories) > MAX_MEMORIES_PER_NPC:
            victim = min(memories, key=lambda m: (m.retention(), m.game_time or 0.0))
            assert victim.id is not None
            self.forget(victim.id)
            memories = self._by_npc.get(npc_id, [])

    # -- reading --------------------------------------------------------------------
    def get(self, memory_id: UUID) -> EpisodicMemory | None:
        return self._by_id.get(memory_id)

    def get_recent(
        self,
        npc_id: UUID,
        limit: int = 10,
        visibility_filter: MemoryVisibility | None = None,
        tags: Iterable[str] | None = None,
    ) -> list[EpisodicMemory]:
        """The NPC's newest memories first. ``visibility_filter=PUBLIC`` leaves out
        private ones; ``tags`` keeps memories having all of them."""
        wanted = set(tags or ())
        out: list[EpisodicMemory] = []
        for memory in reversed(self._by_npc.get(npc_id, ())):
            if visibility_filter is not None and memory.visibility != visibility_filter:
                continue
            if wanted and not wanted.issubset(memory.tags):
                continue
            out.append(memory)
            if len(out) >= limit:
                break
        return out

    def with_tag(self, tag: str) -> list[EpisodicMemory]:
        """Every memory carrying ``tag`` (any NPC), in no particular order."""
        return [self._by_id[i] for i in self._by_tag.get(tag, ())]

    def count(self, npc_id: UUID | None = None) -> int:
        if npc_id is None:
            return len(self._by_id)
        return len(self._by_npc.get(npc_id, ()))

    # -- persistence ------------------------------------------------------------------
    @property
    def pending(self) -> int:
        return len(self._dirty)

    async def flush(self) -> int:
        """Write queued changes in one transaction. Returns how many were written."""
        if not self.engine.has_store:
            self._dirty.clear()
            return 0
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self._dirty:
                return 0
            batch, self._dirty = self._dirty, {}
            self._last_flush = time.monotonic()
            deletes = [str(k) for k, m in batch.items() if m is None]
            try:
                # Encoded a memory at a time, with the loop given its turns (a
                # busy minute queues hundreds); a memory that changes meanwhile
                # is queued again and written by the next flush.
                upserts: dict[str, bytes] = {}
                async for memory_id, memory in in_turns(list(batch.items())):
                    if memory is not None:
                        upserts[str(memory_id)] = dump_json(memory_to_doc(memory)).encode()
                async with self.engine.store.atomic() as tx:
                    if upserts:
                        await tx.documents.put_many(COLLECTION, upserts)
                    for key in deletes:
                        await tx.documents.delete(COLLECTION, key)
            except Exception:
                self.flush_failures += 1
                # Newer changes queued meanwhile win over the failed batch.
                for memory_id, value in batch.items():
                    self._dirty.setdefault(memory_id, value)
                raise
            return len(batch)

    def flush_in_background(self) -> None:
        """Start a flush unless one is running or nothing is queued."""
        if not self._dirty or not self.engine.has_store:
            return
        if self._task is not None and not self._task.done():
            return
        self._task = asyncio.create_task(self._background_flush())

    async def _background_flush(self) -> None:
        try:
            await self.flush()
        except Exception as exc:
            self._flush_log.warning(type(exc).__name__, "memory flush failed, will retry: %s", exc)
        else:
            self._flush_log.clear()

    def flush_due(self, interval: float) -> bool:
        return bool(self._dirty) and time.monotonic() - self._last_flush >= interval

    async def close(self) -> None:
        """Finish a running flush and write everything still queued."""
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await task
        await self.flush()


class MemoryFlushSystem(System):
    """Starts background memory flushes at the checkpoint cadence; flushes on stop.

    Priority 990: last in the tick, first to shut down (while the store is open).
    """

    phase = "persistence"

    def __init__(self, memory: MemoryService) -> None:
        self.memory = memory

    async def update(self, delta: float) -> None:
        if self.memory.flush_due(self.engine.settings.checkpoint_interval):
            self.memory.flush_in_background()

    async def shutdown(self) -> None:
        try:
            await self.memory.close()
        except Exception:
            log.exception("final memory flush failed; queued memories are lost")
