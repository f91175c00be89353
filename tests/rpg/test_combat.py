"""Combat: rounds on the tick, damage, death of NPCs and players, respawn, hostility."""

from __future__ import annotations

from uuid import UUID

import pytest
from kits.engines import items_of, npcs, ws_of
from kits.heroes import Recorder, make_strong, new_character, place
from pydantic import ValidationError

from classic_rpg.combat.components import Fighting, LootEntry, LootTable, PendingRespawn
from classic_rpg.combat.data import LootItemData
from classic_rpg.combat.service import CombatService
from classic_rpg.components import CharacterStats, Health
from classic_rpg.events import CombatStartedEvent, DamageDealtEvent, VitalsChangedEvent
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterDisconnectedEvent, EntityDestroyedEvent
from maid_engine.testing import cmd, session_for
from maid_stdlib.world.events import EntityDiedEvent
from maid_stdlib.world.spawner import spawn_template

FIELD, CAMP, ROAD, SQUARE = "rpgtest:field", "rpgtest:camp", "rpgtest:road", "rpgtest:square"


async def run_until(engine: GameEngine, done: object, limit: int = 200) -> int:
    """Tick until ``done()`` is true; returns the ticks it took."""
    assert callable(done)
    for n in range(1, limit + 1):
        await engine.run_ticks(1)
        if done():
            return n
    raise AssertionError(f"not done after {limit} ticks")


def the(engine: GameEngine, template: str) -> UUID:
    [uid] = npcs(engine, template)
    return uid


async def test_kill_only_marks_the_fight_rounds_happen_on_ticks(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, CAMP)
    await engine.dispatch_events()  # the bandit jumps the hero as they arrive
    bandit = the(engine, "rpgtest:bandit")
    engine.world.remove_component(bandit, Fighting)
    engine.world.remove_component(hero, Fighting)
    rec = Recorder(engine, DamageDealtEvent, CombatStartedEvent)

    assert await cmd(engine, hero, "kill bandit") == "|rYou attack a bandit!|n"
    assert engine.world.get_component(hero, Fighting).target == bandit
    assert engine.world.get_component(bandit, Fighting).target == hero
    [started] = rec.of(CombatStartedEvent)
    assert (started.attacker_id, started.target_id) == (hero, bandit)
    assert rec.of(DamageDealtEvent) == []
    assert engine.world.get_component(bandit, Health).current == 20

    await run_until(engine, lambda: len(rec.of(DamageDealtEvent)) >= 4)
    for event in rec.of(DamageDealtEvent):
        target_max = 20 if event.target_id == bandit else 30
        assert event.attacker_id == (hero if event.target_id == bandit else bandit)
        assert event.target_max_health == target_max
        assert event.amount >= 1
        assert event.damage_type == "physical"
    on_bandit = [e for e in rec.of(DamageDealtEvent) if e.target_id == bandit]
    health = 20
    for event in on_bandit:  # target_health is the health after each hit
        health = max(0, health - event.amount)
        assert event.target_health == health


async def test_rounds_come_every_three_game_seconds(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, Health(1000, 1000))
    rec = Recorder(engine, DamageDealtEvent)
    await cmd(engine, hero, "kill rat")
    session = session_for(engine, hero)
    session.sent.clear()
    await engine.run_ticks(9)
    swings = [line for line in session.sent if line.startswith(("You hit", "You miss"))]
    assert len(swings) == 3
    assert all(e.attacker_id in (hero, rat) for e in rec.of(DamageDealtEvent))


