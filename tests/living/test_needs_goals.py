"""Needs decay and recover under world conditions; goals form, block and unblock."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from kits.engines import living_of, ws_of
from living.livingkit import LIVING, hamlet_pack, make_engine, npc, run_hours

from maid_engine.ecs import World
from maid_engine.engine import GameEngine
from maid_stdlib.living import (
    GoalFormedEvent,
    GoalsComponent,
    GoalStatus,
    GoalStatusChangedEvent,
    NeedsComponent,
)
from maid_stdlib.living.conditions import ThreatMap, ThreatProvider
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world import data_uuid


def needs_of(engine: GameEngine, key: str) -> NeedsComponent:
    needs: NeedsComponent = engine.world.get_component(npc(engine, key), NeedsComponent)
    return needs


def living_data(**smith_needs: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(LIVING)
    data["npcs"]["hollin"]["needs"].update(smith_needs)
    return data


async def test_need_decays_per_game_hour(tmp_path: Path) -> None:
    data = living_data(rest={"value": 0.9, "decay": 0.1})
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        await run_hours(engine, 3)
        assert needs_of(engine, "hollin").value("rest") == pytest.approx(0.6)
        await run_hours(engine, 10)
        assert needs_of(engine, "hollin").value("rest") == 0.0  # clamped at the floor


async def test_company_satisfies_social_need(tmp_path: Path) -> None:
    data = living_data(
        social={
            "value": 0.5,
            "decay": 0.1,
            "satisfied_by": [{"when": "company", "rate": 0.3}],
        }
    )
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        await run_hours(engine, 2)  # alone in the mill: decays
        assert needs_of(engine, "hollin").value("social") == pytest.approx(0.3)
        ws_of(engine).move(npc(engine, "pell"), "hamlet:mill")
        await run_hours(engine, 2)  # in company: +0.3 - 0.1 per hour
        assert needs_of(engine, "hollin").value("social") == pytest.approx(0.7)


async def test_blocked_supply_makes_the_need_fall_faster(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        # Wolves stand in the copse, on the miller's supply route: +0.1/h decay.
        await run_hours(engine, 2)
        blocked = needs_of(engine, "hollin").value("economic")
        assert blocked == pytest.approx(0.7)
        for i in (1, 2):
            ws_of(engine).move(npc(engine, f"wolf#{i}"), "hamlet:wolf_den")
        await run_hours(engine, 2)
        # Clear road: recovers at 0.05/h.
        assert needs_of(engine, "hollin").value("economic") == pytest.approx(0.8)


async def test_goal_forms_blocks_unblocks_and_completes(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p")])
    formed: list[GoalFormedEvent] = []
    changes: list[GoalStatusChangedEvent] = []
    engine.events.subscribe(GoalFormedEvent, formed.append)
    engine.events.subscribe(GoalStatusChangedEvent, changes.append)
    async with engine.lifespan():
        smith = npc(engine, "hollin")
        assert engine.world.try_component(smith, GoalsComponent) is None
        await run_hours(engine, 6)  # 0.9 - 0.1/h crosses the 0.4 threshold
        goals = engine.world.get_component(smith, GoalsComponent)
        goal = goals.get("get_iron")
        assert goal is not None
        assert goal.type == "ACQUIRE"
        assert goal.need == "economic"
        assert [(e.npc_id, e.goal_id) for e in formed] == [(smith, "get_iron")]
        # The blocker is computed from who stands on the route right now.
        assert goal.status == GoalStatus.BLOCKED
        assert goal.blocker == "bandits at the Copse"
        assert goal.blocker_source == "bandits"
        assert goal.blocker_rooms == ["hamlet:road_copse"]
        assert goals.has_active_goals()
        memories = living_of(engine).memory.get_recent(smith, tags=["blocked"])
        assert memories
        assert "bandits at the Copse" in memories[0].content

        # Kill the bandits: the goal unblocks, progresses (0.5/h) and completes.
        for i in (1, 2):
            engine.world.destroy_entity(data_uuid("hamlet", "npc", f"wolf#{i}"))
        await engine.dispatch_events()
        await run_hours(engine, 0.5)
        assert goal.status == GoalStatus.ACTIVE
        assert goal.blocker is None
        before = needs_of(engine, "hollin").value("economic")
        await run_hours(engine, 2)
        assert goal.status == GoalStatus.DONE
        assert goal.progress == 1.0
        assert not goals.has_active_goals()
        assert needs_of(engine, "hollin").value("economic") > (before or 0) + 0.3
    kinds = [(c.old_status, c.new_status) for c in changes]
    assert kinds == [
        (GoalStatus.ACTIVE, GoalStatus.BLOCKED),
        (GoalStatus.BLOCKED, GoalStatus.ACTIVE),
        (GoalStatus.ACTIVE, GoalStatus.DONE),
    ]


async def test_goal_blocks_again_when_the_threat_returns(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        ws = ws_of(engine)
        bandits = [npc(engine, f"wolf#{i}") for i in (1, 2)]
        await run_hours(engine, 6)
        goal = engine.world.get_component(npc(engine, "hollin"), GoalsComponent).get("get_iron")
        assert goal is not None
        assert goal.status == GoalStatus.BLOCKED
        for b in bandits:  # off the route (the den is not on it)
            ws.move(b, "hamlet:wolf_den")
        await run_hours(engine, 0.25)
        assert goal.status == GoalStatus.ACTIVE
        ws.move(bandits[0], "hamlet:road_bridge")
        await run_hours(engine, 0.25)
        assert goal.status == GoalStatus.BLOCKED
        assert goal.blocker == "bandits at the Little Bridge"


async def test_a_hostile_marker_blocks_like_a_hostile_faction(tmp_path: Path) -> None:
    data = copy.deepcopy(LIVING)
    # No faction makes anyone hostile; Old Grey (in his den, off the supply route)
    # carries a Hostile marker of his own.
    data["npcs"]["wolf"] = {}
    data["npcs"]["old_grey"] = {"hostile": "wolves"}
    data["factions"]["wolves"] = {"name": "wolves"}
    # A goal given by data (not formed from a need) is blocked the same way.
    data["npcs"]["hollin"]["goals"] = [
        {
            "id": "get_iron",
            "description": "Get iron",
            "target": "iron",
            "blocked_when": ["supply_blocked"],
        }
    ]
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        from maid_stdlib.world import spawn_template

        await run_hours(engine, 1)
        goal = engine.world.get_component(npc(engine, "hollin"), GoalsComponent).get("get_iron")
        assert goal is not None
        assert goal.status == GoalStatus.ACTIVE
        # One of his kind spawned later gets its living data (the Hostile marker) on
        # arrival: on the route, it blocks.
        spawn_template(engine, "hamlet:old_grey", "hamlet:road_bridge")
        await engine.dispatch_events()
        await run_hours(engine, 0.25)
        assert goal.status == GoalStatus.BLOCKED
        assert goal.blocker == "wolves at the Little Bridge"


async def test_schedule_walks_room_by_room_at_the_hour(tmp_path: Path) -> None:
    from maid_stdlib.world import EntityRelocatedEvent

    data = copy.deepcopy(LIVING)
    data["npcs"]["hollin"]["schedule"] = [
        {"hour": 7, "room": "mill"},
        {"hour": 10, "room": "inn"},
    ]
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)])
    moves: list[EntityRelocatedEvent] = []
    engine.events.subscribe(EntityRelocatedEvent, moves.append)
    async with engine.lifespan():
        smith = npc(engine, "hollin")
        ws = ws_of(engine)
        await run_hours(engine, 1.9)  # 08:00 -> 09:54: still at work
        assert ws.room_key_of(smith) == "hamlet:mill"
        await run_hours(engine, 0.5)
        assert ws.room_key_of(smith) == "hamlet:inn"
        route = [(m.from_room, m.to_room, m.reason) for m in moves if m.entity_id == smith]
        assert route == [
            ("hamlet:mill", "hamlet:mill_lane", "schedule"),
            ("hamlet:mill_lane", "hamlet:green", "schedule"),
            ("hamlet:green", "hamlet:inn", "schedule"),
        ]
        await run_hours(engine, 21)  # 07:00 the next day: back to the mill
        assert ws.room_key_of(smith) == "hamlet:mill"


async def test_the_threat_map_changes_only_when_a_threat_moves_or_dies(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living, ws = living_of(engine), ws_of(engine)
        bandit = ws.npcs_in("hamlet:road_copse")[0]
        first = living.threat_map()
        assert living.is_threat(bandit)
        assert not living.is_threat(npc(engine, "hollin"))
        # Time passing and a villager walking about keep the cached map.
        await run_hours(engine, 0.25)
        ws.move(npc(engine, "hollin"), "hamlet:green")
        await engine.dispatch_events()
        assert living.threat_map() is first
        # A threat moving is seen at once.
        ws.move(bandit, "hamlet:road_bridge")
        await engine.dispatch_events()
        assert living.threat_map() is not first
        assert (bandit, "bandits") in living.threat_map().by_room["hamlet:road_bridge"]
        # So is a threat's death.
        second = living.threat_map()
        engine.world.destroy_entity(bandit)
        await engine.dispatch_events()
        assert not living.is_threat(bandit)
        assert living.threat_map() is not second


def _threat_state(threats: ThreatMap) -> object:
    groups = [(k, list(g.entities), list(g.rooms.items())) for k, g in threats.groups.items()]
    return threats.by_room, groups, threats.ids


def _counting_provider(living: LivingWorld) -> tuple[ThreatProvider, list[int]]:
    """A provider that names nobody (with a check), and the list of its askings."""
    asked: list[int] = []

    def counting(world: World) -> list[tuple[UUID, str]]:
        asked.append(1)
        return []

    living.threat_checks[counting] = lambda world, uid: False
    living.threat_providers.append(counting)
    living.invalidate_threats()
    return counting, asked


@pytest.mark.parametrize("change", ["death", "walk"])
async def test_a_threats_death_or_walk_keeps_the_map(tmp_path: Path, change: str) -> None:
    """A threat destroyed, or walking: the map is kept (less it, or with it where it
    went), the providers not asked again, and it reads as a rebuild would."""
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living, ws = living_of(engine), ws_of(engine)
        _, asked = _counting_provider(living)
        bandit = ws.npcs_in("hamlet:road_copse")[0]
        before = living.threat_map()
        assert bandit in before.ids
        if change == "death":
            engine.world.destroy_entity(bandit)
        else:
            ws.move(bandit, "hamlet:road_bridge")
        await engine.dispatch_events()
        kept = living.threat_map()
        assert kept is not before
        if change == "death":
            assert bandit not in kept.ids
        else:
            assert (bandit, "bandits") in kept.by_room["hamlet:road_bridge"]
        assert len(asked) == 1
        living.invalidate_threats()
        assert _threat_state(kept) == _threat_state(living.threat_map())
        assert len(asked) == 2


async def test_a_threats_walk_with_a_provider_without_a_check_rebuilds_the_map(
    tmp_path: Path,
) -> None:
    """Such a provider may name threats by where they stand: it is asked again."""
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living, ws = living_of(engine), ws_of(engine)
        counting, asked = _counting_provider(living)
        del living.threat_checks[counting]
        bandit = ws.npcs_in("hamlet:road_copse")[0]
        living.threat_map()
        ws.move(bandit, "hamlet:road_bridge")
        await engine.dispatch_events()
        assert (bandit, "bandits") in living.threat_map().by_room["hamlet:road_bridge"]
        assert len(asked) == 2


async def test_a_sliced_system_visits_everyone_once_per_cycle_in_small_slices(
    tmp_path: Path,
) -> None:

    from maid_stdlib.living.autonomy import _Sliced
    from maid_stdlib.living.conditions import Evaluation

    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        ids = [engine.world.create_entity() for _ in range(100)]
        seen: list[UUID] = []

        class Probe(_Sliced):
            def members(self) -> list[UUID]:
                return list(ids)

            def visit(self, ev: Evaluation, uid: UUID, hours: float, now: float) -> None:
                seen.append(uid)

        probe = Probe(living_of(engine))
        probe.bind(engine)
        await probe.startup()
        assert probe.min_batch == 32
        engine.clock.skip(probe.interval)  # type: ignore[attr-defined]
        slices = []
        for _ in range(5):
            await probe.update(1.0)
            slices.append(len(seen))
        assert slices == [32, 64, 96, 100, 100]
        assert sorted(seen) == sorted(ids)


async def test_a_sliced_system_caps_its_slice_and_takes_longer_over_a_big_cycle(
    tmp_path: Path,
) -> None:

    from maid_stdlib.living.autonomy import _Sliced
    from maid_stdlib.living.conditions import Evaluation

    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        ids = [engine.world.create_entity() for _ in range(200)]
        hours: dict[UUID, tuple[float, float]] = {}

        class Probe(_Sliced):
            def members(self) -> list[UUID]:
                return list(ids)

            def visit(self, ev: Evaluation, uid: UUID, h: float, now: float) -> None:
                hours[uid] = (h, now)

        probe = Probe(living_of(engine))
        probe.bind(engine)
        await probe.startup()
        assert probe.max_batch == 48
        start = engine.clock.game_time
        engine.clock.skip(probe.interval)  # type: ignore[attr-defined]
        # A third of the interval in one tick asks for 67 of the 200: the cap holds it
        # at 48, and the cycle goes on over the next ticks instead.
        slices = []
        for _ in range(5):
            await probe.update(probe.interval / 3)
            slices.append(len(hours))
            engine.clock.skip(probe.interval / 3)  # type: ignore[attr-defined]
        assert slices == [48, 96, 144, 192, 200]
        # Everyone was visited once, each with the exact game time since its last
        # visit (startup), however late in the stretched cycle its turn came.
        assert sorted(hours) == sorted(ids)
        assert all(h == pytest.approx((now - start) / 3600) for h, now in hours.values())
        assert max(now for _, now in hours.values()) == start + probe.interval * 7 / 3


async def test_a_sliced_system_stops_its_slice_once_it_has_worked_its_share_of_the_tick(
    tmp_path: Path,
) -> None:

    from maid_engine.clock import ManualClock
    from maid_stdlib.living.autonomy import _Sliced
    from maid_stdlib.living.conditions import Evaluation

    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        assert isinstance(engine.clock, ManualClock)
        clock: ManualClock = engine.clock
        assert engine.settings.tick_slice == 0.002
        ids = [engine.world.create_entity() for _ in range(20)]
        hours: dict[UUID, tuple[float, float]] = {}

        class Probe(_Sliced):
            def members(self) -> list[UUID]:
                return list(ids)

            def visit(self, ev: Evaluation, uid: UUID, h: float, now: float) -> None:
                hours[uid] = (h, now)
                clock.advance_wall(0.0007)  # a slow machine: 0.7 ms a visit

        probe = Probe(living_of(engine))
        probe.bind(engine)
        await probe.startup()
        start = clock.game_time
        clock.skip(probe.interval)
        slices = []
        for _ in range(8):
            await probe.update(1.0)
            slices.append(len(hours))
            clock.skip(1.0)
        # 32 are due a tick; the third visit spends the 2 ms share, and the rest of
        # the cycle waits for the next tick.
        assert slices == [3, 6, 9, 12, 15, 18, 20, 20]
        assert all(h == pytest.approx((now - start) / 3600) for h, now in hours.values())
        cut = engine.metrics.registry.get_sample_value(
            "maid_tick_slices_spent_total", {"system": "Probe"}
        )
        assert cut == 6


async def test_a_member_of_two_kinds_is_queued_once(tmp_path: Path) -> None:

    from maid_stdlib.living.autonomy import _Sliced
    from maid_stdlib.living.conditions import Evaluation

    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        world = engine.world
        both = [world.create_entity() for _ in range(40)]
        goals_only = [world.create_entity() for _ in range(5)]
        for uid in both:
            world.add_component(uid, NeedsComponent())
        for uid in [*goals_only, *both]:
            world.add_component(uid, GoalsComponent())
        visits: list[UUID] = []

        class Probe(_Sliced):
            member_types = (NeedsComponent, GoalsComponent)

            def visit(self, ev: Evaluation, uid: UUID, h: float, now: float) -> None:
                visits.append(uid)

        probe = Probe(living_of(engine))
        probe.bind(engine)
        await probe.startup()
        members = probe.members()
        # Those of the first kind first, then the rest of the second: each once.
        assert members == list(dict.fromkeys([*world.holders(NeedsComponent), *goals_only]))
        assert set(both) <= set(members)
        engine.clock.skip(probe.interval)  # type: ignore[attr-defined]
        await probe.update(probe.interval)
        assert probe._cycle_size == len(members)
        while probe._queue:
            await probe.update(1.0)
        assert visits == members
