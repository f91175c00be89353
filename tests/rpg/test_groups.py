"""Groups: follow, group, ungroup, gtell, the followers' walk, shared experience."""

from __future__ import annotations

from uuid import UUID

from kits.engines import npcs, ws_of
from kits.heroes import make_strong, new_character, place

from classic_rpg.combat.death import experience_shares
from classic_rpg.components import CharacterStats, Health
from classic_rpg.groups.service import Groups
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterDisconnectedEvent
from maid_engine.testing import cmd, session_for

FIELD, ROAD, SQUARE = "rpgtest:field", "rpgtest:road", "rpgtest:square"


def three(engine: GameEngine) -> tuple[UUID, UUID, UUID]:
    a, b, c = (new_character(engine, n) for n in ("Alice", "Bob", "Cara"))
    for uid in (a, b, c):
        place(engine, uid, SQUARE)
    return a, b, c


async def grouped(engine: GameEngine) -> tuple[UUID, UUID, UUID]:
    a, b, c = three(engine)
    await cmd(engine, b, "follow alice")
    await cmd(engine, a, "group bob")
    return a, b, c


async def test_follow_and_unfollow(engine: GameEngine) -> None:
    a, b, _c = three(engine)
    assert await cmd(engine, b, "follow") == "Follow whom? (follow <player>; follow self to stop)"
    assert await cmd(engine, b, "follow elder") == "You do not see a player called 'elder' here."
    assert await cmd(engine, b, "follow alice") == "You now follow Alice."
    assert "Bob now follows you." in session_for(engine, a).text()
    assert await cmd(engine, b, "follow alice") == "You are already following Alice."
    assert await cmd(engine, b, "follow") == "You are following Alice."
    assert await cmd(engine, a, "follow bob") == "Bob is following you already."
    assert await cmd(engine, b, "follow self") == "You stop following Alice."
    assert "Bob stops following you." in session_for(engine, a).text()
    assert await cmd(engine, b, "unfollow") == "You are not following anyone."
    await cmd(engine, b, "follow alice")
    assert await cmd(engine, b, "unfollow") == "You stop following Alice."


async def test_followers_walk_after_their_leader(engine: GameEngine) -> None:
    a, b, c = three(engine)
    await cmd(engine, b, "follow alice")
    await cmd(engine, c, "follow bob")
    session_for(engine, b).sent.clear()
    await cmd(engine, a, "east")
    ws = ws_of(engine)
    assert ws.room_key_of(b) == ROAD
    assert ws.room_key_of(c) == ROAD  # Cara follows Bob, who followed Alice
    bob = session_for(engine, b).text()
    assert "You follow Alice east." in bob
    assert "The Road" in bob
    assert "Bob arrives from the west." in session_for(engine, a).text()
    # A rester stays put.
    await cmd(engine, b, "rest")
    await cmd(engine, a, "west")
    assert ws.room_key_of(b) == ROAD
    assert ws.room_key_of(c) == ROAD


async def test_group_add_list_and_refusals(engine: GameEngine) -> None:
    a, b, c = three(engine)
    assert await cmd(engine, a, "group") == (
        "You are not in a group. (Have someone follow you, then 'group <name>'.)"
    )
    assert await cmd(engine, a, "group bob") == "Bob is not following you."
    assert await cmd(engine, a, "group me") == "You are always in your own group."
    await cmd(engine, b, "follow alice")
    assert await cmd(engine, a, "group bob") == "Bob joins your group."
    assert "You join Alice's group." in session_for(engine, b).text()
    assert await cmd(engine, a, "group bob") == "Bob is already in your group."
    await cmd(engine, c, "follow bob")
    assert await cmd(engine, b, "group cara") == "Only the leader, Alice, can add members."
    engine.world.add_component(b, Health(12, 30))
    out = await cmd(engine, b, "group")
    assert out.splitlines()[0] == "Alice's group:"
    assert "Alice" in out.splitlines()[1]
    assert "30/30 hp" in out.splitlines()[1]
    assert "(leader)" in out.splitlines()[1]
    assert "Bob" in out.splitlines()[2]
    assert "12/30 hp" in out.splitlines()[2]
    assert "15/15 mp" in out.splitlines()[2]


