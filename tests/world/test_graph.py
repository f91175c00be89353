"""RoomGraph (maid_stdlib.world.graph) and the WorldService queries built on it:
reachability, shortest paths and their cache, rooms of an area / region."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from kits.engines import ws_of
from world.worldkit import make_engine

from maid_engine.engine import GameEngine
from maid_stdlib.world import Area, Exits, Room
from maid_stdlib.world import graph as graph_module
from maid_stdlib.world.graph import Adjacency, RoomGraph

# -- RoomGraph on random graphs ---------------------------------------------------------


def random_adjacency(rng: random.Random, n: int = 30) -> Adjacency:
    """One-way exits, self loops, parallel exits, an island of rooms nothing enters or
    leaves, a pair only reachable one way, and an exit to a room that has no row."""
    rooms = [f"r{i}" for i in range(n)]
    adjacency: Adjacency = {room: [] for room in rooms}
    main = rooms[: n - 6]
    for room in main:
        for k in range(rng.randrange(0, 4)):
            adjacency[room].append((rng.choice(main), f"e{k}"))
    adjacency[main[0]].append((main[0], "loop"))  # a self loop
    adjacency[main[1]].append((main[2], "twin"))  # parallel to any other exit
    adjacency[main[3]].append((rooms[n - 6], "down"))  # one way into a pocket
    adjacency[rooms[n - 6]].append((rooms[n - 5], "on"))
    adjacency[rooms[n - 5]].append((rooms[n - 6], "back"))
    adjacency[rooms[n - 5]].append(("ghost", "void"))  # a target with no row of its own
    adjacency[rooms[n - 4]].append((rooms[n - 4], "loop"))  # islands: n-4 .. n-1
    adjacency[rooms[n - 3]].append((rooms[n - 2], "x"))
    return adjacency


def bfs_distances(adjacency: Adjacency, source: str) -> dict[str, int]:
    dist = {source: 0}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        for there, _ in adjacency.get(here, ()):
            if there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


def walk(adjacency: Adjacency, source: str, steps: list[str]) -> str:
    here = source
    for name in steps:
        exits = {exit_name: target for target, exit_name in adjacency.get(here, ())}
        assert name in exits, f"{here} has no exit {name!r}"
        here = exits[name]
    return here


def all_nodes(adjacency: Adjacency) -> list[str]:
    return sorted({*adjacency, *(t for edges in adjacency.values() for t, _ in edges)})


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42])
def test_reachability_agrees_with_search_and_a_plain_bfs(seed: int) -> None:
    adjacency = random_adjacency(random.Random(seed))
    graph = RoomGraph(adjacency)
    nodes = all_nodes(adjacency)
    reach = {a: bfs_distances(adjacency, a) for a in nodes}
    unreachable = 0
    for a in nodes:
        for b in nodes:
            expected = b in reach[a]
            assert graph.is_reachable(a, b) is expected, (a, b)
            assert (graph.search(a, b) is not None) is expected, (a, b)
            unreachable += not expected
    assert unreachable > 0  # the islands make sure of it


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42])
def test_components_are_the_sets_of_mutually_reachable_rooms(seed: int) -> None:
    adjacency = random_adjacency(random.Random(seed))
    comps = RoomGraph(adjacency).components()
    nodes = all_nodes(adjacency)
    reach = {a: bfs_distances(adjacency, a) for a in nodes}
    assert set(comps) == set(nodes)
    for a in nodes:
        for b in nodes:
            mutual = b in reach[a] and a in reach[b]
            assert (comps[a] == comps[b]) is mutual, (a, b)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42])
def test_paths_are_shortest_and_lead_to_the_target(seed: int) -> None:
    adjacency = random_adjacency(random.Random(seed))
    graph = RoomGraph(adjacency)
    nodes = all_nodes(adjacency)
    longest = 0
    for a in nodes:
        dist = bfs_distances(adjacency, a)
        for b in nodes:
            steps = graph.path(a, b)
            if b not in dist:
                assert steps is None, (a, b)
                continue
            assert steps is not None, (a, b)
            assert len(steps) == dist[b], (a, b)
            assert walk(adjacency, a, steps) == b
            longest = max(longest, len(steps))
    assert graph.path("r0", "r0") == []
    assert longest >= 3  # the graphs are not trivially shallow


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42])
def test_a_bounded_distance_is_the_shortest_one_or_none_past_the_limit(seed: int) -> None:
    adjacency = random_adjacency(random.Random(seed))
    nodes = all_nodes(adjacency)
    for limit in (None, 0, 1, 2, 3, 50):
        graph = RoomGraph(adjacency)  # a fresh cache: the bounded search itself runs
        for a in nodes:
            dist = bfs_distances(adjacency, a)
            for b in nodes:
                expected = dist.get(b)
                if expected is not None and limit is not None and expected > limit:
                    expected = None
                assert graph.distance(a, b, limit) == expected, (a, b, limit)
    # A cached path answers too, within the limit or not.
    graph = RoomGraph({"a": [("b", "east")], "b": [("c", "north")], "c": []})
    assert graph.path("a", "c") == ["east", "north"]
    assert graph.distance("a", "c", 2) == 2
    assert graph.distance("a", "c", 1) is None


def test_a_bounded_distance_does_not_walk_past_its_limit() -> None:
    """A long corridor: asking whether the far end is within 3 rooms looks at the
    first few rooms only, and remembers nothing."""
    n = 1000
    adjacency: Adjacency = {f"r{i}": [(f"r{i + 1}", "east")] for i in range(n)}
    looked: list[str] = []

    class Watched(dict[str, list[tuple[str, str]]]):
        def get(self, key: str, default: Any = None) -> Any:
            looked.append(key)
            return super().get(key, default)

    graph = RoomGraph(Watched(adjacency))
    assert graph.distance("r0", f"r{n - 1}", 3) is None
    assert looked == ["r0", "r1", "r2"]
    assert graph.distance("r0", "r3", 3) == 3
    assert graph._paths == {}


def tree_of_roads(depth: int) -> Adjacency:
    """A binary tree of two-way roads: node n leads to 2n+1 and 2n+2 and back."""
    adjacency: Adjacency = {}
    for n in range(2 ** (depth + 1) - 1):
        links = adjacency.setdefault(f"r{n}", [])
        if n:
            links.append((f"r{(n - 1) // 2}", "up"))
        if 2 * n + 2 < 2 ** (depth + 1) - 1:
            links += [(f"r{2 * n + 1}", "left"), (f"r{2 * n + 2}", "right")]
    return adjacency


def watched(
    adjacency: Adjacency, zones: dict[str, str] | None = None
) -> tuple[RoomGraph, list[str]]:
    """A graph over ``adjacency`` and the rooms whose exits it has looked up
    forwards (the backward search reads the exits' reverse, built once)."""
    looked: list[str] = []

    class Watched(dict[str, list[tuple[str, str]]]):
        def get(self, key: str, default: Any = None) -> Any:
            looked.append(key)
            return super().get(key, default)

    return RoomGraph(Watched(adjacency), zones), looked


def test_a_distance_without_zones_is_searched_from_both_ends() -> None:
    """From one leaf of a tree to the far side, a search from one end walks most of
    the tree; the distance searches from both ends, a few rooms each."""
    graph, looked = watched(tree_of_roads(9))  # 1023 rooms; leaves r511 .. r1022
    assert graph.distance("r511", "r1022") == 18
    assert len(looked) < 100, len(looked)
    assert graph.search("r511", "r1022") is not None  # one end: most of the tree
    assert len(looked) > 700
    assert graph._paths == {}  # a length is not a path
    assert graph.distance("r1022", "r1022") == 0
    assert graph.distance("r1022", "nowhere") is None


def test_a_repeated_path_is_an_equal_but_distinct_list() -> None:
    graph = RoomGraph({"a": [("b", "east")], "b": [("c", "north")], "c": []})
    first = graph.path("a", "c")
    assert first == ["east", "north"]
    first.append("mutated")  # callers may change what they got
    second = graph.path("a", "c")
    assert second == ["east", "north"]
    assert second is not first
    second.clear()
    assert graph.path("a", "c") == ["east", "north"]
    assert graph.path("c", "a") is None
    assert graph.path("c", "a") is None


def counting(graph: RoomGraph) -> list[tuple[str, str]]:
    """Record every search the graph runs (path() calls it on a cache miss)."""
    calls: list[tuple[str, str]] = []
    search = graph.search

    def counted(source: str, target: str) -> Any:
        calls.append((source, target))
        return search(source, target)

    graph.search = counted  # type: ignore[method-assign]
    return calls


def test_the_path_cache_is_bounded_and_least_recently_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(graph_module, "PATH_CACHE_SIZE", 3)
    adjacency: Adjacency = {f"r{i}": [(f"r{i + 1}", "next")] for i in range(10)}
    graph = RoomGraph(adjacency)
    calls = counting(graph)
    for target in ("r1", "r2", "r3"):
        graph.path("r0", target)
    assert len(calls) == 3
    graph.path("r0", "r1")  # a hit: r1 becomes the most recent
    graph.path("r0", "r9")  # unreachable answers are cached too
    assert len(calls) == 4
    assert len(graph._paths) == 3
    graph.path("r0", "r9")
    graph.path("r0", "r1")
    graph.path("r0", "r3")
    assert len(calls) == 4  # all three still remembered
    graph.path("r0", "r2")  # evicted when r9 came in
    assert calls[-1] == ("r0", "r2")
    assert len(calls) == 5
    assert len(graph._paths) <= 3


# -- through WorldService -------------------------------------------------------------


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started engine with only the stdlib (overrides the package's fixture): each
    test builds its own rooms."""
    async with make_engine(tmp_path, packs=["stdlib"]).lifespan() as started:
        yield started


def add_area(engine: GameEngine, key: str, region: str = "") -> UUID:
    uid = engine.world.create_entity(Area(key=key, name=key, region=region))
    ws_of(engine).register_area(uid)
    return uid


def create_room(engine: GameEngine, key: str, area: str = "", **exits: str) -> UUID:
    return engine.world.create_entity(Room(key=key, name=key, area=area), Exits(dict(exits)))


def add_room(engine: GameEngine, key: str, area: str = "", **exits: str) -> UUID:
    uid = create_room(engine, key, area, **exits)
    ws_of(engine).register_room(uid)
    return uid


async def test_paths_follow_set_exit_and_remove_exit(engine: GameEngine) -> None:
    ws = ws_of(engine)
    add_room(engine, "a", east="b")
    add_room(engine, "b", west="a")
    ws.register_room(engine.world.create_entity(Room(key="c", name="c")))  # no Exits
    assert ws.path("a", "c") is None
    assert not ws.is_reachable("a", "c")
    built = ws.graph()
    assert ws.graph() is built  # kept while nothing changes

    ws.set_exit("b", "north", "c")
    assert ws.graph() is not built  # rebuilt
    assert ws.path("a", "c") == ["east", "north"]
    assert ws.distance("a", "c") == 2
    assert ws.distance("a", "c", 1) is None
    assert ws.is_reachable("a", "c")
    assert not ws.is_reachable("c", "a")
    ws.set_exit("a", "portal", "c")
    assert ws.distance("a", "c", 1) == 1
    assert ws.path("a", "c") == ["portal"]
    ws.set_exit("c", "up", "a")  # c had no Exits component
    assert ws.path("c", "b") == ["up", "east"]
    assert ws.is_reachable("c", "b")

    assert ws.remove_exit("a", "portal")
    assert ws.path("a", "c") == ["east", "north"]
    assert ws.remove_exit("b", "north")
    assert ws.path("a", "c") is None
    assert not ws.is_reachable("a", "c")
    assert not ws.remove_exit("b", "north")
    assert ws.is_reachable("c", "a")
    assert ws.path("a", "nowhere") is None
    assert not ws.is_reachable("nowhere", "a")
    assert ws.distance("a", "nowhere") is None
    assert ws.distance("nowhere", "a", 9) is None


async def test_an_exit_to_a_room_registered_later_opens_when_it_is(engine: GameEngine) -> None:
    ws = ws_of(engine)
    add_room(engine, "a", door="later", east="b")
    add_room(engine, "b")
    assert ws.path("a", "b") == ["east"]  # the graph is built without "later"
    add_room(engine, "later", back="a")
    assert ws.path("a", "later") == ["door"]
    assert ws.path("later", "b") == ["back", "east"]


async def test_a_destroyed_room_leaves_the_graph(engine: GameEngine) -> None:
    ws = ws_of(engine)
    add_room(engine, "a", east="b", south="d")
    middle = add_room(engine, "b", east="c")
    add_room(engine, "c")
    add_room(engine, "d", east="e")
    add_room(engine, "e", north="c")
    assert ws.path("a", "c") == ["east", "east"]
    engine.world.destroy_entity(middle)
    await engine.dispatch_events()
    assert not ws.has_room("b")
    assert ws.path("a", "c") == ["south", "east", "north"]
    assert ws.path("a", "b") is None


async def test_invalidate_paths_after_a_direct_exits_edit(engine: GameEngine) -> None:
    ws = ws_of(engine)
    a = add_room(engine, "a", east="b")
    add_room(engine, "b")
    add_room(engine, "c")
    assert ws.path("a", "c") is None
    engine.world.get_component(a, Exits).exits["gate"] = "c"
    ws.invalidate_paths()
    assert ws.path("a", "c") == ["gate"]


async def test_rooms_of_area_and_region_in_registration_order(engine: GameEngine) -> None:
    ws = ws_of(engine)
    add_area(engine, "t:north", "r1")
    add_area(engine, "t:south", "r1")
    add_area(engine, "t:east", "r2")
    add_area(engine, "t:lone")  # no region
    # Created in one order, registered in another: registration decides.
    spec = [
        ("n1", "t:north"),
        ("s1", "t:south"),
        ("n2", "t:north"),
        ("e1", "t:east"),
        ("s2", "t:south"),
        ("l1", "t:lone"),
        ("x1", ""),
    ]
    created = {key: create_room(engine, key, area) for key, area in reversed(spec)}
    for key, _ in spec:
        ws.register_room(created[key])

    assert ws.rooms_of_area("t:north") == ["n1", "n2"]
    assert ws.rooms_of_area("t:south") == ["s1", "s2"]
    assert ws.rooms_of_area("t:lone") == ["l1"]
    assert ws.rooms_of_area("t:nowhere") == []
    assert ws.rooms_in_region("r1") == ["n1", "s1", "n2", "s2"]
    assert ws.rooms_in_region("r2") == ["e1"]
    assert ws.rooms_in_region("") == []
    ws.rooms_of_area("t:north").append("junk")  # copies: callers may change them
    ws.rooms_in_region("r1").clear()
    assert ws.rooms_of_area("t:north") == ["n1", "n2"]
    assert ws.rooms_in_region("r1") == ["n1", "s1", "n2", "s2"]

    add_room(engine, "n3", "t:north")
    assert ws.rooms_of_area("t:north") == ["n1", "n2", "n3"]
    assert ws.rooms_in_region("r1") == ["n1", "s1", "n2", "s2", "n3"]

    engine.world.destroy_entity(created["n1"])
    await engine.dispatch_events()
    assert ws.rooms_of_area("t:north") == ["n2", "n3"]
    assert ws.rooms_in_region("r1") == ["s1", "n2", "s2", "n3"]


async def test_an_area_registered_after_its_rooms_joins_its_region(engine: GameEngine) -> None:
    ws = ws_of(engine)
    add_room(engine, "p1", "t:late")
    add_room(engine, "p2", "t:late")
    assert ws.rooms_of_area("t:late") == ["p1", "p2"]
    assert ws.rooms_in_region("r3") == []
    area = add_area(engine, "t:late", "r3")
    assert ws.rooms_in_region("r3") == ["p1", "p2"]
    engine.world.destroy_entity(area)
    await engine.dispatch_events()
    assert ws.rooms_in_region("r3") == []
    assert ws.rooms_of_area("t:late") == ["p1", "p2"]  # rooms still name their area
