"""``@mute`` and ``@unmute``: silence a player on every way of talking to others.

A muted character keeps playing but cannot say, emote, tell, whisper, reply,
shout, use a social or talk on a channel (listening, ``<channel> history`` and
``<channel> on|off`` still work). The mute is a component of the character, so it
is saved with them and survives a relog or a restart; it ends at its time (game
wall clock, see :class:`Muted`) or with ``@unmute``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from maid_engine.accounts.bans import format_duration, parse_duration
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.ecs import Component
from maid_engine.net.markup import escape_markup
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import world_of
from maid_stdlib.world.resolve import resolve_entity

__all__ = ["COMMANDS", "MuteGuard", "Muted"]

log = logging.getLogger("maid.admin")

#: Commands of the "communication" category a muted player keeps (no one hears them).
ALLOWED = frozenset({"afk"})
#: Words after a channel's name that do not talk on it.
CHANNEL_CONTROLS = frozenset({"", "history", "on", "off"})


@dataclass
class Muted(Component):
    """The character may not talk to others until ``until`` (wall clock; 0: until
    lifted)."""

    component_name = "Muted"
    reason: str = ""
    by: str = ""
    until: float = 0.0


class MuteGuard:
    """A command guard refusing a muted character's talk."""

    def __call__(self, ctx: CommandContext, cmd: Command) -> str | None:
        if ctx.actor is None or not _is_talk(ctx, cmd):
            return None
        muted = ctx.world.try_component(ctx.actor, Muted)
        if muted is None:
            return None
        now = ctx.engine.clock.wall()
        if muted.until and now >= muted.until:
            ctx.world.remove_component(ctx.actor, Muted)
            return None
        left = f" for another {format_duration(muted.until - now)}" if muted.until else ""
        return f"You are muted{left}: {escape_markup(muted.reason)}"


def _is_talk(ctx: CommandContext, cmd: Command) -> bool:
    if cmd.category in ("communication", "socials"):
        return cmd.key not in ALLOWED and cmd.key != "socials"
    if cmd.category == "channels" and cmd.key not in ("channels", "history"):
        return ctx.args.strip().lower() not in CHANNEL_CONTROLS
    return False


@command("@mute", permission=Role.ADMIN, category="admin", needs_character=False)
def at_mute(ctx: CommandContext) -> None:
    """Stop a player talking to others: say, emote, tell, whisper, reply, shout,
    socials and the channels.

    Usage: @mute                            who is muted
           @mute <player> [<time>] <reason>
    <time> is 30m, 12h, 7d or 2w; without it the mute holds until @unmute. The
    player is told, and the mute is kept with the character across logins.
    Example: @mute Bryn 2h shouting in capitals
    """
    ws = world_of(ctx)
    now = ctx.engine.clock.wall()
    words = ctx.args.split()
    if not words:
        rows = [
            f"  {name_of(ws, uid)}: {m.reason} (by {m.by}"
            + (f", {format_duration(m.until - now)} left)" if m.until else ", until lifted)")
            for uid, m in ctx.world.each(Muted)
            if not m.until or m.until > now
        ]
        ctx.send("\n".join(["Muted:", *sorted(rows)]) if rows else "Nobody is muted.")
        return
    who = resolve_entity(ws, words[0], (PlayerCharacter,), what="player")
    seconds = parse_duration(words[1]) if len(words) > 1 else None
    reason = " ".join(words[2:] if seconds is not None else words[1:])
    if not reason:
        raise CommandError(
            "Give a reason: the player is told it.\nUsage: @mute <player> [<time>] <reason>"
        )
    if who == ctx.actor:
        raise CommandError("You cannot mute yourself.")
    session = ctx.engine.sessions.session_for(who)
    if session is not None and Role.parse(session.data.get("role", Role.PLAYER)) >= ctx.role:
        raise CommandError(f"{name_of(ws, who)} has a role as high as yours.")
    by = ctx.account_id or "admin"
    until = now + seconds if seconds is not None else 0.0
    ctx.world.add_component(who, Muted(reason=reason, by=by, until=until))
    span = f" for {format_duration(seconds)}" if seconds is not None else " until lifted"
    ctx.engine.sessions.send_to(who, f"An admin has muted you{span}: {escape_markup(reason)}")
    log.warning("%s muted %s%s: %s", by, name_of(ws, who), span, reason)
    ctx.send(f"Muted {name_of(ws, who)}{span}: {escape_markup(reason)}.")


@command("@unmute", permission=Role.ADMIN, category="admin", needs_character=False)
def at_unmute(ctx: CommandContext) -> None:
    """Let a muted player talk again.

    Usage: @unmute <player>
    """
    if not ctx.args.strip():
        raise CommandError("Usage: @unmute <player>")
    ws = world_of(ctx)
    who = resolve_entity(ws, ctx.args, (PlayerCharacter,), what="player")
    if ctx.world.remove_component(who, Muted) is None:
        raise CommandError(f"{name_of(ws, who)} is not muted.")
    ctx.engine.sessions.send_to(who, "You may talk again: an admin lifted your mute.")
    ctx.send(f"{name_of(ws, who)} may talk again.")


COMMANDS: list[Command] = [at_mute, at_unmute]
