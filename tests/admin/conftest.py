"""The world the @quest tests read, built once per module through the real pipeline:

* ``expired``: a force-generated threat quest whose expiry the clock passed;
* ``heist``: generated from real state (the guard left the strongroom), played by
  Aria through commands and turned in;
* ``chained``: the follow-up the heist's consequences raised (parent: ``heist``);
* ``active``: a force-generated quest Cora accepted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from kits.engines import skip
from kits.heist import LoopWorld, character, do_heist, force, make_engine, ticks, until_quest

from classic_rpg.systems.quests import QuestManager
from maid_engine.clock import GAME_HOUR
from maid_engine.commands import Role
from maid_engine.testing import cmd, session_for
from maid_stdlib.questgen.generation_config import QuestGenerationConfig


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def loop_world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LoopWorld]:
    tmp: Path = tmp_path_factory.mktemp("loop")
    # The module's world takes several quests within hours (a forced one, the heist,
    # its follow-up): these tests read the reports, not the day's pace (the
    # pipeline's own tests do), so the daily cap is off whatever its value.
    engine = make_engine(tmp, config=QuestGenerationConfig(max_quests_per_day=None))
    async with engine.lifespan():
        await ticks(engine, 2)
        boss = character(engine, "Morgan", level=10)
        # A wide window: these tests read the reports; test_pager covers narrow ones.
        caps = session_for(engine, boss, Role.ADMIN).caps
        caps.width, caps.height = 160, 500
        expired = await force(engine, boss, "threat_response")
        skip(engine, 25 * GAME_HOUR)
        await ticks(engine, 2)
        heist = await until_quest(engine, "heist")
        thief = character(engine, "Aria")
        await do_heist(engine, thief, heist)
        chained = await until_quest(engine, "investigation", limit=20)
        player = character(engine, "Cora", level=8)
        active = await force(engine, boss, "rivalry_intervention")
        engine.services.get(QuestManager).offer_quest(player, active)
        out = await cmd(engine, player, f"accept {active}")
        assert "You accept" in out, out
        yield LoopWorld(engine, boss, thief, player, expired, heist, chained, active)
