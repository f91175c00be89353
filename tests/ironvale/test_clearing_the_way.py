"""A quest in stages on Ironvale: Gundrik's iron goal, blocked by the bandits on the
road, becomes "Clearing the Way" (the multi-stage pattern): first the bandits, then
the iron brought back. The second stage stays locked, and out of the quest log,
until the first is done."""

from __future__ import annotations

from pathlib import Path

from ironvale.ironkit import ironvale_engine
from kits.engines import npc
from kits.narrators import EchoNarrator

from classic_rpg.components import CharacterStats
from classic_rpg.events import TalkedToEvent
from classic_rpg.systems.quests import QuestManager
from maid_engine.accounts import CharacterFactory
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.questgen import ObjectiveType, QuestGen, QuestSeed
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.story import StorySignal
from maid_stdlib.text import plural
from maid_stdlib.world import WorldService
from maid_stdlib.world.events import EntityDiedEvent


async def _seed(engine: GameEngine) -> QuestSeed:
    """Gundrik's blocked goal and the bandits on the road, as the story layer
    signals them (from real state)."""
    gundrik = npc(engine, "ironvale:gundrik")
    goal = engine.world.get_component(gundrik, GoalsComponent).get("source_iron")
    assert goal is not None
    assert goal.status == "blocked"
    blocked = StorySignal(
        "GOAL_BLOCKED",
        0.8,
        [gundrik],
        context={
            "blocked_goal": goal.description,
            "blocked_goal_id": goal.id,
            "blocker": goal.blocker,
            "threat_source": goal.blocker_source,
            "npc_id": str(gundrik),
        },
    )
    threat = StorySignal(
        "THREAT_DETECTED",
        0.6,
        [npc(engine, "ironvale:selena"), npc(engine, "ironvale:voss")],
        context={
            "threat_source": "bandits",
            "threat_location": "ironvale:road_wagon",
            "threat_rooms": ["ironvale:road_wagon", "ironvale:bandit_camp"],
        },
    )
    (seed,) = await engine.services.get(QuestGen).composer().compose([blocked, threat])
    return seed


async def test_gundriks_iron_becomes_a_quest_in_two_stages(tmp_path: Path) -> None:
    async with ironvale_engine(tmp_path).lifespan() as engine:
        await engine.run_ticks(5 * 60)
        qg = engine.services.get(QuestGen)
        seed = await _seed(engine)
        # What the goal is after is a thing one can carry: iron ore.
        assert seed.threat_source == "bandits"
        assert seed.item_template is not None
        assert "iron" in seed.item_template
        archetype = qg.archetypes.get("clearing_the_way")
        assert archetype is not None
        builder = qg.builder(EchoNarrator())
        plan = await builder.prepare(seed, archetype)
        assert not isinstance(plan, Rejection), plan
        quest = builder.finish(plan, await EchoNarrator().generate(plan.context))
        assert not isinstance(quest, Rejection), quest
        stages = list(dict.fromkeys(o.stage for o in quest.objectives))
        assert stages == [
            "Stage 1 of 2: Deal with the bandits",
            f"Stage 2 of 2: Bring back {_plural_ore(engine, seed)}",
        ]
        assert qg.sink is not None
        qg.sink.register(quest)
        qg.record(quest)

        manager = engine.services.get(QuestManager)
        factory = engine.services.get(CharacterFactory)  # type: ignore[type-abstract]
        hero = factory.create_character("Aria", "acct")
        engine.world.get_component(hero, CharacterStats).level = 6
        ws = engine.services.get(WorldService)
        ws.move(hero, "ironvale:smithy")
        manager.offer_quest(hero, quest.id)
        await manager.accept_quest(hero, quest.id)
        log = await cmd(engine, hero, "quests")
        assert "Stage 1 of 2: Deal with the bandits" in log
        assert f"Stage 2 of 2: Bring back {_plural_ore(engine, seed)} [locked]" in log
        collect = next(o for o in quest.objectives if o.objective_type is ObjectiveType.COLLECT)
        assert collect.description not in log  # a locked stage is one line

        # Stage 1, played: its talk, its journey, its kills.
        entry = manager.entry(hero, quest.id)
        assert entry is not None
        first = [o for o in quest.objectives if o.stage == stages[0]]
        for o in first:
            if o.objective_type is ObjectiveType.TALK:
                assert o.target_entity_id is not None
                engine.events.emit(TalkedToEvent(hero, o.target_entity_id, "here"))
                await engine.dispatch_events()
            elif o.objective_type is ObjectiveType.VISIT:
                assert o.target_location is not None
                ws.move(hero, o.target_location)
                await engine.dispatch_events()
            elif o.objective_type is ObjectiveType.KILL:
                for foe in o.target_entity_ids:
                    template = o.target_template or ""
                    engine.events.emit(EntityDiedEvent(foe, hero, "here", template))
                await engine.dispatch_events()
        assert all(entry.objectives[o.id].completed for o in first if not o.optional)
        assert not entry.objectives[collect.id].completed
        assert entry.objectives[collect.id].unlocked
        assert entry.state is QuestState.IN_PROGRESS
        log = await cmd(engine, hero, "quests")
        assert "[locked]" not in log.split("Stage 2 of 2")[1].splitlines()[0]
        assert collect.description in log


