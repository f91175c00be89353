"""CompoundSeedComposer: clustering by area, NPC involvement and topic; the boost."""

from __future__ import annotations

import pytest
from questgen.qgkit import Town, goal_signal, rivalry_signal, threat_signal

from maid_stdlib.questgen import BasicSignal, QuestSeedTypes
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.signals import signal_key


async def test_goal_and_threat_compose_into_a_threat_response_for_the_one_at_stake(
    town: Town,
) -> None:
    composer = town.qg.composer()
    seeds = await composer.compose([goal_signal(town, 0.8), threat_signal(town, 0.6)])
    assert len(seeds) == 1
    seed = seeds[0]
    assert seed.seed_type == QuestSeedTypes.THREAT_RESPONSE
    assert seed.secondary_seed_types == [QuestSeedTypes.GOAL_ASSISTANCE]
    # Hilda has the lowest need and a blocked goal: she gives the quest.
    assert seed.primary_npc == town.hilda
    assert set(seed.involved_npcs) == {town.brann, town.orla}
    assert seed.threat_source == "wolves"
    assert seed.blocked_goal == "get_iron"
    assert seed.importance == pytest.approx((0.8 + 0.6) / 2 * 1.3)
    assert len(seed.source_signals) == 2


async def test_compound_importance_is_capped_at_one(town: Town) -> None:
    seeds = await town.qg.composer().compose([goal_signal(town, 1.0), threat_signal(town, 0.9)])
    assert seeds[0].importance == 1.0


async def test_clusters_by_shared_npc_by_area_and_by_topic(town: Town) -> None:
    composer = town.qg.composer()
    evaluator = composer.evaluator
    grounded = {
        "goal": evaluator.ground(goal_signal(town)),
        # Orla saw the wolves first: she is the one the threat's story is about.
        "threat": evaluator.ground(
            BasicSignal(
                "THREAT_DETECTED",
                0.7,
                [town.orla, town.brann],
                {"threat_source": "wolves", "threat_location": "brookhaven:clearing"},
            )
        ),
        # Shares Orla with the threat signal.
        "rivalry": evaluator.ground(rivalry_signal(town)),
        # Only the town area in common with the rivalry (Orla's market).
        "discovery": evaluator.ground(
            BasicSignal(
                "DISCOVERY",
                0.7,
                [town.hermit],
                {"discovery_type": "ruins", "discovery_location": "brookhaven:island"},
            )
        ),
    }
    g = {k: v for k, v in grounded.items() if not isinstance(v, Rejection)}
    assert set(g) == set(grounded)
    assert composer.related(g["goal"], g["threat"])  # same area and "wolves"
    assert composer.related(g["threat"], g["rivalry"])  # Orla
    assert not composer.related(g["goal"], g["rivalry"])
    assert not composer.related(g["discovery"], g["threat"])
    assert composer.related(g["discovery"], g["rivalry"])  # both in Brookhaven
    clusters = composer.cluster(list(g.values()))
    assert [len(c) for c in clusters] == [4]  # transitively one group
    assert [len(c) for c in composer.cluster([g["goal"], g["discovery"]])] == [1, 1]
    # Told as stories: the threat leads the signals related to it; the ruins,
    # related to the wolves only through the flour quarrel, are a story apart.
    stories = composer.stories(clusters[0])
    assert [[x.signal.signal_type for x in st] for st in stories] == [
        ["GOAL_BLOCKED", "THREAT_DETECTED", "RIVALRY_ESCALATION"],
        ["DISCOVERY"],
    ]
    (seed,) = await composer.compose([x.signal for x in g.values()])
    assert seed.seed_type == QuestSeedTypes.THREAT_RESPONSE
    assert len(seed.source_signals) == 3


async def test_a_bystander_who_heard_of_both_does_not_make_one_story(town: Town) -> None:
    composer = town.qg.composer()
    evaluator = composer.evaluator
    # Brann reported the wolves and Orla heard of them; Orla's quarrel with Tam
    # over flour is another story, though she is named by both signals.
    threat = evaluator.ground(threat_signal(town))
    rivalry = evaluator.ground(rivalry_signal(town))
    assert not isinstance(threat, Rejection)
    assert not isinstance(rivalry, Rejection)
    assert town.orla in threat.signal.involved_npcs
    assert threat.grounding.primary_npc == town.brann
    assert not composer.related(threat, rivalry)


async def test_topic_alone_relates_signals_in_different_areas(town: Town) -> None:
    composer = town.qg.composer()
    evaluator = composer.evaluator
    # The goal's blocker names the wolves; the threat is reported from the den,
    # seen from town by someone else entirely.
    goal = evaluator.ground(
        BasicSignal(
            "GOAL_BLOCKED",
            0.8,
            [town.hilda],
            {"blocked_goal": "get_iron", "blocker": "the wolves", "npc_id": str(town.hilda)},
        )
    )
    den = evaluator.ground(
        BasicSignal(
            "THREAT_DETECTED",
            0.6,
            [town.tam],
            {"threat_source": "wolves", "threat_location": "brookhaven:den"},
        )
    )
    assert not isinstance(goal, Rejection), goal
    assert not isinstance(den, Rejection), den
    assert composer.related(goal, den)


