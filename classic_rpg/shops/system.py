"""RestockSystem: keepers refill their stock while their supply gets through.

Every stock line with a refill time gains one item each ``every`` game seconds up
to its maximum, unless the line's resource is cut off (its supply route is
blocked in the living world): then the keeper waits for the road to clear. A
keeper who bought the raw material of a line from a player (a smith buying iron
ore) works it into that line instead, road or no road; what it was given (a quest
delivery) stays its own.
"""

from __future__ import annotations

from uuid import UUID

from classic_rpg.items.factory import ItemFactory
from classic_rpg.shops.components import Shop
from classic_rpg.shops.market import Market
from maid_engine.ecs import System


class RestockSystem(System):
    phase = "living"

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        market: Market = self.engine.services.get(Market)
        items: ItemFactory = self.engine.services.get(ItemFactory)
        world = self.world
        for keeper, (shop,) in world.query(Shop):
            changed = self._work_materials(market, items, keeper, shop)
            for line in shop.stock:
                if line.every <= 0:
                    continue
                if line.count >= line.maximum:
                    line.next_at = 0.0
                    continue
                if line.next_at <= 0:
                    line.next_at = now + line.every
                    changed = True
                    continue
                if now < line.next_at:
                    continue
                line.next_at = now + line.every
                changed = True
                if line.resource and market.blocker(keeper, line.resource) is not None:
                    continue
                line.count += 1
            if changed:
                world.modified(keeper, shop)

    @staticmethod
    def _work_materials(market: Market, items: ItemFactory, keeper: UUID, shop: Shop) -> bool:
        changed = False
        carried = set(items.carried(keeper))
        for item in list(shop.bought):
            if item not in carried:
                # Gone some other way (taken back by an admin, destroyed): forget it.
                shop.bought.remove(item)
                changed = True
                continue
            template = items.template_of(item)
            rule = next((r for r in shop.buys if r.template == template and r.resource), None)
            if rule is None:
                continue
            line = next(
                (s for s in shop.stock if s.resource == rule.resource and s.count < s.maximum),
                None,
            )
            if line is None:
                continue
            items.destroy(item)
            shop.bought.remove(item)
            line.count += 1
            changed = True
        return changed
