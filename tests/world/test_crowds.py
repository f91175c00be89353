"""Crowds: a summarised ``look``, ``look crowd`` / ``who here``, comings and goings
batched per tick in a crowded room, and ``who``'s rows kept for a tick."""

from __future__ import annotations

import time
from uuid import UUID

import pytest
from kits.engines import ws_of
from kits.heroes import new_character
from world.worldkit import connect, disconnect

from maid_engine.engine import GameEngine
from maid_engine.english import english
from maid_engine.events import CharacterConnectedEvent
from maid_engine.testing import cmd, session_for
from maid_stdlib.world.crowd import CROWD_HINT, TELL_SLICE, crowd_phrase, plural_phrase
from maid_stdlib.world.gmcp import ROOM_INFO, ROOM_PLAYERS, GmcpFeeds
from maid_stdlib.world.pager import PAGE_LENGTH_KEY
from maid_stdlib.world.who import Title, WhoList

NAMES = [
    "Ann", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo",
    "Kit", "Lou", "Max", "Ned", "Oz", "Pia", "Quin", "Rex", "Sal", "Tom",
]  # fmt: skip


def crowd(engine: GameEngine, names: list[str]) -> list[UUID]:
    """Characters online on the green (in this order), their output cleared."""
    heroes = [new_character(engine, name) for name in names]
    for uid in heroes:
        session_for(engine, uid).sent.clear()
    return heroes


def sent(engine: GameEngine, uid: UUID) -> list[str]:
    return session_for(engine, uid).sent


def arrivals(engine: GameEngine, uid: UUID) -> list[str]:
    return [line for line in sent(engine, uid) if " arrive" in line]


def test_crowd_phrases_name_two_and_count_the_rest() -> None:
    assert crowd_phrase(["Ann"], 1) == "Ann"
    assert crowd_phrase(["Ann", "Bo"], 2) == "Ann and Bo"
    assert crowd_phrase(["Ann", "Bo", "Cy"], 3) == "Ann, Bo and Cy"
    assert crowd_phrase(["Ann", "Bo", "Cy"], 996) == "Ann, Bo and 994 others"
    assert plural_phrase("arrives from the north") == "arrive from the north"
    assert plural_phrase("has left the game") == "have left the game"
    assert plural_phrase("leaves via the gate") == "leave via the gate"


async def test_a_crowded_room_names_two_and_counts_the_others(engine: GameEngine) -> None:
    ws = ws_of(engine)
    assert ws.crowd_size == 12
    heroes = crowd(engine, NAMES)
    tom = heroes[-1]
    text = await cmd(engine, tom, "look")
    assert f"Ann, Bo and 17 others are here. {CROWD_HINT}" in text
    assert "Cy is here." not in text
    # The NPCs and things of the green are listed as in a quiet room.
    ws.crowd_size = 1000
    full = await cmd(engine, tom, "look")
    ws.crowd_size = 12
    others = [ln for ln in full.split("\n")[3:] if ln.removesuffix(" is here.") not in NAMES]
    assert others
    assert all(ln in text.split("\n") for ln in others)
    # One of the two named reads the line without themselves.
    assert "Bo, Cy and 17 others are here." in await cmd(engine, heroes[0], "look")
    assert "Ann, Cy and 17 others are here." in await cmd(engine, heroes[1], "look")
    # Everyone past the two named reads the same text (one render for the crowd).
    assert await cmd(engine, heroes[5], "look") == text


async def test_at_the_crowd_size_everyone_is_still_listed(engine: GameEngine) -> None:
    heroes = crowd(engine, NAMES[:12])  # the crowd size: the viewer and 11 others
    text = await cmd(engine, heroes[-1], "look")
    assert "others are here" not in text
    assert all(f"{name} is here." in text for name in NAMES[:11])
    # One more and the room is a crowd.
    crowd(engine, ["Zoe"])
    assert "Ann, Bo and 10 others are here." in await cmd(engine, heroes[-1], "look")