async def test_npc_death_loot_experience_gold_and_destruction(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    carried = items_of(engine).spawn("rpgtest:insignia", holder=rat)
    rec = Recorder(engine, EntityDiedEvent, EntityDestroyedEvent)

    await cmd(engine, hero, "kill rat")
    await run_until(engine, lambda: bool(rec.of(EntityDestroyedEvent)))

    died = rec.of(EntityDiedEvent)
    assert len(died) == 1
    assert (died[0].entity_id, died[0].killer_id, died[0].room) == (rat, hero, FIELD)
    assert (died[0].template, died[0].is_player) == ("rpgtest:rat", False)
    assert [e.entity_id for e in rec.of(EntityDestroyedEvent)] == [rat]
    assert rec.events.index(died[0]) < rec.events.index(rec.of(EntityDestroyedEvent)[0])
    assert not engine.world.entity_exists(rat)
    assert rat not in ws_of(engine).contents(FIELD)
    assert not engine.world.has_component(hero, Fighting)

    items = items_of(engine)
    on_floor = [items.template_of(i) for i in ws_of(engine).items_in(FIELD)]
    assert sorted(on_floor) == ["rpgtest:insignia", "rpgtest:ore", "rpgtest:ore"]
    assert ws_of(engine).room_key_of(carried) == FIELD  # what it carried drops too
    # Loot lies where it fell; the line the builder wrote is for where they put it.
    seen = await cmd(engine, hero, "look")
    assert "Two lumps of iron ore lie here." in seen
    assert "smelter" not in seen
    stats = engine.world.get_component(hero, CharacterStats)
    assert (stats.experience, stats.gold) == (30, 14)
    text = session_for(engine, hero).text()
    assert "A giant rat falls to the ground, dead." in text
    assert "A giant rat drops a bandit insignia and a lump of iron ore (x2)." in text
    assert "You gain 30 experience for killing a giant rat." in text


async def test_loot_of_a_kind_the_world_has_enough_of_does_not_drop(engine: GameEngine) -> None:
    # A named weapon stays one of a kind however often its owner respawns: an entry
    # with max_exist drops only as many as keep that many in the world.
    hero = new_character(engine)
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, LootTable([LootEntry("rpgtest:ore", 1.0, 2, 2, max_exist=3)]))
    items = items_of(engine)
    items.spawn("rpgtest:ore", holder=hero)
    items.spawn("rpgtest:ore", room=CAMP)
    assert items.existing("rpgtest:ore") == 2
    rec = Recorder(engine, EntityDestroyedEvent)
    await cmd(engine, hero, "kill rat")
    await run_until(engine, lambda: bool(rec.of(EntityDestroyedEvent)))
    on_floor = [items.template_of(i) for i in ws_of(engine).items_in(FIELD)]
    assert on_floor == ["rpgtest:ore"]  # two rolled, one allowed
    assert items.existing("rpgtest:ore") == 3
    assert "A giant rat drops a lump of iron ore." in session_for(engine, hero).text()
    # The data section reads it, and a limit below one is a data error.
    entry = LootItemData.model_validate({"item": "old_blade", "max_exist": 1})
    assert entry.max_exist == 1
    with pytest.raises(ValidationError):
        LootItemData.model_validate({"item": "old_blade", "max_exist": 0})


