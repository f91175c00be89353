"""Getting around: ``exits``, ``map``, ``where``, ``time`` and ``recall``."""

from __future__ import annotations

import math
from collections.abc import Callable
from uuid import UUID

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.net.markup import escape_markup
from maid_stdlib.navigation.drawing import LEGEND, draw
from maid_stdlib.navigation.layout import Coords, MapCoords, lay_out
from maid_stdlib.navigation.service import Navigation
from maid_stdlib.text import counted
from maid_stdlib.world.look import name_of, render_room
from maid_stdlib.world.movement import here
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.social import find_online, online_characters
from maid_stdlib.world.text import capitalize, exit_order, in_place

#: Narrowest map drawn, whatever the client says its width is.
MIN_WIDTH = 20


def navigation_of(ctx: CommandContext) -> Navigation:
    nav: Navigation = ctx.service(Navigation)
    return nav


def leads_to(ws: WorldService, target: str) -> str:
    room = ws.room(target)
    return room.name if room is not None else "somewhere you cannot make out"


@command("exits", category="movement")
def exits(ctx: CommandContext) -> None:
    """List the ways out of this room and where each one leads.

    Usage: exits
    """
    ws, _actor, room = here(ctx)
    ways = ws.exits_of(room)
    if not ways:
        ctx.send("There is no obvious way out of here.")
        return
    names = sorted(ways, key=exit_order)
    width = max(len(n) for n in names)
    lines = ["|gObvious exits:|n"]
    lines += [f"  {n.ljust(width)}  {leads_to(ws, ways[n])}" for n in names]
    ctx.send("\n".join(lines))


def _coords(ws: WorldService) -> Callable[[str], Coords | None]:
    world = ws.world

    def coords_of(room_key: str) -> Coords | None:
        room_id = ws.room_id(room_key)
        found = world.try_component(room_id, MapCoords) if room_id is not None else None
        return None if found is None else (found.x, found.y, found.z)

    return coords_of


@command("map", category="movement")
def map_(ctx: CommandContext) -> None:
    """Draw a map of the rooms around you.

    Usage:
      map              the rooms up to 4 steps away
      map <radius>     the rooms up to that many steps away (1 to 9)

    [@] is you, [^] a room with a way up, [v] one with a way down, [#] both;
    - | / \\ are the ways between rooms. A way drawn to the edge goes on beyond it.
    The map fits your client's width (wider maps are cut around you).
    """
    ws, _actor, room = here(ctx)
    nav = navigation_of(ctx)
    cfg = nav.config
    radius = cfg.map_radius
    arg = ctx.args.strip()
    if arg:
        if not arg.isdigit() or not 1 <= int(arg) <= cfg.max_map_radius:
            raise CommandError(
                f"Usage: map [<radius>] (a number of steps, 1 to {cfg.max_map_radius})"
            )
        radius = int(arg)
    width = ctx.session.caps.width if ctx.session is not None else 80
    placed = lay_out(room, radius, ws.exits_of, _coords(ws))
    lines = draw(placed, room, ws.exits_of, max(MIN_WIDTH, width))
    here_room = ws.room(room)
    title = here_room.name if here_room is not None else room
    body = [escape_markup(line).replace("[@]", "[|y@|n]") for line in lines]
    ctx.send("\n".join([f"|cAround {title}|n (radius {radius})", *body, escape_markup(LEGEND)]))


def _area_name(ws: WorldService, room_key: str | None) -> tuple[str | None, str]:
    room = ws.room(room_key) if room_key else None
    if room is None:
        return None, "nowhere"
    area = ws.area(room.area) if room.area else None
    return room.area, area.name if area is not None else room.area


