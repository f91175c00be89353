"""BuildingPlugin (``stdlib.building``): online building for builders.

Provides ``PackEditor`` (edits of world packs' files, checked and applied through
the reload path) and the commands @dig, @tunnel, @open, @link, @create, @set,
@desc (with the line editor), @npc, @destroy and @examine.
"""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.building import commands
from maid_stdlib.building.editor import PackEditor
from maid_stdlib.building.lineeditor import intercept
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.world.plugin import WorldPlugin
from maid_stdlib.world.reload import PackReloader

__all__ = ["BuildingPlugin"]


class BuildingPlugin(ContentPack):
    name = "stdlib.building"
    requires = (WorldPlugin, LivingPlugin)
    provides = (PackEditor,)
    description = "Online building: rooms, exits, items and NPCs written back to the packs."

    def register(self, ctx: PackContext) -> None:
        ctx.provide(PackEditor, PackEditor(ctx.service(PackReloader)))
        ctx.add_commands(commands.COMMANDS)
        ctx.engine.commands.add_interceptor(intercept)
