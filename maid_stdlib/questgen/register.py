"""QuestGen: the quest-generation toolkit of one engine, and ``QuestGenPlugin``.

The ``stdlib.questgen`` plugin provides one :class:`QuestGen` service holding every
registry, so content packs requiring it extend the pipeline from their own
``register``, each entry once and under the pack's name::

    qg = ctx.service(QuestGen)
    pack = ctx.pack.name
    qg.add_seed_type(pack, "heist_opportunity", "A valuable target is poorly guarded")
    qg.add_contract(pack, SignalContract("HEIST_SPOTTED", ("heist_opportunity",),
                                         ("target", "vault"), ground_heist))
    qg.add_objective_pattern(pack, "stealth", my_stealth_builder, requires=("subject",))
    qg.add_archetype(pack, QuestArchetype(archetype_id="heist", ...))

A key another pack (or the stdlib) added already is a start-up error naming both;
once every pack registered, the plugin checks that each added archetype has a
pattern builder and known seed types, and each contract known seed types. Once the
engine has started, the registries are locked: adding raises ``RegistryLocked``.

The generation system (and tests) build the pipeline's workers from it:
``evaluator()``, ``composer()``, ``builder(provider)``; ``build_best`` tries the
usable archetypes of a seed best-first until one yields a quest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from maid_engine.content import Claims, ContentPack, PackContext, PackError
from maid_engine.ports import StorePort
from maid_stdlib.questgen.archetypes import ArchetypeRegistry, QuestArchetype
from maid_stdlib.questgen.builder import QuestBuilder, Supply, scarce_supplies
from maid_stdlib.questgen.composer import CompoundSeedComposer
from maid_stdlib.questgen.consequences import ConsequencePlanner
from maid_stdlib.questgen.contract import SignalContract, SignalContracts, builtin_contracts
from maid_stdlib.questgen.evaluator import SeedEvaluator, SignalThrottle
from maid_stdlib.questgen.facts import FactsHost, WorldFacts
from maid_stdlib.questgen.history import COLLECTION as HISTORY_COLLECTION
from maid_stdlib.questgen.history import QuestHistory, QuestHistoryEntry
from maid_stdlib.questgen.narrative_context import NarrativeProvider
from maid_stdlib.questgen.objectives import ObjectiveBuilder, ObjectivePatternBuilder
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.quest import GeneratedQuest, QuestExtension
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.rewards import RewardPolicy
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.types import SeedTypeRegistry
from maid_stdlib.questgen.validator import QuestValidator
from maid_stdlib.world.plugin import WorldPlugin

__all__ = ["GENERATED_QUESTS_COLLECTION", "QuestGen", "QuestGenPlugin", "QuestSink"]

#: Side-table of generation metadata (consequences, branches, scores).
GENERATED_QUESTS_COLLECTION = "generated_quests"
#: The latest quests whose archetypes count against another of the same kind.
REPEAT_WINDOW = 5
#: The latest quests (about four game days at the usual five a day) an archetype
#: counts as seen lately in: one none of them used ranks higher.
NOVELTY_WINDOW = 20


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


class QuestGenHost(FactsHost, StorePort, Protocol):
    """What the quest-generation registries use: what the world facts read, plus
    the store the generated-quest history loads from and flushes to."""


class QuestGen:
    def __init__(self, engine: QuestGenHost) -> None:
        self.engine = engine
        self.facts = WorldFacts(engine)
        self.seed_types = SeedTypeRegistry()
        self.contracts = SignalContracts(builtin_contracts())
        self.archetypes = ArchetypeRegistry()
        self.objective_builder = ObjectiveBuilder()
        self.history = QuestHistory()
        self.rewards = RewardPolicy()
        self.planner = ConsequencePlanner()
        self.validator = QuestValidator(self.facts, self.rewards.limits, self.history)
        self.quality_filter = QuestQualityFilter(self.history, self.archetypes)
        #: Installed by the rules layer (the classic_rpg.questgen plugin).
        self.sink: QuestSink | None = None
        #: Rules layers' terms added to every built quest (``add_extension``).
        self.extensions: list[QuestExtension] = []
        self._loaded = False
        self.seed_type_claims = Claims("seed type", keys=self.seed_types.all)
        self.contract_claims = Claims("signal contract", keys=self.contracts.signal_types)
        self.pattern_claims = Claims("objective pattern", keys=self.objective_builder.patterns)
        self.archetype_claims = Claims(
            "archetype", keys=lambda: [a.archetype_id for a in self.archetypes.all()]
        )
        self.extension_claims = Claims(
            "quest extension", keys=lambda: [e.name for e in self.extensions]
        )

    @property
    def claims(self) -> tuple[Claims, ...]:
        """The registries packs add to (declared by the plugin, locked after start)."""
        return (
            self.seed_type_claims,
            self.contract_claims,
            self.pattern_claims,
            self.archetype_claims,
            self.extension_claims,
        )

    # -- what packs add: each key once, remembered with the pack ----------------------
    def add_seed_type(
        self, pack: str, type_id: str, description: str, *, merge: bool = True
    ) -> None:
        """A pack's seed type; ``merge=False`` keeps its signals out of compound
        seeds (see :meth:`SeedTypeRegistry.register`)."""
        self.seed_type_claims.claim(pack, type_id, built_in=self.seed_types.is_registered(type_id))
        self.seed_types.register(type_id, description, merge=merge)

    def add_contract(self, pack: str, contract: SignalContract) -> None:
        key = contract.signal_type.upper()
        self.contract_claims.claim(pack, key, built_in=self.contracts.get(key) is not None)
        self.contracts.register(contract)

    def add_objective_pattern(
        self,
        pack: str,
        pattern: str,
        builder: ObjectivePatternBuilder,
        requires: Sequence[str] = (),
    ) -> None:
        self.pattern_claims.claim(pack, pattern, built_in=self.objective_builder.has(pattern))
        self.objective_builder.register(pattern, builder, requires=requires)

    def add_archetype(self, pack: str, archetype: QuestArchetype) -> None:
        key = archetype.archetype_id
        self.archetype_claims.claim(pack, key, built_in=key in self.archetypes)
        self.archetypes.register(archetype)

    def problems(self) -> list[tuple[str, str]]:
        """(pack, problem) of every entry a pack added that the pipeline cannot use."""
        found: list[tuple[str, str]] = []
        for archetype_id, pack in self.archetype_claims.items():
            archetype = self.archetypes.get(archetype_id)
            if archetype is None:
                continue
            if not self.objective_builder.has(archetype.objective_pattern):
                found.append(
                    (
                        pack,
                        f"archetype {archetype_id!r}: no builder for objective pattern "
                        f"{archetype.objective_pattern!r}",
                    )
                )
            unknown = [
                t for t in archetype.compatible_seed_types if not self.seed_types.is_registered(t)
            ]
            if unknown:
                found.append((pack, f"archetype {archetype_id!r}: unknown seed types {unknown}"))
        for signal_type, pack in self.contract_claims.items():
            contract = self.contracts.get(signal_type)
            if contract is None:
                continue
            unknown = [t for t in contract.seed_types if not self.seed_types.is_registered(t)]
            if unknown:
                found.append(
                    (pack, f"signal contract {signal_type!r}: unknown seed types {unknown}")
                )
        return found

    # -- registration (what packs call) -------------------------------------------------------
    def register_archetype(self, archetype: QuestArchetype, replace: bool = False) -> None:
        """An archetype without an owner (``add_archetype`` is a pack's)."""
        self.archetype_claims.check_open(archetype.archetype_id)
        self.archetypes.register(archetype, replace=replace)

    def add_extension(self, extension: QuestExtension, *, pack: str | None = None) -> None:
        """Have every quest built from now on carry ``extension``'s terms (``pack``:
        who adds it, remembered like the other registries' entries)."""
        if any(e.name == extension.name for e in self.extensions):
            raise ValueError(f"a quest extension named {extension.name!r} is already added")
        self.extension_claims.check_open(extension.name)
        if pack is not None:
            self.extension_claims.claim(pack, extension.name)
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
            self.validator.coherence,
        )

    def fits_an_archetype(self, seed: QuestSeed) -> bool:
        """Whether some archetype fits ``seed`` and its pattern can use the seed's
        fields (no dice drawn: nothing of the seeded world changes). With no
        archetype registered at all (the stdlib alone, no rules layer) there is
        nothing to judge by: every seed is taken to fit."""
        if not len(self.archetypes):
            return True
        return bool(
            self.archetypes.ranked(
                seed, usable=lambda a: self.objective_builder.can_build(a.objective_pattern, seed)
            )
        )

    def ranked_archetypes(self, seed: QuestSeed) -> list[QuestArchetype]:
        """Archetypes that fit ``seed`` and whose pattern can use its fields, best first."""
        lately = [e.archetype_id for e in self.history.recent(NOVELTY_WINDOW)]
        ranked = self.archetypes.ranked(
            seed,
            lately[:REPEAT_WINDOW],
            self.engine.random,
            usable=lambda a: self.objective_builder.can_build(a.objective_pattern, seed),
            seen_lately=set(lately),
        )
        return [r.archetype for r in ranked]

    def select_archetype(self, seed: QuestSeed) -> QuestArchetype | None:
        ranked = self.ranked_archetypes(seed)
        return ranked[0] if ranked else None

    async def build_best(
        self, seed: QuestSeed, builder: QuestBuilder, provider: NarrativeProvider | None = None
    ) -> GeneratedQuest | None:
        """The quest of the best archetype that can be built on the world as it is
        and whose structure is coherent (judged on the plan, before its prose)."""
        for archetype in self.ranked_archetypes(seed):
            plan = await builder.prepare(seed, archetype)
            if isinstance(plan, Rejection):
                continue
            if self.validator.check_plan(builder.draft(plan), seed):
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

    def rerate(self, quest: GeneratedQuest) -> list[Supply]:
        """Raise ``quest``'s difficulty (and the rules layers' terms that follow from
        it) to what the items it asks for take now: it was rated on items free to
        pick up, and once the last of them is taken the rest are had only by a fight.
        Returns the supplies that raised it; empty, the quest is unchanged. It is
        never lowered: players were told its level, and loot lying about again may
        be gone the next minute."""
        supplies = [
            s
            for s in scarce_supplies(self.facts, quest.objectives)
            if s.tier.rank > quest.difficulty.rank
        ]
        if not supplies:
            return []
        quest.difficulty = max((s.tier for s in supplies), key=lambda t: t.rank)
        for extension in self.extensions:
            quest.extensions[extension.name] = extension.extend(quest)
        return supplies

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


class QuestGenPlugin(ContentPack):
    """Provide the QuestGen service (the registries packs add to) and declare the
    collections it writes; check what packs added once all registered."""

    name = "stdlib.questgen"
    requires = (WorldPlugin,)
    provides = (QuestGen,)
    description = "The quest-generation toolkit: seed types, contracts, patterns, archetypes."

    def register(self, ctx: PackContext) -> None:
        qg = QuestGen(ctx.engine)
        ctx.provide(QuestGen, qg)
        ctx.add_registry(*qg.claims)
        ctx.ensure_collection(HISTORY_COLLECTION)
        ctx.ensure_collection(GENERATED_QUESTS_COLLECTION)

    def finish(self, ctx: PackContext) -> None:
        problems = ctx.service(QuestGen).problems()
        if problems:
            pack, problem = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise PackError(pack, f"{problem}{more}")
