"""NarrativeContextCache and CachingProvider: hits, TTL, LRU, persistence across restarts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeOpenAIServer
from llm.llm_helpers import TEST_KEY, TEST_MODEL, MemoryDocuments

from maid_engine.clock import ManualClock
from maid_engine.llm import (
    CachingProvider,
    LiteLLMProvider,
    LLMBudgetExhausted,
    LLMLimiter,
    LLMRequest,
    LLMResult,
    LLMServerError,
    NarrativeContextCache,
    ScriptedProvider,
    request_key,
)
from maid_engine.metrics import EngineMetrics


def req(text: str = "Write a quest about the mill.", **kw: Any) -> LLMRequest:
    return LLMRequest.from_prompt(text, purpose="quest_narrative", **kw)


def result(text: str = "The miller's plea") -> LLMResult:
    return LLMResult(text, "stop", 10, 5, "m", 0.2)


def test_key_covers_what_shapes_the_answer() -> None:
    base = request_key(req(), "model-a")
    assert len(base) == 64
    assert base == request_key(req(), "model-a")
    assert base == request_key(req(timeout=3.0), "model-a")  # not part of the answer
    assert base == request_key(
        LLMRequest.from_prompt("Write a quest about the mill.", purpose="narration"), "model-a"
    )
    assert base != request_key(req(), "model-b")
    assert base != request_key(req("Write a quest about the well."), "model-a")
    assert base != request_key(req(temperature=0.1), "model-a")
    assert base != request_key(req(max_tokens=10), "model-a")
    assert base != request_key(req(json_mode=True), "model-a")


@pytest.mark.usefixtures("litellm_ready")
async def test_cache_hit_avoids_the_second_http_call(
    fake_llm: FakeOpenAIServer, metrics: EngineMetrics
) -> None:
    limiter = LLMLimiter.from_limits(60, 10_000)
    inner = LiteLLMProvider(
        TEST_MODEL, api_base=fake_llm.url, api_key=TEST_KEY, limiter=limiter, metrics=metrics
    )
    provider = CachingProvider(inner, NarrativeContextCache())
    fake_llm.ok('{"title": "The Mill"}', prompt_tokens=20, completion_tokens=6)

    first = await provider.complete(req())
    second = await provider.complete(req())

    assert fake_llm.request_count == 1
    assert not first.cached
    assert second.cached
    assert second.text == first.text
    assert second.total_tokens == 0  # a hit costs nothing
    assert limiter.budget is not None
    assert limiter.budget.used() == 26
    assert metrics.registry.get_sample_value("maid_llm_cache_hits_total") == 1
    assert provider.model == TEST_MODEL
    assert provider.limiter is limiter

    await provider.complete(req("Something else entirely."))
    assert fake_llm.request_count == 2


async def test_hits_do_not_need_budget(clock: ManualClock) -> None:
    limiter = LLMLimiter.from_limits(60, 20, clock=clock.monotonic)
    inner = ScriptedProvider(
        default=LLMResult("x", prompt_tokens=15, completion_tokens=15), limiter=limiter
    )
    provider = CachingProvider(inner, NarrativeContextCache(wall=clock.wall))
    await provider.complete(req())
    with pytest.raises(LLMBudgetExhausted):
        await provider.complete(req("new prompt"))
    assert (await provider.complete(req())).cached


async def test_failures_are_not_cached() -> None:
    inner = ScriptedProvider([LLMServerError("down"), "recovered"])
    provider = CachingProvider(inner, NarrativeContextCache())
    with pytest.raises(LLMServerError):
        await provider.complete(req())
    assert (await provider.complete(req())).text == "recovered"
    assert len(inner.requests) == 2


async def test_a_rejected_answer_can_be_forgotten(memory_documents: MemoryDocuments) -> None:
    cache = NarrativeContextCache(memory_documents)
    await cache.load()
    inner = ScriptedProvider(["not json at all", '{"title": "ok"}'])
    provider = CachingProvider(inner, cache)
    assert (await provider.complete(req())).text == "not json at all"
    assert await provider.forget(req()) is True
    assert memory_documents.data["narrative_cache"] == {}
    assert (await provider.complete(req())).text == '{"title": "ok"}'
    assert await provider.forget(LLMRequest.from_prompt("never asked")) is False


async def test_purposes_limit_what_is_cached() -> None:
    inner = ScriptedProvider(default="ambient")
    provider = CachingProvider(inner, NarrativeContextCache(), purposes={"quest_narrative"})
    narration = LLMRequest.from_prompt("The wind.", purpose="narration")
    await provider.complete(narration)
    await provider.complete(narration)
    await provider.complete(req())
    await provider.complete(req())
    assert len(inner.requests) == 3


async def test_entries_expire_after_the_ttl(clock: ManualClock) -> None:
    cache = NarrativeContextCache(ttl_seconds=3600, wall=clock.wall)
    await cache.put("k", result())
    clock.advance_wall(3599)
    assert await cache.get("k") == result()
    clock.advance_wall(1)
    assert await cache.get("k") is None
    assert len(cache) == 0


async def test_least_recently_used_is_evicted() -> None:
    cache = NarrativeContextCache(max_entries=2)
    await cache.put("a", result("A"))
    await cache.put("b", result("B"))
    assert await cache.get("a") is not None  # "a" is now more recent than "b"
    await cache.put("c", result("C"))
    assert "b" not in cache
    assert "a" in cache
    assert "c" in cache
    assert len(cache) == 2


async def test_survives_a_restart_in_a_document_store(
    memory_documents: MemoryDocuments, clock: ManualClock
) -> None:
    cache = NarrativeContextCache(memory_documents, wall=clock.wall, max_entries=3)
    assert await cache.load() == 0
    await cache.put("old", result("old"))
    clock.advance_wall(3000)
    await cache.put("new", result("new"))
    assert set(memory_documents.data["narrative_cache"]) == {"old", "new"}

    clock.advance_wall(1000)  # "old" is now 4000 s old: expired
    restarted = NarrativeContextCache(memory_documents, wall=clock.wall, max_entries=3)
    assert await restarted.load() == 1
    hit = await restarted.get("new")
    assert hit is not None
    assert hit.text == "new"
    assert set(memory_documents.data["narrative_cache"]) == {"new"}  # expired one deleted


async def test_eviction_and_load_keep_the_store_bounded(
    memory_documents: MemoryDocuments, clock: ManualClock
) -> None:
    cache = NarrativeContextCache(memory_documents, wall=clock.wall, max_entries=5)
    await cache.load()
    for i in range(8):
        await cache.put(f"k{i}", result(str(i)))
        clock.advance_wall(1)
    assert len(memory_documents.data["narrative_cache"]) == 5
    smaller = NarrativeContextCache(memory_documents, wall=clock.wall, max_entries=2)
    assert await smaller.load() == 2
    assert "k7" in smaller
    assert "k6" in smaller
    assert len(memory_documents.data["narrative_cache"]) == 2


async def test_unreadable_documents_are_dropped(memory_documents: MemoryDocuments) -> None:
    await memory_documents.ensure_collection("narrative_cache")
    await memory_documents.put("narrative_cache", "junk", {"something": "else"})
    cache = NarrativeContextCache(memory_documents)
    assert await cache.load() == 0
    assert memory_documents.data["narrative_cache"] == {}


async def test_a_failing_store_never_breaks_a_call(memory_documents: MemoryDocuments) -> None:
    cache = NarrativeContextCache(memory_documents)
    await cache.load()
    memory_documents.fail = True
    provider = CachingProvider(ScriptedProvider(default="fine"), cache)
    assert (await provider.complete(req())).text == "fine"
    assert (await provider.complete(req())).cached
    assert await NarrativeContextCache(memory_documents).load() == 0


async def test_save_writes_everything(memory_documents: MemoryDocuments) -> None:
    cache = NarrativeContextCache()
    await cache.put("a", result())
    cache.documents = memory_documents
    await memory_documents.ensure_collection("narrative_cache")
    await cache.save()
    assert set(memory_documents.data["narrative_cache"]) == {"a"}


async def test_survives_a_restart_on_a_real_sqlite_store(tmp_path: Path) -> None:
    store_mod = pytest.importorskip("maid_engine.store")
    url = "sqlite+aiosqlite:///" + str(tmp_path / "x.db")
    wall = ManualClock().wall
    store = store_mod.Store(url)
    await store.open()
    try:
        inner = ScriptedProvider(["The Drowned Bell"])
        provider = CachingProvider(inner, NarrativeContextCache(store.documents, wall=wall))
        assert isinstance(provider.cache, NarrativeContextCache)
        await provider.cache.load()
        await provider.complete(req())
    finally:
        await store.close()

    store = store_mod.Store(url)
    await store.open()
    try:
        cache = NarrativeContextCache(store.documents, wall=wall)
        assert await cache.load() == 1
        fresh = ScriptedProvider([])  # would raise if it were called
        hit = await CachingProvider(fresh, cache).complete(req())
        assert hit.cached
        assert hit.text == "The Drowned Bell"
        assert fresh.requests == []
    finally:
        await store.close()


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="ttl_seconds must be positive"):
        NarrativeContextCache(ttl_seconds=0)
    with pytest.raises(ValueError, match="max_entries must be at least 1"):
        NarrativeContextCache(max_entries=0)
