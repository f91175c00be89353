"""Emergent chains: follow-up signals with chain context, dampened x0.7 per link,
stopped at depth 5, capped per propagation."""

from __future__ import annotations

import dataclasses
from uuid import UUID

import pytest
from kits.engines import hv, qg_of
from kits.heroes import new_hero
from kits.quests import consequences_of, deliver, simple_quest

from maid_engine.engine import GameEngine
from maid_stdlib.consequences import (
    CONSEQUENCE_SIGNAL_BUDGET,
    MAX_CHAIN_DEPTH,
    ChainContext,
    QuestChainEvent,
    WorldMutation,
    detect_consequence_signals,
)
from maid_stdlib.questgen import (
    BasicSignal,
    BranchOption,
    ConsequenceType,
    GeneratedQuest,
    ObjectiveType,
    QuestBranch,
    QuestConsequence,
    QuestObjective,
)
from maid_stdlib.questgen.events import QuestTurnedInEvent
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.vocabulary import QuestOutcome
from maid_stdlib.story import StorySignal, StorySignalEvent


def chained(
    engine: GameEngine,
    quest_id: str,
    depth: int,
    importance: float,
    parent: str | None = None,
    **kw: object,
) -> GeneratedQuest:
    quest = simple_quest(
        engine,
        quest_id,
        chain_depth=depth,
        chain_parent_id=parent,
        importance=importance,
        chain_potential=0.6,
        **kw,
    )
    # A follow-up is about what the quest left behind: here, the road it decided.
    decision = QuestObjective(
        id="o3-decide",
        objective_type=ObjectiveType.CUSTOM,
        description="Decide who keeps the mill road",
        target="who keeps the mill road",
        order=2,
        choice=True,
        optional=True,
    )
    return dataclasses.replace(quest, objectives=[*quest.objectives, decision])


class Chains:
    def __init__(self, engine: GameEngine) -> None:
        self.events: list[QuestChainEvent] = []
        self.signals: list[StorySignal] = []
        engine.events.subscribe(QuestChainEvent, self.events.append)
        engine.events.subscribe(StorySignalEvent, lambda e: self.signals.append(e.signal))


async def turn_in(engine: GameEngine, hero: UUID, quest_id: str) -> None:
    engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.COMPLETED))
    await engine.dispatch_events()


async def test_a_chain_of_three_quests_dampens_x07_per_link(engine: GameEngine) -> None:
    hero = new_hero(engine)
    chains = Chains(engine)
    history = qg_of(engine).history
    parent: str | None = None
    importance = 0.9
    for depth, quest_id in enumerate(("chain-one", "chain-two", "chain-three")):
        # what the pipeline builds from the previous link's signal: its chain
        # context becomes the quest's depth and parent, its importance the quest's
        await deliver(engine, chained(engine, quest_id, depth, importance, parent))
        await turn_in(engine, hero, quest_id)
        follow = chains.events[-1]
        assert follow.original_quest_id == quest_id
        assert follow.chain_type == "follow_up"
        signal = follow.chain_signal
        assert signal.chain_depth == signal.context["chain_depth"] == depth + 1
        assert signal.context["previous_quest_id"] == quest_id
        assert signal.importance == pytest.approx(round(0.9 * 0.7**depth, 3))
        assert signal in chains.signals
        parent, importance = quest_id, signal.importance

    walked = history.chain_of("chain-three")
    assert [e.quest_id for e in walked] == ["chain-one", "chain-two", "chain-three"]
    assert [e.chain_parent_id for e in walked] == [None, "chain-one", "chain-two"]
    assert [e.chain_depth for e in walked] == [0, 1, 2]
    assert [round(e.importance, 3) for e in walked] == [0.9, 0.9, 0.63]


