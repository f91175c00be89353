"""``@quest chain`` draws branching chains as a tree (history entries as the
generator writes them: one per quest, linked by ``chain_parent_id``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import npc
from kits.heist import admin, character, make_engine

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import session_for
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.history import RECORD_KIND


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        giver = str(npc(engine, "heist:vesk"))
        links = {
            "gen-a-00000001": None,
            "gen-b-00000002": "gen-a-00000001",
            "gen-c-00000003": "gen-a-00000001",
            "gen-d-00000004": "gen-b-00000002",
        }
        engine.services.get(QuestGen).history.load_documents(
            [
                {
                    "quest_id": q,
                    "seed_type": "threat_response",
                    "archetype_id": "threat_elimination",
                    "quest_giver_id": giver,
                    "character_id": None,
                    "source": "generated",
                    "chain_parent_id": parent,
                    "chain_depth": depth,
                    "created_at": float(depth),
                    "sequence": depth + 1,
                    "record_kind": RECORD_KIND,
                }
                for depth, (q, parent) in enumerate(links.items())
            ]
        )
        yield engine


async def test_a_branching_chain(engine: GameEngine) -> None:
    boss = character(engine, "Morgan", level=10)
    session_for(engine, boss, Role.ADMIN).caps.width = 160
    out = await admin(engine, boss, "@quest chain gen-d-00000004")
    lines = out.splitlines()
    assert lines[0].startswith("Chain of gen-d-00000004: depth 2, ancestry gen-a-00000001 ->")
    tree = [line.split(" [")[0] for line in lines[1:-1]]
    assert tree == [
        "  gen-a-00000001",
        "  |-- gen-b-00000002",
        "  |   `-- gen-d-00000004",
        "  `-- gen-c-00000003",
    ]
    assert "<-- this one" in lines[3]
    assert lines[-1] == "2 ancestor(s), 0 descendant(s)"
    out = await admin(engine, boss, "@quest chain gen-a-00000001")
    assert out.splitlines()[-1] == "0 ancestor(s), 3 descendant(s)"
