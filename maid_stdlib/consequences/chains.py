"""Emergent quest chains: applied consequences may raise the next quest's signal.

Chains are not authored: an applied consequence batch may raise new story
signals, which the generation pipeline evaluates like any other. Each carries
``chain_depth`` (attribute and context) and ``previous_quest_id``, so the seed
evaluator's circuit breaker sees it and the next quest records its
``chain_parent_id`` in the QuestHistory (``history.chain_of(id)`` walks it).

* **Follow-up**: a COMPLETED/PERFECT quest with ``chain_potential > 0.5`` below
  depth ``MAX_CHAIN_DEPTH`` raises one follow-up, chosen by the first matching
  chain rule. Built in: a quest that fought a threat -> THREAT_DETECTED
  "retaliation" (the bandits regroup; Ironvale's Iron Crisis leads to "The
  Bandit's Revenge"); an investigation -> DISCOVERY "follow_up"; anything else ->
  CONSEQUENCE_CHAIN "follow_up". Packs add named rules from their ``register``
  (``ChainRules.add_from(pack, rule)``), tried before the built-in ones.
* **Retaliation**: every applied trust change below ``RETALIATION_THRESHOLD``
  toward the character raises RIVALRY_ESCALATION between the wronged NPC and the
  quest giver who benefited.
* **Aftermath of a failure**: a FAILED or EXPIRED quest raises one "escalation"
  signal: a threat it was meant to clear grows bolder where it holds
  (THREAT_DETECTED); anything else becomes a CONSEQUENCE_CHAIN among its people.
  When someone came against the threat and failed (beaten, or out of time) it
  always does, and says who; otherwise with a chance of the quest's
  ``chain_potential`` (drawn from the world's seeded random source). The situation
  does not wait for the next adventurer politely.
* A follow-up's importance is the importance of the chain's first quest, or the
  finished quest's ``chain_potential`` if that is higher, x 0.7 per link (x1 after
  a standalone quest, x0.49 two links down): the stakes carry over and fade. (The
  potential alone, 0.6, falls below the seed evaluator's threshold once its
  variety filter halves a same-type follow-up; the first quest's importance alone
  leaves the chain of a minor quest below it.) A retaliation's importance is the
  size of the trust change, dampened the same way. At most
  ``CONSEQUENCE_SIGNAL_BUDGET`` signals come out of one propagation.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final
from uuid import UUID

from pydantic import TypeAdapter

from maid_engine.clock import GAME_DAY
from maid_engine.content import Claims
from maid_engine.events import Event
from maid_stdlib.consequences.mutations import WorldMutation
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.quest import ConsequenceType, GeneratedQuest
from maid_stdlib.questgen.types import ObjectivePatterns
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestOutcome
from maid_stdlib.story.signals import StorySignal, StorySignalType

if TYPE_CHECKING:
    from maid_engine.store import DocumentStore

log = logging.getLogger("maid.consequences")

__all__ = [
    "CHAINS_COLLECTION",
    "CHAIN_DAMPENING",
    "CHAIN_POTENTIAL_THRESHOLD",
    "CONSEQUENCE_SIGNAL_BUDGET",
    "ESCALATION_OUTCOMES",
    "MAX_CHAIN_DEPTH",
    "RETALIATION_THRESHOLD",
    "ChainContext",
    "ChainRule",
    "ChainRules",
    "PendingChains",
    "QuestChainEvent",
    "detect_consequence_signals",
]

#: Circuit breaker: at most this many new signals per propagation.
CONSEQUENCE_SIGNAL_BUDGET: Final = 5
MAX_CHAIN_DEPTH: Final = 5
CHAIN_DAMPENING: Final = 0.7
CHAIN_POTENTIAL_THRESHOLD: Final = 0.5
RETALIATION_THRESHOLD: Final = -0.3
CHAIN_OUTCOMES: Final = frozenset({QuestOutcome.COMPLETED, QuestOutcome.PERFECT})
#: Outcomes whose aftermath may escalate (a chance of the quest's chain potential).
ESCALATION_OUTCOMES: Final = frozenset({QuestOutcome.FAILED, QuestOutcome.EXPIRED})
#: Follow-ups waiting for the world, persisted (key: signal id).
CHAINS_COLLECTION: Final = "quest_chains"


@dataclass
class QuestChainEvent(Event):
    """A quest's consequences created a follow-up opportunity."""

    original_quest_id: str
    chain_signal: StorySignal
    #: "follow_up", "retaliation" or "escalation".
    chain_type: str
    chain_depth: int


