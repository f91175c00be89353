"""Components that tie NPCs and rooms to world facts the simulation reads.

They hold what data declares (supply routes, watched rooms, trade goods, schedules,
discovery sites, threat markers) rather than evolving state, and the living-data
loader refreshes them from data on every start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maid_engine.ecs import Component


@dataclass
class SupplyRoute:
    """``resource`` reaches the owner through ``rooms``; a threat in any of them
    blocks it. ``need`` is the need that suffers while it is blocked."""

    resource: str
    rooms: list[str] = field(default_factory=list)
    need: str = "economic"
    #: Where the supply comes from, for text ("the Deepdelve mine").
    origin: str = ""


@dataclass
class SupplyRoutes(Component):
    component_name = "SupplyRoutes"
    routes: list[SupplyRoute] = field(default_factory=list)


@dataclass
class WatchedRooms(Component):
    """Rooms the owner hears about without being there (a guard's patrol reports)."""

    component_name = "WatchedRooms"
    rooms: list[str] = field(default_factory=list)


@dataclass
class TradeGoods(Component):
    component_name = "TradeGoods"
    offers: list[str] = field(default_factory=list)
    wants: list[str] = field(default_factory=list)


@dataclass
class Hostile(Component):
    """Marks a threat to the living world (stdlib-level; combat layers may add their
    own threat providers). ``source`` groups threats: "bandits", "wolves"."""

    component_name = "Hostile"
    source: str = "hostiles"
    active: bool = True


@dataclass
class ScheduleEntry:
    """From game hour ``hour`` (0-23) on, the owner wants to be in ``room``, doing
    ``activity`` there ("working", "drinking": what it shows and says may follow)."""

    hour: int
    room: str
    activity: str = ""


@dataclass
class Schedule(Component):
    component_name = "Schedule"
    entries: list[ScheduleEntry] = field(default_factory=list)

    def room_at(self, hour: int) -> str | None:
        """The room for game hour ``hour``: the latest entry at or before it,
        wrapping around midnight to the day's last entry."""
        entry = self.entry_at(hour)
        return entry.room if entry is not None else None

    def entry_at(self, hour: int) -> ScheduleEntry | None:
        if not self.entries:
            return None
        ordered = sorted(self.entries, key=lambda e: e.hour)
        chosen = ordered[-1]
        for entry in ordered:
            if entry.hour <= hour:
                chosen = entry
        return chosen


@dataclass
class DiscoverySite(Component):
    """On a room: something waits to be found there. ``found_by`` is set (UUID
    string) when an NPC or character first enters; ``resolved`` once it has been
    dealt with (an expedition came back), which ends its DISCOVERY situation."""

    component_name = "DiscoverySite"
    discovery_type: str = "site"
    description: str = ""
    found_by: str | None = None
    found_at: float | None = None
    resolved: bool = False


@dataclass
class LivingProfile(Component):
    """Which living-data entry an entity got its living components from, and
    whether the one-time parts (initial values, memories, gossip) were applied."""

    component_name = "LivingProfile"
    template: str = ""
    seeded: bool = False


@dataclass
class Misdeed:
    """A wrong the owner does when it is driven to it: when every condition of
    ``when`` holds (a need run low, being at the place, being alone there), at most
    once every ``every_days`` game days, it does ``act`` to ``victim`` (an entity
    uuid as a string). The victim finds ``content`` out (a memory tagged
    "betrayal" about the owner, the story layer's BETRAYAL); ``need`` of the owner
    recovers by ``relief``."""

    act: str
    when: list[str] = field(default_factory=list)
    victim: str = ""
    content: str = ""
    need: str = ""
    relief: float = 0.4
    every_days: float = 7.0
    importance: float = 0.7


@dataclass
class Misdeeds(Component):
    component_name = "Misdeeds"
    acts: list[Misdeed] = field(default_factory=list)
