"""PlanStage: a seed's quest structure, without prose (no LLM, read-only).

The archetypes that fit the seed are tried best first; one the quality filter's
history rules would reject (three in a row, combat fatigue, fetch loops) or a
hold rule stops (a threat gone or already claimed by an open quest, see
:mod:`.holds`) is skipped, and the first the builder can plan on the world as it
is wins. When only skipped archetypes could have been built, the refusal names
the hold rules and the seed waits.

Every rule that can reject a quest for its structure runs on the plan's draft
before a word of prose is written (let alone a model called), whether templates
or a model will write it: first the coherence rules (the validator's
``check_plan``: the giver as its own step, a step done on offer, sides nobody set
against each other, a placeholder subject), then the quality filter's anti-patterns
that read no text (NPC monopoly, location repetition, impossible quests, ...). A
plan they refuse is never narrated; the next archetype is tried, and when none
passes the last refusal says why, with its named rules (stage ``coherence`` or
``quality``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.builder import QuestBuilder, QuestPlan
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.pipeline.holds import SeedHolds
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.validator import QuestValidator

__all__ = ["PlanStage"]

log = logging.getLogger("maid.questgen.system")


class PlanStage:
    def __init__(
        self,
        facts: WorldFacts,
        builder: QuestBuilder,
        quality: QuestQualityFilter,
        ranked_archetypes: Callable[[QuestSeed], list[QuestArchetype]],
        validator: QuestValidator,
        holds: SeedHolds | None = None,
    ) -> None:
        self._facts = facts
        self._builder = builder
        self._quality = quality
        self._ranked = ranked_archetypes
        self._validator = validator
        self._holds = holds

    async def plan(self, seed: QuestSeed) -> QuestPlan | Rejection:
        """The plan of the best archetype that can be built and passes the rules, or
        why none (stage ``plan``, or ``coherence``/``quality`` when the rules
        refused the last plan)."""
        last: Rejection | None = None
        skipped: list[str] = []
        rules: list[str] = []
        built_nothing = True  # every archetype tried found nothing to build on
        with self._facts.steady():  # planning reads the world, never changes it
            for archetype in self._ranked(seed):
                blocked = self._quality.archetype_blocked(archetype.archetype_id)
                held = self._holds.for_archetype(seed, archetype) if self._holds else None
                if held is not None:
                    blocked.append(held)
                if blocked:
                    log.debug(
                        "seed %s: skipping %s (%s)",
                        seed.id,
                        archetype.archetype_id,
                        ", ".join(blocked),
                    )
                    skipped.append(f"{archetype.archetype_id} ({', '.join(blocked)})")
                    rules += blocked
                    continue
                plan = await self._builder.prepare(seed, archetype)
                if not isinstance(plan, Rejection):
                    refused = self.judge(seed, plan)
                    if refused is None:
                        return plan
                    plan = refused
                last = plan
                built_nothing = built_nothing and plan.rules == ("nothing_to_build",)
        if last is not None and not (skipped and built_nothing):
            return last
        if skipped:
            # Named by its rules: only the run of recent quests, or the state of
            # the threat, stands in the way (the other archetypes found nothing to
            # build on at all): the seed waits.
            return Rejection(
                "plan",
                "held: " + ", ".join(skipped),
                tuple(dict.fromkeys(rules)),
            )
        return Rejection("plan", "no archetype fits the seed", ("no_archetype",))

    def judge(self, seed: QuestSeed, plan: QuestPlan) -> Rejection | None:
        """Why the plan's quest would be rejected for its structure, judged on its
        draft before any prose (None: it would not): the coherence rules first
        (stage ``coherence``), then the quality filter's anti-patterns (stage
        ``quality``), each naming the rules it broke."""
        draft = self._builder.draft(plan)
        archetype = plan.archetype.archetype_id
        issues = self._validator.check_plan(draft, seed)
        if issues:
            return Rejection(
                "coherence",
                f"{archetype}: " + "; ".join(str(i) for i in issues),
                tuple(dict.fromkeys(i.rule for i in issues)),
            )
        problems = self._quality.check_plan(draft)
        if problems:
            return Rejection("quality", f"{archetype}: " + ", ".join(problems), tuple(problems))
        return None

    async def dry_run(self, seed: QuestSeed, archetype: QuestArchetype) -> QuestPlan | Rejection:
        """The builder's structural step for one archetype, outside the queue
        (``@quest force-generate`` checks a synthetic seed can be built)."""
        return await self._builder.prepare(seed, archetype)
