"""Trading with a shopkeeper in the room: ``list``, ``buy``, ``sell``, ``value``.

Several keepers may trade in one room (the baker at her market stall while the
pedlar passes through): ``list`` shows each one's goods, ``buy`` goes to the one
who sells what is asked for, ``sell`` and ``value`` to the one who buys it, and a
keeper may be named ("list nell", "buy bread from nell", "sell pelt to marta").
"""

from __future__ import annotations

import re
from uuid import UUID

from classic_rpg.characters.levels import send_status
from classic_rpg.components import CharacterStats
from classic_rpg.items.commands import not_carrying
from classic_rpg.items.components import ItemStats
from classic_rpg.items.data import stats_of
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.gear import stats_lines
from classic_rpg.items.ownership import owner_of
from classic_rpg.items.select import group_names, select
from classic_rpg.shops.components import PricesSeen, Shop
from classic_rpg.shops.events import ItemBoughtEvent, ItemSoldEvent
from classic_rpg.shops.market import Goods, Market
from classic_rpg.shops.trade import Trade
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ports import ServicesPort
from maid_stdlib.living import NeedsComponent, Wealth
from maid_stdlib.text import join
from maid_stdlib.text.pronouns import pronouns
from maid_stdlib.world.components import Describable
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import here
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

#: The most one ``buy`` takes at once.
MAX_QUANTITY = 20
_QTY_FIRST = re.compile(r"^(\d+)\s+(.+)$")
_QTY_LAST = re.compile(r"^(.+?)\s+(\d+)$")
#: "bread 2 from nell": what is traded, and the keeper it is traded with.
_WITH = re.compile(r"^(?P<what>.+?)\s+(?:from|to|with)\s+(?P<who>\S.*)$", re.IGNORECASE)


def market_of(ctx: CommandContext) -> Market:
    market: Market = ctx.service(Market)
    return market


#: A keeper trading here, with the name they go by in what is said.
Keeper = tuple[UUID, Shop, str]


def _keepers(ctx: CommandContext, named: str = "") -> tuple[WorldService, UUID, list[Keeper]]:
    """The keepers trading in the actor's room (only the one ``named``, if given)."""
    ws, actor, room = here(ctx)
    market = market_of(ctx)
    found = market.keepers_in(room)
    if not found:
        away = market.absent_keeper(room)
        if away is not None:
            # The shop is here, its keeper is not (their day takes them elsewhere).
            raise CommandError(
                f"{capitalize(name_of(ws, away))} keeps shop here, but is away just now."
            )
        raise CommandError("There is nobody here to trade with.")
    keepers = [(uid, shop, capitalize(name_of(ws, uid))) for uid, shop in found]
    if not named:
        return ws, actor, keepers
    target = ws.find_in_room(room, named, viewer=actor)
    chosen = [k for k in keepers if k[0] == target]
    if chosen:
        return ws, actor, chosen
    if target is not None:
        raise CommandError(f"{capitalize(name_of(ws, target))} does not trade here.")
    raise CommandError(f"You do not see '{named}' here.")


def _with_keeper(ctx: CommandContext, args: str) -> tuple[str, str]:
    """``args`` without a keeper named at its end ("bread from nell" -> "bread",
    "nell"), when that names someone here; else ``(args, "")``: an item's own
    name may hold "to" or "from"."""
    text = " ".join(args.split())
    found = _WITH.match(text)
    if found is None or not _someone_here(ctx, found["who"]):
        return text, ""
    return found["what"], found["who"]


def _someone_here(ctx: CommandContext, words: str) -> str:
    """``words`` if they name someone or something in the room, else ""."""
    words = " ".join(words.split())
    if not words:
        return ""
    ws, actor, room = here(ctx)
    return words if ws.find_in_room(room, words, viewer=actor) is not None else ""


def _gold(ctx: CommandContext, uid: UUID) -> CharacterStats:
    return ctx.world.get_or_add(uid, CharacterStats)


def _plural(name: str, count: int) -> str:
    return name if count == 1 else f"{name} (x{count})"


