"""What you carry and wear: ``inventory``, ``equipment``, ``wear``/``wield``,
``remove``, ``examine`` and ``drink``/``eat``."""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

from classic_rpg.characters.vitals import heal
from classic_rpg.combat.components import Fighting
from classic_rpg.components import CharacterStats, Equipment, Health, Inventory
from classic_rpg.items.commands import items_of, not_carrying
from classic_rpg.items.components import SLOTS, TIER_NAMES, ItemStats
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.ownership import belongs_line
from classic_rpg.items.select import group_names, select
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ecs import World
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.world.look import LookExtras, find_detail, name_of, render_entity
from maid_stdlib.world.movement import here
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize


@command("inventory", aliases=("i", "inv"), category="items")
def inventory(ctx: CommandContext) -> None:
    """List what you are carrying, and your gold.

    Usage: inventory    (or i)
    """
    ws, actor, _ = here(ctx)
    items = items_of(ctx)
    carried = items.carried(actor)
    stats = ctx.world.try_component(actor, CharacterStats)
    inv = ctx.world.try_component(actor, Inventory)
    lines = (
        ["You are carrying:", *(f"  {n}" for n in group_names(ws, carried))]
        if carried
        else ["You are not carrying anything."]
    )
    gold = stats.gold if stats is not None else 0
    capacity = f" ({len(carried)}/{inv.capacity} items)" if inv is not None else ""
    lines.append(f"You have |y{gold}|n gold.{capacity}")
    ctx.send("\n".join(lines))


def worn_lines(ws: WorldService, worn: dict[str, UUID], every_slot: bool) -> list[str]:
    """``<slot> item`` lines in slot order; ``every_slot``: empty slots too, as
    "(nothing)", the way ROM-style games list equipment."""
    slots = list(SLOTS) if every_slot else []
    slots.extend(s for s in worn if s not in slots)
    slots = [s for s in slots if every_slot or s in worn]
    slots.sort(key=lambda s: SLOTS.index(s) if s in SLOTS else len(SLOTS))
    width = max((len(s) for s in slots), default=0) + 2
    return [
        f"  {'<' + s + '>':<{width}} {name_of(ws, worn[s]) if s in worn else '(nothing)'}"
        for s in slots
    ]


@command("equipment", aliases=("eq",), category="items")
def equipment(ctx: CommandContext) -> None:
    """List every slot you can wear or wield something in, and what is in it.

    Usage: equipment    (or eq)

    'wear <item>' or 'wield <weapon>' fills a slot; 'remove <item>' empties it.
    """
    ws, actor, _ = here(ctx)
    worn = items_of(ctx).equipped(actor)
    lines = ["You are using:" if worn else "You are not wearing anything."]
    lines.extend(worn_lines(ws, worn, every_slot=True))
    ctx.send("\n".join(lines))


class WornHost(WorldPort, ServicesPort, Protocol):
    """What listing someone's equipment reads: their components and the item factory."""


class CarriedOnLook:
    """``look <thing>`` finds what the viewer carries or wears when the room has no
    such thing (a LookExtras finder): 'look sword' with the sword in hand."""

    def __init__(self, engine: WornHost) -> None:
        self.engine = engine

    def __call__(self, viewer: UUID, wanted: str) -> UUID | None:
        ws: WorldService = self.engine.services.get(WorldService)
        items = self.engine.services.get(ItemFactory)
        for pool in (items.carried(viewer), list(items.equipped(viewer).values())):
            _, found = select(ws, pool, wanted)
            if found:
                return found[0]
        return None


class WornOnLook:
    """``look <someone>`` lists what they wear and wield (a LookExtras provider)."""

    def __init__(self, engine: WornHost) -> None:
        self.engine = engine

    def __call__(self, target: UUID, viewer: UUID | None) -> list[str] | None:
        world = self.engine.world
        if not world.has_component(target, Equipment):
            return None
        ws: WorldService = self.engine.services.get(WorldService)
        worn = self.engine.services.get(ItemFactory).equipped(target)
        who = "You are" if target == viewer else f"{capitalize(name_of(ws, target))} is"
        if not worn:
            return [f"{who} not using any equipment."]
        return [f"{who} using:", *worn_lines(ws, worn, every_slot=False)]


def _carried_item(
    ctx: CommandContext, verb: str
) -> tuple[WorldService, UUID, str, UUID, str, ItemStats | None]:
    """The one carried item the arguments name, for ``verb`` (wear, drink...):
    (world, actor, room, item, its name, its stats)."""
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError(f"{verb.capitalize()} what?")
    items = items_of(ctx)
    _, found = select(ws, items.carried(actor), wanted)
    if not found:
        raise not_carrying(ws, items, actor, wanted)
    item = found[0]
    return ws, actor, room, item, name_of(ws, item), ctx.world.try_component(item, ItemStats)


@command("wear", aliases=("wield", "hold"), category="items")
def wear(ctx: CommandContext) -> None:
    """Wear armour or wield a weapon you carry (what was in that slot is removed).

    Usage: wear <item>     wield <weapon>
    """
    verb = "wield" if ctx.name.lower().startswith("wi") else "wear"
    ws, actor, room, item, name, stats = _carried_item(ctx, verb)
    items = items_of(ctx)
    if stats is None or stats.slot is None:
        raise CommandError(f"You cannot {verb} {name}.")
    if verb == "wield" and stats.slot != "weapon":
        raise CommandError(f"You cannot wield {name}; try wearing it.")
    replaced = items.equip(actor, item)
    if replaced is not None:
        ctx.send(f"You stop using {name_of(ws, replaced)}.")
    me = capitalize(name_of(ws, actor))
    if stats.slot == "weapon":
        ctx.send(f"You wield {name}.")
        ws.message_room(room, f"{me} wields {name}.", exclude=(actor,))
    else:
        ctx.send(f"You wear {name} on your {stats.slot}.")
        ws.message_room(room, f"{me} wears {name}.", exclude=(actor,))


