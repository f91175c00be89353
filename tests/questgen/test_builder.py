"""QuestBuilder: the pipeline from seed + archetype to a scored GeneratedQuest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from kits.narrators import EchoNarrator
from questgen.qgkit import (
    Town,
    goal_signal,
    make_engine,
    populate,
    register_test_archetypes,
    threat_signal,
)

from maid_stdlib.living.components import Wealth
from maid_stdlib.questgen import (
    BasicSignal,
    ConsequenceType,
    DifficultyTier,
    GeneratedQuest,
    NarrativeContext,
    QuestDialogue,
    QuestExtension,
    QuestGen,
    QuestNarrative,
    QuestSeed,
    quest_from_document,
    quest_to_document,
)
from maid_stdlib.questgen.rejection import Rejection

C = ConsequenceType
SLUG = re.compile(r"[a-z0-9][a-z0-9_\-]{0,49}")
UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-")


async def _iron_seed(town: Town) -> QuestSeed:
    seeds = await town.qg.composer().compose(
        [goal_signal(town), threat_signal(town, threat_location="Darkwood")]
    )
    assert seeds
    return seeds[0]


async def _build(
    town: Town, seed: QuestSeed, archetype: str = "clear_out", narrator: EchoNarrator | None = None
) -> GeneratedQuest:
    builder = town.qg.builder(narrator or EchoNarrator())
    arch = town.qg.archetypes.get(archetype)
    assert arch is not None
    quest = await builder.build(seed, arch)
    assert not isinstance(quest, Rejection), quest
    return quest


async def test_the_iron_seed_becomes_a_grounded_scored_quest(town: Town) -> None:
    seed = await _iron_seed(town)
    narrator = EchoNarrator()
    quest = await _build(town, seed, narrator=narrator)
    assert SLUG.fullmatch(quest.id)
    assert quest.id.startswith("gen-clear_out-")
    assert quest.seed_id == seed.id
    assert quest.seed_type == "threat_response"
    assert quest.importance == seed.importance
    assert quest.quest_giver_id == town.hilda
    assert [o.objective_type.value for o in quest.objectives] == [
        "talk",
        "visit",
        "kill",
        "kill",
        "talk",
    ]
    assert quest.involved_npcs == {town.brann: "informant", town.orla: "witness"}
    assert "brookhaven:clearing" in quest.involved_locations
    assert quest.area == "brookhaven:woods"
    assert quest.region == "wilds"
    assert quest.difficulty is DifficultyTier.MODERATE  # three wolves, no levels known
    assert quest.grounding_score == 1.0
    assert quest.coherence_score == 1.0
    assert quest.novelty_score == 1.0
    assert quest.created_at == town.now
    assert quest.expiry >= seed.expires_at
    assert quest.chain_potential == pytest.approx(0.6)  # the alpha may rally the pack
    # Narrative and dialogue came from the provider, given only names and places.
    ctx = narrator.contexts[0]
    assert ctx.giver_name == "Hilda"
    assert ctx.threat == "wolves"
    assert ctx.area_name == "Darkwood"
    assert "Captain Brann" in ctx.involved_npcs
    assert "the alpha wolf" in ctx.involved_npcs
    assert "Defeat 2 grey wolves" in ctx.objectives
    assert ctx.public_memories == (
        "The ore carts stopped coming when the wolves moved into Darkwood",
    )
    for value in [
        *ctx.objectives,
        *ctx.locations,
        *ctx.involved_npcs,
        ctx.backstory,
        ctx.motivation,
        ctx.stakes,
        *ctx.public_memories,
    ]:
        assert not UUID_TEXT.search(value), value
        assert "moneylender" not in value  # private memory never leaks
    assert quest.title == "Hilda's Plea"
    assert quest.quest_giver_dialogue.progress == "Any news?"
    assert quest.narrative_source == "template"


async def test_rewards_scale_with_the_givers_wealth_and_are_clamped(town: Town) -> None:
    seed = await _iron_seed(town)
    rich = await _build(town, seed)
    assert rich.rewards.gold == 150  # 120 x 1.25 effort
    town.engine.world.get_component(town.hilda, Wealth).gold = 100
    poor = await _build(town, seed)
    assert poor.rewards.gold == 30  # 30% of what she has
    town.engine.world.remove_component(town.hilda, Wealth)
    unknown = await _build(town, seed)
    assert unknown.rewards.gold == 75  # halved when wealth is not modelled
    assert unknown.grounding_score < rich.grounding_score
    # The clamp is a build step: a generous policy cannot exceed the tier's cap.
    town.qg.rewards.limits.cap_factor = 0.5  # cap: 60 gold
    town.engine.world.add_component(town.hilda, Wealth(1_000_000))
    builder = town.qg.builder(EchoNarrator())
    capped = await builder.build(seed, town.qg.archetypes.get("clear_out"))  # type: ignore[arg-type]
    assert not isinstance(capped, Rejection)
    assert capped.rewards.gold == 60
    plan = await builder.prepare(seed, town.qg.archetypes.get("clear_out"))  # type: ignore[arg-type]
    assert not isinstance(plan, Rejection)
    assert plan.reward_notes == ["gold clamped to 60"]


class _Stamp:
    """A rules layer's quest extension: its own terms of every built quest."""

    name = "stamp"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def extend(self, quest: GeneratedQuest) -> dict[str, Any]:
        self.seen.append(quest.id)
        return {"tier_rank": quest.difficulty.rank, "objectives": len(quest.objectives)}


