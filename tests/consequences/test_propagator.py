"""ConsequencePropagator.plan_mutation: one case per ConsequenceType."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import hamlet_engine, hv

from maid_engine.engine import GameEngine
from maid_stdlib.consequences import (
    OUTCOME_SCALE,
    ConsequencePropagator,
    PlanContext,
    WorldMutation,
)
from maid_stdlib.living import Goal
from maid_stdlib.living.api import add_goal, complete_goal
from maid_stdlib.questgen import ConsequenceType, QuestConsequence
from maid_stdlib.questgen.vocabulary import QuestOutcome

C = ConsequenceType
HERO = uuid.UUID(int=42)
CTX = PlanContext(
    "q-grain",
    QuestOutcome.COMPLETED,
    giver=hv("hollin"),
    importance=0.8,
    location="hamlet:mill",
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet, the neutral test world, with every stdlib layer wired in."""
    async with hamlet_engine(tmp_path).lifespan() as eng:
        yield eng


def plan(
    engine: GameEngine,
    c: QuestConsequence,
    scale: float = 1.0,
    context: PlanContext | None = CTX,
    character: uuid.UUID | None = HERO,
) -> WorldMutation | None:
    return ConsequencePropagator().plan_mutation(c, character, scale, engine.world, context=context)


def test_plan_mutation_is_the_only_public_entry_point() -> None:
    public = [
        n
        for n, v in inspect.getmembers(ConsequencePropagator)
        if not n.startswith("_") and callable(v)
    ]
    assert public == ["plan_mutation"]
    assert ConsequencePropagator.OUTCOME_SCALE == {
        QuestOutcome.PERFECT: 1.25,
        QuestOutcome.COMPLETED: 1.0,
        QuestOutcome.PARTIAL_SUCCESS: 0.5,
        QuestOutcome.PYRRHIC_VICTORY: 0.3,
    }
    assert OUTCOME_SCALE is ConsequencePropagator.OUTCOME_SCALE


async def test_goal_advance_and_complete(engine: GameEngine) -> None:
    miller = hv("hollin")
    add_goal(engine.world, miller, Goal(id="get_grain", description="Get grain", need="economic"))
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.NPC_GOAL_ADVANCE,
            target_npc=miller,
            target_key="get_grain",
            goal_progress=0.4,
            description="closer",
        ),
        scale=1.25,
    )
    assert m is not None
    assert m.mutation_type == "npc_goal_advance"
    assert (m.target_entity, m.target_key, m.delta, m.saturate) == (
        miller,
        "get_grain",
        0.5,
        True,
    )
    done = plan(
        engine,
        QuestConsequence(
            consequence_type=C.NPC_GOAL_COMPLETE, target_npc=miller, target_key="get_grain"
        ),
    )
    assert done is not None
    assert done.mutation_type == "npc_goal_complete"
    assert done.delta is None
    # A goal that is finished already (the world moved on) plans to nothing.
    complete_goal(engine.world, miller, "get_grain")
    assert (
        plan(
            engine,
            QuestConsequence(
                consequence_type=C.NPC_GOAL_COMPLETE, target_npc=miller, target_key="get_grain"
            ),
        )
        is None
    )
    assert (
        plan(
            engine,
            QuestConsequence(
                consequence_type=C.NPC_GOAL_ADVANCE,
                target_npc=miller,
                target_key="get_grain",
                goal_progress=0.2,
            ),
        )
        is None
    )


async def test_need_satisfy(engine: GameEngine) -> None:
    miller = hv("hollin")
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.NPC_NEED_SATISFY,
            target_npc=miller,
            target_key="economic",
            need_delta=0.3,
        ),
        scale=0.5,
    )
    assert m is not None
    assert (m.mutation_type, m.target_key, m.delta) == (
        "npc_need_satisfy",
        "economic",
        0.15,
    )
    assert m.saturate
    assert (
        plan(
            engine,
            QuestConsequence(
                consequence_type=C.NPC_NEED_SATISFY,
                target_npc=miller,
                target_key="no_such_need",
                need_delta=0.3,
            ),
        )
        is None
    )


async def test_relationship_change_is_about_the_character(engine: GameEngine) -> None:
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.RELATIONSHIP_CHANGE, target_npc=hv("tamsin"), relationship_delta=0.15
        ),
        scale=OUTCOME_SCALE[QuestOutcome.PYRRHIC_VICTORY],
    )
    assert m is not None
    assert m.mutation_type == "relationship_change"
    assert m.target_entity == hv("tamsin")
    assert m.target_key == str(HERO)
    assert m.delta == pytest.approx(0.045)
    # Nobody did the quest (an offer that expired untaken): nobody to change views of.
    assert (
        plan(
            engine,
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=hv("tamsin"),
                relationship_delta=0.15,
            ),
            character=None,
        )
        is None
    )


