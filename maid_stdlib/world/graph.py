"""RoomGraph: the world's exits as a graph, for paths and reachability.

The WorldService builds one from the Exits components when it is first needed and
drops it whenever rooms or exits change, so everything it remembers is valid for
exactly one shape of the world:

* ``search`` is a breadth-first search that stops as soon as it reaches its target
  (nothing is cached per source: thousands of walkers at distinct rooms made such
  a cache thrash);
* ``is_reachable`` answers from the strongly connected components (rooms that can
  all reach one another, computed once, iteratively): in most worlds every room is
  in one component and the answer needs no search at all; otherwise it searches;
* ``path`` remembers the latest ``PATH_CACHE_SIZE`` answers: quest generation and
  personalization ask the same giver-to-place distances again and again;
* ``distance`` with a ``limit`` searches only that many rooms deep ("is it within
  five rooms?" needs a few dozen rooms, not the whole world); without one it
  answers from the zones' routes when the graph was given the rooms' zones and
  they split it well (``maid_stdlib.world.zones``: a few lookups, whatever lies
  between the two rooms), and otherwise searches from both ends at once;
* ``closest`` answers "which of these rooms is nearest?" with one search from the
  source that stops at the first ring holding one, and ``nearest_labels`` answers
  it for every room at once (one search outwards from the rooms, against the
  exits): the way to serve the same question to many places.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Container, Mapping

from maid_stdlib.world.zones import ZoneRoutes

__all__ = ["PATH_CACHE_SIZE", "RoomGraph"]

#: Shortest paths remembered.
PATH_CACHE_SIZE = 4096

#: room key -> [(neighbour room key, exit name)]
Adjacency = dict[str, list[tuple[str, str]]]
#: room -> (previous room, exit taken); None at the root
SearchTree = dict[str, "tuple[str, str] | None"]


class RoomGraph:
    def __init__(self, adjacency: Adjacency, zones: Mapping[str, str] | None = None) -> None:
        self.adjacency = adjacency
        #: room -> its zone (its area), for ``routes``
        self.zones = zones
        self._routes: ZoneRoutes | None = None
        self._routed = zones is None
        self._components: dict[str, int] | None = None
        self._paths: OrderedDict[tuple[str, str], tuple[str, ...] | None] = OrderedDict()
        self._reverse: Adjacency | None = None
        #: Rooms visited by ``closest`` and ``nearest_labels`` (what tests of their
        #: cost count).
        self.visited = 0

    def search(self, source: str, target: str) -> SearchTree | None:
        """Breadth-first from ``source`` until ``target`` is reached; None if it
        cannot be. Stopping early leaves the target's chain as a full BFS would."""
        tree: SearchTree = {source: None}
        if source == target:
            return tree
        adjacency = self.adjacency
        queue = deque([source])
        while queue:
            here = queue.popleft()
            for there, name in adjacency.get(here, ()):
                if there not in tree:
                    tree[there] = (here, name)
                    if there == target:
                        return tree
                    queue.append(there)
        return None

    def components(self) -> dict[str, int]:
        """Room -> its strongly connected component (iterative Tarjan)."""
        if self._components is not None:
            return self._components
        adjacency = self.adjacency
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        comp: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        counter = labels = 0
        for root in adjacency:
            if root in index:
                continue
            work = [(root, 0)]
            while work:
                node, i = work[-1]
                if i == 0:
                    index[node] = low[node] = counter
                    counter += 1
                    stack.append(node)
                    on_stack.add(node)
                edges = adjacency.get(node, ())
                if i < len(edges):
                    work[-1] = (node, i + 1)
                    nxt = edges[i][0]
                    if nxt not in index:
                        work.append((nxt, 0))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        comp[member] = labels
                        if member == node:
                            break
                    labels += 1
        self._components = comp
        return comp

    def is_reachable(self, source: str, target: str) -> bool:
        comps = self.components()
        here, there = comps.get(source), comps.get(target)
        if here is not None and here == there:
            return True
        return self.search(source, target) is not None

    def distance(self, source: str, target: str, limit: int | None = None) -> int | None:
        """Rooms walked on a shortest way (0: the same room); None if there is no
        way or, with ``limit``, if it is longer than ``limit``."""
        if (source, target) in self._paths:
            steps = self.path(source, target)
            found = None if steps is None else len(steps)
            return found if found is None or limit is None or found <= limit else None
        if limit is None:
            routes = self.routes()
            if routes is not None:
                return routes.distance(source, target)
            return self._length(source, target)
        if source == target:
            return 0
        adjacency = self.adjacency
        seen = {source}
        frontier = [source]
        depth = 0
        while frontier and depth < limit:
            depth += 1
            outer: list[str] = []
            for here in frontier:
                for there, _ in adjacency.get(here, ()):
                    if there not in seen:
                        if there == target:
                            return depth
                        seen.add(there)
                        outer.append(there)
            frontier = outer
        return None

    def routes(self) -> ZoneRoutes | None:
        """The zones' routes, built when first asked for; None without zones or
        when they do not split the world well."""
        if not self._routed:
            self._routed = True
            assert self.zones is not None
            self._routes = ZoneRoutes.build(self.adjacency, self.reverse(), self.zones)
        return self._routes

    def _length(self, source: str, target: str) -> int | None:
        """The length of a shortest walk, searched from both ends at once, the
        smaller side a ring further each time, exits followed forwards from
        ``source`` and backwards from ``target``. Every room either side reaches
        is checked against the other side's as it is reached, so the first ring
        that meets it holds the shortest walk: the least of the meetings in that
        ring (a walk shorter than it would have met before). Where rooms branch
        out, each end walks a few rooms where one end would walk most of the
        world."""
        if source == target:
            return 0
        found: int | None = None
        ahead, behind = {source: 0}, {target: 0}
        front, back = [source], [target]
        forward, backward = self.adjacency, self.reverse()
        while front and back and found is None:
            if len(front) <= len(back):
                front, found = _ring(front, forward, ahead, behind)
            else:
                back, found = _ring(back, backward, behind, ahead)
        return found

    def closest(self, source: str, targets: Container[str]) -> tuple[int, list[str]] | None:
        """The distance from ``source`` to the nearest of ``targets`` and every target
        at that distance (sorted); None if none can be reached. One breadth-first
        search that finishes the first ring holding a target and stops there."""
        if source not in self.adjacency:
            return None
        if source in targets:
            self.visited += 1
            return 0, [source]
        adjacency = self.adjacency
        seen = {source}
        frontier = [source]
        depth = 0
        while frontier:
            depth += 1
            self.visited += len(frontier)
            found: list[str] = []
            outer: list[str] = []
            for here in frontier:
                for there, _ in adjacency.get(here, ()):
                    if there not in seen:
                        seen.add(there)
                        outer.append(there)
                        if there in targets:
                            found.append(there)
            if found:
                return depth, sorted(found)
            frontier = outer
        return None

    def reverse(self) -> Adjacency:
        """room -> [(room with an exit leading here, that exit's name)]."""
        if self._reverse is None:
            back: Adjacency = {room: [] for room in self.adjacency}
            for here, links in self.adjacency.items():
                for there, name in links:
                    back.setdefault(there, []).append((here, name))
            self._reverse = back
        return self._reverse

    def nearest_labels(self, labels: Mapping[str, str]) -> dict[str, tuple[int, str]]:
        """For every room that can reach one of the labelled rooms: the distance to
        the nearest and, of those at that distance, the smallest label. One search
        outwards from all labelled rooms at once, walking the exits backwards; ring
        by ring, a room takes the smallest label of its ring's rooms it leads to,
        which is the smallest of the labelled rooms at its distance."""
        back = self.reverse()
        best: dict[str, tuple[int, str]] = {
            room: (0, label) for room, label in labels.items() if room in self.adjacency
        }
        frontier = sorted(best)
        depth = 0
        while frontier:
            depth += 1
            self.visited += len(frontier)
            ring: dict[str, str] = {}
            for here in frontier:
                label = best[here][1]
                for there, _ in back.get(here, ()):
                    if there in best:
                        continue
                    held = ring.get(there)
                    if held is None or label < held:
                        ring[there] = label
            for room, label in ring.items():
                best[room] = (depth, label)
            frontier = list(ring)
        return best

    def path(self, source: str, target: str) -> list[str] | None:
        """Exit names of a shortest walk ([] if the same room); None: no way."""
        paths = self._paths
        key = (source, target)
        if key in paths:
            paths.move_to_end(key)
            found = paths[key]
            return None if found is None else list(found)
        tree = self.search(source, target)
        steps: list[str] | None = None
        if tree is not None:
            steps = []
            here = target
            while (link := tree[here]) is not None:
                here, name = link
                steps.append(name)
            steps.reverse()
        paths[key] = None if steps is None else tuple(steps)
        if len(paths) > PATH_CACHE_SIZE:
            paths.popitem(last=False)
        return steps


def _ring(
    frontier: list[str], links: Adjacency, mine: dict[str, int], theirs: Mapping[str, int]
) -> tuple[list[str], int | None]:
    """One side of a two-ended search a ring further: the next ring, and the
    shortest walk through a room the other side had reached (None: no meeting)."""
    depth = mine[frontier[0]] + 1
    best: int | None = None
    outer: list[str] = []
    for here in frontier:
        for there, _ in links.get(here, ()):
            if there in mine:
                continue
            mine[there] = depth
            other = theirs.get(there)
            if other is not None and (best is None or depth + other < best):
                best = depth + other
            outer.append(there)
    return outer, best