@command("list", aliases=("wares",), category="shops")
def list_goods(ctx: CommandContext) -> None:
    """See what the shopkeeper here sells, at today's prices.

    Usage: list [<keeper>]     e.g. "list", "list nell"
    Prices follow the village's supply: when deliveries stop, goods get dear and
    keepers pay more for what they are short of. 'look <item>' shows something on
    the list before you buy it, beside what you use in its place. Where several
    keepers trade, each one's goods are listed; 'buy' goes to the one who sells
    what you ask for, or name them: 'buy bread from nell'.
    """
    # Words that name nobody here ("list swords") list every keeper's goods.
    _ws, actor, keepers = _keepers(ctx, _someone_here(ctx, ctx.args))
    market = market_of(ctx)
    lines: list[str] = []
    for keeper, shop, who in keepers:
        goods = market.goods(keeper, shop)
        lines.append(f"|c{who} sells:|n")
        if not goods:
            lines.append("  nothing at the moment.")
        seen(ctx, actor, keeper, goods)
        width = max((len(g.name) for g in goods), default=0)
        for g in goods:
            have = f"{g.count} in stock" if g.count else "|rsold out|n"
            lines.append(f"  {capitalize(g.name):<{width}}  {g.price:>4} gold  ({have})")
        bought = _buys_text(market, shop)
        lines.append(f"{who} buys {bought}." if bought else f"{who} buys nothing.")
        short = sorted({line.resource for line in shop.stock if line.resource})
        for resource in short:
            blocker = market.blocker(keeper, resource)
            if blocker is not None:
                lines.append(f"|yShort of {resource}: {blocker}.|n")
    stats = ctx.world.try_component(actor, CharacterStats)
    lines.append(f"You have {stats.gold if stats else 0} gold.")
    ctx.send("\n".join(lines))


def seen(ctx: CommandContext, actor: UUID, keeper: UUID, goods: list[Goods]) -> None:
    """Note the prices ``actor`` just read on ``keeper``'s list."""
    noted = ctx.world.get_or_add(actor, PricesSeen)
    if noted.keeper != keeper:
        noted.keeper, noted.prices = keeper, {}
    noted.prices.update((g.template, g.price) for g in goods)


def price_moved(ctx: CommandContext, actor: UUID, keeper: UUID, goods: Goods) -> str:
    """What a purchase adds when the price ``actor`` last read for ``goods`` on this
    keeper's list is not today's (" The price went up from 29 to 32 gold since you
    looked."), else "". What was read stays what was read until the next list."""
    noted = ctx.world.try_component(actor, PricesSeen)
    if noted is None or noted.keeper != keeper:
        return ""
    before = noted.prices.get(goods.template)
    if before is None or before == goods.price:
        return ""
    way = "up" if goods.price > before else "down"
    return f" The price went {way} from {before} to {goods.price} gold since you looked."


def _buys_text(market: Market, shop: Shop) -> str:
    kinds = {
        "weapon": "weapons",
        "armour": "armour",
        "consumable": "food and drink",
        "any": "anything of value",
    }
    words: list[str] = []
    for rule in shop.buys:
        if rule.kind:
            words.append(kinds.get(rule.kind, rule.kind))
        elif rule.template:
            words.append(market.item_template(rule.template).name)
    if "anything of value" in words:
        # Worthless things (a bandit's rag, a crawler's mandible) are refused.
        return "anything of value"
    if shop.stock:
        words.append("anything on this list")
    words = list(dict.fromkeys(words))
    if len(words) > 1:
        return ", ".join(words[:-1]) + " and " + words[-1]
    return words[0] if words else ""


def _parse_quantity(args: str) -> tuple[str, int]:
    text = " ".join(args.split())
    for pattern, what, qty in ((_QTY_FIRST, 2, 1), (_QTY_LAST, 1, 2)):
        found = pattern.match(text)
        if found is not None:
            return found.group(what), int(found.group(qty))
    return text, 1


def _find_goods(goods: list[Goods], wanted: str) -> Goods | None:
    words = wanted.lower().split()
    for g in goods:
        keywords = [*g.keywords, *(w.strip(".,'\"!?").lower() for w in g.name.split())]
        if words and all(any(k.startswith(w) for k in keywords) for w in words):
            return g
    return None


