"""Hamlet: a small neutral test world for the game-agnostic layers.

Two areas (the hamlet by the mill, and the mill road down to the ford), a few
people with needs, goals, schedules, relationships and factions, and a threat: a
wolf pack on the road that cuts the miller's grain supply. It needs only the
stdlib, so tests of world, living, story, quest generation, consequences and
grounding mechanisms do not depend on a game's content. It is loaded through the
normal pack mechanism (``packs=[HamletPack]``); ``kits.engines.hamlet_engine``
builds an engine on it.
"""

from __future__ import annotations

from maid_engine.content import PackContext
from maid_stdlib.living import load_living_data
from maid_stdlib.world.datapack import WorldDataPack


class HamletPack(WorldDataPack):
    name = "hamlet"
    version = "0.1.0"
    requires = ("stdlib",)
    description = "A hamlet by a mill, and wolves on the mill road (a test world)."

    def register(self, ctx: PackContext) -> None:
        super().register(ctx)
        load_living_data(ctx, self.path / "living.yaml")
