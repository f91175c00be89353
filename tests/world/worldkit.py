"""Helpers shared by the world tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import yaml
from kits.engines import HAMLET
from kits.engines import make_engine as kits_engine
from pydantic import BaseModel, ConfigDict

from maid_engine.commands import Role
from maid_engine.ecs import Component
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.testing import FakeSession
from maid_stdlib.world import ExtensionContext, WorldData, WorldDataPack


def make_engine(tmp_path: Path, packs: list[Any] | None = None, **kw: Any) -> GameEngine:
    """An engine on ``packs`` (by default Hamlet, the neutral test world) with the
    clock's and the settings' defaults; no store unless ``use_store=True``."""
    return kits_engine(
        tmp_path,
        packs if packs is not None else HAMLET,
        tick=None,
        seed=None,
        use_store=kw.pop("use_store", False),
        **kw,
    )


async def connect(engine: GameEngine, character: UUID, role: Role = Role.PLAYER) -> FakeSession:
    """Attach a FakeSession as the account layer would and announce the connection."""
    session = FakeSession(role=role)
    await engine.sessions.session_opened(session)
    session.sent.clear()
    engine.sessions.attach(session, character)
    engine.events.emit(CharacterConnectedEvent(character, session.id))
    await engine.dispatch_events()
    return session


async def disconnect(engine: GameEngine, session: FakeSession) -> None:
    character = session.character_id
    assert character is not None
    engine.events.emit(CharacterDisconnectedEvent(character, session.id))
    await engine.dispatch_events()
    engine.sessions.detach(session)
    await engine.sessions.session_closed(session)


def write_yaml(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def tiny_area(
    key: str = "town", rooms: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "area": {"key": key, "name": key.title(), "region": "testland"},
        "rooms": rooms
        if rooms is not None
        else [
            {"key": "hall", "name": "Hall", "description": "A hall.", "exits": {"n": "yard"}},
            {"key": "yard", "name": "Yard", "description": "A yard.", "exits": {"s": "hall"}},
        ],
        **extra,
    }


def tmp_pack(
    root: Path, name: str = "testpack", requires: tuple[str | type, ...] = ("stdlib",)
) -> type:
    """A WorldDataPack class whose data lives in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    return type(
        f"Pack_{name}",
        (WorldDataPack,),
        {"name": name, "requires": requires, "path": property(lambda self: root)},
    )


# -- a stand-in rules pack with an npc "stats:" extension ------------------------


@dataclass
class OgreStats(Component):
    component_name = "WorldOgreStats"
    level: int = 1
    hp: int = 10


class StatsData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: int = 1
    hp: int = 10


def apply_stats(ctx: ExtensionContext, value: StatsData) -> None:
    ctx.world.add_component(ctx.entity_id, OgreStats(level=value.level, hp=value.hp))


def check_stats(value: StatsData, scope: object) -> list[str]:
    return ["hp must exceed the level"] if value.hp <= value.level else []


def stats_pack(with_check: bool = False) -> type:
    from maid_engine.content import ContentPack, PackContext

    class RulesPack(ContentPack):
        name = "rules"
        requires = ("stdlib",)

        def register(self, ctx: PackContext) -> None:
            ctx.service(WorldData).register_extension(
                "npc",
                "stats",
                StatsData,
                apply_stats,
                check=check_stats if with_check else None,
                owner=self.name,
            )

    return RulesPack