async def test_quest_extensions_add_a_rules_layers_terms_and_are_stored(town: Town) -> None:
    seed = await _iron_seed(town)
    plain = await _build(town, seed)
    assert plain.extensions == {}  # no rules layer here: the stdlib adds nothing
    stamp = _Stamp()
    assert isinstance(stamp, QuestExtension)
    # The test changes a registry of the running engine (the seam a reload would use).
    town.engine.registries.unlock()
    town.qg.add_extension(stamp)
    with pytest.raises(ValueError, match="already added"):
        town.qg.add_extension(_Stamp())
    quest = await _build(town, seed)
    assert stamp.seen == [quest.id]
    assert quest.extensions == {
        "stamp": {"tier_rank": quest.difficulty.rank, "objectives": len(quest.objectives)}
    }
    assert quest_from_document(quest_to_document(quest)).extensions == quest.extensions


async def test_consequences_are_planned_against_real_needs_goals_and_people(town: Town) -> None:
    quest = await _build(town, await _iron_seed(town))
    by_type: dict[C, list[Any]] = {}
    for c in quest.consequences:
        by_type.setdefault(c.consequence_type, []).append(c)
    (goal,) = by_type[C.NPC_GOAL_COMPLETE]
    assert (goal.target_npc, goal.target_key) == (town.hilda, "get_iron")
    (need,) = by_type[C.NPC_NEED_SATISFY]
    # 0.2 -> 0.7: completing the goal already gives +0.3, the quest adds the rest.
    assert need.target_key == "economic"
    assert need.need_delta == pytest.approx(0.2)
    trust = {c.target_npc: c.relationship_delta for c in by_type[C.RELATIONSHIP_CHANGE]}
    assert trust == {town.hilda: 0.3, town.brann: 0.15}
    (faction,) = by_type[C.FACTION_STANDING]
    assert faction.target_faction == "smiths"
    (gossip,) = by_type[C.GOSSIP_INJECTION]
    assert gossip.gossip_content == "An adventurer cleared the wolves from Darkwood"
    (memory,) = by_type[C.MEMORY_CREATION]
    assert memory.target_npc == town.hilda
    assert "cleared the wolves" in (memory.memory_content or "")
    (state,) = by_type[C.WORLD_STATE]
    assert state.world_state_key == "threat:wolves:brookhaven:woods"
    failure = {c.consequence_type: c for c in quest.failure_consequences}
    assert set(failure) == {
        C.RELATIONSHIP_CHANGE,
        C.GOSSIP_INJECTION,
        C.MEMORY_CREATION,
        C.NPC_NEED_SATISFY,
    }
    assert failure[C.RELATIONSHIP_CHANGE].relationship_delta == pytest.approx(-0.1)
    # A failure leaves the world worse: the need the quest was to answer sinks.
    worse = failure[C.NPC_NEED_SATISFY]
    assert (worse.target_npc, worse.target_key) == (town.hilda, "economic")
    assert worse.need_delta == pytest.approx(-0.1)


async def test_branching_archetypes_get_per_option_consequences(town: Town) -> None:
    evaluator = town.qg.evaluator()
    seed = await evaluator.evaluate(
        BasicSignal(
            "RIVALRY_ESCALATION",
            0.8,
            [town.tam],
            {
                "npc_a": str(town.orla),
                "npc_b": str(town.brann),
                "cause": "the market tax",
                "trust_level": -0.5,
            },
        )
    )
    assert not isinstance(seed, Rejection)
    quest = await _build(town, seed, "mediate")
    assert quest.branches is not None
    assert len(quest.branches) == 1
    branch = quest.branches[0]
    trigger = quest.objective(branch.trigger_objective)
    assert trigger is not None
    assert trigger.choice
    labels = [o.label for o in branch.options]
    assert labels == ["Side with Orla", "Side with Captain Brann", "Broker a compromise"]
    side_orla = branch.options[0]
    deltas = {
        c.target_npc: c.relationship_delta
        for c in side_orla.consequences
        if c.consequence_type is C.RELATIONSHIP_CHANGE
    }
    assert deltas == {town.orla: 0.2, town.brann: -0.15}
    assert side_orla.follow_up_objectives[0].target_entity_id == town.orla
    # A linear archetype gets no branches.
    assert (await _build(town, await _iron_seed(town))).branches is None


