"""Engines on the test world, NPC lookups, service accessors, metrics, plain text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from uuid import UUID

from classic_rpg.systems.quests import QuestManager
from kits.hamlet.pack import HamletPack
from kits.hamlet.rules import HamletRules
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen import QuestGen
from maid_stdlib.world import NPC, WorldService, data_uuid

#: Hamlet on the stdlib alone.
HAMLET: tuple[Any, ...] = (HamletPack,)
#: Hamlet under the RPG rules: classic_rpg (its rules, archetypes and the
#: QuestManager that holds generated quests) and the rules sections of Hamlet's
#: wolves and things.
HAMLET_RPG: tuple[Any, ...] = (HamletPack, HamletRules)


def hamlet_engine(
    tmp_path: Path,
    *,
    tick: float = 60.0,
    seed: int = 7,
    rpg: bool = False,
    db_url: str | None = None,
    use_store: bool | None = None,
    **kw: Any,
) -> GameEngine:
    """Hamlet (tests/kits/hamlet), the neutral test world, on the stdlib: world,
    living world, story, quest generation, consequences. ``rpg``: under the RPG
    rules (:data:`HAMLET_RPG`). A store only with ``db_url`` (or ``use_store=True``)."""
    settings = (
        Settings(data_dir=tmp_path, random_seed=seed, database_url=db_url)
        if db_url
        else Settings(data_dir=tmp_path, random_seed=seed)
    )
    packs = list(HAMLET_RPG if rpg else HAMLET)
    return GameEngine(
        settings,
        clock=ManualClock(tick_game_seconds=tick),
        packs=packs,
        use_store=db_url is not None if use_store is None else use_store,
        **kw,
    )


def hv(key: str) -> UUID:
    """A placed Hamlet NPC, by its key in the pack's data."""
    return data_uuid("hamlet", "npc", key)


def npcs(engine: GameEngine, template: str) -> list[UUID]:
    """Every NPC made from ``template``, in a stable order."""
    return sorted(uid for uid, n in engine.world.each(NPC) if n.template == template)


def npc(engine: GameEngine, template: str) -> UUID:
    """The first NPC made from ``template`` (there must be one)."""
    found = npcs(engine, template)
    assert found, f"no NPC {template}"
    return found[0]


def ws_of(engine: GameEngine) -> WorldService:
    return engine.services.get(WorldService)


def qm(engine: GameEngine) -> QuestManager:
    return engine.services.get(QuestManager)


def qg_of(engine: GameEngine) -> QuestGen:
    return engine.services.get(QuestGen)


def living_of(engine: GameEngine) -> LivingWorld:
    return engine.services.get(LivingWorld)


def metric(engine: GameEngine, name: str, **labels: str) -> float:
    """A sample of the engine's Prometheus registry (0 when it was never set)."""
    value = engine.metrics.registry.get_sample_value(name, labels)
    return value or 0.0


def plain(text: str) -> str:
    """Text without colour codes."""
    return re.sub(r"\|[a-zA-Z]", "", text)


def skip(engine: GameEngine, game_seconds: float) -> None:
    """Jump the engine's game clock forward (it must be a ManualClock)."""
    clock = engine.clock
    assert isinstance(clock, ManualClock), "only a ManualClock can skip"
    clock.skip(game_seconds)
