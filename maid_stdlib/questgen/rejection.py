"""Rejection: why a step of quest generation said no, returned instead of stored.

Every step that may refuse (the evaluator, the builder, the generation
pipeline's stages) returns either its product or a :class:`Rejection` naming the
stage and the reason, so the caller reads the answer from the call it made, never
from a ``last_...`` attribute a later call may already have overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rejection"]


@dataclass(frozen=True, slots=True)
class Rejection:
    """``stage`` said no because of ``reason`` (both non-empty)."""

    stage: str
    reason: str
    #: The named rules that said no ("npc_monopoly", "sides_not_in_conflict"), for
    #: metrics and reports; empty when the stage has no named rules.
    rules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.stage or not self.reason:
            raise ValueError(
                f"a rejection needs a stage and a reason: {self.stage!r}, {self.reason!r}"
            )

    def __str__(self) -> str:
        return self.reason
