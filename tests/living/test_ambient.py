"""Ambient life: NPCs greet arrivals, talk about their latest facts, react to deaths,
news and goals, only where someone is online and within each room's budget."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any
from uuid import uuid4

from kits.engines import living_of
from kits.heroes import new_character, place
from living.livingkit import LIVING, hamlet_pack, make_engine, npc

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.living import gossip
from maid_stdlib.living.ambient import Ambient, AmbientSystem, speech_verb
from maid_stdlib.living.api import add_goal
from maid_stdlib.living.components import Goal
from maid_stdlib.living.events import GoalStatusChangedEvent, ThreatObservedEvent
from maid_stdlib.world.events import EntityDiedEvent

THREAT = "threat:bandits:hamlet:mill_road"


def _living(**ambient: Any) -> dict[str, Any]:
    data = copy.deepcopy(LIVING)
    data["ambient"] = {"interval": 600, "budget": 3, "window": 1440, **ambient}
    data["npcs"]["marta"] = {"relationships": {"pell": {"trust": 0.6, "affinity": 0.5}}}
    data["npcs"]["pell"] = {
        "relationships": {"marta": {"trust": -0.4, "kind": "rival", "cause": "an old debt"}}
    }
    return data


def _engine(tmp_path: Path, **ambient: Any) -> GameEngine:
    return make_engine(tmp_path, [hamlet_pack(tmp_path / "pack", _living(**ambient))])


def system(engine: GameEngine) -> AmbientSystem:
    found = engine.get_system(AmbientSystem)
    assert isinstance(found, AmbientSystem)
    return found


async def test_people_talk_about_their_latest_news_where_someone_listens(
    tmp_path: Path,
) -> None:
    engine = _engine(tmp_path)
    async with engine.lifespan():
        world = engine.world
        marta, pell = npc(engine, "marta"), npc(engine, "pell")
        place(engine, marta, "hamlet:inn")
        place(engine, pell, "hamlet:inn")
        gossip.observe(
            world,
            marta,
            THREAT,
            "Bandits are on the mill road.",
            10.0,
            subject=THREAT,
            tags=["threat"],
        )
        gossip.inject(
            world, [marta], "q1", "An adventurer cleared the bandits", 20.0, subject=THREAT
        )
        said = system(engine).ambient.said
        # Nobody online in the inn: nothing is said, whatever the time.
        await engine.run_ticks(120)
        assert said == []
        alice = new_character(engine)
        place(engine, alice, "hamlet:inn")
        await engine.dispatch_events()
        await engine.run_ticks(72)  # 72 game minutes: three real minutes by default
        lines = [t for _, t in said]
        assert len(lines) >= 3, lines
        talk = " ".join(lines)
        # The latest fact is told, never the one it replaced.
        assert "An adventurer cleared the bandits" in talk
        assert "Bandits are on the mill road" not in talk
        assert "exchange sharp words (an old debt)" in talk or "shares a joke" in talk
        # No topic twice in a row of lines, and the budget holds in every window.
        assert len(set(lines)) == len(lines)
        # What Alice saw is what was said (a FakeSession keeps it).
        session = session_for(engine, alice)
        assert all(line in session.text() for line in lines)


async def test_the_budget_caps_a_room(tmp_path: Path) -> None:
    engine = _engine(tmp_path, interval=1, budget=2, window=1440)
    async with engine.lifespan():
        ambient = system(engine).ambient
        now = engine.clock.game_time
        assert [ambient.spend("hamlet:mill", now) for _ in range(3)] == [True, True, False]
        assert not ambient.spend("hamlet:mill", now + 100)
        assert ambient.spend("hamlet:mill", now + 720)  # half a window: one line back
        assert ambient.spend("hamlet:green", now)  # other rooms have their own
        marta, pell = npc(engine, "marta"), npc(engine, "pell")
        for uid in (marta, pell):
            place(engine, uid, "hamlet:inn")
        alice = new_character(engine)
        place(engine, alice, "hamlet:inn")
        await engine.dispatch_events()
        before = len(ambient.said)
        await engine.run_ticks(24)  # one window: at most two lines (the greeting counts)
        in_window = [t for r, t in ambient.said[before:] if r == "hamlet:inn"]
        assert 1 <= len(in_window) <= 2


async def test_greetings_and_reactions(tmp_path: Path) -> None:
    engine = _engine(tmp_path, interval=10**9, budget=10)  # reactions only
    async with engine.lifespan():
        ambient: Ambient = system(engine).ambient
        marta = npc(engine, "marta")
        place(engine, marta, "hamlet:inn")
        alice = new_character(engine)
        place(engine, alice, "hamlet:inn")  # put there: no one greets
        await engine.dispatch_events()
        assert not [t for _, t in ambient.said if "Alice" in t]
        place(engine, alice, "hamlet:green")
        seen = await cmd(engine, alice, "east")  # walking in: greeted
        greeting = ambient.said[-1][1]
        assert "looks up and nods to Alice." in greeting or "looks up as Alice arrives." in greeting
        # Alice herself is greeted in the second person, never by her own name.
        assert "nods to you." in seen or "as you arrive" in seen
        assert "Alice" not in seen
        # Not again on the way back in within the hour.
        await cmd(engine, alice, "west")
        await cmd(engine, alice, "east")
        assert len([t for r, t in ambient.said if r == "hamlet:inn" and "Alice" in t]) == 1
        engine.events.emit(EntityDiedEvent(npc(engine, "pell"), None, "hamlet:inn"))
        await engine.dispatch_events()
        assert ambient.said[-1][1].startswith("Marta stares at the body of")
        gossip.observe(
            engine.world,
            marta,
            THREAT,
            "Bandits are on the mill road.",
            engine.clock.game_time,
            subject=THREAT,
            tags=["threat"],
        )
        engine.events.emit(ThreatObservedEvent(marta, THREAT, "bandits", "hamlet:road_copse"))
        await engine.dispatch_events()
        # News of a threat is a warning: no oath in it, so no "curses".
        assert ambient.said[-1][1] == 'Marta warns: "Bandits are on the mill road."'
        # Warned once, the news is not the room's talk again straight after.
        talk = [ambient.talk_line("hamlet:inn", engine.clock.game_time) for _ in range(12)]
        assert not [line for line in talk if line and "mill road" in line]
        hollin = npc(engine, "hollin")
        place(engine, hollin, "hamlet:inn")
        engine.events.emit(GoalStatusChangedEvent(hollin, "get_iron", "blocked", "done"))
        await engine.dispatch_events()
        assert "done, at last" not in ambient.said[-1][1]  # no such goal: nothing to say
        add_goal(engine.world, hollin, Goal("get_iron", "ACQUIRE", "Get iron", 0.8))
        engine.events.emit(GoalStatusChangedEvent(hollin, "get_iron", "blocked", "done"))
        await engine.dispatch_events()
        assert ambient.said[-1][1] == 'Hollin looks relieved. "Get iron: done, at last."'
        # A body already taken away is named as the death had it, never by its id.
        pell = npc(engine, "pell")
        engine.events.emit(EntityDiedEvent(pell, None, "hamlet:inn", name="Pell"))
        engine.events.emit(EntityDiedEvent(uuid4(), None, "hamlet:inn"))  # nameless, gone
        engine.world.destroy_entity(pell)
        engine.world.flush_destroyed()
        count = len(ambient.said)
        await engine.dispatch_events()
        [(_, line)] = ambient.said[count:]
        assert line in ("Marta stares at the body of Pell.", "Hollin stares at the body of Pell.")
        # Elsewhere, with nobody to see it, nothing is said.
        count = len(ambient.said)
        engine.events.emit(EntityDiedEvent(hollin, None, "hamlet:mill"))
        await engine.dispatch_events()
        assert len(ambient.said) == count
        assert living_of(engine).ambient.budget == 10  # from the data


async def test_a_greeting_is_for_the_one_who_comes_in(tmp_path: Path) -> None:
    engine = _engine(tmp_path, interval=10**9, budget=10)  # reactions only
    async with engine.lifespan():
        place(engine, npc(engine, "marta"), "hamlet:inn")
        bob = new_character(engine, "Bob")
        place(engine, bob, "hamlet:inn")
        alice = new_character(engine)
        place(engine, alice, "hamlet:green")
        await engine.dispatch_events()
        session_for(engine, bob).take()
        seen = await cmd(engine, alice, "east")
        assert "nods to you." in seen or "as you arrive" in seen
        # Bob, already there, reads Alice arriving but no greeting meant for her.
        heard = session_for(engine, bob).take()
        assert "Alice" in heard  # the arrival itself
        assert "nods to" not in heard, heard
        assert "looks up as" not in heard, heard
        # Greeted once per cooldown, however often she comes and goes.
        await cmd(engine, alice, "west")
        again = await cmd(engine, alice, "east")
        assert "nods to you" not in again
        assert "as you arrive" not in again


def test_the_speech_verb_fits_the_line() -> None:
    assert speech_verb("Bandits have been seen on the Mill Road.") == "warns"
    assert speech_verb("Damn those bandits, they took the ore.") == "curses"
    assert speech_verb("Has anyone seen the wolves?") == "asks"
    assert speech_verb("The wolves are at the gate!") == "exclaims"
    assert speech_verb("The bandits are gone from the road.", cleared=True) == "sighs with relief"


async def test_an_arrival_is_not_greeted_with_news_it_was_told_today(tmp_path: Path) -> None:
    # A newcomer heard the same "Bandits have been seen ..." rumour from nearly
    # everyone they walked in on, many times each.
    engine = _engine(tmp_path, interval=10**9, budget=10)
    async with engine.lifespan():
        ambient: Ambient = system(engine).ambient
        marta, hollin = npc(engine, "marta"), npc(engine, "hollin")
        alice = new_character(engine)
        now = engine.clock.game_time
        for who in (marta, hollin):
            gossip.inject(engine.world, [who], "road", "Bandits are on the mill road.", now)
        item = ambient.news_for(marta, alice, now)
        assert item is not None
        assert item.id == "road"
        # Told by Marta (greeting or talk): Hollin does not greet her with it again.
        gossip.told_to(engine.world, alice).told["road"] = now
        assert ambient.news_for(hollin, alice, now) is None
        # A day on it may come up again.
        assert ambient.news_for(hollin, alice, now + gossip.RETELL_TO_PLAYER_AFTER) is not None
        # News of her own deed is never her greeting.
        gossip.inject(
            engine.world, [hollin], "deed", "An adventurer helped Hollin.", now, doer=str(alice)
        )
        assert ambient.news_for(hollin, alice, now) is None
        bob = new_character(engine, "Bob")
        assert ambient.news_for(hollin, bob, now) is not None
