"""Personalization: play style from what a character really does, the
match score, active-quest damping, reputation wording, and the opt-out."""

from __future__ import annotations

from uuid import UUID

import pytest
from kits.engines import npc, qm, questgen_of
from questgen_system.qskit import move, online, personalizer_of, seed_for, ticks, tracker_of, until

from classic_rpg.combat.components import Fighting
from classic_rpg.components import Attributes, CharacterStats, Health
from classic_rpg.questgen.challenge import recommended_level
from maid_engine.clock import GAME_DAY, ManualClock
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.living import api
from maid_stdlib.questgen.personalization import PlayStyle, QuestPreference
from maid_stdlib.questgen.preferences import QuestGenMode, set_questgen_mode
from maid_stdlib.questgen.quest import GeneratedQuest


def make_strong(engine: GameEngine, uid: UUID) -> None:
    world = engine.world
    world.get_component(uid, CharacterStats).level = 10
    world.add_component(uid, Health(900, 900))
    world.add_component(uid, Attributes(strength=18, dexterity=18, constitution=16))


async def a_quest(engine: GameEngine, giver: str = "hollin") -> GeneratedQuest:
    system = questgen_of(engine)
    system.enqueue(seed_for(engine, giver))
    await until(engine, lambda: bool(system.open_quests()))
    return next(iter(system.open_quests().values())).quest


async def test_a_fight_makes_a_combat_player(quiet: GameEngine) -> None:
    tracker = tracker_of(quiet)
    hero, _ = await online(quiet, "Aldric")
    make_strong(quiet, hero)
    assert tracker.style_of(hero) is PlayStyle.BALANCED
    # The two wolves of the copse (they leave a level-10 hero alone: he attacks each),
    # then their leader in the den (a teleport is not exploring).
    for room, target in (("road_copse", "wolf"), ("road_copse", "wolf"), ("wolf_den", "grey")):
        await move(quiet, hero, room, reason="goto")
        await cmd(quiet, hero, f"kill {target}")
        for _ in range(600):
            await quiet.tick()
            if not quiet.world.has_component(hero, Fighting):
                break
    scores = tracker.scores(hero)
    # Three wolves killed (their deaths counted, a little decayed by the fight's time).
    assert scores[PlayStyle.COMBAT] >= 2.9
    assert PlayStyle.EXPLORER not in scores
    assert tracker.style_of(hero) is PlayStyle.COMBAT


async def test_talking_walking_and_gathering_make_their_styles(quiet: GameEngine) -> None:
    tracker = tracker_of(quiet)
    talker, _ = await online(quiet, "Talker")
    await move(quiet, talker, "mill", reason="goto")
    for _ in range(4):
        await cmd(quiet, talker, "talk hollin")
    walker, _ = await online(quiet, "Walker")
    for room in ("hamlet_gate", "road_bridge", "road_copse", "road_ford"):
        await move(quiet, walker, room)
    gatherer, _ = await online(quiet, "Gatherer")
    for room, item in (("mill", "flour"), ("warden_hut", "horn"), ("inn", "cider")):
        await move(quiet, gatherer, room, reason="goto")
        assert "You pick up" in await cmd(quiet, gatherer, f"get {item}")
    assert [tracker.style_of(c) for c in (talker, walker, gatherer)] == [
        PlayStyle.SOCIAL,
        PlayStyle.EXPLORER,
        PlayStyle.CRAFTER,
    ]
    # Going back where one has been is hardly exploring.
    before = tracker.scores(walker)[PlayStyle.EXPLORER]
    await move(quiet, walker, "road_bridge")
    assert tracker.scores(walker)[PlayStyle.EXPLORER] == pytest.approx(before + 0.1)
    # Styles follow recent play: activity halves every half-life.
    assert isinstance(quiet.clock, ManualClock)
    quiet.clock.skip(3 * GAME_DAY)
    assert tracker.style_of(talker) is PlayStyle.BALANCED, tracker.scores(talker)