async def test_single_and_unrelated_signals_make_no_compound_seed(town: Town) -> None:
    composer = town.qg.composer()
    assert await composer.compose([goal_signal(town)]) == []
    lonely = BasicSignal(
        "DISCOVERY",
        0.9,
        [town.hermit],
        {"discovery_type": "ruins", "discovery_location": "brookhaven:island"},
    )
    assert await composer.compose([lonely, goal_signal(town)]) == []


async def test_ungrounded_signals_are_dropped_before_clustering(town: Town) -> None:
    bogus = BasicSignal(
        "THREAT_DETECTED", 0.9, [town.hilda], {"threat_source": "wolves"}
    )  # no threat_location
    assert await town.qg.composer().compose([bogus, goal_signal(town)]) == []


async def test_merges_are_logged_and_a_type_can_stand_alone(
    town: Town, caplog: pytest.LogCaptureFixture
) -> None:
    signals = [goal_signal(town, 0.8), threat_signal(town, 0.6)]
    with caplog.at_level("INFO", logger="maid.questgen.composer"):
        [_seed] = await town.qg.composer().compose(signals)
    assert (
        "merged 2 related signals into one threat_response seed (giver Hilda): "
        "GOAL_BLOCKED as goal_assistance, THREAT_DETECTED as threat_response"
    ) in caplog.text
    # A type registered with merge=False keeps its signals out of compound seeds.
    types = town.qg.seed_types
    goal = QuestSeedTypes.GOAL_ASSISTANCE
    assert types.mergeable(goal)
    types.register(goal, types.description(goal) or "", merge=False)
    assert not types.mergeable(goal)
    assert await town.qg.composer().compose(signals) == []


async def test_composing_for_one_signal_keeps_its_seeds_and_the_worlds_dice(town: Town) -> None:
    """Only the new signal's cluster is written out; every other cluster is judged
    and draws its seed's id as if it were built, so what follows stays the same."""
    composer = town.qg.composer()
    quarrel = rivalry_signal(town)
    grudge = BasicSignal(
        "RIVALRY_ESCALATION",
        0.7,
        [town.orla],
        {
            "npc_a": str(town.tam),
            "npc_b": str(town.orla),
            "cause": "flour prices",
            "trust_level": -0.4,
        },
    )
    goal, threat = goal_signal(town), threat_signal(town)
    window = [goal, threat, quarrel, grudge]
    rng = town.engine.random
    before = rng.getstate()
    every = await composer.compose(window)
    after = rng.getstate()
    # The wolves and the flour quarrel are two stories, each a compound seed.
    assert len(every) == 2
    for new in (goal, grudge):
        key = signal_key(new)
        rng.setstate(before)
        kept = await composer.compose(window, keep={key})
        assert rng.getstate() == after
        wanted = [s for s in every if any(signal_key(x) == key for x in s.source_signals)]
        assert len(kept) == len(wanted) == 1
        assert kept[0].id == wanted[0].id
        assert kept[0].seed_type == wanted[0].seed_type
        assert kept[0].primary_npc == wanted[0].primary_npc
        assert kept[0].importance == wanted[0].importance
        assert kept[0].source_signals == wanted[0].source_signals


async def test_a_cluster_that_would_be_rejected_draws_nothing(town: Town) -> None:
    composer = town.qg.composer()
    window = [goal_signal(town, 0.2), threat_signal(town, 0.2), rivalry_signal(town)]
    rng = town.engine.random
    before = rng.getstate()
    # Too unimportant a compound: no seed, and no id drawn for it.
    assert await composer.compose(window, keep={signal_key(window[2])}) == []
    assert rng.getstate() == before


def _fear(town: Town) -> BasicSignal:
    return BasicSignal(
        "CRISIS",
        0.9,
        [town.brann, town.orla],
        {"crisis_type": "fear", "affected_area": "brookhaven:town", "severity": 0.8},
    )


async def test_a_crisis_of_fear_takes_its_threat_from_the_signal_that_names_it(
    town: Town,
) -> None:
    """ "fear" is what people feel, not a foe: a fear crisis alone names no threat,
    and composed with the wolves' sighting the story is about the wolves."""
    alone = await town.qg.evaluator().evaluate(_fear(town))
    assert not isinstance(alone, Rejection), alone
    assert alone.seed_type == "threat_response"
    assert alone.threat_source is None
    (seed,) = await town.qg.composer().compose([_fear(town), threat_signal(town)])
    assert seed.seed_type == "threat_response"
    assert seed.threat_source == "wolves"
