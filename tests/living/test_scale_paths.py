"""The living layer's shortcuts for big worlds behave like the plain walks they
replaced: sliced cycles, the spawned NPC's template lookup, hostile members."""

from __future__ import annotations

import random
from pathlib import Path
from uuid import UUID

from kits.engines import living_of
from living.livingkit import hamlet_pack, make_engine, npc

from maid_engine.clock import GAME_HOUR
from maid_engine.ecs import Component
from maid_engine.engine import GameEngine
from maid_stdlib.living import api
from maid_stdlib.living.autonomy import _Sliced
from maid_stdlib.living.components import FactionMembership, NeedsComponent, Relationships
from maid_stdlib.living.conditions import Evaluation
from maid_stdlib.living.facts import Hostile
from maid_stdlib.living.seeding import first_npc_lookup, npc_index
from maid_stdlib.world import WorldService
from maid_stdlib.world.components import NPC


class _Probe(_Sliced):
    """Records (member, hours) of each visit."""

    member_types: tuple[type[Component], ...] = (NeedsComponent, Relationships)

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.visits: list[tuple[UUID, float]] = []

    def visit(self, ev: Evaluation, uid: UUID, hours: float, now: float) -> None:
        self.visits.append((uid, hours))


async def _probe(engine: GameEngine) -> _Probe:
    probe = _Probe(living_of(engine))
    probe.bind(engine)
    await probe.startup()
    return probe


async def _cycle(engine: GameEngine, probe: _Probe) -> list[tuple[UUID, float]]:
    probe.visits.clear()
    engine.clock.skip(probe.interval)  # type: ignore[attr-defined]
    await probe.update(probe.interval)
    while probe._queue:
        await probe.update(0.0)
    return list(probe.visits)


