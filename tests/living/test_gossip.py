"""Gossip: confidence rules, spreading by room and relationship, perception, talk lines."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kits.engines import living_of, ws_of
from living.livingkit import LIVING, hamlet_pack, make_engine, npc, run_hours

from maid_stdlib.living import KnownGossip, MemoryVisibility, ThreatObservedEvent, api, gossip
from maid_stdlib.living.api import adjust_relationship


def known(engine, key: str) -> dict[str, gossip.GossipItem]:  # type: ignore[no-untyped-def]
    comp = engine.world.try_component(npc(engine, key), KnownGossip)
    return comp.items if comp is not None else {}


def quiet_world() -> dict[str, Any]:
    """No route: nobody perceives the bandits, so only injected gossip moves."""
    data = copy.deepcopy(LIVING)
    del data["npcs"]["smith"]["supply"]
    return data


async def test_confidence_rules(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        world, now = engine.world, engine.clock.game_time
        smith, trader, keeper = (npc(engine, k) for k in ("smith", "trader", "keeper"))
        gossip.observe(world, smith, "s1", "The well is dry.", now)
        assert known(engine, "smith")["s1"].confidence == gossip.DIRECT_CONFIDENCE == 1.0
        assert known(engine, "smith")["s1"].source == str(smith)
        # Generated gossip never claims certainty, even when asked to.
        gossip.inject(world, [trader], "s2", "A hero cleared the road.", now, confidence=1.0)
        assert known(engine, "trader")["s2"].confidence == 0.9
        gossip.retell(world, smith, keeper, known(engine, "smith")["s1"], now)
        item = known(engine, "keeper")["s1"]
        assert item.confidence == pytest.approx(0.8)
        assert item.heard_from == str(smith)
        assert item.hops == 1
        gossip.retell(world, keeper, trader, item, now)
        assert known(engine, "trader")["s1"].confidence == pytest.approx(0.64)
        # A less sure copy never replaces a surer one.
        gossip.retell(world, trader, keeper, known(engine, "trader")["s1"], now)
        assert known(engine, "keeper")["s1"].confidence == pytest.approx(0.8)


async def test_gossip_spreads_between_npcs_sharing_a_room(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        ws = ws_of(engine)
        smith = npc(engine, "smith")
        gossip.inject(engine.world, [smith], "rumour", "The mine is haunted.", 0.0, confidence=0.9)
        await run_hours(engine, 3)
        assert "rumour" not in known(engine, "keeper")  # in another room
        ws.move(npc(engine, "keeper"), "hamlet:smithy")
        await run_hours(engine, 6)
        item = known(engine, "keeper")["rumour"]
        assert item.confidence == pytest.approx(0.72)
        assert item.heard_from == str(smith)
        assert "rumour" not in known(engine, "captain")  # at the gate, no relationship


async def test_gossip_travels_along_relationships(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        smith, captain = npc(engine, "smith"), npc(engine, "captain")
        adjust_relationship(engine.world, smith, captain, trust=0.6)
        gossip.inject(engine.world, [smith], "rumour", "The mine is haunted.", 0.0)
        await run_hours(engine, 48)
        assert known(engine, "captain")["rumour"].heard_from == str(smith)
        assert "rumour" not in known(engine, "trader")


async def test_retold_gossip_fades_below_the_retelling_line(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        ws = ws_of(engine)
        for key in ("trader", "captain", "keeper"):
            ws.move(npc(engine, key), "hamlet:smithy")
        gossip.inject(
            engine.world, [npc(engine, "smith")], "r", "Odd lights.", 0.0, confidence=0.35
        )
        await run_hours(engine, 24)
        # 0.35 is retold once (0.28) and then never again: below MIN_RETELL_CONFIDENCE.
        confidences = sorted(
            known(engine, k)["r"].confidence for k in ("trader", "captain", "keeper")
        )
        assert confidences == pytest.approx([0.28, 0.28, 0.28])


async def test_npcs_perceive_threats_on_their_routes_and_tell_others(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p")])
    seen: list[ThreatObservedEvent] = []
    engine.events.subscribe(ThreatObservedEvent, seen.append)
    async with engine.lifespan():
        living = living_of(engine)
        smith = npc(engine, "smith")
        await run_hours(engine, 0.5)
        key = "threat:bandits:hamlet:road"
        item = known(engine, "smith")[key]
        assert item.confidence == 1.0
        assert "threat" in item.tags
        # The boss at the camp counts too: the news names the whole area.
        assert item.content == "Bandits have been seen on The Road."
        assert [(e.npc_id, e.threat_key, e.cleared) for e in seen] == [(smith, key, False)]
        memory = living.memory.get_recent(smith, tags=["threat"])[0]
        assert memory.visibility == MemoryVisibility.PUBLIC
        assert memory.location == "hamlet:road2"
        # Talking to the smith brings it up.
        assert living.gossip_lines(smith) == [
            "I know it for a fact: Bandits have been seen on The Road."
        ]
        ws_of(engine).move(npc(engine, "keeper"), "hamlet:smithy")
        await run_hours(engine, 6)
        assert known(engine, "keeper")[key].confidence == pytest.approx(0.8)
        assert living.gossip_lines(npc(engine, "keeper")) == ["Bandits have been seen on The Road."]
        # The bandits are gone: the smith sees the road clear and says so.
        for key_ in ("bandit#1", "bandit#2", "boss"):
            engine.world.destroy_entity(npc(engine, key_))
        await engine.dispatch_events()
        await run_hours(engine, 0.5)
        assert key not in known(engine, "smith")
        assert known(engine, "smith")[f"{key}:cleared"].content == (
            "The bandits are gone from Road South."
        )
        assert seen[-1].cleared
        await run_hours(engine, 6)  # the keeper hears the newer news, which replaces the old
        assert key not in known(engine, "keeper")


async def test_secrets_are_not_mentioned_when_talked_to(tmp_path: Path) -> None:
    data = quiet_world()
    data["npcs"]["keeper"]["gossip"] = [
        {"content": "The captain takes bribes.", "about": "captain", "secret": True},
        {"content": "Ale is cheap today.", "confidence": 0.5},
    ]
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        lines = living_of(engine).gossip_lines(npc(engine, "keeper"))
        assert lines == ["Word is: Ale is cheap today."]


async def test_talk_hook_remembers_the_speaker_and_returns_news(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living = living_of(engine)
        smith, trader = npc(engine, "smith"), npc(engine, "trader")
        await run_hours(engine, 0.5)
        lines = living.note_conversation(smith, trader)
        assert lines == ["I know it for a fact: Bandits have been seen on The Road."]
        living.note_conversation(smith, trader)  # again at once: no second memory
        talks = living.memory.get_recent(smith, tags=["conversation"])
        assert [m.content for m in talks] == ["Trader stopped to talk with me."]
        assert talks[0].subject_id == trader
        assert talks[0].player_id is None
        rel = api.get_relationship(engine.world, smith, trader)
        assert rel is not None
        assert rel.trust == pytest.approx(0.01)
        await run_hours(engine, 1)
        living.note_conversation(smith, trader)
        assert len(living.memory.get_recent(smith, tags=["conversation"])) == 2
