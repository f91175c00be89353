"""The levelling curve, level-ups, new characters' components and ``score``."""

from __future__ import annotations

from kits.heroes import Recorder, new_character

from classic_rpg.characters.levels import (
    MAX_LEVEL,
    Progression,
    level_for_xp,
    xp_for_level,
    xp_to_next,
)
from classic_rpg.components import (
    Attributes,
    CharacterStats,
    Equipment,
    Health,
    Inventory,
    Mana,
)
from classic_rpg.events import LevelUpEvent
from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for


def test_curve_is_100_times_level_to_the_1_5() -> None:
    assert [xp_to_next(n) for n in range(1, 6)] == [100, 283, 520, 800, 1118]
    assert [xp_for_level(n) for n in range(1, 6)] == [0, 100, 383, 903, 1703]
    assert level_for_xp(0) == 1
    assert level_for_xp(99) == 1
    assert level_for_xp(100) == 2
    assert level_for_xp(902) == 3
    assert level_for_xp(903) == 4
    assert level_for_xp(10**9) == MAX_LEVEL


async def test_new_characters_get_rpg_components(engine: GameEngine) -> None:
    hero = new_character(engine)
    world = engine.world
    stats = world.get_component(hero, CharacterStats)
    assert (stats.level, stats.experience, stats.gold) == (1, 0, 10)
    assert world.get_component(hero, Health).maximum == 30
    assert world.get_component(hero, Mana).maximum == 15
    for ctype in (Attributes, Inventory, Equipment):
        assert world.has_component(hero, ctype)


async def test_experience_levels_up_raising_vitals(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, LevelUpEvent)
    world = engine.world
    world.get_component(hero, Attributes).constitution = 14  # +2 health per level
    world.get_component(hero, Health).current = 5
    progression = engine.services.get(Progression)

    assert progression.award_experience(hero, 99) == 0
    assert world.get_component(hero, CharacterStats).level == 1
    assert progression.award_experience(hero, 300) == 2  # 399 xp: level 3
    await engine.dispatch_events()

    stats = world.get_component(hero, CharacterStats)
    health = world.get_component(hero, Health)
    assert (stats.level, stats.experience) == (3, 399)
    assert (health.current, health.maximum) == (30 + 2 * 12, 30 + 2 * 12)
    assert world.get_component(hero, Mana).maximum == 15 + 2 * 5
    assert [(e.character_id, e.level) for e in rec.of(LevelUpEvent)] == [(hero, 2), (hero, 3)]
    text = session_for(engine, hero).text()
    assert "You gain 300 experience" in text
    assert "You have reached level 3!" in text
    assert (
        "Your maximum health rises to 54 and your maximum mana to 25; both are full again."
    ) in text
    status = [d for p, d in session_for(engine, hero).gmcp if p == "Char.Status"]
    assert status[-1] == {"level": 3, "xp": 399, "xp_next_level": 903, "gold": 10}


async def test_gold_awards_never_go_negative(engine: GameEngine) -> None:
    hero = new_character(engine)
    progression = engine.services.get(Progression)
    assert progression.award_gold(hero, 15, "for the job") == 25
    assert progression.award_gold(hero, -100) == 0
    assert "You receive 15 gold for the job." in session_for(engine, hero).text()


async def test_score_shows_real_values(engine: GameEngine) -> None:
    hero = new_character(engine)
    world = engine.world
    stats = world.get_component(hero, CharacterStats)
    stats.level, stats.experience, stats.gold = 3, 420, 37
    world.add_component(hero, Health(45, 54))
    world.get_component(hero, Attributes).strength = 14
    await cmd(engine, hero, "get sword")
    await cmd(engine, hero, "wield sword")
    out = await cmd(engine, hero, "score")
    assert "Name:|n  Alice" in out  # the world layer's section is still there
    assert "Level:|n 3" in out
    assert "Experience:|n 420/903 (483 to next level)" in out
    assert "Health:|n 45/54" in out
    assert "Mana:|n 15/15" in out
    assert "Gold:|n 37" in out
    assert "Str|n 14" in out
    # rusty sword 2-6, +2 strength, +1 for level 3
    assert "Attack:|n 5-9 (a rusty sword 2-6, +3 from strength and level)" in out
    assert "Carrying:|n 0/30 items, wearing 1" in out


async def test_prompt_and_gmcp_vitals_on_login(engine: GameEngine) -> None:
    from maid_engine.events import CharacterConnectedEvent

    hero = new_character(engine)
    session = session_for(engine, hero)
    engine.events.emit(CharacterConnectedEvent(hero, session.id))
    await engine.dispatch_events()
    assert ("Char.Vitals", {"hp": 30, "maxhp": 30, "mp": 15, "maxmp": 15}) in session.gmcp
    engine.sessions.prompt(session)
    assert session.prompts[-1] == "<30/30hp 15/15mp> "


async def test_login_backfills_missing_components(engine: GameEngine) -> None:
    from maid_engine.events import CharacterConnectedEvent

    hero = new_character(engine)
    engine.world.remove_component(hero, Health)
    engine.world.remove_component(hero, Inventory)
    engine.events.emit(CharacterConnectedEvent(hero, session_for(engine, hero).id))
    await engine.dispatch_events()
    assert engine.world.get_component(hero, Health).maximum == 30
    assert engine.world.has_component(hero, Inventory)


async def test_advance_raises_a_level_as_if_earned(engine: GameEngine) -> None:
    admin = new_character(engine, "Wren")
    bob = new_character(engine, "Bob")
    levels = Recorder(engine, LevelUpEvent)
    health = engine.world.get_component(bob, Health)
    before = health.maximum
    out = await cmd(engine, admin, "@advance bob 4", role=Role.ADMIN)
    assert out == "Bob goes from level 1 to level 4."
    stats = engine.world.get_component(bob, CharacterStats)
    assert (stats.level, stats.experience) == (4, xp_for_level(4))
    assert [e.level for e in levels.of(LevelUpEvent)] == [2, 3, 4]
    assert health.maximum == before + 3 * 10
    assert health.current == health.maximum
    told = session_for(engine, bob).text()
    assert "You gain 903 experience (granted by the staff)." in told
    assert "You have reached level 4!" in told
    # A level is never taken away; bad input says how to use it.
    assert await cmd(engine, admin, "@advance bob 3", role=Role.ADMIN) == (
        "Bob is already level 4; @advance only raises a level (taking levels back"
        " would take back what each one gave)."
    )
    usage = f"Usage: @advance <character> <level> (2 to {MAX_LEVEL})"
    for bad in ("@advance bob", "@advance bob high", "@advance bob 51", "@advance bob 1"):
        assert await cmd(engine, admin, bad, role=Role.ADMIN) == usage
    assert await cmd(engine, admin, "@advance nobody 5", role=Role.ADMIN) == (
        "There is no character called 'nobody'."
    )
    # Staff only.
    assert "goes from" not in await cmd(engine, bob, "@advance bob 9")
    assert stats.level == 4
