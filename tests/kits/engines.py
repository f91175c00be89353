"""Engines on the test world, NPC lookups, service accessors, metrics, plain text."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from uuid import UUID

from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests import QuestManager
from kits.hamlet.pack import HamletPack
from kits.hamlet.rules import HamletRules
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import ContentPack, PackContext
from maid_engine.engine import GameEngine
from maid_engine.sessions import Session
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.world import NPC, WorldService, data_uuid

#: Hamlet on the stdlib alone.
HAMLET: tuple[Any, ...] = (HamletPack,)
#: Hamlet under the RPG rules: classic_rpg (its rules, archetypes and the
#: QuestManager that holds generated quests) and the rules sections of Hamlet's
#: wolves and things.
HAMLET_RPG: tuple[Any, ...] = (HamletPack, HamletRules)


def make_engine(
    tmp_path: Path,
    packs: Sequence[Any],
    *,
    tick: float | None = 60.0,
    seed: int | None = 7,
    db_url: str | None = None,
    use_store: bool | None = None,
    settings: Mapping[str, Any] | None = None,
    **kw: Any,
) -> GameEngine:
    """The tests' one engine builder: ``packs`` on a ManualClock of ``tick`` game
    seconds a tick (None: the clock's default) with the random ``seed`` (None: the
    settings' default). A store only with ``db_url`` (or ``use_store=True``);
    ``settings`` adds Settings fields, ``kw`` goes to the GameEngine."""
    fields: dict[str, Any] = {"data_dir": tmp_path, **(settings or {})}
    if seed is not None:
        fields["random_seed"] = seed
    if db_url:
        fields["database_url"] = db_url
    return GameEngine(
        Settings(**fields),
        clock=ManualClock() if tick is None else ManualClock(tick_game_seconds=tick),
        packs=list(packs),
        use_store=bool(db_url) if use_store is None else use_store,
        **kw,
    )


def hamlet_engine(tmp_path: Path, *, rpg: bool = False, **kw: Any) -> GameEngine:
    """Hamlet (tests/kits/hamlet), the neutral test world, on the stdlib: world,
    living world, story, quest generation, consequences. ``rpg``: under the RPG
    rules (:data:`HAMLET_RPG`). The rest as :func:`make_engine`."""
    return make_engine(tmp_path, HAMLET_RPG if rpg else HAMLET, **kw)


def hv(key: str) -> UUID:
    """A placed Hamlet NPC, by its key in the pack's data."""
    return data_uuid("hamlet", "npc", key)


def npcs(engine: GameEngine, template: str) -> list[UUID]:
    """Every NPC made from ``template`` ("pack:key", or a key of whichever loaded pack
    has it), in a stable order."""
    bare = ":" not in template
    return sorted(
        uid
        for uid, n in engine.world.each(NPC)
        if n.template == template or (bare and n.template.endswith(f":{template}"))
    )


def npc(engine: GameEngine, template: str) -> UUID:
    """The first NPC made from ``template`` (there must be one)."""
    found = npcs(engine, template)
    assert found, f"no NPC {template}"
    return found[0]


def room_key(engine: GameEngine, key: str) -> str:
    """A room key from ``key``: a full key, or a room key of whichever pack has it."""
    if ":" in key:
        return key
    found = [k for k in ws_of(engine).room_keys() if k.endswith(f":{key}")]
    assert len(found) == 1, f"room {key}: {found}"
    return found[0]


def ws_of(engine: GameEngine) -> WorldService:
    return engine.services.get(WorldService)


def qm(engine: GameEngine) -> QuestManager:
    return engine.services.get(QuestManager)


def qg_of(engine: GameEngine) -> QuestGen:
    return engine.services.get(QuestGen)


def questgen_of(engine: GameEngine) -> QuestGenerationService:
    """The quest generation service (what commands and the simulator use)."""
    return engine.services.get(QuestGenerationService)


def items_of(engine: GameEngine) -> ItemFactory:
    return engine.services.get(ItemFactory)


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


class QuestgenSettings(ContentPack):
    """A test's generation config, provided before the stdlib builds the pipeline
    (it requires nothing, so it registers first)."""

    name = "questgen_settings"

    def __init__(self, config: QuestGenerationConfig) -> None:
        self.config = config

    def register(self, ctx: PackContext) -> None:
        ctx.provide(QuestGenerationConfig, self.config)


class _Connection:
    """Enough of a session to be connected (``SessionManager.session_opened``)."""

    def __init__(self) -> None:
        self.id = "connection"
        self.data: dict[str, Any] = {}

    def send(self, text: str) -> None:
        pass


async def connect_someone(engine: GameEngine) -> Session:
    """Someone is connected: with nobody, no command can come in and a tick never
    lends the world."""
    session = cast(Session, _Connection())
    await engine.sessions.session_opened(session)
    return session