async def test_a_holder_of_two_member_types_is_visited_once_a_cycle(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        smith = npc(engine, "hollin")
        api.adjust_relationship(engine.world, smith, npc(engine, "pell"), trust=0.1)
        assert engine.world.has_component(smith, NeedsComponent)
        probe = await _probe(engine)
        visits = await _cycle(engine, probe)
        assert [u for u, _ in visits].count(smith) == 1
        assert [u for u, _ in visits] == probe.members()


async def test_each_visit_covers_the_time_since_the_last_and_newcomers_the_cycle(
    tmp_path: Path,
) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        probe = await _probe(engine)
        hours = probe.interval / GAME_HOUR
        first = await _cycle(engine, probe)
        assert first
        assert all(h == hours for _, h in first)
        trader = npc(engine, "pell")
        api.adjust_relationship(engine.world, trader, npc(engine, "hollin"), trust=0.1)
        second = dict(await _cycle(engine, probe))
        assert second[trader] == 0.0  # joined during the cycle: counted from its start
        assert all(h == hours for u, h in second.items() if u != trader)
        # Out for a cycle, then back: a newcomer again, not two cycles' worth.
        engine.world.remove_component(trader, Relationships)
        assert trader not in dict(await _cycle(engine, probe))
        api.adjust_relationship(engine.world, trader, npc(engine, "hollin"), trust=0.1)
        assert dict(await _cycle(engine, probe))[trader] == 0.0


async def test_the_template_lookup_of_a_spawn_agrees_with_the_whole_index(
    tmp_path: Path,
) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living = living_of(engine)
        index = npc_index(living)
        first = first_npc_lookup(living)
        for template, uids in index.items():
            assert first(template) == uids[0]
        assert first("hamlet:nobody") is None
        # The data-spawned bandit gone, the other one answers, as in the index.
        bandit = npc(engine, "wolf")
        engine.world.destroy_entity(bandit)
        engine.world.flush_destroyed()
        assert first_npc_lookup(living)("hamlet:wolf") == npc_index(living)["hamlet:wolf"][0]


async def test_who_joins_a_hostile_faction_later_is_a_threat_in_world_order(
    tmp_path: Path,
) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living, world = living_of(engine), engine.world
        before = living.threat_map()
        trader = npc(engine, "pell")
        assert trader not in before.ids
        api.join_faction(world, trader, "bandits")
        living.invalidate_threats()
        after = living.threat_map()
        assert trader in after.ids
        plain = [
            (u, f)
            for u, m in world.each(FactionMembership)
            for f in [next((f for f in m.factions if f == "bandits"), None)]
            if f
        ]
        assert list(living._hostile_faction_threats(world)) == plain
        # Destroyed members drop out.
        world.destroy_entity(trader)
        living.invalidate_threats()
        assert trader not in living.threat_map().ids


def _change_threat_facts(engine: GameEngine, rng: random.Random, uid: UUID) -> None:
    """One random change to what makes ``uid`` a threat: a faction joined or left,
    a Hostile marker given, switched or taken away, a move, or leaving the world."""
    world, ws = engine.world, engine.services.get(WorldService)
    change = rng.randrange(8)
    if change == 0:
        api.join_faction(world, uid, rng.choice(["bandits", "villagers"]))
    elif change == 1:
        membership = world.try_component(uid, FactionMembership)
        if membership is not None and membership.factions:
            membership.factions.pop(sorted(membership.factions)[0])
            world.modified(uid, membership)
    elif change == 2:
        world.add_component(uid, Hostile(source="wolves", active=rng.random() < 0.7))
    elif change == 3:
        marker = world.try_component(uid, Hostile)
        if marker is not None:
            marker.active = not marker.active
            world.modified(uid, marker)
    elif change == 4:
        world.remove_component(uid, Hostile)
    elif change == 5:
        world.remove_component(uid, FactionMembership)
    elif change == 6 and rng.random() < 0.3:
        ws.remove_from_world(uid)  # nowhere: no threat to anyone
    else:
        ws.place(uid, rng.choice(ws.room_keys()))


async def test_asking_about_one_entity_agrees_with_the_map_and_builds_none(
    tmp_path: Path,
) -> None:
    """With the threat map out of date, ``is_threat`` asks the providers' checks:
    the same answer as the rebuilt map's, and no map is built."""
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living, world = living_of(engine), engine.world
        rng = random.Random(8)
        people = [uid for uid, _ in world.each(NPC)]
        threats_seen = 0
        for _step in range(60):
            _change_threat_facts(engine, rng, rng.choice(people))
            living.invalidate_threats()
            asked = {uid: living.is_threat(uid) for uid in people}
            assert living._threats is None  # no map was built to answer
            truth = living.threat_map().ids
            assert asked == {uid: uid in truth for uid in people}
            threats_seen += len(truth & set(people))
        assert threats_seen > 0
        # The destroyed (scheduled or done) are no threat.
        gone = next(uid for uid in people if living.is_threat(uid))
        world.destroy_entity(gone)
        living.invalidate_threats()
        assert not living.is_threat(gone)
        world.flush_destroyed()
        living.invalidate_threats()
        assert not living.is_threat(gone)


async def test_the_kept_threat_map_follows_markers_and_memberships(tmp_path: Path) -> None:
    """Nobody calls ``invalidate_threats`` here: giving, taking away, replacing or
    reporting ``modified`` a Hostile marker or a faction membership (and moves,
    through their events) keep the cached map equal to one built afresh."""
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living, world = living_of(engine), engine.world
        rng = random.Random(21)
        people = [uid for uid, _ in world.each(NPC)]

        def afresh() -> set[UUID]:
            kept = living._threats
            living.invalidate_threats()
            ids = set(living.threat_map().ids)
            living._threats = kept
            return ids

        changes = 0
        for _step in range(120):
            living.threat_map()  # kept from here on
            _change_threat_facts(engine, rng, rng.choice(people))
            await engine.dispatch_events()  # a move is told by its event
            before = living._threats
            truth = afresh()
            changes += before is None
            assert set(living.threat_map().ids) == truth
        assert changes > 10  # the map was dropped, not rebuilt every step

        # The plain story: a smith's rage passes, a trader turns bandit.
        smith, trader = npc(engine, "hollin"), npc(engine, "pell")
        ws = engine.services.get(WorldService)
        for uid in (smith, trader):  # the shuffle may have taken them out of the world
            ws.place(uid, ws.room_keys()[0])
        await engine.dispatch_events()
        world.add_component(smith, FactionMembership())
        world.add_component(smith, Hostile(source="rage"))
        assert smith in living.threat_map().ids
        world.remove_component(smith, Hostile)
        assert smith not in living.threat_map().ids
        world.remove_component(trader, Hostile)
        world.remove_component(trader, FactionMembership)
        assert trader not in living.threat_map().ids
        api.join_faction(world, trader, "bandits")
        assert trader in living.threat_map().ids


def test_due_walkers_come_in_the_order_of_the_travel_table() -> None:
    """The heap of next steps finds exactly the walkers a scan of ``_travel`` would,
    in its order, through arbitrary re-plans, stops and steps."""
    import random
    from uuid import uuid4

    from maid_stdlib.living.schedule import ScheduleSystem

    rng = random.Random(3)
    system = ScheduleSystem.__new__(ScheduleSystem)
    ScheduleSystem.__init__(system, None)  # type: ignore[arg-type]
    walkers = [uuid4() for _ in range(40)]
    now = 0.0
    for _ in range(400):
        op = rng.random()
        uid = rng.choice(walkers)
        if op < 0.5:
            system._go(uid, rng.choice("abc"), now + rng.choice((0.0, 1.0, 2.5, 7.0)))
        elif op < 0.65:
            system._stop(uid)
        else:
            now += rng.choice((0.5, 1.0, 3.0))
            expected = [(u, t) for u, (t, at) in system._travel.items() if at <= now]
            assert system._take_due(now) == expected
            for u, t in expected:  # stepped: the next step is later
                system._go(u, t, now + 2.0)
