"""ArchetypeRegistry: registration, and scoring that reads the registry (packs' too)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from questgen.qgkit import Town, goal_signal, threat_signal

from maid_stdlib.questgen import ArchetypeRegistry, ObjectivePatterns, QuestArchetype, QuestSeed
from maid_stdlib.questgen.rejection import Rejection


def _arch(aid: str, *types: str, **kw: Any) -> QuestArchetype:
    return QuestArchetype(
        archetype_id=aid,
        name=aid,
        objective_pattern=ObjectivePatterns.CLEAR,
        compatible_seed_types=list(types),
        **kw,
    )


def test_register_rejects_duplicates_unless_replacing() -> None:
    registry = ArchetypeRegistry([_arch("a", "x")])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(_arch("a", "y"))
    registry.register(_arch("a", "y"), replace=True)
    replaced = registry.get("a")
    assert replaced is not None
    assert replaced.compatible_seed_types == ["y"]
    assert registry.unregister("a")
    assert len(registry) == 0


async def test_scoring_reads_the_registry_so_pack_archetypes_are_chosen(town: Town) -> None:
    seed = await town.qg.evaluator().evaluate(threat_signal(town, threat_location="Darkwood"))
    assert not isinstance(seed, Rejection)
    assert town.qg.select_archetype(seed).archetype_id == "clear_out"  # type: ignore[union-attr]
    # A pack registers a better fit later: it is scored because scoring reads the registry.
    # The test changes a registry of the running engine (the seam a reload would use).
    town.engine.registries.unlock()
    town.qg.register_archetype(
        _arch("wolf_hunt", "threat_response", requires_combat=True, requires_exploration=True)
    )
    assert town.qg.select_archetype(seed).archetype_id == "wolf_hunt"  # type: ignore[union-attr]


async def test_score_rules(town: Town) -> None:
    registry = ArchetypeRegistry()
    seeds = await town.qg.composer().compose([goal_signal(town), threat_signal(town)])
    seed = seeds[0]  # threat_response, secondary goal_assistance, combat + exploration
    primary = _arch("p", "threat_response")
    secondary = _arch("s", "goal_assistance")
    neither = _arch("n", "mystery")
    fighty = _arch("f", "threat_response", requires_combat=True)
    social = _arch("so", "threat_response", requires_social=True)
    picky = _arch("m", "threat_response", min_importance=0.99)
    assert registry.score(primary, seed) == 1.0
    assert registry.score(secondary, seed) == ArchetypeRegistry.SECONDARY_MATCH
    assert registry.score(neither, seed) == 0.0
    assert registry.score(fighty, seed) == pytest.approx(1.2)
    assert registry.score(social, seed) == pytest.approx(1.2)  # Brann and Orla are involved
    assert registry.score(picky, seed) == 0.0
    assert registry.score(primary, seed, ["p", "p"]) == pytest.approx(0.7)


async def test_ranking_respects_usable_and_breaks_ties_reproducibly(town: Town) -> None:
    seed = await town.qg.evaluator().evaluate(threat_signal(town))
    assert not isinstance(seed, Rejection)
    registry = ArchetypeRegistry([_arch(f"a{i}", "threat_response") for i in range(5)])
    first = [r.archetype.archetype_id for r in registry.ranked(seed, rng=random.Random(3))]
    again = [r.archetype.archetype_id for r in registry.ranked(seed, rng=random.Random(3))]
    assert first == again
    assert sorted(first) == [f"a{i}" for i in range(5)]
    usable = registry.ranked(seed, usable=lambda a: a.archetype_id == "a2")
    assert [r.archetype.archetype_id for r in usable] == ["a2"]


async def test_archetypes_whose_pattern_cannot_use_the_seed_are_skipped(town: Town) -> None:
    seed = await town.qg.evaluator().evaluate(goal_signal(town))
    # goal_assistance: "errand" (FETCH) fits, but needs item_template
    assert isinstance(seed, QuestSeed)
    # The goal is after iron, which the world has: without the item, no errand.
    assert seed.item_template == "brookhaven:iron_ore"
    seed.item_template = None
    assert [a.archetype_id for a in town.qg.ranked_archetypes(seed)] == []
    seed.item_template = "brookhaven:iron_ore"
    assert [a.archetype_id for a in town.qg.ranked_archetypes(seed)] == ["errand"]


async def test_a_kind_unused_lately_ranks_over_one_used_lately(town: Town) -> None:
    """The wolves keep Hilda from her iron: the seed fits a plain hunt (its primary
    type) and, as a secondary match, clearing the way to the iron. Once hunts were
    told lately and clearing the way was not, the seed is told as the latter."""
    registry = ArchetypeRegistry()
    (seed,) = await town.qg.composer().compose([goal_signal(town), threat_signal(town)])
    hunt = _arch("hunt", "threat_response", requires_combat=True, requires_exploration=True)
    clear_way = _arch("way", "goal_assistance", requires_combat=True, requires_exploration=True)
    for archetype in (hunt, clear_way):
        registry.register(archetype)

    def order(recent: list[str], seen: set[str] | None) -> list[str]:
        ranked = registry.ranked(seed, recent, seen_lately=seen)
        return [r.archetype.archetype_id for r in ranked]

    assert order([], None) == ["hunt", "way"]
    assert order([], set()) == ["hunt", "way"]  # nothing told yet: both are new
    assert order(["hunt"], {"hunt"}) == ["way", "hunt"]
    assert order(["hunt"], {"hunt", "way"}) == ["hunt", "way"]  # both told lately
    assert registry.score(clear_way, seed, seen_lately={"hunt"}) == pytest.approx(
        registry.score(clear_way, seed) + ArchetypeRegistry.NOVELTY_BONUS
    )
