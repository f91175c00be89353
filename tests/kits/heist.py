"""The heist pack (with the world it extends, which its ``requires`` loads) and the
admin pack, with the whole quest loop wired (by the stdlib and classic_rpg packs)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from admin import AdminContentPack
from classic_rpg.components import CharacterStats
from content_packs.heist.pack import HeistPack
from kits.engines import QuestgenSettings, qg_of, questgen_of
from kits.engines import make_engine as kits_engine
from kits.heroes import new_character
from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.questgen.generation_config import QuestGenerationConfig


def make_engine(
    tmp_path: Path,
    *,
    store: bool = True,
    seed: int = 11,
    config: QuestGenerationConfig | None = None,
    **settings: Any,
) -> GameEngine:
    """The heist world with the admin pack; ``config``: the generation settings."""
    packs: list[Any] = [HeistPack, AdminContentPack]
    if config is not None:
        packs.insert(0, QuestgenSettings(config))
    return kits_engine(tmp_path, packs, seed=seed, use_store=store, settings=settings)


async def settle() -> None:
    """Let every background task finish (document flushes, audits): the real loop
    sleeps between ticks, a test must wait for them explicitly."""
    me = asyncio.current_task()
    while tasks := [t for t in asyncio.all_tasks() if t is not me and not t.done()]:
        await asyncio.gather(*tasks, return_exceptions=True)


async def ticks(engine: GameEngine, n: int = 1) -> None:
    """``n`` ticks, letting background builds and writes finish between them."""
    system = questgen_of(engine)
    for _ in range(n):
        await engine.tick()
        await system.drain()
        await settle()


def character(engine: GameEngine, name: str, level: int = 3) -> UUID:
    """A player character (offline) of ``level``."""
    hero = new_character(engine, name, online=False, account=f"acct-{name.lower()}")
    engine.world.get_component(hero, CharacterStats).level = level
    return hero


async def admin(engine: GameEngine, actor: UUID, line: str) -> str:
    return await cmd(engine, actor, line, role=Role.ADMIN)


# -- building a world through the real pipeline --------------------------------------
def newest_quest(engine: GameEngine, archetype: str | None = None) -> str | None:
    """Id of the most recently generated quest (of ``archetype``)."""
    entries = [
        e
        for e in qg_of(engine).history.recent(50)
        if archetype is None or e.archetype_id == archetype
    ]
    return entries[0].quest_id if entries else None


async def until_quest(
    engine: GameEngine, archetype: str, limit: int = 120, exclude: frozenset[str] = frozenset()
) -> str:
    """Tick until a quest of ``archetype`` is registered; returns its id."""
    history = qg_of(engine).history
    for _ in range(limit):
        found = [
            e.quest_id
            for e in history.recent(50)
            if e.archetype_id == archetype and e.quest_id not in exclude
        ]
        if found:
            await ticks(engine, 2)  # the side-table is written in the background
            return found[0]
        await ticks(engine, 1)
    raise AssertionError(f"no {archetype} quest after {limit} ticks")


async def force(engine: GameEngine, actor: UUID, seed_type: str, npc_ref: str = "") -> str:
    """``@quest force-generate`` and the ticks that build it; the new quest's id."""
    before = newest_quest(engine)
    out = await admin(engine, actor, f"@quest force-generate {seed_type} {npc_ref}".strip())
    assert "Queued seed" in out, out
    for _ in range(5):
        await ticks(engine, 1)
        quest_id = newest_quest(engine)
        if quest_id is not None and quest_id != before:
            await ticks(engine, 2)
            return quest_id
    raise AssertionError(f"forced {seed_type} seed was not built: {out}")


HEIST_WALK = ("east", "north", "west")
HEIST_JOB = (
    "east",
    "east",
    "north",
    "get strongbox",
    "south",
    "west",
    "west",
    "give strongbox to tamsin",
)


async def do_heist(engine: GameEngine, hero: UUID, quest_id: str) -> list[str]:
    """Play the heist through commands: to Tamsin, accept, steal, deliver, turn in."""
    out = [await cmd(engine, hero, line) for line in HEIST_WALK]
    out.append(await cmd(engine, hero, "talk tamsin"))
    out.append(await cmd(engine, hero, f"accept {quest_id}"))
    out += [await cmd(engine, hero, line) for line in HEIST_JOB]
    out.append(await cmd(engine, hero, "talk tamsin"))
    return out


@dataclass
class LoopWorld:
    engine: GameEngine
    admin: UUID
    thief: UUID
    player: UUID
    expired: str
    heist: str
    chained: str
    active: str