async def test_faction_standing_is_the_characters_reputation(engine: GameEngine) -> None:
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.FACTION_STANDING, target_faction="hamlet", faction_delta=0.1
        ),
        scale=1.25,
    )
    assert m is not None
    assert m.mutation_type == "faction_standing"
    assert (m.target_entity, m.target_key, m.delta) == (HERO, "hamlet", 0.125)
    assert (
        plan(engine, QuestConsequence(consequence_type=C.FACTION_STANDING, faction_delta=0.1))
        is None
    )


async def test_economic_change_and_social_influence(engine: GameEngine) -> None:
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.ECONOMIC_CHANGE, target_npc=hv("pell"), economic_amount=40
        ),
        scale=0.5,
    )
    assert m is not None
    assert (m.mutation_type, m.delta) == ("economic_change", 20.0)
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.SOCIAL_INFLUENCE, target_npc=hv("tamsin"), social_influence_delta=0.1
        ),
        scale=1.25,
    )
    assert m is not None
    assert m.mutation_type == "social_influence"
    assert m.delta == pytest.approx(0.125)


async def test_gossip_confidence_is_capped_at_0_9(engine: GameEngine) -> None:
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.GOSSIP_INJECTION,
            target_npc=hv("marta"),
            gossip_content="An adventurer cleared the road",
        ),
    )
    assert m is not None
    assert m.mutation_type == "gossip_injection"
    p = m.payload
    assert p["confidence"] == 0.9
    assert p["tellers"] == [str(hv("marta"))]
    assert p["content"] == "An adventurer cleared the road"
    assert p["tags"] == ["quest", "completed"]
    assert p["subject"] == "quest:q-grain"  # news of one quest is its own subject
    assert p["statement_id"].startswith("quest:q-grain:")
    # No NPC named: the quest giver tells it; no content: the description.
    m = plan(
        engine, QuestConsequence(consequence_type=C.GOSSIP_INJECTION, description="Word spreads")
    )
    assert m is not None
    assert m.payload["tellers"] == [str(hv("hollin"))]
    assert m.payload["content"] == "Word spreads"
    assert (
        plan(
            engine,
            QuestConsequence(consequence_type=C.GOSSIP_INJECTION, description="x"),
            context=None,
        )
        is None
    )


async def test_memory_is_public_and_tagged_with_the_outcome(engine: GameEngine) -> None:
    ctx = PlanContext("q-grain", QuestOutcome.PERFECT, giver=hv("hollin"), importance=0.8)
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.MEMORY_CREATION,
            target_npc=hv("hollin"),
            memory_content="A stranger cleared the road.",
        ),
        context=ctx,
    )
    assert m is not None
    assert m.mutation_type == "memory_creation"
    p = m.payload
    assert p["tags"] == ["quest", "perfect", "visibility:public"]
    assert p["visibility"] == "public"
    assert p["valence"] == "very_positive"
    assert p["importance"] == 0.8
    assert p["character_id"] == str(HERO)
    failed = plan(
        engine,
        QuestConsequence(consequence_type=C.MEMORY_CREATION, memory_content="Nobody came."),
        context=PlanContext("q-grain", QuestOutcome.EXPIRED, giver=hv("hollin")),
    )
    assert failed is not None
    assert failed.target_entity == hv("hollin")
    assert failed.payload["tags"] == ["quest", "expired", "visibility:public"]
    assert failed.payload["valence"] == "negative"


async def test_world_state(engine: GameEngine) -> None:
    m = plan(
        engine,
        QuestConsequence(
            consequence_type=C.WORLD_STATE,
            world_state_key="threat:wolves:hamlet:mill_road",
            world_state_value="cleared",
        ),
    )
    assert m is not None
    assert m.mutation_type == "world_state"
    assert m.target_entity is None
    assert m.target_key == "threat:wolves:hamlet:mill_road"
    assert m.payload == {"value": "cleared"}
    assert plan(engine, QuestConsequence(consequence_type=C.WORLD_STATE)) is None


async def test_a_target_that_no_longer_exists_plans_to_nothing(engine: GameEngine) -> None:
    ghost = uuid.uuid4()
    for c in (
        QuestConsequence(
            consequence_type=C.RELATIONSHIP_CHANGE, target_npc=ghost, relationship_delta=0.3
        ),
        QuestConsequence(consequence_type=C.NPC_NEED_SATISFY, target_npc=ghost, need_delta=0.3),
        QuestConsequence(
            consequence_type=C.SOCIAL_INFLUENCE, target_npc=ghost, social_influence_delta=0.1
        ),
        QuestConsequence(consequence_type=C.ECONOMIC_CHANGE, target_npc=ghost, economic_amount=10),
        QuestConsequence(consequence_type=C.NPC_GOAL_COMPLETE, target_npc=ghost),
        # a typed payload missing
        QuestConsequence(consequence_type=C.RELATIONSHIP_CHANGE, target_npc=hv("tamsin")),
    ):
        assert plan(engine, c) is None, c