def describe_goods(engine: ServicesPort, viewer: UUID, wanted: str) -> str | None:
    """What ``look``/``examine <goods>`` shows of something a keeper here sells: its
    description and rules, its price and stock, and what the viewer uses in its
    place, so a buyer can weigh it up before paying. None: nothing here sold as that."""
    ws: WorldService = engine.services.get(WorldService)
    market: Market = engine.services.get(Market)
    room = ws.room_key_of(viewer)
    keepers = market.keepers_in(room) if room is not None else []
    sold = ((k, _find_goods(market.goods(k, shop), wanted)) for k, shop in keepers)
    keeper, goods = next(((k, g) for k, g in sold if g is not None), (None, None))
    if keeper is None or goods is None:
        return None
    made = market.item_template(goods.template)
    name = capitalize(goods.name)
    lines = [
        f"|c{name}|n",
        made.description.strip() or f"You see nothing special about {goods.name}.",
    ]
    stats = stats_of(made.stats) if made.stats is not None else None
    if stats is not None:
        lines.extend(stats_lines(stats))
    who = capitalize(name_of(ws, keeper))
    have = f"{goods.count} in stock" if goods.count else "sold out just now"
    lines.append(f"{who} sells it for {goods.price} gold ({have}).")
    if stats is not None and stats.slot is not None:
        items: ItemFactory = engine.services.get(ItemFactory)
        used = items.equipped(viewer).get(stats.slot)
        if used is None:
            lines.append(f"You have nothing in its place ({stats.slot}).")
        else:
            lines.append(f"In its place you use {name_of(ws, used)}: {_rules_of(ws, used)}.")
    return "\n".join(lines)


def _rules_of(ws: WorldService, item: UUID) -> str:
    stats = ws.world.try_component(item, ItemStats)
    if stats is None:
        return "nothing to compare"
    if stats.is_weapon:
        return f"damage {stats.damage_min}-{stats.damage_max}"
    return f"armor {stats.armor}"


@command("buy", category="shops")
async def buy(ctx: CommandContext) -> None:
    """Buy something from the shopkeeper here.

    Usage: buy <item> [<quantity>] [from <keeper>]
    e.g. "buy knife", "buy ale 3", "buy 2 bread", "buy bread from nell"
    """
    asked, named = _with_keeper(ctx, ctx.args)
    ws, actor, keepers = _keepers(ctx, named)
    wanted, qty = _parse_quantity(asked)
    if not wanted:
        raise CommandError("Buy what? ('list' shows what is for sale.)")
    if not 1 <= qty <= MAX_QUANTITY:
        raise CommandError(f"You can buy between 1 and {MAX_QUANTITY} at a time.")
    market = market_of(ctx)
    sellers = [
        (keeper, shop, who, goods)
        for keeper, shop, who in keepers
        if (goods := _find_goods(market.goods(keeper, shop), wanted)) is not None
    ]
    if not sellers:
        nobody = keepers[0][2] if len(keepers) == 1 else "Nobody here"
        sells = "does not sell" if len(keepers) == 1 else "sells"
        raise CommandError(f"{nobody} {sells} '{wanted}'. ('list' shows what is for sale.)")
    # The first who has enough of it, else the first who sells it (to say why not).
    keeper, shop, who, goods = next((s for s in sellers if s[3].count >= qty), sellers[0])
    if goods.count == 0:
        raise CommandError(f"{who} has sold out of those; come back later.")
    if goods.count < qty:
        raise CommandError(f"{who} has only {goods.count} of those.")
    total = goods.price * qty
    purse = _gold(ctx, actor)
    if purse.gold < total:
        cost = f"{_plural(goods.name, qty)} cost{'s' if qty == 1 else ''} {total} gold"
        raise CommandError(f"You can't afford that: {cost} and you have {purse.gold}.")
    items: ItemFactory = ctx.service(ItemFactory)
    if not items.has_room_for(actor, qty):
        raise CommandError("You cannot carry that many more things.")
    trade = Trade(ctx.engine, actor, keeper)
    bought: list[UUID] = []
    for item in goods.carried[:qty]:
        trade.track(item)
        items.add_to_inventory(item, actor)
        shop.bought.remove(item)
        bought.append(item)
    line = next((s for s in shop.stock if s.template == goods.template), None)
    for _ in range(qty - len(bought)):
        assert line is not None
        assert line.count > 0
        item = items.spawn(goods.template, holder=actor)
        trade.spawned.append(item)
        line.count -= 1
        bought.append(item)
    ctx.world.modified(keeper, shop)
    purse.gold -= total
    wealth = ctx.world.try_component(keeper, Wealth)
    if wealth is not None:
        wealth.gold += total
    await trade.commit()
    for item in bought:
        ctx.engine.events.emit(ItemBoughtEvent(actor, keeper, item, goods.template, goods.price))
    send_status(ctx.engine, actor)
    what = _plural(goods.name, qty)
    moved = price_moved(ctx, actor, keeper, goods)
    ctx.send(f"You buy {what} from {who} for {total} gold.{moved}")
    room = ws.room_key_of(actor)
    if room is not None:
        ws.message_room(
            room, f"{capitalize(name_of(ws, actor))} buys {what} from {who}.", exclude=(actor,)
        )


