"""The demo: Ironvale's cellar under the bandit camp."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from narration.narrkit import NarrationPack, block, fast, player, scripted, service, settle

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.packcheck import check_pack
from maid_engine.testing import cmd
from maid_stdlib.living.api import get_relationship
from maid_stdlib.world import NPC, WorldService
from maid_stdlib.worldstate import NarratedNPCStats, lint_schema, load_schema_file

CELLAR = "ironvale:camp_cellar"
SCHEMA = Path(__file__).resolve().parents[2] / "content_packs/ironvale/narrated/bandit_camp.yaml"


@pytest.fixture
async def ironvale(tmp_path: Path) -> AsyncIterator[GameEngine]:
    engine = GameEngine(
        Settings(data_dir=tmp_path),
        clock=ManualClock(),
        packs=["ironvale", NarrationPack],
        use_store=False,
    )
    async with engine.lifespan():
        yield engine


def test_the_demo_data_checks_clean_and_its_schema_passes_lint() -> None:
    assert check_pack("ironvale", also=[NarrationPack]) == []
    assert lint_schema(load_schema_file(SCHEMA)) == []


async def test_the_cellar_is_below_the_camp_and_gwen_waits_there(ironvale: GameEngine) -> None:
    ws = ironvale.services.get(WorldService)
    assert ws.exits_of("ironvale:bandit_camp")["down"] == CELLAR
    assert ws.exits_of(CELLAR) == {"up": "ironvale:bandit_camp"}
    gwen = service(ironvale).rooms[CELLAR].npcs["gwen"]
    assert ironvale.world.get_component(gwen, NPC).template == "ironvale:gwen"
    assert ws.room_key_of(gwen) == CELLAR
    hero, _ = player(ironvale, "Aldric", room=CELLAR)
    assert "Gwen is here." in await cmd(ironvale, hero, "look")
    assert "Gwen" in await cmd(ironvale, hero, "state")


async def test_a_turn_in_the_cellar(ironvale: GameEngine) -> None:
    fast(
        ironvale,
        scripted(
            block(
                '{"npc.gwen.trust": +10, "flags.alarm_raised": true}',
                "The padlock clangs against the bars; boots stop overhead.",
            )
        ),
    )
    hero, session = player(ironvale, "Aldric", room=CELLAR)
    await cmd(ironvale, hero, "rattle the padlock")
    await settle(service(ironvale).drain())
    assert "boots stop overhead" in session.text()
    assert "Gwen's trust in you +10" in session.text()
    assert "alarm raised on" in session.text()
    gwen = service(ironvale).rooms[CELLAR].npcs["gwen"]
    # Her trust is her relationship toward the hero: 0.20 to start, 0.30 now.
    rel = get_relationship(ironvale.world, gwen, hero)
    assert rel is not None
    assert rel.trust == pytest.approx(0.30)
    assert "trust" not in ironvale.world.get_component(gwen, NarratedNPCStats).values
    # The rest of the game still answers as before, here too.
    assert "Huh?" not in await cmd(ironvale, hero, "inventory")
    await cmd(ironvale, hero, "up")
    assert ws_room(ironvale, hero) == "ironvale:bandit_camp"
    assert "Huh? 'rattle' is not a command" in await cmd(ironvale, hero, "rattle the tents")


def ws_room(engine: GameEngine, uid: object) -> str | None:
    return engine.services.get(WorldService).room_key_of(uid)  # type: ignore[arg-type]
