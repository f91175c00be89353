"""What players see of characters: ``who`` (level, title, flags, idle), ``score``
(level, xp, vitals, gold, stats, reputation, quests), ``look <player>`` (their
description and equipment), ``title`` and ``describe``."""

from __future__ import annotations

import time
from uuid import UUID

from kits.engines import items_of
from kits.heroes import new_character

from classic_rpg.characters.levels import Progression, xp_for_level
from classic_rpg.components import CharacterStats
from classic_rpg.systems.quests.questlog import QuestLog
from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.living.components import FactionStandings
from maid_stdlib.living.reputation import standing_word
from maid_stdlib.world.who import WhoList, idle_text


def _level(engine: GameEngine, uid: UUID, level: int) -> None:
    engine.world.get_component(uid, CharacterStats).level = level


async def test_who_sorts_by_level_and_shows_titles_flags_and_idle(engine: GameEngine) -> None:
    ada, bob, cy = (new_character(engine, n) for n in ("Ada", "Bob", "Cy"))
    _level(engine, bob, 7)
    _level(engine, cy, 7)
    await cmd(engine, ada, "title the quick")
    session_for(engine, cy).data["role"] = Role.ADMIN
    session_for(engine, bob).data["role"] = Role.BUILDER
    session_for(engine, ada).data["last_input"] = time.time() - 5 * 60 - 3
    engine.services.get(WhoList).add_flag("pk", lambda uid: uid == bob, "PK")
    out = await cmd(engine, ada, "who")
    assert out.splitlines() == [
        "|cPlayers online:|n",
        "  [  7] Bob |y[Builder]|n |y[PK]|n",
        "  [  7] Cy |y[Admin]|n",
        "  [  1] Ada the quick (idle 5m)",
        "3 players online.",
    ]
    assert engine.services.get(WhoList).remove_flag("pk")
    assert "[PK]" not in await cmd(engine, ada, "who")


async def test_a_level_gained_shows_in_the_next_who(engine: GameEngine) -> None:
    ada, bob = (new_character(engine, n) for n in ("Ada", "Bob"))
    assert "  [  1] Ada" in (await cmd(engine, bob, "who")).splitlines()
    engine.services.get(Progression).award_experience(ada, xp_for_level(3))
    await engine.dispatch_events()
    assert (await cmd(engine, bob, "who")).splitlines()[1] == "  [  3] Ada"


def test_idle_times_read_as_minutes_and_hours() -> None:
    assert idle_text(59) == ""
    assert idle_text(61) == "1m"
    assert idle_text(3600 + 5 * 60) == "1h05m"


async def test_title_is_set_shown_cleaned_and_cleared(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    assert await cmd(engine, ada, "title") == "Your title: (none)"
    assert await cmd(engine, ada, "title the |rred|n") == "Your title is now: the ||rred||n"
    assert "A title is at most 40" in await cmd(engine, ada, "title " + "x" * 41)
    assert await cmd(engine, ada, "title clear") == "Your title is cleared."
    assert await cmd(engine, ada, "title") == "Your title: (none)"


async def test_score_shows_level_xp_vitals_stats_reputation_and_quests(
    engine: GameEngine,
) -> None:
    ada = new_character(engine, "Ada")
    out = await cmd(engine, ada, "score")
    assert "|cLevel:|n 1   |cExperience:|n 0/100 (100 to next level)" in out
    assert "|cHealth:|n 30/30" in out
    assert "|cGold:|n 10" in out
    assert "|cStr|n 10" in out
    assert "|cQuests:|n none done yet" in out
    assert "Reputation" not in out
    engine.world.add_component(ada, FactionStandings({"village": 0.4, "raiders": -0.8}))
    log = QuestLog(turn_ins={"a": 2, "b": 1})
    engine.world.add_component(ada, log)
    out = await cmd(engine, ada, "score")
    assert "|cReputation:|n raiders: hated (-0.8); village: friendly (+0.4)" in out
    assert "|cQuests:|n 3 done, 0 under way" in out
    assert [standing_word(v) for v in (1.0, 0.2, 0.0, -0.5, -1.0)] == [
        "honoured",
        "friendly",
        "neutral",
        "unfriendly",
        "hated",
    ]


async def test_look_at_a_player_shows_description_and_equipment(engine: GameEngine) -> None:
    ada, bob = new_character(engine, "Ada"), new_character(engine, "Bob")
    assert "Bob is not using any equipment." in await cmd(engine, ada, "look bob")
    assert await cmd(engine, bob, "describe") == "Others see: (nothing special)"
    assert "at most 400" in await cmd(engine, bob, "describe " + "y" * 401)
    said = await cmd(engine, bob, "describe A tall miner with |ysoot|n on his hands.")
    assert said == "Others now see: A tall miner with ||ysoot||n on his hands."
    items_of(engine).spawn("rpgtest:sword", holder=bob)
    await cmd(engine, bob, "wield sword")
    out = await cmd(engine, ada, "look bob")
    assert out.splitlines() == [
        "|cBob|n",
        "A tall miner with ||ysoot||n on his hands.",
        "Bob is using:",
        "  <weapon> a rusty sword",
    ]
    mine = await cmd(engine, bob, "look me")
    assert "You are using:" in mine
    assert await cmd(engine, bob, "describe clear") == "Your description is cleared."
    assert "You see nothing special about Bob." in await cmd(engine, ada, "look bob")
