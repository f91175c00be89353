"""Looking and moving: ``look``, the ten directions and ``go``."""

from __future__ import annotations

from uuid import UUID

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.text.morph import plural
from maid_stdlib.world.crowd import crowd_listing
from maid_stdlib.world.look import (
    LookExtras,
    crowd_names,
    find_detail,
    name_of,
    render_entity,
    render_room,
)
from maid_stdlib.world.pager import page
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import (
    DIRECTIONS,
    SHORT,
    arrival_phrase,
    departure_phrase,
    exit_order,
    normalize_exit,
)


def world_of(ctx: CommandContext) -> WorldService:
    ws: WorldService = ctx.service(WorldService)
    return ws


def here(ctx: CommandContext) -> tuple[WorldService, UUID, str]:
    """The world service, the actor and the room they are in (CommandError if none)."""
    ws = world_of(ctx)
    actor = ctx.require_actor()
    room = ws.room_key_of(actor)
    if room is None or not ws.has_room(room):
        raise CommandError("You are nowhere. (Ask an admin to @goto you somewhere.)")
    return ws, actor, room


@command("look", aliases=("l",), category="general", priority=5)
def look(ctx: CommandContext) -> None:
    """Look around, or at someone or something.

    Usage:
      look                 the room: its description, exits, who and what is here
      look <thing>         someone or something here ("look scout", "look 2.scout")
      look <direction>     what lies that way
      look me              yourself
      look crowd           everyone here, a page at a time (a crowded room's
                           look names only two)
    """
    ws, actor, room = here(ctx)
    target = ctx.args.strip()
    if not target:
        ctx.send(render_room(ws, room, actor))
        return
    if target.lower() in ("me", "self", "myself"):
        ctx.send(_looked_at(ctx, ws, actor, actor))
        return
    # An exit name ("n", "north", "gate") means the exit, even if "n" is also the
    # prefix of something's keyword.
    exits = ws.exits_of(room)
    direction = normalize_exit(target)
    if direction in exits:
        other = ws.room(exits[direction])
        where = other.name if other is not None else "somewhere you cannot make out"
        ctx.send(f"Looking {direction}, you see: |c{where}|n.")
        return
    found = ws.find_in_room(room, target, viewer=actor)
    # Something the actor carries or wears, if a layer keeps those: looked at when
    # nothing here answers, or when only it is called so ('look ore' with a lump
    # of ore in hand means the ore, not the room's ore crate).
    carried = ctx.service(LookExtras).find(actor, target)
    if found is None or (
        carried is not None and _called(ws, carried, target) and not _called(ws, found, target)
    ):
        found = carried
    if found is not None:
        ctx.send(_looked_at(ctx, ws, found, actor))
        return
    detail = find_detail(ws, room, target)
    if detail is None:
        detail = ctx.service(LookExtras).describe(actor, target)
    if detail is not None:
        ctx.send(detail)
        return
    if target.lower() == "crowd":
        # Only when nothing here is called "crowd": the players here, all of them.
        page(ctx, crowd_listing(crowd_names(ws, room, actor)))
        return
    raise CommandError(f"You do not see '{target}' here.")


def _called(ws: WorldService, entity: UUID, wanted: str) -> bool:
    """Whether ``wanted``'s last word is what ``entity``'s name calls it (its last
    word, or that word's plural): "ore" calls a lump of ore, not an ore crate."""
    words = wanted.lower().split()
    noun = name_of(ws, entity).lower().split()
    if not words or not noun:
        return False
    last = noun[-1].strip(".,;:!?'\"")
    said = words[-1].rpartition(".")[2]  # "2.ore" -> "ore"
    return said in (last, plural(last))


def _looked_at(ctx: CommandContext, ws: WorldService, target: UUID, viewer: UUID) -> str:
    """Someone or something as ``look`` shows it, with what other layers add."""
    extras: LookExtras = ctx.service(LookExtras)
    return "\n".join([render_entity(ws, target), *extras.lines(target, viewer)])


def walk(ctx: CommandContext, exit_name: str) -> None:
    """Move the actor through ``exit_name`` of their room, telling both rooms."""
    ws, actor, room = here(ctx)
    target = ws.exits_of(room).get(exit_name)
    if target is None:
        raise CommandError("You cannot go that way.")
    if not ws.has_room(target):
        raise CommandError("That way leads nowhere at the moment.")
    name = name_of(ws, actor)
    ws.announce(room, actor, name, f"leaves {departure_phrase(exit_name)}")
    ws.move(actor, target, reason="walk")
    arrival = arrival_phrase(exit_name)
    ws.announce(target, actor, name, f"arrives{' ' + arrival if arrival else ''}")
    ctx.send(render_room(ws, target, actor, moving=True))


def _direction_command(direction: str) -> Command:
    def move(ctx: CommandContext) -> None:
        walk(ctx, direction)

    move.__doc__ = f"Walk {direction}.\n\nUsage: {direction} (or {SHORT[direction]})"
    move.__name__ = direction
    # priority: a prefix such as "no" or "d" must mean the direction, even when later
    # packs add commands starting with the same letters ("nod", "drop"); the plain
    # directions outrank the diagonals so "no" is north, not northeast.
    priority = 10 if len(SHORT[direction]) == 2 else 11
    return command(direction, aliases=(SHORT[direction],), category="movement", priority=priority)(
        move
    )


DIRECTION_COMMANDS: list[Command] = [_direction_command(d) for d in DIRECTIONS]


@command("go", category="movement")
def go(ctx: CommandContext) -> None:
    """Leave through an exit by name.

    Usage: go <exit>      e.g. "go north", "go gate" (a unique prefix is enough)
    """
    ws, _actor, room = here(ctx)
    wanted = normalize_exit(ctx.args)
    if not wanted:
        raise CommandError("Go where?")
    exits = ws.exits_of(room)
    if wanted in exits:
        walk(ctx, wanted)
        return
    options = sorted((e for e in exits if e.startswith(wanted)), key=exit_order)
    if len(options) == 1:
        walk(ctx, options[0])
    elif options:
        raise CommandError(f"Which way: {', '.join(options)}?")
    else:
        raise CommandError("You cannot go that way.")


COMMANDS: list[Command] = [look, *DIRECTION_COMMANDS, go]