async def test_the_chain_stops_at_depth_five(engine: GameEngine) -> None:
    facts = qg_of(engine).facts
    hero = new_hero(engine)
    deepest = chained(engine, "deep-4", MAX_CHAIN_DEPTH - 1, 0.9)
    signals = detect_consequence_signals(
        deepest, QuestOutcome.COMPLETED, [hero], [], facts, root_importance=0.9
    )
    assert [s.chain_depth for s in signals] == [MAX_CHAIN_DEPTH]
    assert signals[0].importance == pytest.approx(round(0.9 * 0.7**4, 3))
    too_deep = chained(engine, "deep-5", MAX_CHAIN_DEPTH, 0.9)
    assert detect_consequence_signals(too_deep, QuestOutcome.COMPLETED, [hero], [], facts) == []
    # and the seed evaluator drops anything deeper that gets through anyway
    evaluator = qg_of(engine).evaluator()
    deeper = BasicSignal(
        "CONSEQUENCE_CHAIN",
        0.9,
        [hv("tamsin")],
        {"previous_quest_id": "deep-5", "chain_type": "follow_up", "chain_depth": 6},
    )
    rejection = await evaluator.evaluate(deeper)
    assert isinstance(rejection, Rejection)
    assert "chain depth" in rejection.reason


async def test_a_follow_up_names_the_situation_the_quest_left_behind(
    engine: GameEngine,
) -> None:
    facts = qg_of(engine).facts
    hero = new_hero(engine)
    # A quest whose consequences name no situation has no generic follow-up: its
    # subject would be a placeholder ("follow_up").
    plain = simple_quest(engine, "plain", chain_potential=0.6)
    assert detect_consequence_signals(plain, QuestOutcome.COMPLETED, [hero], [], facts) == []
    [signal] = detect_consequence_signals(
        chained(engine, "decided", 0, 0.9), QuestOutcome.COMPLETED, [hero], [], facts
    )
    assert signal.context["situation"] == "who keeps the mill road"
    seed = await qg_of(engine).evaluator().evaluate(signal)
    assert not isinstance(seed, Rejection), seed
    assert seed.subject == "who keeps the mill road"
    assert seed.chain_parent_id == "decided"


async def test_only_completed_or_perfect_quests_with_potential_chain(
    engine: GameEngine,
) -> None:
    facts = qg_of(engine).facts
    hero = new_hero(engine)
    quest = chained(engine, "q", 0, 0.9)
    for outcome in (
        QuestOutcome.PARTIAL_SUCCESS,
        QuestOutcome.PYRRHIC_VICTORY,
        QuestOutcome.FAILED,
        QuestOutcome.ABANDONED,
    ):
        assert detect_consequence_signals(quest, outcome, [hero], [], facts) == []
    quest.chain_potential = 0.5
    assert detect_consequence_signals(quest, QuestOutcome.PERFECT, [hero], [], facts) == []


