"""The RPG side of Ironvale: the bandits of the Old Trade Road, the villagers, items."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from kits.engines import items_of, npcs, ws_of
from kits.heroes import Recorder, make_strong, new_character, place, room_of

from classic_rpg.characters.components import Dialogue
from classic_rpg.combat.components import CombatProfile, CombatRules, Fighting
from classic_rpg.components import CharacterStats
from classic_rpg.items.components import ItemStats
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.living import Relationships
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.events import EntityDiedEvent

WAGON, CAMP = "ironvale:road_wagon", "ironvale:bandit_camp"


@pytest.fixture
async def ironvale(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale as ``maid run`` loads it by default (its requirements come along)."""
    settings = Settings(data_dir=tmp_path, random_seed=1)
    async with GameEngine(settings, clock=ManualClock(), use_store=False).lifespan() as engine:
        yield engine


async def test_default_packs_include_the_rules(ironvale: GameEngine) -> None:
    names = [p.name for p in ironvale.packs]
    # The groups come after their feature plugins (tests/engine/test_plugins.py).
    assert names.index("stdlib") < names.index("classic_rpg") < names.index("ironvale")
    assert "classic_rpg.rules" in names


async def test_bandits_are_on_the_old_trade_road(ironvale: GameEngine) -> None:
    world, ws = ironvale.world, ws_of(ironvale)
    scouts = npcs(ironvale, "ironvale:bandit_scout")
    [kral] = npcs(ironvale, "ironvale:kral")
    assert len(scouts) == 3
    for uid in [*scouts, kral]:
        room = ws.room_key_of(uid)
        assert room is not None
        assert ws.area_of(room) == "ironvale:old_trade_road"
        assert world.get_component(uid, CombatRules).hostile
        assert world.get_component(uid, CombatRules).respawn is not None
    assert {ws.room_key_of(s) for s in scouts} == {WAGON}
    assert ws.room_key_of(kral) == CAMP
    assert {world.get_component(s, CharacterStats).level for s in scouts} <= {2, 3}
    assert world.get_component(kral, CharacterStats).level == 5
    assert world.get_component(kral, CombatProfile).xp_value > 0


async def test_the_rules_hostile_flag_reaches_the_living_threat_map(
    ironvale: GameEngine,
) -> None:
    # CombatRules.hostile is the rules layer's word for a threat: the living layer's
    # threat map (what NPCs fear, what quest seeds are about) hears it too, not only
    # the quest generator's facts.
    living = ironvale.services.get(LivingWorld)
    world, ws = ironvale.world, ws_of(ironvale)
    [smith] = npcs(ironvale, "ironvale:gundrik")
    assert not living.is_threat(smith)
    assert smith not in living.threat_map().ids  # the map is kept from here on
    # Gundrik, in no hostile faction and with no Hostile marker, turns on the town.
    rules = world.get_component(smith, CombatRules)
    world.add_component(smith, replace(rules, hostile=True))
    assert living.is_threat(smith)
    room = ws.room_key_of(smith)
    assert room is not None
    assert (smith, "hostiles") in living.threat_map().by_room[room]
    # And calms down: the kept map hears that too.
    world.add_component(smith, replace(rules, hostile=False))
    assert smith not in living.threat_map().ids


async def test_villagers_talk_and_do_not_fight(ironvale: GameEngine) -> None:
    world = ironvale.world
    for key in ("gundrik", "voss", "selena"):
        [uid] = npcs(ironvale, f"ironvale:{key}")
        assert not world.get_component(uid, CombatRules).hostile
        assert world.get_component(uid, Dialogue).greeting
    hero = new_character(ironvale)
    place(ironvale, hero, "ironvale:smithy")
    assert "iron shipment" in await cmd(ironvale, hero, "talk gundrik")
    assert await cmd(ironvale, hero, "kill gundrik") == "Gundrik is not someone you can fight."
    place(ironvale, hero, "ironvale:guard_post")
    assert "Kral" in await cmd(ironvale, hero, "ask voss about leader")


