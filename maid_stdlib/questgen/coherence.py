"""Coherence rules: does the quest's structure make sense as one person's request?

They read the structure (giver, objectives, sides, subject, title), never the
prose, so they run on the plan before any text is written, again on the finished
quest (the validator), and count in its coherence score. Each broken rule is a
:class:`CoherenceIssue` with a rule name (metrics, rejection reports) and a
reason a builder can act on.

- ``giver_is_own_target``: the quest sends the hero to its own giver ("Hear
  Selena's side" in Selena's quest); only the final report goes back to the giver.
- ``already_satisfied``: a step is done the moment the quest is offered (a "Travel
  to" the room the giver stands in).
- ``sides_not_in_conflict``: a dispute or choice between two people nothing sets
  against each other (no rivalry, no low trust, no conflict signal); allies (an
  alliance seed or signal) are never two sides.
- ``placeholder_subject``: the subject is an identifier (``follow_up``), or a
  chain follow-up names no situation the previous quest created.
- ``title_repeated``: the giver used the title lately, or any quest did within a
  game day (judged once the title exists: a plan has none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar
from uuid import UUID

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import signal_type_of
from maid_stdlib.questgen.types import QuestSeedTypes
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = ["COHERENCE_RULES", "CoherenceIssue", "CoherenceRules"]

#: Every rule name, in the order they are checked.
COHERENCE_RULES: tuple[str, ...] = (
    "giver_is_own_target",
    "already_satisfied",
    "sides_not_in_conflict",
    "placeholder_subject",
    "title_repeated",
)

#: Seed types made by a signal that sets their two sides against each other.
_CONFLICT_SEEDS = frozenset(
    {
        QuestSeedTypes.RIVALRY_INTERVENTION,
        QuestSeedTypes.FACTION_CONFLICT,
        QuestSeedTypes.POWER_STRUGGLE,
    }
)
#: Words the consequence layer uses for kinds of chain, not for situations.
_CHAIN_KINDS = frozenset({"follow_up", "retaliation", "escalation", "consequence_chain"})
_IDENTIFIER = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$|^[a-z]+:[\w:.-]+$")


@dataclass(frozen=True)
class CoherenceIssue:
    """A broken rule (one of ``COHERENCE_RULES``) and why, in words."""

    rule: str
    reason: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.reason}"


class CoherenceRules:
    #: The giver's last this many quests may not share a title with a new one.
    GIVER_TITLE_WINDOW: ClassVar[int] = 5

    def __init__(self, facts: WorldFacts, history: QuestHistory) -> None:
        self.facts = facts
        self.history = history

    def check(self, quest: GeneratedQuest, seed: QuestSeed | None = None) -> list[CoherenceIssue]:
        """The rules ``quest`` breaks ([] when it is coherent). ``seed`` adds what only
        the seed knows (the signals behind the sides, the subject); an empty title
        (a plan not yet written) is not judged."""
        return [
            *self._giver_is_own_target(quest),
            *self._already_satisfied(quest),
            *self._sides(quest, seed),
            *self._subject(quest, seed),
            *self._title(quest),
        ]

    def taken_titles(self, giver: UUID, now: float, quest_id: str | None = None) -> list[str]:
        """Titles a new quest of ``giver`` may not take (the narrative avoids them)."""
        return self.history.titles_in_use(giver, now, self.GIVER_TITLE_WINDOW, quest_id)

    # -- the rules ------------------------------------------------------------------
    def _giver_is_own_target(self, quest: GeneratedQuest) -> list[CoherenceIssue]:
        if not quest.objectives:
            return []
        giver = quest.quest_giver_id
        last = max(o.order for o in quest.objectives)
        name = self.facts.name(giver)
        return [
            CoherenceIssue(
                "giver_is_own_target",
                f"{name} gives the quest and is also step {o.order} ({o.description!r}); "
                "only the final report goes back to the giver",
            )
            for o in quest.objectives
            if o.objective_type is ObjectiveType.TALK
            and o.target_entity_id == giver
            and o.order != last
        ]

    def _already_satisfied(self, quest: GeneratedQuest) -> list[CoherenceIssue]:
        here = self.facts.room_of(quest.quest_giver_id)
        if here is None:
            return []
        return [
            CoherenceIssue(
                "already_satisfied",
                f"step {o.description!r} asks to go to {self.facts.room_name(here)}, where "
                f"{self.facts.name(quest.quest_giver_id)} offers the quest",
            )
            for o in quest.objectives
            if o.objective_type is ObjectiveType.VISIT and o.target_location == here
        ]

    def _sides(self, quest: GeneratedQuest, seed: QuestSeed | None) -> list[CoherenceIssue]:
        if not any(o.choice for o in quest.objectives):
            return []  # no dispute or choice to settle
        sides = self._two_sides(quest, seed)
        if sides is None:
            return []
        a, b = sides
        names = f"{self.facts.name(a)} and {self.facts.name(b)}"
        if seed is not None and self._allied(seed, a, b):
            return [
                CoherenceIssue(
                    "sides_not_in_conflict",
                    f"{names} are allies (an alliance is forming): there is no side to take",
                )
            ]
        if self.at_odds(a, b):
            return []
        if seed is not None and seed.seed_type in _CONFLICT_SEEDS:
            return []  # the signal that made the seed says they are at odds
        return [
            CoherenceIssue(
                "sides_not_in_conflict",
                f"nothing sets {names} against each other (no rivalry, no low trust, "
                "no signal of a conflict)",
            )
        ]

    @staticmethod
    def _two_sides(quest: GeneratedQuest, seed: QuestSeed | None) -> tuple[UUID, UUID] | None:
        if seed is not None and seed.party_a is not None and seed.party_b is not None:
            return seed.party_a, seed.party_b
        parties = [u for u, role in quest.involved_npcs.items() if role == "party"]
        if len(parties) == 2:
            return parties[0], parties[1]
        return None

    def at_odds(self, a: UUID, b: UUID) -> bool:
        """Either of ``a`` and ``b`` distrusts or dislikes the other, or calls them a
        rival or an enemy."""
        return self.facts.at_odds(a, b)

    @staticmethod
    def _allied(seed: QuestSeed, a: UUID, b: UUID) -> bool:
        """An alliance seed's sides are allies; so are two an ALLIANCE_FORMING signal
        names."""
        if seed.seed_type == QuestSeedTypes.ALLIANCE_QUEST:
            return True
        return any(
            signal_type_of(s) == "ALLIANCE_FORMING" and {a, b} <= set(s.involved_npcs)
            for s in seed.source_signals
        )

    def _subject(self, quest: GeneratedQuest, seed: QuestSeed | None) -> list[CoherenceIssue]:
        if seed is None:
            return []
        subject = (seed.subject or "").strip()
        if subject and (subject.casefold() in _CHAIN_KINDS or _IDENTIFIER.match(subject)):
            return [
                CoherenceIssue(
                    "placeholder_subject",
                    f"the subject {subject!r} is an identifier, not a situation in the world",
                )
            ]
        if seed.seed_type == QuestSeedTypes.CONSEQUENCE_CHAIN and not subject:
            parent = seed.chain_parent_id or quest.chain_parent_id or "a quest"
            return [
                CoherenceIssue(
                    "placeholder_subject",
                    f"the follow-up of {parent} names no situation its consequences created",
                )
            ]
        return []

    def _title(self, quest: GeneratedQuest) -> list[CoherenceIssue]:
        title = " ".join(quest.title.split()).casefold()
        if not title:
            return []
        taken = self.taken_titles(quest.quest_giver_id, quest.created_at, quest.id)
        if title not in {" ".join(t.split()).casefold() for t in taken}:
            return []
        return [
            CoherenceIssue(
                "title_repeated",
                f"{quest.title!r} was used by {self.facts.name(quest.quest_giver_id)} "
                "lately or by another quest within a game day",
            )
        ]
