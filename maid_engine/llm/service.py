"""LLMService: the engine's one LLM provider, its limiter and its narrative cache.

Every LLM user of a process (quest narrative, narration, ...) must share one
provider: its limiter is the global rate limit and rolling token budget, and two
providers would each get a full budget. The engine builds this service once and
exposes it as ``engine.llm``, on the engine's clocks (budget and rate on its
monotonic clock, which a ManualClock steps in tests; cache TTLs on its wall clock)::

    self.llm = LLMService.from_settings(settings, metrics, clock=clock.monotonic, wall=clock.wall)
    await self.llm.start(documents)               # GameEngine.start, once the store is open
    await self.llm.close()                        # GameEngine.stop

``provider`` is None when ``settings.llm_model`` is empty: every user falls back to
templates and LiteLLM is never imported. The provider is *not* wrapped in a
CachingProvider: the quest narrative generator caches only validated answers
through ``cache`` (docs/quest-narrative.md), and narration picks what it caches.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from maid_engine.config import Settings
from maid_engine.llm.cache import COLLECTION, DocumentStoreLike, NarrativeContextCache
from maid_engine.llm.factory import build_provider
from maid_engine.llm.limiter import Clock, LLMLimiter, TokenBudget
from maid_engine.llm.metrics import LLMMetrics
from maid_engine.llm.provider import LLMProvider
from maid_engine.metrics import EngineMetrics

__all__ = ["CACHE_COLLECTION", "LLMService"]

log = logging.getLogger("maid.llm")

CACHE_COLLECTION = COLLECTION


class LLMService:
    """Holds the process's provider (None without a model) and the narrative cache."""

    def __init__(
        self,
        provider: LLMProvider | None,
        cache: NarrativeContextCache | None = None,
    ) -> None:
        self.provider = provider
        self.cache = cache if cache is not None else NarrativeContextCache()
        self.started = False
        self._warm_task: asyncio.Task[None] | None = None
        #: Why a configured model was left out at start-up (``llm_on_failure =
        #: "templates"``); "" when it was not.
        self.unusable = ""

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        metrics: EngineMetrics | LLMMetrics | None = None,
        *,
        clock: Clock = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> LLMService:
        # The LLM metrics are registered even without a model, so a server without
        # one exposes them at zero: dashboards and alerts see a flat line, not a gap.
        llm_metrics = LLMMetrics.of(metrics)
        # Building does not import LiteLLM: that happens on the first call or in
        # start(), off the event loop.
        provider = build_provider(settings, llm_metrics, clock=clock)
        return cls(provider, NarrativeContextCache(wall=wall))

    # -- state ----------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        return self.provider is not None

    @property
    def model(self) -> str:
        return str(getattr(self.provider, "model", "") or "")

    @property
    def limiter(self) -> LLMLimiter | None:
        limiter = getattr(self.provider, "limiter", None)
        return limiter if isinstance(limiter, LLMLimiter) else None

    @property
    def budget(self) -> TokenBudget | None:
        """The shared rolling token budget (None without a model)."""
        limiter = self.limiter
        return limiter.budget if limiter is not None else None

    def status(self) -> dict[str, Any]:
        """A snapshot for admin commands."""
        out: dict[str, Any] = {"model": self.model or None, "cache_entries": len(self.cache)}
        if self.unusable:
            out["unusable"] = self.unusable
        limiter = self.limiter
        if limiter is not None:
            out.update(limiter.status())
        return out

    # -- lifecycle ------------------------------------------------------------------
    async def start(self, documents: DocumentStoreLike | None = None, *, warm: bool = True) -> None:
        """Load the persisted cache and, with a model, import LiteLLM in the background.

        Idempotent. ``documents`` is ``engine.store.documents`` (None: the cache
        lives in memory only).
        """
        if self.started:
            return
        self.started = True
        if documents is not None:
            self.cache.documents = documents
            await self.cache.load()
        warm_up = getattr(self.provider, "warm_up", None)
        if warm and warm_up is not None:
            # In the background: the import takes seconds and the server must not
            # wait for it to accept players.
            self._warm_task = asyncio.create_task(self._warm(warm_up), name="llm-warm-up")

    async def _warm(self, warm_up: Callable[[], Any]) -> None:
        try:
            await warm_up()
        except Exception as exc:
            log.warning("LLM warm-up failed (calls will fall back to templates): %s", exc)

    async def close(self) -> None:
        """At shutdown: stop the warm-up and close LiteLLM's HTTP clients."""
        task, self._warm_task = self._warm_task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        aclose = getattr(self.provider, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:
                log.warning("closing the LLM provider failed", exc_info=True)
        self.started = False
