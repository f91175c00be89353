"""ShopsPlugin (``classic_rpg.shops``): shopkeepers and their trade.

It adds the npc ``shop:`` data section, the ``Market`` service (goods and prices,
read from the living world's supply when it is loaded), the RestockSystem (phase
living), the commands list, buy, sell and value, and `look`/`examine` of the goods on a
keeper's list. See docs/rpg.md, "Shops".
"""

from __future__ import annotations

from uuid import UUID

from classic_rpg.items.gifts import Gifts
from classic_rpg.rules import RulesPlugin
from classic_rpg.shops import commands
from classic_rpg.shops.components import Shop
from classic_rpg.shops.data import register_shop_data
from classic_rpg.shops.market import Market
from classic_rpg.shops.needs import NeedsMet
from classic_rpg.shops.system import RestockSystem
from classic_rpg.systems.quests import QuestManager
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import LookExtras

__all__ = ["ShopsPlugin"]


class ShopsPlugin(ContentPack):
    name = "classic_rpg.shops"
    requires = (RulesPlugin,)
    provides = (Market,)
    description = "Shopkeepers: list, buy, sell and value, priced by the living world's supply."

    def register(self, ctx: PackContext) -> None:
        register_shop_data(ctx.service(WorldData), ctx.pack.name)
        market = Market(ctx.engine)
        ctx.provide(Market, market)
        quests = ctx.engine.services.try_get(QuestManager)
        if quests is not None:
            # What a quest still asks for is not sold by 'sell all' (asked by name, it is).
            def for_a_quest(seller: UUID, template: str) -> str | None:
                needed = quests.objectives.needed_templates(seller)
                return "a quest of yours needs it" if template in needed else None

            market.keep_guards.append(for_a_quest)
        gifts = ctx.service(Gifts)
        gifts.add_taker(market.gift_answer)
        needs = NeedsMet(ctx.engine, lambda npc: market.world.has_component(npc, Shop))
        gifts.add_taker(needs.taker)
        gifts.add_taken_hook(needs.taken)
        engine = ctx.engine
        # `look sword` in a shop: the keeper's goods are looked at before buying.
        ctx.service(LookExtras).add_describer(
            "shops", lambda viewer, wanted: commands.describe_goods(engine, viewer, wanted)
        )
        ctx.add_system(RestockSystem())
        ctx.add_commands(commands.COMMANDS)
