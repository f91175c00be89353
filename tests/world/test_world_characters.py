"""Characters: creation, connecting, disconnecting, and MSSP counts."""

from __future__ import annotations

from uuid import UUID

from kits.engines import ws_of
from kits.heroes import new_character
from world.worldkit import connect, disconnect

from maid_engine.accounts import PlayerCharacter
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent
from maid_engine.testing import FakeSession, cmd
from maid_stdlib.world import (
    CharacterCreatedEvent,
    Describable,
    Position,
    WorldCharacterFactory,
)
from maid_stdlib.world.components import NPC, Item


async def test_the_factory_builds_a_character_in_the_start_room(engine: GameEngine) -> None:
    created: list[CharacterCreatedEvent] = []
    engine.events.subscribe(CharacterCreatedEvent, created.append)
    factory = engine.services.get(WorldCharacterFactory)
    hooked: list[tuple[UUID, str, str]] = []
    factory.creation_hooks.append(lambda uid, name, acct: hooked.append((uid, name, acct)))
    hero = new_character(engine, "Alice", online=False, account="acct-1")
    pc = engine.world.get_component(hero, PlayerCharacter)
    assert (pc.name, pc.account_id) == ("Alice", "acct-1")
    assert pc.created_at == engine.clock.wall()
    desc = engine.world.get_component(hero, Describable)
    assert (desc.name, desc.short, desc.keywords) == ("Alice", "Alice is here.", ["alice"])
    assert engine.world.get_component(hero, Position).room == "hamlet:green"
    assert ws_of(engine).room_key_of(hero) == "hamlet:green"
    assert engine.world.find_by_name("alice") == [hero]
    assert hooked == [(hero, "Alice", "acct-1")]
    await engine.dispatch_events()
    assert [(e.character_id, e.name) for e in created] == [(hero, "Alice")]


async def test_connecting_shows_the_room_and_tells_the_others(engine: GameEngine) -> None:
    bob = await connect(engine, new_character(engine, "Bob", online=False))
    bob.sent.clear()
    hero = new_character(engine, "Alice", online=False)
    session = await connect(engine, hero)
    assert session.sent[0].startswith("|cAshford Green|n")
    assert "Bob is here." in session.sent[0]
    # Other layers (e.g. classic_rpg vitals) may add packages after these two.
    assert [p for p, _ in session.gmcp][:2] == ["Char.Name", "Room.Info"]
    assert session.gmcp[0][1] == {"name": "Alice", "fullname": "Alice"}
    assert session.gmcp[1][1]["id"] == "hamlet:green"
    assert bob.sent == ["Alice has entered the game."]


async def test_a_stashed_character_is_put_back_into_the_world(engine: GameEngine) -> None:
    ws = ws_of(engine)
    bob = await connect(engine, new_character(engine, "Bob", online=False))
    hero = new_character(engine, "Alice", online=False)
    ws.remove_from_world(hero, reason="stashed")
    await engine.dispatch_events()
    bob.sent.clear()
    session = await connect(engine, hero)
    assert ws.room_key_of(hero) == "hamlet:green"
    assert bob.sent == ["Alice has arrived."]
    # Other layers (e.g. classic_rpg vitals) may add packages after these two.
    assert [p for p, _ in session.gmcp][:2] == ["Char.Name", "Room.Info"]
    # A room that vanished from the data counts as stashed too.
    engine.world.get_component(hero, Position).room = "hamlet:demolished"
    ws.reindex(hero)
    await connect(engine, hero)
    assert ws.room_key_of(hero) == "hamlet:green"


async def test_disconnecting_leaves_the_character_in_place_unseen(engine: GameEngine) -> None:
    ws = ws_of(engine)
    bob_id = new_character(engine, "Bob", online=False)
    bob = await connect(engine, bob_id)
    hero = new_character(engine, "Alice", online=False)
    session = await connect(engine, hero)
    await cmd(engine, hero, "north")
    await cmd(engine, bob_id, "north")
    bob.sent.clear()
    await disconnect(engine, session)
    assert bob.sent == ["Alice has left the game."]
    assert ws.room_key_of(hero) == "hamlet:warden_hut"
    assert "Alice" not in await cmd(engine, bob_id, "look")
    assert "Alice" not in await cmd(engine, bob_id, "who")
    assert hero in ws.characters_in("hamlet:warden_hut", include_offline=True)
    # Reconnecting continues where she stood.
    bob.sent.clear()
    again = await connect(engine, hero)
    assert again.sent[0].startswith("|cThe Warden's Hut|n")
    assert bob.sent == ["Alice has entered the game."]


async def test_a_takeover_is_not_announced(engine: GameEngine) -> None:
    bob = await connect(engine, new_character(engine, "Bob", online=False))
    hero = new_character(engine, "Alice", online=False)
    await connect(engine, hero)
    bob.sent.clear()
    fresh = FakeSession()
    engine.sessions.attach(fresh, hero)
    engine.events.emit(CharacterConnectedEvent(hero, fresh.id, takeover=True))
    await engine.dispatch_events()
    assert fresh.sent[0].startswith("|cAshford Green|n")
    assert bob.sent == []


async def test_mssp_counts_come_from_the_world(engine: GameEngine) -> None:
    status = engine.sessions.mssp_status()
    assert status["AREAS"] == str(len(ws_of(engine).area_keys()))
    assert int(status["ROOMS"]) == ws_of(engine).room_count == 11  # type: ignore[arg-type]
    assert status["MOBILES"] == str(engine.world.count(NPC))
    assert status["OBJECTS"] == str(engine.world.count(Item))
