"""Helpers of the quest tests: a tiny world pack (with quests.yaml) and an engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from kits.engines import make_engine as kits_engine
from kits.engines import qm, ws_of

from classic_rpg.systems.quests import (
    ObjectiveProgress,
    Quest,
    QuestEntry,
    QuestObjective,
)
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world import WorldDataPack
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
    seed = kw.pop("seed", 1)
    return kits_engine(
        tmp_path, packs, tick=None, seed=seed, db_url=db_url, use_store=db_url is not None
    )


def npc(key: str) -> UUID:
    """The entity of a single placed NPC of the test world."""
    return data_uuid("qtest", "npc", key)


def place(engine: GameEngine, uid: UUID, room: str) -> None:
    ws_of(engine).move(uid, room if ":" in room else f"qtest:{room}", reason="test")


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


def state(engine: GameEngine, hero: UUID, quest_id: str = "test-quest") -> QuestState | None:
    return qm(engine).quest_state(hero, quest_id)


def progress(
    engine: GameEngine, hero: UUID, objective: str, quest_id: str = "test-quest"
) -> ObjectiveProgress:
    entry = qm(engine).entry(hero, quest_id)
    assert entry is not None
    return entry.objectives[objective]
