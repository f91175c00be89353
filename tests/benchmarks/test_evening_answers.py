"""The evening mix knows the game's answers: a step refused in a fight is an
answer too. A step whose answer the load client did not recognise left that
player waiting for a room it would never see, and made the evening's walking
verbs read 100 s at p99."""

from __future__ import annotations

from pathlib import Path

from kits.engines import hamlet_engine
from kits.heroes import make_strong, new_character, place

from benchmarks.loadclient import EVENING_MIX
from maid_engine.testing import cmd

STEPS = {command: markers for _, command, markers in EVENING_MIX if command in {"north", "east"}}


def _answered(command: str, out: str) -> bool:
    markers = STEPS[command]
    assert markers is not None
    return any(m.decode() in out for m in markers)


async def test_every_answer_to_a_step_is_recognised(tmp_path: Path) -> None:
    async with hamlet_engine(tmp_path, rpg=True, tick=None).lifespan() as engine:
        hero = new_character(engine, "Alice")
        make_strong(engine, hero, hp=500)
        place(engine, hero, "hamlet:road_copse")
        for command in ("north", "east"):
            out = await cmd(engine, hero, command)
            assert _answered(command, out), out
            place(engine, hero, "hamlet:road_copse")
        assert "You attack" in await cmd(engine, hero, "kill wolf")
        out = await cmd(engine, hero, "north")
        assert "for your life" in out
        assert _answered("north", out), out
