"""QuestQualityFilter: reject quests matching known anti-patterns.

History-aware and registry-aware: whether a past quest was a fetch quest or a
combat quest is read from the archetype registry (pack archetypes included) or,
for archetypes since unregistered, from what the history recorded. Windows are
game time. Packs add their own :class:`AntiPattern` objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from maid_engine.clock import GAME_DAY
from maid_stdlib.questgen.archetypes import ArchetypeRegistry
from maid_stdlib.questgen.history import QuestHistory, QuestHistoryEntry
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.types import ObjectivePatterns

__all__ = ["AntiPattern", "QuestQualityFilter"]

#: Patterns that make a quest a "bring X to Y" errand.
FETCH_LIKE = frozenset(
    {ObjectivePatterns.FETCH, ObjectivePatterns.DELIVER, ObjectivePatterns.CRAFT_AND_DELIVER}
)


@dataclass(frozen=True)
class AntiPattern:
    """``matches(quest, filter) -> bool``: True rejects the quest.

    ``reads_text``: the pattern judges prose, so it can only run on the written
    quest; the others also run on the plan's draft, before any text is written.
    """

    name: str
    matches: Callable[[GeneratedQuest, QuestQualityFilter], bool]
    reads_text: bool = False


class QuestQualityFilter:
    MAX_CONSECUTIVE_FETCH: ClassVar[int] = 2
    MAX_CONSECUTIVE_COMBAT: ClassVar[int] = 2
    MAX_PER_NPC_PER_DAY: ClassVar[int] = 2
    MAX_SAME_AREA: ClassVar[int] = 3
    MAX_ACTIVE_QUESTS_PER_REGION: ClassVar[int] = 3
    #: At most this many quests of one archetype in a row (a third is rejected).
    MAX_SAME_ARCHETYPE_RUN: ClassVar[int] = 2
    #: The anti-patterns that depend only on the archetype and the history, so
    #: the system can skip an archetype before building it (see ``archetype_blocked``).
    HISTORY_RULES: ClassVar[tuple[str, ...]] = (
        "fetch_loop",
        "combat_fatigue",
        "archetype_repetition",
    )

    def __init__(self, history: QuestHistory, archetypes: ArchetypeRegistry) -> None:
        self.history = history
        self.archetypes = archetypes
        self.anti_patterns: list[AntiPattern] = [
            AntiPattern("fetch_loop", lambda q, f: f._fetch_loop(q)),
            AntiPattern("combat_fatigue", lambda q, f: f._combat_fatigue(q)),
            AntiPattern("archetype_repetition", lambda q, f: f._archetype_repetition(q)),
            AntiPattern("npc_monopoly", lambda q, f: f._npc_monopoly(q)),
            AntiPattern("location_repetition", lambda q, f: f._location_repetition(q)),
            AntiPattern("impossible_quest", lambda q, f: f._impossible(q)),
            AntiPattern("region_density", lambda q, f: f._region_full(q)),
        ]

    def add(self, pattern: AntiPattern) -> None:
        self.anti_patterns.append(pattern)

    def check(self, quest: GeneratedQuest) -> list[str]:
        """Names of the anti-patterns ``quest`` matches ([] means it passes)."""
        return [p.name for p in self.anti_patterns if p.matches(quest, self)]

    def filter(self, quest: GeneratedQuest) -> bool:
        return not self.check(quest)

    def check_plan(self, draft: GeneratedQuest) -> list[str]:
        """Names of the anti-patterns a quest's structure matches, judged on the
        plan's draft (``QuestBuilder.draft``) before any prose is written: every
        pattern but those that read text. ``region_density`` is left to the
        caller, which may make the seed wait instead."""
        return [
            p.name
            for p in self.anti_patterns
            if not p.reads_text and p.name != "region_density" and p.matches(draft, self)
        ]

    def archetype_blocked(self, archetype_id: str) -> list[str]:
        """The history rules (``HISTORY_RULES``) a quest of ``archetype_id`` built
        now would break: the system tries the next archetype instead of building
        one the filter is bound to reject."""
        recent = self._recent_ids(self.MAX_SAME_ARCHETYPE_RUN + 1, None)
        checks = {
            "fetch_loop": self._fetch_loop_for(archetype_id, recent),
            "combat_fatigue": self._combat_fatigue_for(archetype_id, recent),
            "archetype_repetition": self._repetition_for(archetype_id, recent),
        }
        return [name for name in self.HISTORY_RULES if checks[name]]

    # -- facts about quests -------------------------------------------------------------
    def _pattern(self, archetype_id: str, entry: QuestHistoryEntry | None = None) -> str:
        archetype = self.archetypes.get(archetype_id)
        if archetype is not None:
            return archetype.objective_pattern
        return entry.objective_pattern if entry is not None else ""

    def _combat(self, archetype_id: str, entry: QuestHistoryEntry | None = None) -> bool:
        archetype = self.archetypes.get(archetype_id)
        if archetype is not None:
            return archetype.requires_combat
        return entry.requires_combat if entry is not None else False

    def _recent(self, count: int, quest: GeneratedQuest) -> list[QuestHistoryEntry]:
        return self._recent_ids(count, quest.id)

    def _recent_ids(self, count: int, quest_id: str | None) -> list[QuestHistoryEntry]:
        # The quest itself may already be recorded (re-checking a registered quest).
        return [e for e in self.history.recent(count + 1) if e.quest_id != quest_id][:count]

    # -- the anti-patterns ----------------------------------------------------------------
    def _fetch_loop(self, quest: GeneratedQuest) -> bool:
        return self._fetch_loop_for(
            quest.archetype_id, self._recent(self.MAX_CONSECUTIVE_FETCH, quest)
        )

    def _fetch_loop_for(self, archetype_id: str, recent: list[QuestHistoryEntry]) -> bool:
        if self._pattern(archetype_id) not in FETCH_LIKE:
            return False
        recent = recent[: self.MAX_CONSECUTIVE_FETCH]
        return len(recent) == self.MAX_CONSECUTIVE_FETCH and all(
            self._pattern(e.archetype_id, e) in FETCH_LIKE for e in recent
        )

    def _combat_fatigue(self, quest: GeneratedQuest) -> bool:
        return self._combat_fatigue_for(
            quest.archetype_id, self._recent(self.MAX_CONSECUTIVE_COMBAT, quest)
        )

    def _combat_fatigue_for(self, archetype_id: str, recent: list[QuestHistoryEntry]) -> bool:
        if not self._combat(archetype_id):
            return False
        recent = recent[: self.MAX_CONSECUTIVE_COMBAT]
        return len(recent) == self.MAX_CONSECUTIVE_COMBAT and all(
            self._combat(e.archetype_id, e) for e in recent
        )

    def _archetype_repetition(self, quest: GeneratedQuest) -> bool:
        return self._repetition_for(
            quest.archetype_id, self._recent(self.MAX_SAME_ARCHETYPE_RUN, quest)
        )

    def _repetition_for(self, archetype_id: str, recent: list[QuestHistoryEntry]) -> bool:
        """A third quest of one archetype in a row."""
        recent = recent[: self.MAX_SAME_ARCHETYPE_RUN]
        return len(recent) == self.MAX_SAME_ARCHETYPE_RUN and all(
            e.archetype_id == archetype_id for e in recent
        )

    def _npc_monopoly(self, quest: GeneratedQuest) -> bool:
        since = quest.created_at - GAME_DAY
        count = sum(
            1
            for e in self.history.since(since)
            if e.quest_giver_id == quest.quest_giver_id and e.quest_id != quest.id
        )
        return count >= self.MAX_PER_NPC_PER_DAY

    def _location_repetition(self, quest: GeneratedQuest) -> bool:
        if quest.area is None:
            return False
        since = quest.created_at - GAME_DAY
        count = sum(
            1 for e in self.history.since(since) if e.area == quest.area and e.quest_id != quest.id
        )
        return count >= self.MAX_SAME_AREA

    def _impossible(self, quest: GeneratedQuest) -> bool:
        if quest.time_limit is None:
            return False
        return quest.estimated_duration_minutes / 60.0 > quest.time_limit

    def _region_full(self, quest: GeneratedQuest) -> bool:
        if quest.region is None:
            return False
        active = sum(
            1
            for e in self.history.entries()
            if e.active and e.region == quest.region and e.quest_id != quest.id
        )
        return active >= self.MAX_ACTIVE_QUESTS_PER_REGION
