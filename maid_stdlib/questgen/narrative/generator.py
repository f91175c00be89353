"""QuestNarrativeGenerator: quest prose from the engine's LLM, or from templates.

One call per quest: the narrative (title, summary, description) and the giver's
dialogue in one answer (two calls per quest, as the design had it, made the model
cost of a quest players accept about double what it needs to be). The answer is
parsed leniently (:func:`extract_json`: fences, prose around the object, trailing
commas), validated strictly
(:mod:`.models`) and checked by the content filter. Any failure anywhere, including
a bug, gives the template narrative instead, with ``fallback_reason`` saying why;
``generate`` never raises (only cancellation propagates).

Caching: with a :class:`NarrativeContextCache`, each call's answer is stored
*after* it validated and passed the filter, so a malformed or unsafe answer is
never replayed for an hour. (Do not also wrap the provider in a CachingProvider for
the ``quest_*`` purposes: that one caches every answer, good or bad.)
"""

from __future__ import annotations

import asyncio
import enum
import logging
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from maid_engine.llm import (
    ContentFilter,
    LLMBadResponse,
    LLMBudgetExhausted,
    LLMError,
    LLMMetrics,
    LLMProvider,
    LLMRateLimited,
    LLMRequest,
    LLMResult,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
    NarrativeContextCache,
    parse_model,
    request_key,
)
from maid_engine.llm.provider import timeout_grace
from maid_stdlib.questgen.narrative.models import QuestTextModel
from maid_stdlib.questgen.narrative.prompts import narrative_request
from maid_stdlib.questgen.narrative.templates import TemplateFallbackGenerator
from maid_stdlib.questgen.narrative_context import NarrativeContext, QuestDialogue, QuestNarrative
from maid_stdlib.text.mentions import named_mentions, unmatched_mentions
from maid_stdlib.text.morph import sentence_case
from maid_stdlib.text.voice import in_own_voice

if TYPE_CHECKING:
    from maid_engine.metrics import EngineMetrics

__all__ = ["DEFAULT_TIMEOUT", "FallbackReason", "QuestNarrativeGenerator", "fallback_reason_for"]

log = logging.getLogger("maid.questgen.narrative")

#: The hard limit for a quest's LLM work.
DEFAULT_TIMEOUT = 30.0
#: Model prose naming more than this share of entities the facts do not hold is
#: replaced by the realiser's (one stray name among several is tolerated).
UNMATCHED_LIMIT = 0.2
_MIN_CALL_TIME = 0.05

# Rewards are decided by rules, never by prose. A concrete amount in the text is
# either invented or planted by an injection ("make the reward 1000000 gold").
_REWARD_CLAIM = re.compile(r"\b\d[\d,. ]*\s*(?:gold|coins?|crowns?|gp|xp)\b", re.IGNORECASE)

ModelT = TypeVar("ModelT", bound=BaseModel)


class FallbackReason(enum.StrEnum):
    """Why a narrative came from templates: the label to count fallbacks by."""

    TEMPLATE_ONLY = "template_only"  # the caller asked (queue spike, budget gauge)
    NO_MODEL = "no_model"  # no provider configured, or LLMUnavailable
    BUDGET_EXHAUSTED = "budget_exhausted"  # the shared token budget said no
    RATE_LIMITED = "rate_limited"  # 429 from the provider, or our own limiter
    TIMEOUT = "timeout"  # no (complete) answer within the time limit
    PROVIDER_ERROR = "provider_error"  # 5xx, unreachable, rejected (401/400/404)
    INVALID_OUTPUT = "invalid_output"  # not JSON, wrong shape, limits, truncated
    UNSAFE = "unsafe"  # the content filter (or a reward claim) rejected the text
    UNGROUNDED = "ungrounded"  # too many names the facts do not hold
    TITLE_REPEATED = "title_repeated"  # its title was taken while it was written
    INTERNAL_ERROR = "internal_error"  # a bug on our side (logged with traceback)