@command("where", category="general")
def where(ctx: CommandContext) -> None:
    """List the players in your area and the room each is in, or find someone.

    Usage:
      where           everyone playing in the same area as you
      where <name>    where that player is, if they are in your area; else where
                      the people and creatures of your area called so are
                      ("where voss", "where wolf")

    Only the area you are in is searched (its name heads the list of players);
    'quests' says where the people your quests send you to are, wherever they are.
    """
    ws, actor, room = here(ctx)
    mine, area_name = _area_name(ws, room)
    name = ctx.args.strip()
    if name:
        wanted = name.casefold()
        if any(n.casefold().startswith(wanted) for n, _ in online_characters(ctx)):
            target = find_online(ctx, name)
            theirs = ws.room_key_of(target)
            if _area_name(ws, theirs)[0] != mine or theirs is None:
                raise CommandError(f"{name_of(ws, target)} is not anywhere near you.")
            ctx.send(f"{name_of(ws, target)} is {in_place(leads_to(ws, theirs))}.")
            return
        found = _npcs_called(ws, actor, mine, name)
        if not found:
            raise CommandError(
                f"Nobody called '{name}' is anywhere in {area_name}."
                " (Only the area you are in is searched.)"
            )
        ctx.send("\n".join(found))
        return
    nearby: list[tuple[str, UUID, str]] = []
    for who, uid in online_characters(ctx):
        theirs = ws.room_key_of(uid)
        if theirs is not None and _area_name(ws, theirs)[0] == mine:
            nearby.append((who, uid, leads_to(ws, theirs)))
    width = max(len(who) for who, _, _ in nearby) if nearby else 0
    lines = [f"|cPlayers in {area_name}:|n"]
    for who, uid, place in nearby:
        you = " |x(you)|n" if uid == actor else ""
        lines.append(f"  {who.ljust(width)}  {place}{you}")
    if len(nearby) <= 1:
        lines.append("Nobody else is around.")
    ctx.send("\n".join(lines))


#: The most places ``where <name>`` lists for the NPCs of an area.
WHERE_MOST = 8


def _npcs_called(ws: WorldService, actor: UUID, area: str | None, name: str) -> list[str]:
    """ "Fenn the hunter is in the Greywood Path.", one line a name and room, for
    the NPCs of ``area`` that ``name`` names (its words prefix their keywords), as
    ``actor`` sees them; the nearest places first."""
    if area is None:
        return []
    words = name.casefold().split()
    here_room = ws.room_key_of(actor)
    counts: dict[tuple[str, str], int] = {}
    for room in ws.rooms_of_area(area):
        for npc in ws.npcs_in(room):
            if ws.is_visible(npc, actor) and ws.matches(npc, words):
                key = (name_of(ws, npc), room)
                counts[key] = counts.get(key, 0) + 1

    def steps(item: tuple[tuple[str, str], int]) -> int:
        distance = ws.distance(here_room, item[0][1], limit=64) if here_room else None
        return 65 if distance is None else distance

    ordered = sorted(counts.items(), key=steps)
    lines = []
    for (who, room), count in ordered[:WHERE_MOST]:
        place = leads_to(ws, room)
        if count == 1:
            lines.append(f"{capitalize(who)} is {in_place(place)}.")
        else:
            lines.append(f"{capitalize(counted(count, who))} are {in_place(place)}.")
    if len(ordered) > WHERE_MOST:
        lines.append(f"... and {len(ordered) - WHERE_MOST} more places.")
    return lines


@command("time", category="general")
def time_(ctx: CommandContext) -> None:
    """Tell the time of day, the weekday, the season and the year in the game.

    Usage: time
    """
    nav = navigation_of(ctx)
    ctx.send(str(nav.calendar.moment(ctx.engine.clock.game_time)))


@command("recall", category="movement")
def recall(ctx: CommandContext) -> None:
    """Return to the place where new characters start.

    Usage: recall

    Not in the middle of a fight, and only once every few minutes (real time);
    if you must wait, you are told for how long.
    """
    ws, actor, room = here(ctx)
    nav = navigation_of(ctx)
    start = ws.start_room
    if start is None or not ws.has_room(start):
        raise CommandError("There is nowhere to recall to in this world.")
    if room == start:
        raise CommandError(f"You are already in {leads_to(ws, start)}.")
    refusal = nav.recall_refusal(actor)
    if refusal is not None:
        raise CommandError(refusal)
    now = ctx.engine.clock.monotonic()
    wait = nav.recall_wait(actor, now)
    if wait > 0:
        raise CommandError(f"You cannot recall again yet; try in {math.ceil(wait)} s.")
    nav.last_recall[actor] = now
    name = name_of(ws, actor)
    ws.message_room(room, f"{name} closes their eyes and is gone.", exclude=(actor,))
    ws.move(actor, start, reason="recall")
    ws.message_room(start, f"{name} appears, blinking.", exclude=(actor,))
    ctx.send(f"You close your eyes and think of {leads_to(ws, start)}...")
    ctx.send(render_room(ws, start, actor))


COMMANDS: list[Command] = [exits, map_, where, time_, recall]
