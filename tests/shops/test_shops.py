"""Shops on Hamlet under the RPG rules: list, buy, sell, value, the living world's
supply in prices and restocking, and trades that are on disk before anyone is told.

Hollin sells flour at the mill (his grain comes up the mill road, where the wolves
are) and works flour brought to him into his stock; Marta sells cider at the inn."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from kits.engines import hamlet_engine, hv, items_of, npcs, qm
from kits.heroes import Recorder, new_character, place

from classic_rpg.components import CharacterStats
from classic_rpg.items.components import BelongsTo
from classic_rpg.items.gifts import Gifts
from classic_rpg.shops.components import BuyRule, Shop, StockLine
from classic_rpg.shops.data import ShopData, check_shop
from classic_rpg.shops.events import ItemBoughtEvent, ItemSoldEvent
from classic_rpg.shops.market import Market
from classic_rpg.systems.quests import Quest, QuestObjective
from maid_engine.engine import GameEngine
from maid_engine.store import StoreUnavailable
from maid_engine.testing import cmd
from maid_stdlib.living import LivingWorld, NeedsComponent, Wealth
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestState
from maid_stdlib.world.components import data_uuid
from maid_stdlib.world.extensions import CheckScope
from maid_stdlib.world.schema import Entry
from maid_stdlib.world.service import WorldService


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with hamlet_engine(tmp_path, rpg=True).lifespan() as eng:
        yield eng


def rich(
    engine: GameEngine, name: str = "Alice", gold: int = 100, room: str = "hamlet:inn"
) -> UUID:
    hero = new_character(engine, name)
    engine.world.get_component(hero, CharacterStats).gold = gold
    place(engine, hero, room)
    return hero


def gold(engine: GameEngine, uid: UUID) -> int:
    return engine.world.get_component(uid, CharacterStats).gold


def shop(engine: GameEngine, key: str) -> Shop:
    return engine.world.get_component(hv(key), Shop)


def keep_at(engine: GameEngine, key: str, room: str) -> None:
    place(engine, hv(key), room)


def wolves_gone(engine: GameEngine) -> None:
    for wolf in [*npcs(engine, "wolf"), *npcs(engine, "old_grey")]:
        engine.world.destroy_entity(wolf)
    engine.services.get(LivingWorld).invalidate_threats()


async def test_list_shows_goods_prices_stock_and_what_the_keeper_buys(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    out = await cmd(engine, hero, "list")
    assert "Marta sells:" in out
    assert "A jug of cider" in out
    assert "(3 in stock)" in out
    assert "Marta buys food and drink, weapons, a wolf pelt and anything on this list." in out
    assert "You have 100 gold." in out


async def test_buying_takes_gold_gives_the_item_and_lowers_the_stock(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    rec = Recorder(engine, ItemBoughtEvent)
    wealth = engine.world.get_component(hv("marta"), Wealth).gold
    out = await cmd(engine, hero, "buy cider 2")
    assert out == "You buy a jug of cider (x2) from Marta for 2 gold."
    assert gold(engine, hero) == 98
    assert engine.world.get_component(hv("marta"), Wealth).gold == wealth + 2
    carried = items_of(engine).carried(hero)
    assert [items_of(engine).template_of(i) for i in carried] == ["hamlet:cider"] * 2
    assert shop(engine, "marta").stock[0].count == 1
    assert [e.buyer_id for e in rec.of(ItemBoughtEvent)] == [hero, hero]
    assert "(1 in stock)" in await cmd(engine, hero, "list")
    # "buy 1 cider" reads the quantity first too
    assert "You buy a jug of cider from Marta" in await cmd(engine, hero, "buy 1 cider")


async def test_a_purchase_says_when_the_price_moved_since_the_list(engine: GameEngine) -> None:
    # A player read 29 gold on the list and paid 32 a little later, untold.
    hero = rich(engine, room="hamlet:mill")
    keep_at(engine, "hollin", "hamlet:mill")
    needs = engine.world.get_component(hv("hollin"), NeedsComponent)
    needs.needs["economic"].value = 1.0
    listed = await cmd(engine, hero, "list")
    read = re.search(r"(\d+) gold", listed.split("\n")[1])
    assert read is not None, listed
    price = int(read.group(1))
    needs.needs["economic"].value = 0.1  # the mill road is cut: flour gets dear
    out = await cmd(engine, hero, "buy flour")
    moved = re.fullmatch(
        r"You buy a sack of flour from Hollin for (\d+) gold\. The price went up from "
        rf"{price} to (\d+) gold since you looked\.",
        out,
    )
    assert moved is not None, out
    assert moved.group(1) == moved.group(2)
    # Read again on the list, the price it is bought at says nothing more.
    await cmd(engine, hero, "list")
    assert "since you looked" not in await cmd(engine, hero, "buy flour")


async def test_clear_errors_and_nothing_changes(engine: GameEngine) -> None:
    hero = rich(engine, gold=1)
    keep_at(engine, "marta", "hamlet:inn")
    assert await cmd(engine, hero, "buy cider 3") == (
        "You can't afford that: a jug of cider (x3) cost 3 gold and you have 1."
    )
    assert await cmd(engine, hero, "buy cider 4") == "Marta has only 3 of those."
    assert "does not sell 'sword'" in await cmd(engine, hero, "buy sword")
    assert "between 1 and 20" in await cmd(engine, hero, "buy cider 0")
    assert "Buy what?" in await cmd(engine, hero, "buy")
    assert "You are not carrying 'horn'" in await cmd(engine, hero, "sell horn")
    assert gold(engine, hero) == 1
    assert shop(engine, "marta").stock[0].count == 3
    place(engine, hero, "hamlet:green")
    assert await cmd(engine, hero, "list") == "There is nobody here to trade with."
    # Hollin trades only at his mill, not over a drink at the inn.
    keep_at(engine, "hollin", "hamlet:green")
    assert await cmd(engine, hero, "list") == "There is nobody here to trade with."
    # At the inn with Marta out: her shop is here, she is not.
    keep_at(engine, "marta", "hamlet:green")
    place(engine, hero, "hamlet:inn")
    assert await cmd(engine, hero, "list") == "Marta keeps shop here, but is away just now."


async def test_sold_out_then_restocked_on_game_time(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    await cmd(engine, hero, "buy cider 3")
    assert "sold out" in await cmd(engine, hero, "list")
    assert await cmd(engine, hero, "buy cider") == "Marta has sold out of those; come back later."
    for _ in range(3 * 60 + 2):  # 60 s ticks: three game hours
        keep_at(engine, "marta", "hamlet:inn")
        await engine.tick()
    assert shop(engine, "marta").stock[0].count >= 2


async def test_value_and_sell_to_a_keeper_who_buys_it(engine: GameEngine) -> None:
    hero = rich(engine, gold=0)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    pelt = items.spawn("hamlet:wolf_pelt", holder=hero)
    horn = items.spawn("hamlet:horn", holder=hero)
    rec = Recorder(engine, ItemSoldEvent)
    assert await cmd(engine, hero, "value pelt") == "Marta would give you 1 gold for a wolf pelt."
    # Handing her what she buys is meant as a sale: she says how; the rest she has
    # no use for.
    assert await cmd(engine, hero, "give pelt to marta") == (
        "Marta would rather buy it: type 'sell pelt'."
    )
    assert await cmd(engine, hero, "give horn to marta") == "Marta has no use for a warden's horn."
    # With another pelt carried, the word she names is one only hers answers to.
    grey = items.spawn("hamlet:grey_pelt", holder=hero)
    assert await cmd(engine, hero, "give wolf to marta") == (
        "Marta would rather buy it: type 'sell wolf'."
    )
    items.destroy(grey)
    assert await cmd(engine, hero, "sell horn") == (
        "Marta doesn't buy that. (Marta buys food and drink, weapons, a wolf pelt and anything "
        "on this list.)"
    )
    assert await cmd(engine, hero, "sell pelt") == "You sell a wolf pelt to Marta for 1 gold."
    assert gold(engine, hero) == 1
    assert items.holder_of(pelt) == hv("marta")
    assert items.holder_of(horn) == hero
    [sold] = rec.of(ItemSoldEvent)
    assert (sold.seller_id, sold.buyer_id, sold.price) == (hero, hv("marta"), 1)
    # What players sell is sold on.
    other = rich(engine, "Bob")
    assert "A wolf pelt" in await cmd(engine, other, "list")
    assert "You buy a wolf pelt from Marta" in await cmd(engine, other, "buy pelt")
    assert items.holder_of(pelt) == other


async def test_several_keepers_in_one_room_each_trade_their_own(engine: GameEngine) -> None:
    # Pell turns pedlar: his tray of flour goes wherever he does, here the inn,
    # where Marta keeps her own shop.
    engine.world.add_component(
        hv("pell"),
        Shop(stock=[StockLine("hamlet:flour", count=2, maximum=2)], buys=[BuyRule(kind="any")]),
    )
    keep_at(engine, "marta", "hamlet:inn")
    keep_at(engine, "pell", "hamlet:inn")
    hero = rich(engine)
    out = await cmd(engine, hero, "list")
    # The inn's own keeper first, then the one passing through; the purse once.
    assert out.index("Marta sells:") < out.index("Pell sells:") < out.index("You have 100 gold.")
    assert out.count("You have 100 gold.") == 1
    only_pell = await cmd(engine, hero, "list pell")
    assert "Pell sells:" in only_pell
    assert "Marta" not in only_pell
    assert "Marta sells:" in await cmd(engine, hero, "list swords")  # names nobody: all
    # Each purchase goes to whoever sells it.
    assert "from Pell for" in await cmd(engine, hero, "buy flour")
    assert "from Marta for" in await cmd(engine, hero, "buy cider")
    assert await cmd(engine, hero, "buy cider from pell") == (
        "Pell does not sell 'cider'. ('list' shows what is for sale.)"
    )
    assert await cmd(engine, hero, "buy turnips") == (
        "Nobody here sells 'turnips'. ('list' shows what is for sale.)"
    )
    rich(engine, "Bob")
    assert await cmd(engine, hero, "list bob") == "Bob does not trade here."
    # A sale goes to whoever buys it: Marta takes pelts, Pell anything of value.
    items = items_of(engine)
    items.spawn("hamlet:wolf_pelt", holder=hero)
    assert await cmd(engine, hero, "value pelt") == "Marta would give you 1 gold for a wolf pelt."
    assert (await cmd(engine, hero, "value pelt to pell")).startswith("Pell would give you")
    assert (await cmd(engine, hero, "sell pelt to pell")).startswith("You sell a wolf pelt to Pell")
    items.spawn("hamlet:horn", holder=hero)
    assert "to Pell" in await cmd(engine, hero, "sell horn")


async def test_someones_goods_are_carried_not_sold(engine: GameEngine) -> None:
    # The cider on the inn's long table is Marta's: a player may pick it up, but
    # not sell it to her (or anyone) for gold; she takes it back when given it.
    hero = rich(engine, gold=0)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    cider = data_uuid("hamlet", "item", "cider")
    assert "You pick up a jug of cider" in await cmd(engine, hero, "get cider")
    assert "It belongs to Marta." in await cmd(engine, hero, "examine cider")
    theirs = "Marta will not buy a jug of cider: it is hers already."
    assert await cmd(engine, hero, "value cider") == theirs
    assert await cmd(engine, hero, "sell cider") == theirs
    items.spawn("hamlet:wolf_pelt", holder=hero)
    assert await cmd(engine, hero, "sell all") == (
        "You sell a wolf pelt to Marta for 1 gold.\n"
        "Marta will not buy what is not yours to sell: a jug of cider."
    )
    assert (gold(engine, hero), items.holder_of(cider)) == (1, hero)
    # A jug of one's own beside hers: "sell cider" sells one's own.
    mine = items.spawn("hamlet:cider", holder=hero)
    items.add_to_inventory(cider, hero)  # hers listed last...
    items.add_to_inventory(mine, hero)  # ...then mine after it
    assert "Marta would not give you anything for a jug of cider." == await cmd(
        engine, hero, "value cider"
    )
    items.destroy(mine)
    # Given back (hers handed over before a jug of her stock), it is put back where
    # it waits for the trades that want it, with its own room line (not "... lies
    # here.").
    bought = items.spawn("hamlet:cider", holder=hero)
    items.add_to_inventory(cider, hero)  # listed after the bought one
    keep_at(engine, "marta", "hamlet:mill_lane")
    place(engine, hero, "hamlet:mill_lane")
    assert await cmd(engine, hero, "give cider to marta") == (
        "You give a jug of cider to Marta.\nMarta sends it back to The Sheaf Inn."
    )
    ws = engine.services.get(WorldService)
    assert (items.holder_of(cider), ws.room_key_of(cider)) == (None, "hamlet:inn")
    assert items.holder_of(bought) == hero
    items.destroy(bought)
    place(engine, hero, "hamlet:inn")
    assert "A jug of cider stands on the long table." in await cmd(engine, hero, "look")
    keep_at(engine, "marta", "hamlet:inn")
    # Someone else's: she will neither buy nor take it, and says why.
    tamsins = items.spawn("hamlet:cider", holder=hero)
    engine.world.add_component(tamsins, BelongsTo(hv("tamsin"), "hamlet:warden_hut"))
    assert await cmd(engine, hero, "sell cider") == (
        "Marta will not buy a jug of cider: it belongs to Warden Tamsin."
    )
    assert await cmd(engine, hero, "give cider to marta") == (
        "A jug of cider is Warden Tamsin's, not yours to give."
    )
    # With a jug of one's own too, it is that one which is offered: no word of Tamsin.
    mine = items.spawn("hamlet:cider", holder=hero)
    assert "Tamsin" not in await cmd(engine, hero, "give cider to marta")
    items.destroy(mine)
    keep_at(engine, "tamsin", "hamlet:inn")
    assert await cmd(engine, hero, "give cider to tamsin") == (
        "You give a jug of cider to Warden Tamsin.\n"
        "Warden Tamsin sends it back to The Warden's Hut."
    )
    assert ws.room_key_of(tamsins) == "hamlet:warden_hut"
    # Several at once: one line for what goes back to one place.
    jugs = [items.spawn("hamlet:cider", holder=hero) for _ in range(2)]
    for jug in jugs:
        engine.world.add_component(jug, BelongsTo(hv("marta"), "hamlet:inn"))
    assert await cmd(engine, hero, "give all.cider to marta") == (
        "You give a jug of cider (x2) to Marta.\nMarta puts them back in their place."
    )
    assert [ws.room_key_of(jug) for jug in jugs] == ["hamlet:inn"] * 2
    # A copy made from the same entry (a keeper's stock, loot) is nobody's: only
    # the price stands in the way.
    items.spawn("hamlet:cider", holder=hero)
    assert "It belongs" not in await cmd(engine, hero, "examine cider")
    assert await cmd(engine, hero, "sell cider") == (
        "Marta would not give you anything for a jug of cider."
    )


async def test_goods_a_quest_brings_their_owner_stay_with_the_owner(engine: GameEngine) -> None:
    # A delivery of Marta's own cider to her is the quest's: it is not put back on
    # the table for the next player to carry to her again.
    hero = rich(engine, gold=0)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    cider = data_uuid("hamlet", "item", "cider")
    deliver = QuestObjective(
        objective_id="bring",
        objective_type=ObjectiveType.DELIVER,
        description="Bring Marta her cider.",
        item_template="hamlet:cider",
        target_id=hv("marta"),
    )
    manager = qm(engine)
    manager.register_quest(
        Quest(quest_id="jug", title="Jug", objectives=[deliver], giver_npc_id=hv("marta"))
    )
    manager.offer_quest(hero, "jug")
    await manager.accept_quest(hero, "jug")
    await cmd(engine, hero, "get cider")
    out = await cmd(engine, hero, "give cider to marta")
    assert out.startswith("You give a jug of cider to Marta.")
    assert "back" not in out
    assert items.holder_of(cider) == hv("marta")
    entry = manager.entry(hero, "jug")
    assert entry is not None
    assert entry.objectives["bring"].completed


async def test_keeper_refuses_when_full_or_broke(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    shop(engine, "marta").hold = 1
    items.spawn("hamlet:wolf_pelt", holder=hero)
    items.spawn("hamlet:wolf_pelt", holder=hero)
    assert "You sell" in await cmd(engine, hero, "sell pelt")
    assert await cmd(engine, hero, "sell pelt") == "Marta has plenty of those already."
    shop(engine, "marta").hold = 5
    engine.world.get_component(hv("marta"), Wealth).gold = 0
    assert await cmd(engine, hero, "sell pelt") == "Marta cannot afford to buy that right now."


async def test_sell_all_sells_what_the_keeper_takes_and_says_what_it_kept(
    engine: GameEngine,
) -> None:
    hero = rich(engine, gold=0)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    shop(engine, "marta").hold = 2
    pelts = [items.spawn("hamlet:wolf_pelt", holder=hero) for _ in range(3)]
    horn = items.spawn("hamlet:horn", holder=hero)
    rec = Recorder(engine, ItemSoldEvent)
    # Every item is offered, each on its own terms: two pelts fill Marta's shelf,
    # the third and the horn (which she never buys) stay with the seller.
    assert await cmd(engine, hero, "sell all") == (
        "You sell a wolf pelt (x2) to Marta for 2 gold.\n"
        "Marta has plenty of those already: a wolf pelt.\n"
        "Marta does not buy a warden's horn."
    )
    assert gold(engine, hero) == 2
    assert [items.holder_of(p) for p in pelts] == [hv("marta"), hv("marta"), hero]
    assert items.holder_of(horn) == hero
    assert [e.price for e in rec.of(ItemSoldEvent)] == [1, 1]
    # Nothing left she takes: a refusal, and nothing changes hands.
    assert await cmd(engine, hero, "sell all.horn") == "Marta does not buy a warden's horn."
    assert "You sell" not in await cmd(engine, hero, "sell all")
    assert gold(engine, hero) == 2
    assert await cmd(engine, hero, "sell all.sword") == "You are not carrying anything like that."


async def test_sell_all_keeps_what_a_quest_still_asks_for(engine: GameEngine) -> None:
    hero = rich(engine, gold=0)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    pelts = [items.spawn("hamlet:wolf_pelt", holder=hero) for _ in range(2)]
    collect = QuestObjective(
        objective_id="pelts",
        objective_type=ObjectiveType.COLLECT,
        description="Bring Hollin three wolf pelts",
        item_template="hamlet:wolf_pelt",
        target_count=3,
    )
    manager = qm(engine)
    manager.register_quest(
        Quest(quest_id="pelts", title="Pelts", objectives=[collect], giver_npc_id=hv("hollin"))
    )
    manager.offer_quest(hero, "pelts")
    await manager.accept_quest(hero, "pelts")
    # 'sell all' leaves the quest's pelts alone; asked for by name, one is sold.
    assert await cmd(engine, hero, "sell all") == (
        "You keep a wolf pelt (x2): a quest of yours needs it."
    )
    assert items.carried(hero) == pelts
    assert "You sell a wolf pelt" in await cmd(engine, hero, "sell pelt")
    # Gathered in full, they are still kept: the turn-in hands them over.
    pelts = [items.spawn("hamlet:wolf_pelt", holder=hero) for _ in range(2)]
    qm(engine).objectives.recount(hero, "hamlet:wolf_pelt")
    entry = qm(engine).entry(hero, "pelts")
    assert entry is not None
    assert entry.state is QuestState.COMPLETED
    assert await cmd(engine, hero, "sell all") == (
        "You keep a wolf pelt (x3): a quest of yours needs it."
    )


async def test_a_sell_all_that_cannot_be_saved_changes_nothing(engine: GameEngine) -> None:
    hero = rich(engine, gold=0)
    keep_at(engine, "marta", "hamlet:inn")
    items = items_of(engine)
    pelts = [items.spawn("hamlet:wolf_pelt", holder=hero) for _ in range(2)]

    def broken(writes: Any = None) -> Any:
        raise StoreUnavailable("the database is down")

    engine.commit_now = broken  # type: ignore[method-assign]
    assert "could not be recorded" in await cmd(engine, hero, "sell all.pelt")
    assert items.carried(hero) == pelts
    assert gold(engine, hero) == 0
    assert shop(engine, "marta").bought == []


async def test_prices_follow_the_keepers_supply_need(engine: GameEngine) -> None:
    hero = rich(engine, room="hamlet:mill")
    keep_at(engine, "hollin", "hamlet:mill")
    market = engine.services.get(Market)
    needs = engine.world.get_component(hv("hollin"), NeedsComponent)
    needs.needs["economic"].value = 1.0
    calm = market.selling_price(hv("hollin"), shop(engine, "hollin"), "hamlet:flour")
    needs.needs["economic"].value = 0.1
    dear = market.selling_price(hv("hollin"), shop(engine, "hollin"), "hamlet:flour")
    assert dear > calm
    flour = items_of(engine).spawn("hamlet:flour", holder=hero)
    low = market.buying_price(hv("hollin"), shop(engine, "hollin"), flour)
    needs.needs["economic"].value = 1.0
    high = market.buying_price(hv("hollin"), shop(engine, "hollin"), flour)
    assert low is not None
    assert high is not None
    assert low >= high
    # The wolves on the mill road cut the grain: the list says so.
    assert "Short of grain: " in await cmd(engine, hero, "list")


async def test_a_blocked_supply_stops_refills_until_the_road_clears(engine: GameEngine) -> None:
    hero = rich(engine, room="hamlet:mill")
    keep_at(engine, "hollin", "hamlet:mill")
    await cmd(engine, hero, "buy flour 2")
    line = shop(engine, "hollin").stock[0]
    assert line.count == 0
    for _ in range(5 * 60):
        keep_at(engine, "hollin", "hamlet:mill")
        await engine.tick()
    assert line.count == 0, "no grain gets through while the wolves hold the road"
    wolves_gone(engine)
    for _ in range(5 * 60):
        await engine.tick()
    assert line.count >= 1


async def test_selling_a_material_eases_the_need_and_is_worked_into_stock(
    engine: GameEngine,
) -> None:
    hero = rich(engine, gold=0, room="hamlet:mill")
    keep_at(engine, "hollin", "hamlet:mill")
    line = shop(engine, "hollin").stock[0]
    line.count = 0
    needs = engine.world.get_component(hv("hollin"), NeedsComponent)
    before = needs.value("economic")
    assert before is not None
    flour = items_of(engine).spawn("hamlet:flour", holder=hero)
    assert "You sell a sack of flour to Hollin" in await cmd(engine, hero, "sell flour")
    assert needs.value("economic") == pytest.approx(min(1.0, before + 0.05))
    # Not resold as it is: worked into the stock line on the next tick.
    assert "A sack of flour" in await cmd(engine, hero, "list")
    await engine.tick()
    assert line.count == 1
    assert not engine.world.entity_exists(flour)


async def test_the_trade_is_undone_when_it_cannot_be_saved(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    pelt = items_of(engine).spawn("hamlet:wolf_pelt", holder=hero)

    def broken(writes: Any = None) -> Any:
        raise StoreUnavailable("the database is down")

    engine.commit_now = broken  # type: ignore[method-assign]
    out = await cmd(engine, hero, "buy cider")
    assert "could not be recorded" in out
    assert "nothing changed hands" in out
    assert gold(engine, hero) == 100
    assert shop(engine, "marta").stock[0].count == 3
    assert items_of(engine).carried(hero) == [pelt]
    assert "could not be recorded" in await cmd(engine, hero, "sell pelt")
    assert items_of(engine).holder_of(pelt) == hero
    assert gold(engine, hero) == 100


async def test_a_trade_is_on_disk_before_the_buyer_is_told(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}"
    eng = hamlet_engine(tmp_path, rpg=True, db_url=url)
    async with eng.lifespan() as engine:
        hero = rich(engine)
        keep_at(engine, "marta", "hamlet:inn")
        await engine.checkpoint()
        assert "You buy" in await cmd(engine, hero, "buy cider")
        [cider] = items_of(engine).carried(hero)
        rows = await engine.store.entities.load_all()
        assert rows[hero]["CharacterStats"]["gold"] == 99
        assert rows[hv("marta")]["Shop"]["stock"][0]["count"] == 2
        assert rows[cider]["HeldBy"]["holder"] == str(hero)


def test_shop_data_is_checked() -> None:
    entry: Any = Entry(kind="npc", pack="p", key="k", spec=None, file="f.yaml")  # type: ignore[arg-type]
    scope = CheckScope("p", entry, frozenset({"p:shop"}), frozenset(), frozenset({"p:bread"}))
    bad = ShopData.model_validate(
        {
            "room": "nowhere",
            "stock": [{"item": "cake", "count": 3, "max": 2}],
            "buys": [{"item": "stone"}, {"resource": "iron"}],
        }
    )
    problems = list(check_shop(bad, scope))
    assert "room: unknown room 'p:nowhere'" in problems
    assert "stock[0].item: unknown item template 'p:cake'" in problems
    assert "stock[0]: max 2 is below count 3" in problems
    assert "buys[0].item: unknown item template 'p:stone'" in problems
    assert any(p.startswith("buys[1]: name either an item or a kind") for p in problems)
    assert list(check_shop(ShopData(), scope)) == ["a shop needs stock or something it buys"]
    good = ShopData.model_validate({"stock": [{"item": "bread"}], "buys": ["weapon"]})
    assert list(check_shop(good, scope)) == []


async def test_what_a_keeper_is_given_stays_its_own(engine: GameEngine) -> None:
    """A quest delivery (flour given to Hollin) is neither sold on nor worked."""
    hero = rich(engine, room="hamlet:mill")
    keep_at(engine, "hollin", "hamlet:mill")
    line = shop(engine, "hollin").stock[0]
    line.count = 0
    flour = items_of(engine).spawn("hamlet:flour", holder=hero)
    # Hollin takes it as a quest's delivery would have him take it.
    engine.services.get(Gifts).add_taker(lambda giver, receiver, template: 1)
    assert "You give a sack of flour to Hollin" in await cmd(engine, hero, "give flour to hollin")
    await engine.tick()
    assert engine.world.entity_exists(flour)
    assert items_of(engine).holder_of(flour) == hv("hollin")
    assert line.count == 0
    assert await cmd(engine, hero, "buy flour") == "Hollin has sold out of those; come back later."


async def test_a_keeper_who_buys_anything_says_so_once(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    shop(engine, "marta").buys[0].kind = "any"
    assert "Marta buys anything of value.\n" in await cmd(engine, hero, "list")


async def test_goods_on_a_keepers_list_are_looked_at_before_buying(engine: GameEngine) -> None:
    hero = rich(engine)
    keep_at(engine, "marta", "hamlet:inn")
    # The jug on the inn's table is a thing here: looked at first, as it is.
    assert "Marta sells it" not in await cmd(engine, hero, "look cider")
    items = items_of(engine)
    for jug in engine.services.get(WorldService).items_in("hamlet:inn"):
        if items.template_of(jug) == "hamlet:cider":
            items.destroy(jug)
    out = await cmd(engine, hero, "look cider")
    assert out.startswith("|cA jug of cider|n\nCloudy and sharp")
    assert "Drinking or eating it restores 5 health." in out
    assert re.search(r"Marta sells it for \d+ gold \(3 in stock\)\.", out), out
    assert "in its place" not in out.lower()  # nothing is worn or wielded as cider
    assert "Marta sells it for" in await cmd(engine, hero, "examine cider")
    # With the keeper away, the shelf is not there to look at.
    keep_at(engine, "marta", "hamlet:green")
    assert "You do not see 'cider' here." in await cmd(engine, hero, "look cider")
