"""Per-character difficulty: a generated quest's work fitted to whoever accepts it.

A quest is generated once for the world, at a :class:`DifficultyTier`; the
characters who accept it differ. At acceptance the rules layer's rating
(``WorldFacts.challenge``, :class:`~maid_stdlib.questgen.challenge.TierMatch`'s
``effort``) says how much of the tier's work suits the accepting character (or
the mean of a group accepting together); :func:`plan_adjustment` turns that
into an :class:`DifficultyAdjustment` within the :class:`ScalingBounds` the
quest's archetype allows:

* counted objectives (quantity above 1) are multiplied by the factor, rounded
  (a tie the factor's way), at least 1, and never above the number of real
  entities the objective names (a grounded count cannot ask for foes that do not
  exist);
* time limits (the quest's and each objective's) are divided by it: a weaker
  character gets longer, a stronger one less;
* rewards follow the work actually asked: the factor by which the required
  counted objectives grew or shrank after rounding and caps (1 when the quest
  has nothing to count: everyone is asked the same work);
* a rules layer may add terms of its own (the classic RPG's enemy levels) with
  :meth:`DifficultyAdjustment.add`.

The adjustment is recorded on the quest's history entry (``QuestHistoryEntry.
adjustments``, one per accepting character): what was scaled, from what to
what, and why. Success consequences scale with the same work factor (see
docs/consequences.md); failure consequences do not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol
from uuid import UUID

from pydantic import BaseModel

from maid_stdlib.questgen.challenge import ChallengeRating
from maid_stdlib.questgen.quest import GeneratedQuest, QuestObjective


class _Scaled(Protocol):
    @property
    def scaling(self) -> ScalingBounds: ...


class Archetypes(Protocol):
    """What :func:`fit_quest` reads of the archetype registry (archetypes import
    this module for their bounds, so it names no archetype class)."""

    def get(self, archetype_id: str, /) -> _Scaled | None: ...


__all__ = [
    "DEFAULT_SCALING",
    "NO_SCALING",
    "Archetypes",
    "DifficultyAdjustment",
    "ScaledTerm",
    "ScalingBounds",
    "fit_quest",
    "plan_adjustment",
    "rate_effort",
    "scale_amount",
]

#: A factor this close to 1 changes nothing worth recording.
_EPSILON: Final = 1e-6


@dataclass(frozen=True)
class ScalingBounds:
    """How far an archetype lets a quest be fitted to a character.

    ``min_factor``..``max_factor`` bounds the work factor; time limits move by its
    inverse within the same bounds. ``counts`` and ``time`` switch either part off
    (an escort whose deadline is the story keeps it).
    """

    min_factor: float = 0.5
    max_factor: float = 1.5
    counts: bool = True
    time: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.min_factor <= 1.0 <= self.max_factor:
            raise ValueError("scaling bounds must satisfy 0 < min_factor <= 1 <= max_factor")

    def clamp(self, factor: float) -> float:
        return min(self.max_factor, max(self.min_factor, factor))


#: What an archetype allows unless it says otherwise.
DEFAULT_SCALING: Final = ScalingBounds()
#: An archetype whose quests are the same for everyone.
NO_SCALING: Final = ScalingBounds(min_factor=1.0, max_factor=1.0)


class ScaledTerm(BaseModel):
    """One scaled term: ``what`` (an objective's count, a time limit, a reward ...),
    from ``before`` to ``after``, and ``note`` when a bound or cap decided it."""

    what: str
    before: float
    after: float
    note: str = ""


class DifficultyAdjustment(BaseModel):
    """How one quest was fitted to the characters who accepted it."""

    characters: list[UUID]
    #: The work factor the rating asked for, before the archetype's bounds.
    wanted: float
    #: The work factor used for counts (after the bounds).
    factor: float
    #: The factor time limits were divided by (bounded like ``factor``).
    time_factor: float
    #: The factor rewards and success consequences were multiplied by: the work
    #: actually asked after rounding and caps.
    reward_factor: float
    #: Why: the rules layer's words for the characters against the quest's tier.
    reason: str
    terms: list[ScaledTerm] = []
    #: Objective id -> scaled count (only those that changed).
    counts: dict[str, int] = {}
    #: Objective id -> scaled time limit in game seconds (only those that changed).
    objective_time_limits: dict[str, float] = {}
    #: The quest's scaled time limit in game hours (None when it has none).
    time_limit: float | None = None

    @property
    def changed(self) -> bool:
        return any(t.before != t.after for t in self.terms)

    def add(self, what: str, before: float, after: float, note: str = "") -> None:
        """Record a term a rules layer scaled itself."""
        self.terms.append(ScaledTerm(what=what, before=before, after=after, note=note))

    def summary(self) -> str:
        """One line: "x0.75 (level 2 against a moderate quest for level 4)"."""
        return f"x{self.reward_factor:.2f} ({self.reason})"


def rate_effort(
    challenge: ChallengeRating, characters: Sequence[UUID], quest: GeneratedQuest
) -> tuple[float, str]:
    """The work factor the rules layer asks for, and why: the mean of the
    characters' ``effort`` against the quest's tier (1.0 without characters)."""
    if not characters:
        return 1.0, "nobody to rate"
    matches = [challenge.standing_of(c).against(quest.difficulty) for c in characters]
    effort = sum(m.effort for m in matches) / len(matches)
    words = "; ".join(dict.fromkeys(m.rating for m in matches if m.rating))
    if not words:
        words = f"standing against a {quest.difficulty.value} quest"
    return effort, words


def _scaled_count(o: QuestObjective, factor: float) -> tuple[int, str]:
    # Nearest whole count; a tie goes the factor's way (a weaker character is
    # asked the fewer, a stronger one the more).
    exact = o.quantity * factor
    rounded = math.ceil(exact - 0.5) if factor < 1.0 else math.floor(exact + 0.5)
    wanted = max(1, rounded)
    cap = len(o.target_entity_ids)
    if cap and wanted > max(cap, o.quantity):
        return max(cap, o.quantity), f"capped: only {max(cap, o.quantity)} exist"
    if o.item_template and wanted > o.quantity:
        # An item count is what the world held when the quest was planned (a
        # fetch asks for the lumps of ore lying about, no more): asking a stronger
        # character for more sends them after items nobody can find.
        return o.quantity, f"capped: only {o.quantity} to be had"
    return wanted, ""


def _name(o: QuestObjective) -> str:
    return o.id or o.description


def plan_adjustment(
    quest: GeneratedQuest,
    characters: Sequence[UUID],
    effort: float,
    reason: str,
    bounds: ScalingBounds = DEFAULT_SCALING,
) -> DifficultyAdjustment:
    """Fit ``quest`` to ``characters`` whose rated work factor is ``effort``.

    Pure: the quest is not changed. Only objectives with a quantity above 1 are
    counted work (a single named target stays single).
    """
    factor = bounds.clamp(effort) if bounds.counts else 1.0
    time_factor = bounds.clamp(effort) if bounds.time else 1.0
    note = "" if abs(factor - effort) < _EPSILON else "bounded by the archetype"
    adj = DifficultyAdjustment(
        characters=list(characters),
        wanted=effort,
        factor=factor,
        time_factor=time_factor,
        reward_factor=1.0,
        reason=reason,
    )
    before_work = after_work = 0
    for o in quest.objectives:
        if o.quantity <= 1:
            continue
        count, cap_note = _scaled_count(o, factor)
        if not o.optional:
            before_work += o.quantity
            after_work += count
        if count != o.quantity:
            adj.counts[o.id] = count
        if count != o.quantity or cap_note:
            adj.add(f"count of {_name(o)}", o.quantity, count, cap_note or note)
    # Pay follows the work asked: a quest with nothing counted asks the same work
    # of everyone (only its deadline moves), so it pays the same.
    adj.reward_factor = after_work / before_work if before_work else 1.0
    if abs(time_factor - 1.0) > _EPSILON:
        if quest.time_limit:
            adj.time_limit = quest.time_limit / time_factor
            adj.add("time limit (hours)", quest.time_limit, round(adj.time_limit, 2))
        for o in quest.objectives:
            if o.time_limit_seconds:
                limit = o.time_limit_seconds / time_factor
                adj.objective_time_limits[o.id] = limit
                adj.add(f"time limit of {_name(o)} (s)", o.time_limit_seconds, round(limit))
    if abs(adj.reward_factor - 1.0) > _EPSILON and quest.rewards.gold:
        adj.add("gold", quest.rewards.gold, scale_amount(quest.rewards.gold, adj.reward_factor))
    return adj


def scale_amount(amount: int, factor: float) -> int:
    """A reward amount times ``factor``, rounded half up (never negative)."""
    return max(0, math.floor(amount * factor + 0.5))


def fit_quest(
    quest: GeneratedQuest,
    characters: Sequence[UUID],
    challenge: ChallengeRating,
    archetypes: Archetypes,
) -> DifficultyAdjustment:
    """Rate ``characters`` (one, or a group accepting together) against ``quest``
    and plan its adjustment within its archetype's bounds (the default bounds for
    an archetype no longer registered)."""
    archetype = archetypes.get(quest.archetype_id)
    bounds = archetype.scaling if archetype is not None else DEFAULT_SCALING
    effort, reason = rate_effort(challenge, characters, quest)
    return plan_adjustment(quest, characters, effort, reason, bounds)