async def test_look_crowd_and_who_here_list_everyone_a_page_at_a_time(
    engine: GameEngine,
) -> None:
    heroes = crowd(engine, NAMES)
    tom = heroes[-1]
    text = await cmd(engine, tom, "look crowd")
    assert text.startswith("|cHere with you (19 players):|n")
    assert "Ann, Bo, Cy" in text
    assert "Sal." in text
    assert "Tom" not in text
    assert await cmd(engine, tom, "who here") == text
    # A short page: the pager holds the rest.
    session = session_for(engine, tom)
    session.caps.width = 40
    session.data[PAGE_LENGTH_KEY] = 2
    first = await cmd(engine, tom, "look crowd")
    assert first.endswith("-- more -- (type 'more' or 'next')")
    rest = await cmd(engine, tom, "more all")
    assert "Sal." in rest
    # Alone, there is nobody to list.
    alone = new_character(engine, "Una")
    ws_of(engine).move(alone, "hamlet:mill")
    assert (await cmd(engine, alone, "look crowd")).startswith("No other players are here.")


async def test_arrivals_in_a_crowd_are_told_once_per_tick(engine: GameEngine) -> None:
    ws = ws_of(engine)
    heroes = crowd(engine, NAMES)
    newcomers = crowd(engine, ["Vic", "Wes", "Xan", "Yul", "Zoe"])
    for uid in newcomers:
        ws.move(uid, "hamlet:warden_hut")
    await engine.dispatch_events()
    for uid in heroes + newcomers:
        sent(engine, uid).clear()
    for uid in newcomers:
        await cmd(engine, uid, "south")
    # Nothing yet: the crowd hears about them at the end of the tick, in one line.
    # (The villagers' nods to a newcomer are the ambient talk's, on its own budget.)
    assert [arrivals(engine, uid) for uid in heroes] == [[]] * len(heroes)
    await engine.tick()
    line = "Vic, Wes and 3 others arrive from the north."
    assert all(arrivals(engine, uid) == [line] for uid in heroes)
    # A newcomer reads about the others, not themselves.
    assert arrivals(engine, newcomers[0]) == ["Wes, Xan and 2 others arrive from the north."]
    assert arrivals(engine, newcomers[4]) == ["Vic, Wes and 2 others arrive from the north."]
    # Nothing is left for the next tick.
    for uid in heroes:
        sent(engine, uid).clear()
    await engine.tick()
    assert all(arrivals(engine, uid) == [] for uid in heroes)


async def test_a_stream_of_arrivals_is_told_at_most_once_a_second(engine: GameEngine) -> None:
    # A login storm: one newcomer a tick into a crowd. Told every tick, it would
    # be a line (and a prompt) a tick to everyone there.
    ws = ws_of(engine)
    gap = ws.announcements.GAP_TICKS
    heroes = crowd(engine, NAMES)
    newcomers = crowd(engine, [f"Vis{letter}" for letter in "abcdefghijklmnopqrstuvwxyz"])
    for uid in newcomers:
        ws.move(uid, "hamlet:warden_hut")
    await engine.dispatch_events()
    for uid in heroes + newcomers:
        sent(engine, uid).clear()
    told: list[list[str]] = []
    for uid in newcomers[: gap + 2]:
        await cmd(engine, uid, "south")
        await engine.tick()
        told.append(arrivals(engine, heroes[0]))
        sent(engine, heroes[0]).clear()
    # The first at the end of its tick; the next ones wait out the gap, then all
    # of them in one line.
    assert told[0] == ["Visa arrives from the north."]
    assert told[1:gap] == [[]] * (gap - 1)
    assert told[gap] == [f"Visb, Visc and {gap - 2} others arrive from the north."]
    assert told[gap + 1] == []
    # Every other hero heard the same two lines and nothing more of them.
    assert all(arrivals(engine, uid) == told[0] + told[gap] for uid in heroes[1:])


