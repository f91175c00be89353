"""What the simulation measures, read from the game itself.

Counts come from the real events (story signals, quest lifecycle, chains,
consequences) and from the metrics the systems publish on the engine's Prometheus
registry (template fallbacks, rejections by stage, consequence batches by status,
invalidations by reason); per-quest facts come from the generation pipeline's own
records (the GeneratedQuest it registered, its QuestHistory entry). Nothing is
recounted in a second bookkeeping that could disagree with the game.

Grounding is checked here, on the world as it is at the moment of the event: when
a quest is generated and when it is accepted, every entity the quest refers to (its
giver, the people involved, every objective's target) must exist and be alive, and
every room it names (its place, the places involved, every objective's room) must
exist.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from classic_rpg.combat.components import PendingRespawn
from classic_rpg.systems.quests import QuestManager
from maid_engine.ports import ClockPort, EventsPort, MetricsPort, ServicesPort, WorldPort
from maid_stdlib.consequences import (
    ConsequencesAppliedEvent,
    ConsequenceSystem,
    GeneratedQuestIndex,
    QuestChainEvent,
)
from maid_stdlib.questgen import GeneratedQuest, QuestGen
from maid_stdlib.questgen.events import (
    QuestAbandonedEvent,
    QuestAcceptedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestGeneratedEvent,
    QuestOfferedEvent,
    QuestTurnedInEvent,
)
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.narrative.lint import LintReport
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.story import StorySignalEvent
from maid_stdlib.world.components import NPC

__all__ = ["Collector", "QuestRecord", "metric_samples", "ungrounded"]


class GroundHost(WorldPort, ServicesPort, Protocol):
    """What checking a quest's grounding reads: the world and the quest services."""


class CollectorHost(WorldPort, EventsPort, ClockPort, ServicesPort, MetricsPort, Protocol):
    """What the collector uses: the events it counts, game time, the quest services
    and the world (grounding), and the metrics registry it samples."""


def _by_kind(engine: ServicesPort, quest_id: str) -> dict[str, str]:
    """Objectives the QuestManager tracks by NPC template rather than by entity (any
    NPC of the kind counts): objective id -> template."""
    model = engine.services.get(QuestManager).get_quest(quest_id)
    if model is None:
        return {}
    return {
        o.objective_id: o.target_template
        for o in model.objectives
        if o.target_id is None and o.target_template
    }


def _kind_exists(engine: GroundHost, template: str) -> bool:
    """Some NPC of the kind lives, or one is due to respawn."""
    facts = engine.services.get(QuestGen).facts
    world = engine.world
    return any(n.template == template and facts.is_alive(uid) for uid, n in world.each(NPC)) or any(
        p.template == template for _, p in world.each(PendingRespawn)
    )


def ungrounded(quest: GeneratedQuest, engine: GroundHost) -> list[str]:
    """What ``quest`` refers to that is not in the world right now ([]: grounded).

    An objective the QuestManager tracks by kind ("defeat 3 bandit scouts") is
    grounded while some NPC of that kind lives or is due to respawn; one bound to an
    entity needs that entity alive."""
    facts = engine.services.get(QuestGen).facts
    entities: dict[UUID, str] = {quest.quest_giver_id: "giver"}
    for npc, role in quest.involved_npcs.items():
        entities.setdefault(npc, role)
    rooms: dict[str, str] = {}
    for room in [quest.location, *quest.involved_locations]:
        if room is not None:
            rooms.setdefault(room, "place")
    kinds = _by_kind(engine, quest.id)
    out: list[str] = []
    for o in quest.objectives:
        template = kinds.get(o.id)
        if template is not None:
            if not _kind_exists(engine, template):
                out.append(f"objective {o.id}: no {template} is alive or coming back")
        else:
            for uid in [o.target_entity_id, *o.target_entity_ids]:
                if uid is not None:
                    entities.setdefault(uid, f"objective {o.id}")
        if o.target_location is not None:
            rooms.setdefault(o.target_location, f"objective {o.id}")
    out += [
        f"{role}: entity {uid} is gone" for uid, role in entities.items() if not facts.is_alive(uid)
    ]
    out += [
        f"{role}: room {room} does not exist"
        for room, role in rooms.items()
        if not facts.room_exists(room)
    ]
    return out


def _names(quest: GeneratedQuest, facts: WorldFacts) -> list[str]:
    """The proper names a quest's text may contain: people, places, targets."""
    names = [facts.name(quest.quest_giver_id), *(facts.name(u) for u in quest.involved_npcs)]
    for room in quest.involved_locations:
        names += [facts.room_name(room), facts.place(room)]
    for o in quest.objectives:
        names += [o.target, facts.room_name(o.target_location), facts.place(o.target_location)]
    return [n for n in names if n]


