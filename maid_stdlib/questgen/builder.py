"""QuestBuilder: seed + archetype -> GeneratedQuest.

The pipeline, split so the narrative can come from anywhere:

1. ``prepare``: validate the seed's grounding, build grounded objectives,
   branches (BRANCHING archetypes), rewards scaled by difficulty and the
   giver's wealth (then clamped: the clamp is a build step, never the validator's),
   consequences, and the :class:`NarrativeContext` of real names and places.
2. the narrative: ``build`` asks a :class:`NarrativeProvider` (LLM or
   template); ``build_from_narrative`` takes one already written.
3. ``finish``: dialogue, assembly, quality scores; quests scoring under 0.6
   grounding or 0.7 coherence are rejected.

Narrative provider errors propagate from ``build`` so the caller (the
generation system) can fall back to templates. A step that refuses returns a
:class:`~maid_stdlib.questgen.rejection.Rejection` (stage ``plan`` from
``prepare``, ``scores`` from ``finish``) saying why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar
from uuid import UUID

from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.coherence import CoherenceRules
from maid_stdlib.questgen.consequences import ConsequencePlan, ConsequencePlanner
from maid_stdlib.questgen.enrich import MINUTES_PER_ROOM, estimate_difficulty
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.narrative.story import story_facts
from maid_stdlib.questgen.narrative_context import (
    NarrativeContext,
    NarrativeProvider,
    QuestDialogue,
    QuestNarrative,
)
from maid_stdlib.questgen.objectives import ObjectiveBuilder
from maid_stdlib.questgen.quest import (
    DifficultyTier,
    GeneratedQuest,
    QuestBranch,
    QuestExtension,
    QuestObjective,
    QuestRewards,
)
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.rewards import RewardPolicy
from maid_stdlib.questgen.scoring import score_coherence, score_grounding, score_novelty
from maid_stdlib.questgen.seed import QuestSeed, seed_expiry
from maid_stdlib.questgen.text import slugify
from maid_stdlib.questgen.types import BranchingPattern
from maid_stdlib.questgen.validator import clamp_rewards
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.text.realiser import Phrase

__all__ = ["QuestBuilder", "QuestPlan", "Supply", "scarce_supplies"]

#: The tiers, easiest first.
_TIER_ORDER = list(DifficultyTier)


@dataclass(frozen=True)
class Supply:
    """An item a quest asks for that cannot simply be picked up: it lies only where
    hostile foes stand (``room``), or nowhere and is had from whoever drops it
    (``room`` None). Either way it takes a fight as hard as the easiest of these."""

    objective: QuestObjective
    #: The foe of the easiest fight: the strongest guard of ``room``, or the dropper.
    foe: UUID
    tier: DifficultyTier
    room: str | None = None


def scarce_supplies(facts: WorldFacts, objectives: Sequence[QuestObjective]) -> list[Supply]:
    """The items ``objectives`` collect that no one can pick up without a fight,
    each with the easiest fight that gets one. Iron ore lying in the bandits' camp
    is Kral's until he falls, and once the loose lumps are picked up it is had only
    from him. An item lying in a room no hostile stands in is free; an item nobody
    drops and nobody guards is left out (nothing rates it)."""
    out: list[Supply] = []
    for o in objectives:
        template = o.item_template
        if o.objective_type is not ObjectiveType.COLLECT or not template:
            continue
        rooms = sorted(
            {r for uid in facts.items_with_template(template) if (r := facts.room_of(uid))}
        )
        fights: list[tuple[DifficultyTier, UUID, str | None]] = []
        for room in rooms:
            guarded = _guarded(facts, room)
            if guarded is None:
                break  # one lies free
            fights.append((guarded[0], guarded[1], room))
        else:
            for uid in facts.droppers_of(template):
                tier = facts.challenge.tier_of_threats([uid])
                if tier is not None:
                    fights.append((tier, uid, None))
            if fights:
                easiest = min(fights, key=lambda f: f[0].rank)
                out.append(Supply(o, easiest[1], easiest[0], easiest[2]))
    return out


def _guarded(facts: WorldFacts, room: str) -> tuple[DifficultyTier, UUID] | None:
    """The fight for what lies in ``room`` and its strongest foe; None when nothing
    hostile stands there (or the rules layer cannot rate who does)."""
    guards = facts.threats(None, [room])
    tier = facts.challenge.tier_of_threats(guards) if guards else None
    if tier is None:
        return None
    ranked = [(t.rank if (t := facts.challenge.tier_of_threats([g])) else -1, g) for g in guards]
    return tier, max(ranked, key=lambda r: r[0])[1]


@dataclass
class QuestPlan:
    """Everything about a quest except its prose."""

    seed: QuestSeed
    archetype: QuestArchetype
    objectives: list[QuestObjective]
    branches: list[QuestBranch] | None
    rewards: QuestRewards
    reward_notes: list[str]
    consequences: ConsequencePlan
    difficulty: DifficultyTier
    involved_npcs: dict[UUID, str]
    locations: list[str]
    context: NarrativeContext
    has_stake: bool
    duration_minutes: int


def _said(phrase: Phrase | None, fallback: str) -> str:
    text = phrase.forms.get("") if phrase is not None else None
    return f"{text[0].upper()}{text[1:]}." if text else fallback


class QuestBuilder:
    MIN_GROUNDING: ClassVar[float] = 0.6
    MIN_COHERENCE: ClassVar[float] = 0.7
    #: Seeds at least this urgent get a time limit of URGENT_TIME_FACTOR x duration.
    URGENT: ClassVar[float] = 0.75
    URGENT_TIME_FACTOR: ClassVar[float] = 3.0
    MIN_TIME_LIMIT_HOURS: ClassVar[float] = 2.0
    PUBLIC_MEMORIES: ClassVar[int] = 5
    #: A new title avoids the giver's last this many quests' titles.
    GIVER_TITLES: ClassVar[int] = 5

    def __init__(
        self,
        facts: WorldFacts,
        objective_builder: ObjectiveBuilder,
        history: QuestHistory,
        narrative_provider: NarrativeProvider | None = None,
        rewards: RewardPolicy | None = None,
        planner: ConsequencePlanner | None = None,
        extensions: Sequence[QuestExtension] = (),
        coherence: CoherenceRules | None = None,
    ) -> None:
        self.facts = facts
        self.objective_builder = objective_builder
        self.history = history
        self.narrative_provider = narrative_provider
        self.rewards = rewards or RewardPolicy()
        self.planner = planner or ConsequencePlanner()
        # The live list of QuestGen: an extension added later applies too.
        self.extensions = extensions
        #: The coherence rules the score reflects (None: only the score's own checks).
        self.coherence = coherence

    # -- the pipeline ---------------------------------------------------------------------
    async def build(
        self, seed: QuestSeed, archetype: QuestArchetype, provider: NarrativeProvider | None = None
    ) -> GeneratedQuest | Rejection:
        plan = await self.prepare(seed, archetype)
        if isinstance(plan, Rejection):
            return plan
        narrator = provider or self.narrative_provider
        if narrator is None:
            raise RuntimeError("QuestBuilder has no narrative provider")
        narrative = await narrator.generate(plan.context)
        return self.finish(plan, narrative)

    async def build_from_narrative(
        self,
        seed: QuestSeed,
        archetype: QuestArchetype,
        narrative: QuestNarrative | Callable[[NarrativeContext], QuestNarrative],
    ) -> GeneratedQuest | Rejection:
        """The template path: structure from the world, prose given -- either
        written already, or by a synchronous generator of the plan's context
        (``TemplateFallbackGenerator.generate``)."""
        plan = await self.prepare(seed, archetype)
        if isinstance(plan, Rejection):
            return plan
        prose = narrative if isinstance(narrative, QuestNarrative) else narrative(plan.context)
        return self.finish(plan, prose)

    async def prepare(self, seed: QuestSeed, archetype: QuestArchetype) -> QuestPlan | Rejection:
        """The quest's structure from the world, or why there is none (stage ``plan``)."""
        facts = self.facts
        problem = self.grounding_problem(seed)
        if problem is not None:
            return Rejection("plan", problem, ("grounding_lost",))
        try:
            objectives = await self.objective_builder.build_objectives(
                seed, archetype.objective_pattern, facts
            )
        except ValueError as exc:
            return Rejection("plan", str(exc) or type(exc).__name__, ("objectives_failed",))
        if not objectives:
            return Rejection(
                "plan",
                f"pattern {archetype.objective_pattern!r} found nothing real to build "
                "objectives on",
                ("nothing_to_build",),
            )
        branches = None
        if archetype.branching is BranchingPattern.BRANCHING:
            branches = self.planner.branches(seed, objectives, facts)
        difficulty = self._difficulty(seed, objectives)
        raw = self.rewards.calculate(seed, objectives, difficulty, facts)
        rewards, notes = clamp_rewards(raw, difficulty, self.rewards.limits)
        consequences = self.planner.plan(seed, archetype, objectives, facts)
        involved = self._roles(seed, objectives)
        locations = self._locations(seed, objectives)
        duration = self._duration(seed, objectives)
        has_stake = bool(facts.open_goals(seed.primary_npc)) or any(
            s.unmet for s in facts.needs(seed.primary_npc).values()
        )
        context = self._context(seed, archetype, objectives, involved, locations)
        return QuestPlan(
            seed,
            archetype,
            objectives,
            branches,
            rewards,
            notes,
            consequences,
            difficulty,
            involved,
            locations,
            context,
            has_stake,
            duration,
        )

    def draft(self, plan: QuestPlan) -> GeneratedQuest:
        """The quest as the plan makes it, before any prose (no title, no text, no
        scores, no extensions): what the quality rules judge before a word is
        written. Its id is not a real one and costs the engine's random nothing."""
        blank = QuestNarrative(
            title="",
            summary="",
            description="",
            dialogue=QuestDialogue(offer="", progress="", completion=""),
        )
        return self._assemble(plan, blank, f"plan-{plan.archetype.archetype_id}")

    def finish(self, plan: QuestPlan, narrative: QuestNarrative) -> GeneratedQuest | Rejection:
        """The quest in full, or why its scores fail it (stage ``scores``)."""
        facts, seed, archetype = self.facts, plan.seed, plan.archetype
        quest = self._assemble(plan, narrative, self._quest_id(archetype.archetype_id))
        for extension in self.extensions:
            quest.extensions[extension.name] = extension.extend(quest)
        quest.grounding_score, grounding_failed = score_grounding(
            quest, facts, plan.has_stake, seed.backstory
        )
        issues = self.coherence.check(quest, seed) if self.coherence is not None else []
        broken = tuple(dict.fromkeys(i.rule for i in issues))
        quest.coherence_score, coherence_failed = score_coherence(quest, archetype, broken)
        quest.novelty_score = score_novelty(quest, self.history)
        if quest.grounding_score < self.MIN_GROUNDING:
            return Rejection(
                "scores",
                f"grounding score {quest.grounding_score} < {self.MIN_GROUNDING}"
                f": {', '.join(grounding_failed)}",
                ("grounding_score",),
            )
        if quest.coherence_score < self.MIN_COHERENCE:
            return Rejection(
                "scores",
                f"coherence score {quest.coherence_score} < "
                f"{self.MIN_COHERENCE}: {', '.join(coherence_failed)}",
                broken or ("coherence_score",),
            )
        return quest

    def _assemble(
        self, plan: QuestPlan, narrative: QuestNarrative, quest_id: str
    ) -> GeneratedQuest:
        facts, seed, archetype = self.facts, plan.seed, plan.archetype
        now = facts.now
        location = seed.location
        time_limit = None
        if seed.urgency >= self.URGENT:
            time_limit = max(
                self.MIN_TIME_LIMIT_HOURS,
                round(plan.duration_minutes * self.URGENT_TIME_FACTOR / 60.0, 1),
            )
        return GeneratedQuest(
            id=quest_id,
            seed_id=seed.id,
            seed_type=seed.seed_type,
            archetype_id=archetype.archetype_id,
            importance=seed.importance,
            title=narrative.title.strip(),
            summary=narrative.summary.strip(),
            detailed_description=narrative.description.strip(),
            objectives=plan.objectives,
            branches=plan.branches,
            quest_giver_id=seed.primary_npc,
            quest_giver_motivation=seed.primary_npc_motivation,
            quest_giver_dialogue=self._dialogue(plan, narrative),
            involved_npcs=plan.involved_npcs,
            involved_locations=plan.locations,
            rewards=plan.rewards,
            consequences=plan.consequences.success,
            failure_consequences=plan.consequences.failure,
            difficulty=plan.difficulty,
            time_limit=time_limit,
            expiry=max(seed.expires_at, seed_expiry(now, seed.urgency)),
            chain_potential=plan.consequences.chain_potential,
            chain_depth=seed.chain_depth,
            chain_parent_id=seed.chain_parent_id,
            progression_mode=archetype.progression,
            created_at=now,
            estimated_duration_minutes=plan.duration_minutes,
            location=location,
            area=facts.area_of(location),
            region=facts.region_of(location),
            secondary_seed_types=list(seed.secondary_seed_types),
            narrative_source=narrative.source,
            tokens_used=narrative.tokens_used,
            tone=list(archetype.tone),
            narrative_facts=[str(f) for f in plan.context.facts],
            narrative_trace=list(narrative.trace),
            narrative_mentions=narrative.mentions,
            narrative_unmatched=list(narrative.unmatched),
        )

    # -- steps --------------------------------------------------------------------------
    def grounding_problem(self, seed: QuestSeed) -> str | None:
        """Why the seed no longer stands on the world (None: it does)."""
        facts = self.facts
        if seed.is_expired(facts.now):
            return "the seed has expired"
        giver = seed.primary_npc
        if not facts.is_alive(giver):
            return "the quest giver is gone"
        giver_room = facts.room_of(giver)
        if giver_room is None:
            return "the quest giver is nowhere"
        if not facts.room_exists(seed.location):
            return f"unknown room {seed.location!r}"
        if not facts.reachable(giver_room, seed.location):
            return "the quest's place cannot be reached"
        for name in ("party_a", "party_b", "rescue_target", "recipient", "supplier"):
            uid = getattr(seed, name)
            if uid is not None and not facts.is_alive(uid):
                return f"{name} is gone"
        return None

    def _difficulty(self, seed: QuestSeed, objectives: list[QuestObjective]) -> DifficultyTier:
        targets = [
            u
            for o in objectives
            if o.objective_type is ObjectiveType.KILL
            for u in o.target_entity_ids
        ]
        tiers = [
            estimate_difficulty(self.facts, targets, seed.importance)
            if targets
            else seed.estimated_difficulty
        ]
        tiers += [s.tier for s in scarce_supplies(self.facts, objectives)]
        return max(tiers, key=_TIER_ORDER.index)

    def _roles(self, seed: QuestSeed, objectives: list[QuestObjective]) -> dict[UUID, str]:
        """Every NPC the quest involves besides its giver, and why. Kill targets are
        not listed: their deaths are progress, not a broken quest."""
        roles: dict[UUID, str] = {}
        for o in objectives:
            uid = o.target_entity_id
            if uid is None or uid == seed.primary_npc or o.objective_type is ObjectiveType.KILL:
                continue
            if uid in (seed.party_a, seed.party_b):
                roles.setdefault(uid, "party")
            elif o.objective_type in (ObjectiveType.ESCORT, ObjectiveType.PROTECT):
                roles.setdefault(uid, "rescue_target")
            elif o.objective_type is ObjectiveType.DELIVER:
                roles.setdefault(uid, "recipient")
            else:
                roles.setdefault(uid, "informant")
        for uid in seed.involved_npcs:
            if (
                uid not in roles
                and uid != seed.primary_npc
                and self.facts.is_alive(uid)
                and not any(uid in o.target_entity_ids for o in objectives)
            ):
                roles[uid] = "witness"
        return roles

    def _locations(self, seed: QuestSeed, objectives: list[QuestObjective]) -> list[str]:
        rooms = [seed.location, self.facts.room_of(seed.primary_npc) or seed.location]
        rooms += [o.target_location for o in objectives if o.target_location]
        return [r for r in dict.fromkeys(rooms) if r]

    def _duration(self, seed: QuestSeed, objectives: list[QuestObjective]) -> int:
        """Game minutes: walking from objective to objective plus the work itself."""
        per_type = {
            ObjectiveType.KILL: 10,
            ObjectiveType.TALK: 5,
            ObjectiveType.VISIT: 2,
            ObjectiveType.COLLECT: 10,
            ObjectiveType.DELIVER: 5,
            ObjectiveType.ESCORT: 15,
            ObjectiveType.CUSTOM: 10,
        }
        here = self.facts.room_of(seed.primary_npc)
        minutes = 0
        for o in sorted((o for o in objectives if not o.optional), key=lambda o: o.order):
            if o.target_location is not None:
                minutes += (self.facts.distance(here, o.target_location) or 0) * MINUTES_PER_ROOM
                here = o.target_location
            minutes += per_type.get(o.objective_type, 5) * o.quantity
        return max(10, minutes)

    def _context(
        self,
        seed: QuestSeed,
        archetype: QuestArchetype,
        objectives: list[QuestObjective],
        involved: dict[UUID, str],
        locations: list[str],
    ) -> NarrativeContext:
        facts = self.facts
        names = [facts.name(u) for u in involved]
        for o in objectives:
            if o.objective_type is ObjectiveType.KILL and o.target_entity_id is not None:
                names.append(facts.name(o.target_entity_id))
        memories = facts.public_memories(seed.primary_npc, limit=self.PUBLIC_MEMORIES)
        story = story_facts(facts, seed, objectives, involved, locations)
        return NarrativeContext(
            archetype_id=archetype.archetype_id,
            # A proper name, or a definite description ("the gate guard").
            giver_name=story.values["npc"].forms[""],
            # The realised, third-person forms where the world gave them (places in
            # prose, memories retold), the seed's own text otherwise.
            motivation=_said(story.values.get("motivation"), seed.primary_npc_motivation),
            backstory=_said(story.values.get("backstory"), seed.backstory),
            stakes=_said(story.values.get("stakes"), seed.stakes),
            objectives=tuple(o.description for o in objectives),
            # In prose form ("the Broken Wagon on the Old Trade Road"): the form a
            # model should write them in.
            locations=tuple(dict.fromkeys(facts.place(r) for r in locations)),
            involved_npcs=tuple(dict.fromkeys(n for n in names if n)),
            public_memories=tuple(m.content for m in memories),
            tone=tuple(archetype.tone),
            narrative_arc=archetype.narrative_arc,
            seed_type=seed.seed_type,
            tension=seed.tension,
            mood=seed.mood,
            threat=seed.threat_source or "",
            subject=seed.subject or "",
            giver_description=facts.short(seed.primary_npc),
            area_name=facts.area_name(facts.area_of(seed.location)),
            facts=tuple(story.facts),
            phrases=story.values,
            recent_titles=self._recent_titles(seed.primary_npc),
        )

    def _recent_titles(self, giver: UUID) -> tuple[str, ...]:
        """The titles the coherence rules refuse: the last game day's and the giver's
        last few."""
        if self.coherence is not None:
            return tuple(self.coherence.taken_titles(giver, self.facts.now))
        return tuple(self.history.titles_in_use(giver, self.facts.now, self.GIVER_TITLES))

    def _dialogue(self, plan: QuestPlan, narrative: QuestNarrative) -> QuestDialogue:
        """The narrative's dialogue, with any empty line filled from the facts."""
        d = narrative.dialogue
        ctx = plan.context
        first = next((o.description for o in plan.objectives), "")
        return QuestDialogue(
            offer=d.offer.strip() or f"{ctx.motivation} {ctx.stakes} Will you help?",
            progress=d.progress.strip() or f"Have you done it yet? {first}.",
            completion=d.completion.strip() or f"You did it. {ctx.giver_name} will not forget.",
        )

    def _quest_id(self, archetype_id: str) -> str:
        suffix = f"{self.facts.rng.getrandbits(32):08x}"
        return f"gen-{slugify(archetype_id, 36)}-{suffix}"
