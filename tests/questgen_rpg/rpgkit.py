"""Ironvale with the living world, story signals and quest generation (all wired
by the stdlib, classic_rpg and Ironvale packs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_stdlib.questgen import (
    NarrativeContext,
    QuestDialogue,
    QuestNarrative,
)
from maid_stdlib.world import NPC


def make_engine(tmp_path: Path, tick: float = 60.0, **kw: Any) -> GameEngine:
    return GameEngine(
        Settings(data_dir=tmp_path, random_seed=kw.pop("random_seed", 7)),
        clock=ManualClock(tick_game_seconds=tick),
        packs=["ironvale"],
        use_store=kw.pop("use_store", False),
        **kw,
    )


def npc(engine: GameEngine, template: str) -> UUID:
    found = [u for u, n in engine.world.each(NPC) if n.template == template]
    assert found, f"no NPC {template}"
    return sorted(found)[0]


def npcs(engine: GameEngine, template: str) -> list[UUID]:
    return sorted(u for u, n in engine.world.each(NPC) if n.template == template)


class EchoNarrator:
    """A trivial NarrativeProvider: prose made only of the context's facts."""

    def __init__(self) -> None:
        self.contexts: list[NarrativeContext] = []

    async def generate(self, ctx: NarrativeContext) -> QuestNarrative:
        self.contexts.append(ctx)
        where = ctx.area_name or (ctx.locations[0] if ctx.locations else "the village")
        return QuestNarrative(
            title=f"{ctx.giver_name}'s Plea",
            summary=f"{ctx.giver_name} needs help at {where}.",
            description=f"{ctx.giver_name} speaks: {ctx.motivation} {ctx.backstory} {ctx.stakes}",
            dialogue=QuestDialogue(
                offer=f"{ctx.motivation} Will you help?",
                progress="Any news?",
                completion="You have my thanks.",
            ),
            source="template",
        )