async def test_npc_respawns_as_a_new_entity_after_its_delay(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    rec = Recorder(engine, EntityDiedEvent)
    await cmd(engine, hero, "kill rat")
    await run_until(engine, lambda: bool(rec.of(EntityDiedEvent)))
    died_at = engine.clock.game_time
    [(_, (pending,))] = list(engine.world.query(PendingRespawn))
    assert (pending.template, pending.room, pending.due) == ("rpgtest:rat", FIELD, died_at + 60)

    ticks = await run_until(engine, lambda: bool(npcs(engine, "rpgtest:rat")), limit=100)
    assert ticks == 60
    new_rat = the(engine, "rpgtest:rat")
    assert new_rat != rat
    assert ws_of(engine).room_key_of(new_rat) == FIELD
    health = engine.world.get_component(new_rat, Health)
    assert health.current == health.maximum == 6
    assert list(engine.world.query(PendingRespawn)) == []
    assert "A giant rat arrives." in session_for(engine, hero).text()


async def test_npcs_without_respawn_stay_dead(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, level=20, hp=500, dexterity=16)
    await cmd(engine, hero, "east")
    await cmd(engine, hero, "east")
    await cmd(engine, hero, "kill bandit")  # far above its level: it leaves the hero alone
    await run_until(engine, lambda: not npcs(engine, "rpgtest:bandit"))
    await engine.run_ticks(300)
    assert npcs(engine, "rpgtest:bandit") == []
    assert list(engine.world.query(PendingRespawn)) == []


async def test_hostile_npc_attacks_a_player_who_enters(engine: GameEngine) -> None:
    hero = new_character(engine)
    bandit = the(engine, "rpgtest:bandit")
    rec = Recorder(engine, DamageDealtEvent)
    await cmd(engine, hero, "east")
    assert not engine.world.has_component(bandit, Fighting)
    out = await cmd(engine, hero, "east")
    assert "|rA bandit attacks you!|n" in out
    assert engine.world.get_component(bandit, Fighting).target == hero
    assert engine.world.get_component(hero, Fighting).target == bandit
    assert rec.of(DamageDealtEvent) == []
    await run_until(engine, lambda: any(e.target_id == hero for e in rec.of(DamageDealtEvent)))
    assert engine.world.get_component(hero, Health).current < 30
    vitals = [d for p, d in session_for(engine, hero).gmcp if p == "Char.Vitals"]
    assert vitals[-1]["hp"] == engine.world.get_component(hero, Health).current
    assert vitals[-1]["maxhp"] == 30


async def test_hostile_npc_arriving_attacks_a_player_there(engine: GameEngine) -> None:
    hero = new_character(engine)
    await cmd(engine, hero, "look")
    newcomer = spawn_template(engine, "rpgtest:bandit", SQUARE)
    await engine.dispatch_events()
    assert engine.world.get_component(newcomer, Fighting).target == hero


async def test_offline_players_are_not_attacked(engine: GameEngine) -> None:
    hero = new_character(engine, online=False)
    place(engine, hero, CAMP)
    await engine.dispatch_events()
    assert not engine.world.has_component(the(engine, "rpgtest:bandit"), Fighting)


async def test_player_death_is_not_destructive(engine: GameEngine) -> None:
    hero = new_character(engine)
    world = engine.world
    items = items_of(engine)
    sword = items.spawn("rpgtest:sword", holder=hero)
    world.get_component(hero, CharacterStats).gold = 50
    world.add_component(hero, Health(1, 30))
    bandit = the(engine, "rpgtest:bandit")
    bandit_gold = world.get_component(bandit, CharacterStats).gold
    rec = Recorder(engine, EntityDiedEvent, EntityDestroyedEvent, VitalsChangedEvent)

    await cmd(engine, hero, "east")
    await cmd(engine, hero, "east")
    await run_until(engine, lambda: bool(rec.of(EntityDiedEvent)))

    [died] = rec.of(EntityDiedEvent)
    assert (died.entity_id, died.killer_id, died.room, died.is_player) == (hero, bandit, CAMP, True)
    assert world.entity_exists(hero)
    assert rec.of(EntityDestroyedEvent) == []
    assert ws_of(engine).room_key_of(hero) == SQUARE  # the start room
    assert world.get_component(hero, Health).current == 15
    assert world.get_component(hero, CharacterStats).gold == 45
    assert world.get_component(bandit, CharacterStats).gold == bandit_gold + 5
    assert items.carried(hero) == [sword]
    assert not world.has_component(hero, Fighting)
    assert not world.has_component(bandit, Fighting)
    text = session_for(engine, hero).text()
    assert "You have been slain by a bandit!" in text
    assert "You lost 5 gold." in text
    assert "Town Square" in text.split("You wake up")[-1]


async def test_recall_room_can_be_configured(engine: GameEngine) -> None:
    engine.services.get(CombatService).recall_room = "rpgtest:temple"
    hero = new_character(engine)
    place(engine, hero, FIELD)
    engine.services.get(CombatService).apply_damage(hero, 100)
    await engine.dispatch_events()
    assert ws_of(engine).room_key_of(hero) == "rpgtest:temple"
    assert engine.world.get_component(hero, Health).current == 15


async def test_flee_leaves_the_fight(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, level=1, hp=1000, dexterity=16)
    assert await cmd(engine, hero, "flee") == "You are not fighting anyone."
    await cmd(engine, hero, "east")
    await cmd(engine, hero, "east")
    bandit = the(engine, "rpgtest:bandit")
    outs = []
    for _ in range(20):
        outs.append(await cmd(engine, hero, "flee"))
        if ws_of(engine).room_key_of(hero) != CAMP:
            break
    assert outs[-1].startswith("|yYou flee west!|n\n|cThe Road|n")
    assert ws_of(engine).room_key_of(hero) == ROAD
    assert not engine.world.has_component(hero, Fighting)
    assert not engine.world.has_component(bandit, Fighting)


async def test_a_flight_goes_back_the_way_it_came_and_away_from_what_lies_in_wait(
    engine: GameEngine,
) -> None:
    # From the square: east is the road, south the field, west the temple.
    combat = engine.services.get(CombatService)
    combat.flee_chance = 1.0
    hero = new_character(engine)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, Health(1000, 1000))
    place(engine, rat, SQUARE)
    bandit = the(engine, "rpgtest:bandit")

    async def flights(times: int, came_from: str) -> set[str]:
        ways = set()
        for _ in range(times):
            place(engine, hero, came_from)
            place(engine, hero, SQUARE)
            await engine.dispatch_events()
            combat.engage(hero, rat)
            way = combat.flee(hero)
            assert way is not None
            ways.add(way)
            combat.disengage(hero)
        return ways

    # Back the way they came: in from the field, out to the field.
    assert await flights(5, FIELD) == {"south"}
    # The bandit waits on the road: someone running for their life does not run
    # into him (they came from further off, so no way is the way back).
    place(engine, bandit, ROAD)
    assert await flights(30, CAMP) == {"south", "west"}
    # With the road clear again, any way out will do.
    engine.world.destroy_entity(bandit)
    assert "east" in await flights(30, CAMP)


