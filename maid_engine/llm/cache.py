"""NarrativeContextCache: identical prompts are answered once, across restarts.

The key is the SHA-256 of the canonical request (model, messages, max_tokens,
temperature, json_mode). Entries expire ``ttl_seconds`` after they were created,
measured on the wall clock (``time.time``): the monotonic clock restarts with the
process, and entries are persisted to a document collection so that they survive
restarts. At most ``max_entries`` are kept; the least recently used goes first.

Persistence is best effort: a failing store is logged and never turns a good
LLM answer into an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.provider import LLMProvider
from maid_engine.llm.request import LLMRequest, LLMResult

log = logging.getLogger("maid.llm.cache")

COLLECTION = "narrative_cache"
_FORMAT = 1


class DocumentStoreLike(Protocol):
    """The subset of ``maid_engine.store.DocumentStore`` the cache uses."""

    async def ensure_collection(self, name: str) -> None: ...

    async def put(self, collection: str, key: str, doc: dict[str, Any]) -> None: ...

    async def get(self, collection: str, key: str) -> dict[str, Any] | None: ...

    async def delete(self, collection: str, key: str) -> bool: ...

    async def query(
        self,
        collection: str,
        where: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        order_by: str | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]: ...

    async def keys(self, collection: str) -> list[str]: ...


@dataclass(frozen=True)
class CacheEntry:
    result: LLMResult
    created_at: float


def request_key(request: LLMRequest, model: str = "") -> str:
    """SHA-256 over everything that shapes the answer (not purpose or timeout)."""
    canonical = json.dumps(
        {
            "model": model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "json_mode": request.json_mode,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class NarrativeContextCache:
    def __init__(
        self,
        documents: DocumentStoreLike | None = None,
        *,
        ttl_seconds: float = 3600.0,
        max_entries: int = 100,
        wall: Callable[[], float] = time.time,
        collection: str = COLLECTION,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.documents = documents
        self.ttl_seconds = ttl_seconds
        self.max_entries = max_entries
        self.collection = collection
        self._wall = wall
        # Insertion/access order: the first entry is the least recently used.
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        self.hits = 0
        self.misses = 0

    key_for = staticmethod(request_key)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def _expired(self, entry: CacheEntry) -> bool:
        return self._wall() - entry.created_at >= self.ttl_seconds

    # -- persistence -----------------------------------------------------------------
    async def load(self) -> int:
        """Create the collection if needed and load the unexpired entries.

        Expired or unreadable documents are deleted. Returns how many were loaded.
        """
        if self.documents is None:
            return 0
        try:
            await self.documents.ensure_collection(self.collection)
            docs = await self.documents.query(self.collection)
            stored_keys = await self.documents.keys(self.collection)
        except Exception:
            log.warning("could not load the narrative cache", exc_info=True)
            return 0
        loaded: list[tuple[str, CacheEntry]] = []
        for doc in docs:
            key = doc.get("key")
            try:
                if not isinstance(key, str) or doc.get("format") != _FORMAT:
                    raise ValueError("unknown cache document")
                entry = CacheEntry(LLMResult.from_dict(doc["result"]), float(doc["created_at"]))
            except (KeyError, TypeError, ValueError):
                continue
            if not self._expired(entry):
                loaded.append((key, entry))
        # Documents carry their own key; whatever is stored under another key,
        # unreadable or expired is deleted.
        keep = {key for key, _ in loaded}
        stale = [key for key in stored_keys if key not in keep]
        loaded.sort(key=lambda item: item[1].created_at)
        for key, entry in loaded:
            self._entries[key] = entry
            self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            stale.append(self._entries.popitem(last=False)[0])
        for key in dict.fromkeys(stale):
            await self._delete(key)
        return len(self._entries)

    async def save(self) -> None:
        """Write every entry (write-through already does; this is for a store set later)."""
        for key, entry in list(self._entries.items()):
            await self._write(key, entry)

    async def _write(self, key: str, entry: CacheEntry) -> None:
        if self.documents is None:
            return
        doc = {
            "format": _FORMAT,
            "key": key,
            "created_at": entry.created_at,
            "result": entry.result.to_dict(),
        }
        try:
            await self.documents.put(self.collection, key, doc)
        except Exception:
            log.warning("could not persist a narrative cache entry", exc_info=True)

    async def _delete(self, key: str) -> None:
        if self.documents is None:
            return
        try:
            await self.documents.delete(self.collection, key)
        except Exception:
            log.warning("could not delete a narrative cache entry", exc_info=True)

    # -- the cache ---------------------------------------------------------------------
    async def get(self, key: str) -> LLMResult | None:
        """The cached result, or None if absent or expired (expired ones are dropped)."""
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        if self._expired(entry):
            del self._entries[key]
            self.misses += 1
            await self._delete(key)
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry.result

    async def put(self, key: str, result: LLMResult) -> None:
        entry = CacheEntry(replace(result, cached=False), self._wall())
        self._entries[key] = entry
        self._entries.move_to_end(key)
        evicted: list[str] = []
        while len(self._entries) > self.max_entries:
            evicted.append(self._entries.popitem(last=False)[0])
        await self._write(key, entry)
        for old in evicted:
            await self._delete(old)

    async def delete(self, key: str) -> bool:
        """Drop one entry (e.g. an answer that later failed validation or the filter)."""
        found = self._entries.pop(key, None) is not None
        await self._delete(key)
        return found

    async def clear(self) -> None:
        keys = list(self._entries)
        self._entries.clear()
        for key in keys:
            await self._delete(key)


class CachingProvider:
    """Answers repeated requests from a :class:`NarrativeContextCache`.

    Hits skip the inner provider entirely (no limiter slot, no budget, no HTTP)
    and come back with ``cached=True`` and 0 tokens, since they cost nothing.
    Only successful results are stored. ``purposes`` limits caching to some
    request purposes (ambient narration, say, should vary).
    """

    def __init__(
        self,
        inner: LLMProvider,
        cache: NarrativeContextCache,
        *,
        purposes: Collection[str] | None = None,
        metrics: Any = None,
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.purposes = frozenset(purposes) if purposes is not None else None
        inner_metrics = getattr(inner, "metrics", None)
        self.metrics = LLMMetrics.of(metrics if metrics is not None else inner_metrics)

    @property
    def model(self) -> str:
        return str(getattr(self.inner, "model", ""))

    @property
    def limiter(self) -> Any:
        return getattr(self.inner, "limiter", None)

    async def warm_up(self) -> None:
        warm_up = getattr(self.inner, "warm_up", None)
        if warm_up is not None:
            await warm_up()

    async def aclose(self) -> None:
        aclose = getattr(self.inner, "aclose", None)
        if aclose is not None:
            await aclose()

    async def forget(self, request: LLMRequest) -> bool:
        """Drop the cached answer to ``request``: call it when that answer was rejected
        (bad JSON, failed validation or content filter), or the same rejected text
        would come back until it expires."""
        return await self.cache.delete(request_key(request, self.model))

    async def complete(self, request: LLMRequest) -> LLMResult:
        if self.purposes is not None and request.purpose not in self.purposes:
            return await self.inner.complete(request)
        started = time.perf_counter()
        key = request_key(request, self.model)
        hit = await self.cache.get(key)
        if hit is not None:
            self.metrics.cache_hit()
            return replace(
                hit,
                cached=True,
                prompt_tokens=0,
                completion_tokens=0,
                latency=time.perf_counter() - started,
            )
        result = await self.inner.complete(request)
        await self.cache.put(key, result)
        return result