def metric_samples(engine: MetricsPort, prefix: str) -> dict[str, dict[str, float]]:
    """Sample name -> {label values joined by ',' -> value} for metrics named ``prefix*``
    (bucket and ``_created`` samples left out)."""
    out: dict[str, dict[str, float]] = {}
    for metric in engine.metrics.registry.collect():
        if not metric.name.startswith(prefix):
            continue
        for sample in metric.samples:
            if sample.name.endswith(("_bucket", "_created")):
                continue
            key = ",".join(str(v) for v in sample.labels.values())
            out.setdefault(sample.name, {})[key] = float(sample.value)
    return out


@dataclass
class QuestRecord:
    """One generated quest as the pipeline registered it, and what became of it."""

    quest_id: str
    archetype_id: str
    seed_type: str
    giver: str
    generated_at: float
    difficulty: str
    narrative: str
    chain_depth: int
    chain_parent_id: str | None
    grounded_at_generation: list[str]
    grounded_at_acceptance: dict[str, list[str]] = field(default_factory=dict)
    offers: Counter[str] = field(default_factory=Counter)
    outcomes: list[str] = field(default_factory=list)


#: Outcomes whose consequences are the failure ones.
_FAILURES = frozenset({"failed", "expired", "abandoned"})


@dataclass
class Collector:
    engine: CollectorHost
    signals: list[tuple[float, str, int, str]] = field(default_factory=list)
    quests: dict[str, QuestRecord] = field(default_factory=dict)
    lifecycle: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    fail_details: Counter[str] = field(default_factory=Counter)
    offers: Counter[str] = field(default_factory=Counter)
    chain_events: list[tuple[str, int]] = field(default_factory=list)
    consequences_applied: int = 0
    #: What each failure's consequences said: whether someone had tried, the
    #: memories and gossip they left (nobody came vs tried and failed).
    failures: list[dict[str, Any]] = field(default_factory=list)
    lint: LintReport = field(default_factory=LintReport)
    #: Named mentions in model prose, and those no fact held (quest id, name).
    mentions: int = 0
    unmatched: list[tuple[str, str]] = field(default_factory=list)
    #: The quest generation metrics at the end of each game day (``day_ended``).
    day_ends: list[dict[str, dict[str, float]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        events = self.engine.events
        events.subscribe(StorySignalEvent, self._on_signal)
        events.subscribe(QuestGeneratedEvent, self._on_generated)
        events.subscribe(QuestOfferedEvent, self._on_offered)
        events.subscribe(QuestAcceptedEvent, self._on_accepted)
        events.subscribe(QuestTurnedInEvent, self._on_turned_in)
        events.subscribe(QuestFailedEvent, self._on_failed)
        events.subscribe(QuestAbandonedEvent, self._on_abandoned)
        events.subscribe(QuestExpiredInternalEvent, self._on_expired)
        events.subscribe(QuestChainEvent, self._on_chain)
        events.subscribe(ConsequencesAppliedEvent, self._on_consequences)

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    def generated_quest(self, quest_id: str) -> GeneratedQuest | None:
        """The pipeline's own GeneratedQuest (open ones, else the side-table cache)."""
        services = self.engine.services
        generation = services.try_get(QuestGenerationService)
        oq = generation.open_quest(quest_id) if generation is not None else None
        if oq is not None:
            return oq.quest
        index = services.try_get(GeneratedQuestIndex)
        return index.cached(quest_id) if index is not None else None

    # -- handlers ---------------------------------------------------------------------
    def _on_signal(self, event: StorySignalEvent) -> None:
        s = event.signal
        chain_type = str(s.context.get("chain_type", "")) if s.chain_depth else ""
        self.signals.append((self.now, s.signal_type, s.chain_depth, chain_type))

    def _on_generated(self, event: QuestGeneratedEvent) -> None:
        quest = self.generated_quest(event.quest_id)
        facts = self.engine.services.get(QuestGen).facts
        self.lifecycle["generated"] += 1
        self.quests[event.quest_id] = QuestRecord(
            event.quest_id,
            event.archetype_id,
            event.seed_type,
            facts.name(event.quest_giver_id) if event.quest_giver_id else "",
            self.now,
            quest.difficulty.value if quest else "",
            quest.narrative_source if quest else "",
            quest.chain_depth if quest else 0,
            quest.chain_parent_id if quest else None,
            ungrounded(quest, self.engine) if quest else ["the generated quest is not found"],
        )
        if quest is not None:
            self.mentions += quest.narrative_mentions
            self.unmatched += [(quest.id, n) for n in quest.narrative_unmatched]
            self.lint.add(quest, self.quests[event.quest_id].giver, self.now, _names(quest, facts))

    def _on_offered(self, event: QuestOfferedEvent) -> None:
        self.offers[event.delivery_method] += 1
        record = self.quests.get(event.quest_id)
        if record is not None:
            record.offers[event.delivery_method] += 1

    def _on_accepted(self, event: QuestAcceptedEvent) -> None:
        record = self.quests.get(event.quest_id)
        if record is None:
            return  # an authored quest
        self.lifecycle["accepted"] += 1
        quest = self.generated_quest(event.quest_id)
        problems = ungrounded(quest, self.engine) if quest else ["the generated quest is gone"]
        record.grounded_at_acceptance[str(event.character_id)] = problems

    def _outcome(self, quest_id: str, what: str) -> None:
        record = self.quests.get(quest_id)
        if record is not None:
            record.outcomes.append(what)

    def _on_turned_in(self, event: QuestTurnedInEvent) -> None:
        if event.quest_id in self.quests:
            self.lifecycle["turned_in"] += 1
            self.outcomes[event.outcome.value] += 1
            self._outcome(event.quest_id, event.outcome.value)

    def _on_failed(self, event: QuestFailedEvent) -> None:
        if event.quest_id not in self.quests:
            return
        reason = event.reason.value
        # "expired" is kept for the opportunity expiring (QuestExpiredInternalEvent);
        # a run failing on its own time limit is counted apart.
        key = {"expired": "time_limit_expired"}.get(reason, reason)
        # Invalidation reaches offers too; only accepted runs count as failures.
        self.lifecycle[f"{key}{'' if event.previous_state.active else '_offer'}"] += 1
        if event.previous_state.active:
            self.outcomes[event.outcome.value] += 1
            self._outcome(event.quest_id, f"{reason}: {event.detail or event.outcome.value}")
        if event.detail:
            self.fail_details[f"{reason}: {event.detail}"] += 1

    def _on_abandoned(self, event: QuestAbandonedEvent) -> None:
        if event.quest_id in self.quests:
            self.lifecycle["abandoned"] += 1
            self.outcomes["abandoned"] += 1
            self._outcome(event.quest_id, "abandoned")

    def _on_expired(self, event: QuestExpiredInternalEvent) -> None:
        if event.quest_id in self.quests:
            self.lifecycle["expired"] += 1
            if event.character_ids:
                self.outcomes["expired"] += len(event.character_ids)
            self._outcome(event.quest_id, "expired")

    def _on_chain(self, event: QuestChainEvent) -> None:
        self.chain_events.append((event.chain_type, event.chain_depth))

    def _on_consequences(self, event: ConsequencesAppliedEvent) -> None:
        self.consequences_applied += 1
        if event.outcome not in _FAILURES:
            return
        system = self.engine.services.try_get(ConsequenceSystem)
        done = [p for p in (system.recent if system else ()) if p.audit_key == event.audit_key]
        words: dict[str, list[str]] = {"memory_creation": [], "gossip_injection": []}
        for m in done[0].applied if done else []:
            if m.mutation_type in words:
                words[m.mutation_type].append(str(m.payload.get("content", "")))
        self.failures.append(
            {
                "quest_id": event.quest_id,
                "outcome": event.outcome,
                "tried": bool(event.character_ids),
                "memories": words["memory_creation"],
                "gossip": words["gossip_injection"],
            }
        )

    # -- reading the pipeline's records ------------------------------------------------------
    def history(self) -> dict[str, dict[str, Any]]:
        """QuestHistory entries of the generated quests (chain parents and depths)."""
        history = self.engine.services.get(QuestGen).history
        return {e.quest_id: e.document() for e in history.entries()}

    def day_ended(self) -> None:
        """Keep the quest generation metrics as they are at the end of a game day
        (what each day's rejections, holds and turned-down signals are read from)."""
        self.day_ends.append(metric_samples(self.engine, "maid_questgen_"))

    def archetypes(self) -> list[str]:
        """The archetypes the packs registered."""
        return sorted(a.archetype_id for a in self.engine.services.get(QuestGen).archetypes.all())

    def metrics(self) -> dict[str, dict[str, dict[str, float]]]:
        return {
            prefix: metric_samples(self.engine, prefix)
            for prefix in ("maid_questgen_", "maid_consequence_", "maid_grounding_", "maid_llm_")
        }
