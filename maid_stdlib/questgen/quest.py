"""The data of a generated quest: objectives, branches, rewards,
consequences and the GeneratedQuest itself.

Everything here is plain data. All dataclasses are keyword-only, which is what
makes our field order (required fields after defaulted ones) valid.
Rooms are room keys ("ironvale:road_ridge"), as everywhere in
the world layer; entities are UUIDs. Times are game seconds, except
``GeneratedQuest.time_limit`` which is game hours, as authors write it.

``ObjectiveType`` is the shared one of :mod:`maid_stdlib.questgen.vocabulary`,
which the rules layer's quest manager uses too. Terms only a rules layer knows
(the classic RPG's experience reward and level requirement) are not fields here:
a rules layer adds them as a :class:`QuestExtension`, stored in
``GeneratedQuest.extensions``.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from uuid import UUID

from pydantic import TypeAdapter

from maid_stdlib.questgen.narrative_context import QuestDialogue, TracedSentence
from maid_stdlib.questgen.types import QuestSeedType
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = [
    "BranchOption",
    "ConsequenceType",
    "DifficultyTier",
    "GeneratedQuest",
    "ProgressionMode",
    "QuestBranch",
    "QuestConsequence",
    "QuestDialogue",
    "QuestExtension",
    "QuestObjective",
    "QuestRewards",
    "quest_from_document",
    "quest_to_document",
]


class DifficultyTier(enum.StrEnum):
    """How hard a quest is, as an ordinal. What makes a character ready for a tier
    is the rules layer's (``maid_stdlib.questgen.challenge``)."""

    TRIVIAL = "trivial"
    EASY = "easy"
    MODERATE = "moderate"
    HARD = "hard"
    EPIC = "epic"

    @property
    def rank(self) -> int:
        return list(DifficultyTier).index(self)


class ProgressionMode(enum.StrEnum):
    """How multi-player progress is credited. Side-table only, not on the Quest model."""

    INDIVIDUAL = "individual"
    SHARED_CREDIT = "shared_credit"
    COMPETITIVE = "competitive"


class ConsequenceType(enum.StrEnum):
    NPC_GOAL_ADVANCE = "npc_goal_advance"
    NPC_GOAL_COMPLETE = "npc_goal_complete"
    NPC_NEED_SATISFY = "npc_need_satisfy"
    RELATIONSHIP_CHANGE = "relationship_change"
    FACTION_STANDING = "faction_standing"
    ECONOMIC_CHANGE = "economic_change"
    SOCIAL_INFLUENCE = "social_influence"
    GOSSIP_INJECTION = "gossip_injection"
    MEMORY_CREATION = "memory_creation"
    WORLD_STATE = "world_state"


@dataclass(kw_only=True)
class QuestConsequence:
    """A planned world change. Only the payload field of its type is set.

    ``target_key`` (not in the seed) names which need or goal of ``target_npc`` is
    meant ("economic", a goal id): without it "satisfy Gundrik's need" is ambiguous.
    RELATIONSHIP_CHANGE is how ``target_npc`` comes to see the character who did
    the quest (the propagator knows the character).
    """

    consequence_type: ConsequenceType
    target_npc: UUID | None = None
    target_faction: str | None = None
    description: str = ""
    target_key: str | None = None
    relationship_delta: float | None = None
    faction_delta: float | None = None
    goal_progress: float | None = None
    need_delta: float | None = None
    economic_amount: float | None = None
    gossip_content: str | None = None
    #: What the gossip is about ("threat:bandits:..."): news of the same subject
    #: replaces older news in what NPCs know. None: the quest itself.
    gossip_subject: str | None = None
    memory_content: str | None = None
    world_state_key: str | None = None
    world_state_value: str | None = None
    social_influence_delta: float | None = None
    #: Words of a failure nobody tried to prevent ("nobody came"): applied only when
    #: no character had taken the quest on. Someone who tried and failed is told
    #: apart (the consequence layer says who).
    unattended_only: bool = False


@dataclass(kw_only=True)
class QuestRewards:
    """What the giver pays: coin out of its own Wealth, item templates, and extras
    checked against a whitelist. Rewards that only a rules layer knows (the classic
    RPG's experience) are not here: they travel in ``GeneratedQuest.extensions``."""

    gold: int = 0
    item_template_ids: list[str] = field(default_factory=list)
    extra_rewards: dict[str, float] = field(default_factory=dict)


@dataclass(kw_only=True)
class QuestObjective:
    """One objective, grounded: entity ids and room keys that exist in the world.

    ``target_entity_ids`` lists every real entity a counted objective stands for
    (three bandit scouts for "KILL x 3"); ``target_entity_id`` is the single one
    when there is exactly one. ``target_template``/``item_template`` are the data
    keys the QuestManager's tracker matches on. ``choice`` marks the CUSTOM
    objective at which a branch's decision is made.
    """

    id: str = ""
    objective_type: ObjectiveType
    description: str
    target: str
    target_entity_id: UUID | None = None
    target_location: str | None = None
    quantity: int = 1
    optional: bool = False
    hints: list[str] = field(default_factory=list)
    #: Same order = parallel; a higher order unlocks when every lower one is done.
    order: int = 0
    target_entity_ids: list[UUID] = field(default_factory=list)
    target_template: str | None = None
    #: KILL groups without a shared template: a keyword every member answers to.
    target_keyword: str | None = None
    item_template: str | None = None
    time_limit_seconds: float | None = None
    choice: bool = False
    #: The stage of a multi-stage quest it belongs to ("Stage 1 of 2: Deal with
    #: the bandits"); None in a quest of one stage.
    stage: str | None = None
    #: TALK: what the one talked to says or does once the step is done, built
    #: from the same facts as the step ("Gundrik says, ..."); "" for none.
    reply: str = ""


