"""NavigationPlugin (``stdlib.navigation``): getting around.

Provides the ``Navigation`` service (calendar, recall guards and cooldowns, map
settings), the ``map:`` room data section (declared map coordinates) and the
commands exits, map, where, time and recall.
"""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.navigation.commands import COMMANDS
from maid_stdlib.navigation.layout import MapCoords, MapData
from maid_stdlib.navigation.service import Navigation
from maid_stdlib.world.extensions import ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.plugin import WorldPlugin

__all__ = ["NavigationPlugin"]


def apply_map(ctx: ExtensionContext, value: MapData) -> None:
    """Give the room built from data its declared place on the map."""
    ctx.world.add_component(ctx.entity_id, MapCoords(x=value.x, y=value.y, z=value.z))


class NavigationPlugin(ContentPack):
    name = "stdlib.navigation"
    requires = (WorldPlugin,)
    provides = (Navigation,)
    description = "Getting around: exits, map, where, time and recall."

    def register(self, ctx: PackContext) -> None:
        ctx.provide(Navigation, Navigation())
        ctx.service(WorldData).register_extension(
            "room", "map", MapData, apply_map, owner=ctx.pack.name
        )
        ctx.add_commands(COMMANDS)
