"""Quests finished 30 game days ago leave the working history and their
side-table documents go; their history records stay in the store (analytics), and
a quest still open or an ancestor of a kept chain stays."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

from kits.engines import qg_of, questgen_of
from questgen_system.qskit import make_engine, pipeline_of, seed_for, ticks, until

from maid_engine.clock import GAME_DAY, ManualClock
from maid_stdlib.questgen.history import RETENTION, QuestHistory, QuestHistoryEntry
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION


def entry(history: QuestHistory, quest_id: str, **kw: object) -> None:
    history._put(
        QuestHistoryEntry(
            quest_id=quest_id,
            seed_type="threat_response",
            archetype_id="threat_elimination",
            quest_giver_id=uuid4(),
            **kw,  # type: ignore[arg-type]
        )
    )


def test_prune_forgets_long_finished_quests_but_not_open_ones_or_kept_ancestors() -> None:
    assert RETENTION == 30 * GAME_DAY
    history = QuestHistory()
    now = 40 * GAME_DAY
    entry(history, "old-done", outcome="completed", finished_at=5 * GAME_DAY)
    entry(history, "old-open", created_at=1 * GAME_DAY)
    entry(history, "recent-done", outcome="failed", finished_at=20 * GAME_DAY)
    entry(history, "root", outcome="completed", finished_at=2 * GAME_DAY)
    entry(history, "middle", outcome="completed", finished_at=3 * GAME_DAY, chain_parent_id="root")
    entry(history, "leaf", created_at=39 * GAME_DAY, chain_parent_id="middle", chain_depth=2)
    assert history.prune(now) == ["old-done"]
    assert {e.quest_id for e in history.entries()} == {
        "old-open",
        "recent-done",
        "root",
        "middle",
        "leaf",
    }
    assert [e.quest_id for e in history.chain_of("leaf")] == ["root", "middle", "leaf"]
    history.mark_finished("leaf", "completed", now)
    assert history.prune(now + RETENTION + 1) == ["leaf", "middle", "recent-done", "root"]
    assert history.prune(now + RETENTION + 1) == []


async def test_the_generation_system_prunes_and_deletes_the_side_table_document(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        system = questgen_of(engine)
        system.enqueue(seed_for(engine, "hollin", importance=0.6))
        await until(engine, lambda: bool(system.open_quests()))
        [quest_id] = list(system.open_quests())
        await system.flush()
        documents = engine.store.documents
        assert await documents.get(GENERATED_QUESTS_COLLECTION, quest_id) is not None
        history = qg_of(engine).history
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        history.mark_finished(quest_id, "completed", clock.game_time)
        clock.skip(RETENTION - GAME_DAY)
        await ticks(engine, 3)
        await system.flush()
        assert history.get(quest_id) is not None  # 29 days: kept
        clock.skip(2 * GAME_DAY)
        await ticks(engine, 3)
        await system.flush()
        assert history.get(quest_id) is None
        assert quest_id not in pipeline_of(engine).stages.open_quests
        assert await documents.get(GENERATED_QUESTS_COLLECTION, quest_id) is None
        # the history record itself stays for analytics
        records = await documents.query("quest_history", {"record_kind": "generation"})
        assert quest_id in {r["quest_id"] for r in records}