def _plural_ore(engine: GameEngine, seed: QuestSeed) -> str:
    assert seed.item_template is not None
    return plural(engine.services.get(QuestGen).facts.item_name(seed.item_template))


async def test_the_ore_hilde_wants_is_ore_not_the_empty_crate(tmp_path: Path) -> None:
    """Hilde's goal is after "ore": a thing one can come by (the seam ore left in
    the deep seam), not the empty ore crate by the smithy door, which nobody can
    carry off (a quest for it had nothing to build on)."""
    from maid_stdlib.questgen.contract import _item_template

    async with ironvale_engine(tmp_path).lifespan() as engine:
        facts = engine.services.get(QuestGen).facts
        assert facts.items_with_template("ironvale:ore_crate")  # it lies about
        assert not facts.item_obtainable("ironvale:ore_crate")
        # The ore cut before the crawlers came lies in the deep seam.
        assert _item_template(facts, "ore") == "ironvale:seam_ore"
        assert _item_template(facts, "iron") == "ironvale:iron_ore"
        assert _item_template(facts, "timber") == "ironvale:timber_bundle"


async def test_hildes_ore_lies_past_the_crawlers_and_kral_s_does_not(tmp_path: Path) -> None:
    """The crawlers keep Hilde from the deep seam: clearing the way is dealing with
    them, then bringing back the seam ore cut before they came, which lies there.
    Once that ore is gone, only ore Kral carries is left, at the other end of the
    valley: no reason to clear the mine, and no quest in stages is built."""
    async with ironvale_engine(tmp_path).lifespan() as engine:
        hilde = npc(engine, "ironvale:hilde")
        for _ in range(48):
            await engine.run_ticks(60)
            goals = engine.world.try_component(hilde, GoalsComponent)
            goal = goals.get("reopen_deep_seam") if goals is not None else None
            if goal is not None and goal.status == "blocked":
                break
        else:
            raise AssertionError("Hilde's goal was never blocked by the crawlers")
        qg = engine.services.get(QuestGen)
        blocked = StorySignal(
            "GOAL_BLOCKED",
            0.8,
            [hilde],
            context={
                "blocked_goal": goal.description,
                "blocked_goal_id": goal.id,
                "blocker": goal.blocker,
                "threat_source": goal.blocker_source,
                "npc_id": str(hilde),
            },
        )
        seed = await qg.evaluator().evaluate(blocked)
        assert not isinstance(seed, Rejection), seed
        assert seed.item_template == "ironvale:seam_ore"
        assert seed.threat_source
        archetype = qg.archetypes.get("clearing_the_way")
        assert archetype is not None
        builder = qg.builder(EchoNarrator())
        plan = await builder.prepare(seed, archetype)
        assert not isinstance(plan, Rejection), plan
        stages = list(dict.fromkeys(o.stage for o in plan.objectives))
        assert (stages[0] or "").startswith("Stage 1 of 2: Deal with")
        assert stages[1] == "Stage 2 of 2: Bring back lumps of seam ore"
        collect = next(o for o in plan.objectives if o.objective_type is ObjectiveType.COLLECT)
        assert collect.target_location == "ironvale:deep_seam"
        assert collect.quantity == 3

        # One lump brought to Hilde for another quest: it exists, in her hands, but
        # nobody can bring it back, so the quest asks for the two still lying there.
        lumps = qg.facts.items_with_template("ironvale:seam_ore")
        engine.services.get(WorldService).remove_from_world(lumps[0], "given")
        plan = await builder.prepare(seed, archetype)
        assert not isinstance(plan, Rejection), plan
        collect = next(o for o in plan.objectives if o.objective_type is ObjectiveType.COLLECT)
        assert collect.quantity == 2
        assert len(qg.facts.items_with_template("ironvale:seam_ore")) == 3

        # Another open quest sends someone for one of the two: this one asks for
        # the other; when both are spoken for, nothing is built on them.
        assert qg.facts.item_claims  # the pipeline's open quests and builds count
        assert qg.facts.items_to_spare("ironvale:seam_ore") == 2  # none of them fetch ore
        claims = {"ironvale:seam_ore": 1}
        qg.facts.item_claims.append(lambda template: claims.get(template, 0))
        plan = await builder.prepare(seed, archetype)
        assert not isinstance(plan, Rejection), plan
        collect = next(o for o in plan.objectives if o.objective_type is ObjectiveType.COLLECT)
        assert collect.quantity == 1
        claims["ironvale:seam_ore"] = 2
        assert qg.facts.items_to_spare("ironvale:seam_ore") == 0
        assert isinstance(await builder.prepare(seed, archetype), Rejection)
        qg.facts.item_claims.pop()

        # The seam ore carried off, the ore left is Kral's, far from the mine.
        for uid in qg.facts.items_with_template("ironvale:seam_ore"):
            engine.world.destroy_entity(uid)
        seed.item_template = "ironvale:iron_ore"
        assert qg.facts.item_obtainable("ironvale:iron_ore")
        plan = await builder.prepare(seed, archetype)
        assert isinstance(plan, Rejection)