def _refusal(
    ctx: CommandContext, ws: WorldService, keeper: UUID, shop: Shop, who: str, item: UUID
) -> tuple[str, str, int]:
    """Why the keeper will not take ``item`` now: the kind of refusal (a key of
    ``_KEPT``; "" if they will take it), what they say, and the price."""
    market = market_of(ctx)
    price = market.buying_price(keeper, shop, item)
    owner = owner_of(ctx.world, item)
    if price is not None and owner is not None and owner != ctx.actor:
        # Someone's goods are carried where they are wanted, not turned into gold.
        thing = name_of(ws, item)
        if owner == keeper:
            desc = ctx.world.try_component(keeper, Describable)
            theirs = pronouns(desc.pronouns if desc is not None else None).possessive
            return "owned", f"{who} will not buy {thing}: it is {theirs} already.", 0
        return "owned", f"{who} will not buy {thing}: it belongs to {name_of(ws, owner)}.", 0
    if price is None:
        # What they do buy, or a player with ore the smith will not take cannot
        # tell whether it is the wrong ore or the wrong smith.
        bought = _buys_text(market, shop)
        also = f" ({who} buys {bought}.)" if bought else ""
        return "none", f"{who} doesn't buy that.{also}", 0
    if price <= 0:
        return "worthless", f"{who} would not give you anything for {name_of(ws, item)}.", 0
    items: ItemFactory = ctx.service(ItemFactory)
    template = items.template_of(item)
    carried = set(items.carried(keeper))
    held = sum(1 for i in shop.bought if i in carried and items.template_of(i) == template)
    if held >= shop.hold:
        return "plenty", f"{who} has plenty of those already.", price
    wealth = ctx.world.try_component(keeper, Wealth)
    if wealth is not None and wealth.gold < price:
        return "afford", f"{who} cannot afford to buy that right now.", price
    return "", "", price


def _yours_first(ctx: CommandContext, carried: list[UUID]) -> list[UUID]:
    """What the seller carries, their own things before someone else's of the same
    kind: "sell draught" with Bram's draught and one's own sells one's own."""
    actor = ctx.require_actor()
    return sorted(carried, key=lambda item: owner_of(ctx.world, item) not in (None, actor))


def _buyer(
    ctx: CommandContext, ws: WorldService, keepers: list[Keeper], items: list[UUID]
) -> Keeper:
    """The keeper here to sell ``items`` to: the first who would buy one of them
    now, else the first who buys the kind at all, else the first."""
    kinds: Keeper | None = None
    for keeper, shop, who in keepers:
        for item in items:
            refused = _refusal(ctx, ws, keeper, shop, who, item)[0]
            if not refused:
                return keeper, shop, who
            if kinds is None and refused != "none":
                kinds = (keeper, shop, who)
    return kinds or keepers[0]


def _offer(ctx: CommandContext, args: str) -> tuple[WorldService, UUID, UUID, Shop, str, UUID, int]:
    wanted, named = _with_keeper(ctx, args)
    ws, actor, keepers = _keepers(ctx, named)
    if not wanted:
        raise CommandError(f"{ctx.name.capitalize()} what?")
    items: ItemFactory = ctx.service(ItemFactory)
    _, found = select(ws, _yours_first(ctx, items.carried(actor)), wanted)
    if not found:
        raise not_carrying(ws, items, actor, wanted)
    item = found[0]
    keeper, shop, who = _buyer(ctx, ws, keepers, [item])
    refused, said, price = _refusal(ctx, ws, keeper, shop, who, item)
    if refused in ("none", "worthless", "owned"):  # an appraisal: shelf and purse aside
        raise CommandError(said)
    return ws, actor, keeper, shop, who, item, price


@command("value", aliases=("appraise",), category="shops")
def value(ctx: CommandContext) -> None:
    """Ask the shopkeeper here what they would pay for something you carry.

    Usage: value <item> [to <keeper>]
    """
    ws, _, _, _, who, item, price = _offer(ctx, ctx.args.strip())
    ctx.send(f"{who} would give you {price} gold for {name_of(ws, item)}.")


