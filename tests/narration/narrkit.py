"""Helpers of the narration tests: a small world with narrated rooms, players, models.

The world (pack ``testpack``): ``camp`` (plain), ``cellar`` (narrated, schema file),
``tower`` (narrated, inline schema, with the data NPC ``hask`` standing in for the
schema's ``hask``), ``hut`` (narrated, empty schema).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import yaml
from kits.engines import make_engine as kits_engine
from kits.heroes import new_character

from maid_engine.commands import Role
from maid_engine.content import ContentPack, PackContext
from maid_engine.engine import GameEngine
from maid_engine.llm import LLMRequest, ScriptedProvider
from maid_engine.testing import FakeSession
from maid_stdlib.narration import NarrationConfig, NarrationPlugin, NarrationService
from maid_stdlib.world import WorldDataPack, WorldService

PACK = "testpack"
CELLAR, TOWER, HUT, CAMP = (f"{PACK}:{k}" for k in ("cellar", "tower", "hut", "camp"))

HP_BANDS = [[0, 20, "very weak"], [20, 40, "hurt"], [40, 60, "minor damage"],
            [60, 90, "healthy"], [90, 100, "full health"]]  # fmt: skip

#: The bandit-camp schema, with a cooldown on mana and hp starting inside its range.
SCHEMA: dict[str, Any] = {
    "world": {"day": {"type": "counter", "min": 1, "initial": 1, "max_delta_per_turn": 1,
                      "desc": "In-game day. Send +1 when a night passes."}},
    "player": {
        "hp": {"min": 0, "max": 100, "initial": 90, "max_delta_per_turn": 30,
               "desc": "Your health: -10 when hurt, +10 when healed.", "bands": HP_BANDS},
        "mana": {"min": 0, "max": 50, "initial": 20, "max_delta_per_turn": 15, "cooldown": 2,
                 "desc": "Magic: -5 per spell, +5 after a rest."},
    },
    "npcs": {
        "gwen": {
            "name": "Gwen", "keys": "Gwen, ranger, her",
            "desc": "A ranger held in a cage.",
            "stats": {
                "trust": {"min": -100, "max": 100, "initial": 20, "max_delta_per_turn": 20,
                          "desc": "+5 to +20 for kindness, -5 to -20 for cruelty.",
                          "bands": [[-100, -30, "hostile"], [-30, 30, "wary"],
                                    [30, 100, "ally"]]},
            },
        },
    },
    "flags": {"has_key": {"desc": "You hold the cage key.", "initial": False}},
    "milestones": {
        "rescue_gwen": {"desc": "Rescue Gwen from the bandits"},
        "reach_capital": {"desc": "Arrive at the capital city"},
    },
}  # fmt: skip

TOWER_SCHEMA: dict[str, Any] = {
    "world": {"alarm": {"min": 0, "max": 10, "initial": 2,
                        "desc": "How alert the watch is: +1 per noise, -1 per quiet hour."}},
    "npcs": {"hask": {"name": "Hask", "stats": {"anger": {
        "min": 0, "max": 10, "initial": 3, "desc": "+1 per insult, -1 per gift."}}}},
}  # fmt: skip


def area(cellar: dict[str, Any] | None = None) -> dict[str, Any]:
    narrated = {
        "schema_file": "narrated/cellar.yaml",
        "premise": "Gwen is caged here; the bandits sleep upstairs.",
    }
    if cellar is not None:
        narrated = cellar
    return {
        "area": {"key": "woods", "name": "Woods", "region": "testland"},
        "rooms": [
            {
                "key": "camp",
                "name": "The Camp",
                "description": "Tents around a fire.",
                "exits": {"down": "cellar", "up": "tower", "in": "hut"},
            },
            {
                "key": "cellar",
                "name": "The Cellar",
                "description": "A damp cellar.",
                "exits": {"up": "camp"},
                "narrated": narrated,
            },
            {
                "key": "tower",
                "name": "The Tower",
                "description": "A wooden watchtower.",
                "exits": {"down": "camp"},
                "narrated": {"stat_schema": TOWER_SCHEMA, "scope": "woods"},
            },
            {
                "key": "hut",
                "name": "The Hut",
                "description": "An empty hut.",
                "exits": {"out": "camp"},
                "narrated": {"stat_schema": {}},
            },
        ],
        "npcs": [{"key": "hask", "name": "Hask", "keywords": ["hask"], "room": "tower"}],
    }


def write_pack(
    root: Path, schema: dict[str, Any] | None = None, start: str = "camp", **kw: Any
) -> Path:
    (root / "areas").mkdir(parents=True, exist_ok=True)
    (root / "narrated").mkdir(exist_ok=True)
    (root / "pack.yaml").write_text(yaml.safe_dump({"name": PACK, "start_room": start}))
    (root / "areas" / "woods.yaml").write_text(yaml.safe_dump(area(**kw), sort_keys=False))
    (root / "narrated" / "cellar.yaml").write_text(
        yaml.safe_dump(copy.deepcopy(SCHEMA if schema is None else schema), sort_keys=False)
    )
    return root


class NarrationPack(ContentPack):
    """Requires the narration plugin (as a pack extending narration would)."""

    name = "narration_test"
    requires = (NarrationPlugin,)

    def register(self, ctx: PackContext) -> None:
        """The narration plugin it requires did the wiring."""


def data_pack(root: Path) -> type[WorldDataPack]:
    return type(
        "TestPack",
        (WorldDataPack,),
        {
            "name": PACK,
            "requires": ("stdlib", "narration_test"),
            "path": property(lambda self: root),
        },
    )


def make_engine(
    root: Path,
    data_dir: Path,
    *,
    database_url: str = "",
    use_store: bool = True,
    settings: dict[str, Any] | None = None,
) -> GameEngine:
    return kits_engine(
        data_dir,
        [NarrationPack, data_pack(root)],
        tick=None,
        seed=None,
        db_url=database_url,
        use_store=use_store,
        settings=settings,
    )


def service(engine: GameEngine) -> NarrationService:
    return engine.services.get(NarrationService)


def fast(engine: GameEngine, provider: Any = None, **config: Any) -> NarrationService:
    """Small timings for tests, and the given provider."""
    svc = service(engine)
    svc.config = NarrationConfig(**{"unfolding_after": 5.0, "timeout": 5.0, **config})
    svc.provider = provider
    return svc


def player(
    engine: GameEngine, name: str, room: str = CELLAR, role: Role = Role.PLAYER
) -> tuple[UUID, FakeSession]:
    """A connected character standing in ``room``."""
    uid = new_character(engine, name, online=False, account=f"acct-{name.lower()}")
    engine.services.get(WorldService).move(uid, room, reason="test")
    session = FakeSession(role=role)
    engine.sessions.attach(session, uid)
    return uid, session


def room_id(engine: GameEngine, key: str) -> UUID:
    found = engine.services.get(WorldService).room_id(key)
    assert found is not None, key
    return found


def scripted(*answers: Any, **kw: Any) -> ScriptedProvider:
    return ScriptedProvider(list(answers), **kw)


class Gate:
    """A model whose answers wait for the test to release them, per room name."""

    def __init__(self, answer: str | Callable[[LLMRequest], str] = "It happens.") -> None:
        self.answer = answer
        self.gates: dict[str, asyncio.Event] = {}
        self.provider = ScriptedProvider(self.respond)

    def gate(self, room_name: str) -> asyncio.Event:
        return self.gates.setdefault(room_name, asyncio.Event())

    async def respond(self, request: LLMRequest) -> str:
        scene = request.messages[1]["content"]
        for name, event in self.gates.items():
            if f"Scene: {name}." in scene:
                await event.wait()
        return self.answer(request) if callable(self.answer) else self.answer


async def until(predicate: Callable[[], bool], within: float = 5.0) -> None:
    """Poll real state until ``predicate`` holds (fails after ``within`` seconds)."""

    async def loop() -> None:
        # Polling: the states watched (ticks, handle phases, sessions) have no event.
        while not predicate():  # noqa: ASYNC110
            await asyncio.sleep(0.005)

    await asyncio.wait_for(loop(), within)


async def settle(awaitable: Awaitable[Any], within: float = 10.0) -> Any:
    return await asyncio.wait_for(awaitable, within)


def block(delta: str, prose: str = "The world shifts.") -> str:
    return f"{prose}\n```state\n{delta}\n```"
