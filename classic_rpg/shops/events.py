"""Events of trading with shopkeepers."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.events import Event


@dataclass
class ItemBoughtEvent(Event):
    """A character bought ``item_id`` from the keeper ``seller_id``."""

    buyer_id: UUID
    seller_id: UUID
    item_id: UUID
    template: str
    price: int


@dataclass
class ItemSoldEvent(Event):
    """A character sold ``item_id`` to the keeper ``buyer_id``."""

    seller_id: UUID
    buyer_id: UUID
    item_id: UUID
    template: str
    price: int
