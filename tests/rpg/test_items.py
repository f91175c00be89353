"""Item templates, ItemFactory and the item commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.engines import hamlet_engine, items_of, npcs, ws_of
from kits.heroes import Recorder, new_character, place

from classic_rpg.components import CharacterStats, Equipment, Health, Inventory
from classic_rpg.events import (
    GoldGivenEvent,
    ItemDroppedEvent,
    ItemGivenEvent,
    ItemPickedUpEvent,
)
from classic_rpg.items.components import HeldBy, ItemStats
from classic_rpg.items.gifts import Gifts
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd, session_for
from maid_stdlib.world import Describable, Item, Position


async def test_templates_become_item_stats(engine: GameEngine) -> None:
    items = items_of(engine)
    sword = items.spawn("rpgtest:sword", room="rpgtest:square")
    stats = engine.world.get_component(sword, ItemStats)
    assert (stats.tier, stats.value, stats.slot) == (1, 8, "weapon")
    assert (stats.damage_min, stats.damage_max, stats.armor) == (2, 6, 0)
    assert items_of(engine).template_of(sword) == "rpgtest:sword"
    assert engine.world.get_component(items.spawn("rpgtest:ore"), ItemStats).stackable
    with pytest.raises(LookupError):
        items.spawn("rpgtest:nothing")


async def test_get_and_drop_move_items_between_room_and_inventory(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, ItemPickedUpEvent, ItemDroppedEvent)
    ws, world = ws_of(engine), engine.world
    sword = ws.find_in_room("rpgtest:square", "sword")
    assert sword is not None

    assert await cmd(engine, hero, "get sword") == "You pick up a rusty sword."
    assert not world.has_component(sword, Position)
    assert sword not in ws.contents("rpgtest:square")
    assert world.get_component(sword, HeldBy).holder == hero
    assert world.get_component(hero, Inventory).items == [sword]
    [picked] = rec.of(ItemPickedUpEvent)
    assert (picked.holder_id, picked.item_id, picked.template, picked.room) == (
        hero,
        sword,
        "rpgtest:sword",
        "rpgtest:square",
    )

    place(engine, hero, "rpgtest:field")
    assert await cmd(engine, hero, "drop sword") == "You drop a rusty sword."
    assert ws.room_key_of(sword) == "rpgtest:field"
    assert not world.has_component(sword, HeldBy)
    assert world.get_component(hero, Inventory).items == []
    [dropped] = rec.of(ItemDroppedEvent)
    assert (dropped.holder_id, dropped.item_id, dropped.room) == (hero, sword, "rpgtest:field")


async def test_get_and_drop_errors(engine: GameEngine) -> None:
    hero = new_character(engine)
    assert await cmd(engine, hero, "get") == "Get what?"
    assert await cmd(engine, hero, "get banana") == "You do not see 'banana' here."
    assert await cmd(engine, hero, "get well") == "You cannot take an old well."
    assert await cmd(engine, hero, "get elder") == "You cannot pick up the village elder."
    assert await cmd(engine, hero, "drop") == "Drop what?"
    assert await cmd(engine, hero, "drop sword") == "You are not carrying 'sword'."
    await cmd(engine, hero, "get sword")
    await cmd(engine, hero, "wield sword")
    assert await cmd(engine, hero, "drop sword") == (
        "You are using a rusty sword; remove it first."
    )


async def test_get_all_skips_scenery_and_respects_capacity(engine: GameEngine) -> None:
    hero = new_character(engine)
    engine.world.get_component(hero, Inventory).capacity = 1
    out = await cmd(engine, hero, "get all")
    assert out == "You pick up a rusty sword.\nYou cannot carry any more."
    engine.world.get_component(hero, Inventory).capacity = 30
    assert await cmd(engine, hero, "get all") == "You pick up a leather jerkin."
    assert await cmd(engine, hero, "get all") == "There is nothing here you can pick up."


async def test_stackables_are_listed_with_counts(engine: GameEngine) -> None:
    hero = new_character(engine)
    items = items_of(engine)
    for _ in range(3):
        items.spawn("rpgtest:ore", room="rpgtest:square")
    assert await cmd(engine, hero, "get all.ore") == "You pick up a lump of iron ore (x3)."
    out = await cmd(engine, hero, "inventory")
    assert out == (
        "You are carrying:\n  a lump of iron ore (x3)\nYou have |y10|n gold. (3/30 items)"
    )
    assert items.count(hero, "rpgtest:ore") == 3
    assert await cmd(engine, hero, "drop 2.ore") == "You drop a lump of iron ore."
    assert items.count(hero, "rpgtest:ore") == 2
    # "all ore", as people type it, is "all.ore".
    assert await cmd(engine, hero, "drop all ore") == "You drop a lump of iron ore (x2)."
    assert await cmd(engine, hero, "get all iron ore") == "You pick up a lump of iron ore (x3)."


async def test_inventory_when_empty(engine: GameEngine) -> None:
    hero = new_character(engine)
    assert await cmd(engine, hero, "i") == (
        "You are not carrying anything.\nYou have |y10|n gold. (0/30 items)"
    )
    empty = (await cmd(engine, hero, "eq")).splitlines()
    assert empty[0] == "You are not wearing anything."
    assert empty[1:3] == ["  <weapon> (nothing)", "  <shield> (nothing)"]
    assert len(empty) == 12  # every slot, empty


async def test_wear_wield_and_remove(engine: GameEngine) -> None:
    hero = new_character(engine)
    world, items = engine.world, items_of(engine)
    await cmd(engine, hero, "get all")
    sword = items.carried(hero)[0]
    assert await cmd(engine, hero, "wield jerkin") == (
        "You cannot wield a leather jerkin; try wearing it."
    )
    assert await cmd(engine, hero, "wield sword") == "You wield a rusty sword."
    assert await cmd(engine, hero, "wear jerkin") == "You wear a leather jerkin on your body."
    assert world.get_component(hero, Equipment).slots["weapon"] == sword
    assert items.carried(hero) == []
    worn = (await cmd(engine, hero, "equipment")).splitlines()
    assert worn[0] == "You are using:"
    assert "  <weapon> a rusty sword" in worn
    assert "  <body>   a leather jerkin" in worn
    assert "  <head>   (nothing)" in worn
    # a second weapon replaces the first, which goes back to the inventory
    other = items.spawn("rpgtest:sword", holder=hero)
    assert await cmd(engine, hero, "wield sword") == (
        "You stop using a rusty sword.\nYou wield a rusty sword."
    )
    assert world.get_component(hero, Equipment).slots["weapon"] == other
    assert items.carried(hero) == [sword]

    assert await cmd(engine, hero, "remove jerkin") == "You stop using a leather jerkin."
    assert "body" not in world.get_component(hero, Equipment).slots
    assert await cmd(engine, hero, "remove jerkin") == ("You are not wearing or wielding 'jerkin'.")
    assert await cmd(engine, hero, "remove") == "Remove what?"


async def test_wear_errors(engine: GameEngine) -> None:
    hero = new_character(engine)
    items_of(engine).spawn("rpgtest:ore", holder=hero)
    assert await cmd(engine, hero, "wear") == "Wear what?"
    assert await cmd(engine, hero, "wear hat") == "You are not carrying 'hat'."
    assert await cmd(engine, hero, "wear ore") == "You cannot wear a lump of iron ore."


async def test_give_to_npc_and_player(engine: GameEngine) -> None:
    alice = new_character(engine, "Alice")
    bob = new_character(engine, "Bob")
    rec = Recorder(engine, ItemGivenEvent, GoldGivenEvent)
    items = items_of(engine)
    [elder] = npcs(engine, "rpgtest:elder")
    insignia = items.spawn("rpgtest:insignia", holder=alice)

    # An NPC takes only what it has a use for: nothing wants the elder to have it.
    assert await cmd(engine, alice, "give insignia to elder") == (
        "The village elder has no use for a bandit insignia."
    )
    assert items.holder_of(insignia) == alice
    assert rec.of(ItemGivenEvent) == []
    # A pack's taker gives it one (it may also say why it turns a thing down).
    gifts = engine.services.get(Gifts)
    gifts.add_taker(lambda giver, receiver, template: int(template == "rpgtest:insignia"))
    gifts.add_taker(lambda giver, receiver, template: "The elder waves it away.")
    sword = items.spawn("rpgtest:sword", holder=alice)
    assert await cmd(engine, alice, "give sword to elder") == "The elder waves it away."
    assert items.holder_of(sword) == alice
    assert await cmd(engine, alice, "give insignia to elder") == (
        "You give a bandit insignia to the village elder."
    )
    assert items.holder_of(insignia) == elder
    assert items.carried(elder) == [insignia]
    [given] = rec.of(ItemGivenEvent)
    assert (given.giver_id, given.receiver_id, given.item_id, given.template) == (
        alice,
        elder,
        insignia,
        "rpgtest:insignia",
    )

    assert await cmd(engine, alice, "give sword bob") == "You give a rusty sword to Bob."
    assert items.carried(bob) == [sword]
    assert "Alice gives you a rusty sword." in session_for(engine, bob).text()

    assert await cmd(engine, alice, "give 4 gold to bob") == "You give 4 gold to Bob."
    world = engine.world
    assert world.get_component(alice, CharacterStats).gold == 6
    assert world.get_component(bob, CharacterStats).gold == 14
    [gold] = rec.of(GoldGivenEvent)
    assert (gold.giver_id, gold.receiver_id, gold.amount) == (alice, bob, 4)
    assert await cmd(engine, alice, "give 1 gold to elder") == (
        "You give 1 gold to the village elder.\nThe village elder takes it with a nod of thanks."
    )


async def test_give_errors(engine: GameEngine) -> None:
    alice = new_character(engine, "Alice")
    items_of(engine).spawn("rpgtest:sword", holder=alice)
    assert await cmd(engine, alice, "give") == "Give what to whom?"
    assert await cmd(engine, alice, "give sword") == "Give what to whom?"
    assert await cmd(engine, alice, "give sword to nobody") == "You do not see 'nobody' here."
    assert await cmd(engine, alice, "give sword to me") == "You cannot give things to yourself."
    assert await cmd(engine, alice, "give axe to elder") == "You are not carrying 'axe'."
    assert await cmd(engine, alice, "give 500 gold to elder") == ("You do not have that much gold.")


async def test_examine_items_and_npcs(engine: GameEngine) -> None:
    hero = new_character(engine)
    out = await cmd(engine, hero, "examine sword")
    assert out.splitlines() == [
        "|cA rusty sword|n",
        "Pitted, but sharp enough.",
        "|cTier:|n 1 (common)   |cValue:|n 8 gold   |cSlot:|n weapon   |cDamage:|n 2-6",
    ]
    items_of(engine).spawn("rpgtest:draught", holder=hero)
    out = await cmd(engine, hero, "exa draught")
    assert "|cTier:|n 2 (fine)" in out
    assert "restores 20 health" in out
    place(engine, hero, "rpgtest:field")
    [rat] = npcs(engine, "rpgtest:rat")
    engine.world.get_component(rat, Health).current = 3
    assert "A giant rat is wounded." in await cmd(engine, hero, "exa rat")
    assert await cmd(engine, hero, "examine") == "Examine what?"
    assert await cmd(engine, hero, "examine unicorn") == "You do not see 'unicorn' here."


async def test_drink_heals_and_uses_up(engine: GameEngine) -> None:
    hero = new_character(engine)
    items = items_of(engine)
    draught = items.spawn("rpgtest:draught", holder=hero)
    engine.world.get_component(hero, Health).current = 5
    assert await cmd(engine, hero, "quaff draught") == (
        "You drink a healing draught. You feel better (+20 health)."
    )
    assert engine.world.get_component(hero, Health).current == 25
    await engine.dispatch_events()
    assert not engine.world.entity_exists(draught)
    assert items.carried(hero) == []
    items.spawn("rpgtest:ore", holder=hero)
    assert await cmd(engine, hero, "eat ore") == "You cannot eat a lump of iron ore."


async def test_drinking_at_full_health_keeps_the_draught(engine: GameEngine) -> None:
    hero = new_character(engine)
    draught = items_of(engine).spawn("rpgtest:draught", holder=hero)
    assert await cmd(engine, hero, "drink draught") == (
        "You are already at full health; you keep a healing draught for later."
    )
    await engine.dispatch_events()
    assert items_of(engine).carried(hero) == [draught]


async def test_factory_spawn_into_inventory_and_take(engine: GameEngine) -> None:
    hero = new_character(engine)
    rec = Recorder(engine, ItemPickedUpEvent)
    items = items_of(engine)
    for _ in range(3):
        items.spawn("rpgtest:insignia", holder=hero)
    await engine.dispatch_events()
    assert rec.of(ItemPickedUpEvent) == []  # a grant is not a pickup
    assert items.count(hero, "rpgtest:insignia") == 3
    assert items.take(hero, "rpgtest:insignia", 2) == 2
    await engine.dispatch_events()
    assert items.count(hero, "rpgtest:insignia") == 1
    assert len(engine.world.get_component(hero, Inventory).items) == 1


async def test_a_dropped_item_lies_where_it_is_dropped(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, "rpgtest:temple")
    flask = items_of(engine).spawn("rpgtest:draught", room="rpgtest:temple")
    engine.world.get_component(flask, Describable).short = "A flask stands on the altar."
    assert "A flask stands on the altar." in await cmd(engine, hero, "look")
    await cmd(engine, hero, "get draught")
    place(engine, hero, "rpgtest:road")
    await cmd(engine, hero, "drop draught")
    out = await cmd(engine, hero, "look")
    assert "stands on the altar" not in out
    assert "A healing draught lies here." in out


async def test_a_plural_takes_every_one_and_a_number_that_many(engine: GameEngine) -> None:
    hero = new_character(engine)
    place(engine, hero, "rpgtest:field")
    for _ in range(3):
        items_of(engine).spawn("rpgtest:draught", room="rpgtest:field")
    assert await cmd(engine, hero, "get 2 draughts") == "You pick up a healing draught (x2)."
    assert await cmd(engine, hero, "get 2 draughts") == "There are not that many here."
    assert await cmd(engine, hero, "get draughts") == "You pick up a healing draught."
    assert await cmd(engine, hero, "drop 4 draughts") == "You are not carrying that many."
    assert await cmd(engine, hero, "drop 2 unicorns") == "You are not carrying '2 unicorns'."
    assert await cmd(engine, hero, "drop draughts") == "You drop a healing draught (x3)."
    assert await cmd(engine, hero, "get draught") == "You pick up a healing draught."
    assert await cmd(engine, hero, "get 2.draught") == "You pick up a healing draught."
    bob = new_character(engine, "Bob")
    place(engine, bob, "rpgtest:field")
    out = await cmd(engine, hero, "give 2 draughts to bob")
    assert out == "You give a healing draught (x2) to Bob."
    assert items_of(engine).count(bob, "rpgtest:draught") == 2


async def test_look_finds_what_you_carry_and_answers_to_plurals(engine: GameEngine) -> None:
    hero = new_character(engine)
    out = await cmd(engine, hero, "look sword")  # not in the room: in hand
    assert out.startswith("|cA rusty sword|n\nPitted, but sharp enough.")
    place(engine, hero, "rpgtest:field")
    for _ in range(2):
        items_of(engine).spawn("rpgtest:draught", room="rpgtest:field")
    assert (await cmd(engine, hero, "look draughts")).startswith("|cA healing draught|n")
    assert await cmd(engine, hero, "look unicorns") == "You do not see 'unicorns' here."
    # 'look ore' with ore in hand and an ore crate here means the ore; 'look crate'
    # the crate.
    crate = engine.world.create_entity(
        Describable(name="an empty ore crate", keywords=["crate", "ore"]), Item("test:crate")
    )
    ws_of(engine).place(crate, "rpgtest:field", reason="test")
    items_of(engine).spawn("rpgtest:ore", holder=hero)
    assert (await cmd(engine, hero, "look ore")).startswith("|cA lump of iron ore|n")
    assert (await cmd(engine, hero, "look crate")).startswith("|cAn empty ore crate|n")


async def test_scenery_the_room_describes_cannot_be_taken(tmp_path: Path) -> None:
    # 'look trough' shows the green's trough (a detail of the room): 'get trough'
    # says it is part of the place instead of that there is no such thing.
    engine = hamlet_engine(tmp_path, rpg=True)
    async with engine.lifespan():
        hero = new_character(engine)
        ws_of(engine).move(hero, "hamlet:green")
        assert "drowned leaf" in await cmd(engine, hero, "look trough")
        assert await cmd(engine, hero, "get trough") == (
            "You cannot take that: it is part of the place."
        )
        assert await cmd(engine, hero, "get dragon") == "You do not see 'dragon' here."
