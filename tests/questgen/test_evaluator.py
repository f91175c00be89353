"""SeedEvaluator and SignalThrottle (10.1): filtering, cooldown, variety, throttle and
dedup, the 6.7 contract, the seed type registry, the circuit breaker, feasibility
and enrichment from real needs, goals and memories."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest
from questgen.qgkit import Town, goal_signal, threat_signal

from maid_engine.clock import GAME_HOUR
from maid_stdlib.living.components import Relationship, Relationships, Wealth
from maid_stdlib.questgen import (
    BasicSignal,
    GeneratedQuest,
    QuestDialogue,
    QuestSeedTypes,
    SeedGrounding,
    SignalContract,
    SignalThrottle,
    seed_expiry,
)
from maid_stdlib.questgen.contract import builtin_contracts
from maid_stdlib.questgen.quest import DifficultyTier
from maid_stdlib.questgen.rejection import Rejection


def _recorded(
    town: Town, seed_type: str = "threat_response", giver: UUID | None = None
) -> GeneratedQuest:
    quest = GeneratedQuest(
        id=f"gen-x-{uuid4().hex[:8]}",
        seed_id=uuid4(),
        seed_type=seed_type,
        archetype_id="clear_out",
        importance=0.5,
        title="t",
        summary="s",
        detailed_description="d",
        objectives=[],
        quest_giver_id=giver or town.hilda,
        quest_giver_motivation="m",
        quest_giver_dialogue=QuestDialogue("o", "p", "c"),
        difficulty=DifficultyTier.EASY,
        expiry=town.now + 10,
        created_at=town.now,
    )
    town.qg.record(quest)
    return quest


async def test_a_grounded_signal_becomes_an_enriched_seed(town: Town) -> None:
    evaluator = town.qg.evaluator()
    seed = await evaluator.evaluate(goal_signal(town))
    assert not isinstance(seed, Rejection), seed
    assert seed.seed_type == QuestSeedTypes.GOAL_ASSISTANCE
    assert seed.primary_npc == town.hilda
    assert seed.blocked_goal == "get_iron"
    assert seed.threat_source == "wolves"  # the goal's own blocker source
    assert seed.location == "brookhaven:clearing"  # where the blocker is
    # Motivation, backstory and stakes come from Hilda's real state.
    assert "get iron for the forge" in seed.primary_npc_motivation
    assert "wolves in Darkwood" in seed.primary_npc_motivation
    assert "livelihood" in seed.primary_npc_motivation  # economic need 0.2 < 0.35
    assert "ore carts stopped coming" in seed.backstory  # her PUBLIC memory
    assert "moneylender" not in seed.backstory  # never the private one
    assert "may have to close the forge" in seed.stakes
    assert seed.mood == "worried"
    # Times are game time.
    assert seed.created_at == town.now
    assert seed.expires_at == pytest.approx(seed_expiry(town.now, seed.urgency))


async def test_importance_below_threshold_is_filtered(town: Town) -> None:
    evaluator = town.qg.evaluator()
    rejection = await evaluator.evaluate(threat_signal(town, importance=0.3))
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "importance below threshold"
    assert not isinstance(await evaluator.evaluate(threat_signal(town, importance=0.4)), Rejection)


async def test_cooldown_per_npc_runs_on_game_time(town: Town) -> None:
    evaluator = town.qg.evaluator()
    _recorded(town)
    rejection = await evaluator.evaluate(goal_signal(town))
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "the giver is on cooldown"
    # Another giver is not affected.
    assert not isinstance(await evaluator.evaluate(threat_signal(town)), Rejection)
    town.skip(GAME_HOUR + 1)
    assert not isinstance(await evaluator.evaluate(goal_signal(town)), Rejection)


async def test_variety_reduces_importance_instead_of_rejecting(town: Town) -> None:
    evaluator = town.qg.evaluator()
    before = await evaluator.evaluate(threat_signal(town, importance=0.8))
    assert not isinstance(before, Rejection), before
    assert before.importance == pytest.approx(0.8)
    _recorded(town, "threat_response", giver=town.tam)
    after = await evaluator.evaluate(threat_signal(town, importance=0.8))
    assert not isinstance(after, Rejection)
    assert after.importance == pytest.approx(0.4)


async def test_throttle_dedups_repeats_and_caps_signals_worldwide(town: Town) -> None:
    throttle = SignalThrottle(dedup_window=60.0, global_window=300.0, global_max=3)
    evaluator = town.qg.evaluator(throttle)
    assert not isinstance(await evaluator.evaluate(threat_signal(town)), Rejection)
    rejection = await evaluator.evaluate(threat_signal(town))
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "throttled"
    town.skip(61)
    assert not isinstance(await evaluator.evaluate(threat_signal(town)), Rejection)
    # Different first NPCs are different keys, until the world-wide cap is reached.
    other = BasicSignal(
        "THREAT_DETECTED",
        0.7,
        [town.orla],
        {"threat_source": "wolves", "threat_location": "brookhaven:den"},
    )
    assert not isinstance(await evaluator.evaluate(other), Rejection)
    third = BasicSignal(
        "THREAT_DETECTED",
        0.7,
        [town.tam],
        {"threat_source": "wolves", "threat_location": "brookhaven:den"},
    )
    assert isinstance(await evaluator.evaluate(third), Rejection)
    town.skip(301)
    assert not isinstance(await evaluator.evaluate(third), Rejection)


def _valid_context(town: Town) -> dict[str, dict[str, object]]:
    h, b, o, t = (str(x) for x in (town.hilda, town.brann, town.orla, town.tam))
    return {
        "THREAT_DETECTED": {"threat_source": "wolves", "threat_location": "brookhaven:clearing"},
        "RIVALRY_ESCALATION": {"npc_a": o, "npc_b": b, "cause": "taxes", "trust_level": -0.5},
        "FACTION_TENSION": {
            "faction_a": "smiths",
            "faction_b": "smiths",
            "tension_cause": "prices",
        },
        "RESOURCE_SCARCITY": {
            "resource_type": "iron",
            "affected_npcs": [h],
            "shortage_severity": 0.7,
        },
        "TRADE_OPPORTUNITY": {"supply_npc": o, "demand_npc": h, "item_type": "letter"},
        "ALLIANCE_FORMING": {"allied_npcs": [b, o], "common_threat": "wolves"},
        "DISCOVERY": {"discovery_type": "ruins", "discovery_location": "brookhaven:den"},
        "GOAL_BLOCKED": {"blocked_goal": "get_iron", "blocker": "wolves", "npc_id": h},
        "BETRAYAL": {"betrayer": t, "victim": o, "evidence_location": "brookhaven:mill"},
        "SECRET_REVEALED": {"secret_content": "x", "revealer": o, "subject": t},
        "POWER_SHIFT": {"rising_npc": o, "falling_npc": b, "faction": "council"},
        "UNREQUITED": {"npc_a": t, "npc_b": o, "relationship_type": "love"},
        "CRISIS": {"crisis_type": "fear", "affected_area": "brookhaven:town", "severity": 0.8},
        "CONSEQUENCE_CHAIN": {
            "previous_quest_id": "gen-a-1",
            "chain_type": "follow_up",
            "chain_depth": 1,
        },
    }


@pytest.mark.parametrize("contract", builtin_contracts()[:14], ids=lambda c: c.signal_type)
async def test_every_contract_key_is_required(town: Town, contract: SignalContract) -> None:
    context = _valid_context(town)[contract.signal_type]
    assert set(contract.required_keys) <= set(context)
    evaluator = town.qg.evaluator()
    signal = BasicSignal(contract.signal_type, 0.9, [town.brann, town.orla], dict(context))
    grounded = evaluator.ground(signal)
    if contract.signal_type != "FACTION_TENSION":  # nobody belongs to two camps here
        assert not isinstance(grounded, Rejection), grounded
    for key in contract.required_keys:
        partial = {k: v for k, v in context.items() if k != key}
        missing = BasicSignal(contract.signal_type, 0.9, [town.brann], partial)
        rejection = await evaluator.evaluate(missing)
        assert isinstance(rejection, Rejection)
        assert rejection.reason == f"missing context keys: {key}"


async def test_unregistered_seed_types_and_unknown_signals_are_rejected(town: Town) -> None:
    qg = town.qg
    evaluator = qg.evaluator()
    rejection = await evaluator.evaluate(BasicSignal("COMET_SIGHTED", 0.9, [town.tam]))
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "no contract for signal type COMET_SIGHTED"

    def ground(signal: object, facts: object) -> SeedGrounding:
        return SeedGrounding(town.tam, "brookhaven:mill", {"subject": "the comet"})

    qg.contracts.register(SignalContract("COMET_SIGHTED", ("stargazing",), (), ground))
    rejection = await evaluator.evaluate(BasicSignal("COMET_SIGHTED", 0.9, [town.tam]))
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "seed type 'stargazing' is not registered"
    qg.seed_types.register("stargazing", "Something in the sky")
    seed = await evaluator.evaluate(BasicSignal("COMET_SIGHTED", 0.9, [town.tam]))
    assert not isinstance(seed, Rejection), seed
    assert seed.seed_type == "stargazing"
    assert seed.subject == "the comet"


def test_a_grounder_may_only_set_typed_seed_fields() -> None:
    with pytest.raises(ValueError, match=r"not typed QuestSeed fields: \['context'\]"):
        SeedGrounding(uuid4(), None, {"context": {"anything": 1}})


async def test_chain_depth_circuit_breaker(town: Town) -> None:
    evaluator = town.qg.evaluator()
    ok = threat_signal(town)
    ok.chain_depth = 5
    assert not isinstance(await evaluator.evaluate(ok), Rejection)
    deep = BasicSignal(
        "THREAT_DETECTED",
        0.9,
        [town.orla],
        {"threat_source": "wolves", "threat_location": "brookhaven:den", "chain_depth": 6},
    )
    rejection = await evaluator.evaluate(deep)
    assert isinstance(rejection, Rejection)
    assert "chain depth 6" in rejection.reason


async def test_feasibility_and_grounding(town: Town) -> None:
    evaluator = town.qg.evaluator()
    # A place that does not exist, or cannot be reached from the giver.
    nowhere = BasicSignal(
        "THREAT_DETECTED",
        0.9,
        [town.brann],
        {"threat_source": "wolves", "threat_location": "brookhaven:moon"},
    )
    assert isinstance(await evaluator.evaluate(nowhere), Rejection)
    island = BasicSignal(
        "THREAT_DETECTED",
        0.9,
        [town.brann],
        {"threat_source": "wolves", "threat_location": "brookhaven:island"},
    )
    rejection = await evaluator.evaluate(island)
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "the place cannot be reached from the giver"
    # A goal that does not exist is nothing to assist with.
    fake = BasicSignal(
        "GOAL_BLOCKED",
        0.9,
        [town.hilda],
        {"blocked_goal": "become_queen", "blocker": "x", "npc_id": str(town.hilda)},
    )
    assert isinstance(await evaluator.evaluate(fake), Rejection)
    # A dead giver.
    town.engine.world.destroy_entity(town.hilda)
    await town.engine.dispatch_events()
    assert isinstance(await evaluator.evaluate(goal_signal(town)), Rejection)


async def test_names_and_area_references_resolve(town: Town) -> None:
    evaluator = town.qg.evaluator()
    by_name = BasicSignal(
        "RIVALRY_ESCALATION",
        0.8,
        [town.tam],
        {"npc_a": "Orla", "npc_b": "brookhaven:brann", "cause": "taxes", "trust_level": -0.6},
    )
    seed = await evaluator.evaluate(by_name)
    assert not isinstance(seed, Rejection)
    assert (seed.party_a, seed.party_b) == (town.orla, town.brann)
    assert seed.primary_npc == town.tam  # a third party asks for mediation
    area = BasicSignal(
        "THREAT_DETECTED",
        0.8,
        [town.brann],
        {"threat_source": "wolves", "threat_location": "Darkwood"},
    )
    seed = await evaluator.evaluate(area)
    assert not isinstance(seed, Rejection)
    assert set(seed.affected_area) == {"brookhaven:trail", "brookhaven:clearing", "brookhaven:den"}
    assert seed.location == "brookhaven:clearing"  # where most of the wolves are


async def test_unknown_wealth_or_missing_living_state_still_enriches(town: Town) -> None:
    town.engine.world.remove_component(town.orla, Wealth)
    evaluator = town.qg.evaluator()
    seed = await evaluator.evaluate(threat_signal(town))
    assert not isinstance(seed, Rejection)
    assert seed.primary_npc == town.brann
    # No goal, no unmet need: the motivation falls back to the signal's facts.
    assert "wolves threaten darkwood" in seed.primary_npc_motivation.lower()


@pytest.mark.xfail(
    strict=True,
    reason="known gap (docs/quest-generation.md): a giver who is a threat is dropped by "
    "the seed screen, not rejected by the evaluator",
)
async def test_the_evaluator_rejects_a_giver_who_is_a_threat(town: Town) -> None:
    # Hilda turns hostile: a giver candidate who is also a threat.
    town.qg.facts.threat_providers.append(lambda world: [(town.hilda, "bandits")])
    assert town.qg.facts.is_threat(town.hilda)
    rejection = await town.qg.evaluator().evaluate(goal_signal(town))
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "the giver is a threat"


def _follow_up(town: Town, people: list[UUID], depth: int = 1) -> BasicSignal:
    return BasicSignal(
        "CONSEQUENCE_CHAIN",
        0.9,
        people,
        {
            "previous_quest_id": "gen-a-1",
            "chain_type": "follow_up",
            "chain_depth": depth,
            "situation": "the dispute over the mill",
        },
        chain_depth=depth,
    )


async def test_a_follow_up_lives_a_full_game_day_whatever_its_urgency(town: Town) -> None:
    """It often waits out its giver's share of the rolling day: an urgent follow-up
    that decayed in five hours would never be asked for."""
    seed = await town.qg.evaluator().evaluate(_follow_up(town, [town.hilda, town.brann]))
    assert not isinstance(seed, Rejection), seed
    assert seed.chain_depth == 1
    assert seed.urgency > 0
    assert seed.expires_at == pytest.approx(seed.created_at + 24 * GAME_HOUR)
    assert seed_expiry(0.0, 1.0, follow_up=True) == pytest.approx(24 * GAME_HOUR)
    assert seed_expiry(0.0, 1.0) < 5 * GAME_HOUR


async def test_a_follow_ups_sides_are_two_of_its_people_at_odds(town: Town) -> None:
    people = [town.hilda, town.brann, town.tam, town.orla]
    evaluator = town.qg.evaluator()
    seed = await evaluator.evaluate(_follow_up(town, people))
    assert not isinstance(seed, Rejection), seed
    # Nothing sets any of them against another: the first two after the giver.
    assert (seed.primary_npc, seed.party_a, seed.party_b) == (town.hilda, town.brann, town.tam)
    town.engine.world.add_component(
        town.orla, Relationships({str(town.tam): Relationship(trust=-0.4, cause="flour")})
    )
    seed = await evaluator.evaluate(_follow_up(town, people))
    assert not isinstance(seed, Rejection), seed
    assert (seed.primary_npc, seed.party_a, seed.party_b) == (town.hilda, town.tam, town.orla)
