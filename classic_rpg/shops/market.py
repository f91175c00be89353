"""Prices and goods of a shop, read from the living world.

Prices follow what the simulation already tracks: a stock line or a bought good
tied to a ``resource`` is priced by the keeper's need that the resource's supply
route feeds (living data ``supply:``). While bandits sit on the road that need
falls, so the keeper charges more for what the road brings and pays more for it
when a player brings it instead. A line running low costs more too. Without the
living world (or for goods tied to no resource) prices are the item's value
times the keeper's margins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.items.components import ItemStats
from classic_rpg.items.data import ItemStatsData
from classic_rpg.items.factory import ItemFactory
from classic_rpg.shops.components import BuyRule, Shop, StockLine
from maid_engine.ports import ClockPort, ServicesPort, WorldPort
from maid_stdlib.living import LivingWorld, NeedsComponent, SupplyRoutes
from maid_stdlib.living.conditions import Evaluation
from maid_stdlib.world.components import NPC
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import name_of
from maid_stdlib.world.schema import ThingSpec
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    from maid_engine.ecs import World

#: How much dearer a line is when its stock is gone than when it is full.
LOW_STOCK_PREMIUM = 0.5


class MarketHost(WorldPort, ServicesPort, ClockPort, Protocol):
    """What pricing reads: the keepers, the item templates and the living world's
    supply (through services), and game time for the supply's state."""


@dataclass(frozen=True)
class ItemTemplate:
    """An item template as a keeper's list shows it: a template the world data
    does not know is shown by its key's name, and is worth nothing."""

    name: str
    keywords: list[str] = field(default_factory=list)
    description: str = ""
    stats: ItemStatsData | None = None

    @property
    def value(self) -> int:
        return self.stats.value if self.stats is not None else 0


@dataclass
class Goods:
    """One line of a keeper's list: a kind of item with its price and how many."""

    template: str
    name: str
    keywords: list[str]
    price: int
    #: From the keeper's stock line (spawned when bought).
    in_stock: int = 0
    #: Items players sold to the keeper, sold on first.
    carried: list[UUID] = field(default_factory=list)

    @property
    def count(self) -> int:
        return self.in_stock + len(self.carried)


