"""Ironvale with the living world, story signals and quest generation wired in.

Until the stdlib and Ironvale packs wire these layers themselves, the test pack
here does it, registering only what is not there yet (so these tests keep working
once the real wiring lands).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import ContentPack, PackContext
from maid_engine.engine import GameEngine
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen import (
    NarrativeContext,
    QuestDialogue,
    QuestGen,
    QuestNarrative,
    register_questgen,
)
from maid_stdlib.world import NPC

IRONVALE = Path(__file__).resolve().parents[2] / "content_packs" / "ironvale"


class QuestgenWiring(ContentPack):
    name = "questgen_wiring"
    requires = ("ironvale",)

    def register(self, ctx: PackContext) -> None:
        from classic_rpg.questgen import register_rpg_questgen
        from maid_stdlib.living.data import load_living_data
        from maid_stdlib.living.register import register_living
        from maid_stdlib.story.detectors import StoryDetectors
        from maid_stdlib.story.register import register_story

        services = ctx.engine.services
        # Ironvale's data uses the narration layer's room extension.
        from maid_stdlib.narration.register import register_narration
        from maid_stdlib.world.loader import WorldData

        if services.get(WorldData).extension("room", "narrated") is None:
            register_narration(ctx)
        if LivingWorld not in services:
            register_living(ctx)
        living = services.get(LivingWorld)
        if not any(d.pack == "ironvale" for d in [*living.pending_data, *living.applied_data]):
            load_living_data(ctx, IRONVALE / "living.yaml", namespace="ironvale")
        if StoryDetectors not in services:
            register_story(ctx)
        if QuestGen not in services:
            register_questgen(ctx)
        if "threat_elimination" not in services.get(QuestGen).archetypes:
            register_rpg_questgen(ctx)


def make_engine(tmp_path: Path, tick: float = 60.0, **kw: Any) -> GameEngine:
    return GameEngine(
        Settings(data_dir=tmp_path, random_seed=kw.pop("random_seed", 7)),
        clock=ManualClock(tick_game_seconds=tick),
        packs=["ironvale", QuestgenWiring],
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
            description=f"{ctx.giver_name} speaks: {ctx.motivation} {ctx.backstory} "
            f"{ctx.stakes}",
            dialogue=QuestDialogue(
                offer=f"{ctx.motivation} Will you help?",
                progress="Any news?",
                completion="You have my thanks.",
            ),
            source="template",
        )
