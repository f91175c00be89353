"""The builder views: @living and @story."""

from __future__ import annotations

import re
from pathlib import Path

from living.livingkit import hamlet_pack, make_engine, run_hours

from maid_engine.commands import Role
from maid_engine.testing import cmd


async def test_at_living_and_at_story(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        await run_hours(engine, 6)
        out = await cmd(engine, None, "@living hollin", role=Role.BUILDER)
        assert "need economic: 0.30 (threshold 0.40)" in out
        assert "UNMET" in out
        assert "goal get_iron [blocked] Get iron" in out
        assert "blocked by bandits at the Copse" in out
        assert "knows (1.00): Bandits have been seen on the Mill Road." in out
        assert "remembers (public" in out
        out = await cmd(engine, None, "@living nobody", role=Role.BUILDER)
        assert "There is no NPC called 'nobody'." in out
        # One resolver: the key, the key without its pack, a keyword, a name's start.
        for name in ("hamlet:hollin", "miller", "holl"):
            assert "need economic" in await cmd(
                engine, None, f"@living {name}", role=Role.BUILDER
            ), name
        out = await cmd(engine, None, "@story", role=Role.BUILDER)
        assert "GOAL_BLOCKED [strained] goal_blocked:" in out
        # Names, not the entity ids the keys are made of.
        assert "goal_blocked:Hollin" in out
        assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-", out)
        assert "THREAT_DETECTED [3-5] threat:bandits:hamlet:mill_road" in out
        out = await cmd(engine, None, "@story now", role=Role.BUILDER)
        assert out.startswith("Detected now: 0 new signal(s).")
        assert "Usage: @living <npc>" in await cmd(engine, None, "@living", role=Role.BUILDER)