async def test_build_from_narrative_is_the_template_path(town: Town) -> None:
    seed = await _iron_seed(town)
    builder = town.qg.builder()  # no provider at all
    narrative = QuestNarrative(
        title="Wolves at the Door",
        summary="Hilda's ore is cut off by wolves.",
        description="Hilda wipes her hands. The wolves in Darkwood have cut off her ore, "
        "and the forge is going cold.",
        dialogue=QuestDialogue("Help me, please.", "", ""),
        source="template",
    )
    quest = await builder.build_from_narrative(seed, town.qg.archetypes.get("clear_out"), narrative)  # type: ignore[arg-type]
    assert not isinstance(quest, Rejection), quest
    assert quest.title == "Wolves at the Door"
    # Empty dialogue lines are filled from the facts.
    assert quest.quest_giver_dialogue.progress.startswith("Have you done it yet?")
    with pytest.raises(RuntimeError):
        await builder.build(seed, town.qg.archetypes.get("clear_out"))  # type: ignore[arg-type]


async def test_provider_errors_propagate_for_the_caller_to_fall_back(town: Town) -> None:
    class Broken:
        async def generate(self, ctx: NarrativeContext) -> QuestNarrative:
            raise TimeoutError("model down")

    archetype = town.qg.archetypes.get("clear_out")
    assert archetype is not None
    seed = await _iron_seed(town)
    with pytest.raises(TimeoutError):
        await town.qg.builder(Broken()).build(seed, archetype)


async def test_low_grounding_or_coherence_is_rejected(town: Town) -> None:
    seed = await _iron_seed(town)
    arch = town.qg.archetypes.get("clear_out")
    assert arch is not None

    class Blank:
        async def generate(self, ctx: NarrativeContext) -> QuestNarrative:
            return QuestNarrative("", "", "", QuestDialogue("", "", ""))

    builder = town.qg.builder(Blank())
    rejection = await builder.build(seed, arch)
    assert isinstance(rejection, Rejection)
    assert rejection.stage == "scores"
    assert rejection.reason.startswith("coherence score")
    assert "title present and short" in rejection.reason

    class Vague:
        async def generate(self, ctx: NarrativeContext) -> QuestNarrative:
            return QuestNarrative(
                "A Task",
                "Someone needs help.",
                "Someone somewhere needs a hand with something, and will pay for it.",
                QuestDialogue("Help?", "Well?", "Thanks."),
            )

    world = town.engine.world
    world.remove_component(town.hilda, Wealth)
    from maid_stdlib.living.components import GoalsComponent, NeedsComponent

    world.remove_component(town.hilda, GoalsComponent)
    world.remove_component(town.hilda, NeedsComponent)
    seed.backstory = ""
    builder = town.qg.builder(Vague())
    rejection = await builder.build(seed, arch)
    assert isinstance(rejection, Rejection)
    assert rejection.reason.startswith("grounding score")


async def test_a_seed_that_no_longer_stands_is_not_built(town: Town) -> None:
    seed = await _iron_seed(town)
    arch = town.qg.archetypes.get("clear_out")
    assert arch is not None
    builder = town.qg.builder(EchoNarrator())
    town.skip(seed.expires_at - town.now + 1)
    rejection = await builder.build(seed, arch)
    assert isinstance(rejection, Rejection)
    assert rejection.reason == "the seed has expired"


async def test_urgent_seeds_get_a_time_limit_and_the_quest_round_trips(town: Town) -> None:
    seed = await _iron_seed(town)
    seed.urgency = 0.9
    quest = await _build(town, seed)
    assert quest.time_limit is not None
    assert quest.time_limit * 60 >= quest.estimated_duration_minutes
    assert quest_from_document(quest_to_document(quest)) == quest
    seed.urgency = 0.1
    assert (await _build(town, seed)).time_limit is None


async def test_builds_are_reproducible_with_the_same_random_seed(tmp_path: Path) -> None:
    ids = []
    for run in range(2):
        engine = make_engine(tmp_path / str(run))
        engine.register_packs()
        register_test_archetypes(engine.services.get(QuestGen))
        async with engine.lifespan():
            town = populate(engine)
            quest = await _build(town, await _iron_seed(town))
            ids.append((quest.id, quest.seed_id))
    assert ids[0] == ids[1]
