"""The ``shop:`` section of NPC entries: what a keeper sells and buys.

    npcs:
      - key: gundrik
        ...
        shop:
          markup: 1.25          # sells at value x markup (default 1.25)
          buy_rate: 0.5         # buys at value x buy_rate (default 0.5)
          surge: 1.0            # how much a failing supply raises prices (default 1)
          hold: 5               # how many of one thing it takes from players
          room: smithy          # trades only here (default: wherever it is)
          stock:
            - {item: rusty_sword, count: 3, max: 4, restock_hours: 6, resource: iron}
          buys:
            - weapon                                       # a kind of item
            - {item: iron_ore, resource: iron, satisfies: 0.02}

Kinds of item a keeper may buy: ``weapon``, ``armour`` (anything worn that is not
a weapon), ``consumable`` (heals when drunk or eaten) and ``any``. A stock line's
``resource`` names one of the keeper's supply routes (living data ``supply:``):
while that route is blocked the line is not refilled, and its price follows the
need the route feeds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from classic_rpg.shops.components import BuyRule, Shop, StockLine
from maid_engine.clock import GAME_HOUR
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import qualify

ITEM_REF = r"^(?:[a-z0-9][a-z0-9_\-]*:)?[a-z0-9][a-z0-9_\-]*$"
Kind = Literal["weapon", "armour", "consumable", "any"]
KINDS: tuple[str, ...] = ("weapon", "armour", "consumable", "any")


class StockData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: Item template: "key" in this pack or "pack:key".
    item: str = Field(pattern=ITEM_REF)
    #: On hand when the keeper is first made.
    count: int = Field(default=1, ge=0)
    #: Refills stop here (default: the starting count).
    max: int | None = Field(default=None, ge=0)
    #: Game hours per refilled item (0: never refilled).
    restock_hours: float = Field(default=0.0, ge=0)
    #: The supply this line depends on (a ``supply:`` resource of the keeper).
    resource: str = ""

    @property
    def maximum(self) -> int:
        return self.count if self.max is None else self.max


class BuyData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    item: str | None = Field(default=None, pattern=ITEM_REF)
    kind: Kind | None = None
    resource: str = ""
    #: How much each one sold eases the keeper's need behind ``resource``.
    satisfies: float = Field(default=0.0, ge=0.0, le=1.0)


class ShopData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    markup: float = Field(default=1.25, ge=1.0, le=10.0)
    buy_rate: float = Field(default=0.5, ge=0.0, le=1.0)
    surge: float = Field(default=1.0, ge=0.0, le=5.0)
    hold: int = Field(default=5, ge=0)
    room: str | None = None
    stock: list[StockData] = Field(default_factory=list)
    buys: list[Kind | BuyData] = Field(default_factory=list)


def _rules(value: ShopData) -> list[BuyData]:
    return [BuyData(kind=b) if isinstance(b, str) else b for b in value.buys]


def check_shop(value: ShopData, scope: CheckScope) -> Iterable[str]:
    if value.room is not None and not scope.room_exists(value.room):
        yield f"room: unknown room {scope.qualify(value.room)!r}"
    for i, line in enumerate(value.stock):
        full = scope.qualify(line.item)
        if full.partition(":")[0] == scope.pack and full not in scope.item_keys:
            yield f"stock[{i}].item: unknown item template {full!r}"
        if line.maximum < line.count:
            yield f"stock[{i}]: max {line.maximum} is below count {line.count}"
    for i, rule in enumerate(_rules(value)):
        if (rule.item is None) == (rule.kind is None):
            yield f"buys[{i}]: name either an item or a kind ({', '.join(KINDS)})"
            continue
        if rule.item is not None:
            full = scope.qualify(rule.item)
            if full.partition(":")[0] == scope.pack and full not in scope.item_keys:
                yield f"buys[{i}].item: unknown item template {full!r}"
    if not value.stock and not value.buys:
        yield "a shop needs stock or something it buys"


def apply_shop(ctx: ExtensionContext, value: ShopData) -> None:
    stock = [
        StockLine(
            template=qualify(ctx.pack, line.item),
            count=line.count,
            maximum=line.maximum,
            every=line.restock_hours * GAME_HOUR,
            resource=line.resource,
        )
        for line in value.stock
    ]
    buys = [
        BuyRule(
            kind=rule.kind or "",
            template=qualify(ctx.pack, rule.item) if rule.item else "",
            resource=rule.resource,
            satisfies=rule.satisfies,
        )
        for rule in _rules(value)
    ]
    ctx.world.add_component(
        ctx.entity_id,
        Shop(
            stock=stock,
            buys=buys,
            markup=value.markup,
            buy_rate=value.buy_rate,
            surge=value.surge,
            hold=value.hold,
            room=qualify(ctx.pack, value.room) if value.room else "",
        ),
    )


def register_shop_data(data: WorldData, owner: str) -> None:
    data.register_extension("npc", "shop", ShopData, apply_shop, check_shop, owner=owner)
