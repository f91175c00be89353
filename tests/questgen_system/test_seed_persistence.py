"""The seed queue survives a restart, through the real store (SQLite and
PostgreSQL): seeds waiting, their attempts and retry times, and builds that were
in flight when the server stopped (their seeds come back and are built again)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from kits.engines import questgen_of
from questgen_system.qskit import make_engine, pipeline_of, seed_for, ticks

from maid_engine.store import Store
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.pipeline.seed_store import (
    QUEUE_KEY,
    SEEDS_COLLECTION,
    seed_from_document,
    seed_key,
    seed_to_document,
)
from maid_stdlib.questgen.signals import StoredSignal
from maid_stdlib.story.signals import StorySignal

#: A long interval: after the first cycle, a seed waits unbuilt.
WAITING = QuestGenerationConfig(generation_interval=10 * 86400.0)


async def test_a_waiting_seed_comes_back_whole(tmp_path: Path, db_url: str) -> None:
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        await ticks(engine)  # the first cycle runs now; the next in ten days
        system = questgen_of(engine)
        seed = seed_for(engine, "hollin", importance=0.5, threat_source="wolves")
        seed.attempt_count = 2
        system.enqueue(seed)
        pipeline_of(engine).stages.queue.schedule_retry(seed, engine.clock.game_time)
        await ticks(engine)
        assert [s.id for s in system.pending_seeds()] == [seed.id]
        retry_at = pipeline_of(engine).stages.queue._retry_at[seed.id]
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        (back,) = questgen_of(engine).pending_seeds()
        assert back.id == seed.id
        assert back.primary_npc == seed.primary_npc
        assert back.seed_type == seed.seed_type
        assert back.threat_source == "wolves"
        assert back.location == seed.location
        assert back.importance == seed.importance
        assert back.estimated_difficulty is seed.estimated_difficulty
        assert back.attempt_count == 2
        assert back.expires_at == seed.expires_at
        assert pipeline_of(engine).stages.queue._retry_at[seed.id] == retry_at
        assert [s.signal_type for s in back.source_signals] == ["TEST"]


async def test_a_build_in_flight_at_shutdown_is_built_after_the_restart(
    tmp_path: Path, db_url: str
) -> None:
    engine = make_engine(tmp_path, quiet=True, db_url=db_url)
    async with engine.lifespan():
        system = questgen_of(engine)
        seed = seed_for(engine, "hollin", importance=0.9)
        system.enqueue(seed)
        await engine.tick()  # launched; the lifespan ends before it finishes
        assert seed.id in system.in_flight_ids()
        assert not system.open_quests()
    engine = make_engine(tmp_path, quiet=True, db_url=db_url)
    async with engine.lifespan():
        system = questgen_of(engine)
        assert [s.id for s in system.pending_seeds()] == [seed.id]
        for _ in range(5):
            await ticks(engine)
            if system.open_quests():
                break
        built = [oq.quest for oq in system.open_quests().values()]
        assert [q.seed_id for q in built] == [seed.id]
        assert not system.pending_seeds()
    # Built, it is not built twice after another restart.
    engine = make_engine(tmp_path, quiet=True, db_url=db_url)
    async with engine.lifespan():
        system = questgen_of(engine)
        assert not system.pending_seeds()
        assert [oq.quest.seed_id for oq in system.open_quests().values()] == [seed.id]


async def test_an_unreadable_stored_seed_is_logged_and_the_rest_load(
    tmp_path: Path, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        await ticks(engine)
        good = seed_for(engine, "hollin", importance=0.5)
        questgen_of(engine).enqueue(good)
        await ticks(engine)
    # A seed written by some other version: no giver.
    store = Store(db_url)
    await store.open()
    try:
        doc = await store.documents.get(SEEDS_COLLECTION, QUEUE_KEY)
        assert doc is not None
        written = await store.documents.get(SEEDS_COLLECTION, seed_key(good.id))
        assert written is not None
        broken_id = "7e1f5a52-0000-4000-8000-000000000001"
        broken = dict(written, id=broken_id)
        del broken["primary_npc"]
        doc["seeds"].append(broken_id)
        await store.documents.put(SEEDS_COLLECTION, seed_key(broken_id), broken)
        await store.documents.put(SEEDS_COLLECTION, QUEUE_KEY, doc)
    finally:
        await store.close()
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    with caplog.at_level(logging.WARNING, "maid.questgen.seeds"):
        async with engine.lifespan():
            assert [s.id for s in questgen_of(engine).pending_seeds()] == [good.id]
            # The next write leaves it out for good.
            await pipeline_of(engine).stages.seed_store.save()
            keys = await engine.store.documents.keys(SEEDS_COLLECTION)
            assert sorted(keys) == sorted([QUEUE_KEY, seed_key(good.id)])
    assert any("unreadable stored seed" in r.getMessage() for r in caplog.records)


async def test_a_write_puts_only_the_seeds_that_changed(tmp_path: Path, db_url: str) -> None:
    """Each seed is a document of its own, written again only when one of its
    fields moved: a write of a busy queue is not every seed's signals again."""
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        await ticks(engine)
        system = questgen_of(engine)
        store = pipeline_of(engine).stages.seed_store
        first = seed_for(engine, "hollin", importance=0.5, threat_source="wolves")
        second = seed_for(engine, "hollin", importance=0.4, threat_source="boars")
        system.enqueue(first)
        system.enqueue(second)
        put, gone, _ = await store.next_write()
        assert sorted(put) == sorted([QUEUE_KEY, seed_key(first.id), seed_key(second.id)])
        await store.save()
        put, gone, _ = await store.next_write()
        assert (list(put), gone) == ([QUEUE_KEY], [])
        second.attempt_count += 1
        queue = pipeline_of(engine).stages.queue
        queue.schedule_retry(second, engine.clock.game_time)
        put, gone, _ = await store.next_write()
        assert (sorted(put), gone) == (sorted([QUEUE_KEY, seed_key(second.id)]), [])
        await store.save()
        queue.withdraw(first)
        put, gone, _ = await store.next_write()
        assert (list(put), gone) == ([QUEUE_KEY], [seed_key(first.id)])
        assert json.loads(put[QUEUE_KEY])["seeds"] == [str(second.id)]
        await store.save()
        keys = await engine.store.documents.keys(SEEDS_COLLECTION)
        assert sorted(keys) == sorted([QUEUE_KEY, seed_key(second.id)])
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        (back,) = questgen_of(engine).pending_seeds()
        assert (back.id, back.attempt_count) == (second.id, second.attempt_count)


