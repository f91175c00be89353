"""Per-character quest state: the persisted ``QuestLog`` component.

Everything a restart must not lose lives here (states, objective progress, the
lowest health seen, the turn-in records already paid), so the character entity is
the single source of truth and is written with the rewards in one transaction.
Nested objects are plain dataclasses; code that changes them calls ``touch()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from uuid import UUID

from maid_engine.ecs import Component
from maid_stdlib.questgen.vocabulary import FailReason, QuestOutcome, QuestState

if TYPE_CHECKING:
    from maid_engine.ecs import World


@dataclass
class ObjectiveProgress:
    count: int = 0
    completed: bool = False
    #: A PROTECT/TIMED/ESCORT objective that can no longer be met.
    failed: bool = False
    #: Game time the objective became available (None while locked).
    unlocked_at: float | None = None
    completed_at: float | None = None
    #: Lowest health fraction seen while this objective was unlocked and open.
    lowest_health_pct: float = 1.0

    @property
    def unlocked(self) -> bool:
        return self.unlocked_at is not None

    @property
    def open(self) -> bool:
        """Unlocked and still waiting for progress."""
        return self.unlocked_at is not None and not self.completed and not self.failed


@dataclass
class FoeSpec:
    """The quest's own foes one kill objective asks of one character (see
    ``classic_rpg.systems.quests.foes``): ``template`` at ``level`` (the
    template's own is ``base_level``) in ``room``."""

    template: str = ""
    room: str = ""
    level: int = 1
    base_level: int = 1


@dataclass
class QuestEntry:
    quest_id: str
    state: QuestState = QuestState.AVAILABLE
    #: Its number in the character's quest list, kept while the quest lasts so that
    #: accepting or ending another quest never renumbers it (0: none given yet).
    number: int = 0
    #: How many times the character accepted this quest (1 on the first run).
    run: int = 0
    offered_at: float | None = None
    offer_method: str = ""
    match_score: float = 0.0
    accepted_at: float | None = None
    #: When the required objectives were all met.
    completed_at: float | None = None
    #: When the quest reached a terminal state.
    finished_at: float | None = None
    fail_reason: FailReason | None = None
    fail_detail: str = ""
    outcome: QuestOutcome | None = None
    #: Minimum current/max health observed while the quest was active.
    lowest_health_pct: float = 1.0
    objectives: dict[str, ObjectiveProgress] = field(default_factory=dict)
    #: The quest fitted to this character at acceptance (per-character difficulty;
    #: empty and 1.0: as defined). Objective id -> the count asked of them.
    target_counts: dict[str, int] = field(default_factory=dict)
    #: Objective id -> its time limit for them, in game seconds.
    time_limits: dict[str, float] = field(default_factory=dict)
    #: The quest's time limit for them, in game seconds (None: the quest's own).
    time_limit_seconds: float | None = None
    #: Rewards paid to them are the quest's times this.
    reward_factor: float = 1.0
    #: Objective id -> the quest's own foes it spawns for them (see quests.foes):
    #: only kills of those count for the objective.
    foes: dict[str, FoeSpec] = field(default_factory=dict)

    @property
    def scaled(self) -> bool:
        return bool(
            self.target_counts
            or self.time_limits
            or self.time_limit_seconds is not None
            or self.reward_factor != 1.0
            or self.foes
        )

    def clear_scaling(self) -> None:
        self.target_counts, self.time_limits = {}, {}
        self.time_limit_seconds, self.reward_factor = None, 1.0
        self.foes = {}


@dataclass
class QuestLog(Component):
    component_name = "QuestLog"
    #: quest id -> the character's current (or most recent) run of that quest.
    quests: dict[str, QuestEntry] = field(default_factory=dict)
    #: quest id -> how many times it was turned in.
    turn_ins: dict[str, int] = field(default_factory=dict)
    #: Keys of the ``quest_turnins`` records whose rewards this character received.
    paid: list[str] = field(default_factory=list)
    #: quest id -> game time the character declined (or let lapse) its offer; such
    #: a quest is not offered to them again by quest delivery.
    declined: dict[str, float] = field(default_factory=dict)

    def entry(self, quest_id: str) -> QuestEntry | None:
        return self.quests.get(quest_id)

    def live(self) -> list[QuestEntry]:
        """The entries still offered or under way, by their number; an entry without
        one (or sharing another's) is given the lowest free number first."""
        live = [e for e in self.quests.values() if not e.state.terminal]
        taken: set[int] = set()
        unnumbered: list[QuestEntry] = []
        for entry in sorted(live, key=lambda e: (e.number, e.offered_at or 0.0, e.quest_id)):
            if entry.number > 0 and entry.number not in taken:
                taken.add(entry.number)
            else:
                unnumbered.append(entry)
        for entry in unnumbered:
            entry.number = _lowest_free(taken)
            taken.add(entry.number)
        return sorted(live, key=lambda e: e.number)

    def free_number(self) -> int:
        """The number a quest entering the list now gets: the lowest no live one has."""
        return _lowest_free({e.number for e in self.live()})

    def in_state(self, *states: QuestState) -> list[QuestEntry]:
        return [e for e in self.quests.values() if e.state in states]

    @property
    def active(self) -> list[QuestEntry]:
        return [e for e in self.quests.values() if e.state.active]


def _lowest_free(taken: set[int]) -> int:
    n = 1
    while n in taken:
        n += 1
    return n


def log_of(world: World, character: UUID) -> QuestLog:
    """The character's QuestLog, created on first use (EntityNotFound for a bad id)."""
    return world.get_or_add(character, QuestLog)


def entry_of(world: World, character: UUID, quest_id: str) -> QuestEntry | None:
    """The character's entry for the quest, if it has one."""
    qlog = world.try_component(character, QuestLog)
    return qlog.entry(quest_id) if qlog is not None else None
