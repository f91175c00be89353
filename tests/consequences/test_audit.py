"""The audit collection and durability of consequences (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, living_of
from kits.heroes import new_hero
from kits.quests import accept, consequences_of, deliver, simple_quest, trust

from maid_engine.engine import GameEngine
from maid_stdlib.consequences import AUDIT_COLLECTION, ConsequencesAppliedEvent, WorldMutationBatch
from maid_stdlib.living import MemoryVisibility
from maid_stdlib.questgen.events import QuestTurnedInEvent
from maid_stdlib.questgen.vocabulary import QuestOutcome


async def test_applied_batches_are_audited_with_the_entities_they_changed(
    tmp_path: Path, db_url: str
) -> None:
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        hollin = hv("hollin")
        hero = new_hero(engine)
        await engine.save_entities_now(hero)
        quest_id = await deliver(engine, simple_quest(engine))
        await accept(engine, hero, quest_id)
        engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.COMPLETED))
        await engine.dispatch_events()

        docs = await engine.store.documents.query(AUDIT_COLLECTION, {"quest_id": quest_id})
        assert len(docs) == 1
        doc = docs[0]
        assert doc["status"] == "applied"
        assert doc["outcome"] == "completed"
        assert doc["character_ids"] == [str(hero)]
        assert doc["attempts"] == 1
        kinds = [m["mutation_type"] for m in doc["mutations"]]
        assert kinds == [
            "npc_need_satisfy",
            "relationship_change",
            "relationship_change",
            "faction_standing",
            "gossip_injection",
            "memory_creation",
            "world_state",
            "memory_creation",  # Warden Tamsin's, as a witness
        ]
        key = consequences_of(engine).audit_key(quest_id, [hero], 1, QuestOutcome.COMPLETED)
        assert await engine.store.documents.get(AUDIT_COLLECTION, key) == doc

        # In the same transaction, before any checkpoint: Hollin's new view of the hero.
        stored = await engine.store.entities.load_all()
        rel = stored[hollin]["Relationships"]["entries"][str(hero)]
        assert rel["trust"] == pytest.approx(0.3)
        assert stored[hero]["FactionStandings"]["standings"]["hamlet"] == pytest.approx(0.1)

    # After a restart the world remembers, and the same event changes nothing twice.
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        applied: list[ConsequencesAppliedEvent] = []
        engine.events.subscribe(ConsequencesAppliedEvent, applied.append)
        assert trust(engine, hollin, hero) == pytest.approx(0.3)
        memory = living_of(engine).memory.get_recent(hollin, 1, MemoryVisibility.PUBLIC)[0]
        assert memory.content == "A stranger spoke to Tamsin for me."
        engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.COMPLETED))
        await engine.dispatch_events()
        assert not applied
        assert trust(engine, hollin, hero) == pytest.approx(0.3)


async def test_failed_batches_are_audited_and_counted(tmp_path: Path, db_url: str) -> None:
    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        hollin = hv("hollin")
        hero = new_hero(engine)
        quest_id = await deliver(engine, simple_quest(engine))
        await accept(engine, hero, quest_id)
        system = consequences_of(engine)

        def conflict(batch: WorldMutationBatch, attempt: int) -> None:
            system.versions.bump(hollin)  # Hollin changed under the batch

        system.before_apply.append(conflict)
        result = await system.on_turned_in(quest_id, hero, QuestOutcome.COMPLETED, run=1)
        assert result is not None
        assert result.status == "conflict"
        doc = await engine.store.documents.get(AUDIT_COLLECTION, result.audit_key)
        assert doc is not None
        assert doc["status"] == "conflict"
        assert doc["mutations"] == []
        assert doc["attempts"] == 2
        assert len(doc["errors"]) == 2
        # a failed batch does not block a later, successful one
        system.before_apply.clear()
        again = await system.on_turned_in(quest_id, hero, QuestOutcome.COMPLETED, run=1)
        assert again is not None
        assert again.status == "applied"
        doc = await engine.store.documents.get(AUDIT_COLLECTION, result.audit_key)
        assert doc is not None
        assert doc["status"] == "applied"


async def test_a_follow_up_waiting_for_the_wolves_survives_a_restart(
    tmp_path: Path, db_url: str
) -> None:
    from maid_stdlib.questgen import ConsequenceType, ObjectiveType, QuestConsequence
    from maid_stdlib.questgen import QuestObjective as Objective
    from maid_stdlib.world import NPC, spawn_template

    def wolves(engine: GameEngine) -> list[UUID]:
        world = engine.world
        return [u for u, n in world.each(NPC) if n.template in ("hamlet:wolf", "hamlet:old_grey")]

    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        hero = new_hero(engine)
        old_grey = hv("old_grey")
        quest = simple_quest(
            engine,
            "road-clearing",
            chain_potential=0.6,
            objectives=[
                Objective(
                    id="o1-kill",
                    objective_type=ObjectiveType.KILL,
                    description="Defeat Old Grey",
                    target="Old Grey",
                    target_entity_id=old_grey,
                    target_entity_ids=[old_grey],
                    target_location="hamlet:wolf_den",
                )
            ],
            consequences=[
                QuestConsequence(
                    consequence_type=ConsequenceType.WORLD_STATE,
                    world_state_key="threat:wolves:hamlet:mill_road",
                    world_state_value="cleared",
                )
            ],
        )
        await deliver(engine, quest)
        for uid in wolves(engine):
            engine.world.destroy_entity(uid)
        engine.world.flush_destroyed()
        engine.events.emit(QuestTurnedInEvent(quest.id, hero, QuestOutcome.COMPLETED))
        await engine.dispatch_events()
        system = consequences_of(engine)
        assert [s.context["chain_type"] for s in system.pending.signals()] == ["retaliation"]
        await engine.run_ticks(1)  # writes it in the background
        await system.shutdown()  # and waits for the write

    async with hamlet_engine(tmp_path, rpg=True, db_url=db_url).lifespan() as engine:
        from maid_stdlib.consequences import QuestChainEvent

        chains: list[QuestChainEvent] = []
        engine.events.subscribe(QuestChainEvent, chains.append)
        system = consequences_of(engine)
        assert [s.context["previous_quest_id"] for s in system.pending.signals()] == [
            "road-clearing"
        ]
        if not wolves(engine):
            spawn_template(engine, "hamlet:wolf", "hamlet:road_copse")
        await engine.run_ticks(2)
        assert [c.chain_type for c in chains] == ["retaliation"]
        assert not system.pending.signals()
        await engine.run_ticks(1)
        await system.shutdown()
        assert await engine.store.documents.query("quest_chains") == []
