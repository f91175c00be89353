"""The Ironvale content pack: the default world of ``maid run``.

Its world is data: ``pack.yaml`` (the start room) and ``areas/*.yaml``. Layers
loaded alongside it add to the same entries through extension sections (the RPG
layer's ``stats:``, the living world's ``needs:``/``goals:``/``schedule:``).
"""

from __future__ import annotations

from maid_stdlib.world.datapack import WorldDataPack


class IronvalePack(WorldDataPack):
    name = "ironvale"
    version = "0.1.0"
    requires = ("stdlib",)
    description = "Ironvale, a mining village cut off by bandits on the Old Trade Road."
