"""Gossip: confidence rules, spreading by room and relationship, perception, talk lines."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kits.engines import living_of, ws_of
from kits.heroes import new_character
from living.livingkit import LIVING, hamlet_pack, make_engine, npc, run_hours

from maid_stdlib.living import KnownGossip, MemoryVisibility, ThreatObservedEvent, api, gossip
from maid_stdlib.living.api import adjust_relationship


def known(engine, key: str) -> dict[str, gossip.GossipItem]:  # type: ignore[no-untyped-def]
    comp = engine.world.try_component(npc(engine, key), KnownGossip)
    return comp.items if comp is not None else {}


def quiet_world() -> dict[str, Any]:
    """No route: nobody perceives the bandits, so only injected gossip moves."""
    data = copy.deepcopy(LIVING)
    del data["npcs"]["hollin"]["supply"]
    return data


async def test_confidence_rules(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        world, now = engine.world, engine.clock.game_time
        smith, trader, keeper = (npc(engine, k) for k in ("hollin", "pell", "marta"))
        gossip.observe(world, smith, "s1", "The well is dry.", now)
        assert known(engine, "hollin")["s1"].confidence == gossip.DIRECT_CONFIDENCE == 1.0
        assert known(engine, "hollin")["s1"].source == str(smith)
        # Generated gossip never claims certainty, even when asked to.
        gossip.inject(world, [trader], "s2", "A hero cleared the road.", now, confidence=1.0)
        assert known(engine, "pell")["s2"].confidence == 0.9
        gossip.retell(world, smith, keeper, known(engine, "hollin")["s1"], now)
        item = known(engine, "marta")["s1"]
        assert item.confidence == pytest.approx(0.8)
        assert item.heard_from == str(smith)
        assert item.hops == 1
        gossip.retell(world, keeper, trader, item, now)
        assert known(engine, "pell")["s1"].confidence == pytest.approx(0.64)
        # A less sure copy never replaces a surer one.
        gossip.retell(world, trader, keeper, known(engine, "pell")["s1"], now)
        assert known(engine, "marta")["s1"].confidence == pytest.approx(0.8)


async def test_gossip_spreads_between_npcs_sharing_a_room(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        ws = ws_of(engine)
        smith = npc(engine, "hollin")
        gossip.inject(engine.world, [smith], "rumour", "The mine is haunted.", 0.0, confidence=0.9)
        await run_hours(engine, 3)
        assert "rumour" not in known(engine, "marta")  # in another room
        ws.move(npc(engine, "marta"), "hamlet:mill")
        await run_hours(engine, 6)
        item = known(engine, "marta")["rumour"]
        assert item.confidence == pytest.approx(0.72)
        assert item.heard_from == str(smith)
        assert "rumour" not in known(engine, "tamsin")  # at the gate, no relationship


async def test_gossip_travels_along_relationships(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        smith, captain = npc(engine, "hollin"), npc(engine, "tamsin")
        adjust_relationship(engine.world, smith, captain, trust=0.6)
        gossip.inject(engine.world, [smith], "rumour", "The mine is haunted.", 0.0)
        await run_hours(engine, 48)
        assert known(engine, "tamsin")["rumour"].heard_from == str(smith)
        assert "rumour" not in known(engine, "pell")


async def test_retold_gossip_fades_below_the_retelling_line(tmp_path: Path) -> None:
    async with make_engine(
        tmp_path, [hamlet_pack(tmp_path / "p", quiet_world())]
    ).lifespan() as engine:
        ws = ws_of(engine)
        for key in ("pell", "tamsin", "marta"):
            ws.move(npc(engine, key), "hamlet:mill")
        gossip.inject(
            engine.world, [npc(engine, "hollin")], "r", "Odd lights.", 0.0, confidence=0.35
        )
        await run_hours(engine, 24)
        # 0.35 is retold once (0.28) and then never again: below MIN_RETELL_CONFIDENCE.
        confidences = sorted(known(engine, k)["r"].confidence for k in ("pell", "tamsin", "marta"))
        assert confidences == pytest.approx([0.28, 0.28, 0.28])


async def test_npcs_perceive_threats_on_their_routes_and_tell_others(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p")])
    seen: list[ThreatObservedEvent] = []
    engine.events.subscribe(ThreatObservedEvent, seen.append)
    async with engine.lifespan():
        living = living_of(engine)
        smith = npc(engine, "hollin")
        await run_hours(engine, 0.5)
        key = "threat:bandits:hamlet:mill_road"
        item = known(engine, "hollin")[key]
        assert item.confidence == 1.0
        assert "threat" in item.tags
        # Old Grey in his den counts too: the news names the whole area.
        assert item.content == "Bandits have been seen on the Mill Road."
        assert [(e.npc_id, e.threat_key, e.cleared) for e in seen] == [(smith, key, False)]
        memory = living.memory.get_recent(smith, tags=["threat"])[0]
        assert memory.visibility == MemoryVisibility.PUBLIC
        assert memory.location == "hamlet:road_copse"
        # Talking to the smith brings it up.
        assert living.gossip_lines(smith) == [
            "Bandits have been seen on the Mill Road. I know it for a fact."
        ]
        ws_of(engine).move(npc(engine, "marta"), "hamlet:mill")
        await run_hours(engine, 6)
        assert known(engine, "marta")[key].confidence == pytest.approx(0.8)
        assert living.gossip_lines(npc(engine, "marta")) == [
            "Bandits have been seen on the Mill Road."
        ]
        # The wolves are gone: the miller sees the road clear and says so.
        for key_ in ("wolf#1", "wolf#2", "old_grey"):
            engine.world.destroy_entity(npc(engine, key_))
        await engine.dispatch_events()
        await run_hours(engine, 0.5)
        assert key not in known(engine, "hollin")
        assert known(engine, "hollin")[f"{key}:cleared"].content == (
            "The bandits are gone from the Copse."
        )
        assert seen[-1].cleared
        await run_hours(engine, 6)  # the keeper hears the newer news, which replaces the old
        assert key not in known(engine, "marta")


async def test_secrets_are_not_mentioned_when_talked_to(tmp_path: Path) -> None:
    data = quiet_world()
    data["npcs"]["marta"]["gossip"] = [
        {"content": "The captain takes bribes.", "about": "tamsin", "secret": True},
        {"content": "Ale is cheap today.", "confidence": 0.5},
    ]
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        lines = living_of(engine).gossip_lines(npc(engine, "marta"))
        assert lines == ["Ale is cheap today. That is the word, anyway."]


async def test_talk_hook_remembers_the_speaker_and_returns_news(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living = living_of(engine)
        smith, trader = npc(engine, "hollin"), npc(engine, "pell")
        await run_hours(engine, 0.5)
        lines = living.note_conversation(smith, trader)
        assert lines == ["Bandits have been seen on the Mill Road. I know it for a fact."]
        living.note_conversation(smith, trader)  # again at once: no second memory
        talks = living.memory.get_recent(smith, tags=["conversation"])
        assert [m.content for m in talks] == ["Pell stopped to talk with me."]
        assert talks[0].subject_id == trader
        assert talks[0].player_id is None
        rel = api.get_relationship(engine.world, smith, trader)
        assert rel is not None
        assert rel.trust == pytest.approx(0.01)
        await run_hours(engine, 1)
        living.note_conversation(smith, trader)
        assert len(living.memory.get_recent(smith, tags=["conversation"])) == 2


async def test_a_player_is_not_told_the_same_news_after_every_greeting(tmp_path: Path) -> None:
    # A fresh player heard "Bandits have been seen..." from nearly everyone they
    # greeted, again and again.
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        living = living_of(engine)
        smith = npc(engine, "hollin")
        hero = new_character(engine, "Alice", online=False)
        await run_hours(engine, 0.5)
        said = ["Bandits have been seen on the Mill Road. I know it for a fact."]
        assert living.note_conversation(smith, hero) == said
        assert living.note_conversation(smith, hero) == []
        assert living.gossip_lines(smith) == said  # asked about it, it is still said
        other = new_character(engine, "Bob", online=False)
        assert living.note_conversation(smith, other) == said  # news to them
        await run_hours(engine, 24)
        assert living.note_conversation(smith, hero) == said  # a day on, it comes up again


async def test_news_about_the_speaker_is_told_in_their_own_voice(tmp_path: Path) -> None:
    data = quiet_world()
    data["npcs"]["marta"]["gossip"] = [{"content": "An adventurer helped Marta."}]
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        lines = living_of(engine).gossip_lines(npc(engine, "marta"))
        assert lines == ["An adventurer helped me."]


async def test_asked_about_something_an_npc_tells_what_it_heard_of_it(tmp_path: Path) -> None:
    data = quiet_world()
    data["npcs"]["marta"]["gossip"] = [
        {"content": "Wolves were seen at the weir."},
        {"content": "Ale is cheap today.", "confidence": 0.5},
    ]
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)]).lifespan() as engine:
        living = living_of(engine)
        marta = npc(engine, "marta")
        assert living.gossip_lines(marta, about=lambda text: "ale" in text.lower()) == [
            "Ale is cheap today. That is the word, anyway."
        ]


def test_what_a_speaker_saw_is_vouched_for_in_their_own_words_while_it_is_fresh() -> None:
    seen = gossip.GossipItem(
        "s", "The bandits are gone from the Copse.", confidence=1.0, heard_at=1000.0
    )
    # Each speaker keeps one way of vouching; not everyone says the same words.
    said = {gossip.phrase(seen, name, 1000.0) for name in ("Hollin", "Marta", "Pell", "Tamsin")}
    assert len(said) > 1
    assert all(s.startswith("The bandits are gone from the Copse. ") for s in said)
    assert gossip.phrase(seen, "Marta", 1000.0) == gossip.phrase(seen, "Marta", 1500.0)
    # Not seen again for hours, it is told as of then: the band may be back.
    late = 1000.0 + gossip.SEEN_LONG_AGO
    assert gossip.phrase(seen, "Marta", late) == (
        "The bandits are gone from the Copse. So it was when I last looked, anyway."
    )
    # Heard from others, it is hedged by confidence, however old.
    heard = gossip.GossipItem("h", "Wolves prowl at the weir", confidence=0.5, heard_at=0.0)
    assert gossip.phrase(heard, "Marta", late) == (
        "Wolves prowl at the weir. That is the word, anyway."
    )
