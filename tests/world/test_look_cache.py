"""The cached room listing of ``look`` reads exactly as the uncached one did."""

from __future__ import annotations

import random
from uuid import UUID

import pytest
from kits.engines import ws_of
from kits.heroes import new_character
from world.worldkit import connect, disconnect

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.engine import GameEngine
from maid_engine.testing import FakeSession
from maid_stdlib.world import Describable, WorldService, data_uuid, look
from maid_stdlib.world.components import NPC, Item, SeenAs
from maid_stdlib.world.look import (
    _grouped,
    _render_uncached,
    crowd_names,
    render_exits,
    render_room,
)
from maid_stdlib.world.text import capitalize

SQUARE = "hamlet:green"


def reference(ws: WorldService, room_key: str, viewer: UUID | None = None) -> str:
    """``render_room`` as it was before the cache (the specification)."""
    room = ws.room(room_key)
    if room is None:
        return "You are nowhere. (Ask an admin to @goto you somewhere.)"
    lines = [f"|c{room.name}|n", room.description, render_exits(ws, room_key)]
    world = ws.world
    chars: list[tuple[UUID, str]] = []
    npcs: list[tuple[UUID, str]] = []
    things: list[tuple[UUID, str]] = []
    for uid in ws.visible_in(room_key, viewer):
        desc = world.get_component(uid, Describable)
        line = desc.short or f"{capitalize(desc.name)} is here."
        seen_as = world.try_component(uid, SeenAs)
        if seen_as is not None and viewer is not None:
            line = seen_as.lines.get(viewer, line)
        if world.has_component(uid, PlayerCharacter):
            chars.append((uid, line))
        elif world.has_component(uid, NPC):
            npcs.append((uid, line))
        else:
            things.append((uid, line))
    lines.extend(_grouped(world, chars + npcs + things))
    return "\n".join(lines)


def check(ws: WorldService, viewers: list[UUID | None], rooms: tuple[str, ...] = (SQUARE,)) -> None:
    for room in rooms:
        for viewer in [*viewers, None]:
            expected = reference(ws, room, viewer)
            assert render_room(ws, room, viewer) == expected, (room, viewer)
            # A second look is served from the cache: still the same.
            assert render_room(ws, room, viewer) == expected, (room, viewer)
            if viewer is not None:
                # An equal but distinct UUID object is still recognised as the viewer.
                assert render_room(ws, room, UUID(str(viewer))) == expected


async def online_crowd(engine: GameEngine, letters: str) -> tuple[WorldService, list[UUID]]:
    """The square with a crowd size of three and a character online in it for each
    letter (CrowdA, CrowdB ...)."""
    ws = ws_of(engine)
    ws.crowd_size = 3
    chars = [new_character(engine, f"Crowd{c}", online=False) for c in letters]
    for c in chars:
        await connect(engine, c)
    return ws, chars


async def test_arrivals_departures_and_several_viewers(engine: GameEngine) -> None:
    ws = ws_of(engine)
    chars = [new_character(engine, name, online=False) for name in ("Alice", "Bob", "Cara", "Dan")]
    for c in chars:
        await connect(engine, c)
    check(ws, list(chars))
    ws.move(chars[1], "hamlet:mill_lane")
    check(ws, list(chars), (SQUARE, "hamlet:mill_lane"))
    ws.move(chars[1], SQUARE)
    ws.move(chars[2], "hamlet:mill_lane")
    check(ws, list(chars), (SQUARE, "hamlet:mill_lane"))
    assert "Bob" in render_room(ws, SQUARE, chars[0])
    assert "Bob" not in render_room(ws, SQUARE, chars[1])


