"""SeedStore: the seed queue kept across a restart.

The story layer signals a situation again only when it changes, so a seed lost at
a restart may be work the world never asks for again. The queue -- seeds queued,
pending and being built, with their attempt counts and retry times -- is written
to the ``questgen_seeds`` collection whenever it changed, off the tick, and read
back at startup. A build that was in flight is not resumed half
way: its seed comes back pending and is planned and written again, since the plan
must be judged against the world as it is after the restart anyway. Seeds that
expired while the server was down are evicted by the next cycle as usual.

The source signals of a seed are kept as :class:`StoredSignal` (type, importance,
people, a JSON copy of the context, chain depth, id and situation key): the
stages read nothing else of them once the seed is grounded.

Each seed is a document of its own (``seed:<id>``), written again only when one
of its fields moved, and the queue's order and retry times are the small
``queue`` document; a write puts the changed seeds, removes the gone ones and
replaces ``queue`` in one transaction, so a restart reads the queue as it stood
at one write, never half of two. A compound seed gathers dozens of signals that
each name the people who saw the threat: in a 10,000-NPC world the queue came
to 9.5 MB of JSON, which writing whole at every change of the queue built,
encoded and held (tens of MiB of objects) again and again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import typing
from typing import Any, Protocol
from uuid import UUID

from pydantic import BaseModel, TypeAdapter, ValidationError, create_model
from pydantic_core import to_jsonable_python

from maid_engine.jsontext import dump_json
from maid_engine.logs import ThrottledLog
from maid_engine.ports import ClockPort, StorePort
from maid_engine.turns import in_turns
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StoredSignal, StorySignalLike

__all__ = [
    "QUEUE_KEY",
    "SEEDS_COLLECTION",
    "SEED_KEY_PREFIX",
    "SeedStore",
    "seed_from_document",
    "seed_to_document",
]

# Its own logger: in a database outage its throttled warning is one cause beside
# the side-table's, each said once a minute.
log = logging.getLogger("maid.questgen.seeds")

SEEDS_COLLECTION = "questgen_seeds"
QUEUE_KEY = "queue"
SEED_KEY_PREFIX = "seed:"
#: Bumped when the documents' shape changes in a way older readers cannot take.
#: 1: the whole queue, every seed inline, in ``queue`` (still read).
FORMAT = 2


class SeedStoreHost(StorePort, ClockPort, Protocol):
    """The database (when there is one) and the clock for throttled warnings."""


def _seed_model() -> type[BaseModel]:
    """A pydantic model of every QuestSeed field but its signals (they are a
    Protocol, stored on their own), so a field added to QuestSeed is stored and
    validated without touching this module."""
    hints = typing.get_type_hints(QuestSeed)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(QuestSeed):
        if f.name == "source_signals":
            continue
        if f.default is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], f.default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], dataclasses.field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hints[f.name], ...)
    return create_model("StoredSeed", **fields)


_SEED_MODEL = _seed_model()


_SIGNAL_ADAPTER: TypeAdapter[StoredSignal] = TypeAdapter(StoredSignal)


def _signal_document(signal: StorySignalLike) -> dict[str, Any]:
    raw = signal.signal_type
    ident = getattr(signal, "id", None)
    return {
        "signal_type": str(getattr(raw, "value", raw)),
        "importance": float(signal.importance),
        "involved_npcs": [str(n) for n in signal.involved_npcs],
        # Anything the JSON store cannot hold becomes its text: only prose fields
        # ("description", "what_happened") are read back.
        "context": to_jsonable_python(dict(signal.context), fallback=str),
        "chain_depth": int(getattr(signal, "chain_depth", 0) or 0),
        "situation_key": str(getattr(signal, "situation_key", "") or ""),
        "id": str(ident) if ident is not None else None,
    }


def _fields_document(seed: QuestSeed) -> dict[str, Any]:
    """The JSON-ready document of ``seed`` but its signals."""
    values = {f.name: getattr(seed, f.name) for f in dataclasses.fields(QuestSeed)}
    del values["source_signals"]
    doc: dict[str, Any] = to_jsonable_python(_SEED_MODEL(**values).model_dump(mode="json"))
    return doc


def seed_to_document(seed: QuestSeed) -> dict[str, Any]:
    """The JSON-ready document of ``seed``, its signals included."""
    doc = _fields_document(seed)
    doc["source_signals"] = [_signal_document(s) for s in seed.source_signals]
    return doc


def seed_from_document(doc: dict[str, Any]) -> QuestSeed:
    """The seed of a document; ValueError when it does not read as one."""
    data = dict(doc)
    signals = data.pop("source_signals", None) or []
    try:
        model = _SEED_MODEL.model_validate(data)
        restored = [_SIGNAL_ADAPTER.validate_python(s) for s in signals]
    except ValidationError as exc:
        raise ValueError(str(exc)) from exc
    values = {name: getattr(model, name) for name in type(model).model_fields}
    return QuestSeed(**values, source_signals=list(restored))


_FIELDS = tuple(f.name for f in dataclasses.fields(QuestSeed))
#: A seed's field values as they stood when its document was made.
Fields = tuple[object, ...]


def _fields_of(seed: QuestSeed) -> Fields:
    """The seed's field values as they stand, lists copied (a list changed in
    place then compares unequal to its copy): what its document was made from.
    Comparing two of these is cheap: their items are the same objects."""
    held = seed.__dict__
    return tuple([list(v) if isinstance(v, list) else v for v in map(held.__getitem__, _FIELDS)])


def seed_key(seed_id: UUID | str) -> str:
    """The key of a seed's own document."""
    return f"{SEED_KEY_PREFIX}{seed_id}"


