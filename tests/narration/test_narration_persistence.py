"""Stats, milestones and the turn log survive a restart (SQLite and PostgreSQL)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from narration.narrkit import (
    CELLAR,
    NarrationPack,
    block,
    data_pack,
    fast,
    make_engine,
    player,
    room_id,
    scripted,
    service,
    settle,
    write_pack,
)

from maid_engine.content import PackError
from maid_engine.ecs import Component
from maid_engine.engine import GameEngine
from maid_engine.packcheck import check_pack
from maid_engine.store import Store
from maid_engine.testing import FakeSession, cmd
from maid_stdlib.narration import COLLECTION, NarratedRoom
from maid_stdlib.world import data_uuid
from maid_stdlib.worldstate import NarratedNPCStats, NarratedPlayerStats, NarratedRoomState

GWEN = data_uuid("testpack", "narrated_npc", f"{CELLAR}:gwen")


@dataclass
class Pouch(Component):
    """Coins a character carries (a test component: something two players can trade)."""

    coins: int = 0


async def act(engine: GameEngine, actor: Any, line: str) -> None:
    await cmd(engine, actor, line)
    await settle(service(engine).drain())


async def test_stats_and_the_log_survive_a_restart(
    pack_root: Path, tmp_path: Path, db_url: str
) -> None:
    first = make_engine(pack_root, tmp_path / "data", database_url=db_url)
    async with first.lifespan():
        fast(
            first,
            scripted(
                block(
                    '{"player.hp": -10, "npc.gwen.trust": +10, "world.day": +1, '
                    '"milestones.rescue_gwen": true}',
                    "Aldric frees Gwen.",
                )
            ),
        )
        hero, _ = player(first, "Aldric")
        await act(first, hero, "act free gwen")
        # Stored by the turn's own transaction, before any checkpoint.
        other = Store(db_url)
        await other.open()
        try:
            rows = await other.entities.load_all()
        finally:
            await other.close()
        assert rows[hero]["NarratedPlayerStats"]["values"][CELLAR]["hp"] == 80
        assert "PlayerCharacter" in rows[hero]
        assert rows[GWEN]["NarratedNPCStats"]["values"]["trust"] == 30

    second = make_engine(pack_root, tmp_path / "data", database_url=db_url)
    async with second.lifespan():
        world = second.world
        assert world.get_component(hero, NarratedPlayerStats).values[CELLAR]["hp"] == 80
        assert world.get_component(GWEN, NarratedNPCStats).values["trust"] == 30
        room = room_id(second, CELLAR)
        state = world.get_component(room, NarratedRoomState)
        assert state.world["day"] == 2
        assert state.milestones == {"rescue_gwen": 1}
        assert world.get_component(room, NarratedRoom).action_index == 1
        assert service(second).rooms[CELLAR].npcs["gwen"] == GWEN  # found, not spawned again
        model = scripted("Gwen nods.")
        fast(second, model)
        second.sessions.attach(FakeSession(), hero)
        await act(second, hero, "act thank gwen")
        replayed = [m["content"] for m in model.requests[0].messages if m["role"] == "assistant"]
        assert replayed
        assert replayed[0].startswith("Aldric frees Gwen.")
        await act(second, hero, "undo")
        await act(second, hero, "undo")  # the turn from before the restart
        assert world.get_component(hero, NarratedPlayerStats).values[CELLAR]["hp"] == 90
        assert world.get_component(room, NarratedRoomState).milestones == {}


async def test_a_turn_is_stored_with_the_other_side_of_a_trade(
    pack_root: Path, tmp_path: Path, db_url: str
) -> None:
    engine = make_engine(pack_root, tmp_path / "data", database_url=db_url)
    async with engine.lifespan():
        fast(engine, scripted(block('{"player.hp": -10}', "Aldric counts the coins.")))
        aldric, _ = player(engine, "Aldric")
        bryn, _ = player(engine, "Bryn")
        engine.world.add_component(aldric, Pouch(0))
        engine.world.add_component(bryn, Pouch(5))
        await engine.checkpoint()
        # Bryn hands Aldric her coins, then Aldric acts: the turn touches only Aldric.
        engine.world.get_component(bryn, Pouch).coins = 0
        engine.world.get_component(aldric, Pouch).coins = 5
        await act(engine, aldric, "act count the coins")
        other = Store(db_url)
        await other.open()
        try:
            rows = await other.entities.load_all()
            turns = await other.documents.query(COLLECTION, {"actor_name": "Aldric"})
        finally:
            await other.close()
        assert [t["outcome"] for t in turns] == ["ok"]
        assert rows[aldric]["NarratedPlayerStats"]["values"][CELLAR]["hp"] == 80
        # Both sides of the trade, never the actor's alone (five coins counted twice).
        assert (rows[aldric]["Pouch"]["coins"], rows[bryn]["Pouch"]["coins"]) == (5, 0)
        assert await engine.checkpoint() == 0  # nothing left for the checkpoint


async def test_a_slain_schema_npc_is_not_spawned_again(pack_root: Path, tmp_path: Path) -> None:
    first = make_engine(pack_root, tmp_path / "data")
    async with first.lifespan():
        async with first.world_lock:
            first.world.destroy_entity(GWEN)
            await first.dispatch_events()
    second = make_engine(pack_root, tmp_path / "data")
    async with second.lifespan():
        assert not second.world.entity_exists(GWEN)
        assert "gwen" not in service(second).rooms[CELLAR].npcs


async def test_a_spawned_npc_can_be_looked_at(engine: GameEngine) -> None:
    hero, _ = player(engine, "Aldric")
    out = await cmd(engine, hero, "look")
    assert "Gwen is here." in out
    assert "A ranger held in a cage." in await cmd(engine, hero, "look ranger")


async def test_a_broken_schema_is_a_data_problem(tmp_path: Path) -> None:
    bad = {"player": {"hp": {"min": 0, "max": 100, "initial": 150}, "mana": {"maxx": 1}}}
    root = write_pack(tmp_path / "testpack", schema=bad)
    engine = make_engine(root, tmp_path / "data", use_store=False)
    with pytest.raises(PackError) as err:
        await engine.start()
    await engine.stop()
    message = str(err.value)
    assert "narrated/cellar.yaml:2: room 'cellar' (" in message
    assert "narrated: invalid stat schema: " in message
    assert "player.mana: unknown key 'maxx'" in message
    assert "player.hp: initial 150 is above max 100" in message


async def test_schema_file_and_inline_schema_are_exclusive(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "testpack", cellar={"schema_file": "x.yaml", "stat_schema": {}})
    problems = check_pack(data_pack(root), also=[NarrationPack])
    assert any("give schema_file or stat_schema, not both" in p for p in problems)
