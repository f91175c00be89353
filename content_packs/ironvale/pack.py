"""The Ironvale content pack: the default world of ``maid run``.

Its world is data: ``pack.yaml`` (the start room) and ``areas/*.yaml``. Layers
loaded alongside it add to the same entries through extension sections (the RPG
layer's ``stats:``, the living world's ``needs:``/``goals:``/``schedule:``).
"""

from __future__ import annotations

from classic_rpg.systems.quests.data import pack_quest_problems
from maid_engine.content import PackContext
from maid_stdlib.living import load_living_data
from maid_stdlib.world.datapack import WorldDataPack


class IronvalePack(WorldDataPack):
    name = "ironvale"
    version = "0.1.0"
    requires = ("stdlib", "classic_rpg")
    description = "Ironvale, a mining village cut off by bandits on the Old Trade Road."

    def register(self, ctx: PackContext) -> None:
        super().register(ctx)
        load_living_data(ctx, self.path / "living.yaml")

    def validate_data(self, ctx: PackContext) -> list[str]:
        # quests.yaml is read by the QuestManager at start-up; check it here too.
        return [*super().validate_data(ctx), *pack_quest_problems(ctx)]
