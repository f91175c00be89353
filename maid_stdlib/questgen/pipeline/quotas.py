"""Quotas: how much generated work the world may hold at once.

``max_active_quests_per_region`` (region density), ``max_quests_per_day`` (a
rolling game day; builds in flight count), ``min_quests_per_day`` (the floor: is
the day short?), ``max_giver_share`` (one giver's share of the day) and
``max_pending_quests`` (open generated quests nobody has taken on). Read by the
launch step and the check stage; all from the history and the open quests, never
stored here.
"""

from __future__ import annotations

from collections.abc import Mapping
from uuid import UUID

from maid_engine.clock import GAME_DAY
from maid_stdlib.questgen.delivery import OpenQuest, QuestOffers
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.quest import GeneratedQuest

__all__ = ["Quotas"]


class Quotas:
    def __init__(
        self, settings: QuestGenerationConfig, history: QuestHistory, facts: WorldFacts
    ) -> None:
        self._settings = settings
        self._history = history
        self._facts = facts

    def region_full_at(self, room: str) -> bool:
        """Is the region of ``room`` full of active quests?"""
        return self.region_full(self._facts.region_of(room))

    def region_full(self, region: str | None) -> bool:
        if region is None:
            return False
        return (
            self._history.count_active_in_region(region)
            >= self._settings.max_active_quests_per_region
        )

    def day_room(self, now: float, in_flight: int) -> int | None:
        """Quests the daily cap still allows (builds in flight count), None: no cap."""
        cap = self._settings.max_quests_per_day
        if cap is None:
            return None
        return max(0, cap - self._generated_since(now - GAME_DAY) - in_flight)

    def day_full(self, now: float) -> bool:
        """Has the rolling game day before ``now`` had ``max_quests_per_day`` quests?"""
        cap = self._settings.max_quests_per_day
        return cap is not None and self._generated_since(now - GAME_DAY) >= cap

    def over_daily_cap(self, quest: GeneratedQuest) -> bool:
        """Would ``quest`` be one too many for the game day before it was made?"""
        cap = self._settings.max_quests_per_day
        if cap is None:
            return False
        count = sum(
            1
            for e in self._history.since(quest.created_at - GAME_DAY)
            if e.quest_id != quest.id and e.source == "generated"
        )
        return count >= cap

    def unaccepted(self, open_quests: Mapping[str, OpenQuest], offers: QuestOffers | None) -> int:
        """Open generated quests nobody has taken on (the rules layer knows)."""
        if offers is None:
            return len(open_quests)
        return sum(1 for qid in open_quests if not offers.accepted(qid))

    def unaccepted_full(
        self, open_quests: Mapping[str, OpenQuest], offers: QuestOffers | None
    ) -> bool:
        return self.unaccepted(open_quests, offers) >= self._settings.max_pending_quests

    def day_short(self, now: float) -> bool:
        """Is the rolling game day short of ``min_quests_per_day``? Quests made
        within ``floor_lead`` of leaving the window already count as gone, so the
        floor acts while there is time to build. A day is short too when no quest
        came for ``GAME_DAY / (floor + 1)`` (8 game hours for a floor of two): a
        burst of quests followed by a long silence leaves whole days without any."""
        floor = self._settings.min_quests_per_day
        if floor <= 0:
            return False
        if self._generated_since(now - self.quiet_spell()) == 0:
            return True
        return self._generated_since(now - GAME_DAY + self._settings.floor_lead) < floor

    def quiet_spell(self) -> float:
        """How long the world may go without a quest before its day counts as
        short: ``GAME_DAY / (floor + 1)`` (a whole day without a floor)."""
        return GAME_DAY / (max(0, self._settings.min_quests_per_day) + 1)

    def generated_today(self, now: float) -> int:
        """Generated quests in the rolling game day before ``now``."""
        return self._generated_since(now - GAME_DAY)

    def given_today(self, giver: UUID, now: float) -> int:
        """Generated quests ``giver`` gave in the rolling game day before ``now``."""
        return sum(
            1
            for e in self._history.since(now - GAME_DAY)
            if e.source == "generated" and e.quest_giver_id == giver
        )

    def giver_at_share(self, giver: UUID, now: float, in_flight: int = 0) -> bool:
        """Would one more quest from ``giver`` put it over ``max_giver_share`` of the
        rolling day's quests? ``in_flight``: its builds under way, counted as given."""
        return self._settings.giver_at_share(
            self.given_today(giver, now) + in_flight, self.generated_today(now) + in_flight
        )

    def _generated_since(self, since: float) -> int:
        return sum(1 for e in self._history.since(since) if e.source == "generated")
