"""What survives a restart: the generated_quests side-table, the QuestHistory, the
characters' play profiles and their pending deliveries."""

from __future__ import annotations

from pathlib import Path

from kits.engines import qg_of, qm, questgen_of
from questgen_system.qskit import make_engine, move, online, seed_for, tracker_of, until

from maid_engine.events import CharacterConnectedEvent
from maid_engine.testing import session_for
from maid_stdlib.living.gossip import KnownGossip
from maid_stdlib.questgen.personalization import PlayStyle
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod


async def test_open_quests_history_profiles_and_pending_deliveries_survive_a_restart(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        for uid, _ in list(engine.world.each(KnownGossip)):
            engine.world.remove_component(uid, KnownGossip)
        system = questgen_of(engine)
        hero, _ = await online(engine, "Aldric", room="hamlet:mill", level=4)
        system.record_play(hero, PlayStyle.COMBAT, 4.0)
        await move(engine, hero, "mill_lane")
        system.enqueue(seed_for(engine, "hollin", importance=0.6))
        await until(engine, lambda: bool(system.open_quests()))
        [quest_id] = list(system.open_quests())
        pending = system.pending_deliveries(hero)[quest_id]
        assert pending.method is QuestDeliveryMethod.NOTICE_BOARD
        await system.flush()
        doc = await engine.store.documents.get(GENERATED_QUESTS_COLLECTION, quest_id)
        assert doc is not None
        for key in (
            "seed_id",
            "seed_type",
            "archetype_id",
            "importance",
            "consequences",
            "failure_consequences",
            "branches",
            "chain_potential",
            "chain_depth",
            "grounding_score",
            "coherence_score",
            "novelty_score",
        ):
            assert key in doc, key
        assert "wolf" in doc["delivery"]["topics"]

    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        system = questgen_of(engine)
        assert list(system.open_quests()) == [quest_id]
        entry = qg_of(engine).history.get(quest_id)
        assert entry is not None
        assert entry.active
        assert entry.region == "ashford"
        assert tracker_of(engine).style_of(hero) is PlayStyle.COMBAT
        assert system.pending_deliveries(hero)[quest_id].method is QuestDeliveryMethod.NOTICE_BOARD
        session = session_for(engine, hero)
        engine.events.emit(CharacterConnectedEvent(hero, session.id))
        await engine.dispatch_events()
        await move(engine, hero, "green")
        assert qm(engine).is_open(quest_id)
        from maid_engine.testing import cmd

        assert "signed by Hollin" in await cmd(engine, hero, "read board")
        assert qm(engine).entry(hero, quest_id) is not None


async def test_an_accepted_quest_is_still_open_after_a_restart(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        system = questgen_of(engine)
        hero, _ = await online(engine, "Aldric", room="hamlet:mill", level=4)
        system.enqueue(seed_for(engine, "hollin"))
        await until(engine, lambda: bool(system.open_quests()))
        [quest_id] = list(system.open_quests())
        await qm(engine).accept_quest(hero, quest_id)
        await engine.dispatch_events()
        assert system.unaccepted_quests() == 0
        await system.flush()
    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        system = questgen_of(engine)
        assert list(system.open_quests()) == [quest_id]
        assert system.unaccepted_quests() == 0
        assert qg_of(engine).history.count_active_in_region("ashford") == 1
