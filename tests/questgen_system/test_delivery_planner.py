"""The delivery planner at scale: the same deliveries as a planner that walks every
gossip-carrying NPC and searches a path to each, for every character, without doing
that work -- planning a quest for many characters reads each carrier once."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

import pytest
from kits.quests import simple_quest
from questgen_system.qskit import pipeline_of

from classic_rpg.components import Health
from maid_engine.engine import GameEngine
from maid_stdlib.living.gossip import KnownGossip, inject
from maid_stdlib.questgen.challenge import NEUTRAL_CHALLENGE
from maid_stdlib.questgen.delivery import DeliveryPlanner, OpenQuest, QuestDelivery
from maid_stdlib.questgen.personalization import PlayerProfile, PlayStyle
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod
from maid_stdlib.world import WorldService
from maid_stdlib.world.components import NPC, Describable
from maid_stdlib.world.graph import RoomGraph

GOSSIP = "threat:wolves:hamlet:mill_road"


class QuadraticPlanner(DeliveryPlanner):
    """The planner as it was: for each character, every gossip-carrying NPC walked
    and a path searched to each. The reference for what must be delivered."""

    def gossips(self, oq: OpenQuest) -> list[UUID]:
        facts = self.facts
        out = []
        for uid, _known in facts.engine.world.each(KnownGossip):
            if (
                uid != oq.quest.quest_giver_id
                and facts.is_alive(uid)
                and facts.is_npc(uid)
                and self.gossip_about(uid, oq) is not None
            ):
                out.append(uid)
        return sorted(out)

    def nearest_teller(self, here: str | None, oq: OpenQuest) -> UUID | None:
        return self.nearest(here, self.gossips(oq))

    def talked_about(self, oq: OpenQuest) -> bool:
        return len(self.gossips(oq)) >= 2


def planner_of(engine: GameEngine) -> DeliveryPlanner:
    return pipeline_of(engine).stages.deliveries.planner


def ws_of(engine: GameEngine) -> WorldService:
    return engine.services.get(WorldService)


def the_quest(engine: GameEngine, importance: float) -> OpenQuest:
    quest = simple_quest(engine, importance=importance)
    return OpenQuest(quest, frozenset(topic_tokens("wolves")), frozenset({GOSSIP}))


def folk(engine: GameEngine, rng: random.Random, n: int) -> list[UUID]:
    """``n`` more villagers, each in a room drawn from the whole world."""
    ws, rooms = ws_of(engine), ws_of(engine).room_keys()
    made = []
    for i in range(n):
        uid = engine.world.create_entity(NPC(template="test:folk"), Describable(name=f"folk {i}"))
        ws.place(uid, rng.choice(rooms))
        made.append(uid)
    return made


def walkers(engine: GameEngine, rng: random.Random, n: int) -> list[UUID]:
    """``n`` characters standing about (planning reads only where they are)."""
    ws, rooms = ws_of(engine), ws_of(engine).room_keys()
    made = []
    for _ in range(n):
        uid = engine.world.create_entity()
        ws.place(uid, rng.choice(rooms))
        made.append(uid)
    return made


def profile(uid: UUID, style: PlayStyle = PlayStyle.COMBAT) -> PlayerProfile:
    return PlayerProfile(uid, NEUTRAL_CHALLENGE.standing_of(uid), style, [], [], {}, {}, [], 0.0)


def tell(engine: GameEngine, npcs: Iterable[UUID], content: str, statement: str) -> None:
    inject(engine.world, list(npcs), statement, content, engine.clock.game_time)


def everyone_silent(engine: GameEngine) -> None:
    for uid, _ in list(engine.world.each(KnownGossip)):
        engine.world.remove_component(uid, KnownGossip)


def plans(
    planner: DeliveryPlanner, oq: OpenQuest, chars: list[UUID], styles: list[PlayStyle]
) -> list[QuestDelivery]:
    return [planner.plan(oq, profile(c, s)) for c, s in zip(chars, styles, strict=True)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
async def test_the_same_deliveries_as_walking_every_npc(quiet: GameEngine, seed: int) -> None:
    engine, rng = quiet, random.Random(seed)
    everyone_silent(engine)
    villagers = folk(engine, rng, 30)
    chars = walkers(engine, rng, 25)
    styles = [rng.choice(list(PlayStyle)) for _ in chars]
    fast = planner_of(engine)
    slow = QuadraticPlanner(fast.facts, fast.policy)
    seen_methods = set()
    for round_ in range(4):
        # Some hear about the wolves (by statement, or only by topic word), some
        # hear about something else, a few die.
        tell(engine, rng.sample(villagers, rng.randint(0, 4)), "Wolves at the copse.", GOSSIP)
        tell(engine, rng.sample(villagers, 2), "A wolf took a lamb.", f"other:{round_}")
        tell(engine, rng.sample(villagers, 3), "The cider has gone sour.", f"cider:{round_}")
        for dead in rng.sample(villagers, 2):
            engine.world.add_component(dead, Health(current=0))
        for importance in (0.9, 0.5):
            oq = the_quest(engine, importance)
            expected = plans(slow, oq, chars, styles)
            assert plans(fast, oq, chars, styles) == expected
            seen_methods |= {d.method for d in expected}
        # Someone walks; the next round plans against the new places.
        ws_of(engine).place(rng.choice(chars), rng.choice(ws_of(engine).room_keys()))
    assert len(seen_methods) >= 3, seen_methods


async def test_a_teller_who_died_since_is_not_the_one_named(quiet: GameEngine) -> None:
    engine, rng = quiet, random.Random(11)
    everyone_silent(engine)
    villagers = folk(engine, rng, 12)
    chars = walkers(engine, rng, 6)
    tell(engine, villagers, "Wolves at the copse.", GOSSIP)
    fast = planner_of(engine)
    slow = QuadraticPlanner(fast.facts, fast.policy)
    oq = the_quest(engine, 0.9)
    rumours = 0
    for char in chars:
        planned = fast.plan(oq, profile(char))
        if planned.method is not QuestDeliveryMethod.RUMOR:
            continue  # standing before the giver
        rumours += 1
        first = planned.delivery_npc
        assert first is not None
        # A death moves nothing and changes no gossip: what was kept must not name him.
        engine.world.add_component(first, Health(current=0))
        after = fast.plan(oq, profile(char))
        assert after == slow.plan(oq, profile(char))
        assert after.delivery_npc != first
    assert rumours >= 4


async def test_gossip_lost_or_carriers_gone_are_noticed(quiet: GameEngine) -> None:
    engine, rng = quiet, random.Random(5)
    everyone_silent(engine)
    villagers = folk(engine, rng, 4)
    tell(engine, villagers, "Wolves at the copse.", GOSSIP)
    fast = planner_of(engine)
    oq = the_quest(engine, 0.9)
    assert fast.gossips(oq) == sorted(villagers)
    engine.world.remove_component(villagers[0], KnownGossip)
    engine.world.destroy_entity(villagers[1])
    engine.world.flush_destroyed()
    assert fast.gossips(oq) == sorted(villagers[2:])
    assert fast.carriers.about(oq) == set(villagers[2:])


def counting(obj: Any, name: str, counter: list[int], when: Callable[..., bool]) -> None:
    inner = getattr(obj, name)

    def wrapper(*args: Any, **kw: Any) -> Any:
        if when(*args, **kw):
            counter[0] += 1
        return inner(*args, **kw)

    setattr(obj, name, wrapper)


def npc_visits(engine: GameEngine, planner: DeliveryPlanner) -> list[int]:
    """Counts each look at one NPC on the planner's behalf: its gossip read, whether
    it is alive, the distance to its room."""
    counter = [0]
    counting(engine.world, "try_component", counter, lambda _e, ctype: ctype is KnownGossip)
    counting(planner.facts, "is_alive", counter, lambda _e: True)
    counting(planner.facts, "distance", counter, lambda *_a, **_k: True)
    return counter


@pytest.mark.parametrize("kind", ["indexed", "quadratic"])
async def test_planning_for_many_characters_reads_each_carrier_once(
    quiet: GameEngine, kind: str
) -> None:
    engine, rng = quiet, random.Random(3)
    everyone_silent(engine)
    carriers, players = 200, 40
    villagers = folk(engine, rng, carriers)
    tell(engine, villagers, "Wolves at the copse.", GOSSIP)
    chars = walkers(engine, rng, players)
    fast = planner_of(engine)
    planner = fast if kind == "indexed" else QuadraticPlanner(fast.facts, fast.policy)
    oq = the_quest(engine, 0.9)
    visits = npc_visits(engine, planner)
    graph = ws_of(engine).graph()
    graph.visited = 0
    for char in chars:
        planner.plan(oq, profile(char))
    # Each carrier read and checked once, then a few looks per character: linear
    # in carriers plus players, where the quadratic planner makes carriers x players.
    bound = 2 * carriers + 5 * players
    rooms = ws_of(engine).room_count
    if kind == "quadratic":
        assert visits[0] > players * carriers
        return
    assert visits[0] <= bound
    # One search from the first character, then one over the rooms for everyone.
    assert graph.visited <= 2 * rooms
    # Gossip that spreads afterwards is read for the ones it reached alone.
    visits[0] = 0
    tell(engine, villagers[:3], "More wolves by the ford.", "threat:wolves:ford")
    planner.plan(oq, profile(chars[0]))
    assert visits[0] <= 3 + carriers + 5


def brute(adjacency: dict[str, list[tuple[str, str]]], source: str, target: str) -> int | None:
    return RoomGraph(adjacency).distance(source, target)


@pytest.mark.parametrize("seed", range(8))
def test_closest_and_nearest_labels_agree_with_a_search_per_pair(seed: int) -> None:
    rng = random.Random(seed)
    rooms = [f"r{i}" for i in range(40)]
    adjacency: dict[str, list[tuple[str, str]]] = {
        r: [(t, f"to_{t}") for t in rng.sample(rooms, rng.randint(0, 3)) if t != r] for r in rooms
    }
    graph = RoomGraph(adjacency)
    labels = {r: f"n{rng.randint(0, 99):02d}" for r in rng.sample(rooms, 5)}
    field = graph.nearest_labels(labels)
    for source in rooms:
        ranked = sorted(
            (d, labels[t], t) for t in labels if (d := brute(adjacency, source, t)) is not None
        )
        got = graph.closest(source, labels)
        if not ranked:
            assert got is None
            assert source not in field
            continue
        best = ranked[0][0]
        assert got == (best, sorted(t for d, _, t in ranked if d == best))
        assert field[source] == (best, min(lab for d, lab, _ in ranked if d == best))
    assert graph.closest("nowhere", labels) is None
