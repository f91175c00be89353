"""Consequence propagation: quest outcomes change
the living world, and those changes may raise the next quest. See
docs/consequences.md.

Public API:

* ``ConsequenceSystem`` (phase consequences) with ``on_turned_in``, ``on_failed``,
  ``on_abandoned``, ``on_expired``; ``ConsequencesAppliedEvent``, ``Propagation``
* ``ConsequencePropagator.plan_mutation`` (``PlanContext``),
  ``OUTCOME_SCALE``
* ``WorldMutation``, ``WorldMutationBatch``, ``BatchResult``, ``Validation``,
  ``EntityVersions``, ``MutationKind``/``MutationKinds``/``MutationEnv``/``Applied``,
  ``WorldFlags``/``world_flag``
* chains: ``detect_consequence_signals``, ``QuestChainEvent``, ``ChainRules``,
  ``ChainContext``, ``PendingChains`` (``quest_chains``), ``CONSEQUENCE_SIGNAL_BUDGET``,
  ``MAX_CHAIN_DEPTH``
* side-tables: ``GeneratedQuestIndex`` (``generated_quests``), ``BranchChoices``
  (``quest_branch_choices``); audit collection ``AUDIT_COLLECTION``
* ``ConsequencesPlugin``
"""

from maid_stdlib.consequences.batch import (
    BatchResult,
    EntityVersions,
    Validation,
    VersionConflict,
    WorldMutationBatch,
)
from maid_stdlib.consequences.chains import (
    CHAIN_DAMPENING,
    CHAINS_COLLECTION,
    CONSEQUENCE_SIGNAL_BUDGET,
    MAX_CHAIN_DEPTH,
    RETALIATION_THRESHOLD,
    ChainContext,
    ChainRule,
    ChainRules,
    PendingChains,
    QuestChainEvent,
    detect_consequence_signals,
)
from maid_stdlib.consequences.kinds import MutationKinds
from maid_stdlib.consequences.mutations import (
    WORLD_FLAGS_ID,
    Applied,
    MutationEnv,
    MutationKind,
    WorldFlags,
    WorldMutation,
    world_flag,
)
from maid_stdlib.consequences.outcome import OUTCOME_SCALE
from maid_stdlib.consequences.propagator import ConsequencePropagator, PlanContext
from maid_stdlib.consequences.register import ConsequencesPlugin
from maid_stdlib.consequences.sidetable import (
    BRANCH_CHOICES_COLLECTION,
    BranchChoices,
    GeneratedQuestIndex,
)
from maid_stdlib.consequences.system import (
    AUDIT_COLLECTION,
    ConsequencesAppliedEvent,
    ConsequenceSystem,
    Propagation,
)

__all__ = [
    "AUDIT_COLLECTION",
    "BRANCH_CHOICES_COLLECTION",
    "CHAINS_COLLECTION",
    "CHAIN_DAMPENING",
    "CONSEQUENCE_SIGNAL_BUDGET",
    "MAX_CHAIN_DEPTH",
    "OUTCOME_SCALE",
    "RETALIATION_THRESHOLD",
    "WORLD_FLAGS_ID",
    "Applied",
    "BatchResult",
    "BranchChoices",
    "ChainContext",
    "ChainRule",
    "ChainRules",
    "ConsequencePropagator",
    "ConsequenceSystem",
    "ConsequencesAppliedEvent",
    "ConsequencesPlugin",
    "EntityVersions",
    "GeneratedQuestIndex",
    "MutationEnv",
    "MutationKind",
    "MutationKinds",
    "PendingChains",
    "PlanContext",
    "Propagation",
    "QuestChainEvent",
    "Validation",
    "VersionConflict",
    "WorldFlags",
    "WorldMutation",
    "WorldMutationBatch",
    "detect_consequence_signals",
    "world_flag",
]
