"""Each of the 13 signal types, emitted from a constructed world with its 6.7 keys."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from kits.engines import living_of, ws_of
from living.livingkit import LIVING, hamlet_pack, make_engine, npc, run_hours, story_of

from maid_engine.engine import GameEngine
from maid_stdlib.living import EpisodicMemory, TradeGoods, api, gossip
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.story import REQUIRED_CONTEXT, StorySignal, StorySignalType
from maid_stdlib.story.detectors import ANY_SIGNAL
from maid_stdlib.world import data_uuid

T = StorySignalType


def room_id(key: str) -> str:
    return str(data_uuid("hamlet", "room", key))


def only(signals: list[StorySignal], signal_type: str) -> StorySignal:
    found = [s for s in signals if s.signal_type == signal_type]
    assert len(found) == 1, [s.signal_type for s in signals]
    signal = found[0]
    assert signal.missing_context() == []
    assert set(REQUIRED_CONTEXT[signal_type]) <= set(signal.context)
    assert 0.0 <= signal.importance <= 1.0
    assert signal.situation_key
    assert signal.chain_depth == 0
    return signal


_emitted: dict[int, list[StorySignal]] = {}


def detect(engine: GameEngine) -> list[StorySignal]:
    """Signals emitted since the last call: by the system's own passes during the
    ticks a test ran, and by one more pass now."""
    story_of(engine).detect_now()
    seen = _emitted.setdefault(id(engine), [])
    new = [s for s in story_of(engine).recent if s not in seen]
    seen.extend(new)
    return new


@pytest.fixture
async def engine(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[GameEngine]:
    data: dict[str, Any] = getattr(request, "param", None) or copy.deepcopy(LIVING)
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as started:
        yield started
    _emitted.pop(id(started), None)


async def test_threat_detected(engine: GameEngine) -> None:
    await run_hours(engine, 0.5)  # the smith's route crosses the bandits' road
    s = only(detect(engine), T.THREAT_DETECTED)
    assert s.context["threat_source"] == "bandits"
    assert s.context["threat_location"] == room_id("road_copse")  # where most of them stand
    assert s.context["threat_location_name"] == "The Copse"
    assert s.context["threat_count"] == 3
    assert s.band == "3-5"
    assert s.involved_npcs == [npc(engine, "hollin")]


async def test_goal_blocked_and_resource_scarcity(engine: GameEngine) -> None:
    await run_hours(engine, 6)
    signals = detect(engine)
    s = only(signals, T.GOAL_BLOCKED)
    smith = npc(engine, "hollin")
    assert s.context["npc_id"] == str(smith)
    assert s.involved_npcs == [smith]
    assert s.context["blocked_goal"] == "Get iron"
    assert s.context["blocker"] == "bandits at the Copse"
    assert s.context["threat_source"] == "bandits"
    assert s.context["blocker_location"] == room_id("road_copse")
    assert s.importance == pytest.approx(0.8)
    r = only(signals, T.RESOURCE_SCARCITY)
    assert r.context["resource_type"] == "iron"
    assert r.context["affected_npcs"] == [str(smith)]
    assert 0.0 < r.context["shortage_severity"] <= 1.0


def _crisis_data() -> dict[str, Any]:
    data = copy.deepcopy(LIVING)
    data["crises"] = [{"need": "safety", "below": 0.3, "min_npcs": 3, "crisis_type": "fear"}]
    for key in ("pell", "tamsin", "marta"):
        data["npcs"][key]["needs"] = {"safety": {"value": 0.1}}
    return data


@pytest.mark.parametrize("engine", [_crisis_data()], indirect=True)
async def test_crisis(engine: GameEngine) -> None:
    s = only(detect(engine), T.CRISIS)
    assert s.context["crisis_type"] == "fear"
    assert s.context["affected_area"] == str(data_uuid("hamlet", "area", "hamlet"))
    assert s.context["affected_area_name"] == "Ashford"
    assert len(s.context["affected_npcs"]) == 3
    assert s.context["severity"] == pytest.approx(0.5 * 1.0 + 0.5 * (1 - 0.1 / 0.3), abs=1e-3)


async def test_rivalry_escalation(engine: GameEngine) -> None:
    trader, keeper = npc(engine, "pell"), npc(engine, "marta")
    rel = api.adjust_relationship(engine.world, trader, keeper, trust=-0.4)
    rel.cause = "the keeper watered the trader's wine"
    s = only(detect(engine), T.RIVALRY_ESCALATION)
    assert (s.context["npc_a"], s.context["npc_b"]) == (str(trader), str(keeper))
    assert s.context["cause"] == "the keeper watered the trader's wine"
    assert s.context["trust_level"] == pytest.approx(-0.4)
    assert s.band == "0.3"


async def test_faction_tension(engine: GameEngine) -> None:
    api.adjust_faction_relation(engine.world, "village", "bandits", -0.7, "raids on the road")
    s = only(detect(engine), T.FACTION_TENSION)
    assert {s.context["faction_a"], s.context["faction_b"]} == {"village", "bandits"}
    assert s.context["tension_cause"] == "raids on the road"
    assert npc(engine, "old_grey") in s.involved_npcs  # the bandits' leader speaks for them


async def test_trade_opportunity(engine: GameEngine) -> None:
    trader = npc(engine, "pell")
    engine.world.add_component(trader, TradeGoods(offers=["iron"]))
    await run_hours(engine, 6)  # the smith now has an open ACQUIRE goal for iron
    s = only(detect(engine), T.TRADE_OPPORTUNITY)
    assert s.context["supply_npc"] == str(trader)
    assert s.context["demand_npc"] == str(npc(engine, "hollin"))
    assert s.context["item_type"] == "iron"
    assert s.context["demand_goal"] == "get_iron"


async def test_alliance_forming(engine: GameEngine) -> None:
    smith, keeper = npc(engine, "hollin"), npc(engine, "marta")
    api.adjust_relationship(engine.world, smith, keeper, trust=0.6)
    api.adjust_relationship(engine.world, keeper, smith, trust=0.7)
    await run_hours(engine, 0.5)  # the smith sees the bandits
    key = "threat:bandits:hamlet:mill_road"
    item = engine.world.get_component(smith, gossip.KnownGossip).items[key]
    gossip.retell(engine.world, smith, keeper, item, engine.clock.game_time)
    s = only(detect(engine), T.ALLIANCE_FORMING)
    assert s.context["allied_npcs"] == sorted([str(smith), str(keeper)])
    assert s.context["common_threat"] == "bandits"


@pytest.mark.parametrize(
    "engine",
    [{**copy.deepcopy(LIVING), "discoveries": {"wolf_den": {"type": "hidden_cache"}}}],
    indirect=True,
)
async def test_discovery(engine: GameEngine) -> None:
    assert not [s for s in detect(engine) if s.signal_type == T.DISCOVERY]
    ws = ws_of(engine)
    ws.move(npc(engine, "wolf#1"), "hamlet:wolf_den")  # a threat finds nothing
    await engine.dispatch_events()
    assert not [s for s in detect(engine) if s.signal_type == T.DISCOVERY]
    trader = npc(engine, "pell")
    ws.move(trader, "hamlet:wolf_den")
    await engine.dispatch_events()
    s = only(detect(engine), T.DISCOVERY)
    assert s.context["discovery_type"] == "hidden_cache"
    assert s.context["discovery_location"] == room_id("wolf_den")
    assert s.context["found_by"] == str(trader)
    assert s.involved_npcs == [trader]


async def test_betrayal(engine: GameEngine) -> None:
    trader, keeper = npc(engine, "pell"), npc(engine, "marta")
    living_of(engine).memory.add(
        EpisodicMemory(
            keeper,
            "The trader sold my ledger to the bandits.",
            importance=0.8,
            tags=["betrayal"],
            subject_id=trader,
            location="hamlet:inn",
        )
    )
    s = only(detect(engine), T.BETRAYAL)
    assert (s.context["betrayer"], s.context["victim"]) == (str(trader), str(keeper))
    assert s.context["evidence_location"] == room_id("inn")
    assert s.context["what_happened"] is None  # a private memory's words stay private


def _secret_data() -> dict[str, Any]:
    data = copy.deepcopy(LIVING)
    del data["npcs"]["hollin"]["supply"]
    data["npcs"]["marta"]["gossip"] = [
        {
            "id": "bribes",
            "content": "The captain takes bribes from the bandits.",
            "about": "tamsin",
            "secret": True,
        },
    ]
    return data


@pytest.mark.parametrize("engine", [_secret_data()], indirect=True)
async def test_secret_revealed(engine: GameEngine) -> None:
    keeper, trader = npc(engine, "marta"), npc(engine, "pell")
    await run_hours(engine, 12)
    assert not [s for s in detect(engine) if s.signal_type == T.SECRET_REVEALED]
    ws_of(engine).move(trader, "hamlet:inn")  # loose lips over an ale
    signals: list[StorySignal] = []
    for _ in range(96):
        await run_hours(engine, 1)
        signals += [s for s in detect(engine) if s.signal_type == T.SECRET_REVEALED]
        if signals:
            break
    s = only(signals, T.SECRET_REVEALED)
    assert s.context["secret_content"] == "The captain takes bribes from the bandits."
    assert s.context["revealer"] == str(keeper)
    assert s.context["subject"] == str(npc(engine, "tamsin"))
    assert npc(engine, "tamsin") in s.involved_npcs


def _power_data() -> dict[str, Any]:
    data = copy.deepcopy(LIVING)
    data["factions"]["guard"] = {"name": "the guard"}
    data["npcs"]["tamsin"].update(factions={"guard": "leader"}, influence=0.5)
    data["npcs"]["pell"].update(factions={"guard": "member"}, influence=0.3)
    return data


@pytest.mark.parametrize("engine", [_power_data()], indirect=True)
async def test_power_shift(engine: GameEngine) -> None:
    assert not [s for s in detect(engine) if s.signal_type == T.POWER_SHIFT]
    trader, captain = npc(engine, "pell"), npc(engine, "tamsin")
    api.adjust_influence(engine.world, trader, 0.4)  # 0.7 > 0.5 + margin
    s = only(detect(engine), T.POWER_SHIFT)
    assert (s.context["rising_npc"], s.context["falling_npc"]) == (str(trader), str(captain))
    assert s.context["faction"] == "guard"


async def test_unrequited(engine: GameEngine) -> None:
    smith, keeper = npc(engine, "hollin"), npc(engine, "marta")
    rel = api.adjust_relationship(engine.world, smith, keeper, affinity=0.8)
    rel.kind = "romantic"
    api.adjust_relationship(engine.world, keeper, smith, affinity=0.05)
    s = only(detect(engine), T.UNREQUITED)
    assert (s.context["npc_a"], s.context["npc_b"]) == (str(smith), str(keeper))
    assert s.context["relationship_type"] == "romantic"
    api.adjust_relationship(engine.world, keeper, smith, affinity=0.6)  # returned now
    assert not [s for s in detect(engine) if s.signal_type == T.UNREQUITED]


def test_every_contract_type_has_a_builtin_detector() -> None:
    from maid_stdlib.story.register import builtin_detectors

    # The deeds detector reports whatever type a world fact declares, so it covers
    # no type in particular.
    covered = {d.signal_type for d in builtin_detectors() if d.signal_type != ANY_SIGNAL}
    assert (
        covered
        == set(REQUIRED_CONTEXT)
        == {v for k, v in vars(StorySignalType).items() if k.isupper()}
    )


async def test_an_old_unanswered_betrayal_is_a_cold_case(engine: GameEngine) -> None:
    """A wrong older than a week, never answered, is raised again as a cold case
    (its own situation, less important), which the evaluator seeds as ``cold_case``
    and the investigation archetype takes."""
    from maid_engine.clock import GAME_DAY
    from maid_stdlib.questgen import QuestGen
    from maid_stdlib.story.drama import COLD_CASE_WINDOW

    trader, keeper = npc(engine, "pell"), npc(engine, "marta")
    now = engine.clock.game_time
    memory = living_of(engine).memory.add(
        EpisodicMemory(
            keeper,
            "Someone sold my ledger to the bandits.",
            importance=0.8,
            tags=["betrayal"],
            subject_id=trader,
            location="hamlet:inn",
            game_time=now - 10 * GAME_DAY,
        )
    )
    s = only(detect(engine), T.BETRAYAL)
    assert s.context["cold"] is True
    assert s.situation_key == f"cold_case:{memory.id}"
    assert s.importance == 0.45
    qg = engine.services.get(QuestGen)
    seed = await qg.evaluator().evaluate(s)
    assert not isinstance(seed, Rejection), seed
    assert seed.seed_type == "cold_case"
    assert seed.evidence_location == "hamlet:inn"
    memory.game_time = now - COLD_CASE_WINDOW - 1
    assert not [x for x in detect(engine) if x.signal_type == T.BETRAYAL]


def test_the_rpg_investigation_takes_cold_cases() -> None:
    from classic_rpg.questgen.archetypes import rpg_archetypes

    takers = [a.archetype_id for a in rpg_archetypes() if "cold_case" in a.compatible_seed_types]
    assert takers == ["investigation"]
