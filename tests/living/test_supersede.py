"""Facts supersede facts: the latest news about a subject is what NPCs know and say,
and a faction players drove off stays away until it regroups (with a rumour and a
story signal first), while plain creatures respawn as before."""

from __future__ import annotations

from pathlib import Path

from kits.engines import hamlet_engine, hv, living_of, npcs, room_key
from kits.heroes import fight, new_hero, walk
from kits.quests import SignalLog

from maid_engine.clock import ManualClock
from maid_engine.testing import cmd
from maid_stdlib.consequences.kinds import WorldState
from maid_stdlib.consequences.mutations import MutationEnv, WorldMutation
from maid_stdlib.living import gossip
from maid_stdlib.living.gossip import KnownGossip
from maid_stdlib.living.regroup import ThreatRegroupedEvent, ThreatRegroupingEvent

WOLVES = "threat:wolves:hamlet:mill_road"


async def test_newer_news_of_a_subject_replaces_the_older(tmp_path: Path) -> None:
    engine = hamlet_engine(tmp_path)
    async with engine.lifespan():
        world = engine.world
        marta, pell = hv("marta"), hv("pell")
        gossip.observe(
            world,
            marta,
            WOLVES,
            "Wolves have been seen on the mill road.",
            10.0,
            subject=WOLVES,
            tags=["threat", "wolves"],
        )
        gossip.retell(
            world, marta, pell, world.get_component(marta, KnownGossip).items[WOLVES], 11.0
        )
        cleared = "An adventurer cleared the wolves from the mill road"
        gossip.inject(world, [marta], "quest:q1", cleared, 20.0, subject=WOLVES)
        said = " ".join(living_of(engine).gossip_lines(marta))
        assert cleared in said
        assert "Wolves have been seen" not in said
        # Old news retold afterwards does not bring the threat back ...
        old = world.get_component(pell, KnownGossip).items[WOLVES]
        assert not gossip.retell(world, pell, marta, old, 30.0)
        assert WOLVES not in world.get_component(marta, KnownGossip).items
        # ... and the cleared news, told on, replaces what Pell knew (an older fact).
        news = world.get_component(marta, KnownGossip).items["quest:q1"]
        assert gossip.retell(world, marta, pell, news, 31.0)
        assert list(world.get_component(pell, KnownGossip).items) == ["quest:q1"]
        # Seen again with her own eyes later: the threat is the latest fact.
        gossip.observe(
            world,
            marta,
            WOLVES,
            "Wolves have been seen on the mill road.",
            40.0,
            subject=WOLVES,
            tags=["threat", "wolves"],
        )
        assert list(world.get_component(marta, KnownGossip).items) == [WOLVES]
        # Unrelated news of the same moment (no subject) is kept side by side.
        gossip.inject(world, [marta], "a", "The inn has new cider.", 40.0)
        gossip.inject(world, [marta], "b", "Hollin's cart is mended.", 40.0)
        assert {"a", "b", WOLVES} <= set(world.get_component(marta, KnownGossip).items)


async def test_a_driven_off_faction_stays_away_until_it_regroups(tmp_path: Path) -> None:
    engine = hamlet_engine(tmp_path, rpg=True, tick=60.0)
    async with engine.lifespan():
        clock = engine.clock
        assert isinstance(clock, ManualClock)
        living = living_of(engine)
        signals = SignalLog(engine)
        rumours: list[ThreatRegroupingEvent] = []
        back: list[ThreatRegroupedEvent] = []
        engine.events.subscribe(ThreatRegroupingEvent, rumours.append)
        engine.events.subscribe(ThreatRegroupedEvent, back.append)
        await engine.run_ticks(60)  # an hour: the warden has seen the wolves
        hero = new_hero(engine)
        await walk(engine, hero, room_key(engine, "road_copse"))
        await fight(engine, hero, "wolf")
        await fight(engine, hero, "wolf")
        await walk(engine, hero, room_key(engine, "wolf_den"))
        await fight(engine, hero, "grey")
        assert not npcs(engine, "wolf")
        assert not npcs(engine, "old_grey")
        # Home to the inn: waiting in the den, the hero would meet the pack's return.
        await walk(engine, hero, room_key(engine, "inn"))
        # The quest consequence that says the players cleared them.
        env = MutationEnv(engine.world, clock.game_time, living)
        mutation = WorldMutation("world_state", None, WOLVES, None, payload={"value": "cleared"})
        assert WorldState().apply(env, mutation) is not None
        entry = living.clearances.get(WOLVES)
        assert entry is not None
        assert entry.regroup_at is not None
        # A cleared faction: no wolf after the respawn times (30 min, 2 h) nor for days.
        clock.tick_game_seconds = 600.0
        await engine.run_ticks(6 * 24 * 2)  # two days
        assert not npcs(engine, "wolf")
        assert not npcs(engine, "old_grey")
        assert not rumours
        # Half a day before they are back, the rumour spreads and the story hears of it.
        await engine.run_ticks(6 * 13)
        assert [r.threat_key for r in rumours] == [WOLVES]
        assert rumours[0].told
        teller = rumours[0].told[0]
        said = " ".join(living.gossip_lines(teller))
        assert "Travellers speak of the wolf pack gathering again near the Mill Road" in said
        assert not npcs(engine, "wolf")
        await engine.run_ticks(6 * 24)  # past the third day
        assert [b.threat_key for b in back] == [WOLVES]
        assert len(npcs(engine, "wolf")) == 2
        assert len(npcs(engine, "old_grey")) == 1
        assert living.clearances.get(WOLVES) is None
        assert any(s.signal_type == "THREAT_REGROUPING" for s in signals.signals)
        await engine.run_ticks(6)
        # The warden sees them back: that sighting is now the latest news.
        said = " ".join(living.gossip_lines(hv("tamsin")))
        assert "The wolf pack has been seen on the Mill Road" in said
        assert "gathering again" not in said


async def test_plain_creatures_respawn_as_before(tmp_path: Path) -> None:
    engine = hamlet_engine(tmp_path, rpg=True, tick=60.0)
    async with engine.lifespan():
        hero = new_hero(engine)
        await walk(engine, hero, room_key(engine, "road_copse"))
        await fight(engine, hero, "wolf")
        assert len(npcs(engine, "wolf")) == 1
        await walk(engine, hero, room_key(engine, "green"))
        # Not cleared by a quest: a pack wolf is back after its respawn time.
        await engine.run_ticks(31)
        assert len(npcs(engine, "wolf")) == 2
        # A threat that is no faction's is not held at all.
        assert living_of(engine).clearances.clear("threat:hostiles:hamlet:mill_road", 0.0) is None
        await walk(engine, hero, room_key(engine, "road_copse"))
        assert "Two grey wolves slink" in await cmd(engine, hero, "look")