async def fighting_a_rat(engine: GameEngine) -> tuple[UUID, UUID]:
    """A hero in the field fighting a rat that will not die soon."""
    hero = new_character(engine)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, Health(1000, 1000))
    await cmd(engine, hero, "kill rat")
    return hero, rat


async def test_nobody_walks_out_of_a_fight(engine: GameEngine) -> None:
    # Walking off would be a flee without its chance or its cost.
    hero, rat = await fighting_a_rat(engine)
    refusal = "You are fighting a giant rat for your life! (Type 'flee' to try to get away.)"
    assert await cmd(engine, hero, "north") == refusal
    assert await cmd(engine, hero, "go north") == refusal
    assert ws_of(engine).room_key_of(hero) == FIELD
    assert engine.world.has_component(hero, Fighting)
    assert (await cmd(engine, hero, "look")).startswith("|c")  # only leaving is refused
    # The foe dead, the fight is over though marked until the next round.
    engine.world.destroy_entity(rat)
    assert engine.world.has_component(hero, Fighting)
    assert (await cmd(engine, hero, "north")).startswith("|cTown Square|n")


async def test_moved_out_of_the_room_the_fight_ends(engine: GameEngine) -> None:
    hero, rat = await fighting_a_rat(engine)
    place(engine, hero, SQUARE)  # a summons, a builder's teleport
    await engine.run_ticks(1)
    assert not engine.world.has_component(hero, Fighting)
    assert not engine.world.has_component(rat, Fighting)
    assert (await cmd(engine, hero, "west")).startswith("|cThe Temple|n")


async def test_disconnecting_ends_fights(engine: GameEngine) -> None:
    hero = new_character(engine)
    await cmd(engine, hero, "east")
    await cmd(engine, hero, "east")
    bandit = the(engine, "rpgtest:bandit")
    assert engine.world.has_component(bandit, Fighting)
    engine.events.emit(CharacterDisconnectedEvent(hero, session_for(engine, hero).id))
    await engine.dispatch_events()
    assert not engine.world.has_component(bandit, Fighting)
    assert not engine.world.has_component(hero, Fighting)


async def test_kill_errors(engine: GameEngine) -> None:
    alice = new_character(engine, "Alice")
    new_character(engine, "Bob")
    assert await cmd(engine, alice, "kill") == "Kill whom?"
    assert await cmd(engine, alice, "kill dragon") == "You do not see 'dragon' here."
    assert await cmd(engine, alice, "kill elder") == (
        "The village elder is not someone you can fight."
    )
    assert await cmd(engine, alice, "kill bob") == (
        "You cannot attack other players here, and Bob is a player."
    )
    place(engine, alice, FIELD)
    assert await cmd(engine, alice, "kill scarecrow") == (
        "A scarecrow is not someone you can fight."
    )
    await cmd(engine, alice, "kill rat")
    assert await cmd(engine, alice, "kill rat") == "You are already fighting a giant rat!"


