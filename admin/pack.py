"""AdminContentPack: admin commands as a content pack (entry point ``admin``)."""

from __future__ import annotations

from admin.quest_commands import QUEST_COMMANDS
from admin.quest_state import AdminState
from classic_rpg.pack import ClassicRPGContentPack
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.consequences import ConsequencesAppliedEvent
from maid_stdlib.pack import StdlibContentPack
from maid_stdlib.questgen.preferences import PREFERENCE_COMMANDS

__all__ = ["AdminContentPack"]


class AdminContentPack(ContentPack):
    name = "admin"
    version = "0.1.0"
    # @quest reads the stdlib's quest generation and the RPG layer's QuestManager.
    requires = (StdlibContentPack, ClassicRPGContentPack)
    provides = (AdminState,)
    description = "Admin commands: the @quest group."

    def register(self, ctx: PackContext) -> None:
        """Add ``@quest`` (admin) and ``questgen on|less|off``."""
        state = AdminState()
        ctx.provide(AdminState, state)
        ctx.subscribe(ConsequencesAppliedEvent, state.on_applied)
        ctx.add_commands(QUEST_COMMANDS)
        # The stdlib's player preference command; no stdlib plugin adds it itself.
        ctx.add_commands(PREFERENCE_COMMANDS)
