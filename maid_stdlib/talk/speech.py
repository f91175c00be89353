"""Talking beyond the room and the channels: ``shout`` (the whole area),
``whisper`` (to someone here; the others see that you whisper), ``reply`` (to
whoever last sent you a tell or whisper) and ``afk`` (away: shown in ``who`` and
told to whoever sends you a tell; any other command brings you back)."""

from __future__ import annotations

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.events import CharacterConnectedEvent
from maid_engine.ports import WorldPort
from maid_stdlib.world.components import Away, ReplyTo
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import here, world_of
from maid_stdlib.world.social import note_sender, send_tell, tell_if_away
from maid_stdlib.world.text import capitalize, player_words, quoted_words, spoken

#: The longest away message kept.
MAX_AWAY = 120


@command("shout", aliases=("yell",), category="communication")
def shout(ctx: CommandContext) -> None:
    """Shout something everyone in this area hears.

    Usage: shout <message>
    """
    ws, actor, room = here(ctx)
    safe = quoted_words(ctx.args)
    if not safe:
        raise CommandError("Shout what?")
    area = ws.area_of(room)
    rooms = ws.rooms_of_area(area) if area is not None else [room]
    line = spoken(f'{capitalize(name_of(ws, actor))} shouts, "{safe}"')
    for key in rooms:
        for uid in ws.characters_in(key):
            if uid != actor:
                ctx.engine.sessions.send_to(uid, line)
    ctx.send(spoken(f'You shout, "{safe}"'))


@command("whisper", category="communication")
def whisper(ctx: CommandContext) -> None:
    """Whisper to someone in the room; the others only see that you whisper.

    Usage: whisper <name> <message>
    """
    ws, actor, room = here(ctx)
    name, _, text = ctx.args.strip().partition(" ")
    safe = quoted_words(text)
    if not name or not safe:
        raise CommandError("Usage: whisper <name> <message>")
    if name.lower() in ("me", "self", "myself") or ws.matches(actor, [name.lower()]):
        raise CommandError("You whisper something to yourself.")
    target = ws.find_in_room(room, name, kinds=(PlayerCharacter,), viewer=actor)
    if target is None:
        raise CommandError(f"There is nobody called '{player_words(name)}' here to whisper to.")
    me, them = capitalize(name_of(ws, actor)), name_of(ws, target)
    ctx.engine.sessions.send_to(target, spoken(f'|m{me} whispers to you,|n "{safe}"'))
    note_sender(ctx, target, actor)
    ctx.send(spoken(f'|mYou whisper to {them},|n "{safe}"'))
    ws.message_room(room, f"{me} whispers something to {them}.", exclude=(actor, target))
    tell_if_away(ctx, target)


@command("reply", aliases=("r",), category="communication")
def reply(ctx: CommandContext) -> None:
    """Answer whoever last sent you a tell or a whisper (as a tell).

    Usage: reply <message>
    """
    actor = ctx.require_actor()
    last = ctx.world.try_component(actor, ReplyTo)
    if last is None or last.sender is None or not ctx.world.entity_exists(last.sender):
        raise CommandError("Nobody has sent you a tell or a whisper to reply to.")
    safe = quoted_words(ctx.args)
    if not safe:
        raise CommandError("Reply what?")
    if not ctx.engine.sessions.is_online(last.sender):
        name = name_of(world_of(ctx), last.sender)
        raise CommandError(f"{name} is not playing right now.")
    send_tell(ctx, actor, last.sender, safe)


@command("afk", aliases=("away",), category="communication")
def afk(ctx: CommandContext) -> None:
    """Mark yourself away from the keyboard; typing anything brings you back.

    Usage: afk [<message>]     e.g. "afk making tea"
    'who' shows you as [AFK], and whoever sends you a tell reads your message.
    """
    actor = ctx.require_actor()
    message = player_words(ctx.args).strip()[:MAX_AWAY]
    ctx.world.add_component(actor, Away(message))
    why = f": {message}" if message else ""
    ctx.send(spoken(f"You are now away (AFK){why}. Type anything to come back."))


class AwayClearer:
    """Any command but ``afk`` ends being away, and so does logging in again."""

    def __init__(self, engine: WorldPort) -> None:
        self.engine = engine

    def on_command(self, ctx: CommandContext, cmd: Command) -> None:
        if ctx.actor is None or cmd.key == "afk":
            return
        if self.engine.world.remove_component(ctx.actor, Away) is not None:
            ctx.send("You are back (no longer AFK).")

    def on_connected(self, event: CharacterConnectedEvent) -> None:
        if self.engine.world.entity_exists(event.character_id):
            self.engine.world.remove_component(event.character_id, Away)


COMMANDS: list[Command] = [shout, whisper, reply, afk]
