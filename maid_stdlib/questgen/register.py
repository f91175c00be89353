"""QuestGen: the quest-generation toolkit of one engine, and ``register_questgen``.

``register_questgen(ctx)`` (called by StdlibContentPack.register) provides one
:class:`QuestGen` service holding every registry, so content packs extend the
pipeline from their own ``register``::

    qg = ctx.service(QuestGen)
    qg.seed_types.register("heist_opportunity", "A valuable target is poorly guarded")
    qg.contracts.register(SignalContract("HEIST_SPOTTED", ("heist_opportunity",),
                                         ("target", "vault"), ground_heist))
    qg.register_archetype(QuestArchetype(archetype_id="heist", ...))
    qg.objective_builder.register("stealth", my_stealth_builder, requires=("subject",))

The generation system (and tests) build the pipeline's workers from it:
``evaluator()``, ``composer()``, ``builder(provider)``; ``build_best`` tries the
usable archetypes of a seed best-first until one yields a quest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from maid_stdlib.questgen.archetypes import ArchetypeRegistry, QuestArchetype
from maid_stdlib.questgen.builder import QuestBuilder
from maid_stdlib.questgen.composer import CompoundSeedComposer
from maid_stdlib.questgen.consequences import ConsequencePlanner
from maid_stdlib.questgen.contract import SignalContracts, builtin_contracts
from maid_stdlib.questgen.evaluator import SeedEvaluator, SignalThrottle
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import COLLECTION as HISTORY_COLLECTION
from maid_stdlib.questgen.history import QuestHistory, QuestHistoryEntry
from maid_stdlib.questgen.narrative_context import NarrativeProvider
from maid_stdlib.questgen.objectives import ObjectiveBuilder
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.quest import GeneratedQuest, QuestExtension
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.rewards import RewardPolicy
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.types import SeedTypeRegistry
from maid_stdlib.questgen.validator import QuestValidator

if TYPE_CHECKING:
    from maid_engine.content import PackContext
    from maid_engine.ports import Host

__all__ = ["GENERATED_QUESTS_COLLECTION", "QuestGen", "QuestSink", "register_questgen"]

#: Side-table of generation metadata (consequences, branches, scores).
GENERATED_QUESTS_COLLECTION = "generated_quests"


@runtime_checkable
class QuestSink(Protocol):
    """Where finished quests go: the rules layer's quest manager. The stdlib cannot
    import it, so the rules layer installs one (``QuestGen.sink``); classic_rpg's
    converts with ``to_quest_model`` and calls ``register_generated_quest``."""

    def register(self, quest: GeneratedQuest) -> str:
        """Make the quest playable; returns its id in the rules layer."""
        ...

    def expire(self, quest_id: str) -> object:
        """The quest's offer window closed: withdraw the offers still open."""
        ...


class QuestGen:
    def __init__(self, engine: Host) -> None:
        self.engine = engine
        self.facts = WorldFacts(engine)
        self.seed_types = SeedTypeRegistry()
        self.contracts = SignalContracts(builtin_contracts())
        self.archetypes = ArchetypeRegistry()
        self.objective_builder = ObjectiveBuilder()
        self.history = QuestHistory()
        self.rewards = RewardPolicy()
        self.planner = ConsequencePlanner()
        self.validator = QuestValidator(self.facts, self.rewards.limits)
        self.quality_filter = QuestQualityFilter(self.history, self.archetypes)
        #: Installed by the rules layer (classic_rpg: register_rpg_questgen).
        self.sink: QuestSink | None = None
        #: Rules layers' terms added to every built quest (``add_extension``).
        self.extensions: list[QuestExtension] = []
        self._loaded = False

    # -- registration (what packs call) -------------------------------------------------------
    def register_archetype(self, archetype: QuestArchetype, replace: bool = False) -> None:
        self.archetypes.register(archetype, replace=replace)

    def add_extension(self, extension: QuestExtension) -> None:
        """Have every quest built from now on carry ``extension``'s terms."""
        if any(e.name == extension.name for e in self.extensions):
            raise ValueError(f"a quest extension named {extension.name!r} is already added")
        self.extensions.append(extension)

    # -- workers ------------------------------------------------------------------------
    def evaluator(self, throttle: SignalThrottle | None = None) -> SeedEvaluator:
        """A SeedEvaluator; pass a SignalThrottle to have it dedup and rate-limit."""
        return SeedEvaluator(self.facts, self.seed_types, self.contracts, self.history, throttle)

    def composer(self, evaluator: SeedEvaluator | None = None) -> CompoundSeedComposer:
        return CompoundSeedComposer(evaluator or self.evaluator())

    def builder(self, provider: NarrativeProvider | None = None) -> QuestBuilder:
        return QuestBuilder(
            self.facts,
            self.objective_builder,
            self.history,
            provider,
            self.rewards,
            self.planner,
            self.extensions,
        )

    def ranked_archetypes(self, seed: QuestSeed) -> list[QuestArchetype]:
        """Archetypes that fit ``seed`` and whose pattern can use its fields, best first."""
        recent = [e.archetype_id for e in self.history.recent(5)]
        ranked = self.archetypes.ranked(
            seed,
            recent,
            self.engine.random,
            usable=lambda a: self.objective_builder.can_build(a.objective_pattern, seed),
        )
        return [r.archetype for r in ranked]

    def select_archetype(self, seed: QuestSeed) -> QuestArchetype | None:
        ranked = self.ranked_archetypes(seed)
        return ranked[0] if ranked else None

    async def build_best(
        self, seed: QuestSeed, builder: QuestBuilder, provider: NarrativeProvider | None = None
    ) -> GeneratedQuest | None:
        """The quest of the best archetype that can be built on the world as it is."""
        for archetype in self.ranked_archetypes(seed):
            plan = await builder.prepare(seed, archetype)
            if isinstance(plan, Rejection):
                continue
            narrator = provider or builder.narrative_provider
            if narrator is None:
                raise RuntimeError("no narrative provider")
            quest = builder.finish(plan, await narrator.generate(plan.context))
            if not isinstance(quest, Rejection):
                return quest
        return None

    def record(self, quest: GeneratedQuest) -> QuestHistoryEntry:
        """Record ``quest`` in the history (call once it is registered)."""
        archetype = self.archetypes.get(quest.archetype_id)
        return self.history.record(
            quest,
            self.engine.clock.game_time,
            objective_pattern=archetype.objective_pattern if archetype else "",
            requires_combat=archetype.requires_combat if archetype else False,
        )

    # -- persistence --------------------------------------------------------------------
    async def startup(self) -> None:
        """Load the history once (idempotent: every system using QuestGen may call it)."""
        if self._loaded:
            return
        self._loaded = True
        if self.engine.has_store:
            await self.history.load(self.engine.store.documents)
        self.facts.warm()

    async def flush(self) -> int:
        if not self.engine.has_store:
            return 0
        return await self.history.flush(self.engine.store.documents)


def register_questgen(ctx: PackContext) -> QuestGen:
    """Provide the QuestGen service and declare the collections it writes.

    Safe to call twice: the second call returns the service already provided."""
    existing = ctx.engine.services.try_get(QuestGen)
    if existing is not None:
        return existing
    qg = QuestGen(ctx.engine)
    ctx.provide(QuestGen, qg)
    ctx.ensure_collection(HISTORY_COLLECTION)
    ctx.ensure_collection(GENERATED_QUESTS_COLLECTION)
    return qg