async def test_large_trust_losses_raise_retaliation_and_the_budget_caps_them(
    engine: GameEngine,
) -> None:
    hero = new_hero(engine)
    # Everyone placed in Hamlet but the giver (the pack leader too: the rule does
    # not care whom the character wronged).
    wronged = [hv(k) for k in ("tamsin", "pell", "marta", "old_grey")]
    # A branch that betrays four people at once, and a quest that can chain.
    betrayal = BranchOption(
        label="Betray everyone",
        description="...",
        consequences=[
            QuestConsequence(
                consequence_type=ConsequenceType.RELATIONSHIP_CHANGE,
                target_npc=n,
                relationship_delta=-0.5,
                description="betrayed",
            )
            for n in wronged
        ],
    )
    quest = chained(
        engine,
        "betrayal",
        0,
        0.9,
        branches=[
            QuestBranch(
                trigger_objective="o1-talk", description="Whom to betray", options=[betrayal]
            )
        ],
    )
    other = chained(engine, "betrayal-too", 0, 0.9)
    facts = qg_of(engine).facts
    applied = [
        WorldMutation("relationship_change", n, str(hero), -0.5, description="betrayed")
        for n in wronged
    ]
    signals = detect_consequence_signals(other, QuestOutcome.COMPLETED, [hero], applied, facts)
    assert [s.signal_type for s in signals] == ["CONSEQUENCE_CHAIN"] + ["RIVALRY_ESCALATION"] * 4
    rivalry = signals[1]
    assert rivalry.involved_npcs == [hv("tamsin"), hv("hollin")]
    assert rivalry.context["npc_a"] == str(hv("tamsin"))
    assert rivalry.context["chain_type"] == "retaliation"
    assert rivalry.importance == 0.5
    assert rivalry.missing_context() == []

    # Through the system: the choice is recorded, the batch applies, 1 + 4 signals
    # would come out, the budget lets CONSEQUENCE_SIGNAL_BUDGET through.
    system = consequences_of(engine)
    system.signal_budget = 3
    chains = Chains(engine)
    await deliver(engine, quest)
    assert quest.branches is not None
    await system.choices.record(quest.id, hero, quest.branches[0].id, betrayal.id)
    await turn_in(engine, hero, quest.id)
    assert len(chains.signals) == 3
    system.signal_budget = CONSEQUENCE_SIGNAL_BUDGET
    assert CONSEQUENCE_SIGNAL_BUDGET == 5
    assert (
        len(detect_consequence_signals(other, QuestOutcome.COMPLETED, [hero], applied * 2, facts))
        == CONSEQUENCE_SIGNAL_BUDGET
    )


async def test_packs_can_add_chain_rules(engine: GameEngine) -> None:
    hero = new_hero(engine)
    chains = Chains(engine)

    def market_rumour(ctx: ChainContext) -> StorySignal | None:
        if ctx.quest.archetype_id != "threat_elimination":
            return None
        return ctx.signal(
            "TRADE_OPPORTUNITY",
            [hv("pell")],
            "escalation",
            supply_npc=str(hv("pell")),
            demand_npc=str(hv("hollin")),
            item_type="grain",
        )

    # The test changes a registry of the running engine (the seam a reload would use).
    engine.registries.unlock()
    consequences_of(engine).chain_rules.register(market_rumour)
    await deliver(engine, chained(engine, "rumour", 0, 0.8))
    await turn_in(engine, hero, "rumour")
    assert [(s.signal_type, s.context["chain_type"]) for s in chains.signals] == [
        ("TRADE_OPPORTUNITY", "escalation")
    ]


async def test_a_completed_investigation_raises_its_follow_up(engine: GameEngine) -> None:
    """The investigation archetype's chain potential is above the follow-up
    threshold: what it uncovered becomes a DISCOVERY follow-up. (At 0.5 it sat
    exactly on the threshold and no investigation ever chained.)"""
    qg = qg_of(engine)
    hero = new_hero(engine)
    archetype = qg.archetypes.get("investigation")
    assert archetype is not None
    quest = simple_quest(
        engine,
        "who-took-the-grain",
        archetype_id="investigation",
        seed_type="mystery",
        chain_potential=archetype.chain_potential,
    )
    signals = detect_consequence_signals(
        quest,
        QuestOutcome.COMPLETED,
        [hero],
        [],
        qg.facts,
        pattern=archetype.objective_pattern,
    )
    assert [(s.signal_type, s.context["chain_type"]) for s in signals] == [
        ("DISCOVERY", "follow_up")
    ]
    follow = signals[0]
    assert follow.context["discovery_location"] == "hamlet:mill"
    assert follow.context["revealed_information"] == quest.consequences[-1].description


