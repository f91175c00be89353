"""``@story``: the live story situations, for builders."""

from __future__ import annotations

import re
from uuid import UUID

from maid_engine.clock import GAME_HOUR
from maid_engine.commands import Command, CommandContext, Role, command
from maid_engine.net.markup import escape_markup
from maid_stdlib.story.system import StorySignalSystem
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService


@command("@story", permission=Role.BUILDER, category="building", needs_character=False)
def at_story(ctx: CommandContext) -> None:
    """List the live story situations (what the quest pipeline is being told).

    Usage:
      @story          the live situations, newest first
      @story now      run every detector now, then list
    """
    system: StorySignalSystem = ctx.engine.get_system(StorySignalSystem)
    if ctx.args.strip().lower() == "now":
        emitted = system.detect_now()
        ctx.send(f"Detected now: {len(emitted)} new signal(s).")
    now = ctx.engine.clock.game_time
    rows = sorted(system.active.items(), key=lambda kv: -kv[1].since)
    if not rows:
        ctx.send("No live story situations.")
        return
    ws = ctx.engine.services.get(WorldService)
    lines = [f"|w{len(rows)} live situation(s)|n"]
    for key, situation in rows:
        band = f" [{situation.band}]" if situation.band else ""
        ago = (now - situation.since) / GAME_HOUR
        shown = escape_markup(readable_key(ws, key))
        lines.append(f"  {situation.signal_type}{escape_markup(band)} {shown} ({ago:.1f}h ago)")
    ctx.send("\n".join(lines))


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def readable_key(ws: WorldService, key: str) -> str:
    """A situation key with each entity id replaced by that entity's name.

    Keys hold ids so they stay unique; a builder reads "goal_blocked:Hollin:get_iron",
    not a UUID. An id whose entity is gone stays as it is (there is no name left).
    """

    def named(match: re.Match[str]) -> str:
        entity = UUID(match.group(0))
        if not ws.world.entity_exists(entity):
            return match.group(0)
        name = name_of(ws, entity)
        return name if name != "something" else match.group(0)

    return _UUID.sub(named, key)


COMMANDS: list[Command] = [at_story]
