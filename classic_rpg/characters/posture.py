"""Resting and sleeping: ``rest``, ``sleep``, ``wake``, ``stand``.

A character without a :class:`Posture` stands. Resting and sleeping speed up
regeneration (RegenSystem reads :func:`regen_factor`); a sleeper cannot move,
fight or handle things (a command guard refuses), a rester must stand up before
walking away. Being attacked wakes a sleeper and gets a rester on their feet
(:func:`stand_up`, called by the CombatService when a fight starts).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from classic_rpg.combat.components import Fighting
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ecs import Component
from maid_engine.ports import SessionsPort, WorldPort
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import here
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize


class Stance(enum.StrEnum):
    STANDING = "standing"
    RESTING = "resting"
    SLEEPING = "sleeping"


#: How much faster health and mana come back (RegenSystem multiplies its share).
REGEN_FACTOR = {Stance.STANDING: 1, Stance.RESTING: 2, Stance.SLEEPING: 3}


@dataclass
class Posture(Component):
    """Resting or sleeping (absent: standing). Runtime only: everyone logs in on
    their feet."""

    component_name = "Posture"
    persist = False
    stance: Stance = Stance.RESTING


class PostureHost(WorldPort, SessionsPort, Protocol):
    """What standing someone up uses: their posture and a line to them."""


def stance_of(engine: WorldPort, uid: UUID) -> Stance:
    posture = engine.world.try_component(uid, Posture)
    return posture.stance if posture is not None else Stance.STANDING


def regen_factor(engine: WorldPort, uid: UUID) -> int:
    return REGEN_FACTOR[stance_of(engine, uid)]


def stand_up(engine: PostureHost, uid: UUID, why: str = "") -> bool:
    """Put ``uid`` on their feet (a sleeper is woken and told ``why``); True if
    they were resting or asleep."""
    stance = stance_of(engine, uid)
    if stance is Stance.STANDING:
        return False
    engine.world.remove_component(uid, Posture)
    if stance is Stance.SLEEPING:
        engine.sessions.send_to(uid, why or "You wake up and stand.")
    return True


def _set(ctx: CommandContext, uid: UUID, stance: Stance) -> None:
    world = ctx.world
    if stance is Stance.STANDING:
        if world.has_component(uid, Posture):
            world.remove_component(uid, Posture)
    else:
        posture = world.try_component(uid, Posture)
        if posture is None:
            world.add_component(uid, Posture(stance))
        else:
            posture.stance = stance


def _tell_room(ctx: CommandContext, ws: WorldService, actor: UUID, room: str, text: str) -> None:
    ws.message_room(room, f"{capitalize(name_of(ws, actor))} {text}", exclude=(actor,))


@command("rest", aliases=("sit",), category="general")
def rest(ctx: CommandContext) -> None:
    """Sit down and rest: health and mana come back twice as fast.

    Usage: rest     (or sit)
    You must stand up before you can walk away; an attack gets you on your feet.
    """
    ws, actor, room = here(ctx)
    stance = stance_of(ctx.engine, actor)
    if ctx.world.has_component(actor, Fighting):
        raise CommandError("You cannot rest while you are fighting!")
    if stance is Stance.RESTING:
        raise CommandError("You are already resting.")
    _set(ctx, actor, Stance.RESTING)
    if stance is Stance.SLEEPING:
        ctx.send("You wake up and sit up.")
        _tell_room(ctx, ws, actor, room, "wakes up and sits up.")
    else:
        ctx.send("You sit down and rest.")
        _tell_room(ctx, ws, actor, room, "sits down and rests.")


@command("sleep", category="general")
def sleep(ctx: CommandContext) -> None:
    """Lie down and sleep: health and mana come back three times as fast.

    Usage: sleep
    While asleep you cannot move, fight or handle things; "wake" gets you up, and
    so does being attacked.
    """
    ws, actor, room = here(ctx)
    if ctx.world.has_component(actor, Fighting):
        raise CommandError("You cannot sleep while you are fighting!")
    if stance_of(ctx.engine, actor) is Stance.SLEEPING:
        raise CommandError("You are already asleep.")
    _set(ctx, actor, Stance.SLEEPING)
    ctx.send("You lie down and go to sleep.")
    _tell_room(ctx, ws, actor, room, "lies down and goes to sleep.")


def _get_up(ctx: CommandContext, already: str) -> None:
    ws, actor, room = here(ctx)
    stance = stance_of(ctx.engine, actor)
    if stance is Stance.STANDING:
        raise CommandError(already)
    _set(ctx, actor, Stance.STANDING)
    if stance is Stance.SLEEPING:
        ctx.send("You wake and stand up.")
        _tell_room(ctx, ws, actor, room, "wakes and stands up.")
    else:
        ctx.send("You stand up.")
        _tell_room(ctx, ws, actor, room, "stands up.")


@command("wake", aliases=("awake",), category="general")
def wake(ctx: CommandContext) -> None:
    """Wake up and stand.

    Usage: wake
    """
    _get_up(ctx, "You are already awake.")


@command("stand", category="general")
def stand(ctx: CommandContext) -> None:
    """Stand up from resting or sleeping.

    Usage: stand
    """
    _get_up(ctx, "You are already standing.")


#: What a sleeper may still do: get up, and things that need no eyes or hands.
_AWAKE_ONLY_CATEGORIES = frozenset({"movement", "combat", "items"})
_ASLEEP_ALLOWED = frozenset({"inventory", "equipment"})
#: Movement commands that move nobody: a rester may look at the exits and the map.
_SEATED = frozenset({"exits", "map"})
_ASLEEP_REFUSED = frozenset(
    {"look", "say", "emote", "talk", "ask", "act", "read", "examine", "accept", "turnin"}
)


def posture_guard(ctx: CommandContext, cmd: Command) -> str | None:
    """The command guard: what a sleeper or a rester may not do."""
    actor = ctx.actor
    if actor is None:
        return None
    stance = stance_of(ctx.engine, actor)
    if stance is Stance.SLEEPING:
        if cmd.key in _ASLEEP_ALLOWED:
            return None
        if cmd.category in _AWAKE_ONLY_CATEGORIES or cmd.key in _ASLEEP_REFUSED:
            return "You are asleep. (Type 'wake' to get up.)"
    elif stance is Stance.RESTING and cmd.category == "movement" and cmd.key not in _SEATED:
        return "You are resting. (Type 'stand' to get up first.)"
    return None


COMMANDS: list[Command] = [rest, sleep, wake, stand]
