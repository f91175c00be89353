"""Player and builder commands of narrated rooms, and the fallback for free input.

Every command here returns at once: turns, retries and undos are queued on the
room (the command holds ``world_lock``, and the model must never be awaited under
it). Results reach the room when the queued job runs.

None of them allow prefix matching, so adding them changes nothing for existing
abbreviations ("re" still means remove, "un" unwield).
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.commands.command import Fallback, Rescue
from maid_engine.net.sanitize import clean_authored
from maid_stdlib.narration.components import NarratedRoom
from maid_stdlib.narration.insights import (
    DEFAULT_TURNS,
    MAX_TURNS,
    render_insights,
    render_last,
)
from maid_stdlib.narration.jobs import TurnHandle
from maid_stdlib.narration.rooms import RoomSetup
from maid_stdlib.narration.service import NarrationError, NarrationService
from maid_stdlib.narration.sheet import render_sheet, set_value
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.look import name_of
from maid_stdlib.world.pager import page
from maid_stdlib.world.text import escape_markup, player_words, spoken

CATEGORY = "narration"

#: Told to a player who enters a narrated room: nothing else says that plain words
#: work here, and a player used to commands would otherwise never try.
ARRIVAL_HINT = (
    "|x(A storyteller runs this place: type what you do in your own words, e.g. "
    "'search the sacks', or 'act <anything>'. Commands still work; 'help narrated' says more.)|n"
)
#: The same where no storyteller is configured: what the player types there is only
#: sketched, and a player who tries to open a cage should know that before trying.
ARRIVAL_HINT_NO_STORYTELLER = (
    "|x(A storyteller would run this place, but this server has none: what you do "
    "here in your own words is only sketched and changes nothing. Commands still "
    "work; 'help narrated' says more.)|n"
)
#: The ways a player arrives somewhere on their own account (a move made by a script
#: or a test is not an arrival the player needs explaining).
ARRIVALS = frozenset({"walk", "login", "goto", "flee", "follow", "recall", "respawn"})


def service_of(ctx: CommandContext) -> NarrationService:
    svc: NarrationService = ctx.service(NarrationService)
    return svc


def _here(ctx: CommandContext) -> tuple[NarrationService, UUID, RoomSetup]:
    svc = service_of(ctx)
    actor = ctx.require_actor()
    setup = svc.room_of(actor)
    if setup is None:
        raise CommandError("Nothing here answers to free-form actions.")
    return svc, actor, setup


def acknowledge(ctx: CommandContext, svc: NarrationService, handle: TurnHandle, text: str) -> None:
    """Tell the actor (and the room) what was asked for, before the story answers."""
    shown = player_words(" ".join(text.split()))
    ctx.send(spoken(f"You act: {shown}"))
    ahead = svc.waiting(handle.room) - 1
    if ahead > 0:
        ctx.send(
            f"|x(The story is still telling {ahead} earlier action"
            f"{'s' if ahead > 1 else ''} here; yours follows.)|n"
        )
    name = name_of(svc.ws, handle.actor)
    svc.ws.message_room(handle.room, spoken(f"{name} acts: {shown}"), exclude=(handle.actor,))


def submit(ctx: CommandContext, svc: NarrationService, actor: UUID, text: str) -> TurnHandle:
    # What the room is shown and what the turn log keeps: no invisible characters.
    text = clean_authored(text)
    try:
        handle = svc.submit_action(actor, text)
    except NarrationError as exc:
        raise CommandError(str(exc)) from None
    acknowledge(ctx, svc, handle, text)
    return handle


@command("act", prefix_match=False, category=CATEGORY)
def act(ctx: CommandContext) -> None:
    """Do something free-form in a narrated room; the story tells what happens.

    Usage: act <what you do>
    Example: act pry the lid off the crate as quietly as I can

    In a narrated room anything that is not a command works the same way, and so
    does a line a command cannot make sense of: "look for a spare key among the
    sacks" is told by the story, not answered with "You do not see...". The words
    after 'act' are never read as a command.
    """
    svc, actor, _ = _here(ctx)
    submit(ctx, svc, actor, ctx.args)


def _has_turns(ctx: CommandContext, setup: RoomSetup) -> bool:
    room_id = service_of(ctx).ws.room_id(setup.key)
    record = ctx.world.try_component(room_id, NarratedRoom) if room_id else None
    return record is not None and bool(record.last_turn)


@command("undo", prefix_match=False, category=CATEGORY)
def undo(ctx: CommandContext) -> None:
    """Take back your last action in a narrated room, and everything it changed.

    Usage: undo

    Only the last turn told in the room can be undone.
    """
    svc, actor, setup = _here(ctx)
    if not _has_turns(ctx, setup):
        raise CommandError("You have nothing to undo here.")
    try:
        svc.submit_undo(actor)
    except NarrationError as exc:
        raise CommandError(str(exc)) from None


@command("retry", prefix_match=False, category=CATEGORY)
def retry(ctx: CommandContext) -> None:
    """Have your last action in a narrated room told again.

    Usage: retry

    What the last telling changed is taken back first, so nothing happens twice.
    If the new telling fails, the old one stands.
    """
    svc, actor, setup = _here(ctx)
    if not _has_turns(ctx, setup):
        raise CommandError("You have no turn here to tell again.")
    try:
        svc.submit_retry(actor)
    except NarrationError as exc:
        raise CommandError(str(exc)) from None
    ctx.send("You ask for your last action to be told again.")


@command("state", prefix_match=False, category=CATEGORY)
async def state(ctx: CommandContext) -> None:
    """Show the world state of the narrated room you are in.

    Usage:
      state        the world state here: the world, you, who is here, the goals
      state last   what your last action here changed, and what it could not
    """
    svc, actor, setup = _here(ctx)
    words = [w.lower() for w in ctx.argv]
    if not words:
        ctx.send(render_sheet(svc, setup, actor))
        return
    if words != ["last"]:
        raise CommandError("Usage: state, or state last")
    turn = await svc.log.last_of(setup.key, str(actor))
    page(ctx, render_last(turn, setup.schema))


def _character_here(svc: NarrationService, setup: RoomSetup, viewer: UUID, name: str) -> UUID:
    found = svc.ws.find_in_room(setup.key, name, kinds=[PlayerCharacter])
    if found is None:
        raise CommandError(f"No character called '{name}' is here.")
    return found


@command("@state", permission=Role.BUILDER, prefix_match=False, category="building")
async def admin_state(ctx: CommandContext) -> None:
    """View or set the world state of the narrated room you are in, or see how its
    last turns went.

    Usage:
      @state                              every value, with paths and bookkeeping
      @state <character>                  with that character's player.* values
      @state set <path> <value> [<char>]  set a value (not a change)
      @state insights [<n>]               the last n turns here (default 5, at
                                          most 20): proposed, applied, clamped
                                          and refused changes, the fix strings
                                          for the next prompt, tokens, latency

    Examples: @state set world.day 3, @state set player.hp 50 Bryn,
    @state set flags.alarm_raised false, @state set milestones.rescue_gwen true

    Values are checked against the schema and clamped to the stat's limits. A
    milestone set to false becomes pending again.
    """
    svc = service_of(ctx)
    actor = ctx.require_actor()
    setup = svc.room_of(actor)
    if setup is None:
        raise CommandError("This room is not narrated.")
    words = ctx.argv
    if not words:
        ctx.send(render_sheet(svc, setup, actor, builder=True))
        return
    if words[0].lower() == "insights":
        count = _turn_count(words[1:])
        turns = await svc.log.recent(setup.key, count)
        room = svc.ws.room(setup.key)
        page(ctx, render_insights(room.name if room else setup.key, turns, count))
        return
    if words[0].lower() != "set":
        target = _character_here(svc, setup, actor, " ".join(words))
        ctx.send(render_sheet(svc, setup, target, builder=True))
        return
    if len(words) not in (3, 4):
        raise CommandError("Usage: @state set <path> <value> [<character>]")
    who = _character_here(svc, setup, actor, words[3]) if len(words) == 4 else actor
    if setup.schema.is_empty:
        raise CommandError("This room's schema is empty: there is nothing to set.")
    ctx.send(escape_markup(set_value(svc, setup, who, words[1], words[2])))


def _turn_count(args: list[str]) -> int:
    if not args:
        return DEFAULT_TURNS
    if len(args) > 1 or not args[0].isdigit() or int(args[0]) < 1:
        raise CommandError(f"Usage: @state insights [<n>] (1 to {MAX_TURNS} turns)")
    # Bounded: each turn is a screenful for a busy room.
    return min(int(args[0]), MAX_TURNS)


COMMANDS: list[Command] = [act, undo, retry, state, admin_state]


def act_in_room(ctx: CommandContext, svc: NarrationService, actor: UUID) -> bool:
    """Tell the whole line to the storyteller if ``actor`` stands in a narrated room.

    False (the line is not taken) anywhere else."""
    if not ctx.world.entity_exists(actor) or svc.room_of(actor) is None:
        return False
    try:
        submit(ctx, svc, actor, ctx.raw)
    except CommandError as exc:
        ctx.send(str(exc))
    return True


def make_fallback(svc: NarrationService) -> Fallback:
    """Input no command matched becomes an action in a narrated room; elsewhere it is
    left alone, so unknown commands still get "Huh?"."""

    def fallback(ctx: CommandContext) -> bool:
        actor = ctx.actor
        if actor is None or not ctx.name or ctx.name.startswith("@"):
            return False
        return act_in_room(ctx, svc, actor)

    return fallback


def make_arrival_hint(svc: NarrationService) -> Callable[[EntityRelocatedEvent], None]:
    """Tell a character who walks (or logs) into a narrated room how play works there."""

    def arrived(event: EntityRelocatedEvent) -> None:
        if event.to_room is None or event.to_room == event.from_room:
            return
        if event.reason not in ARRIVALS:
            return
        if svc.setup_for(event.to_room) is None:
            return
        if not svc.engine.world.has_component(event.entity_id, PlayerCharacter):
            return
        hint = ARRIVAL_HINT if svc.has_storyteller() else ARRIVAL_HINT_NO_STORYTELLER
        svc.engine.sessions.send_to(event.entity_id, hint)

    return arrived


def make_rescue(svc: NarrationService) -> Rescue:
    """In a narrated room, a line a world command could not make sense of ("look for a
    spare key among the sacks", "get the key from the sacks") is told as an action.

    Only lines with words after the command, and only commands of the configured
    story categories: a bare "north" with no exit still says so, and a ``tell`` to
    someone offline is never sent to the storyteller.
    """

    def rescue(ctx: CommandContext, _error: CommandError) -> bool:
        actor, cmd = ctx.actor, ctx.command
        if actor is None or cmd is None or not ctx.args.strip():
            return False
        if not cmd.needs_character or cmd.key.startswith("@"):
            return False
        if cmd.category not in svc.config.story_categories:
            return False
        return act_in_room(ctx, svc, actor)

    return rescue
