"""A crafting request arises in Ironvale by itself: Captain Voss comes to want
swords for the watch, Gundrik forges them from iron, and the iron road is cut.
Nothing is injected: time passes, the story layer notices, the pipeline makes a
crafting_request quest of it (bring Gundrik ore), and the order resolves once
the road is clear."""

from __future__ import annotations

from pathlib import Path

from ironvale.ironkit import ironvale_engine, iv
from kits.engines import living_of, questgen_of
from kits.quests import SignalLog

from classic_rpg.questgen.crafting import SIGNAL_TYPE, crafts_of
from classic_rpg.shops.components import Shop
from maid_engine.engine import GameEngine
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType, QuestGen, QuestSeedTypes
from maid_stdlib.story import StorySituationResolvedEvent


async def test_voss_wants_swords_and_gundrik_needs_ore(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path)
    resolved: list[StorySituationResolvedEvent] = []
    engine.events.subscribe(StorySituationResolvedEvent, resolved.append)
    async with engine.lifespan():
        log = SignalLog(engine)
        voss, gundrik = iv("voss"), iv("gundrik")
        shop = engine.world.get_component(gundrik, Shop)
        (craft,) = crafts_of(gundrik, shop)
        assert (craft.product, craft.material) == ("ironvale:iron_shortsword", "ironvale:iron_ore")
        # A day passes: the watch's want grows into a goal; the road stays cut.
        await _hours(engine, 24)
        goals = engine.world.get_component(voss, GoalsComponent)
        assert [g.id for g in goals.open_goals()] == ["arm_the_watch"]
        (signal,) = log.of(SIGNAL_TYPE)
        assert signal.involved_npcs == [gundrik, voss]
        assert signal.context["product"] == "ironvale:iron_shortsword"
        assert signal.context["material"] == "ironvale:iron_ore"
        assert "bandits" in signal.context["blocker"]

        # The pipeline makes a quest of it: given by the smith, for the captain
        # (as soon as the smith is free of his own request, if he has one, and
        # the day's quests and his share of them leave room: a chain's follow-up
        # keeps a full day and may come first, so this can take up to three days).
        system = questgen_of(engine)
        quests: list[GeneratedQuest] = []
        for _ in range(72):
            quests = [
                oq.quest for oq in system.open_quests().values() if oq.quest.seed_type == CRAFTING
            ]
            if quests:
                break
            await _hours(engine, 1)
        (quest,) = quests
        assert quest.archetype_id == "supply_chain"
        assert quest.quest_giver_id == gundrik
        kinds = [(o.objective_type, o.item_template or o.target) for o in quest.objectives]
        assert (ObjectiveType.COLLECT, "ironvale:iron_ore") in kinds
        assert (ObjectiveType.DELIVER, "ironvale:iron_ore") in kinds
        tell = [o for o in quest.objectives if o.target_entity_id == voss]
        assert [o.objective_type for o in tell] == [ObjectiveType.TALK]
        qg = engine.services.get(QuestGen)
        assert qg.facts.item_obtainable("ironvale:iron_ore")  # Kral carries some

        # The bandits die: iron comes up the road again and the order resolves.
        living = living_of(engine)
        for uid, _source in list(living.threat_map().by_room.get("ironvale:road_wagon", [])):
            engine.world.destroy_entity(uid)
        await engine.dispatch_events()
        await engine.run_ticks(2 * 60)
        assert any(e.situation_key.startswith(f"craft:{voss}") for e in resolved)


CRAFTING = QuestSeedTypes.CRAFTING_REQUEST


async def _hours(engine: GameEngine, hours: int) -> None:
    """Run the world, letting each tick's quest builds finish (as the real loop's
    sleeps do)."""
    system = questgen_of(engine)
    for _ in range(hours * 60):
        await engine.tick()
        await system.drain()