@dataclass
class ChainContext:
    quest: GeneratedQuest
    outcome: QuestOutcome
    characters: list[UUID]
    facts: WorldFacts
    #: Objective pattern of the quest's archetype ("" if unknown).
    pattern: str
    #: Depth of the follow-up (the quest's depth + 1).
    depth: int
    #: Importance the follow-up gets (already dampened).
    importance: float
    now: float
    rng: random.Random

    def signal(
        self, signal_type: str, npcs: list[UUID], chain_type: str, **context: Any
    ) -> StorySignal:
        return StorySignal(
            signal_type=signal_type,
            importance=round(max(0.0, min(1.0, self.importance)), 3),
            involved_npcs=npcs,
            involved_players=list(self.characters),
            context={
                "previous_quest_id": self.quest.id,
                "chain_type": chain_type,
                "chain_depth": self.depth,
                **context,
            },
            chain_depth=self.depth,
            situation_key=f"chain:{self.quest.id}:{chain_type}",
            band=chain_type,
            id=uuid.UUID(int=self.rng.getrandbits(128), version=4),
            created_at=self.now,
        )

    def living_npcs(self, *first: UUID | None) -> list[UUID]:
        """``first`` and the quest's involved NPCs, then its giver, alive, no repeats."""
        giver = self.quest.quest_giver_id
        out: list[UUID] = []
        for npc in [*first, *self.quest.involved_npcs, giver]:
            if npc is not None and npc not in out and self.facts.is_alive(npc):
                out.append(npc)
        return out


ChainRule = Callable[[ChainContext], "StorySignal | None"]


def rule_name(rule: ChainRule) -> str:
    """A rule's name: its function's."""
    return str(getattr(rule, "__name__", type(rule).__name__))


class ChainRules:
    """Follow-up rules by name, tried in order; the first to return a signal wins.

    Packs add theirs from ``register`` with ``add_from`` (tried before the built-in
    ones); a name taken by a built-in rule or another pack is a start-up error
    naming both, and the rules are locked once the engine has started."""

    def __init__(self, rules: Sequence[ChainRule] = ()) -> None:
        self._rules: list[tuple[str, ChainRule]] = []
        self.claims = Claims("chain rule", keys=self.names)
        for rule in rules:
            self.register(rule, first=False)

    @property
    def rules(self) -> list[ChainRule]:
        """The rules in the order they are tried."""
        return [rule for _, rule in self._rules]

    def names(self) -> list[str]:
        return [name for name, _ in self._rules]

    def add_from(
        self, pack: str, rule: ChainRule, *, name: str | None = None, first: bool = True
    ) -> None:
        """A pack's rule (from its ``register``), under ``name`` (default: the
        function's name)."""
        key = name or rule_name(rule)
        self.claims.claim(pack, key, built_in=key in self.names())
        self.register(rule, first=first, name=key)

    def register(self, rule: ChainRule, first: bool = True, *, name: str | None = None) -> None:
        """Add a rule (before the others unless ``first`` is False)."""
        key = name or rule_name(rule)
        self.claims.check_open(key)
        if key in self.names():
            raise ValueError(f"a chain rule {key!r} is registered already")
        if first:
            self._rules.insert(0, (key, rule))
        else:
            self._rules.append((key, rule))

    def follow_up(self, ctx: ChainContext) -> StorySignal | None:
        for _, rule in self._rules:
            signal = rule(ctx)
            if signal is not None:
                return signal
        return None

    @classmethod
    def builtin(cls) -> ChainRules:
        return cls([retaliation_rule, investigation_rule, generic_rule])


