"""GMCP ``World.State``: what ``state`` shows, sent to client UIs when it changed."""

from __future__ import annotations

from typing import Any

from narration.narrkit import CAMP, CELLAR, block, fast, player, scripted, service, settle

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import FakeSession, cmd
from maid_stdlib.world import WorldService


def states(session: FakeSession) -> list[Any]:
    return [d for p, d in session.gmcp if p == "World.State"]


async def test_world_state_is_sent_on_entering_after_a_turn_and_on_leaving(
    engine: GameEngine,
) -> None:
    fast(engine, scripted(block('{"player.hp": -35, "milestones.rescue_gwen": true}')))
    hero, session = player(engine, "Aldric", room=CAMP)
    builder, _ = player(engine, "Bryn", room=CAMP, role=Role.BUILDER)
    await engine.tick()
    assert states(session) == []  # never in a narrated room: nothing to clear
    ws = engine.services.get(WorldService)
    ws.move(hero, CELLAR)
    await engine.dispatch_events()
    await engine.tick()
    [first] = states(session)
    assert first["room"] == CELLAR
    assert first["name"] == "The Cellar"
    hp = {
        "name": "hp",
        "label": "hp",
        "value": 90,
        "min": 0,
        "max": 100,
        "band": "full health",
    }
    assert hp in first["you"]
    assert {"name": "day", "label": "day", "value": 1, "min": 1, "counter": True} in first["world"]
    [gwen] = first["npcs"]
    assert (gwen["id"], gwen["name"]) == ("gwen", "Gwen")
    assert gwen["stats"][0]["band"] == "wary"
    assert first["flags"] == {"has_key": False}
    assert {"id": "rescue_gwen", "text": "Rescue Gwen from the bandits", "done": False} in first[
        "goals"
    ]
    await engine.tick()
    assert len(states(session)) == 1  # nothing changed

    await cmd(engine, hero, "act smash the lock")
    await settle(service(engine).drain())
    await engine.tick()
    after = states(session)[-1]
    assert {**hp, "value": 60, "band": "healthy"} in after["you"]  # -35 limited to -30
    assert {"id": "rescue_gwen", "text": "Rescue Gwen from the bandits", "done": True} in after[
        "goals"
    ]
    ws.move(builder, CELLAR)
    await engine.dispatch_events()
    await cmd(engine, builder, "@state set flags.has_key true", role=Role.BUILDER)
    await engine.tick()
    assert states(session)[-1]["flags"] == {"has_key": True}

    count = len(states(session))
    ws.move(hero, CAMP)
    await engine.dispatch_events()
    await engine.tick()
    assert states(session)[count:] == [{}]  # left: the UI clears it, once
    await engine.tick()
    assert len(states(session)) == count + 1
