"""@quest cancel, expire and invalidate: the quest closes for everyone holding it,
as the quest lifecycle says, and the players are told."""

from __future__ import annotations

from pathlib import Path

from kits.heist import admin, character, force, make_engine, ticks

from classic_rpg.systems.quests import QuestManager
from maid_engine.testing import cmd, session_for


async def test_cancel_expire_and_invalidate(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        await ticks(engine, 2)
        boss = character(engine, "Morgan", level=10)
        cora = character(engine, "Cora", level=8)
        session = session_for(engine, cora)
        manager = engine.services.get(QuestManager)

        async def run(line: str) -> str:
            return " ".join((await admin(engine, boss, line)).split())  # unwrapped

        async def offered(seed_type: str) -> str:
            quest_id = await force(engine, boss, seed_type, "--ignore-cooldown")
            manager.offer_quest(cora, quest_id)
            return quest_id

        first = await offered("rivalry_intervention")
        assert "You accept" in await cmd(engine, cora, f"accept {first}")
        session.sent.clear()
        out = await run(f"@quest cancel {first} the quarrel was settled")
        assert f"({first}) is closed: An admin withdrew it: the quarrel was settled." in out
        assert "1 character(s) told." in out
        told = " ".join(" ".join(session.sent).split())
        assert "An admin withdrew it: the quarrel was settled." in told, told
        assert not manager.is_open(first)
        assert f"'{first}' is already closed: invalidated (cancelled_by_admin)." in await run(
            f"@quest cancel {first}"
        )

        second = await offered("threat_response")
        assert "You accept" in await cmd(engine, cora, f"accept {second}")
        session.sent.clear()
        out = await run(f"@quest expire {second}")
        assert f"({second}) has expired: 1 character(s) had accepted it, 1 held it." in out
        told = " ".join(" ".join(session.sent).split())
        assert "Quest failed" in told
        assert "time ran out" in told

        third = await offered("threat_response")
        session.sent.clear()
        assert "Usage: @quest invalidate" in await run(f"@quest invalidate {third}")
        out = await run(f"@quest invalidate {third} the bridge is gone")
        assert "is closed: The bridge is gone." in out
        assert "The bridge is gone." in " ".join(" ".join(session.sent).split())
        assert "No quest 'nope'" in await run("@quest expire nope")
