"""QuestHistory: what it records, queries, and persistence."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from questgen.qgkit import Town, iron_quest

from maid_engine.clock import GAME_HOUR
from maid_engine.store import Store
from maid_stdlib.questgen import QuestHistory


async def test_record_uses_the_quests_seed_type_and_importance(town: Town) -> None:
    quest = await iron_quest(town)
    entry = town.qg.record(quest)
    assert entry.seed_type == quest.seed_type == "threat_response"
    assert entry.importance == quest.importance != quest.grounding_score
    assert entry.quest_giver_id == town.hilda
    assert entry.character_id is None
    assert entry.outcome is None
    assert entry.created_at == town.now
    assert entry.objective_pattern == "clear"
    assert entry.requires_combat
    assert (entry.area, entry.region) == ("brookhaven:woods", "wilds")
    assert entry.source == "generated"


async def test_queries_by_npc_type_activity_and_region(town: Town) -> None:
    quest = await iron_quest(town)
    history = town.qg.history
    town.qg.record(quest)
    assert history.recent_quest_from_npc(town.hilda, GAME_HOUR, town.now)
    assert not history.recent_quest_from_npc(town.tam, GAME_HOUR, town.now)
    town.skip(GAME_HOUR + 1)
    assert not history.recent_quest_from_npc(town.hilda, GAME_HOUR, town.now)
    second = dataclasses.replace(quest, id="gen-b-2", seed_type="mystery")
    town.qg.record(second)
    assert history.recent_types(5) == ["mystery", "threat_response"]
    assert history.recent_types(1) == ["mystery"]
    assert history.active_generated_quest_ids() == {quest.id, "gen-b-2"}
    assert history.count_active_in_region("wilds") == 2
    history.mark_offered(quest.id, town.tam)
    assert history.count_pending_offers(town.tam) == 1
    history.mark_accepted(quest.id, town.tam, town.now)
    assert history.count_pending_offers(town.tam) == 0
    assert history.get(quest.id).accepted_at == town.now  # type: ignore[union-attr]
    history.mark_finished(quest.id, "completed", town.now + 5)
    entry = history.get(quest.id)
    assert entry is not None
    assert entry.outcome == "completed"
    assert entry.completed_at
    assert history.active_generated_quest_ids() == {"gen-b-2"}
    history.mark_finished("gen-b-2", "expired", town.now)
    assert history.get("gen-b-2").completed_at is None  # type: ignore[union-attr]


async def test_chains_follow_chain_parent_id(town: Town) -> None:
    quest = await iron_quest(town)
    history = town.qg.history
    town.qg.record(quest)
    child = dataclasses.replace(quest, id="gen-c-1", chain_parent_id=quest.id, chain_depth=1)
    town.qg.record(child)
    grandchild = dataclasses.replace(quest, id="gen-c-2", chain_parent_id="gen-c-1", chain_depth=2)
    town.qg.record(grandchild)
    assert [e.quest_id for e in history.chain_of("gen-c-2")] == [quest.id, "gen-c-1", "gen-c-2"]
    assert history.get("gen-c-2").chain_parent_id == "gen-c-1"  # type: ignore[union-attr]


async def test_history_persists_in_the_quest_history_collection(town: Town, tmp_path: Path) -> None:
    quest = await iron_quest(town)
    town.qg.record(quest)
    # An accepted quest must still load (its acceptance is not a character_id,
    # which in this shared collection marks a QuestManager run entry).
    town.qg.history.mark_offered(quest.id, town.tam)
    town.qg.history.mark_accepted(quest.id, town.tam, town.now)
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'h.db'}")
    await store.open()
    try:
        await store.documents.ensure_collection("quest_history")
        # A QuestManager run entry in the same collection is not a generated quest.
        await store.documents.put(
            "quest_history",
            f"{quest.id}:x:1",
            {"quest_id": quest.id, "character_id": str(town.tam), "source": "generated"},
        )
        assert await town.qg.history.flush(store.documents) == 1
        assert town.qg.history.pending == 0
        loaded = QuestHistory()
        assert await loaded.load(store.documents) == 1
        assert loaded.get(quest.id) == town.qg.history.get(quest.id)
        assert loaded.get(quest.id).accepted_by == [town.tam]  # type: ignore[union-attr]
    finally:
        await store.close()
