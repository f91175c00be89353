"""PlanStage: a seed's quest structure, without prose (no LLM, read-only).

The archetypes that fit the seed are tried best first; one the quality filter's
history rules would reject (three in a row, combat fatigue, fetch loops) is
skipped, and the first the builder can plan on the world as it is wins.

``judge=True`` (the prose will cost a model call): the quality filter's
anti-patterns that read no text (NPC monopoly, location repetition, impossible
quests, ...) run on the plan's draft before a word is written, and a plan they
refuse is never narrated; the next archetype is tried.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.builder import QuestBuilder, QuestPlan
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed

__all__ = ["PlanStage"]

log = logging.getLogger("maid.questgen.system")


class PlanStage:
    def __init__(
        self,
        facts: WorldFacts,
        builder: QuestBuilder,
        quality: QuestQualityFilter,
        ranked_archetypes: Callable[[QuestSeed], list[QuestArchetype]],
    ) -> None:
        self._facts = facts
        self._builder = builder
        self._quality = quality
        self._ranked = ranked_archetypes

    async def plan(self, seed: QuestSeed, *, judge: bool = False) -> QuestPlan | Rejection:
        """The plan of the best archetype that can be built, or why none (stage
        ``plan``; ``quality`` when ``judge`` refused the last plan)."""
        last: Rejection | None = None
        skipped: list[str] = []
        with self._facts.steady():  # planning reads the world, never changes it
            for archetype in self._ranked(seed):
                blocked = self._quality.archetype_blocked(archetype.archetype_id)
                if blocked:
                    log.debug(
                        "seed %s: skipping %s (%s)",
                        seed.id,
                        archetype.archetype_id,
                        ", ".join(blocked),
                    )
                    skipped.append(f"{archetype.archetype_id} ({', '.join(blocked)})")
                    continue
                plan = await self._builder.prepare(seed, archetype)
                if not isinstance(plan, Rejection):
                    refused = self.judge(plan) if judge else None
                    if refused is None:
                        return plan
                    plan = refused
                last = plan
        if last is not None:
            return last
        if skipped:
            return Rejection("plan", "the history rules block " + ", ".join(skipped))
        return Rejection("plan", "no archetype fits the seed")

    def judge(self, plan: QuestPlan) -> Rejection | None:
        """Why the quality filter would reject the plan's quest for its structure
        (stage ``quality``, the anti-patterns named), judged on the draft before
        any prose; None: it would not."""
        problems = self._quality.check_plan(self._builder.draft(plan))
        if not problems:
            return None
        return Rejection(
            "quality", f"{plan.archetype.archetype_id}: " + ", ".join(problems), tuple(problems)
        )

    async def dry_run(self, seed: QuestSeed, archetype: QuestArchetype) -> QuestPlan | Rejection:
        """The builder's structural step for one archetype, outside the queue
        (``@quest force-generate`` checks a synthetic seed can be built)."""
        return await self._builder.prepare(seed, archetype)
