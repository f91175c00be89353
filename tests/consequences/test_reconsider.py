"""A turned-down offer is not gone for good: the giver asks again after a while
(``QuestManager.reoffer_after``), and asking the giver about it brings it back at
once, while the quest is still open."""

from __future__ import annotations

from kits.engines import qm
from kits.heroes import new_hero, walk
from kits.quests import deliver, simple_quest

from classic_rpg.questgen.wiring import RpgQuestOffers
from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.questgen.vocabulary import QuestState


async def test_a_turned_down_offer_comes_back_after_a_while_or_when_asked(
    engine: GameEngine,
) -> None:
    manager = qm(engine)
    offers = RpgQuestOffers(manager)
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    manager.offer_quest(hero, quest_id)
    out = await cmd(engine, hero, f"decline {quest_id}")
    assert "You decline" in out, out
    # Just turned down: delivery does not offer it again, nor does the giver.
    assert manager.turned_down(hero, quest_id)
    assert offers.has_quest(hero, quest_id)
    await walk(engine, hero, "hamlet:mill")
    out = await cmd(engine, hero, "ask hollin about the weather")
    assert "offered again" not in out, out
    # Asking the giver about work (or the quest's own words) is changing one's mind.
    out = await cmd(engine, hero, "ask hollin about work")
    assert "Quest offered again: 'The Miller's Errand'" in out, out
    assert "does not know anything" not in out, out  # the offer was the answer
    entry = manager.entry(hero, quest_id)
    assert entry is not None
    assert entry.state is QuestState.AVAILABLE
    assert not manager.turned_down(hero, quest_id)
    out = await cmd(engine, hero, f"accept {quest_id}")
    assert "You accept" in out, out


async def test_after_the_cooldown_delivery_may_offer_it_again(engine: GameEngine) -> None:
    manager = qm(engine)
    offers = RpgQuestOffers(manager)
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    manager.offer_quest(hero, quest_id)
    manager.decline_quest(hero, quest_id)
    assert offers.has_quest(hero, quest_id)
    clock = engine.clock
    assert isinstance(clock, ManualClock)
    clock.skip(manager.reoffer_after - 60)
    assert offers.has_quest(hero, quest_id)
    clock.skip(60)
    assert not offers.has_quest(hero, quest_id)  # delivery may offer it again


async def test_a_closed_quest_does_not_come_back(engine: GameEngine) -> None:
    manager = qm(engine)
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    manager.offer_quest(hero, quest_id)
    manager.decline_quest(hero, quest_id)
    manager.expire_quest(quest_id)
    await engine.dispatch_events()
    await walk(engine, hero, "hamlet:mill")
    out = await cmd(engine, hero, "ask hollin about work")
    assert "offered again" not in out, out
    entry = manager.entry(hero, quest_id)
    assert entry is None or entry.state is not QuestState.AVAILABLE