async def test_a_walk_into_a_room_that_is_no_crowd_adds_the_walker_to_its_listing(
    engine: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The listing from before the walk, with the walker after its characters: the
    # room's entities are not read again (nor its header rendered).
    ws = ws_of(engine)
    chars = [new_character(engine, name, online=False) for name in ("Alice", "Bob", "Cara")]
    for c in chars:
        await connect(engine, c)
    ws.move(chars[2], "hamlet:mill_lane")
    guard = engine.world.create_entity(Describable(name="a guard"), NPC())
    ws.place(guard, SQUARE, "spawn")
    check(ws, list(chars), (SQUARE, "hamlet:mill_lane"))
    reads: list[str] = []
    read = look._seen_by_all

    def counted(
        w: WorldService, room: str
    ) -> tuple[list[tuple[UUID, str]], list[str], look.Personal]:
        reads.append(room)
        return read(w, room)

    monkeypatch.setattr(look, "_seen_by_all", counted)
    monkeypatch.setattr(look, "_header", lambda *a: pytest.fail("header rendered again"))
    ws.move(chars[2], SQUARE)
    check(ws, list(chars), (SQUARE,))
    assert reads == []
    assert "Cara" in render_room(ws, SQUARE, chars[0])
    # Anything besides the walk since the listing was made: the room is read again.
    ws.move(chars[1], "hamlet:mill_lane")
    ws.move(chars[1], SQUARE)
    check(ws, list(chars), (SQUARE,))
    assert reads == [SQUARE]


async def test_players_going_offline_and_online(engine: GameEngine) -> None:
    ws = ws_of(engine)
    alice, bob = (
        new_character(engine, "Alice", online=False),
        new_character(engine, "Bob", online=False),
    )
    s_alice = await connect(engine, alice)
    check(ws, [alice, bob])
    before = render_room(ws, SQUARE, alice)
    s_bob = await connect(engine, bob)
    check(ws, [alice, bob])
    assert render_room(ws, SQUARE, alice) != before
    await disconnect(engine, s_bob)
    check(ws, [alice, bob])
    assert render_room(ws, SQUARE, alice) == before
    await disconnect(engine, s_alice)
    check(ws, [alice, bob])


async def test_renamed_npc_and_changed_short(engine: GameEngine) -> None:
    ws = ws_of(engine)
    hero = new_character(engine, "Alice", online=False)
    await connect(engine, hero)
    ws.move(hero, "hamlet:road_copse")
    rooms = ("hamlet:road_copse",)
    check(ws, [hero], rooms)
    second = data_uuid("hamlet", "npc", "wolf#2")
    desc = engine.world.get_component(second, Describable)
    desc.short = ""
    check(ws, [hero], rooms)
    engine.world.rename(second, desc, "a renamed wolf")
    check(ws, [hero], rooms)
    assert "A renamed wolf is here." in render_room(ws, "hamlet:road_copse", hero)
    desc.short = "A wolf sulks here."
    check(ws, [hero], rooms)
    engine.world.add_component(second, Describable(name="thing", short="A new look."))
    check(ws, [hero], rooms)
    engine.world.remove_component(second, NPC)
    check(ws, [hero], rooms)


async def test_a_line_of_its_own_for_one_viewer(engine: GameEngine) -> None:
    # A quest's quarry reads "hunted by Alice" to everyone but Alice. The listing
    # stays shared; Alice's look is put together for her, in a crowd too.
    ws = ws_of(engine)
    chars = [new_character(engine, name, online=False) for name in ("Alice", "Bob", "Cara")]
    for c in chars:
        await connect(engine, c)
    alice, bob, _ = chars
    wolves = [
        engine.world.create_entity(
            Describable(name="a grey wolf", short="A grey wolf is here, hunted by Alice."),
            NPC(),
            SeenAs(lines={alice: "A grey wolf is here: your quarry."}),
        )
        for _ in range(2)
    ]
    for wolf in wolves:
        ws.place(wolf, SQUARE, "spawn")
    check(ws, list(chars))
    assert "Two grey wolves are here: your quarry." in render_room(ws, SQUARE, alice)
    assert "hunted by" not in render_room(ws, SQUARE, alice)
    assert "Two grey wolves are here, hunted by Alice." in render_room(ws, SQUARE, bob)
    # A line assigned anew is read anew.
    engine.world.get_component(wolves[0], SeenAs).lines = {bob: "A wolf eyes you, Bob."}
    check(ws, list(chars))
    assert "A wolf eyes you, Bob." in render_room(ws, SQUARE, bob)
    # The line goes with the component.
    engine.world.remove_component(wolves[1], SeenAs)
    check(ws, list(chars))
    assert "your quarry" not in render_room(ws, SQUARE, alice)
    # In a crowd, the viewer's own line and the crowd line without them.
    engine.world.add_component(wolves[1], SeenAs(lines={alice: "A grey wolf: yours."}))
    ws.crowd_size = 1
    room = ws.room(SQUARE)
    assert room is not None
    for viewer in [*chars, None]:
        assert render_room(ws, SQUARE, viewer) == _render_uncached(ws, SQUARE, room, viewer)
    mine = render_room(ws, SQUARE, alice)
    assert "Bob and Cara are here." in mine
    assert "A grey wolf: yours." in mine


async def test_items_dropped_picked_up_spawned_and_destroyed(engine: GameEngine) -> None:
    ws = ws_of(engine)
    hero, bob = (
        new_character(engine, "Alice", online=False),
        new_character(engine, "Bob", online=False),
    )
    await connect(engine, hero)
    await connect(engine, bob)
    check(ws, [hero, bob])
    coin = engine.world.create_entity(Describable(name="a coin"), Item())
    ws.place(coin, SQUARE, "drop")
    check(ws, [hero, bob])
    assert "A coin is here." in render_room(ws, SQUARE, hero)
    ws.remove_from_world(coin, "picked up")
    check(ws, [hero, bob])
    ws.place(coin, SQUARE, "drop")
    check(ws, [hero, bob])
    engine.world.destroy_entity(coin)  # unseen at once, before the flush
    check(ws, [hero, bob])
    engine.world.flush_destroyed()
    await engine.dispatch_events()
    check(ws, [hero, bob])


async def test_visibility_checks_bypass_the_cache(engine: GameEngine) -> None:
    ws = ws_of(engine)
    alice, bob, cara = (new_character(engine, n, online=False) for n in ("Alice", "Bob", "Cara"))
    for c in (alice, bob, cara):
        await connect(engine, c)
    check(ws, [alice, bob, cara])
    ws.visibility_checks.append(lambda viewer, target: not (viewer == alice and target == bob))
    check(ws, [alice, bob, cara])
    assert "Bob" not in render_room(ws, SQUARE, alice)
    assert "Bob" in render_room(ws, SQUARE, cara)
    ws.visibility_checks.clear()
    check(ws, [alice, bob, cara])
    assert "Bob" in render_room(ws, SQUARE, alice)


async def test_look_alike_viewers_and_room_header_changes(engine: GameEngine) -> None:
    ws = ws_of(engine)
    twins = [new_character(engine, n, online=False) for n in ("Ann", "Bea", "Cat")]
    for t in twins:
        await connect(engine, t)
        engine.world.get_component(t, Describable).short = "A hooded figure stands here."
    other = new_character(engine, "Dee", online=False)
    await connect(engine, other)
    check(ws, [*twins, other])
    ws.move(twins[2], "hamlet:mill_lane")
    check(ws, [*twins, other])
    room = ws.room(SQUARE)
    assert room is not None
    room.description = "A changed square."
    check(ws, [*twins, other])
    ws.set_exit(SQUARE, "up", "hamlet:mill_lane")
    check(ws, [*twins, other])
    assert "up" in render_room(ws, SQUARE, other)


async def test_a_crowds_shared_look_follows_the_room_header(engine: GameEngine) -> None:
    # Everyone in a crowd but the two named reads one text, made once per listing:
    # a changed description or a new exit must reach it too.
    ws, chars = await online_crowd(engine, "ABCDEF")
    room = ws.room(SQUARE)
    assert room is not None

    def uncached(viewer: UUID) -> str:
        assert room is not None
        return _render_uncached(ws, SQUARE, room, viewer)

    def crowd_text() -> str:
        texts = {render_room(ws, SQUARE, c) for c in chars[2:]}
        assert len(texts) == 1  # the two named read their own texts
        return texts.pop()

    for c in chars:
        assert render_room(ws, SQUARE, c) == uncached(c)
    assert "A changed square." not in crowd_text()
    room.description = "A changed square."
    assert "A changed square." in crowd_text()
    ws.set_exit(SQUARE, "up", "hamlet:mill_lane")
    assert "up" in crowd_text()
    for c in chars:
        assert render_room(ws, SQUARE, c) == uncached(c)


async def test_a_crowds_names_and_lines_as_the_uncached_look_reads_them(
    engine: GameEngine,
) -> None:
    # The cached listing is built in one pass of its own; it must list and name
    # exactly what the uncached look does: a character goes by its description's
    # name, or by its character name if that is empty; offline ones are not there;
    # things follow the characters.
    ws = ws_of(engine)
    ws.crowd_size = 3
    chars = [new_character(engine, f"Crowd{c}", online=False) for c in "ABCDEFG"]
    for c in chars[:-1]:
        await connect(engine, c)  # the last stays offline
    engine.world.get_component(chars[0], Describable).name = ""
    second = engine.world.get_component(chars[1], Describable)
    engine.world.rename(chars[1], second, "a hooded stranger")
    coin = engine.world.create_entity(Describable(name="a coin"), Item())
    ws.place(coin, SQUARE, "drop")
    room = ws.room(SQUARE)
    assert room is not None
    for viewer in [*chars, coin, None]:
        assert render_room(ws, SQUARE, viewer) == _render_uncached(ws, SQUARE, room, viewer)
    everyone = render_room(ws, SQUARE, None)
    assert "CrowdA" in everyone  # named by the character name, first in the crowd
    assert "a hooded stranger" in everyone  # the description's name leads
    assert "CrowdG" not in everyone
    assert "A coin is here." in everyone


async def test_the_uncached_look_counts_the_viewer_in_the_crowd(engine: GameEngine) -> None:
    # Four characters with a crowd size of three are a crowd, for each of them too
    # (three others in one line), whether the look is cached or, with a visibility
    # rule in force, not.
    ws, chars = await online_crowd(engine, "ABCD")
    cached = [render_room(ws, SQUARE, c) for c in chars]
    assert "CrowdA, CrowdB and CrowdC are here." in cached[3]
    ws.visibility_checks.append(lambda viewer, target: True)
    assert [render_room(ws, SQUARE, c) for c in chars] == cached


def as_uncached(
    ws: WorldService,
    viewers: list[UUID],
    rooms: tuple[str, ...] = (SQUARE,),
    after: str = "",
) -> None:
    """Every look in ``rooms`` reads as the uncached look (crowds summarised)."""
    for room_key in rooms:
        room = ws.room(room_key)
        assert room is not None
        for viewer in [*viewers, None]:
            expected = _render_uncached(ws, room_key, room, viewer)
            assert render_room(ws, room_key, viewer) == expected, (after, room_key, viewer)


async def test_a_listing_outlives_what_happens_elsewhere_and_what_nobody_sees(
    engine: GameEngine,
) -> None:
    # A crowd's listing is rebuilt only when what its room shows may have changed:
    # a character created into the room while offline, a login or a spawn in
    # another room, keep it; a character coming into view there is added to it.
    ws, chars = await online_crowd(engine, "ABCDE")
    # Things that look alike: the first coin reading the room without itself
    # moves the coins after the stick.
    things = [
        engine.world.create_entity(Describable(name=name), Item())
        for name in ("a coin", "a stick", "a coin")
    ]
    for thing in things:
        ws.place(thing, SQUARE, "drop")
    as_uncached(ws, [*chars, *things])
    listing = ws.look_cache[SQUARE]

    newcomer = new_character(engine, "Late", online=False)  # placed in the square
    assert ws.room_key_of(newcomer) == SQUARE
    as_uncached(ws, [*chars, newcomer, *things])
    elsewhere = new_character(engine, "Far", online=False)
    ws.move(elsewhere, "hamlet:mill_lane")
    await connect(engine, elsewhere)
    wolf = engine.world.create_entity(Describable(name="a wolf"), NPC())
    ws.place(wolf, "hamlet:mill_lane", "spawned")
    as_uncached(ws, [*chars, newcomer, *things])
    assert ws.look_cache[SQUARE] is listing

    # Coming online there, the newcomer is taken into the crowd's listing as it is.
    await connect(engine, newcomer)
    as_uncached(ws, [*chars, newcomer, *things])
    assert ws.look_cache[SQUARE] is listing
    assert "Late" in crowd_names(ws, SQUARE, None)
    walker = new_character(engine, "Walker", online=False)
    ws.move(walker, "hamlet:mill_lane")
    await connect(engine, walker)
    ws.move(walker, SQUARE)  # walking in too
    as_uncached(ws, [*chars, newcomer, walker, *things])
    assert ws.look_cache[SQUARE] is listing
    # Any other last change is a new listing: a listed character becoming an NPC
    # too, an offline one given a new look, an NPC walking in.
    others = [*chars, newcomer, walker, *things]
    engine.world.add_component(walker, NPC())
    as_uncached(ws, others)
    engine.world.remove_component(walker, NPC)
    as_uncached(ws, others)
    ghost = new_character(engine, "Ghost", online=False)
    engine.world.add_component(ghost, Describable(name="Ghost", short="A ghost is here."))
    as_uncached(ws, others)
    ws.move(wolf, SQUARE)
    as_uncached(ws, [*others, wolf])
    ws.move(wolf, "hamlet:mill_lane")
    as_uncached(ws, others)
    await connect(engine, wolf)  # an NPC someone plays walks in: still an NPC
    ws.move(wolf, SQUARE)
    as_uncached(ws, [*others, wolf])
    plain = new_character(engine, "Plain", online=False)  # with no look at all
    ws.move(plain, "hamlet:mill_lane")
    engine.world.remove_component(plain, Describable)
    await connect(engine, plain)
    ws.move(plain, SQUARE)
    as_uncached(ws, [*others, wolf, plain])
    # An arrival after another change, unseen in between: a new listing.
    late = [new_character(engine, name, online=False) for name in ("Mo", "Ned")]
    for character in late:
        ws.move(character, "hamlet:mill_lane")
        await connect(engine, character)
    coin = engine.world.create_entity(Describable(name="a coin"), Item())
    ws.place(coin, SQUARE, "drop")
    ws.move(late[0], SQUARE)
    as_uncached(ws, [*others, wolf, coin, *late])
    engine.world.rename(coin, engine.world.get_component(coin, Describable), "a gold coin")
    ws.move(late[1], SQUARE)
    as_uncached(ws, [*others, wolf, coin, *late])
    # Leaving is a new listing.
    ws.move(chars[0], "hamlet:mill_lane")
    as_uncached(ws, [*chars, newcomer, walker, *things])
    assert ws.look_cache[SQUARE] is not listing


async def test_newcomers_placed_together_join_the_listing_as_each_comes_online(
    engine: GameEngine,
) -> None:
    # A login storm: several characters are created into the square (offline)
    # before the first of them comes online. Each is taken into the crowd's
    # listing as it comes online, in the order they came in, as long as nobody
    # online came in after it; otherwise the listing is made again.
    ws, chars = await online_crowd(engine, "ABCDE")
    coin = engine.world.create_entity(Describable(name="a coin"), Item())
    ws.place(coin, SQUARE, "drop")
    as_uncached(ws, [*chars, coin])
    listing = ws.look_cache[SQUARE]
    first, second, third = (
        new_character(engine, name, online=False) for name in ("Mo", "Ned", "Ola")
    )
    stick = engine.world.create_entity(Describable(name="a stick"), Item())
    ws.place(stick, SQUARE, "drop")  # came in after them: in a group of its own
    as_uncached(ws, [*chars, coin, stick])
    listing = ws.look_cache[SQUARE]
    for newcomer in (first, second):
        await connect(engine, newcomer)
        as_uncached(ws, [*chars, first, second, coin, stick])
        assert ws.look_cache[SQUARE] is listing, newcomer
    names = crowd_names(ws, SQUARE, None)
    assert names[-2:] == ["Mo", "Ned"]
    # One online after it: the third cannot be put at the end of the characters'
    # lines (an earlier arrival reads before a later one), so the listing is new.
    walker = new_character(engine, "Walker", online=False)
    ws.move(walker, "hamlet:mill_lane")
    await connect(engine, walker)
    ws.move(walker, SQUARE)
    as_uncached(ws, [*chars, first, second, walker, coin, stick])
    listing = ws.look_cache[SQUARE]
    await connect(engine, third)
    as_uncached(ws, [*chars, first, second, third, walker, coin, stick])
    assert ws.look_cache[SQUARE] is not listing
    assert crowd_names(ws, SQUARE, None)[-3:] == ["Ned", "Ola", "Walker"]


async def test_the_cached_look_and_the_index_by_kind_hold_through_random_changes(
    engine: GameEngine,
) -> None:
    # Whatever happens, in whatever order, every look reads as it would uncached:
    # a change that should empty a room's listing and does not shows here.
    ws = ws_of(engine)
    ws.crowd_size = 3
    rng = random.Random(21)
    rooms = (SQUARE, "hamlet:mill_lane", "hamlet:road_copse")
    chars = [new_character(engine, f"Walker{c}", online=False) for c in "ABCDEFGH"]
    sessions: dict[UUID, FakeSession] = {}
    things: list[UUID] = []
    world = engine.world

    async def step() -> str:
        what = rng.choice(
            ["move", "move", "online", "offline", "takeover", "thing", "destroy", "npc", "name"]
        )
        uid = rng.choice(chars)
        if what == "move":
            mover = rng.choice([*chars, *things]) if things else uid
            ws.move(mover, rng.choice(rooms))
        elif what == "online" and uid not in sessions:
            sessions[uid] = await connect(engine, uid)
        elif what == "offline" and uid in sessions:
            await disconnect(engine, sessions.pop(uid))
        elif what == "takeover" and uid in sessions:
            new = FakeSession()
            await engine.sessions.session_opened(new)
            engine.sessions.attach(new, uid)
            sessions[uid] = new
        elif what == "thing":
            thing = world.create_entity(Describable(name=rng.choice(["a coin", "a stick"])), Item())
            ws.place(thing, rng.choice(rooms), "drop")
            things.append(thing)
        elif what == "destroy" and things:
            world.destroy_entity(things.pop(rng.randrange(len(things))))
            if rng.random() < 0.5:
                world.flush_destroyed()
                await engine.dispatch_events()
        elif what == "npc" and things:
            thing = rng.choice(things)
            if world.has_component(thing, NPC):
                world.remove_component(thing, NPC)
            else:
                world.add_component(thing, NPC())
        elif what == "name":
            desc = world.get_component(uid, Describable)
            world.rename(uid, desc, rng.choice(["", "a hooded stranger", desc.name or "Someone"]))
        return what

    for _ in range(300):
        what = await step()
        # Things and NPCs look too: their own line leaves the listing they read.
        as_uncached(ws, [*chars, *things], rooms, what)
        # The index by kind lists what the room's contents hold, in their order.
        for room_key in rooms:
            here = ws.contents(room_key)
            npcs = [u for u in here if world.has_component(u, NPC)]
            assert ws.npcs_in(room_key) == npcs, (what, room_key)
            pcs = [u for u in here if world.has_component(u, PlayerCharacter)]
            assert ws.characters_in(room_key, include_offline=True) == pcs, (what, room_key)
            online = [u for u in pcs if engine.sessions.is_online(u)]
            assert ws.characters_in(room_key) == online, (what, room_key)
