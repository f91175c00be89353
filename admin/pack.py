"""AdminContentPack: admin commands as a content pack (entry point ``admin``)."""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext


class AdminContentPack(ContentPack):
    name = "admin"
    version = "0.1.0"
    # @quest reads the stdlib's quest generation and the RPG layer's QuestManager.
    requires = ("stdlib", "classic_rpg")
    description = "Admin commands: the @quest group, paging of long reports."

    def register(self, ctx: PackContext) -> None:
        from admin.register import register_admin

        register_admin(ctx)
