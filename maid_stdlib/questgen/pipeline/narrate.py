"""NarrateStage: a plan's prose, written in a background task.

The LLM is never awaited in the tick: ``launch`` starts the narrative of a plan
in an asyncio task on its immutable NarrativeContext (so it never touches the
world outside the tick), and a later tick ``take``\\ s the finished ones. Tests
and the simulator wait for the tasks with ``drain``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from uuid import UUID

from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.narrative import QuestNarrativeGenerator, TemplateFallbackGenerator
from maid_stdlib.questgen.pipeline.results import Narrated
from maid_stdlib.questgen.seed import QuestSeed

__all__ = ["BuildJob", "NarrateStage"]

log = logging.getLogger("maid.questgen.system")


@dataclass
class BuildJob:
    """One build in flight: the seed, its plan and the task writing its prose."""

    seed: QuestSeed
    plan: QuestPlan
    template_only: bool
    task: asyncio.Task[Narrated]


class NarrateStage:
    def __init__(
        self, generator: QuestNarrativeGenerator, fallback: TemplateFallbackGenerator
    ) -> None:
        self.generator = generator
        self._fallback = fallback
        self._in_flight: dict[UUID, BuildJob] = {}

    # -- what is in flight ------------------------------------------------------------
    def ids(self) -> set[UUID]:
        return set(self._in_flight)

    def __contains__(self, seed_id: object) -> bool:
        return seed_id in self._in_flight

    def __len__(self) -> int:
        return len(self._in_flight)

    def jobs(self) -> list[BuildJob]:
        """The builds in flight, oldest first (a copy)."""
        return list(self._in_flight.values())

    # -- launching and collecting -----------------------------------------------------
    def launch(self, seed: QuestSeed, plan: QuestPlan, template_only: bool) -> BuildJob:
        task = asyncio.create_task(
            self._narrate(plan, template_only), name=f"quest-build-{seed.id}"
        )
        job = self._in_flight[seed.id] = BuildJob(seed, plan, template_only, task)
        return job

    def take(self, job: BuildJob) -> Narrated | None:
        """The job's prose if its task is finished (the job leaves the flight);
        None while it runs or when it was cancelled."""
        if not job.task.done():
            return None
        del self._in_flight[job.seed.id]
        if job.task.cancelled():
            return None
        return job.task.result()

    async def _narrate(self, plan: QuestPlan, template_only: bool) -> Narrated:
        started = time.perf_counter()
        try:
            narrative = await self.generator.generate(plan.context, template_only=template_only)
        except Exception:
            # generate() never raises by contract; a bug there must not lose the seed.
            log.exception("quest narrative generation failed")
            narrative = self._fallback.generate(plan.context, reason="internal_error")
        return Narrated(narrative, time.perf_counter() - started)

    async def drain(self) -> None:
        """Wait for every build in flight (the next tick collects them)."""
        while True:
            tasks = [j.task for j in self._in_flight.values() if not j.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def cancel_all(self) -> None:
        for job in list(self._in_flight.values()):
            job.task.cancel()
        await asyncio.gather(*(j.task for j in self._in_flight.values()), return_exceptions=True)
        self._in_flight.clear()
