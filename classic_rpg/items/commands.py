"""Moving items around: ``get``/``take``, ``drop`` and ``give``."""

from __future__ import annotations

import re
from uuid import UUID

from classic_rpg.characters.levels import send_status
from classic_rpg.components import CharacterStats
from classic_rpg.events import (
    GoldGivenEvent,
    ItemDroppedEvent,
    ItemGivenEvent,
    ItemPickedUpEvent,
)
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.gifts import Gifts
from classic_rpg.items.ownership import owner_of
from classic_rpg.items.select import counted_ask, group_names, select
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.world.components import NPC, Item
from maid_stdlib.world.look import find_detail, name_of
from maid_stdlib.world.movement import here
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize, join_words

_GOLD = re.compile(r"^(\d+)\s+(?:gold|coins?|gold coins?)$")


def items_of(ctx: CommandContext) -> ItemFactory:
    factory: ItemFactory = ctx.service(ItemFactory)
    return factory


def not_carrying(ws: WorldService, items: ItemFactory, actor: UUID, wanted: str) -> CommandError:
    """The error for an item the actor does not carry (naming it if it is worn)."""
    _, worn = select(ws, list(items.equipped(actor).values()), wanted)
    if worn:
        return CommandError(f"You are using {name_of(ws, worn[0])}; remove it first.")
    if wanted.strip().lower().startswith("all"):
        return CommandError("You are not carrying anything like that.")
    if counted_ask(wanted) and select(ws, items.carried(actor), wanted.partition(" ")[2])[1]:
        return CommandError("You are not carrying that many.")
    return CommandError(f"You are not carrying '{wanted}'.")


@command("get", aliases=("take",), category="items")
def get(ctx: CommandContext) -> None:
    """Pick something up.

    Usage: get <item>     (also: take; "get 2.ore" (the second), "get 2 ore" (two),
                           "get pelts" (every one), "get all", "get all.ore")
    """
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Get what?")
    items = items_of(ctx)
    world = ctx.world
    here_items = [u for u in ws.visible_in(room, actor) if world.has_component(u, Item)]
    is_all, found = select(ws, here_items, wanted)
    if not found:
        if counted_ask(wanted) and select(ws, here_items, wanted.partition(" ")[2])[1]:
            raise CommandError("There are not that many here.")
        if is_all:
            raise CommandError("There is nothing like that here.")
        other = ws.find_in_room(room, wanted, viewer=actor)
        if other is not None:
            raise CommandError(f"You cannot pick up {name_of(ws, other)}.")
        if find_detail(ws, room, wanted) is not None:
            # Scenery the room describes ('look horn' shows it): there, but not a thing
            # to carry off.
            raise CommandError("You cannot take that: it is part of the place.")
        raise CommandError(f"You do not see '{wanted}' here.")
    picked: list[UUID] = []
    full = False
    for item in found:
        if not items.is_portable(item):
            if not is_all:
                raise CommandError(f"You cannot take {name_of(ws, item)}.")
            continue
        if not items.has_room_for(actor):
            full = True
            break
        items.add_to_inventory(item, actor)
        ctx.engine.events.emit(ItemPickedUpEvent(actor, item, items.template_of(item), room))
        picked.append(item)
    if picked:
        what = join_words(group_names(ws, picked))
        ctx.send(f"You pick up {what}.")
        ws.message_room(
            room, f"{capitalize(name_of(ws, actor))} picks up {what}.", exclude=(actor,)
        )
    if full:
        raise CommandError("You cannot carry any more.")
    if not picked and is_all:
        raise CommandError("There is nothing here you can pick up.")


@command("drop", category="items")
def drop(ctx: CommandContext) -> None:
    """Put something you carry on the ground.

    Usage: drop <item>     ("drop all", "drop all.ore", "drop pelts", "drop 2 pelts")
    """
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Drop what?")
    items = items_of(ctx)
    _, found = select(ws, items.carried(actor), wanted)
    if not found:
        raise not_carrying(ws, items, actor, wanted)
    for item in found:
        items.move_to_room(item, room)
        ctx.engine.events.emit(ItemDroppedEvent(actor, item, items.template_of(item), room))
    what = join_words(group_names(ws, found))
    ctx.send(f"You drop {what}.")
    ws.message_room(room, f"{capitalize(name_of(ws, actor))} drops {what}.", exclude=(actor,))


def _split_give(args: str) -> tuple[str, str]:
    text = " ".join(args.split())
    what, sep, whom = text.rpartition(" to ")
    if sep and what and whom:
        return what, whom
    what, _, whom = text.rpartition(" ")
    return what, whom