async def test_the_match_score_follows_the_seed(
    quiet: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = questgen_of(quiet)
    quest = await a_quest(quiet)
    assert recommended_level(quest.difficulty) == 4
    hero, _ = await online(quiet, "Aldric", level=4)
    personalizer, hollin = personalizer_of(quiet), quest.quest_giver_id

    def score(active: list[str] | None = None) -> float:
        profile = personalizer.build_profile(hero, active or [], [hollin])
        return personalizer.score_match(quest, profile)

    # Level 0 apart +0.3, the green is 2 rooms from the mill +0.1, novel +0.1.
    assert score() == 0.5
    monkeypatch.setattr(personalizer, "NEAR_ROOMS", 3)  # the boundary: "closer than"
    assert score() == 0.5
    monkeypatch.setattr(personalizer, "NEAR_ROOMS", 2)
    assert score() == 0.4  # 2 rooms is not closer than 2
    monkeypatch.undo()  # the class default again
    quiet.world.get_component(hero, CharacterStats).level = 8
    assert score() == 0.3  # 4 levels apart: +0.1 only
    quiet.world.get_component(hero, CharacterStats).level = 10
    assert score() == 0.0
    assert not personalizer.is_eligible(quest, personalizer.build_profile(hero, [], [hollin]))
    quiet.world.get_component(hero, CharacterStats).level = 4
    system.record_play(hero, PlayStyle.COMBAT, 5.0)
    assert score() == 0.7  # the archetype requires combat
    api.adjust_relationship(quiet.world, hollin, hero, trust=0.6)
    assert score() == 0.85  # a trusted giver
    await move(quiet, hero, "road_copse", reason="goto")
    assert score() == 0.85  # the copse is itself one of the quest's places
    await move(quiet, hero, "inn_loft", reason="goto")
    # Hamlet is small: no room is NEAR_ROOMS (5) from both the mill and the copse.
    monkeypatch.setattr(personalizer, "NEAR_ROOMS", 3)
    assert score() == 0.75  # too far from any of them
    system.record_quest_outcome(hero, "older", quest.archetype_id, hollin, "completed")
    assert score() == 0.65  # not novel any more
    assert score(["a", "b", "c"]) == 0.325  # three active quests halve it


async def test_the_offer_is_worded_for_the_character(quiet: GameEngine) -> None:
    system = questgen_of(quiet)
    quest = await a_quest(quiet)
    hollin = quest.quest_giver_id
    friend, friend_session = await online(quiet, "Friend", level=4)
    foe, foe_session = await online(quiet, "Foe", level=4)
    newbie, newbie_session = await online(quiet, "Newbie", level=1)
    api.adjust_relationship(quiet.world, hollin, friend, trust=0.8)
    api.adjust_relationship(quiet.world, hollin, foe, trust=-0.5)
    system.record_quest_outcome(friend, "earlier", "supply_chain", hollin, "completed")
    system.record_play(newbie, PlayStyle.COMBAT, 5.0)
    for who in (friend, foe, newbie):
        await move(quiet, who, "mill", reason="goto")
    assert "Hollin greets you like an old friend" in friend_session.text()
    # Hollin's own pronouns (the data says "he").
    assert "Hollin has not forgotten the last job you did for him." in friend_session.text()
    assert "Hollin eyes you warily" in foe_session.text()
    assert "work for someone more seasoned than you (level 3)" in newbie_session.text()
    manager = qm(quiet)
    assert all(manager.quest_state(c, quest.id) is not None for c in (friend, foe, newbie))


async def test_a_character_can_ask_for_fewer_offers_or_none(quiet: GameEngine) -> None:
    # The questgen preference is the admin layer's; delivery reads
    # its offer policy.
    system = questgen_of(quiet)
    quest = await a_quest(quiet)
    hero, _ = await online(quiet, "Aldric", level=4)
    set_questgen_mode(quiet, hero, QuestGenMode.OFF)
    assert tracker_of(quiet).preference(hero) is QuestPreference.OFF
    await move(quiet, hero, "mill", reason="goto")
    assert qm(quiet).quest_state(hero, quest.id) is None
    set_questgen_mode(quiet, hero, QuestGenMode.LESS)
    assert system.offer_cap(hero) == 1
    await move(quiet, hero, "mill_lane")
    await move(quiet, hero, "mill")
    # "less" halves the match score: a plain match (0.5 -> 0.25) is not enough ...
    assert qm(quiet).quest_state(hero, quest.id) is None
    system.record_play(hero, PlayStyle.COMBAT, 5.0)
    await move(quiet, hero, "mill_lane")
    await move(quiet, hero, "mill")
    # ... a quest that suits the character well (0.7 -> 0.35) still comes.
    entry = qm(quiet).entry(hero, quest.id)
    assert entry is not None
    assert entry.match_score == 0.35
    await ticks(quiet)


def test_npc_key_helper_is_stable(quiet: GameEngine) -> None:
    assert npc(quiet, "hollin") == npc(quiet, "hamlet:hollin")


async def test_talking_to_the_giver_follows_the_delivery_rules(quiet: GameEngine) -> None:
    # `talk <giver>` is the CONVERSATION delivery: it may bring a generated
    # quest up, but never to a character who opted out.
    quest = await a_quest(quiet)
    hero, _ = await online(quiet, "Aldric", level=4)
    set_questgen_mode(quiet, hero, QuestGenMode.OFF)
    await move(quiet, hero, "mill", reason="goto")
    out = await cmd(quiet, hero, "talk hollin")
    assert "Quest offered" not in out
    assert qm(quiet).quest_state(hero, quest.id) is None
    set_questgen_mode(quiet, hero, QuestGenMode.ON)
    out = await cmd(quiet, hero, "talk hollin")
    assert "Quest offered" in out
    assert qm(quiet).entry(hero, quest.id) is not None
    await ticks(quiet)
