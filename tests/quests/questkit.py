"""Helpers of the quest tests: a tiny world pack (with quests.yaml) and an engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from uuid import UUID

from classic_rpg.components import Attributes, CharacterStats, Health
from classic_rpg.systems.quests import (
    ObjectiveProgress,
    Quest,
    QuestEntry,
    QuestManager,
    QuestObjective,
)
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.events import Event
from maid_engine.testing import cmd, session_for
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world import NPC, WorldCharacterFactory, WorldDataPack, WorldService
from maid_stdlib.world.components import data_uuid

WORLD = Path(__file__).parent / "questworld"


class QuestTestWorld(WorldDataPack):
    name = "qtest"
    requires = ("stdlib", "classic_rpg")

    @property
    def path(self) -> Path:
        return WORLD


def make_engine(tmp_path: Path, *, db_url: str | None = None, **kw: Any) -> GameEngine:
    """The test world; no store unless ``db_url`` is given."""
    from classic_rpg.pack import ClassicRPGContentPack
    from maid_stdlib.pack import StdlibContentPack

    packs = kw.pop("packs", None) or [
        StdlibContentPack(),
        ClassicRPGContentPack(),
        QuestTestWorld(),
    ]
    settings = Settings(
        data_dir=tmp_path,
        random_seed=kw.pop("seed", 1),
        **({"database_url": db_url} if db_url else {}),
    )
    return GameEngine(settings, clock=ManualClock(), packs=packs, use_store=db_url is not None)


def qm(engine: GameEngine) -> QuestManager:
    return engine.services.get(QuestManager)


def ws_of(engine: GameEngine) -> WorldService:
    return engine.services.get(WorldService)


def npc(key: str) -> UUID:
    """The entity of a single placed NPC of the test world."""
    return data_uuid("qtest", "npc", key)


def npcs(engine: GameEngine, template: str) -> list[UUID]:
    return sorted(uid for uid, n in engine.world.each(NPC) if n.template == template)


def new_character(engine: GameEngine, name: str = "Alice", online: bool = True) -> UUID:
    uid = engine.services.get(WorldCharacterFactory).create_character(name, f"acct-{name}")
    if online:
        session_for(engine, uid)
    return uid


def make_strong(engine: GameEngine, uid: UUID, hp: int = 200) -> None:
    world = engine.world
    world.get_component(uid, CharacterStats).level = 10
    world.add_component(uid, Health(hp, hp))
    world.add_component(uid, Attributes(strength=18, dexterity=18, constitution=16))


def place(engine: GameEngine, uid: UUID, room: str) -> None:
    ws_of(engine).move(uid, room if ":" in room else f"qtest:{room}", reason="test")


def room_of(engine: GameEngine, uid: UUID) -> str | None:
    return ws_of(engine).room_key_of(uid)


class Recorder:
    """Collects the events of the given types, in order."""

    def __init__(self, engine: GameEngine, *types: type[Event]) -> None:
        self.events: list[Event] = []
        for t in types:
            engine.events.subscribe(t, self.events.append)

    def of(self, t: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, t)]


def quest(quest_id: str = "test-quest", *objectives: dict[str, Any], **kw: Any) -> Quest:
    """A quest given by the elder, built from objective dicts (type defaults to visit)."""
    objs = []
    for i, o in enumerate(objectives):
        o = dict(o)
        o.setdefault("objective_id", f"o{i}")
        o.setdefault("description", f"objective {i}")
        objs.append(QuestObjective.model_validate(o))
    kw.setdefault("title", quest_id.replace("-", " ").title())
    kw.setdefault("giver_npc_id", npc("elder"))
    return Quest(quest_id=quest_id, objectives=objs, **kw)


async def start(engine: GameEngine, hero: UUID, q: Quest) -> QuestEntry:
    """Register (if new), offer and accept ``q`` for ``hero``."""
    manager = qm(engine)
    if manager.get_quest(q.quest_id) is None:
        manager.register_quest(q)
    manager.offer_quest(hero, q.quest_id)
    entry = await manager.accept_quest(hero, q.quest_id)
    await engine.dispatch_events()
    return entry


async def kill(engine: GameEngine, hero: UUID, keyword: str, max_ticks: int = 200) -> UUID:
    """``kill <keyword>`` and tick until the target is dead; returns the target."""
    ws = ws_of(engine)
    room = ws.room_key_of(hero)
    assert room is not None
    target = ws.find_in_room(room, keyword, viewer=hero)
    assert target is not None, f"no {keyword} here"
    await cmd(engine, hero, f"kill {keyword}")
    for _ in range(max_ticks):
        if not engine.world.entity_exists(target):
            return target
        await engine.run_ticks(1)
    raise AssertionError(f"{keyword} did not die")


def state(engine: GameEngine, hero: UUID, quest_id: str = "test-quest") -> QuestState | None:
    return qm(engine).quest_state(hero, quest_id)


def progress(
    engine: GameEngine, hero: UUID, objective: str, quest_id: str = "test-quest"
) -> ObjectiveProgress:
    entry = qm(engine).entry(hero, quest_id)
    assert entry is not None
    return entry.objectives[objective]


def plain(text: str) -> str:
    """Text without colour codes."""
    return re.sub(r"\|[a-zA-Z]", "", text)