@command("remove", aliases=("unwield",), category="items")
def remove(ctx: CommandContext) -> None:
    """Stop wearing or wielding something (it goes back to your inventory).

    Usage: remove <item>
    """
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Remove what?")
    items = items_of(ctx)
    _, found = select(ws, list(items.equipped(actor).values()), wanted)
    if not found:
        raise CommandError(f"You are not wearing or wielding '{wanted}'.")
    for item in found:
        items.unequip(actor, item)
    what = ", ".join(name_of(ws, i) for i in found)
    ctx.send(f"You stop using {what}.")
    ws.message_room(room, f"{capitalize(name_of(ws, actor))} stops using {what}.", exclude=(actor,))


def item_lines(world: World, item: UUID) -> list[str]:
    stats = world.try_component(item, ItemStats)
    return [] if stats is None else stats_lines(stats)


def stats_lines(stats: ItemStats) -> list[str]:
    """What ``examine`` tells of an item's rules: tier, value, slot, damage, armour."""
    parts = [
        f"|cTier:|n {stats.tier} ({TIER_NAMES.get(stats.tier, '?')})",
        f"|cValue:|n {stats.value} gold",
    ]
    if stats.slot is not None:
        parts.append(f"|cSlot:|n {stats.slot}")
    if stats.is_weapon:
        parts.append(f"|cDamage:|n {stats.damage_min}-{stats.damage_max}")
    if stats.armor:
        parts.append(f"|cArmor:|n {stats.armor}")
    lines = ["   ".join(parts)]
    if stats.heal:
        lines.append(f"Drinking or eating it restores {stats.heal} health.")
    return lines


_CONDITION = (
    (1.0, "is in perfect health."),
    (0.75, "has a few scratches."),
    (0.5, "is wounded."),
    (0.25, "is badly wounded."),
    (0.0, "is close to death."),
)


def condition_of(world: World, ws: WorldService, uid: UUID) -> list[str]:
    health = world.try_component(uid, Health)
    if health is None:
        return []
    name = capitalize(name_of(ws, uid))
    text = next(t for limit, t in _CONDITION if health.fraction >= limit)
    lines = [f"{name} {text}"]
    fighting = world.try_component(uid, Fighting)
    if (
        fighting is not None
        and fighting.target is not None
        and world.entity_exists(fighting.target)
    ):
        lines.append(f"{name} is fighting {name_of(ws, fighting.target)}!")
    return lines


@command("examine", aliases=("exa", "ex"), category="items")
def examine(ctx: CommandContext) -> None:
    """Look closely at something you carry or wear, or at someone or something here.

    Usage: examine <thing>    (or exa)
    """
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Examine what?")
    items = items_of(ctx)
    world = ctx.world
    target: UUID | None = None
    for pool in (items.carried(actor), list(items.equipped(actor).values())):
        _, found = select(ws, pool, wanted)
        if found:
            target = found[0]
            break
    if target is None and wanted.lower() in ("me", "self", "myself"):
        target = actor
    if target is None:
        target = ws.find_in_room(room, wanted, viewer=actor)
    if target is None:
        detail = find_detail(ws, room, wanted)
        if detail is None:
            detail = ctx.service(LookExtras).describe(actor, wanted)
        if detail is not None:
            ctx.send(detail)
            return
        raise CommandError(f"You do not see '{wanted}' here.")
    lines = [render_entity(ws, target), *item_lines(world, target)]
    belongs = belongs_line(world, ws, target)
    if belongs is not None:
        lines.append(belongs)
    lines.extend(condition_of(world, ws, target))
    worn = items.equipped(target)
    if worn and target != actor:
        lines.append(
            f"{capitalize(name_of(ws, target))} is using: "
            + ", ".join(name_of(ws, i) for i in worn.values())
            + "."
        )
    ctx.send("\n".join(lines))


@command("drink", aliases=("quaff", "eat"), category="items")
def drink(ctx: CommandContext) -> None:
    """Drink a potion or eat something you carry.

    Usage: drink <item>     (also: quaff, eat)
    """
    verb = "eat" if ctx.name.lower().startswith("ea") else "drink"
    ws, actor, room, item, name, stats = _carried_item(ctx, verb)
    items = items_of(ctx)
    if stats is None or stats.heal <= 0:
        raise CommandError(f"You cannot {verb} {name}.")
    health = ctx.world.try_component(actor, Health)
    if health is not None and health.current >= health.maximum:
        # Healing is all it does: at full health it would be wasted.
        raise CommandError(f"You are already at full health; you keep {name} for later.")
    items.destroy(item)
    gained = heal(ctx.engine, actor, stats.heal)
    ctx.send(f"You {verb} {name}." + (f" You feel better (+{gained} health)." if gained else ""))
    ws.message_room(room, f"{capitalize(name_of(ws, actor))} {verb}s {name}.", exclude=(actor,))


COMMANDS: list[Command] = [inventory, equipment, wear, remove, examine, drink]
