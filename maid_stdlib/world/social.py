"""Talking: ``say``, ``emote`` and ``tell`` (``who`` is in :mod:`.who`; the talk
plugin, ``maid_stdlib.talk``, adds channels, socials, shout, whisper, reply and afk).

Everything a player types that others will see passes through ``player_words``
(markup made inert, so nobody can paint other people's screens with colour codes;
bidi controls, zero-width characters and line separators removed), and every line
carrying it is ``spoken``: when it wraps, its continuation lines are indented, so
nobody can pad their words to start someone's next line with a fake message.
"""

from __future__ import annotations

from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.world.components import Away, ReplyTo
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import here, world_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import player_words, quoted_words, spoken


@command("say", category="communication")
def say(ctx: CommandContext) -> None:
    """Say something to everyone in the room.

    Usage: say <message>     (or 'message)
    """
    ws, actor, room = here(ctx)
    safe = quoted_words(ctx.args)
    if not safe:
        raise CommandError("Say what?")
    ctx.send(spoken(f'You say, "{safe}"'))
    ws.message_room(room, spoken(f'{name_of(ws, actor)} says, "{safe}"'), exclude=(actor,))


@command("emote", aliases=("pose",), category="communication")
def emote(ctx: CommandContext) -> None:
    """Show the room what you do.

    Usage: emote <action>    (or :action)
    Example: "emote waves." shows "Alice waves." to everyone here.
    """
    ws, actor, room = here(ctx)
    safe = player_words(ctx.args).strip()
    if not safe:
        raise CommandError("Emote what?")
    glue = "" if safe.startswith(("'", ",")) else " "
    line = spoken(f"{name_of(ws, actor)}{glue}{safe}")
    ctx.send(line)
    ws.message_room(room, line, exclude=(actor,))


def online_characters(ctx: CommandContext) -> list[tuple[str, UUID]]:
    """(name, id) of every connected character, sorted by name."""
    world = ctx.world
    out = []
    for uid in ctx.engine.sessions.characters_online():
        pc = world.try_component(uid, PlayerCharacter)
        if pc is not None and world.entity_exists(uid):
            out.append((pc.name, uid))
    return sorted(out, key=lambda item: item[0].casefold())


def find_online(ctx: CommandContext, name: str) -> UUID:
    """The connected character called ``name`` (or a unique prefix of the name)."""
    wanted = name.casefold()
    chars = online_characters(ctx)
    exact = [uid for n, uid in chars if n.casefold() == wanted]
    if exact:
        return exact[0]
    prefixed = [(n, uid) for n, uid in chars if n.casefold().startswith(wanted)]
    if len(prefixed) == 1:
        return prefixed[0][1]
    if prefixed:
        raise CommandError(f"Who do you mean: {', '.join(n for n, _ in prefixed[:8])}?")
    raise CommandError(f"Nobody called '{name}' is playing right now.")


@command("tell", category="communication")
def tell(ctx: CommandContext) -> None:
    """Send a private message to a player anywhere in the world.

    Usage: tell <name> <message>
    """
    actor = ctx.require_actor()
    name, _, text = ctx.args.strip().partition(" ")
    safe = quoted_words(text)
    if not name or not safe:
        raise CommandError("Usage: tell <name> <message>")
    target = find_online(ctx, name)
    if target == actor:
        raise CommandError("You mutter something to yourself.")
    send_tell(ctx, actor, target, safe)


def send_tell(ctx: CommandContext, actor: UUID, target: UUID, safe: str) -> None:
    """Deliver a tell (``safe``: already made safe) and tell the sender if the
    target is away; the target's ``reply`` answers the sender."""
    ws: WorldService = world_of(ctx)
    ctx.engine.sessions.send_to(target, spoken(f'|m{name_of(ws, actor)} tells you,|n "{safe}"'))
    note_sender(ctx, target, actor)
    ctx.send(spoken(f'|mYou tell {name_of(ws, target)},|n "{safe}"'))
    tell_if_away(ctx, target)


def note_sender(ctx: CommandContext, target: UUID, sender: UUID) -> None:
    """Remember who last spoke to ``target`` privately, for ``reply``."""
    ctx.world.add_component(target, ReplyTo(sender))


def tell_if_away(ctx: CommandContext, target: UUID) -> None:
    """Tell the sender that ``target`` is away (``afk``), with their message."""
    away = ctx.world.try_component(target, Away)
    if away is None:
        return
    name = name_of(world_of(ctx), target)
    why = f": {away.message}" if away.message else "."
    ctx.send(spoken(f"{name} is away (AFK){why}"))


COMMANDS: list[Command] = [say, emote, tell]
