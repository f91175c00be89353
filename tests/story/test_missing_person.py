"""Missing people, from the living world alone: an NPC whose day takes it where a
threat stands is held there (it will not walk out past the wolves), and after a few
hours the one closest to it raises the alarm: a CRISIS of a missing person, which
quest generation reads as a rescue. Nothing is injected: the schedule, the wolves
and the relationships of Hamlet's data do it."""

from __future__ import annotations

from pathlib import Path

from kits.engines import hamlet_engine, hv, npcs
from kits.heroes import fight, new_hero, place
from kits.quests import SignalLog, build

from maid_engine.clock import GAME_HOUR
from maid_engine.engine import GameEngine
from maid_stdlib.living import Schedule, ScheduleEntry, Stranded
from maid_stdlib.living.api import get_relationship
from maid_stdlib.questgen import ObjectiveType
from maid_stdlib.story import StorySignal
from maid_stdlib.story.missing import MISSING_AFTER_HOURS, MISSING_TRUST
from maid_stdlib.world import WorldService

COPSE = "hamlet:road_copse"
HUT = "hamlet:warden_hut"


def missing(signals: SignalLog) -> list[StorySignal]:
    return [s for s in signals.of("CRISIS") if s.context.get("crisis_type") == "missing person"]


async def run_until(engine: GameEngine, done: object, hours: int) -> None:
    for _ in range(hours * 6):
        await engine.run_ticks(10)
        if callable(done) and done():
            return


async def test_held_by_the_wolves_then_missed_then_a_rescue(tmp_path: Path) -> None:
    engine = hamlet_engine(tmp_path, rpg=True)
    async with engine.lifespan():
        signals = SignalLog(engine)
        ws = engine.services.get(WorldService)
        tamsin = hv("tamsin")
        # Her round today takes her down to the copse where the wolves are, and
        # home again at noon.
        engine.world.add_component(
            tamsin,
            Schedule([ScheduleEntry(0, HUT), ScheduleEntry(8, COPSE), ScheduleEntry(12, HUT)]),
        )
        await run_until(engine, lambda: bool(missing(signals)), 36)

        alarm = missing(signals)
        assert len(alarm) == 1, signals.signals
        signal = alarm[0]
        # Still where the wolves hold her, and remembered as held since she wanted to go.
        assert ws.room_key_of(tamsin) == COPSE
        held = engine.world.get_component(tamsin, Stranded)
        assert held.room == COPSE
        assert held.source == "wolves"
        hour = (held.since % (24 * GAME_HOUR)) // GAME_HOUR
        assert hour >= 12, "held from when her day called her home"
        assert engine.clock.game_time - held.since >= MISSING_AFTER_HOURS * GAME_HOUR
        # The alarm names real, live people: the one who misses her first, then her.
        reporter, victim = signal.involved_npcs
        assert victim == tamsin
        assert reporter != tamsin
        assert engine.world.entity_exists(reporter)
        for a, b in ((reporter, tamsin), (tamsin, reporter)):
            rel = get_relationship(engine.world, a, b)
            assert rel is not None
            assert rel.trust >= MISSING_TRUST
        assert signal.context["victim"] == str(tamsin)
        assert signal.context["affected_area_key"] == COPSE
        assert signal.context["threat_source"] == "wolves"

        # Quest generation reads it as a rescue: find her, deal with the wolves,
        # bring her to the one who asked.
        quest = await build(engine, [signal])
        assert quest.archetype_id == "rescue_mission"
        assert quest.quest_giver_id == reporter
        escort = [o for o in quest.objectives if o.objective_type is ObjectiveType.ESCORT]
        assert [o.target_entity_id for o in escort] == [tamsin]

        # Once the wolves are dead she walks home by herself, and is no longer held.
        hero = new_hero(engine)
        place(engine, hero, COPSE)
        for wolf in [w for w in npcs(engine, "wolf") if ws.room_key_of(w) == COPSE]:
            if engine.world.entity_exists(wolf):
                await fight(engine, hero, "wolf")
        await run_until(engine, lambda: ws.room_key_of(tamsin) != COPSE, 3)
        assert ws.room_key_of(tamsin) != COPSE
        assert not engine.world.has_component(tamsin, Stranded)


async def test_nobody_is_held_where_no_threat_stands(tmp_path: Path) -> None:
    engine = hamlet_engine(tmp_path, rpg=True)
    async with engine.lifespan():
        signals = SignalLog(engine)
        ws = engine.services.get(WorldService)
        tamsin = hv("tamsin")
        bridge = "hamlet:road_bridge"  # on the road, but the wolves are further down
        engine.world.add_component(
            tamsin,
            Schedule([ScheduleEntry(0, HUT), ScheduleEntry(8, bridge), ScheduleEntry(12, HUT)]),
        )
        await run_until(engine, None, 30)
        assert not missing(signals)
        assert not engine.world.has_component(tamsin, Stranded)
        assert ws.room_key_of(tamsin) is not None