async def test_a_failure_may_escalate_with_a_chance_of_the_chain_potential(
    engine: GameEngine,
) -> None:
    """A failed or expired quest may get worse on its own: with a
    chance of the quest's chain potential (the world's seeded random source) one
    "escalation" signal; never after a success, never at potential 0 (unless
    someone fought its threat and lost: see below)."""
    facts = qg_of(engine).facts
    hero = new_hero(engine)
    quest = chained(engine, "let-down", 0, 0.9)
    quest.chain_potential = 1.0
    for outcome in (QuestOutcome.FAILED, QuestOutcome.EXPIRED):
        [signal] = detect_consequence_signals(quest, outcome, [], [], facts)
        assert signal.signal_type == "CONSEQUENCE_CHAIN"
        assert signal.context["chain_type"] == "escalation"
        assert signal.context["previous_quest_id"] == "let-down"
        assert signal.importance == pytest.approx(0.9)
    assert detect_consequence_signals(quest, QuestOutcome.ABANDONED, [hero], [], facts) == []
    quest.chain_potential = 0.0
    assert detect_consequence_signals(quest, QuestOutcome.FAILED, [hero], [], facts) == []
    # a chance, drawn from the world's seeded source: some do, some do not
    quest.chain_potential = 0.5
    fired = [
        bool(detect_consequence_signals(quest, QuestOutcome.FAILED, [], [], facts))
        for _ in range(40)
    ]
    assert 5 < sum(fired) < 35


async def test_a_failed_fight_leaves_the_threat_bolder_where_it_holds(engine: GameEngine) -> None:
    from maid_stdlib.questgen import ObjectiveType, QuestObjective

    facts = qg_of(engine).facts
    hero = new_hero(engine)
    grey = hv("old_grey")
    den = facts.room_of(grey)
    assert den is not None
    quest = chained(engine, "grey-hunt", 0, 0.8)
    quest.chain_potential = 1.0
    quest.objectives.append(
        QuestObjective(
            id="o3-kill",
            objective_type=ObjectiveType.KILL,
            description="Drive off Old Grey",
            target="Old Grey",
            target_keyword="wolves",
            target_entity_id=grey,
            target_location=den,
            order=3,
        )
    )
    [signal] = detect_consequence_signals(quest, QuestOutcome.FAILED, [hero], [], facts)
    assert signal.signal_type == "THREAT_DETECTED"
    assert signal.context["chain_type"] == "escalation"
    assert signal.context["threat_source"] == "wolves"
    assert signal.context["threat_location"] == (facts.area_of(den) or den)
    assert signal.context["description"].startswith("Aria came against the wolves and failed;")
    assert "grow bolder" in signal.context["description"]
    [unmet] = detect_consequence_signals(quest, QuestOutcome.EXPIRED, [], [], facts)
    assert unmet.context["description"].startswith("Nobody stopped the wolves;")
    # Someone who came against the threat and lost always leaves it bolder; when
    # nobody came it is a chance (of the chain potential), walking away none.
    quest.chain_potential = 0.0
    for outcome in (QuestOutcome.FAILED, QuestOutcome.EXPIRED):
        [signal] = detect_consequence_signals(quest, outcome, [hero], [], facts)
        assert signal.signal_type == "THREAT_DETECTED"
        assert signal.involved_players == [hero]
    assert detect_consequence_signals(quest, QuestOutcome.EXPIRED, [], [], facts) == []
    assert detect_consequence_signals(quest, QuestOutcome.ABANDONED, [hero], [], facts) == []


async def test_a_minor_quests_follow_up_is_as_important_as_its_chain_potential(
    engine: GameEngine,
) -> None:
    facts = qg_of(engine).facts
    hero = new_hero(engine)
    minor = chained(engine, "minor", 0, 0.25)  # chain potential 0.6
    [follow] = detect_consequence_signals(minor, QuestOutcome.COMPLETED, [hero], [], facts)
    assert follow.importance == pytest.approx(0.6)
    second = chained(engine, "minor-2", 1, 0.25, "minor")
    [deeper] = detect_consequence_signals(
        second, QuestOutcome.COMPLETED, [hero], [], facts, root_importance=0.25
    )
    assert deeper.importance == pytest.approx(round(0.6 * 0.7, 3))
    # a weighty chain keeps its own stakes
    weighty = chained(engine, "weighty", 0, 0.9)
    [kept] = detect_consequence_signals(weighty, QuestOutcome.COMPLETED, [hero], [], facts)
    assert kept.importance == pytest.approx(0.9)