async def test_leaving_removing_and_disbanding(engine: GameEngine) -> None:
    a, b, c = await grouped(engine)
    groups = engine.services.get(Groups)
    await cmd(engine, c, "follow alice")
    await cmd(engine, a, "group cara")
    assert groups.group_of(b) == [a, *groups.members_of(a)]
    assert await cmd(engine, b, "group leave") == "You leave Alice's group."
    assert "Bob has left the group." in session_for(engine, c).text()
    assert "Bob has left the group." in session_for(engine, a).text()
    assert await cmd(engine, b, "ungroup") == "You are not in a group."
    assert await cmd(engine, b, "ungroup cara") == "You are not leading a group."
    assert await cmd(engine, a, "ungroup zed") == "Nobody called 'zed' is in your group."
    assert await cmd(engine, a, "ungroup cara") == "You remove Cara from your group."
    assert "Alice removes you from the group." in session_for(engine, c).text()
    await cmd(engine, a, "group bob")
    assert await cmd(engine, a, "ungroup") == "You disband your group."
    assert "Alice has disbanded the group." in session_for(engine, b).text()
    assert groups.group_of(b) == []
    # Stopping following leaves the group too.
    await cmd(engine, a, "group bob")
    await cmd(engine, b, "unfollow")
    assert groups.group_of(b) == []


async def test_gtell_reaches_the_group_wherever_it_is(engine: GameEngine) -> None:
    a, b, c = await grouped(engine)
    assert await cmd(engine, c, "gt hello") == "You are not in a group."
    assert await cmd(engine, a, "gtell") == "Tell your group what?"
    place(engine, b, FIELD)
    assert await cmd(engine, a, "gt regroup at the well") == (
        "|gYou tell the group: 'regroup at the well'|n"
    )
    assert "|gAlice tells the group: 'regroup at the well'|n" in session_for(engine, b).text()
    assert "regroup" not in session_for(engine, c).text()


async def test_a_kill_is_shared_by_the_group_members_present(engine: GameEngine) -> None:
    a, b, c = await grouped(engine)
    make_strong(engine, a, level=1, hp=300, dexterity=16)
    for uid in (a, b, c):
        place(engine, uid, FIELD)
    await cmd(engine, a, "kill rat")
    for _ in range(100):
        if not npcs(engine, "rpgtest:rat"):
            break
        await engine.run_ticks(1)
    xp = [engine.world.get_component(u, CharacterStats).experience for u in (a, b, c)]
    assert xp == [16, 16, 0]  # 30 and 10% for the second member, halved; Cara is not grouped
    assert "You gain 16 experience as your share for a giant rat." in session_for(engine, b).text()
    assert engine.world.get_component(a, CharacterStats).gold == 14  # gold: the killer's


def test_experience_shares_follow_levels(engine: GameEngine) -> None:
    a, b, c = three(engine)
    engine.world.get_component(b, CharacterStats).level = 3
    shares = experience_shares(engine.world, [a, b, c], 100)
    assert shares == [(a, 24), (b, 72), (c, 24)]  # 120 split 1:3:1


async def test_leaving_the_game_leaves_the_group_and_ends_following(engine: GameEngine) -> None:
    a, b, c = await grouped(engine)
    await cmd(engine, c, "follow alice")
    groups = engine.services.get(Groups)
    engine.events.emit(CharacterDisconnectedEvent(a, session_for(engine, a).id))
    await engine.dispatch_events()
    assert groups.group_of(b) == []
    assert groups.leader_followed(c) is None
    assert "You stop following Alice." in session_for(engine, c).text()
