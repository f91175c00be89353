"""Quest generation, first half: signals -> seeds -> grounded, checked quests.

Story signals become enriched seeds (SeedEvaluator, CompoundSeedComposer), seeds
become grounded quests (ArchetypeRegistry, ObjectiveBuilder, QuestBuilder), and
quests are checked (QuestValidator, QuestQualityFilter) and remembered
(QuestHistory). ``QuestGenPlugin`` provides the :class:`QuestGen`
service holding it all; see docs/quest-generation.md.
"""

from maid_stdlib.questgen.archetypes import ArchetypeRegistry, QuestArchetype
from maid_stdlib.questgen.builder import QuestBuilder, QuestPlan
from maid_stdlib.questgen.challenge import (
    NEUTRAL_CHALLENGE,
    ChallengeRating,
    NeutralChallenge,
    Standing,
    TierDistance,
    TierFit,
    TierMatch,
)
from maid_stdlib.questgen.composer import CompoundSeedComposer
from maid_stdlib.questgen.contract import SeedGrounding, SignalContract, SignalContracts
from maid_stdlib.questgen.evaluator import SeedEvaluator, SignalThrottle
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory, QuestHistoryEntry
from maid_stdlib.questgen.narrative_context import (
    NarrativeContext,
    NarrativeProvider,
    QuestDialogue,
    QuestNarrative,
)
from maid_stdlib.questgen.objectives import ObjectiveBuilder
from maid_stdlib.questgen.quality import AntiPattern, QuestQualityFilter
from maid_stdlib.questgen.quest import (
    BranchOption,
    ConsequenceType,
    DifficultyTier,
    GeneratedQuest,
    ProgressionMode,
    QuestBranch,
    QuestConsequence,
    QuestExtension,
    QuestObjective,
    QuestRewards,
    quest_from_document,
    quest_to_document,
)
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION, QuestGen, QuestGenPlugin
from maid_stdlib.questgen.rewards import RewardPolicy
from maid_stdlib.questgen.seed import QuestSeed, seed_expiry
from maid_stdlib.questgen.signals import BasicSignal, StorySignalLike
from maid_stdlib.questgen.types import (
    BranchingPattern,
    NarrativeArcs,
    ObjectivePatterns,
    QuestSeedTypes,
    SeedTypeRegistry,
)
from maid_stdlib.questgen.validator import (
    QuestValidator,
    RewardLimits,
    ValidationResult,
    clamp_rewards,
)
from maid_stdlib.questgen.vocabulary import (
    FAILURE_OUTCOMES,
    SUCCESS_OUTCOMES,
    FailReason,
    ObjectiveType,
    QuestDeliveryMethod,
    QuestOutcome,
    QuestState,
)

__all__ = [
    "FAILURE_OUTCOMES",
    "GENERATED_QUESTS_COLLECTION",
    "NEUTRAL_CHALLENGE",
    "SUCCESS_OUTCOMES",
    "AntiPattern",
    "ArchetypeRegistry",
    "BasicSignal",
    "BranchOption",
    "BranchingPattern",
    "ChallengeRating",
    "CompoundSeedComposer",
    "ConsequenceType",
    "DifficultyTier",
    "FailReason",
    "GeneratedQuest",
    "NarrativeArcs",
    "NarrativeContext",
    "NarrativeProvider",
    "NeutralChallenge",
    "ObjectiveBuilder",
    "ObjectivePatterns",
    "ObjectiveType",
    "ProgressionMode",
    "QuestArchetype",
    "QuestBranch",
    "QuestBuilder",
    "QuestConsequence",
    "QuestDeliveryMethod",
    "QuestDialogue",
    "QuestExtension",
    "QuestGen",
    "QuestGenPlugin",
    "QuestHistory",
    "QuestHistoryEntry",
    "QuestNarrative",
    "QuestObjective",
    "QuestOutcome",
    "QuestPlan",
    "QuestQualityFilter",
    "QuestRewards",
    "QuestSeed",
    "QuestSeedTypes",
    "QuestState",
    "QuestValidator",
    "RewardLimits",
    "RewardPolicy",
    "SeedEvaluator",
    "SeedGrounding",
    "SeedTypeRegistry",
    "SignalContract",
    "SignalContracts",
    "SignalThrottle",
    "Standing",
    "StorySignalLike",
    "TierDistance",
    "TierFit",
    "TierMatch",
    "ValidationResult",
    "WorldFacts",
    "clamp_rewards",
    "quest_from_document",
    "quest_to_document",
    "seed_expiry",
]