async def test_consider(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, FIELD)
    # Both sides' health, level, damage and armor count, not the level alone. At
    # full health the rat would cost the hero about 0.15 of it, at 10 of 30 hit
    # points about 0.45: "no match" is never said of a fight costing a quarter.
    assert await cmd(engine, hero, "consider rat") == "A giant rat is no match for you."
    engine.world.add_component(hero, Health(10, 30))
    assert await cmd(engine, hero, "con rat") == "A giant rat looks like an easy kill."
    engine.world.add_component(hero, Health(5, 30))
    assert await cmd(engine, hero, "con rat") == "The perfect match!"
    engine.world.add_component(hero, Health(3, 30))
    assert await cmd(engine, hero, "con rat") == "You would need some luck against a giant rat."
    engine.world.add_component(hero, Health(2, 30))
    assert await cmd(engine, hero, "con rat") == "A giant rat laughs at you mercilessly."
    engine.world.add_component(hero, Health(30, 30))
    engine.world.get_component(hero, CharacterStats).level = 9
    out = await cmd(engine, hero, "con rat")
    assert out == (
        "You can kill a giant rat naked and weaponless.\n(A giant rat is 8 levels lower than you.)"
    )
    # Where levels and the verdict point different ways, it says which counts.
    engine.world.get_component(hero, CharacterStats).level = 1
    engine.world.get_component(the(engine, "rpgtest:rat"), CharacterStats).level = 2
    assert await cmd(engine, hero, "con rat") == (
        "A giant rat is no match for you.\n(A giant rat is 1 level higher than you, but your "
        "health and gear count for more.)"
    )
    engine.world.get_component(hero, CharacterStats).level = 3
    engine.world.add_component(hero, Health(2, 30))
    assert await cmd(engine, hero, "con rat") == (
        "You would need some luck against a giant rat.\n(A giant rat is 1 level lower than "
        "you, but health and gear count for more.)"
    )
    assert await cmd(engine, hero, "con scarecrow") == "A scarecrow is not someone you can fight."
    assert await cmd(engine, hero, "consider") == "Consider whom?"
    assert await cmd(engine, hero, "consider dragon") == "You do not see 'dragon' here."
    assert await cmd(engine, hero, "consider me") == "You do not see 'me' here."


async def test_regeneration_out_of_combat(engine: GameEngine) -> None:
    hero = new_character(engine)
    engine.world.add_component(hero, Health(10, 30))
    await engine.run_ticks(10)
    assert engine.world.get_component(hero, Health).current == 11


async def test_fight_messages_reach_both_sides_and_the_room(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    bob = new_character(engine, "Bob")
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    place(engine, bob, FIELD)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, Health(1000, 1000))
    await cmd(engine, bob, "look")
    await cmd(engine, hero, "kill rat")
    assert "Alice attacks a giant rat!" in session_for(engine, bob).text()
    await engine.run_ticks(6)
    mine = session_for(engine, hero).text()
    theirs = session_for(engine, bob).text()
    assert "You hit a giant rat for" in mine or "You miss a giant rat." in mine
    assert "Alice hits a giant rat." in theirs or "Alice misses a giant rat." in theirs
    assert "A giant rat hits Alice." in theirs or "A giant rat misses Alice." in theirs
    assert "A giant rat hits you for" in mine or "A giant rat misses you." in mine


async def test_hostile_npcs_attack_on_login(engine: GameEngine) -> None:
    from maid_engine.events import CharacterConnectedEvent

    hero = new_character(engine, online=False)
    place(engine, hero, CAMP)
    await engine.dispatch_events()
    session = session_for(engine, hero)
    engine.events.emit(CharacterConnectedEvent(hero, session.id))
    await engine.dispatch_events()
    assert engine.world.get_component(the(engine, "rpgtest:bandit"), Fighting).target == hero
    assert "A bandit attacks you!" in session.text()


async def test_regeneration_visits_only_the_wounded(engine: GameEngine) -> None:
    from classic_rpg.characters.vitals import RegenSystem

    regen = next(s for s in engine.systems if isinstance(s, RegenSystem))
    hero = new_character(engine)
    health = engine.world.get_component(hero, Health)
    health.current = health.maximum
    await engine.run_ticks(10)
    assert hero not in regen._wounded  # full: dropped (or never added)
    # Damage (any path emits VitalsChangedEvent) puts it back on the list.
    engine.services.get(CombatService).apply_damage(hero, 3)
    await engine.dispatch_events()
    assert hero in regen._wounded
    await engine.run_ticks(30)  # 1 point (5% of 30) per 10 ticks
    assert health.current == health.maximum
    await engine.run_ticks(10)
    assert hero not in regen._wounded


async def test_the_prompt_in_a_fight_shows_how_the_foe_is_doing(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, Health(1000, 1000))
    session = session_for(engine, hero)
    await cmd(engine, hero, "config prompt <%hhp foe %e>")
    engine.sessions.prompt(session)
    assert session.prompts[-1] == "<200hp foe > "
    await cmd(engine, hero, "config prompt default")
    await cmd(engine, hero, "kill rat")
    engine.world.get_component(rat, Health).current = 600
    engine.sessions.prompt(session)
    assert session.prompts[-1].endswith("mp> [giant rat: 60%] ")
    await cmd(engine, hero, "config prompt <%hhp foe %e>")
    engine.sessions.prompt(session)
    assert session.prompts[-1] == "<200hp foe 60%> "
    ws_of(engine).move(hero, ROAD)  # walked away: no foe in the prompt
    engine.sessions.prompt(session)
    assert session.prompts[-1] == "<200hp foe > "
