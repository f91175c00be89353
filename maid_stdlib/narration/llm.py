"""The engine's LLM provider, as a service.

The LLM layer builds a provider from settings (:func:`build_provider`) but nothing
on the engine holds one yet, so narration provides this small service when no
other pack has. ``provider`` is ``None`` when no model is configured: narrated rooms
then answer with a template and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from maid_engine.llm import LLMProvider, build_provider

if TYPE_CHECKING:
    from maid_engine.engine import GameEngine

log = logging.getLogger("maid.narration")


class LLMService:
    """Holds the process's one provider (built once, shared by every LLM user: the
    limiter inside it is the global budget)."""

    def __init__(self, provider: LLMProvider | None) -> None:
        self.provider = provider
        self._warming: asyncio.Task[None] | None = None

    @classmethod
    def from_engine(cls, engine: GameEngine) -> LLMService:
        # Building does not import LiteLLM (that happens on the first call, off the
        # loop), so a server without a model pays nothing here.
        return cls(build_provider(engine.settings, engine.metrics, clock=engine.clock.monotonic))

    def start(self) -> None:
        """Import the LLM library in the background, so the first turn does not wait
        seconds for it (and does not spend its timeout on it)."""
        warm_up = getattr(self.provider, "warm_up", None)
        if warm_up is not None and self._warming is None:
            self._warming = asyncio.create_task(self._warm(warm_up), name="llm-warm-up")

    @staticmethod
    async def _warm(warm_up: Any) -> None:
        try:
            await warm_up()
        except Exception as exc:  # the first call reports it again, typed
            log.warning("warming up the LLM provider failed: %s", exc)

    async def close(self) -> None:
        """At shutdown: stop warming up and release the provider's HTTP clients."""
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warming
        aclose = getattr(self.provider, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:
                log.exception("closing the LLM provider failed")
