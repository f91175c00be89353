"""WorldFacts.is_threat and threats: the threat providers are asked once per game
time, and what they name is indexed by room until anything moves."""

from __future__ import annotations

from uuid import UUID

from kits.engines import qg_of
from questgen_system.qskit import move, npc

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.world.service import WorldService


async def test_provider_threats_are_computed_once_per_game_time(quiet: GameEngine) -> None:
    facts = qg_of(quiet).facts
    voss = npc(quiet, "voss")
    named: list[UUID] = []
    calls: list[float] = []

    def provider(world: object) -> list[tuple[UUID, str]]:
        calls.append(facts.now)
        return [(uid, "bandits") for uid in named]

    facts.threat_providers.append(provider)
    assert not facts.is_threat(voss)
    named.append(voss)
    assert not facts.is_threat(voss)  # same game time: the cached answer
    assert len(calls) == 1
    assert isinstance(quiet.clock, ManualClock)
    quiet.clock.skip(1.0)
    assert facts.is_threat(voss)  # game time moved: recomputed
    assert facts.is_threat(voss)
    assert len(calls) == 2


async def test_provider_threats_of_a_place_follow_moves_at_the_same_game_time(
    quiet: GameEngine,
) -> None:
    """The providers' pairs are indexed by room once per game time and placement;
    a move in between (a command, say) is seen at once, and the providers' order
    is kept whichever rooms are asked for."""
    facts = qg_of(quiet).facts
    gundrik, voss, selena = npc(quiet, "gundrik"), npc(quiet, "voss"), npc(quiet, "selena")
    facts.threat_providers.append(
        lambda world: [(voss, "bandits"), (gundrik, "bandits"), (selena, "wolves")]
    )
    for who in (gundrik, voss, selena):
        await move(quiet, who, "smithy", reason="goto")
    now = facts.now
    smithy, tavern = "ironvale:smithy", "ironvale:tavern"
    assert facts.threats(None, [smithy]) == [voss, gundrik, selena]
    assert facts.threats("wolves", [smithy]) == [selena]
    await move(quiet, voss, "tavern", reason="goto")
    assert facts.now == now  # no tick: only the placement changed
    assert facts.threats(None, [smithy]) == [gundrik, selena]
    assert facts.threats(None, [tavern, smithy]) == [voss, gundrik, selena]
    assert facts.threats(None, [tavern], limit=1) == [voss]
    await move(quiet, voss, "smithy", reason="goto")
    await move(quiet, gundrik, "tavern", reason="goto")
    # Two rooms, the middle pair in the other one: still the providers' order.
    assert facts.threats(None, [tavern, smithy]) == [voss, gundrik, selena]
    assert facts.threats(None, [smithy, tavern]) == [voss, gundrik, selena]
    # An entity the WorldService does not index is looked up by its Position.
    quiet.services.get(WorldService)._unindex(selena)
    assert facts.threats(None, [smithy]) == [voss, selena]
