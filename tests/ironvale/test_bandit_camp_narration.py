"""The demo: Ironvale's cellar under the bandit camp."""

from __future__ import annotations

from pathlib import Path

import pytest
from narration.narrkit import NarrationPack, block, fast, player, scripted, service, settle

from maid_engine.engine import GameEngine
from maid_engine.packcheck import check_pack
from maid_engine.testing import cmd
from maid_stdlib.living.api import get_relationship
from maid_stdlib.world import NPC, WorldService
from maid_stdlib.worldstate import NarratedNPCStats, lint_schema, load_schema_file

CELLAR = "ironvale:camp_cellar"
SCHEMA = Path(__file__).resolve().parents[2] / "content_packs/ironvale/narrated/bandit_camp.yaml"


def test_the_demo_data_checks_clean_and_its_schema_passes_lint() -> None:
    assert check_pack("ironvale", also=[NarrationPack]) == []
    assert lint_schema(load_schema_file(SCHEMA)) == []


async def test_the_cellar_is_below_the_camp_and_gwen_waits_there(
    narrated_ironvale: GameEngine,
) -> None:
    ws = narrated_ironvale.services.get(WorldService)
    assert ws.exits_of("ironvale:bandit_camp")["down"] == CELLAR
    assert ws.exits_of(CELLAR) == {"up": "ironvale:bandit_camp"}
    gwen = service(narrated_ironvale).rooms[CELLAR].npcs["gwen"]
    assert narrated_ironvale.world.get_component(gwen, NPC).template == "ironvale:gwen"
    assert ws.room_key_of(gwen) == CELLAR
    hero, _ = player(narrated_ironvale, "Aldric", room=CELLAR)
    assert "Gwen is here." in await cmd(narrated_ironvale, hero, "look")
    assert "Gwen" in await cmd(narrated_ironvale, hero, "state")


async def test_a_turn_in_the_cellar(narrated_ironvale: GameEngine) -> None:
    fast(
        narrated_ironvale,
        scripted(
            block(
                '{"npc.gwen.trust": +10, "flags.alarm_raised": true}',
                "The padlock clangs against the bars; boots stop overhead.",
            )
        ),
    )
    hero, session = player(narrated_ironvale, "Aldric", room=CELLAR)
    await cmd(narrated_ironvale, hero, "rattle the padlock")
    await settle(service(narrated_ironvale).drain())
    assert "boots stop overhead" in session.text()
    assert "Gwen's trust in you +10" in session.text()
    assert "alarm raised on" in session.text()
    gwen = service(narrated_ironvale).rooms[CELLAR].npcs["gwen"]
    # Her trust is her relationship toward the hero: 0.20 to start, 0.30 now.
    rel = get_relationship(narrated_ironvale.world, gwen, hero)
    assert rel is not None
    assert rel.trust == pytest.approx(0.30)
    assert "trust" not in narrated_ironvale.world.get_component(gwen, NarratedNPCStats).values
    # The rest of the game still answers as before, here too.
    assert "Huh?" not in await cmd(narrated_ironvale, hero, "inventory")
    await cmd(narrated_ironvale, hero, "up")
    assert ws_room(narrated_ironvale, hero) == "ironvale:bandit_camp"
    assert "Huh? 'rattle' is not a command" in await cmd(
        narrated_ironvale, hero, "rattle the tents"
    )


def ws_room(engine: GameEngine, uid: object) -> str | None:
    return engine.services.get(WorldService).room_key_of(uid)  # type: ignore[arg-type]