async def test_asked_about_a_grudge_an_npc_shows_where_it_stands(ironvale: GameEngine) -> None:
    # The valley sees Brin and Aldous trade sharp words over the weir; asking
    # either about it (or about the other) is not met with a blank.
    hero = new_character(ironvale)
    [brin] = npcs(ironvale, "ironvale:brin")
    [aldous] = npcs(ironvale, "ironvale:aldous")
    place(ironvale, hero, str(room_of(ironvale, brin)))
    assert await cmd(ironvale, hero, "ask brin about the weir") == (
        "Brin Harrow's face darkens at the mention of Aldous Miller: Aldous Miller"
        " raised the weir and stole the Harrows' water."
    )
    # What it said itself on the subject comes first.
    assert "because Aldous Miller wants his wheel" in await cmd(
        ironvale, hero, "ask brin about aldous"
    )
    # A tie that is no grudge is spoken of as such.
    [nell] = npcs(ironvale, "ironvale:nell")
    ties = ironvale.world.get_component(brin, Relationships).entries
    ties[str(nell)].cause = "Nell keeps the farm's accounts"
    assert await cmd(ironvale, hero, "ask brin about accounts") == (
        "Brin Harrow speaks of Nell Harrow: Nell keeps the farm's accounts."
    )
    place(ironvale, hero, str(room_of(ironvale, aldous)))
    assert await cmd(ironvale, hero, "ask aldous about brin") == (
        "Aldous Miller's face darkens at the mention of Brin Harrow: Brin Harrow calls him"
        " a water thief before the whole valley."
    )
    # Nothing of the kind: still a plain "does not know".
    assert await cmd(ironvale, hero, "ask aldous about dragons") == (
        "Aldous Miller does not know anything about 'dragons'."
    )


async def test_asked_about_someone_an_npc_knows_it_says_how_it_stands(
    ironvale: GameEngine,
) -> None:
    # Sefa is "Jory's granddaughter" in her room line; Gundrik and Bram are friends.
    hero = new_character(ironvale)
    for key, question, answer in (
        ("sefa", "ask sefa about jory", "Sefa speaks fondly of Old Jory, family."),
        ("gundrik", "ask gundrik about bram", "Gundrik speaks warmly of Bram Holloway, a friend."),
        ("gundrik", "ask gundrik about selena", "Gundrik knows Selena, and says no more."),
        ("cade", "ask cade about ivy", "Cade Miller colours at the mention of Ivy Harrow."),
        # People know their own work and what comes to them.
        ("mara", "ask mara about the mine", 'Mara the paymistress says, "The mine pays by'),
        ("maud", "ask maud about the weir", 'Elder Maud says, "Aldous raised the weir'),
        ("maud", "ask maud about bandits", 'Elder Maud says, "The young ones talk'),
        ("hilde", "ask hilde about the crawlers", 'Hilde Stonehand says, "Pale things'),
        ("hilde", "ask hilde about tobin", 'Hilde Stonehand says, "Tobin was in the seam'),
    ):
        [uid] = npcs(ironvale, f"ironvale:{key}")
        place(ironvale, hero, str(room_of(ironvale, uid)))
        assert (await cmd(ironvale, hero, question)).startswith(answer), question


async def test_item_templates(ironvale: GameEngine) -> None:
    items = items_of(ironvale)
    hero = new_character(ironvale)
    for key in ("iron_ore", "rusty_sword", "leather_armour", "healing_draught", "bandit_insignia"):
        uid = items.spawn(f"ironvale:{key}", holder=hero)
        assert ironvale.world.has_component(uid, ItemStats)
    assert (
        ironvale.world.get_component(items.spawn("ironvale:rusty_sword"), ItemStats).slot
        == "weapon"
    )


