"""Voss pays for bandit insignias and Hilde for crawler mandibles: the proof their
descriptions say someone would want to see. Old Jory takes the lamp oil his lamp
room needs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ironvale.ironkit import ironvale_engine, iv
from kits.engines import items_of, plain, qm
from kits.heroes import Recorder, new_character, place

from classic_rpg.components import CharacterStats
from classic_rpg.shops.needs import FULL
from classic_rpg.systems.quests.models import Quest, QuestObjective
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.living import (
    Goal,
    GoalStatus,
    GoalStatusChangedEvent,
    GoalType,
    LivingWorld,
    NeedsComponent,
    api,
)
from maid_stdlib.world import WorldService

INSIGNIA = "ironvale:bandit_insignia"
VOSS = iv("voss")


@pytest.fixture
async def village(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale at the start of its first day."""
    async with ironvale_engine(tmp_path).lifespan() as engine:
        yield engine


async def test_voss_pays_for_insignias_and_keeps_none(village: GameEngine) -> None:
    hero = new_character(village, "Aldric")
    place(village, hero, "ironvale:guard_post")
    items = items_of(village)
    given = [items.spawn(INSIGNIA, holder=hero) for _ in range(3)]
    stats = village.world.get_component(hero, CharacterStats)
    gold = stats.gold
    look = plain(await cmd(village, hero, "look voss"))
    assert "Captain Voss pays a bounty of 2 gold for each bandit insignia brought to him." in look
    out = plain(await cmd(village, hero, "give 2 insignias to voss"))
    assert "You give a bandit insignia (x2) to Captain Voss." in out
    assert "Captain Voss makes a mark on his map and drops the insignia in a box." in out
    assert "Captain Voss pays you 4 gold for 2 bandit insignias." in out
    assert stats.gold == gold + 4
    assert [village.world.entity_exists(i) for i in given].count(False) == 2
    # Asked about it, he says so too.
    assert "Two gold apiece" in plain(await cmd(village, hero, "ask voss about the bounty"))
    # What he does not pay for he still has no use for.
    items.spawn("ironvale:iron_ore", holder=hero)
    out = plain(await cmd(village, hero, "give ore to voss"))
    assert "Captain Voss has no use for" in out


async def test_a_quest_that_asks_for_one_takes_it_and_the_rest_are_paid_for(
    village: GameEngine,
) -> None:
    manager = qm(village)
    deliver = QuestObjective.model_validate(
        {
            "objective_id": "bring",
            "objective_type": "deliver",
            "description": "Give a bandit insignia to Captain Voss.",
            "item_template": INSIGNIA,
            "target_id": VOSS,
        }
    )
    manager.register_quest(Quest(quest_id="proof", title="Proof", objectives=[deliver]))
    hero = new_character(village, "Aldric")
    place(village, hero, "ironvale:guard_post")
    manager.offer_quest(hero, "proof")
    await manager.accept_quest(hero, "proof")
    items = items_of(village)
    for _ in range(3):
        items.spawn(INSIGNIA, holder=hero)
    gold = village.world.get_component(hero, CharacterStats).gold
    out = plain(await cmd(village, hero, "give 3 insignias to voss"))
    await village.dispatch_events()
    entry = manager.entry(hero, "proof")
    assert entry is not None
    assert entry.objectives["bring"].completed
    assert "Captain Voss pays you 4 gold for 2 bandit insignias." in out
    assert village.world.get_component(hero, CharacterStats).gold == gold + 4


async def test_hilde_pays_for_mandibles(village: GameEngine) -> None:
    hero = new_character(village, "Aldric")
    place(village, hero, "ironvale:foreman_hut")
    items_of(village).spawn("ironvale:crawler_mandible", holder=hero)
    out = plain(await cmd(village, hero, "give mandible to hilde"))
    assert "Hilde Stonehand holds the proof up to the lamp and grunts." in out
    assert "Hilde Stonehand pays you 3 gold for a crawler mandible." in out


async def test_jory_takes_the_lamp_oil_his_lamp_room_needs(village: GameEngine) -> None:
    living = village.services.get(LivingWorld)
    jory = iv("jory")
    needs = village.world.get_component(jory, NeedsComponent)
    hero = new_character(village, "Aldric")
    place(village, jory, "ironvale:lamp_room")
    place(village, hero, "ironvale:lamp_room")
    items = items_of(village)
    flasks = [items.spawn("ironvale:lamp_oil", holder=hero) for _ in range(3)]
    # Running low before his goal has even formed, he takes one and is the better
    # for it (as much as the goal's completion would give).
    low = needs.value("supplies")
    assert low is not None
    assert low < FULL
    out = plain(await cmd(village, hero, "give 2 oil to jory"))
    assert "You give a flask of lamp oil to Old Jory." in out
    assert "Old Jory takes it gratefully." in out
    assert "Old Jory needs no more than that; you keep a flask of lamp oil." in out
    assert needs.value("supplies") == pytest.approx(min(1.0, low + 0.5))
    assert items.holder_of(flasks[0]) == jory
    remembered = living.memory.get_recent(jory, tags=["need_met"])
    assert [m.content for m in remembered] == [
        "Aldric brought me a flask of lamp oil when I needed it."
    ]
    # Full, he takes no more for now.
    out = plain(await cmd(village, hero, "give oil to jory"))
    assert out == "Old Jory has enough lamp oil for now."
    # Run dry with his goal formed: the gift does it.
    needs.needs["supplies"].value = 0.2
    goal = api.add_goal(
        village.world,
        jory,
        Goal(id="lamp_oil", type=GoalType.ACQUIRE, target="lamp oil"),
    )
    seen = Recorder(village, GoalStatusChangedEvent)
    out = plain(await cmd(village, hero, "give oil to jory"))
    assert "Old Jory takes it gratefully. (Fill the lamp room's oil casks: done.)" in out
    assert goal.status == GoalStatus.DONE
    assert [(e.goal_id, e.new_status) for e in seen.of(GoalStatusChangedEvent)] == [
        ("lamp_oil", GoalStatus.DONE)
    ]
    # Selena's cask, chalked for the mine, is hers to send, not the carrier's to give.
    needs.needs["supplies"].value = 0.2
    ws = village.services.get(WorldService)
    cask = next(
        i for i in ws.items_in("ironvale:selena_stall") if items.template_of(i).endswith("cask")
    )
    items.add_to_inventory(cask, hero)
    out = plain(await cmd(village, hero, "give cask to jory"))
    assert out == "A small cask of lamp oil is Selena's, not yours to give."
