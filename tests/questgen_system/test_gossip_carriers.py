"""The gossip carriers' index: the same answers as reading every NPC's gossip while
gossip spreads, is forgotten and its holders go; its memory grows with the kinds of
gossip, not with the copies; and the server builds it when it starts."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path
from uuid import UUID

import pytest
from questgen_system.qskit import make_engine
from questgen_system.test_delivery_planner import (
    GOSSIP,
    everyone_silent,
    folk,
    planner_of,
    tell,
    the_quest,
)

from maid_engine.engine import GameEngine
from maid_stdlib.living.gossip import KnownGossip, inject
from maid_stdlib.questgen.delivery import DeliveryPlanner, OpenQuest
from maid_stdlib.questgen.text import topic_tokens

STATEMENTS = [
    (GOSSIP, "Wolves at the copse."),
    ("threat:wolves:ford", "Wolves by the ford."),
    ("threat:bandits:road", "Bandits on the north road."),
    ("rumour:miller", "The miller hoards grain."),
    ("rumour:smith", "The smith has no iron left."),
]


def by_reading_everyone(engine: GameEngine, planner: DeliveryPlanner, oq: OpenQuest) -> set[UUID]:
    """Who carries gossip about ``oq``, found by reading every NPC's gossip."""
    return {
        uid
        for uid, _known in engine.world.each(KnownGossip)
        if planner.gossip_about(uid, oq) is not None
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_answers_agree_with_reading_every_npc(quiet: GameEngine, seed: int) -> None:
    engine, rng = quiet, random.Random(seed)
    world = engine.world
    everyone_silent(engine)
    people = folk(engine, rng, 40)
    planner = planner_of(engine)
    wolves = the_quest(engine, 0.9)
    quests = [
        wolves,
        OpenQuest(wolves.quest, frozenset(topic_tokens("bandits")), frozenset()),
        OpenQuest(wolves.quest, frozenset(), frozenset({"rumour:miller"})),
        OpenQuest(wolves.quest, frozenset(topic_tokens("iron grain")), frozenset()),
    ]
    for step in range(150):
        living = [uid for uid in people if world.entity_exists(uid)]
        action = rng.random()
        if action < 0.5:
            statement, content = rng.choice(STATEMENTS)
            secret = ("secret",) if rng.random() < 0.2 else ()
            inject(
                world, rng.sample(living, rng.randint(1, 8)), statement, content, step, tags=secret
            )
        elif action < 0.75:
            uid = rng.choice(living)
            known = world.try_component(uid, KnownGossip)
            if known is not None and known.items:
                del known.items[rng.choice(sorted(known.items))]
                world.modified(uid, known)
        elif action < 0.85:
            uid = rng.choice(living)
            if world.has_component(uid, KnownGossip):
                world.remove_component(uid, KnownGossip)
        elif action < 0.92 and len(living) > 10:
            world.destroy_entity(rng.choice(living))
            world.flush_destroyed()
        else:
            people += folk(engine, rng, 2)
        if step % 3 == 0:
            for oq in quests:
                assert planner.carriers.about(oq) == by_reading_everyone(engine, planner, oq)


def index_bytes(engine: GameEngine) -> int:
    """What a fresh index of the world's gossip holds, in bytes."""
    planner = DeliveryPlanner(planner_of(engine).facts, planner_of(engine).policy)
    oq = the_quest(engine, 0.9)
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        planner.carriers.about(oq)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert planner.carriers.reads >= 2000
    return sum(stat.size_diff for stat in after.compare_to(before, "filename"))


async def test_the_index_grows_with_the_kinds_of_gossip_not_the_copies(quiet: GameEngine) -> None:
    engine, rng = quiet, random.Random(11)
    everyone_silent(engine)
    people = folk(engine, rng, 2000)
    for statement, content in STATEMENTS[:3]:
        tell(engine, people, content, statement)
    tell(engine, people[::2], *reversed(STATEMENTS[3]))
    # An entry in the entity -> group map and one in its group's members: about 75
    # bytes a carrier. A set of holders for each key a carrier holds made it 1.9 KiB.
    assert index_bytes(engine) / len(people) < 300


async def test_the_server_indexes_the_gossip_when_it_starts(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        carriers = planner_of(engine).carriers
        holders = engine.world.count(KnownGossip)
        assert holders > 0
        assert carriers.reads == holders
        # The first question reads nobody again.
        planner_of(engine).gossips(the_quest(engine, 0.9))
        assert carriers.reads == holders