def threat_source(quest: GeneratedQuest) -> str | None:
    """What the quest fought: the source of a "threat:<source>:..." world-state
    consequence, else the keyword of its kill objectives."""
    for c in quest.consequences:
        key = c.world_state_key or ""
        if c.consequence_type is ConsequenceType.WORLD_STATE and key.startswith("threat:"):
            parts = key.split(":")
            if len(parts) > 1 and parts[1]:
                return parts[1]
    for o in quest.objectives:
        if o.objective_type is ObjectiveType.KILL and (o.target_keyword or o.target):
            return o.target_keyword or o.target
    return None


def retaliation_rule(ctx: ChainContext) -> StorySignal | None:
    """Those the quest fought regroup where they were beaten."""
    quest = ctx.quest
    kills = [o for o in quest.objectives if o.objective_type is ObjectiveType.KILL]
    source = threat_source(quest)
    if not kills or source is None:
        return None
    rooms = [o.target_location for o in kills if o.target_location]
    # Where the fighting was, which need not be where the quest was given.
    place = (ctx.facts.area_of(rooms[-1]) or rooms[-1]) if rooms else (quest.area or quest.location)
    if place is None:
        return None
    # The follow-up comes from someone who watches over the place, not the giver
    # who was just helped (who also sits out the seed evaluator's NPC cooldown).
    npcs = ctx.living_npcs()
    giver = quest.quest_giver_id
    npcs = [n for n in npcs if n != giver] + [n for n in npcs if n == giver]
    if not npcs:
        return None
    where = ctx.facts.area_name(place) or ctx.facts.room_name(place)
    return ctx.signal(
        StorySignalType.THREAT_DETECTED,
        npcs,
        "retaliation",
        threat_source=source,
        threat_location=place,
        threat_location_key=place,
        severity=round(min(1.0, ctx.importance), 3),
        await_threat=source,
        description=f"The {source} driven off {where} are regrouping, bent on revenge.",
    )


def investigation_rule(ctx: ChainContext) -> StorySignal | None:
    """What an investigation uncovered points somewhere new."""
    quest = ctx.quest
    if ctx.pattern != ObjectivePatterns.INVESTIGATE or not quest.consequences:
        return None
    room = quest.location or (quest.involved_locations[0] if quest.involved_locations else None)
    npcs = ctx.living_npcs()
    if room is None or not npcs:
        return None
    return ctx.signal(
        StorySignalType.DISCOVERY,
        npcs,
        "follow_up",
        discovery_type="revelation",
        discovery_location=room,
        discovery_location_key=room,
        revealed_information=quest.consequences[-1].description,
        description=quest.consequences[-1].description,
    )


def situation_of(quest: GeneratedQuest, facts: WorldFacts) -> str | None:
    """What the quest's consequences left behind, in words from the world: the goal
    it completed or advanced ("source quality iron"), else what its decision was
    about ("the dispute over the mill"); None when it names nothing."""
    for c in quest.consequences:
        if c.consequence_type in (
            ConsequenceType.NPC_GOAL_COMPLETE,
            ConsequenceType.NPC_GOAL_ADVANCE,
        ):
            goal = facts.goal(c.target_npc, c.target_key) if c.target_npc and c.target_key else None
            if goal is not None and goal.description.strip():
                return goal.description.strip()
    for o in quest.objectives:
        if o.choice and o.target.strip():
            target = o.target.strip()
            # A choice's target is its two sides ("Selena or Captain Voss"): what
            # follows is about the choice made, never a pair of names as a topic.
            a, sep, b = target.partition(" or ")
            return f"the choice between {a} and {b}" if sep else target
    return None


def generic_rule(ctx: ChainContext) -> StorySignal | None:
    """A follow-up about the situation the quest's consequences created; a quest
    whose consequences name none has no follow-up (its subject would be a
    placeholder)."""
    npcs = ctx.living_npcs()
    situation = situation_of(ctx.quest, ctx.facts)
    if not npcs or situation is None:
        return None
    return ctx.signal("CONSEQUENCE_CHAIN", npcs, "follow_up", situation=situation)


