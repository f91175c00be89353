"""The ``Shop`` component a keeper carries: stock, what it buys, its margins."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.ecs import Component


@dataclass
class StockLine:
    """Goods the keeper makes or gets delivered: ``count`` of ``template`` on hand,
    refilled by one every ``every`` game seconds up to ``maximum`` while the supply
    of ``resource`` (if named) reaches the keeper."""

    template: str
    count: int = 0
    maximum: int = 0
    every: float = 0.0
    resource: str = ""
    #: Game time of the next refill (0: not scheduled yet).
    next_at: float = 0.0


@dataclass
class BuyRule:
    """One kind of thing the keeper buys: a ``kind`` of item (weapon, armour,
    consumable, any) or one ``template``. ``resource`` ties the price to the
    keeper's supply of it; ``satisfies`` is how much each one sold eases the need
    behind that supply."""

    kind: str = ""
    template: str = ""
    resource: str = ""
    satisfies: float = 0.0


@dataclass
class Shop(Component):
    """A shopkeeper's trade. Goods players sell are carried in the keeper's own
    inventory (listed in ``bought``) and sold on; ``stock`` holds what the keeper
    makes or gets delivered. What the keeper got any other way (a quest delivery)
    is its own, neither for sale nor worked."""

    component_name = "Shop"
    stock: list[StockLine] = field(default_factory=list)
    buys: list[BuyRule] = field(default_factory=list)
    #: The keeper sells at value x markup ...
    markup: float = 1.25
    #: ... and buys at value x buy_rate.
    buy_rate: float = 0.5
    #: How strongly a failing supply raises prices (0: prices ignore the supply).
    surge: float = 1.0
    #: How many of one kind of thing the keeper takes from players before refusing.
    hold: int = 5
    #: The room the keeper trades in ("" = wherever the keeper is).
    room: str = ""
    #: Items the keeper bought from players and still carries.
    bought: list[UUID] = field(default_factory=list)


@dataclass
class PricesSeen(Component):
    """The prices a player last read on a keeper's ``list``: prices follow the
    village's supply, and a purchase at a price that moved since says so. Runtime
    only, one keeper at a time."""

    component_name = "PricesSeen"
    persist = False
    keeper: UUID | None = None
    #: Item template -> the price read.
    prices: dict[str, int] = field(default_factory=dict)
