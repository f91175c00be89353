"""``register_admin(ctx)``: everything the admin pack adds to an engine."""

from __future__ import annotations

from maid_engine.commands import Command
from maid_engine.content import PackContext

__all__ = ["register_admin"]


def _taken(ctx: PackContext, name: str) -> bool:
    return any(name in c.names for c in ctx.engine.commands.match(name))


def _add_once(ctx: PackContext, commands: list[Command]) -> None:
    # Another pack may own the same command (the stdlib may take over
    # ``questgen``); the first registration wins instead of failing start-up.
    for cmd in commands:
        if not any(_taken(ctx, name) for name in cmd.names):
            ctx.add_command(cmd)


def register_admin(ctx: PackContext) -> None:
    """Add ``@quest`` (admin), ``more``/``next`` and ``questgen on|less|off``."""
    from admin.pager import PAGER_COMMANDS
    from admin.quest_commands import QUEST_COMMANDS
    from admin.quest_state import AdminState
    from maid_stdlib.consequences import ConsequencesAppliedEvent
    from maid_stdlib.questgen.preferences import PREFERENCE_COMMANDS

    if AdminState not in ctx.engine.services:
        state = AdminState()
        ctx.provide(AdminState, state)
        ctx.subscribe(ConsequencesAppliedEvent, state.on_applied)
    # Same keys as the stdlib's own @quest and questgen (if it registered them):
    # the registry replaces a command of the same key, so these win.
    ctx.add_commands(QUEST_COMMANDS)
    ctx.add_commands(PREFERENCE_COMMANDS)
    _add_once(ctx, PAGER_COMMANDS)