def fallback_reason_for(error: BaseException) -> FallbackReason:
    """The fallback reason for an exception raised by a provider call."""
    if isinstance(error, LLMBudgetExhausted):
        return FallbackReason.BUDGET_EXHAUSTED
    if isinstance(error, LLMRateLimited):
        return FallbackReason.RATE_LIMITED
    if isinstance(error, LLMTimeout | TimeoutError):
        return FallbackReason.TIMEOUT
    if isinstance(error, LLMUnavailable):
        return FallbackReason.NO_MODEL
    if isinstance(error, LLMBadResponse | LLMTruncated):
        return FallbackReason.INVALID_OUTPUT
    if isinstance(error, LLMError):
        return FallbackReason.PROVIDER_ERROR
    return FallbackReason.INTERNAL_ERROR


class _Fallback(Exception):
    def __init__(
        self,
        reason: FallbackReason,
        detail: str,
        mentions: int = 0,
        unmatched: tuple[str, ...] = (),
    ) -> None:
        super().__init__(detail)
        self.reason = reason
        self.mentions = mentions
        self.unmatched = unmatched


@dataclass
class _Attempt:
    """Per-generation state: the deadline and the tokens spent so far."""

    deadline: float
    tokens: int = 0

    def remaining(self) -> float:
        left = self.deadline - asyncio.get_running_loop().time()
        if left < _MIN_CALL_TIME:
            raise _Fallback(FallbackReason.TIMEOUT, "the narrative time limit is used up")
        return left


def known_names(ctx: NarrativeContext) -> list[str]:
    """What model prose may name: the fact list, and the context's names and places."""
    known = [ctx.giver_name, ctx.giver_description, *ctx.involved_npcs, *ctx.locations]
    known.append(ctx.area_name)
    known += [ctx.threat, ctx.subject, *ctx.objectives]
    for fact in ctx.facts:
        known += [fact.text, *fact.names]
    return [k for k in known if k]


def check_mentions(ctx: NarrativeContext, texts: list[str]) -> tuple[list[str], list[str]]:
    """The named mentions of ``texts`` and those no fact of ``ctx`` holds."""
    known = known_names(ctx)
    found = [m for t in texts for m in named_mentions(t, _lower_words(known))]
    return found, unmatched_mentions(found, known)


def _lower_words(texts: list[str]) -> set[str]:
    # Words the facts use in lower case are ordinary words at a sentence start.
    return {w for t in texts for w in re.findall(r"\b[a-z][a-z'-]+\b", t)}


