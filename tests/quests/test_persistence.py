"""Rewards exactly once across crashes, and quest state across restarts (both backends)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from kits.engines import qm
from kits.heroes import new_character
from quests.questkit import make_engine, npc, place, quest, start, state

from classic_rpg.components import CharacterStats, Inventory
from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests import QuestError
from classic_rpg.systems.quests.rewards import COLLECTION as TURNINS
from maid_engine.engine import GameEngine
from maid_engine.store import EntityChangeSet
from maid_engine.testing import cmd
from maid_stdlib.questgen.vocabulary import QuestOutcome, QuestState
from maid_stdlib.world.components import Item

YARD = {"objective_id": "yard", "objective_type": "visit", "destination_room_id": "qtest:yard"}
REWARDS = {"experience": 30, "gold": 40, "item_template_ids": ["qtest:ring"]}


async def crash(engine: GameEngine) -> None:
    """Die without engine.stop(): no final checkpoint, the store just goes away."""
    await engine.store.close()


async def started(db_url: str, tmp_path: Path) -> GameEngine:
    engine = make_engine(tmp_path, db_url=db_url)
    await engine.start()
    # Quests registered from code (not pack data) are registered again on each start.
    qm(engine).register_quest(quest("test-quest", YARD, rewards=REWARDS))
    return engine


def wealth(engine: GameEngine, hero: UUID) -> tuple[int, int, list[str]]:
    stats = engine.world.get_component(hero, CharacterStats)
    inv = engine.world.get_component(hero, Inventory)
    templates = [engine.world.get_component(i, Item).template for i in inv.items]
    return stats.experience, stats.gold, templates


async def completed_hero(engine: GameEngine) -> UUID:
    hero = new_character(engine)
    await start(
        engine,
        hero,
        qm(engine).get_quest("test-quest") or quest("test-quest", YARD, rewards=REWARDS),
    )
    await cmd(engine, hero, "north")
    await cmd(engine, hero, "south")
    assert state(engine, hero) is QuestState.COMPLETED
    return hero


async def test_rewards_once_across_a_crash_right_after_turn_in(db_url: str, tmp_path: Path) -> None:
    engine = await started(db_url, tmp_path)
    hero = await completed_hero(engine)
    await engine.checkpoint()
    xp, gold, items = wealth(engine, hero)
    assert await qm(engine).turn_in_quest(hero, "test-quest") is QuestOutcome.PERFECT
    paid = (xp + 30, gold + 40, [*items, "qtest:ring"])
    assert wealth(engine, hero) == paid
    await crash(engine)

    engine = await started(db_url, tmp_path)
    try:
        assert wealth(engine, hero) == paid
        assert state(engine, hero) is QuestState.TURNED_IN
        with pytest.raises(QuestError, match="already turned in"):
            await qm(engine).turn_in_quest(hero, "test-quest")
        out = await cmd(engine, hero, "turnin test-quest")
        assert "already turned in" in out
        assert wealth(engine, hero) == paid
        record = await engine.store.documents.get(TURNINS, f"test-quest:{hero}")
        assert record is not None
        assert record["outcome"] == "perfect"
        assert record["settled"] is True
        assert record["components"] == {}
    finally:
        await engine.stop()


async def test_a_turn_in_is_stored_with_the_other_side_of_a_trade(
    db_url: str, tmp_path: Path
) -> None:
    engine = await started(db_url, tmp_path)
    try:
        hero = await completed_hero(engine)
        bob = new_character(engine, "Bob")
        await engine.checkpoint()
        # Bob gives the hero 5 gold, then the hero turns in: the turn-in pays only her.
        engine.world.get_component(bob, CharacterStats).gold -= 5
        engine.world.get_component(hero, CharacterStats).gold += 5
        hero_gold, bob_gold = (
            engine.world.get_component(u, CharacterStats).gold for u in (hero, bob)
        )
        await qm(engine).turn_in_quest(hero, "test-quest")
        rows = await engine.store.entities.load_all()
        assert rows[hero]["CharacterStats"]["gold"] == hero_gold + 40
        assert rows[bob]["CharacterStats"]["gold"] == bob_gold
        assert await engine.store.documents.get(TURNINS, f"test-quest:{hero}") is not None
    finally:
        await crash(engine)


async def test_a_stale_checkpoint_landing_after_the_turn_in_is_repaired(
    db_url: str, tmp_path: Path
) -> None:
    engine = await started(db_url, tmp_path)
    hero = await completed_hero(engine)
    await engine.checkpoint()
    before: dict[str, Any] | None = await engine.store.entities.load(hero)
    assert before is not None
    xp, gold, items = wealth(engine, hero)
    await qm(engine).turn_in_quest(hero, "test-quest")
    # A checkpoint that collected the character before the turn-in commits after it.
    await engine.store.entities.save(EntityChangeSet(upserts={hero: before}))
    await crash(engine)

    for _ in range(2):  # the repair itself is durable: a second start changes nothing
        engine = await started(db_url, tmp_path)
        try:
            assert wealth(engine, hero) == (xp + 30, gold + 40, [*items, "qtest:ring"])
            assert state(engine, hero) is QuestState.TURNED_IN
            with pytest.raises(QuestError, match="already turned in"):
                await qm(engine).turn_in_quest(hero, "test-quest")
        finally:
            await crash(engine)


async def test_a_failed_write_pays_nothing_and_can_be_retried(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with make_engine(tmp_path, db_url=db_url).lifespan() as engine:
        hero = await completed_hero(engine)
        before = wealth(engine, hero)
        ledger = qm(engine).ledger

        async def broken(*args: Any) -> None:
            raise OSError("disk full")

        monkeypatch.setattr(ledger, "_write", broken)
        with pytest.raises(QuestError, match="could not be recorded just now"):
            await qm(engine).turn_in_quest(hero, "test-quest")
        await engine.dispatch_events()
        assert wealth(engine, hero) == before
        assert state(engine, hero) is QuestState.COMPLETED
        assert [i for i, _ in engine.world.each(Item) if not engine.world.entity_exists(i)] == []
        monkeypatch.undo()
        assert await qm(engine).turn_in_quest(hero, "test-quest") is QuestOutcome.PERFECT
        assert wealth(engine, hero)[:2] == (before[0] + 30, before[1] + 40)


async def test_quest_state_history_and_generated_quests_survive_a_restart(
    db_url: str, tmp_path: Path
) -> None:
    async with make_engine(tmp_path, db_url=db_url).lifespan() as engine:
        manager = qm(engine)
        hero, late = new_character(engine), new_character(engine, "Bob")
        manager.register_generated_quest(quest("gen-1", YARD), seed_type="threat_response")
        manager.register_generated_quest(quest("gen-2", YARD))
        await start(engine, hero, manager.get_quest("gen-1"))  # type: ignore[arg-type]
        manager.offer_quest(late, "gen-2")
        manager.expire_quest("gen-2")
        await engine.checkpoint()
    async with make_engine(tmp_path, db_url=db_url).lifespan() as engine:
        manager = qm(engine)
        gen = manager.get_quest("gen-1")
        assert gen is not None
        assert gen.source == "generated"
        # Their giver has them again (``talk`` asks by giver).
        assert {"gen-1", "gen-2"} <= {q.quest_id for q in manager.quests_from(npc("elder"))}
        assert state(engine, hero, "gen-1") is QuestState.IN_PROGRESS
        assert not manager.is_open("gen-2")
        assert state(engine, late, "gen-2") is QuestState.FAILED
        history = manager.history.get("gen-1")
        assert history is not None
        assert history.seed_type == "threat_response"
        assert manager.history.active_generated_quest_ids() == {"gen-1"}
        # Objectives are still tracked after the restart.
        place(engine, hero, "yard")
        await engine.dispatch_events()
        assert state(engine, hero, "gen-1") is QuestState.COMPLETED
        place(engine, hero, "hall")
        await manager.turn_in_quest(hero, "gen-1")
        run = await engine.store.documents.get("quest_history", f"gen-1:{hero}:1")
        assert run is not None
        assert run["outcome"] == "perfect"
        assert run["accepted_at"] is not None
        assert run["character_id"] == str(hero)
        assert run["finished_at"] is not None
        # Turning it in resolved it, and that survives a restart too.
        assert not manager.is_open("gen-1")
    async with make_engine(tmp_path, db_url=db_url).lifespan() as engine:
        assert qm(engine).registry.status("gen-1") == ("resolved", "turned in by Alice")
        assert not qm(engine).is_open("gen-1")


PELTS = {
    "objective_id": "pelts",
    "objective_type": "collect",
    "item_template": "qtest:pelt",
    "target_count": 2,
}


async def test_gathered_items_change_hands_once_whatever_the_store_does(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a COLLECT gathered goes to the turn-in NPC in the turn-in's own commit:
    a failed write leaves it with the hero, a crash right after finds it with the
    NPC alone (never both, never neither)."""
    engine = await started(db_url, tmp_path)
    qm(engine).register_quest(quest("pelt-quest", PELTS, rewards=REWARDS))
    factory = engine.services.get(ItemFactory)
    hero = new_character(engine)
    pelts = [factory.spawn("qtest:pelt", holder=hero) for _ in range(2)]
    quest_model = qm(engine).get_quest("pelt-quest")
    assert quest_model is not None
    await start(engine, hero, quest_model)
    assert state(engine, hero, "pelt-quest") is QuestState.COMPLETED
    place(engine, hero, "hall")
    elder = npc("elder")
    await engine.checkpoint()

    async def broken(*args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(qm(engine).ledger, "_write", broken)
    with pytest.raises(QuestError, match="could not be recorded just now"):
        await qm(engine).turn_in_quest(hero, "pelt-quest")
    monkeypatch.undo()
    assert sorted(factory.carried(hero)) == sorted(pelts)
    assert factory.count(elder, "qtest:pelt") == 0
    assert all(factory.holder_of(p) == hero for p in pelts)

    await qm(engine).turn_in_quest(hero, "pelt-quest")
    assert factory.count(hero, "qtest:pelt") == 0
    await crash(engine)

    engine = await started(db_url, tmp_path)
    try:
        factory = engine.services.get(ItemFactory)
        assert factory.count(hero, "qtest:pelt") == 0
        assert sorted(p for p in factory.carried(elder) if p in pelts) == sorted(pelts)
        assert all(factory.holder_of(p) == elder for p in pelts)
    finally:
        await crash(engine)