class Market:
    """Service: what keepers sell and buy, and at what price."""

    def __init__(self, engine: MarketHost) -> None:
        self.engine = engine
        #: ``guard(seller, template)``: why a ``sell all`` leaves such an item with
        #: the seller (another part of the game still needs it), or None.
        self.keep_guards: list[Callable[[UUID, str], str | None]] = []

    def kept(self, seller: UUID, template: str) -> str | None:
        """Why ``sell all`` keeps an item of ``template`` back, if anything says so."""
        return next((why for guard in self.keep_guards if (why := guard(seller, template))), None)

    @property
    def world(self) -> World:
        return self.engine.world

    @property
    def items(self) -> ItemFactory:
        factory: ItemFactory = self.engine.services.get(ItemFactory)
        return factory

    # -- keepers -------------------------------------------------------------------------
    def keeper_in(self, room: str) -> tuple[UUID, Shop] | None:
        """The first of :meth:`keepers_in`."""
        keepers = self.keepers_in(room)
        return keepers[0] if keepers else None

    def keepers_in(self, room: str) -> list[tuple[UUID, Shop]]:
        """The shopkeepers trading in ``room``: those whose shop it is first, then
        those who trade wherever they are (a pedlar). A keeper bound to a shop room
        does not trade elsewhere (e.g. over a drink in the tavern)."""
        ws: WorldService = self.engine.services.get(WorldService)
        own: list[tuple[UUID, Shop]] = []
        roaming: list[tuple[UUID, Shop]] = []
        for uid in ws.contents(room):
            shop = self.world.try_component(uid, Shop)
            if shop is None or not self.world.has_component(uid, NPC):
                continue
            if shop.room == room:
                own.append((uid, shop))
            elif not shop.room:
                roaming.append((uid, shop))
        return own + roaming

    def absent_keeper(self, room: str) -> UUID | None:
        """A shopkeeper whose shop is ``room`` but who is elsewhere just now."""
        for uid, shop in self.world.each(Shop):
            if shop.room == room and self.world.has_component(uid, NPC):
                return uid
        return None

    # -- the living world's supply -------------------------------------------------------
    def _living(self) -> LivingWorld | None:
        living: LivingWorld | None = self.engine.services.try_get(LivingWorld)
        return living if living is not None and living.started else None

    def supply_need(self, keeper: UUID, resource: str) -> float | None:
        """The value of the keeper's need the ``resource``'s supply route feeds."""
        if not resource:
            return None
        routes = self.world.try_component(keeper, SupplyRoutes)
        needs = self.world.try_component(keeper, NeedsComponent)
        if routes is None or needs is None:
            return None
        for route in routes.routes:
            if route.resource == resource:
                return needs.value(route.need)
        return None

    def need_name(self, keeper: UUID, resource: str) -> str | None:
        routes = self.world.try_component(keeper, SupplyRoutes)
        if routes is None:
            return None
        return next((r.need for r in routes.routes if r.resource == resource), None)

    def blocker(self, keeper: UUID, resource: str) -> str | None:
        """Why the ``resource`` does not reach the keeper ("bandits on the road"),
        or None while it does (or nothing tracks it)."""
        living = self._living()
        if living is None or not resource:
            return None
        evaluation = Evaluation(living, self.engine.clock.game_time)
        fact = evaluation.check(f"supply_blocked:{resource}", keeper)
        return fact.description if fact is not None else None

    def scarcity(self, keeper: UUID, resource: str) -> float:
        """0 while the supply keeps the keeper's need satisfied, up to 1 when it is
        desperate."""
        need = self.supply_need(keeper, resource)
        return 0.0 if need is None else min(1.0, max(0.0, 1.0 - need))

    # -- item templates ------------------------------------------------------------------
    def item_template(self, template: str) -> ItemTemplate:
        """What the item ``template`` makes, before one is made by a sale."""
        entry = self.engine.services.get(WorldData).template(template, "item")
        if entry is None:
            return ItemTemplate(template.partition(":")[2] or template)
        stats = entry.extensions.get("stats")
        data = stats if isinstance(stats, ItemStatsData) else None
        spec = entry.spec
        if not isinstance(spec, ThingSpec):
            return ItemTemplate(template.partition(":")[2] or template, stats=data)
        return ItemTemplate(spec.name, list(spec.keywords), spec.description, data)

    # -- prices --------------------------------------------------------------------------
    def _line(self, shop: Shop, template: str) -> StockLine | None:
        return next((line for line in shop.stock if line.template == template), None)

    def _resource_of(self, shop: Shop, template: str) -> str:
        line = self._line(shop, template)
        if line is not None and line.resource:
            return line.resource
        return next((r.resource for r in shop.buys if r.template == template), "")

    def selling_price(self, keeper: UUID, shop: Shop, template: str) -> int:
        """What the keeper asks for one ``template``."""
        value = max(1, self.item_template(template).value)
        factor = shop.markup * (
            1.0 + shop.surge * self.scarcity(keeper, self._resource_of(shop, template))
        )
        line = self._line(shop, template)
        if line is not None and line.maximum > 0:
            missing = max(0, line.maximum - line.count) / line.maximum
            factor *= 1.0 + LOW_STOCK_PREMIUM * missing
        return max(1, round(value * factor))

    def rule_for(self, shop: Shop, item: UUID) -> BuyRule | None:
        """The rule under which the keeper buys ``item`` (things it stocks count)."""
        template = self.items.template_of(item)
        stats = self.world.try_component(item, ItemStats)
        if stats is None:
            return None
        for rule in shop.buys:
            if rule.template and rule.template == template:
                return rule
            if rule.kind and _is_kind(rule.kind, stats):
                return rule
        if self._line(shop, template) is not None:
            return BuyRule(template=template)
        return None

    def buying_price(self, keeper: UUID, shop: Shop, item: UUID) -> int | None:
        """What the keeper pays for ``item``: None if it does not buy such things,
        never as much as it would ask for one."""
        rule = self.rule_for(shop, item)
        if rule is None:
            return None
        stats = self.world.get_component(item, ItemStats)
        template = self.items.template_of(item)
        resource = rule.resource or self._resource_of(shop, template)
        factor = shop.buy_rate * (1.0 + shop.surge * self.scarcity(keeper, resource))
        offer = int(stats.value * factor)
        return max(0, min(offer, self.selling_price(keeper, shop, template) - 1))

    def is_material(self, shop: Shop, template: str) -> bool:
        """Bought to be worked (a rule naming a resource), not to be sold on."""
        return any(r.template == template and r.resource for r in shop.buys)

    def gift_answer(self, giver: UUID, receiver: UUID, template: str) -> str | None:
        """The items' GiftTaker for shopkeepers: one given what it buys says it
        would rather buy it (a player handing goods to a keeper means to sell
        them); anything else is no business of the shop's."""
        shop = self.world.try_component(receiver, Shop)
        if shop is None:
            return None
        items = self.items
        item = next((i for i in items.carried(giver) if items.template_of(i) == template), None)
        if item is None or self.rule_for(shop, item) is None:
            return None
        ws: WorldService = self.engine.services.get(WorldService)
        keywords = ws.keywords_of(item)
        # A word no other thing carried answers to: 'sell ore' would sell the first
        # ore found, which may be one the keeper does not buy.
        carried = items.carried(giver)
        others = {k for i in carried if items.template_of(i) != template for k in ws.keywords_of(i)}
        own = [k for k in keywords if k not in others]
        what = (own or keywords or ["it"])[0]
        return f"{capitalize(name_of(ws, receiver))} would rather buy it: type 'sell {what}'."

    # -- the list ------------------------------------------------------------------------
    def goods(self, keeper: UUID, shop: Shop) -> list[Goods]:
        """What the keeper offers: stock lines in their order (sold out ones too),
        then what players sold it, but not the materials it works."""
        out: dict[str, Goods] = {}
        for line in shop.stock:
            made = self.item_template(line.template)
            price = self.selling_price(keeper, shop, line.template)
            out[line.template] = Goods(
                line.template, made.name, made.keywords, price, in_stock=line.count
            )
        carried = set(self.items.carried(keeper))
        for item in shop.bought:
            if item not in carried:
                continue
            template = self.items.template_of(item)
            if not template or self.is_material(shop, template):
                continue
            goods = out.get(template)
            if goods is None:
                made = self.item_template(template)
                price = self.selling_price(keeper, shop, template)
                goods = out[template] = Goods(template, made.name, made.keywords, price)
            goods.carried.append(item)
        return list(out.values())


def _is_kind(kind: str, stats: ItemStats) -> bool:
    if kind == "any":
        return True
    if kind == "weapon":
        return stats.is_weapon
    if kind == "armour":
        return stats.slot is not None and stats.slot != "weapon"
    if kind == "consumable":
        return stats.heal > 0
    return False
