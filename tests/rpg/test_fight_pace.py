"""Fights in real seconds, the prompt after each round, flee's cost, wimpy,
aggression one at a time and by level, resting and sleeping."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from kits.engines import npcs, ws_of
from kits.heroes import make_strong, new_character, place
from rpg.rpgkit import make_engine

from classic_rpg.characters.posture import Posture, Stance
from classic_rpg.characters.vitals import FULLY_RESTED
from classic_rpg.combat.components import Fighting, Wimpy
from classic_rpg.combat.service import CombatService
from classic_rpg.components import CharacterStats, Health
from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.world.spawner import spawn_template

FIELD, CAMP, ROAD, SQUARE = "rpgtest:field", "rpgtest:camp", "rpgtest:road", "rpgtest:square"


def the(engine: GameEngine, template: str) -> UUID:
    [uid] = npcs(engine, template)
    return uid


def combat(engine: GameEngine) -> CombatService:
    return engine.services.get(CombatService)


def swings(engine: GameEngine, uid: UUID) -> list[str]:
    return [s for s in session_for(engine, uid).sent if s.startswith(("You hit", "You miss"))]


async def tough_rat(engine: GameEngine, hero: UUID) -> UUID:
    make_strong(engine, hero, dexterity=16)
    place(engine, hero, FIELD)
    rat = the(engine, "rpgtest:rat")
    engine.world.add_component(rat, Health(1000, 1000))
    await cmd(engine, hero, "kill rat")
    session_for(engine, hero).sent.clear()
    return rat


async def test_rounds_follow_real_seconds_whatever_the_game_time_does(
    engine: GameEngine,
) -> None:
    hero = new_character(engine)
    await tough_rat(engine, hero)
    assert isinstance(engine.clock, ManualClock)
    for _ in range(9):
        engine.clock.game_time += 600.0  # a huge time scale: game time races ahead
        await engine.run_ticks(1)
    assert len(swings(engine, hero)) == 3  # one a round: 9 real seconds, 3-second rounds


async def test_round_length_is_a_setting(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, settings={"combat_round_seconds": 1.5})
    async with engine.lifespan():
        assert combat(engine).round_seconds == 1.5
        hero = new_character(engine)
        await tough_rat(engine, hero)
        await engine.run_ticks(9)
        assert len(swings(engine, hero)) == 5  # at 0, 2, 4, 6 and 8 seconds (ticks of 1 s)


async def test_the_prompt_with_health_follows_every_round(engine: GameEngine) -> None:
    hero = new_character(engine)
    rat = await tough_rat(engine, hero)
    session = session_for(engine, hero)
    session.prompts.clear()
    await engine.run_ticks(3)  # the hero's round, then the rat's
    assert len(session.prompts) >= 2
    health = engine.world.get_component(hero, Health)
    assert session.prompts[-1].startswith(f"<{health.current}/{health.maximum}hp")
    assert rat != hero


async def test_a_failed_flee_costs_the_next_attack(engine: GameEngine) -> None:
    hero = new_character(engine)
    await tough_rat(engine, hero)
    service = combat(engine)
    service.flee_chance = 0.0
    fighting = engine.world.get_component(hero, Fighting)
    before = fighting.next_round
    assert await cmd(engine, hero, "flee") == "|rYou try to flee, but cannot get away!|n"
    assert fighting.next_round == before + service.round_seconds
    assert ws_of(engine).room_key_of(hero) == FIELD


async def test_getting_away_costs_experience_but_never_a_level(engine: GameEngine) -> None:
    hero = new_character(engine)
    await tough_rat(engine, hero)
    combat(engine).flee_chance = 1.0
    stats = engine.world.get_component(hero, CharacterStats)
    stats.level, stats.experience = 2, 104  # level 2 starts at 100 experience
    out = await cmd(engine, hero, "flee")
    assert out.startswith("|yYou flee north!|n\nYou lose 4 experience.\n|cTown Square|n")
    assert stats.experience == 100
    assert not engine.world.has_component(hero, Fighting)
    await cmd(engine, hero, "south")
    await cmd(engine, hero, "kill rat")
    assert "You lose" not in await cmd(engine, hero, "flee")
    assert stats.experience == 100
    assert await cmd(engine, hero, "flee") == "You are not fighting anyone."


async def test_wimpy_is_shown_set_bounded_and_stored(engine: GameEngine) -> None:
    hero = new_character(engine)
    assert await cmd(engine, hero, "wimpy") == (
        "Your wimpy is off: you fight until you flee or fall."
    )
    assert await cmd(engine, hero, "wimpy 10") == (
        "Wimpy set to 10 hit points: below that you will try to flee."
    )
    assert engine.world.get_component(hero, Wimpy).hp == 10
    assert Wimpy.persist  # kept with the character
    assert await cmd(engine, hero, "wimpy") == "Your wimpy is set to 10 hit points."
    assert await cmd(engine, hero, "wimpy 16") == (
        "Such cowardice ill becomes you: at most 15 (half your health)."
    )
    assert await cmd(engine, hero, "wimpy lots") == (
        "Usage: wimpy <hit points> (a whole number, 0 turns it off)."
    )
    assert engine.world.get_component(hero, Wimpy).hp == 10
    assert await cmd(engine, hero, "wimpy 0") == "Wimpy off: you will fight until you flee or fall."
    assert engine.world.get_component(hero, Wimpy).hp == 0


async def test_wimpy_flees_on_its_own_when_health_runs_low(engine: GameEngine) -> None:
    hero = new_character(engine)
    rat = await tough_rat(engine, hero)
    combat(engine).flee_chance = 1.0
    engine.world.add_component(hero, Health(20, 200))
    await cmd(engine, hero, "wimpy 19")
    combat(engine).apply_damage(hero, 2, attacker=rat)
    text = session_for(engine, hero).text()
    assert "You are badly hurt and try to run!" in text
    assert "You flee north!" in text
    assert ws_of(engine).room_key_of(hero) == SQUARE
    assert not engine.world.has_component(hero, Fighting)


async def test_hostiles_jump_a_newcomer_one_at_a_time(engine: GameEngine) -> None:
    second = spawn_template(engine, "rpgtest:bandit", CAMP)
    hero = new_character(engine)
    make_strong(engine, hero, level=1, hp=300)
    place(engine, hero, CAMP)
    await engine.dispatch_events()
    fighters = [
        b for b in npcs(engine, "rpgtest:bandit") if engine.world.has_component(b, Fighting)
    ]
    assert len(fighters) == 1
    assert second in npcs(engine, "rpgtest:bandit")
    assert session_for(engine, hero).text().count("attacks you!") == 1


async def test_a_band_gangs_up_only_on_someone_above_its_level(engine: GameEngine) -> None:
    spawn_template(engine, "rpgtest:bandit", CAMP)
    hero = new_character(engine)
    make_strong(engine, hero, level=3, hp=300)  # bandits are level 2
    place(engine, hero, CAMP)
    await engine.dispatch_events()
    fighters = [
        b for b in npcs(engine, "rpgtest:bandit") if engine.world.has_component(b, Fighting)
    ]
    assert len(fighters) == 2


async def test_hostiles_leave_alone_those_far_above_their_level(engine: GameEngine) -> None:
    hero = new_character(engine)
    make_strong(engine, hero, level=8, hp=300)  # bandits are level 2: 2 + 5 < 8
    place(engine, hero, CAMP)
    await engine.dispatch_events()
    assert not engine.world.has_component(hero, Fighting)
    engine.world.get_component(hero, CharacterStats).level = 7
    place(engine, hero, ROAD)
    place(engine, hero, CAMP)
    await engine.dispatch_events()
    assert engine.world.has_component(hero, Fighting)


async def test_rest_sleep_wake_and_stand(engine: GameEngine) -> None:
    hero = new_character(engine, "Alice")
    bob = new_character(engine, "Bob")
    place(engine, hero, SQUARE)
    place(engine, bob, SQUARE)
    assert await cmd(engine, hero, "stand") == "You are already standing."
    assert await cmd(engine, hero, "wake") == "You are already awake."
    assert await cmd(engine, hero, "rest") == "You sit down and rest."
    assert "Alice sits down and rests." in session_for(engine, bob).text()
    assert await cmd(engine, hero, "rest") == "You are already resting."
    assert await cmd(engine, hero, "east") == "You are resting. (Type 'stand' to get up first.)"
    assert (await cmd(engine, hero, "exits")).startswith("|gObvious exits:|n")  # moves nobody
    assert await cmd(engine, hero, "stand") == "You stand up."
    assert await cmd(engine, hero, "sleep") == "You lie down and go to sleep."
    assert engine.world.get_component(hero, Posture).stance is Stance.SLEEPING
    assert await cmd(engine, hero, "sleep") == "You are already asleep."
    asleep = "You are asleep. (Type 'wake' to get up.)"
    for line in ("east", "look", "say hello", "get sword", "kill elder", "flee"):
        assert await cmd(engine, hero, line) == asleep, line
    assert "carrying" in await cmd(engine, hero, "inventory")
    assert await cmd(engine, hero, "rest") == "You wake up and sit up."
    assert await cmd(engine, hero, "sleep") == "You lie down and go to sleep."
    assert await cmd(engine, hero, "wake") == "You wake and stand up."
    assert "Alice wakes and stands up." in session_for(engine, bob).text()
    assert not engine.world.has_component(hero, Posture)
    assert await cmd(engine, hero, "sit") == "You sit down and rest."
    assert await cmd(engine, hero, "stand") == "You stand up."
    assert "The Road" in await cmd(engine, hero, "east")


async def test_no_rest_or_sleep_in_a_fight_and_an_attack_wakes(engine: GameEngine) -> None:
    hero = new_character(engine)
    await tough_rat(engine, hero)
    assert await cmd(engine, hero, "rest") == "You cannot rest while you are fighting!"
    assert await cmd(engine, hero, "sleep") == "You cannot sleep while you are fighting!"
    sleeper = new_character(engine, "Bob")
    make_strong(engine, sleeper, level=1, hp=300)
    place(engine, sleeper, ROAD)
    await cmd(engine, sleeper, "sleep")
    place(engine, sleeper, CAMP)  # carried into the bandits' camp asleep
    await engine.dispatch_events()
    assert "You are jolted awake!" in session_for(engine, sleeper).text()
    assert not engine.world.has_component(sleeper, Posture)
    assert engine.world.has_component(sleeper, Fighting)


async def stander_rester_sleeper(engine: GameEngine, health: int) -> tuple[UUID, UUID, UUID]:
    """Three in the square at ``health`` of 100: one standing, one resting, one asleep."""
    stander, rester, sleeper = (new_character(engine, n) for n in ("Ann", "Bea", "Cal"))
    for uid in (stander, rester, sleeper):
        place(engine, uid, SQUARE)
        engine.world.add_component(uid, Health(health, 100))
    await cmd(engine, rester, "rest")
    await cmd(engine, sleeper, "sleep")
    return stander, rester, sleeper


async def test_resting_and_sleeping_heal_faster_in_real_seconds(engine: GameEngine) -> None:
    stander, rester, sleeper = await stander_rester_sleeper(engine, 1)
    assert isinstance(engine.clock, ManualClock)
    engine.clock.game_time += 100_000.0  # game time alone heals nobody
    await engine.run_ticks(1)
    assert engine.world.get_component(stander, Health).current == 1
    await engine.run_ticks(10)  # one share: 5% of 100, twice resting, three times asleep
    gains = [engine.world.get_component(u, Health).current - 1 for u in (stander, rester, sleeper)]
    assert gains == [5, 10, 15]


async def test_a_rester_is_told_once_they_are_full(engine: GameEngine) -> None:
    stander, rester, sleeper = await stander_rester_sleeper(engine, 85)
    await engine.run_ticks(1)
    await engine.run_ticks(10)  # resting +10, asleep +15: only the sleeper is full
    told = [session_for(engine, u).sent.count(FULLY_RESTED) for u in (stander, rester, sleeper)]
    assert told == [0, 0, 1]
    await engine.run_ticks(10)  # the rester fills up; the stander (85 + 10) does not
    told = [session_for(engine, u).sent.count(FULLY_RESTED) for u in (stander, rester, sleeper)]
    assert told == [0, 1, 1]
