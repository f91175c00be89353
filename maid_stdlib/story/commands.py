"""``@story``: the live story situations, for builders."""

from __future__ import annotations

from maid_engine.clock import GAME_HOUR
from maid_engine.commands import Command, CommandContext, Role, command
from maid_stdlib.story.system import StorySignalSystem


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
    lines = [f"|w{len(rows)} live situation(s)|n"]
    for key, situation in rows:
        band = f" [{situation.band}]" if situation.band else ""
        ago = (now - situation.since) / GAME_HOUR
        lines.append(f"  {situation.signal_type}{band} {key} ({ago:.1f}h ago)")
    ctx.send("\n".join(lines))


COMMANDS: list[Command] = [at_story]
