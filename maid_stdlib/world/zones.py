"""ZoneRoutes: shortest distances across a world of zones, without walking it.

A MUD's rooms come in zones (areas) joined by a few exits, and a walk from one
zone to another crosses the zones between them room by room: a breadth-first
search from a giver in one village to a place three zones away walks most of the
world. So the rooms where a zone is left or entered -- its *portals* -- carry the
world: each portal knows every room of its zone's distance to it (or from it)
inside the zone, and each exit portal knows the shortest way to every entry
portal of the world (a walk that leaves its zone at once and enters the other one
last). A distance is then a handful of lookups: to one of the source zone's exit
portals, across, and from one of the target zone's entry portals to the target;
a walk that never leaves its zone is searched in the zone alone.

Exact for any split of the rooms into zones: a shortest walk that leaves the
source's zone leaves it first at one of its exit portals, reached without leaving
the zone, and enters the target's zone last at one of its entry portals, going on
without leaving it; in between, it is a walk the portals' table holds. A split
with too many portals (tiny zones, or none that mean anything) is not used:
:meth:`ZoneRoutes.build` says so, and the graph searches instead.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

__all__ = ["MAX_PORTALS", "ZONE_ROOMS", "ZoneRoutes"]

#: Portals (exit and entry, counted apart) above which a split is not used: the
#: table between them grows as their square.
MAX_PORTALS = 512
#: Rooms the portals' distances hold in all (a portal's zone each) above which a
#: split is not used.
ZONE_ROOMS = 1_000_000

#: room -> [(neighbour, exit name)], as RoomGraph keeps it
Adjacency = Mapping[str, list[tuple[str, str]]]


class ZoneRoutes:
    def __init__(
        self,
        adjacency: Adjacency,
        zone_of: Mapping[str, str],
        crossings: dict[str, list[str]],
        to_exit: dict[str, dict[str, int]],
        from_entry: dict[str, dict[str, int]],
    ) -> None:
        self.adjacency = adjacency
        self.zone_of = zone_of
        #: exit portal -> the rooms of other zones its exits lead to
        self.crossings = crossings
        #: exit portal -> each room of its zone that reaches it inside the zone ->
        #: the rooms walked
        self.to_exit = to_exit
        #: entry portal -> each room of its zone it reaches inside the zone -> the
        #: rooms walked
        self.from_entry = from_entry
        self.exits_of: dict[str, list[str]] = {}
        for portal in crossings:
            self.exits_of.setdefault(zone_of.get(portal, ""), []).append(portal)
        self.entries_of: dict[str, list[str]] = {}
        for portal in from_entry:
            self.entries_of.setdefault(zone_of.get(portal, ""), []).append(portal)
        #: exit portal -> entry portal -> the rooms walked from the one to the
        #: other, leaving the exit portal's zone at once and entering the entry
        #: portal's last
        self.between = {portal: self._across(portal) for portal in crossings}

    @classmethod
    def build(
        cls, adjacency: Adjacency, reverse: Adjacency, zone_of: Mapping[str, str]
    ) -> ZoneRoutes | None:
        """The routes of ``zone_of``'s split, or None when it has too many portals
        (``MAX_PORTALS``, ``ZONE_ROOMS``) or no zone is left by any exit."""
        crossings: dict[str, list[str]] = {}
        entries: set[str] = set()
        sizes: dict[str, int] = {}
        for room, links in adjacency.items():
            zone = zone_of.get(room, "")
            sizes[zone] = sizes.get(zone, 0) + 1
            for there, _ in links:
                if zone_of.get(there, "") != zone:
                    crossings.setdefault(room, []).append(there)
                    entries.add(there)
        portals = [*crossings, *entries]
        if not crossings or len(portals) > MAX_PORTALS:
            return None
        if sum(sizes.get(zone_of.get(p, ""), 1) for p in portals) > ZONE_ROOMS:
            return None
        to_exit = {p: _in_zone(p, reverse, zone_of) for p in crossings}
        from_entry = {p: _in_zone(p, adjacency, zone_of) for p in sorted(entries)}
        return cls(adjacency, zone_of, crossings, to_exit, from_entry)

    def _across(self, start: str) -> dict[str, int]:
        """Dijkstra over the portals from exit portal ``start``: an exit crossed
        is one room, a zone crossed from an entry portal to an exit portal is the
        rooms walked inside it."""
        zone_of, crossings, from_entry = self.zone_of, self.crossings, self.from_entry
        reached: dict[str, int] = {}
        left: set[str] = set()
        queue: list[tuple[int, bool, str]] = [(1, True, there) for there in crossings[start]]
        heapq.heapify(queue)
        while queue:
            walked, entering, room = heapq.heappop(queue)
            if entering:
                if room in reached:
                    continue
                reached[room] = walked
                inside = from_entry[room]
                for portal in self.exits_of.get(zone_of.get(room, ""), ()):
                    steps = inside.get(portal)
                    if steps is not None and portal not in left:
                        heapq.heappush(queue, (walked + steps, False, portal))
            elif room not in left:
                left.add(room)
                for there in crossings[room]:
                    if there not in reached:
                        heapq.heappush(queue, (walked + 1, True, there))
        return reached

    def distance(self, source: str, target: str) -> int | None:
        """Rooms walked on a shortest way from ``source`` to ``target`` (None: no way)."""
        if source == target:
            return 0
        zone_of = self.zone_of
        here, there = zone_of.get(source, ""), zone_of.get(target, "")
        best = (
            _in_zone(source, self.adjacency, zone_of, target).get(target) if here == there else None
        )
        entries = [
            (portal, steps)
            for portal in self.entries_of.get(there, ())
            if (steps := self.from_entry[portal].get(target)) is not None
        ]
        if not entries:
            return best
        for portal in self.exits_of.get(here, ()):
            first = self.to_exit[portal].get(source)
            if first is None:
                continue
            across = self.between[portal]
            for entry, last in entries:
                middle = across.get(entry)
                if middle is not None and (best is None or first + middle + last < best):
                    best = first + middle + last
        return best


def _in_zone(
    start: str, links: Adjacency, zone_of: Mapping[str, str], target: str | None = None
) -> dict[str, int]:
    """Breadth-first from ``start`` along ``links``, inside its zone: room -> depth
    (stopping once ``target`` is reached, if given)."""
    zone = zone_of.get(start, "")
    seen = {start: 0}
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        outer: list[str] = []
        for here in frontier:
            for there, _ in links.get(here, ()):
                if there not in seen and zone_of.get(there, "") == zone:
                    seen[there] = depth
                    if there == target:
                        return seen
                    outer.append(there)
        frontier = outer
    return seen