def _give_gold(ctx: CommandContext, actor: UUID, target: UUID, amount: int) -> None:
    ws: WorldService = ctx.service(WorldService)
    world = ctx.world
    mine = world.try_component(actor, CharacterStats)
    if amount <= 0:
        raise CommandError("You cannot give nothing.")
    if mine is None or mine.gold < amount:
        raise CommandError("You do not have that much gold.")
    theirs = world.get_or_add(target, CharacterStats)
    mine.gold -= amount
    theirs.gold += amount
    ctx.engine.events.emit(GoldGivenEvent(actor, target, amount))
    send_status(ctx.engine, actor)
    send_status(ctx.engine, target)
    t_name, a_name = name_of(ws, target), capitalize(name_of(ws, actor))
    ctx.send(f"You give {amount} gold to {t_name}.")
    if not world.has_component(target, PlayerCharacter):
        # Someone of the world takes gold as a person would, not in silence.
        ctx.send(f"{capitalize(t_name)} takes it with a nod of thanks.")
    ctx.engine.sessions.send_to(target, f"{a_name} gives you {amount} gold.")
    room = ws.room_key_of(actor)
    if room is not None:
        ws.message_room(room, f"{a_name} gives some gold to {t_name}.", exclude=(actor, target))


@command("give", category="items")
def give(ctx: CommandContext) -> None:
    """Give something you carry (or gold) to someone here.

    Usage:
      give <item> [to] <someone>     e.g. "give insignia to voss",
                                     "give 2 mandibles to hilde", "give pelts to fenn"
      give <n> gold [to] <someone>

    A player takes whatever they can carry. Someone of the world takes only what
    they have a use for (what a quest of yours is to bring them, or what they pay a
    bounty for); anything else stays with you. Gold is always taken.
    """
    ws, actor, room = here(ctx)
    what, whom = _split_give(ctx.args)
    if not what or not whom:
        raise CommandError("Give what to whom?")
    target = ws.find_in_room(room, whom, kinds=(NPC, PlayerCharacter), viewer=actor)
    if target is None:
        if whom.lower() in ("me", "self", "myself") or ws.matches(actor, whom.lower().split()):
            raise CommandError("You cannot give things to yourself.")
        raise CommandError(f"You do not see '{whom}' here.")
    gold = _GOLD.match(what.lower())
    if gold is not None:
        _give_gold(ctx, actor, target, int(gold.group(1)))
        return
    items = items_of(ctx)
    # What is theirs is handed back before another of the kind ("give cider").
    carried = sorted(items.carried(actor), key=lambda item: owner_of(ctx.world, item) != target)
    _, found = select(ws, carried, what)
    if not found:
        raise not_carrying(ws, items, actor, what)
    refusal = ""
    if ctx.world.has_component(target, PlayerCharacter):
        if not items.has_room_for(target, len(found)):
            raise CommandError(f"{capitalize(name_of(ws, target))} cannot carry that much.")
    else:
        found, refusal = _wanted_by(ctx, actor, target, found)
        if not found:
            raise CommandError(refusal)
    for item in found:
        items.add_to_inventory(item, target)
        ctx.engine.events.emit(ItemGivenEvent(actor, target, item, items.template_of(item)))
    thing = join_words(group_names(ws, found))
    t_name, a_name = name_of(ws, target), capitalize(name_of(ws, actor))
    ctx.send(f"You give {thing} to {t_name}.")
    ctx.engine.sessions.send_to(target, f"{a_name} gives you {thing}.")
    ws.message_room(room, f"{a_name} gives {thing} to {t_name}.", exclude=(actor, target))
    if not ctx.world.has_component(target, PlayerCharacter):
        for line in ctx.service(Gifts).taken(actor, target, found):
            ctx.send(line)
    if refusal:
        ctx.send(refusal)


def _wanted_by(
    ctx: CommandContext, actor: UUID, npc: UUID, found: list[UUID]
) -> tuple[list[UUID], str]:
    """The items of ``found`` the NPC takes (``Gifts``: as many of each kind as it
    wants), and what the giver is told about the rest ("" if it takes them all)."""
    ws: WorldService = ctx.service(WorldService)
    items = items_of(ctx)
    gifts: Gifts = ctx.service(Gifts)
    wanted: dict[str, tuple[int, str | None]] = {}
    taken: list[UUID] = []
    kept: list[UUID] = []
    why: str | None = None
    for item in found:
        template = items.template_of(item)
        if template not in wanted:
            wanted[template] = gifts.answer(actor, npc, template)
        left, reason = wanted[template]
        if left > 0:
            taken.append(item)
            wanted[template] = (left - 1, reason)
        else:
            kept.append(item)
            why = why or reason
    if not kept:
        return taken, ""
    if why is None:
        thing = join_words(group_names(ws, kept))
        who = capitalize(name_of(ws, npc))
        took = {items.template_of(item) for item in taken}
        if all(items.template_of(item) in took for item in kept):
            # Some of the kind were taken: "has no use for a pelt" would read as if
            # the one just handed over had been refused too.
            why = f"{who} needs no more than that; you keep {thing}."
        else:
            why = f"{who} has no use for {thing}."
    return taken, why


COMMANDS: list[Command] = [get, drop, give]
