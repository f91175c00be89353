"""A generated quest's progression mode comes from its archetype: the fights a
group takes on together (threat elimination, rescue, clearing the way) are
shared credit, so a kill counts for every group member present who holds the
quest; the rest stay individual."""

from __future__ import annotations

from pathlib import Path

from kits.engines import qm, questgen_of
from questgen_system.qskit import make_engine, online, seed_for, ticks

from classic_rpg.events import TalkedToEvent
from classic_rpg.questgen.archetypes import rpg_archetypes
from maid_engine.testing import cmd
from maid_stdlib.questgen import ObjectiveType, ProgressionMode
from maid_stdlib.world import WorldService
from maid_stdlib.world.events import EntityDiedEvent

SHARED = {"threat_elimination", "rescue_mission", "clearing_the_way"}


def test_the_group_fights_are_shared_credit() -> None:
    modes = {a.archetype_id: a.progression for a in rpg_archetypes()}
    assert {k for k, m in modes.items() if m is ProgressionMode.SHARED_CREDIT} == SHARED
    assert all(modes[k] is ProgressionMode.INDIVIDUAL for k in modes.keys() - SHARED)


async def test_a_group_shares_the_kills_of_a_generated_threat_quest(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        system = questgen_of(engine)
        system.enqueue(seed_for(engine, "hollin", importance=0.9))
        await ticks(engine, 3)
        (oq,) = system.open_quests().values()
        quest = oq.quest
        assert quest.archetype_id == "threat_elimination"
        assert quest.progression_mode is ProgressionMode.SHARED_CREDIT
        manager = qm(engine)
        assert manager.get_quest(quest.id).progression_mode is ProgressionMode.SHARED_CREDIT  # type: ignore[union-attr]
        alice, _ = await online(engine, "Alice", room="mill", level=5)
        bob, _ = await online(engine, "Bob", room="mill", level=5)
        for c in (alice, bob):
            manager.offer_quest(c, quest.id)
            await manager.accept_quest(c, quest.id)
        await cmd(engine, bob, "follow alice")
        assert await cmd(engine, alice, "group bob") == "Bob joins your group."
        kill = next(o for o in quest.objectives if o.objective_type is ObjectiveType.KILL)
        ws = engine.services.get(WorldService)
        for c in (alice, bob):  # the steps before the fight, each their own
            for o in quest.objectives:
                if o.order >= kill.order:
                    continue
                if o.objective_type is ObjectiveType.TALK:
                    assert o.target_entity_id is not None
                    engine.events.emit(TalkedToEvent(c, o.target_entity_id, "here"))
                elif o.objective_type is ObjectiveType.VISIT:
                    assert o.target_location is not None
                    ws.move(c, o.target_location)
                await engine.dispatch_events()
        assert kill.target_location is not None
        for c in (alice, bob):
            ws.move(c, kill.target_location)
        await engine.dispatch_events()
        wolf = kill.target_entity_ids[0]
        engine.events.emit(
            EntityDiedEvent(wolf, alice, kill.target_location, kill.target_template or "")
        )
        await engine.dispatch_events()
        for c in (alice, bob):
            entry = manager.entry(c, quest.id)
            assert entry is not None
            assert entry.objectives[kill.id].count == 1, c
