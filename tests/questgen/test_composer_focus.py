"""Composition at scale: groundings reused briefly, seeds that stay readable in a
crowd, place names that do not make one story of every place."""

from __future__ import annotations

from uuid import UUID

import pytest
from questgen.qgkit import Town, threat_signal

from maid_stdlib.questgen import BasicSignal, SeedEvaluator
from maid_stdlib.questgen.enrich import STAKES_NAMES
from maid_stdlib.questgen.rejection import Rejection


async def test_a_grounding_is_reused_within_its_ttl_and_redone_after(town: Town) -> None:
    evaluator = town.qg.evaluator()
    signal = threat_signal(town)
    first = evaluator.ground_cached(signal)
    assert not isinstance(first, Rejection)
    assert evaluator.ground_cached(signal) is first
    # Another object with the same content is another signal: grounded afresh.
    assert evaluator.ground_cached(threat_signal(town)) is not first
    town.skip(SeedEvaluator.GROUND_TTL)
    later = evaluator.ground_cached(signal)
    assert not isinstance(later, Rejection), later
    assert later is not first


async def test_a_crowded_signal_gives_a_seed_of_a_few_people(
    town: Town,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Everyone aware of a threat is listed by the story layer; the seed keeps the
    first MAX_INVOLVED_NPCS (in the signal's order) and the stakes name a few."""
    monkeypatch.setattr(SeedEvaluator, "MAX_INVOLVED_NPCS", 2)
    crowd = [town.brann, town.orla, town.tam, town.hermit]
    signal = BasicSignal(
        "THREAT_DETECTED",
        0.7,
        crowd,
        {"threat_source": "wolves", "threat_location": "brookhaven:clearing"},
    )
    seed = await town.qg.evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection)
    assert seed.primary_npc == town.brann
    assert seed.involved_npcs == [town.orla, town.tam]


async def test_the_stakes_name_a_few_and_count_the_rest(town: Town) -> None:
    from maid_stdlib.questgen.contract import SeedGrounding
    from maid_stdlib.questgen.enrich import enrich

    others: list[UUID] = [town.brann, town.orla, town.tam, town.hermit, town.alpha]
    assert len(others) > STAKES_NAMES
    grounding = SeedGrounding(town.hilda, "brookhaven:square", {}, others)
    extra = enrich(town.qg.facts, town.hilda, grounding, "brookhaven:square", [], 0.6)
    named = [town.qg.facts.name(u) for u in others]
    for name in named[:STAKES_NAMES]:
        assert name in extra.stakes
    assert named[STAKES_NAMES] not in extra.stakes
    assert f"{len(others) - STAKES_NAMES} others will feel it too" in extra.stakes


async def test_places_whose_names_share_a_word_are_not_one_story(town: Town) -> None:
    ws = town.qg.facts.ws
    woods = ws.area("brookhaven:woods")
    assert woods is not None
    woods.name = "Brookhaven Woods"  # shares "Brookhaven" with the town's name
    composer = town.qg.composer()
    evaluator = composer.evaluator
    in_woods = evaluator.ground(
        BasicSignal(
            "THREAT_DETECTED",
            0.7,
            [town.brann],
            {"threat_source": "wolves", "threat_location": "brookhaven:clearing"},
        )
    )
    in_town = evaluator.ground(
        BasicSignal(
            "RIVALRY_ESCALATION",
            0.7,
            [town.tam],
            {
                "npc_a": str(town.hilda),
                "npc_b": str(town.tam),
                "cause": "flour prices",
                "trust_level": -0.5,
            },
        )
    )
    assert not isinstance(in_woods, Rejection), in_woods
    assert not isinstance(in_town, Rejection), in_town
    assert not composer.related(in_woods, in_town)
    # Naming the other's place is a relation: the smugglers are Brookhaven's worry.
    named = evaluator.ground(
        BasicSignal(
            "THREAT_DETECTED",
            0.7,
            [town.brann],
            {"threat_source": "Brookhaven smugglers", "threat_location": "brookhaven:clearing"},
        )
    )
    assert not isinstance(named, Rejection)
    assert composer.related(named, in_town)
    assert composer.related(in_town, named)


def test_clusters_from_the_index_are_the_pairwise_relation_closed() -> None:
    """``cluster`` joins signals through an index of what relates them; the groups
    (and their order) must be those of testing every pair with ``_linked``."""
    import random
    from types import SimpleNamespace
    from typing import Any

    from maid_stdlib.questgen.composer import CompoundSeedComposer

    composer = CompoundSeedComposer.__new__(CompoundSeedComposer)

    def pairwise(signals: list[Any]) -> list[list[Any]]:
        parent = list(range(len(signals)))

        def find(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for i in range(len(signals)):
            for j in range(i + 1, len(signals)):
                if CompoundSeedComposer._linked(signals[i].links, signals[j].links):
                    parent[find(i)] = find(j)
        groups: dict[int, list[Any]] = {}
        for i, s in enumerate(signals):
            groups.setdefault(find(i), []).append(s)
        return list(groups.values())

    rng = random.Random(5)

    def some(pool: Any, most: int) -> set[Any]:
        return set(rng.sample(list(pool), rng.randint(0, most)))

    for _ in range(2000):
        signals = [
            SimpleNamespace(
                links=(
                    some(range(8), 2),
                    some("abcdef", 1),
                    some(["w1", "w2", "w3", "w4"], 2),
                    some(["w1", "w2", "w5", "w6"], 2),
                )
            )
            for _ in range(rng.randint(0, 12))
        ]
        assert composer.cluster(signals) == pairwise(signals)  # type: ignore[arg-type]


async def test_a_seed_counts_at_most_a_few_threats(
    town: Town,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Difficulty and duration come from the first THREATS_COUNTED threats: in a big
    world a province's every bandit was counted (hours of estimated fighting)."""
    from maid_stdlib.questgen import enrich as enrich_module

    signal = threat_signal(town)
    evaluator = town.qg.evaluator()
    full = await evaluator.evaluate(signal)
    assert not isinstance(full, Rejection), full
    assert len(town.wolves) + 1 > 1
    monkeypatch.setattr(enrich_module, "THREATS_COUNTED", 1)
    town.skip(SeedEvaluator.COOLDOWN_PER_NPC + 1)
    capped = await evaluator.evaluate(threat_signal(town))
    assert not isinstance(capped, Rejection)
    per_threat = enrich_module.MINUTES_PER_THREAT
    fewer = len(town.wolves) + 1 - 1  # the wolves and the alpha, less the one counted
    assert full.estimated_duration_minutes - capped.estimated_duration_minutes == (
        fewer * per_threat
    )