def fights_threat(quest: GeneratedQuest) -> bool:
    """Whether the quest sent its doer against a threat (foes to defeat, of a
    known source)."""
    kills = any(o.objective_type is ObjectiveType.KILL for o in quest.objectives)
    return kills and threat_source(quest) is not None


def escalation_signal(ctx: ChainContext) -> StorySignal | None:
    """What a failure leaves behind: the threat the quest was to clear, bolder where
    it still holds; else the quest's people left with the problem."""
    quest, facts = ctx.quest, ctx.facts
    kills = [o for o in quest.objectives if o.objective_type is ObjectiveType.KILL]
    source = threat_source(quest)
    npcs = ctx.living_npcs()
    if not npcs:
        return None
    if kills and source is not None:
        targets = [
            u
            for o in kills
            for u in (o.target_entity_ids or ([o.target_entity_id] if o.target_entity_id else []))
        ]
        alive = [u for u in targets if facts.is_alive(u)]
        room = next((facts.room_of(u) for u in alive if facts.room_of(u)), None)
        place = facts.area_of(room) or room if room is not None else None
        if place is not None:
            where = facts.area_name(place) or facts.room_name(place)
            doers = [facts.name(c) for c in ctx.characters if facts.name(c)]
            what = (
                f"{doers[0]} came against the {source} and failed"
                if doers
                else f"Nobody stopped the {source}"
            )
            return ctx.signal(
                StorySignalType.THREAT_DETECTED,
                npcs,
                "escalation",
                threat_source=source,
                threat_location=place,
                threat_location_key=place,
                severity=round(min(1.0, ctx.importance), 3),
                description=f"{what}; they grow bolder {where}.",
            )
    return ctx.signal("CONSEQUENCE_CHAIN", npcs, "escalation")


def detect_consequence_signals(
    quest: GeneratedQuest,
    outcome: QuestOutcome,
    characters: Sequence[UUID],
    applied: Sequence[WorldMutation],
    facts: WorldFacts,
    *,
    rules: ChainRules | None = None,
    pattern: str = "",
    budget: int = CONSEQUENCE_SIGNAL_BUDGET,
    root_importance: float | None = None,
) -> list[StorySignal]:
    """New story signals raised by an applied consequence batch (the feedback loop).

    ``applied`` are the mutations that were actually applied (merged, including
    branch and abandonment consequences). ``root_importance``: importance of the
    chain's first quest (default: this quest's). At most ``budget`` signals.
    """
    depth = quest.chain_depth + 1
    if depth > MAX_CHAIN_DEPTH or budget <= 0:
        return []
    dampening = CHAIN_DAMPENING**quest.chain_depth
    base = quest.importance if root_importance is None else root_importance
    if outcome in CHAIN_OUTCOMES:
        # A success with the potential for a follow-up makes one at least that
        # important: a chain begun by a minor quest (the daily floor's) is no less
        # a story, and below the evaluator's threshold it would never be built.
        base = max(base, quest.chain_potential)
    ctx = ChainContext(
        quest=quest,
        outcome=outcome,
        characters=list(characters),
        facts=facts,
        pattern=pattern,
        depth=depth,
        importance=base * dampening,
        now=facts.now,
        rng=facts.rng,
    )
    signals: list[StorySignal] = []
    if outcome in CHAIN_OUTCOMES and quest.chain_potential > CHAIN_POTENTIAL_THRESHOLD:
        follow = (rules or ChainRules.builtin()).follow_up(ctx)
        if follow is not None:
            signals.append(follow)
    elif outcome in ESCALATION_OUTCOMES and (
        # Beaten or outrun, the one who came against a threat left it surer of
        # itself than nobody coming would: a failed fight always leaves it worse.
        (ctx.characters and fights_threat(quest)) or ctx.rng.random() < quest.chain_potential
    ):
        worse = escalation_signal(ctx)
        if worse is not None:
            signals.append(worse)
    giver = quest.quest_giver_id
    for m in applied:
        if len(signals) >= budget:
            break
        if m.mutation_type != "relationship_change" or m.delta is None:
            continue
        if m.delta >= RETALIATION_THRESHOLD or m.target_entity is None:
            continue
        wronged = m.target_entity
        if wronged == giver or not facts.is_alive(giver) or not facts.is_alive(wronged):
            continue
        trust = facts.trust(wronged, giver)
        signal = ctx.signal(
            StorySignalType.RIVALRY_ESCALATION,
            [wronged, giver],
            "retaliation",
            npc_a=str(wronged),
            npc_b=str(giver),
            cause=m.description or "the quest",
            trust_level=round(trust if trust is not None else m.delta, 3),
        )
        signal.importance = round(min(1.0, abs(m.delta)) * dampening, 3)
        signals.append(signal)
    return signals[:budget]


