"""Helpers of the RPG rules tests: a tiny world pack and an engine factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from classic_rpg.components import Attributes, CharacterStats, Health
from classic_rpg.items.factory import ItemFactory
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import ContentPack
from maid_engine.engine import GameEngine
from maid_engine.events import Event
from maid_engine.testing import session_for
from maid_stdlib.world import NPC, WorldCharacterFactory, WorldDataPack, WorldService

WORLD = Path(__file__).parent / "rpgworld"


class RpgTestWorld(WorldDataPack):
    name = "rpgtest"
    # WorldDataPack's un-annotated default narrows the type to tuple[str] (drop the
    # ignore once maid_stdlib/world/datapack.py annotates it as ClassVar[tuple[str, ...]]).
    requires = ("stdlib", "classic_rpg")

    @property
    def path(self) -> Path:
        return WORLD


def rpg_pack() -> ContentPack:
    from classic_rpg.pack import ClassicRPGContentPack

    return ClassicRPGContentPack()


def make_engine(tmp_path: Path, *, db_url: str | None = None, **kw: Any) -> GameEngine:
    """The test world; no store unless ``db_url`` is given."""
    from maid_stdlib.pack import StdlibContentPack

    packs = kw.pop("packs", None) or [StdlibContentPack(), rpg_pack(), RpgTestWorld()]
    if db_url is None:
        settings = Settings(data_dir=tmp_path, random_seed=kw.pop("seed", 1))
        return GameEngine(settings, clock=ManualClock(), packs=packs, use_store=False)
    settings = Settings(data_dir=tmp_path, random_seed=kw.pop("seed", 1), database_url=db_url)
    return GameEngine(settings, clock=ManualClock(), packs=packs)


def ws_of(engine: GameEngine) -> WorldService:
    return engine.services.get(WorldService)


def items_of(engine: GameEngine) -> ItemFactory:
    return engine.services.get(ItemFactory)


def new_character(engine: GameEngine, name: str = "Alice", online: bool = True) -> UUID:
    uid = engine.services.get(WorldCharacterFactory).create_character(name, f"acct-{name}")
    if online:
        session_for(engine, uid)
    return uid


def make_strong(engine: GameEngine, uid: UUID, level: int = 10, hp: int = 200) -> None:
    world = engine.world
    world.get_component(uid, CharacterStats).level = level
    world.add_component(uid, Health(hp, hp))
    world.add_component(uid, Attributes(strength=18, dexterity=16, constitution=16))


def npcs(engine: GameEngine, template: str) -> list[UUID]:
    return [uid for uid, npc in engine.world.each(NPC) if npc.template == template]


def place(engine: GameEngine, uid: UUID, room: str) -> None:
    ws_of(engine).move(uid, room, reason="test")


class Recorder:
    """Collects the events of the given types, in order."""

    def __init__(self, engine: GameEngine, *types: type[Event]) -> None:
        self.events: list[Event] = []
        for t in types:
            engine.events.subscribe(t, self.events.append)

    def of(self, t: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, t)]
