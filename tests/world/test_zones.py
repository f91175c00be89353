"""ZoneRoutes (maid_stdlib.world.zones): distances through the zones' portals are the
shortest walks, for any split of the rooms, and a walk across the world costs
lookups, not a search."""

from __future__ import annotations

import random

import pytest
from world.test_graph import all_nodes, bfs_distances, random_adjacency, watched

from maid_stdlib.world import zones as zones_module
from maid_stdlib.world.graph import Adjacency, RoomGraph
from maid_stdlib.world.zones import ZoneRoutes


def grid_zones(zones: int, side: int) -> tuple[Adjacency, dict[str, str]]:
    """Zones of side x side rooms with two-way exits, in a chain: the last room of
    one leads to the first of the next and back (the benchmark world's shape)."""
    adjacency: Adjacency = {}
    zone_of: dict[str, str] = {}
    for z in range(zones):
        for i in range(side * side):
            room = f"z{z}_{i}"
            zone_of[room] = f"z{z}"
            row, col = divmod(i, side)
            links = adjacency.setdefault(room, [])
            for name, (r, c) in {
                "n": (row - 1, col),
                "s": (row + 1, col),
                "w": (row, col - 1),
                "e": (row, col + 1),
            }.items():
                if 0 <= r < side and 0 <= c < side:
                    links.append((f"z{z}_{r * side + c}", name))
        if z:
            adjacency[f"z{z - 1}_{side * side - 1}"].append((f"z{z}_0", "ne"))
            adjacency[f"z{z}_0"].append((f"z{z - 1}_{side * side - 1}", "sw"))
    return adjacency, zone_of


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42])
@pytest.mark.parametrize("count", [2, 3, 6, 30])
def test_distances_through_the_zones_are_the_shortest_walks(seed: int, count: int) -> None:
    """Random one-way exits, islands, a pocket and a room with no row, split into
    random zones (30: nearly a zone a room): every pair's distance is a plain
    breadth-first search's."""
    rng = random.Random(seed * 100 + count)
    adjacency = random_adjacency(rng)
    nodes = all_nodes(adjacency)
    zone_of = {room: f"zone{rng.randrange(count)}" for room in nodes}
    graph = RoomGraph(adjacency, zone_of)
    routes = graph.routes()
    assert routes is not None
    for a in nodes:
        dist = bfs_distances(adjacency, a)
        for b in nodes:
            assert routes.distance(a, b) == dist.get(b), (a, b)
            assert graph.distance(a, b) == dist.get(b), (a, b)


def test_a_walk_across_the_world_is_looked_up_not_searched() -> None:
    adjacency, zone_of = grid_zones(20, 10)  # 2,000 rooms
    graph, looked = watched(adjacency, zone_of)
    assert graph.routes() is not None
    del looked[:]
    # From inside the third zone to inside the seventeenth: 8 rooms to its far
    # corner, the thirteen zones between crossed corner to corner (18 rooms each,
    # and one more for each way in), one into the seventeenth, 8 rooms on.
    assert graph.distance("z2_55", "z16_44") == 8 + 13 * (1 + 18) + 1 + 8
    assert graph.distance("z16_44", "z2_55") == 8 + 13 * (1 + 18) + 1 + 8
    assert looked == []
    # Inside a zone, the zone alone is searched.
    assert graph.distance("z5_0", "z5_99") == 18
    assert 0 < len(looked) <= 100
    expected = bfs_distances(adjacency, "z0_0")
    assert all(graph.distance("z0_0", room) == expected[room] for room in adjacency)


def test_a_split_with_too_many_portals_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    adjacency, zone_of = grid_zones(5, 3)
    assert ZoneRoutes.build(adjacency, RoomGraph(adjacency).reverse(), zone_of) is not None
    # Each zone's corners lead on and back: 8 exit and 8 entry portals.
    monkeypatch.setattr(zones_module, "MAX_PORTALS", 15)
    graph = RoomGraph(adjacency, zone_of)
    assert graph.routes() is None
    assert graph.distance("z0_0", "z4_8") == bfs_distances(adjacency, "z0_0")["z4_8"]
    monkeypatch.setattr(zones_module, "MAX_PORTALS", 16)
    monkeypatch.setattr(zones_module, "ZONE_ROOMS", 16 * 9 - 1)  # each portal's zone: 9 rooms
    assert RoomGraph(adjacency, zone_of).routes() is None
    monkeypatch.setattr(zones_module, "ZONE_ROOMS", 16 * 9)
    assert RoomGraph(adjacency, zone_of).routes() is not None
    # One zone only: nothing to route through.
    assert RoomGraph(adjacency, dict.fromkeys(adjacency, "all")).routes() is None
    assert RoomGraph(adjacency).routes() is None