async def test_a_crowds_telling_inflects_each_phrase_once(
    engine: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each mover reads a line of their own (the others, not themselves): the plural
    # verb is the same for all of them and is found once, not once per mover.
    from maid_stdlib.world import crowd as crowd_module

    inflected: list[str] = []
    engine_inflect = english()
    plural_verb = engine_inflect.plural_verb

    def counted(verb: str, *args: object) -> str:
        inflected.append(verb)
        return plural_verb(verb)

    monkeypatch.setattr(engine_inflect, "plural_verb", counted)
    crowd_module.plural_phrase.cache_clear()
    ws = ws_of(engine)
    heroes = crowd(engine, NAMES)
    newcomers = crowd(engine, [f"Vis{letter}" for letter in "abcdefghijklmnopqrstuvwxyz"])
    for uid in newcomers:
        ws.move(uid, "hamlet:warden_hut")
    await engine.dispatch_events()
    for uid in newcomers:
        await cmd(engine, uid, "south")
    ws.announcements.flush()
    assert arrivals(engine, heroes[0])[-1] == "Visa, Visb and 24 others arrive from the north."
    assert arrivals(engine, newcomers[0])[-1] == "Visb, Visc and 23 others arrive from the north."
    # Once each for 26 movers: "leaves" in the hut they left (also a crowd), and
    # "arrives" in the square.
    assert sorted(inflected) == ["arrives", "leaves"]


async def test_departures_and_logins_in_a_crowd_are_batched_by_phrase(
    engine: GameEngine,
) -> None:
    ws = ws_of(engine)
    heroes = crowd(engine, NAMES)
    stayer = heroes[-1]
    await cmd(engine, heroes[0], "north")
    await cmd(engine, heroes[1], "north")
    await cmd(engine, heroes[2], "east")
    sent(engine, stayer).clear()
    assert ws.announcements.pending == 1
    sent_lines = ws.announcements.flush()
    assert sent(engine, stayer) == ["Ann and Bo leave north.", "Cy leaves east."]
    # 17 left on the green read both lines; nobody who left reads them.
    assert sent_lines == 17 * 2
    assert all("leave" not in "".join(sent(engine, uid)) for uid in heroes[:3])


async def test_a_quiet_room_is_told_at_once(engine: GameEngine) -> None:
    heroes = crowd(engine, NAMES[:5])
    await cmd(engine, heroes[0], "north")
    assert sent(engine, heroes[1]) == ["Ann leaves north."]
    assert ws_of(engine).announcements.pending == 0


async def test_who_rows_are_kept_and_refreshed_a_share_a_tick(engine: GameEngine) -> None:
    heroes = crowd(engine, NAMES[:3])
    listing = engine.services.get(WhoList)
    levels = dict.fromkeys(heroes, 1)
    calls: list[UUID] = []

    def level(uid: UUID) -> int:
        calls.append(uid)
        return levels.get(uid, 1)

    listing.level_of = level
    first = await cmd(engine, heroes[0], "who")
    assert "3 players online." in first
    assert len(calls) == 3
    assert await cmd(engine, heroes[1], "who") == first
    assert len(calls) == 3  # the same tick: the rows were kept
    # A title shows at once.
    await cmd(engine, heroes[0], "title the brave")
    assert "Ann the brave" in await cmd(engine, heroes[1], "who")
    assert len(calls) == 6
    # Someone coming online shows at once.
    crowd(engine, ["Dee"])
    assert "4 players online." in await cmd(engine, heroes[1], "who")
    # A level changing by other means shows within KEEP_TICKS ticks: each tick
    # reads a share of the rows again, and no `who` reads them all.
    levels[heroes[2]] = 9
    n = len(calls)
    for _ in range(listing.KEEP_TICKS):
        before = len(calls)
        await cmd(engine, heroes[1], "who")
        assert len(calls) == before  # the `who` itself read no row
        await engine.tick()
        assert len(calls) - before == 1  # one row of four a tick: all in four ticks
    assert len(calls) == n + listing.KEEP_TICKS
    text = await cmd(engine, heroes[1], "who")
    assert text.splitlines()[1] == "  [  9] Cy"  # highest level first
    # A layer that knows a row changed says so: that row alone is read again.
    levels[heroes[0]] = 12
    listing.refresh(heroes[0])
    n = len(calls)
    assert (await cmd(engine, heroes[1], "who")).splitlines()[1] == "  [ 12] Ann the brave"
    assert len(calls) == n + 1
    # Nobody asking for a while: the refresh stops (and the rows are let go).
    for _ in range(listing.IDLE_TICKS + 1):
        await engine.tick()
    quiet = len(calls)
    for _ in range(listing.KEEP_TICKS):
        await engine.tick()
    assert len(calls) == quiet
    assert "[  9] Cy" in await cmd(engine, heroes[1], "who")
    assert len(calls) == quiet + 4  # built afresh
    assert engine.world.get_component(heroes[0], Title).text == "the brave"


async def test_a_kept_who_listing_reads_only_the_idle_times_again(engine: GameEngine) -> None:
    heroes = crowd(engine, NAMES[:3])
    asked: list[UUID] = []

    def hero(uid: UUID) -> bool:
        asked.append(uid)
        return True

    engine.services.get(WhoList).add_flag("hero", hero, "Hero")
    first = await cmd(engine, heroes[0], "who")
    assert len(asked) == 3
    session_for(engine, heroes[2]).data["last_input"] = time.time() - 5 * 60 - 3
    again = await cmd(engine, heroes[0], "who")
    assert len(asked) == 3  # no row made again
    assert again != first
    assert f"  {NAMES[2]} |y[Hero]|n (idle 5m)" in again.splitlines()


@pytest.mark.parametrize("size", [0, 3])
async def test_the_crowd_size_is_a_setting_of_the_world_service(
    engine: GameEngine, size: int
) -> None:
    ws = ws_of(engine)
    ws.crowd_size = size
    heroes = crowd(engine, NAMES[:5])
    text = await cmd(engine, heroes[-1], "look")
    assert "Ann, Bo and 2 others are here." in text


async def test_gmcp_room_players_are_built_only_for_clients_that_take_them(
    engine: GameEngine,
) -> None:
    # In a crowd every arrival changes Room.Players for everyone there: building
    # (and JSON-encoding) a thousand-name list for a thousand clients that refused
    # GMCP was most of a tick.
    heroes = crowd(engine, NAMES)
    feeds = engine.services.get(GmcpFeeds)
    feeds.flush()
    for uid in heroes:
        session_for(engine, uid).caps.gmcp = False
        session_for(engine, uid).gmcp.clear()
    crowd(engine, ["Zoe"])
    feeds.mark(ROOM_PLAYERS, heroes)
    assert feeds.flush() == 0
    assert all(session_for(engine, uid).gmcp == [] for uid in heroes)
    session_for(engine, heroes[0]).caps.gmcp = True
    feeds.mark(ROOM_PLAYERS, heroes)
    assert feeds.flush() == 1
    assert [p for p, _ in session_for(engine, heroes[0]).gmcp] == [ROOM_PLAYERS]


async def test_a_player_coming_or_going_is_one_small_gmcp_message_to_each_there(
    engine: GameEngine,
) -> None:
    # Every arrival in a crowd used to send the room's whole Room.Players, and
    # Room.Info with it, to everyone there: a thousand-name list built, encoded and
    # sent to each of a thousand clients.
    ws = ws_of(engine)
    heroes = crowd(engine, NAMES)
    await engine.tick()
    for uid in heroes:
        session_for(engine, uid).gmcp.clear()
    zoe = new_character(engine, "Zoe", online=False)
    s_zoe = await connect(engine, zoe)
    await engine.tick()
    added = ("Room.AddPlayer", {"name": "Zoe", "fullname": "Zoe"})
    assert all(session_for(engine, uid).gmcp == [added] for uid in heroes)
    # A new connection to Zoe (a takeover) is nobody new in the room.
    for uid in heroes:
        session_for(engine, uid).gmcp.clear()
    await engine.events.publish(CharacterConnectedEvent(zoe, s_zoe.id, takeover=True))
    assert all(session_for(engine, uid).gmcp == [] for uid in heroes)
    # Whoever cannot see Zoe is not told she left.
    ann = heroes[0]
    ws.visibility_checks.append(lambda viewer, target: not (viewer == ann and target == zoe))
    ws.move(zoe, "hamlet:mill_lane")
    await engine.dispatch_events()
    await engine.tick()
    assert session_for(engine, ann).gmcp == []
    assert all(
        session_for(engine, uid).gmcp == [("Room.RemovePlayer", "Zoe")] for uid in heroes[1:]
    )
    assert [p for p, _ in s_zoe.gmcp][-2:] == [ROOM_INFO, ROOM_PLAYERS]


async def test_a_ticks_comings_and_goings_reach_gmcp_clients_at_its_end_in_order(
    engine: GameEngine,
) -> None:
    # A login storm into a crowd walked the whole crowd for every newcomer, inside
    # the step that puts the newcomer into the game: now the room's people are
    # looked up once a tick for all its comings and goings.
    heroes = crowd(engine, NAMES)
    await engine.tick()
    for uid in heroes:
        session_for(engine, uid).gmcp.clear()
    feeds = engine.services.get(GmcpFeeds)
    asked: list[UUID] = []
    takes = feeds.takes

    def counted(character: UUID, package: str) -> bool:
        if package == "Room.AddPlayer":
            asked.append(character)
        return takes(character, package)

    feeds.takes = counted  # type: ignore[method-assign]
    zoe = new_character(engine, "Zoe", online=False)
    yan = new_character(engine, "Yan", online=False)
    await connect(engine, zoe)
    s_yan = await connect(engine, yan)
    await disconnect(engine, s_yan)
    # Nothing before the end of the tick, and nobody in the room asked about yet.
    assert all(session_for(engine, uid).gmcp == [] for uid in heroes)
    assert asked == []
    await engine.tick()
    # One walk of the room for the three: each there asked once.
    assert sorted(asked) == sorted([*heroes, zoe])
    told = [
        ("Room.AddPlayer", {"name": "Zoe", "fullname": "Zoe"}),
        ("Room.AddPlayer", {"name": "Yan", "fullname": "Yan"}),
        ("Room.RemovePlayer", "Yan"),
    ]
    assert all(session_for(engine, uid).gmcp == told for uid in heroes)
    # Zoe, who came in the same tick, was sent the room's whole list when she
    # arrived; she is told of Yan (after it), not of those already in her list.
    assert [m for m in session_for(engine, zoe).gmcp if m in told or m[0] == "Room.AddPlayer"] == [
        told[1],
        told[2],
    ]


async def test_someone_sent_the_whole_list_after_an_arrival_is_not_told_it_again(
    engine: GameEngine,
) -> None:
    ws = ws_of(engine)
    heroes = crowd(engine, NAMES[:3])
    await engine.tick()
    zoe = new_character(engine, "Zoe", online=False)
    await connect(engine, zoe)
    # Ann walks out and back in before the tick ends: she is sent the green's
    # whole list (Zoe in it) on coming back, and Zoe's arrival is not repeated.
    ann = heroes[0]
    ws.move(ann, "hamlet:mill_lane")
    await engine.dispatch_events()
    ws.move(ann, "hamlet:green")
    await engine.dispatch_events()
    session_for(engine, ann).gmcp.clear()
    session_for(engine, heroes[1]).gmcp.clear()
    await engine.tick()
    added = ("Room.AddPlayer", {"name": "Zoe", "fullname": "Zoe"})
    assert added not in session_for(engine, ann).gmcp
    assert added in session_for(engine, heroes[1]).gmcp


async def test_a_crowd_is_told_a_slice_at_a_time_with_commands_let_in_between(
    engine: GameEngine,
) -> None:
    # A line to a thousand people is milliseconds of work: the tick tells a slice
    # of them, then lets the players' commands in (lend_point), then the next.
    ws = ws_of(engine)
    names = [f"{first}{second}" for first in NAMES[:5] for second in ("ba", "ce", "di", "fo")]
    heroes = crowd(engine, NAMES + names + ["Zed"])
    zed, leaver = heroes[-1], heroes[-2]
    assert len(heroes) > TELL_SLICE
    ws.announcements.announce("hamlet:green", zed, "Zed", "arrives from the north")
    pauses: list[int] = []

    async def pause() -> None:
        pauses.append(len([uid for uid in heroes if arrivals(engine, uid)]))
        if len(pauses) == 1:
            # A command run here takes someone not told yet out of the room.
            ws.move(leaver, "hamlet:mill_lane")

    # Its gap has not begun: due at this tick.
    told = await ws.announcements.tell_due(pause)
    assert pauses == [TELL_SLICE, len(heroes) - 2]
    assert told == len(heroes) - 2  # not Zed, who arrived; not who left meanwhile
    assert arrivals(engine, heroes[0]) == ["Zed arrives from the north."]
    assert arrivals(engine, leaver) == []
