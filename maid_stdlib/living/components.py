"""The persistent state of the living world: needs, goals, relationships, factions.

Every class is a dataclass :class:`~maid_engine.ecs.Component` with an explicit
``component_name`` (stored rows refer to it). Nested records (a need, a goal, a
relationship) are plain dataclasses: changing one in place does not mark the entity
dirty, so code that does it reports it with ``World.modified(entity, component)`` --
or, better, uses the bounded helpers of :mod:`maid_stdlib.living.api`, which do.

Bounds: need values in [0, 1]; trust, affinity and faction standings in [-1, 1];
social influence in [0, 1]; wealth >= 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated
from uuid import UUID

from pydantic import Field

from maid_engine.ecs import Component


def clamp(value: float, low: float, high: float) -> float:
    return low if value < low else high if value > high else value


def clamp_unit(value: float) -> float:
    return clamp(value, 0.0, 1.0)


def clamp_signed(value: float) -> float:
    return clamp(value, -1.0, 1.0)


class NeedType:
    """Built-in need names. Needs are plain strings: packs may use their own."""

    ECONOMIC = "economic"
    SAFETY = "safety"
    SOCIAL = "social"
    REST = "rest"
    PURPOSE = "purpose"


class GoalType:
    """Built-in goal types (plain strings, like questgen's QuestSeedType)."""

    ACQUIRE = "ACQUIRE"
    PROTECT = "PROTECT"
    SOCIALIZE = "SOCIALIZE"
    TRADE = "TRADE"
    REVENGE = "REVENGE"
    EXPLORE = "EXPLORE"


class GoalStatus:
    ACTIVE = "active"
    BLOCKED = "blocked"
    DONE = "done"
    FAILED = "failed"
    #: Statuses of a goal the NPC is still pursuing.
    OPEN = (ACTIVE, BLOCKED)


# -- needs ----------------------------------------------------------------------------
@dataclass
class NeedModifier:
    """While condition ``when`` holds, decay is multiplied by ``decay_x`` and ``add``
    (per game hour) is added to it. E.g. a blocked supply route makes ECONOMIC fall
    faster; a known threat makes SAFETY fall at all."""

    when: str
    decay_x: float = 1.0
    add: float = 0.0


@dataclass
class Satisfier:
    """While condition ``when`` holds, the need recovers by ``rate`` per game hour."""

    when: str
    rate: float = 0.0


@dataclass
class GoalTemplate:
    """The goal an NPC forms when the need it belongs to drops below its threshold."""

    id: str
    type: str = GoalType.ACQUIRE
    description: str = ""
    priority: float = 0.5
    #: What the goal is about ("iron"); ACQUIRE goals name the resource.
    target: str | None = None
    #: Conditions that block the goal while they hold (the first that holds wins).
    blocked_when: list[str] = field(default_factory=list)
    #: Condition under which the goal progresses by itself, ``progress_rate``/hour.
    progress_when: str | None = None
    progress_rate: float = 0.0
    #: How much the need recovers when the goal is done.
    completion_need_delta: float = 0.3


@dataclass(frozen=True)
class NeedRule:
    """What a need is: how fast it falls, when it counts as unmet, what changes
    its course and the goal it forms. It comes from the pack's data (seeding sets
    it on every start) and is shared by the NPCs seeded from the same data; only
    the value is stored (:class:`NeedState`). Never changed in place."""

    #: Loss per game hour before modifiers.
    decay: float = 0.0
    #: Below this the need is unmet: a goal forms and story detectors take notice.
    threshold: float = 0.3
    modifiers: tuple[NeedModifier, ...] = ()
    satisfied_by: tuple[Satisfier, ...] = ()
    goal: GoalTemplate | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> NeedRule:
        # Never changed in place: a copied component (a consequence's snapshot)
        # keeps sharing it.
        return self


#: The rule of a need no data describes (yet): a stored need before seeding.
NO_RULE = NeedRule()


@dataclass
class NeedState:
    """One need of one NPC: its value (stored) and its rule (from the data).

    The rule is left out of the stored component: it is the same for every NPC of a
    template, it was three quarters of a stored NPC's needs, and a checkpoint wrote it
    again whenever a value moved. A stored need loads with :data:`NO_RULE` until
    seeding gives it the data's rule. Saves made before the split stored the rule's
    fields beside the value; loading drops them the same way (the data refreshes
    them on every start).
    """

    value: float = 1.0
    rule: Annotated[NeedRule, Field(exclude=True)] = NO_RULE

    @property
    def decay(self) -> float:
        return self.rule.decay

    @property
    def threshold(self) -> float:
        return self.rule.threshold

    @property
    def modifiers(self) -> tuple[NeedModifier, ...]:
        return self.rule.modifiers

    @property
    def satisfied_by(self) -> tuple[Satisfier, ...]:
        return self.rule.satisfied_by

    @property
    def goal(self) -> GoalTemplate | None:
        return self.rule.goal

    @property
    def unmet(self) -> bool:
        return self.value < self.rule.threshold


@dataclass
class NeedsComponent(Component):
    """Named needs in [0, 1]: 1 is fully satisfied, 0 desperate."""

    component_name = "Needs"
    needs: dict[str, NeedState] = field(default_factory=dict)

    def value(self, need: str) -> float | None:
        state = self.needs.get(need)
        return None if state is None else state.value

    def unmet(self) -> list[str]:
        """Needs below their threshold, most urgent first."""
        low = [(s.value, n) for n, s in self.needs.items() if s.unmet]
        return [n for _, n in sorted(low)]

    def lowest(self) -> tuple[str, float] | None:
        if not self.needs:
            return None
        name = min(self.needs, key=lambda n: (self.needs[n].value, n))
        return name, self.needs[name].value

    def satisfy(self, need: str, delta: float) -> float:
        """Change a need by ``delta`` (clamped to [0, 1]); returns the new value.
        In place: the caller reports it with ``World.modified``."""
        state = self.needs.get(need)
        if state is None:
            raise KeyError(f"no need {need!r}")
        state.value = clamp_unit(state.value + delta)
        return state.value


# -- goals ----------------------------------------------------------------------------
@dataclass
class Goal:
    id: str
    type: str = GoalType.ACQUIRE
    description: str = ""
    priority: float = 0.5
    status: str = GoalStatus.ACTIVE
    #: Human-readable blocker ("bandits on the Old Trade Road"), None unless blocked.
    blocker: str | None = None
    #: Stable key of the blocking fact ("threat:bandits:ironvale:trade_road").
    blocker_key: str | None = None
    #: What blocks it, as a threat source or fact kind ("bandits").
    blocker_source: str | None = None
    #: Room keys where the blocking fact is.
    blocker_rooms: list[str] = field(default_factory=list)
    progress: float = 0.0
    #: The need this goal serves (None for goals given by data or quests).
    need: str | None = None
    target: str | None = None
    blocked_when: list[str] = field(default_factory=list)
    progress_when: str | None = None
    progress_rate: float = 0.0
    completion_need_delta: float = 0.3
    created_at: float = 0.0
    blocked_since: float | None = None
    finished_at: float | None = None

    @property
    def is_open(self) -> bool:
        return self.status in GoalStatus.OPEN

    @classmethod
    def from_template(cls, template: GoalTemplate, need: str | None, now: float) -> Goal:
        return cls(
            id=template.id,
            type=template.type,
            description=template.description,
            priority=template.priority,
            need=need,
            target=template.target,
            blocked_when=list(template.blocked_when),
            progress_when=template.progress_when,
            progress_rate=template.progress_rate,
            completion_need_delta=template.completion_need_delta,
            created_at=now,
        )


#: Finished goals kept per NPC (narrative history); older ones are dropped.
MAX_FINISHED_GOALS = 10


@dataclass
class GoalsComponent(Component):
    component_name = "Goals"
    goals: list[Goal] = field(default_factory=list)

    def get(self, goal_id: str) -> Goal | None:
        """The open goal with ``goal_id`` if any, else the latest finished one."""
        found = None
        for goal in self.goals:
            if goal.id == goal_id:
                if goal.is_open:
                    return goal
                found = goal
        return found

    def open_goals(self) -> list[Goal]:
        return [g for g in self.goals if g.is_open]

    def blocked_goals(self) -> list[Goal]:
        return [g for g in self.goals if g.status == GoalStatus.BLOCKED]

    def has_active_goals(self) -> bool:
        """True while any goal is still pursued (active or blocked)."""
        return any(g.is_open for g in self.goals)

    def primary(self) -> Goal | None:
        """The open goal of highest priority (ties: the oldest)."""
        open_goals = self.open_goals()
        if not open_goals:
            return None
        return max(open_goals, key=lambda g: (g.priority, -g.created_at))

    def add(self, goal: Goal) -> Goal:
        """Append ``goal``; the caller reports it with ``World.modified``."""
        if any(g.id == goal.id and g.is_open for g in self.goals):
            raise ValueError(f"an open goal {goal.id!r} exists already")
        self.goals.append(goal)
        return goal

    def prune(self) -> None:
        finished = [g for g in self.goals if not g.is_open]
        if len(finished) > MAX_FINISHED_GOALS:
            drop = {id(g) for g in finished[: len(finished) - MAX_FINISHED_GOALS]}
            self.goals = [g for g in self.goals if id(g) not in drop]


# -- relationships --------------------------------------------------------------------
@dataclass
class Relationship:
    """How the owner sees one other entity. ``trust`` and ``affinity`` in [-1, 1]."""

    trust: float = 0.0
    affinity: float = 0.0
    #: "rival", "friend", "romantic", "family", ... (free text, used by UNREQUITED).
    kind: str = ""
    #: Why it is the way it is ("iron prices"), used as a rivalry's cause.
    cause: str = ""
    #: Trust change per game hour the two spend in the same room, scaled up by the
    #: owner's stress (a negative drift is a rivalry that feeds on hard times).
    drift: float = 0.0
    last_seen: float | None = None


@lru_cache(maxsize=65536)
def target_uuid(key: str) -> UUID | None:
    """The entity a ``Relationships`` entry is keyed by (its UUID as text), or None
    for a key that is not one. Remembered: the social systems read every NPC's
    relationships over and over, and parsing a UUID costs more than the rest."""
    try:
        return UUID(key)
    except ValueError:
        return None


@dataclass
class Relationships(Component):
    """Relationships of the owner, keyed by the target's UUID as a string."""

    component_name = "Relationships"
    entries: dict[str, Relationship] = field(default_factory=dict)


# -- factions, influence, wealth ------------------------------------------------------
@dataclass
class FactionMembership(Component):
    """Faction key -> role ("member", "leader")."""

    component_name = "FactionMembership"
    factions: dict[str, str] = field(default_factory=dict)

    def role(self, faction: str) -> str | None:
        return self.factions.get(faction)


@dataclass
class FactionStandings(Component):
    """How factions regard the owner (a character's reputation): key -> [-1, 1]."""

    component_name = "FactionStandings"
    standings: dict[str, float] = field(default_factory=dict)


@dataclass
class SocialInfluence(Component):
    """Standing in the community, in [0, 1] (who is heard, who leads)."""

    component_name = "SocialInfluence"
    value: float = 0.1


@dataclass
class Wealth(Component):
    """Coin the owner can spend; quest rewards scale with the giver's wealth."""

    component_name = "Wealth"
    gold: int = 0


@dataclass
class FactionTie:
    value: float = 0.0
    cause: str = ""


@dataclass
class FactionRelations(Component):
    """How factions stand with each other (one world-wide entity; see
    :func:`maid_stdlib.living.api.faction_relations`). Keyed "a|b", a < b."""

    component_name = "FactionRelations"
    ties: dict[str, FactionTie] = field(default_factory=dict)

    @staticmethod
    def pair(a: str, b: str) -> str:
        return f"{a}|{b}" if a <= b else f"{b}|{a}"


# -- people held in place ---------------------------------------------------------------
@dataclass
class Stranded(Component):
    """The owner wanted to leave ``room`` (its schedule called it elsewhere) and could
    not: a threat of ``source`` (group ``threat_key``) stands there with it. ``since``
    is the game time it was first held; the owner is missed once that is long enough
    ago (the story layer's missing-person detector)."""

    component_name = "Stranded"
    room: str = ""
    threat_key: str = ""
    source: str = ""
    since: float = 0.0


@dataclass
class MisdeedRecord(Component):
    """When the owner last did each of its misdeeds (act -> game time)."""

    component_name = "MisdeedRecord"
    last: dict[str, float] = field(default_factory=dict)
