"""``--log-json``: one JSON object per line, with quest, seed and character ids, for
every quest lifecycle transition, seed decision and consequence batch.

A small pipeline runs with the engine's JsonFormatter on the root logger: a
rejected signal, the heist generated from real state, offered, accepted, played,
turned in (consequences applied, a follow-up seeded and generated), a forced
quest accepted and abandoned, and the follow-up expiring.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kits.engines import skip
from kits.heist import HEIST_WALK, character, do_heist, force, make_engine, ticks, until_quest

from classic_rpg.systems.quests import QuestManager
from maid_engine.clock import GAME_HOUR
from maid_engine.logs import JsonFormatter
from maid_engine.testing import cmd
from maid_stdlib.questgen import BasicSignal
from maid_stdlib.questgen.service import QuestGenerationService


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def records(stream: io.StringIO) -> list[dict[str, Any]]:
    lines = stream.getvalue().splitlines()
    assert lines, "nothing was logged"
    out = []
    for line in lines:
        doc = json.loads(line)  # one whole object per line, never a fragment
        assert isinstance(doc, dict)
        assert {"ts", "level", "logger", "event"} <= set(doc)
        out.append(doc)
    return out


def find(docs: list[dict[str, Any]], event: str, **fields: Any) -> dict[str, Any]:
    for doc in docs:
        if doc["event"].startswith(event) and all(doc.get(k) == v for k, v in fields.items()):
            return doc
    raise AssertionError(
        f"no {event!r} line with {fields}; events: {sorted({d['event'][:40] for d in docs})}"
    )


async def test_every_transition_is_one_json_line_with_its_ids(
    tmp_path: Path, json_log: io.StringIO
) -> None:
    engine = make_engine(tmp_path)
    async with engine.lifespan():
        system = engine.services.get(QuestGenerationService)
        await system.accept_signal(BasicSignal("THREAT_DETECTED", 0.9, [], {}))
        heist = await until_quest(engine, "heist")
        hero = character(engine, "Aria")
        await do_heist(engine, hero, heist)
        follow_up = await until_quest(engine, "investigation", limit=20)
        boss = character(engine, "Morgan", level=10)
        forced = await force(engine, boss, "threat_response")
        manager = engine.services.get(QuestManager)
        quitter = character(engine, "Quinn", level=8)
        manager.offer_quest(quitter, forced)
        await cmd(engine, quitter, f"accept {forced}")
        await cmd(engine, quitter, f"abandon {forced} confirm")
        shy = character(engine, "Shy")
        for line in HEIST_WALK:  # Tamsin has nothing more to offer: no stray lines
            await cmd(engine, shy, line)
        skip(engine, 30 * GAME_HOUR)
        await ticks(engine, 2)

    docs = records(json_log)
    aria, quinn = str(hero), str(quitter)
    seed = find(docs, "generated quest", quest_id=heist)["seed_id"]
    find(docs, "seed queued", seed_id=seed, seed_type="heist_opportunity")
    assert find(docs, "seed rejected", signal_type="THREAT_DETECTED")["rules"]  # named
    find(docs, "quest generated", quest_id=heist)
    find(docs, "quest offered", quest_id=heist, character_id=aria)
    find(docs, "quest accepted", quest_id=heist, character_id=aria)
    find(docs, "quest objectives met", quest_id=heist, character_id=aria)
    find(docs, "quest turned in", quest_id=heist, character_id=aria, outcome="perfect")
    find(docs, "consequences applied", quest_id=heist, character_ids=aria)
    find(docs, "generated quest", quest_id=follow_up)
    find(docs, "quest abandoned", quest_id=forced, character_id=quinn)
    find(docs, "consequences applied", quest_id=forced, outcome="abandoned", character_ids=quinn)
    find(docs, "quest expired", quest_id=follow_up)
    # Every line about a quest names it; every seed line names its seed.
    lifecycle = ("maid.rpg.quests", "maid.consequences", "maid.questgen.delivery", "maid.grounding")
    for doc in docs:
        if doc["logger"] in lifecycle and doc["event"].startswith(
            ("quest ", "consequence", "generated quest")
        ):
            assert "quest_id" in doc, doc
        if doc["event"].startswith("seed queued"):
            assert doc.get("seed_id"), doc
