"""WorldFacts.is_threat and threats: the threat providers are asked once per game
time (what they named kept while each answers with the same tuple); a place's
threats are those of their entities standing in its rooms, in the providers'
order."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, qg_of
from questgen_system.qskit import move

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.world.service import WorldService


@pytest.fixture
async def quiet(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet, the neutral test world, started; these tests never tick, so no story
    detector raises a signal."""
    async with hamlet_engine(tmp_path).lifespan() as engine:
        yield engine


async def test_provider_threats_are_computed_once_per_game_time(quiet: GameEngine) -> None:
    facts = qg_of(quiet).facts
    warden = hv("tamsin")
    named: list[UUID] = []
    calls: list[float] = []

    def provider(world: object) -> list[tuple[UUID, str]]:
        calls.append(facts.now)
        return [(uid, "bandits") for uid in named]

    facts.threat_providers.append(provider)
    assert not facts.is_threat(warden)
    named.append(warden)
    assert not facts.is_threat(warden)  # same game time: the cached answer
    assert len(calls) == 1
    assert isinstance(quiet.clock, ManualClock)
    quiet.clock.skip(1.0)
    assert facts.is_threat(warden)  # game time moved: recomputed
    assert facts.is_threat(warden)
    assert len(calls) == 2


async def test_a_provider_answering_with_the_same_tuple_keeps_what_was_derived(
    quiet: GameEngine,
) -> None:
    """Asked again at each new game time; while the answer is the very tuple it
    was, the pairs, their ids and their entities are not gathered again."""
    facts = qg_of(quiet).facts
    warden, miller = hv("tamsin"), hv("hollin")
    answer: tuple[tuple[UUID, str], ...] = ((warden, "bandits"),)
    calls: list[float] = []

    def provider(world: object) -> tuple[tuple[UUID, str], ...]:
        calls.append(facts.now)
        return answer

    facts.threat_providers.append(provider)
    assert facts.is_threat(warden)
    assert not facts.is_threat(miller)
    pairs, ids = facts._provider_pairs()
    index = facts._provider_entities()
    assert isinstance(quiet.clock, ManualClock)
    quiet.clock.skip(1.0)
    assert facts.is_threat(warden)
    assert len(calls) == 2  # asked again, at the new game time
    assert facts._provider_pairs() == (pairs, ids)
    assert facts._provider_pairs()[0] is pairs  # kept, not gathered again
    assert facts._provider_entities()[1] is index[1]
    answer = ((miller, "bandits"),)  # a new tuple: a new answer
    quiet.clock.skip(1.0)
    assert facts.is_threat(miller)
    assert not facts.is_threat(warden)
    assert facts._provider_pairs()[0] == [(miller, "bandits")]
    assert facts._provider_entities()[1] is not index[1]


async def test_a_provider_answering_with_a_list_is_gathered_at_each_game_time(
    quiet: GameEngine,
) -> None:
    """A list may have changed in place since it was given: never kept."""
    facts = qg_of(quiet).facts
    warden = hv("tamsin")
    answer: list[tuple[UUID, str]] = []
    facts.threat_providers.append(lambda world: answer)
    assert not facts.is_threat(warden)
    answer.append((warden, "bandits"))
    assert isinstance(quiet.clock, ManualClock)
    quiet.clock.skip(1.0)
    assert facts.is_threat(warden)


async def test_provider_threats_of_a_place_follow_moves_at_the_same_game_time(
    quiet: GameEngine,
) -> None:
    """A place's threats are read from where each named entity stands, so a move
    in between two game times (a command, say) is seen at once without indexing
    the providers' pairs again, and the providers' order is kept whichever rooms
    are asked for."""
    facts = qg_of(quiet).facts
    miller, warden, carter = hv("hollin"), hv("tamsin"), hv("pell")
    facts.threat_providers.append(
        lambda world: [(warden, "bandits"), (miller, "bandits"), (carter, "wolves")]
    )
    for who in (miller, warden, carter):
        await move(quiet, who, "hamlet:mill", reason="goto")
    now = facts.now
    mill, inn = "hamlet:mill", "hamlet:inn"
    assert facts.threats(None, [mill]) == [warden, miller, carter]
    assert facts.threats("wolves", [mill]) == [carter]
    kept = facts._provider_entities()
    await move(quiet, warden, "hamlet:inn", reason="goto")
    assert facts.now == now  # no tick: only the placement changed
    assert facts.threats(None, [mill]) == [miller, carter]
    assert facts._provider_entities() is kept  # nothing indexed again
    assert facts.threats(None, [inn, mill]) == [warden, miller, carter]
    assert facts.threats(None, [inn], limit=1) == [warden]
    await move(quiet, warden, "hamlet:mill", reason="goto")
    await move(quiet, miller, "hamlet:inn", reason="goto")
    # Two rooms, the middle pair in the other one: still the providers' order.
    assert facts.threats(None, [inn, mill]) == [warden, miller, carter]
    assert facts.threats(None, [mill, inn]) == [warden, miller, carter]
    # An entity the WorldService does not index is looked up by its Position.
    quiet.services.get(WorldService)._unindex(carter)
    assert facts.threats(None, [mill]) == [warden, carter]


async def test_providers_with_checks_are_asked_about_the_one_entity(quiet: GameEngine) -> None:
    """Every provider has a check: ``is_threat`` asks the checks about the entity
    and never gathers what the providers name; one provider without a check and
    the answers are gathered again, as before."""
    facts = qg_of(quiet).facts
    warden, miller = hv("tamsin"), hv("hollin")
    hostile = {warden}
    gathered: list[float] = []

    def provider(world: object) -> list[tuple[UUID, str]]:
        gathered.append(facts.now)
        return [(uid, "bandits") for uid in hostile]

    facts.threat_providers.append(provider)
    facts.threat_checks[provider] = lambda world, uid: uid in hostile
    assert facts.is_threat(warden)
    assert not facts.is_threat(miller)
    hostile.add(miller)  # seen at once, at the same game time
    assert facts.is_threat(miller)
    assert gathered == []
    facts.threat_providers.append(lambda world: [])
    assert facts.is_threat(warden)
    assert len(gathered) == 1
