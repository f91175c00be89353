"""CheckStage: a written quest finished and checked before anyone sees it.

First a title another quest took while this one was written (or a model chose
though it was told the titles in use) gives the quest the template's words, whose
title avoids every taken one. Then, in order: the builder's scores (grounding,
coherence), the content filter on a model's prose (unsafe prose is replaced by
the template's and the quest finished again), the validator (with the coherence
rules), the quality filter's anti-patterns with the daily cap, and region
density. The first that fails is the rejection, named by its stage: ``scores``,
``validation``, ``quality`` or ``region_density``. The structural rules already
ran on the plan (``PlanStage.judge``); here they catch what changed while the
prose was written and what only the text shows.
"""

from __future__ import annotations

from dataclasses import replace

from maid_engine.llm import ContentFilter
from maid_stdlib.questgen.builder import QuestBuilder, QuestPlan
from maid_stdlib.questgen.narrative import TemplateFallbackGenerator
from maid_stdlib.questgen.narrative_context import QuestNarrative
from maid_stdlib.questgen.pipeline.quotas import Quotas
from maid_stdlib.questgen.pipeline.results import CheckOutcome
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.validator import QuestValidator

__all__ = ["CheckStage"]


class CheckStage:
    def __init__(
        self,
        builder: QuestBuilder,
        fallback: TemplateFallbackGenerator,
        content_filter: ContentFilter,
        validator: QuestValidator,
        quality: QuestQualityFilter,
        quotas: Quotas,
    ) -> None:
        self._builder = builder
        self._fallback = fallback
        self._content_filter = content_filter
        self._validator = validator
        self._quality = quality
        self._quotas = quotas

    async def check(self, plan: QuestPlan, narrative: QuestNarrative) -> CheckOutcome:
        builder = self._builder
        narrative = self._fresh_title(plan, narrative)
        quest = builder.finish(plan, narrative)
        if (
            not isinstance(quest, Rejection)
            and quest.narrative_source == "llm"
            and not self._safe(quest)
        ):
            narrative = self._fallback.generate(
                plan.context, reason="unsafe", tokens_used=narrative.tokens_used
            )
            quest = builder.finish(plan, narrative)
        if isinstance(quest, Rejection):
            return CheckOutcome(narrative, quest)
        validation = await self._validator.validate(quest, seed=plan.seed)
        if not validation.valid:
            why = "; ".join(validation.errors) or "invalid"
            rules = tuple(
                dict.fromkeys(i.rule for i in self._validator.check_plan(quest, plan.seed))
            )
            # The world changed under the quest while it was written (someone died,
            # a room went) when no coherence rule names it.
            return CheckOutcome(
                narrative, Rejection("validation", why, rules or ("world_changed",))
            )
        problems = [p for p in self._quality.check(quest) if p != "region_density"]
        if self._quotas.over_daily_cap(quest) and not plan.seed.forced:
            # (An admin's forced quest is a request, not the world's pace.)
            problems.append("daily_cap")
        if problems:
            return CheckOutcome(
                narrative, Rejection("quality", ", ".join(problems), tuple(problems))
            )
        if self._quotas.region_full(quest.region):
            return CheckOutcome(
                narrative,
                Rejection("region_density", f"region {quest.region} is full", ("region_density",)),
            )
        return CheckOutcome(narrative, quest)

    def _fresh_title(self, plan: QuestPlan, narrative: QuestNarrative) -> QuestNarrative:
        """``narrative``, or the template's when its title is taken by now. A model's
        words cost their call already: the quest is kept, in the template's words,
        rather than thrown away for its title."""
        taken = self._validator.coherence.taken_titles(
            plan.seed.primary_npc, self._builder.facts.now
        )
        if " ".join(narrative.title.split()).casefold() not in {t.casefold() for t in taken}:
            return narrative
        reason = "title_repeated" if narrative.source == "llm" else narrative.fallback_reason
        return self._fallback.generate(
            replace(plan.context, recent_titles=tuple(taken)),
            reason=reason,
            tokens_used=narrative.tokens_used,
        )

    def _safe(self, quest: GeneratedQuest) -> bool:
        d = quest.quest_giver_dialogue
        texts = [
            quest.title,
            quest.summary,
            quest.detailed_description,
            d.offer,
            d.progress,
            d.completion,
        ]
        return bool(self._content_filter.check_all([t for t in texts if t]))