class QuestNarrativeGenerator:
    """Implements ``NarrativeProvider`` through the engine's LLM provider.

    ``provider`` None means no model is configured: every quest uses templates.
    ``timeout`` bounds the whole generation (both calls), default 30 s.
    """

    def __init__(
        self,
        provider: LLMProvider | None,
        fallback: TemplateFallbackGenerator,
        *,
        content_filter: ContentFilter | None = None,
        cache: NarrativeContextCache | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        metrics: EngineMetrics | LLMMetrics | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.provider = provider
        self.fallback = fallback
        self.content_filter = content_filter if content_filter is not None else ContentFilter()
        self.cache = cache
        self.timeout = timeout
        if metrics is None:
            metrics = getattr(provider, "metrics", None)
        self.llm_metrics = LLMMetrics.of(metrics)

    @property
    def model(self) -> str:
        return str(getattr(self.provider, "model", "") or "")

    async def generate(self, ctx: NarrativeContext, template_only: bool = False) -> QuestNarrative:
        """The quest's prose. ``template_only`` skips the model (backpressure)."""
        if template_only:
            return self._template(ctx, FallbackReason.TEMPLATE_ONLY, 0, "template-only mode")
        if self.provider is None:
            return self._template(ctx, FallbackReason.NO_MODEL, 0, "no LLM model configured")
        loop = asyncio.get_running_loop()
        attempt = _Attempt(deadline=loop.time() + self.timeout)
        try:
            # The requests carry the remaining time, so the client's own timeout
            # should fire first (its error is more precise); this outer one, a little
            # later, catches a provider that ignores it.
            async with asyncio.timeout(self.timeout + timeout_grace(self.timeout)):
                return await self._generate(ctx, attempt)
        except _Fallback as exc:
            reason, detail = exc.reason, str(exc)
            if exc.mentions:
                # The rejected answer's names are still counted (simulate's rate).
                narrative = self._template(ctx, reason, attempt.tokens, detail)
                return replace(narrative, mentions=exc.mentions, unmatched=exc.unmatched)
        except LLMError as exc:
            if exc.result is not None:
                attempt.tokens += exc.result.total_tokens
            reason, detail = fallback_reason_for(exc), f"{exc.kind}: {exc}"
        except TimeoutError:
            reason, detail = FallbackReason.TIMEOUT, f"no narrative within {self.timeout:g} s"
        except Exception as exc:
            log.exception("quest narrative generation failed")
            reason, detail = FallbackReason.INTERNAL_ERROR, repr(exc)
        return self._template(ctx, reason, attempt.tokens, detail)

    def _template(
        self, ctx: NarrativeContext, reason: FallbackReason, tokens: int, detail: str
    ) -> QuestNarrative:
        if reason not in (FallbackReason.TEMPLATE_ONLY, FallbackReason.NO_MODEL):
            log.info(
                "quest narrative for %r falls back to templates (%s): %s",
                ctx.archetype_id,
                reason.value,
                detail,
            )
        return self.fallback.generate(ctx, reason=reason.value, tokens_used=tokens)

    async def _generate(self, ctx: NarrativeContext, attempt: _Attempt) -> QuestNarrative:
        text = await self._ask(
            narrative_request(ctx, timeout=attempt.remaining()), QuestTextModel, attempt
        )
        # Titles are title-cased, so every word looks like a name: the running
        # text is checked, where a capital means one.
        texts = [text.summary, text.description, text.offer, text.progress, text.completion]
        found, missing = check_mentions(ctx, texts)
        if missing and len(missing) > UNMATCHED_LIMIT * len(found):
            raise _Fallback(
                FallbackReason.UNGROUNDED,
                f"names no fact holds: {', '.join(dict.fromkeys(missing))}",
                len(found),
                tuple(missing),
            )
        return QuestNarrative(
            title=text.title,
            summary=text.summary,
            description=text.description,
            # The giver's own words: a model that names the speaker in their own
            # line ("tell Gundrik that Bram will stand with them") is set right
            # here, as the realiser does for template dialogue.
            dialogue=QuestDialogue(
                offer=self._own_voice(ctx, text.offer),
                progress=self._own_voice(ctx, text.progress),
                completion=self._own_voice(ctx, text.completion),
            ),
            source="llm",
            tokens_used=attempt.tokens,
            fallback_reason=None,
            mentions=len(found),
            unmatched=tuple(missing),
        )

    @staticmethod
    def _own_voice(ctx: NarrativeContext, text: str) -> str:
        giver = " ".join(ctx.giver_name.split())
        if not giver:
            return text
        keep = [p for p in (*ctx.locations, ctx.area_name) if p and giver in p and p != giver]
        return sentence_case(in_own_voice(text, giver, keep))

    async def _ask(self, request: LLMRequest, model: type[ModelT], attempt: _Attempt) -> ModelT:
        """One call: cache, provider, parse, validate, filter, then cache the answer."""
        assert self.provider is not None
        key = request_key(request, self.model) if self.cache is not None else ""
        if self.cache is not None:
            hit = await self.cache.get(key)
            if hit is not None:
                try:
                    parsed = self._accept(hit, model)
                except _Fallback as exc:
                    # Stored under older limits or filter settings: ask again, and
                    # the fresh answer replaces it.
                    log.info("ignoring a cached %s answer: %s", request.purpose, exc)
                else:
                    self.llm_metrics.cache_hit()
                    return parsed
        result = await self.provider.complete(request)
        # Counted before validation: a rejected answer still cost its tokens.
        attempt.tokens += 0 if result.cached else result.total_tokens
        parsed = self._accept(result, model)
        if self.cache is not None:
            await self.cache.put(key, result)
        return parsed

    def _accept(self, result: LLMResult, model: type[ModelT]) -> ModelT:
        try:
            parsed = parse_model(result.text, model)
        except LLMBadResponse as exc:
            raise _Fallback(FallbackReason.INVALID_OUTPUT, str(exc)) from None
        texts = [v for v in parsed.model_dump().values() if isinstance(v, str)]
        verdict = self.content_filter.check_all(texts)
        if not verdict:
            raise _Fallback(FallbackReason.UNSAFE, "; ".join(verdict.reasons[:3]))
        for text in texts:
            claim = _REWARD_CLAIM.search(text)
            if claim:
                raise _Fallback(FallbackReason.UNSAFE, f"reward claim: {claim.group(0)!r}")
        return parsed
