"""Which waiting seed is tried first: the most important, discounted by how many
of the last quests were of its kind.

A day has room for a few quests (``max_quests_per_day``) and a busy world offers
more seeds than that, so the order the seeds are tried in decides which troubles
become quests. By importance alone, the kind the world raises most (threats on a
road, in a mine, in a wood) takes the room every day, and a rarer trouble -- one
theft, one feud -- waits behind it until its seed decays. Each quest of a seed's
type among the last :data:`NOVELTY_WINDOW` generated takes :data:`NOVELTY_DECAY`
off its priority, so a kind the players have not seen lately comes first while its
situation still holds. Importance itself (what the quest is worth, what the
quality rules read) does not change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from maid_stdlib.questgen.seed import QuestSeed

__all__ = ["NOVELTY_DECAY", "NOVELTY_WINDOW", "launch_priority", "recent_kinds"]

#: How many of the latest quests count.
NOVELTY_WINDOW = 10
#: The share of priority a seed keeps per recent quest of its type.
NOVELTY_DECAY = 0.8


def recent_kinds(recent_types: Iterable[str]) -> Counter[str]:
    """Seed types of the latest quests, counted (from ``QuestHistory.recent_types``)."""
    return Counter(recent_types)


def launch_priority(seed: QuestSeed, recent: Counter[str]) -> float:
    """The seed's importance, discounted for each recent quest of its type."""
    return seed.importance * NOVELTY_DECAY ** recent[seed.seed_type]
