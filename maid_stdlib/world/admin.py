"""Staff commands of the world layer: ``@goto``, ``@who``, ``@shutdown``, ``@kick``,
``@announce``."""

from __future__ import annotations

import logging
import time

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.net.markup import escape_markup
from maid_stdlib.world.components import NPC
from maid_stdlib.world.look import name_of, render_room
from maid_stdlib.world.movement import world_of
from maid_stdlib.world.resolve import LISTED, describe, find_entities, resolve_entity
from maid_stdlib.world.service import WorldService

log = logging.getLogger("maid.admin")


def resolve_room(ws: WorldService, wanted: str) -> str:
    """A room key from a key ("ironvale:smithy"), a local key ("smithy"), a room name,
    or the name of someone whose room to go to. CommandError if none or ambiguous."""
    text = wanted.strip()
    if ws.has_room(text):
        return text
    lower = text.lower()
    keys = ws.room_keys()
    candidates = [k for k in keys if k.partition(":")[2] == lower]
    if not candidates:
        named = [(k, r.name.lower()) for k in keys if (r := ws.room(k)) is not None]
        candidates = [k for k, n in named if n == lower] or [k for k, n in named if lower in n]
    if not candidates:
        for uid in ws.world.find_by_name(text):
            room = ws.room_key_of(uid)
            if room is not None and ws.has_room(room):
                return room
        # Then whoever the words name as staff commands read them ("lark" for Lark
        # the pedlar, wherever her day has taken her).
        people = [
            uid
            for uid in find_entities(ws, text, (NPC, PlayerCharacter))
            if (room := ws.room_key_of(uid)) is not None and ws.has_room(room)
        ]
        if len(people) > 1:
            listed = "; ".join(describe(ws, uid) for uid in people[:LISTED])
            raise CommandError(f"'{text}' could be: {listed}. Use the full name or the key.")
        if people:
            room = ws.room_key_of(people[0])
            assert room is not None
            return room
        raise CommandError(f"No room or character matches '{text}'.")
    if len(candidates) > 1:
        listed = ", ".join(sorted(candidates)[:8])
        raise CommandError(f"'{text}' matches several rooms: {listed}. Use a room key.")
    return candidates[0]


@command("@goto", permission=Role.BUILDER, category="building")
def goto(ctx: CommandContext) -> None:
    """Teleport to a room.

    Usage: @goto <room key | room name | someone's name or keyword>
    Examples: @goto ironvale:smithy, @goto smithy, @goto village square, @goto Gundrik,
              @goto lark (wherever Lark the pedlar is now)
    """
    ws = world_of(ctx)
    actor = ctx.require_actor()
    if not ctx.args.strip():
        raise CommandError("Usage: @goto <room key or name>")
    target = resolve_room(ws, ctx.args)
    old = ws.room_key_of(actor)
    name = name_of(ws, actor)
    if old == target:
        raise CommandError("You are already there.")
    if old is not None:
        ws.message_room(old, f"{name} vanishes in a swirl of mist.", exclude=(actor,))
    ws.move(actor, target, reason="goto")
    ws.message_room(target, f"{name} appears out of thin air.", exclude=(actor,))
    ctx.send(render_room(ws, target, actor))


def _idle(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


@command("@who", permission=Role.ADMIN, category="admin", needs_character=False)
def at_who(ctx: CommandContext) -> None:
    """List every connection: character, address, idle time and room.

    Usage: @who
    """
    if ctx.args.strip():
        raise CommandError(f"@who takes no arguments (you gave '{ctx.args.strip()}').\nUsage: @who")
    ws = world_of(ctx)
    now = time.time()
    sessions = ctx.engine.sessions.all()
    rows = [("Character", "Address", "Idle", "Room")]
    for session in sorted(sessions, key=lambda s: s.data.get("connected_at", 0.0)):
        char = session.character_id
        pc = ctx.world.try_component(char, PlayerCharacter) if char is not None else None
        name = pc.name if pc is not None else "(logging in)"
        last = session.data.get("last_input") or session.data.get("connected_at") or now
        room_key = ws.room_key_of(char) if char is not None else None
        room = room_key or "-"
        rows.append((name, session.peer_host, _idle(now - float(last)), room))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}" for r in rows]
    lines[0] = f"|c{lines[0]}|n"
    count = len(sessions)
    lines.append(f"{count} connection{'s' if count != 1 else ''}.")
    ctx.send("\n".join(lines))


@command("@shutdown", permission=Role.ADMIN, category="admin", needs_character=False)
def shutdown(ctx: CommandContext) -> None:
    """Stop the server gracefully (players are told, the world is saved).

    Usage: @shutdown [reason]
    """
    reason = ctx.args.strip()
    ctx.engine.request_shutdown(reason, requested_by=ctx.actor)
    ctx.send("Shutdown requested" + (f": {reason}" if reason else "") + ".")


@command("@kick", permission=Role.ADMIN, category="admin", needs_character=False)
def kick(ctx: CommandContext) -> None:
    """Throw a player off the server (they may log in again; see @ban).

    Usage: @kick <player> [reason]
    The player is named by name, a word of it or its start ("bry" for Bryn).
    """
    words = ctx.args.split(maxsplit=1)
    if not words:
        raise CommandError("Usage: @kick <player> [reason]")
    ws = world_of(ctx)
    who = resolve_entity(ws, words[0], (PlayerCharacter,), what="player")
    session = ctx.engine.sessions.session_for(who)
    name = name_of(ws, who)
    if session is None:
        raise CommandError(f"{name} is not connected.")
    if session is ctx.session:
        raise CommandError("You cannot kick yourself; type 'quit'.")
    reason = words[1].strip() if len(words) > 1 else ""
    if Role.parse(session.data.get("role", Role.PLAYER)) >= ctx.role:
        raise CommandError(f"{name} has a role as high as yours; you cannot kick them.")
    session.data["disconnect_reason"] = "kicked"
    told = f": {escape_markup(reason)}" if reason else "."
    session.close(f"You have been kicked off the server by an admin{told}")
    log.warning("%s kicked %s%s", ctx.account_id, name, f" ({reason})" if reason else "")
    ctx.send(f"Kicked {name}" + (f" ({escape_markup(reason)})." if reason else "."))


@command("@announce", permission=Role.ADMIN, category="admin", needs_character=False)
def announce(ctx: CommandContext) -> None:
    """Tell everyone who is playing something, in a line of its own.

    Usage: @announce <message>
    Example: @announce The server restarts in ten minutes for an update.
    """
    text = ctx.args.strip()
    if not text:
        raise CommandError("Usage: @announce <message>")
    line = f"|y[Announcement]|n {escape_markup(text)}"
    sessions = ctx.engine.sessions.playing()
    for session in sessions:
        session.send(line)
    log.info("%s announced: %s", ctx.account_id, text)
    ctx.send(f"Announced to {len(sessions)} player(s).")


COMMANDS: list[Command] = [goto, at_who, shutdown, kick, announce]
