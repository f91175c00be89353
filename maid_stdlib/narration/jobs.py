"""What a queued narration job is and what became of it: the handle, the result and
the outcome labels. Shared by the service that queues jobs and the turn bodies
that run them (turn.py), so neither imports the other for them."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from maid_stdlib.narration.turnlog import TurnRecord
from maid_stdlib.worldstate import Report

# Turn outcomes (the ``outcome`` label of maid_narrated_turns_total).
OK = "ok"
NO_MODEL = "no_model"
TIMEOUT = "timeout"
LLM_ERROR = "llm_error"
FILTERED = "filtered"
DROPPED = "dropped"
FAILED = "failed"
#: Refused before any call (nothing charged, nothing changed, no turn stored): the
#: player's own LLM quota, or their account's place in the queue, is used up ...
QUOTA = "quota"
#: ... or the part of the server's LLM budget narration may spend is.
BUDGET = "budget"
#: Every outcome above (the narration metrics start each at zero).
OUTCOMES = (OK, NO_MODEL, TIMEOUT, LLM_ERROR, FILTERED, DROPPED, FAILED, QUOTA, BUDGET)


@dataclass
class TurnResult:
    """What became of one queued job."""

    outcome: str
    record: TurnRecord | None = None
    report: Report | None = None
    narration: str = ""
    changes: str = ""


@dataclass(eq=False)
class TurnHandle:
    """One queued job (a turn, a retry or an undo). Await it for its result."""

    room: str
    actor: UUID
    kind: str
    phase: str = "queued"  # queued -> reading -> calling -> applying -> done
    task: asyncio.Task[TurnResult] = field(init=False, repr=False)

    def __await__(self) -> Generator[Any, None, TurnResult]:
        return self.task.__await__()

    def done(self) -> bool:
        return self.task.done()