async def test_a_write_is_encoded_before_it_begins_and_signals_once(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documents reach the store encoded (nothing is encoded while the write's
    transaction holds the database), and a seed's signals, most of a compound
    seed's document, are each encoded once."""
    from maid_stdlib.questgen.pipeline import seed_store as module

    encoded: list[object] = []
    real = module._signal_document

    def counting(signal: object) -> dict[str, object]:
        encoded.append(signal)
        return real(signal)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "_signal_document", counting)
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        await ticks(engine)
        store = pipeline_of(engine).stages.seed_store
        await store.save()
        seed = seed_for(engine, "hollin", importance=0.5, threat_source="wolves")
        questgen_of(engine).enqueue(seed)
        put, _, _ = await store.next_write()
        assert all(isinstance(doc, bytes) for doc in put.values())
        monkeypatch.setattr(module, "_signal_document", real)
        assert json.loads(put[seed_key(seed.id)]) == seed_to_document(seed)
        monkeypatch.setattr(module, "_signal_document", counting)
        await store.save()
        assert len(encoded) == 1  # once, though two writes were made up
        encoded.clear()

        seed.attempt_count += 1
        pipeline_of(engine).stages.queue.schedule_retry(seed, engine.clock.game_time)
        await store.save()
        assert encoded == []
        doc = await engine.store.documents.get(SEEDS_COLLECTION, seed_key(seed.id))
        assert doc is not None
        assert doc["attempt_count"] == seed.attempt_count
        assert [s["signal_type"] for s in doc["source_signals"]] == ["TEST"]

        # A signal joining the seed is the only one encoded.
        more = StorySignal("MORE", 0.3)
        seed.source_signals = [*seed.source_signals, more]
        pipeline_of(engine).stages.queue.schedule_retry(seed, engine.clock.game_time)
        await store.save()
        assert encoded == [more]
        doc = await engine.store.documents.get(SEEDS_COLLECTION, seed_key(seed.id))
        assert doc is not None
        assert [s["signal_type"] for s in doc["source_signals"]] == ["TEST", "MORE"]
        # The text of a seed's signals goes with the seed.
        pipeline_of(engine).stages.queue.withdraw(seed)
        await store.save()
        assert store._signal_text == {}


async def test_a_queue_written_whole_by_the_version_before_still_loads(
    tmp_path: Path, db_url: str
) -> None:
    """Format 1 kept every seed inline in ``queue``: read, then written anew."""
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        await ticks(engine)
        # The tick started a write of the (empty) queue in the background: let it
        # finish first, or it may land after the old document and replace it.
        await pipeline_of(engine).stages.seed_store.save()
        seed = seed_for(engine, "hollin", importance=0.5, threat_source="wolves")
        old = {"format": 1, "seeds": [seed_to_document(seed)], "retry_at": {}}
        await engine.store.documents.put(SEEDS_COLLECTION, QUEUE_KEY, old)
    engine = make_engine(tmp_path, quiet=True, db_url=db_url, config=WAITING)
    async with engine.lifespan():
        assert [s.id for s in questgen_of(engine).pending_seeds()] == [seed.id]
        await pipeline_of(engine).stages.seed_store.save()
        doc = await engine.store.documents.get(SEEDS_COLLECTION, QUEUE_KEY)
        assert doc is not None
        assert (doc["format"], doc["seeds"]) == (2, [str(seed.id)])
        assert await engine.store.documents.get(SEEDS_COLLECTION, seed_key(seed.id)) is not None


async def test_a_story_signal_round_trips_as_a_stored_signal(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        seed = seed_for(engine, "hollin")
    original = StorySignal(
        signal_type="THREAT_DETECTED",
        importance=0.7,
        involved_npcs=[seed.primary_npc],
        context={"description": "Wolves took a calf.", "seen": tmp_path},
        situation_key="threat:wolves",
    )
    seed.source_signals = [original]
    doc = seed_to_document(seed)
    back = seed_from_document(doc)
    (signal,) = back.source_signals
    assert isinstance(signal, StoredSignal)
    assert signal.signal_type == "THREAT_DETECTED"
    assert signal.id == original.id
    assert signal.situation_key == "threat:wolves"
    assert signal.involved_npcs == original.involved_npcs
    # A value JSON cannot hold is kept as its text.
    assert signal.context["seen"] == str(tmp_path)
    assert signal.context["description"] == "Wolves took a calf."
    assert seed_to_document(back) == doc


def test_a_seed_document_that_is_not_a_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="primary_npc"):
        seed_from_document({"seed_type": "threat_response"})