class _Sale:
    """Items sold to one keeper in one trade, each checked as it comes: the keeper's
    purse and shelf fill up as the sale goes on."""

    def __init__(self, ctx: CommandContext, actor: UUID, keeper: UUID, shop: Shop, who: str):
        self.ctx, self.actor, self.keeper, self.shop, self.who = ctx, actor, keeper, shop, who
        self.items: ItemFactory = ctx.service(ItemFactory)
        self.trade = Trade(ctx.engine, actor, keeper)
        self.sold: list[tuple[UUID, str, int]] = []

    def sell(self, item: UUID, price: int) -> None:
        ctx, keeper, shop = self.ctx, self.keeper, self.shop
        self.trade.track(item)
        template = self.items.template_of(item)
        self.items.add_to_inventory(item, keeper)
        shop.bought.append(item)
        ctx.world.modified(keeper, shop)
        _gold(ctx, self.actor).gold += price
        wealth = ctx.world.try_component(keeper, Wealth)
        if wealth is not None:
            wealth.gold -= price
        market = market_of(ctx)
        rule = market.rule_for(shop, item)
        need = market.need_name(keeper, rule.resource) if rule is not None else None
        needs = ctx.world.try_component(keeper, NeedsComponent)
        if rule is not None and rule.satisfies and need is not None and needs is not None:
            if need in needs.needs:
                needs.satisfy(need, rule.satisfies)
                ctx.world.modified(keeper, needs)
        self.sold.append((item, template or "", price))

    async def close(self, ws: WorldService, what: str) -> int:
        """Commit the trade, tell the world; the gold earned."""
        await self.trade.commit()
        for item, template, price in self.sold:
            self.ctx.engine.events.emit(
                ItemSoldEvent(self.actor, self.keeper, item, template, price)
            )
        send_status(self.ctx.engine, self.actor)
        room = ws.room_key_of(self.actor)
        if room is not None:
            ws.message_room(
                room,
                f"{capitalize(name_of(ws, self.actor))} sells {what} to {self.who}.",
                exclude=(self.actor,),
            )
        return sum(price for _, _, price in self.sold)


@command("sell", category="shops")
async def sell(ctx: CommandContext) -> None:
    """Sell what you carry to the shopkeeper here.

    Usage: sell <item> [to <keeper>]   ('value <item>' first tells you the price)
           sell all.<item>   every one of those you carry
           sell all          everything you carry that the keeper buys
    What you wear is never sold; 'sell all' keeps what the keeper does not want and
    what a quest of yours still asks for. Where several keepers trade, it goes to
    the one who buys it.
    """
    wanted, named = _with_keeper(ctx, ctx.args)
    ws, actor, keepers = _keepers(ctx, named)
    if not wanted:
        raise CommandError("Sell what?")
    items: ItemFactory = ctx.service(ItemFactory)
    many, found = select(ws, _yours_first(ctx, items.carried(actor)), wanted)
    if not found:
        raise not_carrying(ws, items, actor, wanted)
    keeper, shop, who = _buyer(ctx, ws, keepers, found)
    sale = _Sale(ctx, actor, keeper, shop, who)
    if not many:
        item = found[0]
        refused, said, price = _refusal(ctx, ws, keeper, shop, who, item)
        if refused:
            raise CommandError(said)
        thing = name_of(ws, item)
        sale.sell(item, price)
        await sale.close(ws, thing)
        ctx.send(f"You sell {thing} to {who} for {price} gold.")
        return
    # Kept items by why: a kind of refusal, or what else needs them.
    kept: dict[str, list[UUID]] = {}
    market = market_of(ctx)
    for item in found:
        needed = market.kept(actor, sale.items.template_of(item) or "")
        refused, _, price = ("", "", 0) if needed else _refusal(ctx, ws, keeper, shop, who, item)
        if needed or refused:
            kept.setdefault(refused or f"You keep {{what}}: {needed}.", []).append(item)
        else:
            sale.sell(item, price)
    if not sale.sold:
        raise CommandError("\n".join(_kept_lines(ws, who, kept)))
    what = join(group_names(ws, [item for item, _, _ in sale.sold]))
    total = await sale.close(ws, what)
    ctx.send(
        "\n".join([f"You sell {what} to {who} for {total} gold.", *_kept_lines(ws, who, kept)])
    )


#: What a ``sell all`` says, once for all the items a kind of refusal kept.
_KEPT = {
    "none": "{who} does not buy {what}.",
    "worthless": "{who} would not give you anything for {what}.",
    "plenty": "{who} has plenty of those already: {what}.",
    "afford": "{who} cannot afford any more: {what}.",
    "owned": "{who} will not buy what is not yours to sell: {what}.",
}


def _kept_lines(ws: WorldService, who: str, kept: dict[str, list[UUID]]) -> list[str]:
    """What a ``sell all`` left with the seller, and why, a line per reason."""
    return [
        _KEPT.get(kind, kind).format(who=who, what=join(group_names(ws, items)))
        for kind, items in kept.items()
    ]


COMMANDS: list[Command] = [list_goods, buy, sell, value]
