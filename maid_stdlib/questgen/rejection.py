"""Rejection: why a step of quest generation said no, returned instead of stored.

Every step that may refuse (the evaluator, the builder, the generation
pipeline's stages) returns either its product or a :class:`Rejection` naming the
stage, the reason and the named rules that said no, so the caller reads the answer
from the call it made, never from a ``last_...`` attribute a later call may already
have overwritten. A rejection without a rule cannot be made: the admin report, the
log, the metrics' labels and ``maid simulate`` count rejections by rule, and an
unnamed one there reads as nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rejection"]


@dataclass(frozen=True, slots=True)
class Rejection:
    """``stage`` said no because of ``reason``, by ``rules`` (none of them empty)."""

    stage: str
    reason: str
    #: The named rules that said no ("npc_monopoly", "sides_not_in_conflict"), for
    #: metrics and reports: at least one, none blank.
    rules: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.stage or not self.reason:
            raise ValueError(
                f"a rejection needs a stage and a reason: {self.stage!r}, {self.reason!r}"
            )
        if not self.rules or not all(r.strip() for r in self.rules):
            raise ValueError(f"a rejection needs named rules: {self.rules!r}")

    @property
    def rule(self) -> str:
        """The first rule that said no."""
        return self.rules[0]

    def __str__(self) -> str:
        return self.reason
