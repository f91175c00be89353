"""WorldFacts.is_threat: the threat providers' ids are cached per game time."""

from __future__ import annotations

from uuid import UUID

from questgen_system.qskit import npc, qg_of

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine


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