class SeedStore:
    """Writes the queue when it changed and reads it back at startup."""

    def __init__(self, queue: SeedQueue, host: SeedStoreHost) -> None:
        self._queue = queue
        self._host = host
        #: The queue's change count last written (None: nothing written yet).
        self._written: int | None = None
        self._task: asyncio.Task[None] | None = None
        self._failures = ThrottledLog(log, clock=lambda: host.clock.monotonic())
        #: seed id -> its fields when its document was last written; seeds whose
        #: document is on disk.
        self._stored: dict[UUID, Fields] = {}
        #: Stored seed documents to remove at the next write that are not in
        #: ``_stored`` (a format-1 queue read at startup has none).
        self._stale: set[str] = set()
        #: id() of a signal of a queued seed -> the signal and its JSON text. A
        #: compound seed's signals are most of its document (each a few hundred
        #: people and its context, up to half a millisecond to encode), and are
        #: the same objects while its attempts and retries move and new signals
        #: join it; the signal is held so its id() is not reused meanwhile.
        self._signal_text: dict[int, tuple[StorySignalLike, str]] = {}

    async def _encode(self, seed: QuestSeed) -> bytes:
        """The seed's document as UTF-8 JSON, each signal's part encoded once (a
        seed's signals are not changed in place), with the loop given its turns
        between signals not encoded before."""
        cache = self._signal_text
        texts: list[str] = []
        async for signal in in_turns(seed.source_signals):
            held = cache.get(id(signal))
            if held is None or held[0] is not signal:
                held = cache[id(signal)] = (signal, dump_json(_signal_document(signal)))
            texts.append(held[1])
        head = dump_json(_fields_document(seed))
        # The fields' object, reopened for one more member: a seed has fields, so
        # the object is never empty.
        return f'{head[:-1]},"source_signals":[{",".join(texts)}]}}'.encode()

    async def next_write(self) -> tuple[dict[str, bytes], list[str], dict[UUID, Fields]]:
        """What the next write puts (the changed seeds' documents and ``queue``,
        encoded), the seed documents it removes, and every seed's fields as written.

        A queue of hundreds of seeds is walked and encoded with the loop given its
        turns, before the write's transaction begins (SQLite's write lock is not
        held across them); a seed that changes after its turn compares unequal to
        the fields recorded here, and the queue's change count moves, so the next
        write takes it."""
        seeds, retry_at = self._queue.snapshot()
        stored = self._stored
        fields: dict[UUID, Fields] = {}
        put: dict[str, bytes] = {}
        async for seed in in_turns(seeds):
            now = _fields_of(seed)
            fields[seed.id] = now
            if stored.get(seed.id) != now:
                put[seed_key(seed.id)] = await self._encode(seed)
        # Only the signals of seeds still queued are worth keeping.
        queued = {id(signal) for seed in seeds for signal in seed.source_signals}
        for gone_id in [i for i in self._signal_text if i not in queued]:
            del self._signal_text[gone_id]
        gone = sorted({seed_key(uid) for uid in stored if uid not in fields} | self._stale)
        queue = {
            "format": FORMAT,
            "seeds": [str(s.id) for s in seeds],
            "retry_at": {str(k): v for k, v in retry_at.items()},
        }
        put[QUEUE_KEY] = dump_json(queue).encode()
        return put, gone, fields

    async def load(self) -> int:
        """Put the stored seeds back in the queue; how many came back. A seed that
        does not read (a field renamed since) or is missing is logged and left out."""
        if not self._host.has_store:
            return 0
        documents = self._host.store.documents
        doc = await documents.get(SEEDS_COLLECTION, QUEUE_KEY)
        if doc is None:
            return 0
        form = doc.get("format")
        if form == 1:
            raws = list(doc.get("seeds") or [])
        elif form == FORMAT:
            ids = [str(i) for i in doc.get("seeds") or []]
            found = await documents.get_many(SEEDS_COLLECTION, [seed_key(i) for i in ids])
            raws = []
            for ident in ids:
                raw = found.get(seed_key(ident))
                if raw is None:
                    log.warning("stored seed %s is missing: left out", ident)
                else:
                    raws.append(raw)
        else:
            log.warning("stored seed queue has format %r, not %r: ignored", form, FORMAT)
            return 0
        seeds: list[QuestSeed] = []
        for raw in raws:
            try:
                seeds.append(seed_from_document(raw))
            except ValueError as exc:
                log.warning("unreadable stored seed %s left out: %s", raw.get("id"), exc)
        retry_at = {str(k): float(v) for k, v in (doc.get("retry_at") or {}).items()}
        self._queue.restore(seeds, retry_at)
        # What is on disk now: the seeds that read as they were written (a restored
        # seed is the seed of its document); the rest is removed by the next write.
        on_disk = set(await documents.keys(SEEDS_COLLECTION))
        self._stored = {
            s.id: _fields_of(s) for s in seeds if form == FORMAT and seed_key(s.id) in on_disk
        }
        self._stale = {k for k in on_disk if k.startswith(SEED_KEY_PREFIX)} - {
            seed_key(uid) for uid in self._stored
        }
        self._written = self._queue.changes if form == FORMAT and not self._stale else None
        return len(seeds)

    def save_in_background(self) -> None:
        if not self._host.has_store or self._written == self._queue.changes:
            return
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._background())

    async def _background(self) -> None:
        try:
            await self.save()
        except Exception as exc:
            self._failures.warning(
                type(exc).__name__, "writing the seed queue failed, will retry: %s", exc
            )
        else:
            self._failures.clear()

    async def save(self) -> None:
        """Write the queue now if it changed since the last write."""
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            await asyncio.gather(task, return_exceptions=True)
        if not self._host.has_store:
            return
        changes = self._queue.changes
        if changes == self._written:
            return
        put, gone, fields = await self.next_write()
        async with self._host.store.atomic() as tx:
            await tx.documents.put_many(SEEDS_COLLECTION, put)
            for key in gone:
                await tx.documents.delete(SEEDS_COLLECTION, key)
        self._stored = fields
        self._stale = set()
        self._written = changes