def is_ready(signal: StorySignal, facts: WorldFacts) -> bool:
    """Whether the world is ready for ``signal`` (an awaited threat is back)."""
    source = signal.context.get("await_threat")
    if not source:
        return True
    place = signal.context.get("threat_location_key") or signal.context.get("threat_location")
    rooms = facts.resolve_place(place) if place else []
    return bool(rooms and facts.threats(str(source), rooms))


_SIGNAL: TypeAdapter[StorySignal] = TypeAdapter(StorySignal)


class PendingChains:
    """Follow-up signals waiting for the world to be ready (:func:`is_ready`)."""

    #: Game seconds a follow-up may wait; then the moment has passed.
    MAX_WAIT: Final = 2 * GAME_DAY
    #: Game seconds between two checks.
    CHECK_EVERY: Final = 60.0

    def __init__(self) -> None:
        self._waiting: dict[str, tuple[StorySignal, float]] = {}
        #: signal id -> document to write, or None to delete.
        self._dirty: dict[str, dict[str, Any] | None] = {}
        self._checked: float | None = None

    def __len__(self) -> int:
        return len(self._waiting)

    def signals(self) -> list[StorySignal]:
        return [s for s, _ in self._waiting.values()]

    def park(self, signal: StorySignal, now: float) -> None:
        key = str(signal.id)
        deadline = now + self.MAX_WAIT
        self._waiting[key] = (signal, deadline)
        self._dirty[key] = {
            "signal": _SIGNAL.dump_python(signal, mode="json"),
            "deadline": deadline,
        }

    def due(self, facts: WorldFacts, force: bool = False) -> list[StorySignal]:
        """Signals whose moment has come (removed); those past their deadline are
        dropped. Checks at most every CHECK_EVERY game seconds unless ``force``."""
        now = facts.now
        if not self._waiting or (
            not force and self._checked is not None and 0 <= now - self._checked < self.CHECK_EVERY
        ):
            return []
        self._checked = now
        out: list[StorySignal] = []
        for key, (signal, deadline) in sorted(self._waiting.items()):
            if is_ready(signal, facts):
                signal.created_at = now
                out.append(signal)
            elif now <= deadline:
                continue
            else:
                log.info(
                    "follow-up %s of %s lapsed",
                    signal.signal_type,
                    signal.context.get("previous_quest_id"),
                )
            del self._waiting[key]
            self._dirty[key] = None
        return out

    # -- persistence ------------------------------------------------------------------
    @property
    def pending_writes(self) -> int:
        return len(self._dirty)

    async def load(self, documents: DocumentStore) -> int:
        for doc in await documents.query(CHAINS_COLLECTION):
            try:
                signal = _SIGNAL.validate_python(doc["signal"])
            except Exception as exc:
                log.warning("skipping an unreadable waiting follow-up: %s", exc)
                continue
            self._waiting[str(signal.id)] = (signal, float(doc.get("deadline", 0.0)))
        return len(self._waiting)

    async def flush(self, documents: DocumentStore) -> None:
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, {}
        try:
            writes = {k: d for k, d in dirty.items() if d is not None}
            if writes:
                await documents.put_many(CHAINS_COLLECTION, writes)
            for key in (k for k, d in dirty.items() if d is None):
                await documents.delete(CHAINS_COLLECTION, key)
        except Exception:
            self._dirty = {**dirty, **self._dirty}
            raise