async def test_a_strong_character_clears_the_road(ironvale: GameEngine) -> None:
    world, ws = ironvale.world, ws_of(ironvale)
    hero = new_character(ironvale)
    make_strong(ironvale, hero, level=6, hp=400, dexterity=16)  # within their reach
    rec = Recorder(ironvale, EntityDiedEvent)

    place(ironvale, hero, WAGON)
    await ironvale.dispatch_events()  # all three scouts attack on sight
    assert {
        world.get_component(s, Fighting).target for s in npcs(ironvale, "ironvale:bandit_scout")
    } == {hero}
    for _ in range(300):  # the hero turns on the next scout when one falls
        if not npcs(ironvale, "ironvale:bandit_scout"):
            break
        await ironvale.run_ticks(1)
    assert npcs(ironvale, "ironvale:bandit_scout") == []
    insignias = [
        i
        for i in ws.items_in(WAGON)
        if items_of(ironvale).template_of(i) == "ironvale:bandit_insignia"
    ]
    assert len(insignias) == 3

    place(ironvale, hero, CAMP)
    await ironvale.dispatch_events()
    for _ in range(300):
        if not npcs(ironvale, "ironvale:kral"):
            break
        await ironvale.run_ticks(1)
    assert npcs(ironvale, "ironvale:kral") == []
    killed = [e.template for e in rec.of(EntityDiedEvent) if e.killer_id == hero]
    assert sorted(killed) == ["ironvale:bandit_scout"] * 3 + ["ironvale:kral"]
    assert not any(e.is_player for e in rec.of(EntityDiedEvent))
    assert "A notched axe lies here." in await cmd(ironvale, hero, "look")
    assert world.get_component(hero, CharacterStats).experience == 3 * 40 + 150


async def test_a_newcomer_at_the_wagon_faces_one_scout_at_a_time(ironvale: GameEngine) -> None:
    world = ironvale.world
    hero = new_character(ironvale)
    make_strong(ironvale, hero, level=1, hp=400)
    place(ironvale, hero, WAGON)
    await ironvale.dispatch_events()
    scouts = npcs(ironvale, "ironvale:bandit_scout")
    fighters = [s for s in scouts if world.has_component(s, Fighting)]
    assert len(scouts) == 3
    assert len(fighters) == 1  # the other two hold back: the hero is no stronger than them
    assert world.get_component(fighters[0], Fighting).target == hero


async def test_a_buyer_looks_at_a_keepers_goods_beside_what_they_use(
    ironvale: GameEngine,
) -> None:
    """`look`/`examine` a sword on Gundrik's list before buying: what it is, its
    damage, his price and stock, and the sword the buyer already wields."""
    items = items_of(ironvale)
    hero = new_character(ironvale)
    place(ironvale, hero, "ironvale:smithy")
    place(ironvale, npcs(ironvale, "ironvale:gundrik")[0], "ironvale:smithy")
    out = await cmd(ironvale, hero, "look shortsword")
    assert out.startswith("|cAn iron shortsword|n\nA plain shortsword of good bar iron")
    assert "|cDamage:|n 2-6" in out
    assert re.search(r"Gundrik sells it for \d+ gold \(1 in stock\)\.", out), out
    assert "You have nothing in its place (weapon)." in out
    items.equip(hero, items.spawn("ironvale:rusty_sword", holder=hero))
    out = await cmd(ironvale, hero, "examine iron sword")
    assert "In its place you use a rusty sword: damage 2-5." in out
    # What the hero carries is looked at first: "sword" is their own.
    assert "An iron shortsword" not in await cmd(ironvale, hero, "examine sword")
    # Away from the shop the goods are not there to look at.
    place(ironvale, hero, "ironvale:square")
    assert "You do not see 'shortsword' here." in await cmd(ironvale, hero, "look shortsword")


async def test_lark_sells_from_her_tray_wherever_she_is(ironvale: GameEngine) -> None:
    # The pedlar who calls "Buy something" has a tray to buy from, at the bridge
    # or on Market Row alike (no shop room binds her).
    [lark] = npcs(ironvale, "lark")
    hero = new_character(ironvale, "Aldric")
    ironvale.world.get_component(hero, CharacterStats).gold = 20
    for room in ("ironvale:toll_bridge", "ironvale:market_row"):
        place(ironvale, lark, room)
        place(ironvale, hero, room)
        listing = await cmd(ironvale, hero, "list")
        assert "Lark the pedlar sells:" in listing, listing
        assert "A length of ribbon" in listing
    assert "You buy a packet of needles from Lark the pedlar" in await cmd(
        ironvale, hero, "buy needles"
    )
    # Like every keeper she buys back what is on her list, for less.
    assert "You sell a packet of needles to Lark the pedlar for 1 gold." in await cmd(
        ironvale, hero, "sell needles"
    )