@dataclass(kw_only=True)
class BranchOption:
    id: UUID = field(default_factory=uuid.uuid4)
    label: str
    description: str
    follow_up_objectives: list[QuestObjective] = field(default_factory=list)
    consequences: list[QuestConsequence] = field(default_factory=list)
    alignment: str | None = None


@dataclass(kw_only=True)
class QuestBranch:
    id: UUID = field(default_factory=uuid.uuid4)
    trigger_objective: str
    description: str
    options: list[BranchOption] = field(default_factory=list)


@dataclass(kw_only=True)
class GeneratedQuest:
    """A fully built quest, ready for validation, the quality filter and delivery.

    Generation-only metadata (branches, consequences, scores, progression mode)
    goes to the ``generated_quests`` side-table, not onto the Quest model.
    """

    id: str
    seed_id: UUID
    seed_type: QuestSeedType
    archetype_id: str
    importance: float
    # Metadata
    title: str
    summary: str
    detailed_description: str
    # Structure
    objectives: list[QuestObjective]
    branches: list[QuestBranch] | None = None
    # Grounding
    quest_giver_id: UUID
    quest_giver_motivation: str
    quest_giver_dialogue: QuestDialogue
    involved_npcs: dict[UUID, str] = field(default_factory=dict)
    involved_locations: list[str] = field(default_factory=list)
    # Rewards and consequences
    rewards: QuestRewards = field(default_factory=QuestRewards)
    consequences: list[QuestConsequence] = field(default_factory=list)
    failure_consequences: list[QuestConsequence] = field(default_factory=list)
    # Lifecycle
    difficulty: DifficultyTier
    #: Game hours from acceptance, or None for unlimited.
    time_limit: float | None = None
    #: Game seconds at which the offer disappears.
    expiry: float
    chain_potential: float = 0.0
    chain_depth: int = 0
    chain_parent_id: str | None = None
    progression_mode: ProgressionMode = ProgressionMode.INDIVIDUAL
    # Quality metadata
    grounding_score: float = 0.0
    coherence_score: float = 0.0
    novelty_score: float = 0.0
    # Not in the seed, needed downstream
    created_at: float = 0.0
    estimated_duration_minutes: int = 0
    #: Where the quest is centred (its giver's room unless the seed says otherwise).
    location: str | None = None
    area: str | None = None
    region: str | None = None
    secondary_seed_types: list[QuestSeedType] = field(default_factory=list)
    narrative_source: str = "template"
    tokens_used: int = 0
    tone: list[str] = field(default_factory=list)
    #: The facts the prose could use ("goal: Selena wants to ..."), and per
    #: sentence of the prose the keys of the facts it used (``@quest inspect``).
    narrative_facts: list[str] = field(default_factory=list)
    narrative_trace: list[TracedSentence] = field(default_factory=list)
    #: Model prose: named mentions checked against the facts, and the unmatched ones.
    narrative_mentions: int = 0
    narrative_unmatched: list[str] = field(default_factory=list)
    #: Rules layers' own terms of the quest, one JSON-ready mapping per layer, keyed
    #: by the layer's :class:`QuestExtension` name. The stdlib stores and copies
    #: them with the quest and never reads them.
    extensions: dict[str, dict[str, Any]] = field(default_factory=dict)

    def objective(self, objective_id: str) -> QuestObjective | None:
        return next((o for o in self.objectives if o.id == objective_id), None)

    @property
    def required_objectives(self) -> list[QuestObjective]:
        return [o for o in self.objectives if not o.optional]


@runtime_checkable
class QuestExtension(Protocol):
    """How a rules layer adds its own terms to every generated quest.

    The builder calls ``extend`` once for each finished quest, in registration
    order (``QuestGen.add_extension``), and stores the returned mapping (JSON-ready)
    under ``quest.extensions[name]``. The rules layer reads it back from there; the
    stdlib names none of these terms. A quest stored before an extension existed
    has no entry for it: its reader must cope (classic_rpg derives its terms again).
    """

    name: str

    def extend(self, quest: GeneratedQuest) -> dict[str, Any]: ...


_QUEST_ADAPTER: TypeAdapter[GeneratedQuest] = TypeAdapter(GeneratedQuest)


def quest_to_document(quest: GeneratedQuest) -> dict[str, Any]:
    """JSON-ready dict (for the ``generated_quests`` side-table)."""
    data = _QUEST_ADAPTER.dump_python(quest, mode="json")
    assert isinstance(data, dict)
    return data


def quest_from_document(doc: dict[str, Any]) -> GeneratedQuest:
    """The quest of a ``generated_quests`` document. Documents stored before the
    rules layer's terms moved to ``extensions`` also carry ``required_player_level``
    and ``rewards.experience``; those keys are ignored (classic_rpg derives them)."""
    return _QUEST_ADAPTER.validate_python(doc)
