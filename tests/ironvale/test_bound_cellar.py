"""The cellar's bound entries: hp is the character's, Gwen's trust is her relationship
toward the actor, the rescue is a world fact; undo and retry within the same rules."""

from __future__ import annotations

from uuid import UUID

import pytest
from narration.narrkit import block, fast, player, scripted, service, settle

from classic_rpg.characters.bound_vitals import VitalsHp
from classic_rpg.components import CharacterStats, Health, Mana
from classic_rpg.systems.quests import QuestManager
from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.testing import FakeSession, cmd
from maid_stdlib.living.api import get_relationship
from maid_stdlib.living.gossip import KnownGossip
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.story.facts import FactBook
from maid_stdlib.story.signals import StorySignal
from maid_stdlib.story.system import StorySignalSystem
from maid_stdlib.world import NPC
from maid_stdlib.worldstate import load_schema
from maid_stdlib.worldstate.binding import Binders

CELLAR = "ironvale:camp_cellar"


def gwen(engine: GameEngine) -> UUID:
    return service(engine).rooms[CELLAR].npcs["gwen"]


def health(engine: GameEngine, uid: UUID) -> Health:
    return engine.world.get_component(uid, Health)


async def turn(engine: GameEngine, hero: UUID, text: str) -> None:
    await cmd(engine, hero, text)
    await settle(service(engine).drain())
    await engine.dispatch_events()


async def test_hp_is_the_characters_own_capped_per_turn_and_by_their_maximum(
    narrated_ironvale: GameEngine,
) -> None:
    fast(
        narrated_ironvale,
        scripted(
            block('{"player.hp": -25}', "A bar swings loose and cracks your ribs."),
            block('{"player.hp": +50}', "You bind the wound; it eases."),
        ),
    )
    hero, session = player(narrated_ironvale, "Aldric", room=CELLAR)
    bryn, other = player(narrated_ironvale, "Bryn", room=CELLAR)
    top = health(narrated_ironvale, hero).maximum
    await turn(narrated_ironvale, hero, "wrench at the bars")
    assert health(narrated_ironvale, hero).current == top - 10
    assert "Your hp -10 (limited)" in session.text()
    assert "Aldric's hp -10 (limited)" in other.text()
    assert health(narrated_ironvale, bryn).current == health(narrated_ironvale, bryn).maximum
    sheet = await cmd(narrated_ironvale, hero, "state")
    assert f"hp             {top - 10}/{top}" in sheet
    await turn(narrated_ironvale, hero, "bind the wound")
    # Healed at most 10 a turn, and never above the character's own maximum.
    assert health(narrated_ironvale, hero).current == top
    assert "Your hp +10 (limited" in session.text()


async def test_mana_is_the_characters_own_from_zero_to_their_maximum(
    narrated_ironvale: GameEngine,
) -> None:
    # The cellar's sheet showed "mana 20/50" beside a prompt of 15/15.
    fast(
        narrated_ironvale,
        scripted(
            block('{"player.mana": -12}', "You mutter a word of warding; it takes its toll."),
            block('{"player.mana": -12}', "Again, weaker."),
        ),
    )
    hero, session = player(narrated_ironvale, "Aldric", room=CELLAR)
    mana = narrated_ironvale.world.get_component(hero, Mana)
    top = mana.maximum
    sheet = await cmd(narrated_ironvale, hero, "state")
    assert f"mana           {top}/{top}" in sheet
    await turn(narrated_ironvale, hero, "ward the cage")
    assert mana.current == top - 12
    await turn(narrated_ironvale, hero, "ward it again")
    assert mana.current == 0  # not below nothing
    assert "Your mana -12" in session.text()


async def test_a_story_wounds_but_never_kills(narrated_ironvale: GameEngine) -> None:
    fast(
        narrated_ironvale,
        scripted(block('{"player.hp": -10}', "The cage door slams on your hand.")),
    )
    hero, _ = player(narrated_ironvale, "Aldric", room=CELLAR)
    health(narrated_ironvale, hero).current = 4
    await turn(narrated_ironvale, hero, "reach through the bars")
    assert health(narrated_ironvale, hero).current == 1
    assert "stopped at its minimum of 1" in (await cmd(narrated_ironvale, hero, "state last"))


async def test_bands_of_a_bound_hp_are_percentages_of_the_maximum(
    narrated_ironvale: GameEngine,
) -> None:
    hero, _ = player(narrated_ironvale, "Aldric", room=CELLAR)
    hp = health(narrated_ironvale, hero)
    hp.current = max(1, hp.maximum // 4)  # 25%: "hurt"
    sheet = await cmd(narrated_ironvale, hero, "state")
    line = next(row for row in sheet.splitlines() if row.strip().startswith("hp "))
    assert f"{hp.current}/{hp.maximum}" in line
    assert line.rstrip().endswith("hurt")


async def test_a_builder_sets_hp_within_the_characters_bounds(
    narrated_ironvale: GameEngine,
) -> None:
    hero, _ = player(narrated_ironvale, "Aldric", room=CELLAR, role=Role.BUILDER)
    top = health(narrated_ironvale, hero).maximum
    out = await cmd(narrated_ironvale, hero, "@state set player.hp 999", role=Role.BUILDER)
    assert f"(clamped to its maximum of {top})" in out
    assert health(narrated_ironvale, hero).current == top


async def test_trust_is_the_relationship_and_undo_gives_both_back(
    narrated_ironvale: GameEngine,
) -> None:
    fast(
        narrated_ironvale,
        scripted(block('{"player.hp": -5, "npc.gwen.trust": +15}', "You share your water.")),
    )
    hero, session = player(narrated_ironvale, "Aldric", room=CELLAR)
    top = health(narrated_ironvale, hero).maximum
    await turn(narrated_ironvale, hero, "share my water with Gwen")
    rel = get_relationship(narrated_ironvale.world, gwen(narrated_ironvale), hero)
    assert rel is not None
    assert rel.trust == pytest.approx(0.35)
    assert "Gwen's trust in you +15" in session.text()
    living = await cmd(narrated_ironvale, hero, "@living gwen", role=Role.BUILDER)
    assert "feels about Aldric: trust +0.35" in living
    await turn(narrated_ironvale, hero, "undo")
    assert "last action is undone" in session.text()
    assert health(narrated_ironvale, hero).current == top
    rel = get_relationship(narrated_ironvale.world, gwen(narrated_ironvale), hero)
    assert rel is not None
    assert rel.trust == pytest.approx(0.20)


RESCUE = [
    block('{"npc.gwen.trust": +10, "flags.has_key": true}', "A key, behind the casks."),
    block('{"milestones.rescue_gwen": true}', "The padlock gives; Gwen steps out."),
]


async def rescue(engine: GameEngine, *, news: bool = True) -> tuple[UUID, FakeSession]:
    """Aldric finds the key and frees Gwen (two scripted turns); without ``news``
    the rescue tells the valley nothing."""
    if not news:
        service(engine).rooms[CELLAR].schema.milestones["rescue_gwen"].news = ""
    fast(engine, scripted(*RESCUE))
    hero, session = player(engine, "Aldric", room=CELLAR)
    await turn(engine, hero, "search the casks for a key")
    await turn(engine, hero, "open the cage")
    return hero, session


async def test_the_rescue_is_a_world_fact_that_completes_the_quest(
    narrated_ironvale: GameEngine,
) -> None:
    fast(narrated_ironvale, scripted(*RESCUE))
    hero, session = player(narrated_ironvale, "Aldric", room=CELLAR)
    manager = narrated_ironvale.services.get(QuestManager)
    narrated_ironvale.world.get_component(hero, CharacterStats).level = 2
    manager.offer_quest(hero, "caged-ranger")
    await manager.accept_quest(hero, "caged-ranger")
    await turn(narrated_ironvale, hero, "search the casks for a key")
    await turn(narrated_ironvale, hero, "open the cage")
    facts = narrated_ironvale.services.get(FactBook)
    record = facts.get("rescue_gwen")
    assert record is not None
    assert (record.by, record.by_name, record.room) == (str(hero), "Aldric", CELLAR)
    assert manager.quest_state(hero, "caged-ranger") is QuestState.COMPLETED
    assert "it counted for your quest 'The Caged Ranger'" in record.reactions
    # Gwen saw it; Voss and the gate guard were told.
    for template in ("ironvale:voss", "ironvale:gate_guard"):
        [npc] = [uid for uid, n in narrated_ironvale.world.each(NPC) if n.template == template]
        known = narrated_ironvale.world.get_component(npc, KnownGossip)
        assert any("Aldric freed Gwen" in item.content for item in known.items.values())
    known = narrated_ironvale.world.get_component(gwen(narrated_ironvale), KnownGossip)
    assert any(item.confidence == 1.0 for item in known.items.values())
    # Nothing the world did is rolled back: undo and retry both refuse, and say why.
    await turn(narrated_ironvale, hero, "undo")
    assert "That cannot be taken back now: " in session.text()
    assert "it counted for your quest 'The Caged Ranger'" in session.text()
    for name in ("Gwen", "Captain Voss", "a gate guard"):
        assert name in session.text().split("cannot be taken back now:", 1)[1]
    assert "already know of it" in session.text()
    assert facts.holds("rescue_gwen")
    await turn(narrated_ironvale, hero, "retry")
    assert session.text().count("cannot be taken back now") == 2
    state = await cmd(narrated_ironvale, hero, "state")
    assert "[x]|n Rescue Gwen from the bandits" in state


async def test_a_fact_nothing_reacted_to_can_be_undone(narrated_ironvale: GameEngine) -> None:
    # A rescue with no news to tell and no quest counting it: nothing outside the
    # room reacted, so undo takes the fact back.
    hero, session = await rescue(narrated_ironvale, news=False)
    facts = narrated_ironvale.services.get(FactBook)
    record = facts.get("rescue_gwen")
    assert record is not None
    assert record.reactions == []
    await turn(narrated_ironvale, hero, "undo")
    assert "last action is undone" in session.text()
    assert not facts.holds("rescue_gwen")
    assert "[ ] Rescue Gwen from the bandits" in await cmd(narrated_ironvale, hero, "state")


def npc_of(engine: GameEngine, template: str) -> UUID:
    [uid] = [uid for uid, n in engine.world.each(NPC) if n.template == template]
    return uid


def deed_signals(engine: GameEngine) -> list[StorySignal]:
    story = engine.get_system(StorySignalSystem)
    story.detect_now()
    return [s for s in story.recent if s.situation_key == "fact:rescue_gwen"]


async def test_the_rescue_raises_a_story_signal_that_grounds_a_quest(
    narrated_ironvale: GameEngine,
) -> None:
    fast(narrated_ironvale, scripted(*RESCUE))
    hero, _ = player(narrated_ironvale, "Aldric", room=CELLAR)
    assert deed_signals(narrated_ironvale) == []
    await turn(narrated_ironvale, hero, "search the casks for a key")
    await turn(narrated_ironvale, hero, "open the cage")
    [signal] = deed_signals(narrated_ironvale)
    voss = npc_of(narrated_ironvale, "ironvale:voss")
    assert signal.signal_type == "ALLIANCE_FORMING"
    assert signal.involved_npcs == [gwen(narrated_ironvale), voss]
    assert signal.involved_players == [hero]
    assert signal.context["allied_npcs"] == [str(gwen(narrated_ironvale)), str(voss)]
    assert signal.context["allied_npcs_names"] == ["Gwen", "Captain Voss"]
    assert signal.context["common_threat"] == "bandits"
    assert "Aldric freed Gwen" in signal.context["deed"]
    # Raised once: the next round sees the same situation, not a new one.
    assert len(deed_signals(narrated_ironvale)) == 1
    qg = narrated_ironvale.services.get(QuestGen)
    contract = qg.contracts.get(signal.signal_type)
    assert contract is not None
    grounding = contract.ground(signal, qg.facts)
    assert grounding is not None
    assert (grounding.primary_npc, grounding.involved_npcs) == (gwen(narrated_ironvale), [voss])
    assert grounding.fields["threat_source"] == "bandits"


async def test_an_undone_rescue_takes_its_story_signal_back(narrated_ironvale: GameEngine) -> None:
    hero, _ = await rescue(narrated_ironvale, news=False)
    story = narrated_ironvale.get_system(StorySignalSystem)
    assert len(deed_signals(narrated_ironvale)) == 1
    assert story.is_active("fact:rescue_gwen")
    await turn(narrated_ironvale, hero, "undo")
    story.detect_now()
    assert not story.is_active("fact:rescue_gwen")


async def test_a_deed_whose_people_are_gone_raises_nothing(narrated_ironvale: GameEngine) -> None:
    await rescue(narrated_ironvale)
    assert len(deed_signals(narrated_ironvale)) == 1
    narrated_ironvale.world.destroy_entity(npc_of(narrated_ironvale, "ironvale:voss"))
    deed_signals(narrated_ironvale)
    assert not narrated_ironvale.get_system(StorySignalSystem).is_active("fact:rescue_gwen")


def binders(engine: GameEngine) -> Binders:
    return engine.services.get(Binders)


async def test_binds_are_checked(narrated_ironvale: GameEngine) -> None:
    schema = load_schema(
        {
            "player": {
                "hp": {"bind": "vitals.hpp"},
                "mana": {"bind": "vitals.hp", "min": 0, "max": 50},
                "luck": {"bind": "vitals.hp", "bands": [[0, 50, "low"], [50, 60, "high"]]},
                "nerve": {"bind": "relationship.trust"},
            },
            "npcs": {"gwen": {"stats": {"trust": {"bind": "relationship.trust", "min": -200}}}},
            "flags": {"free": {"bind": "world.fact", "initial": True}},
            "milestones": {
                "freed": {"bind": "world.fact", "signal": {"type": "ALLIANCE_FORMIN"}},
                "allied": {
                    "bind": "world.fact",
                    "signal": {"type": "ALLIANCE_FORMING", "context": {"allied_npcs": ["a"]}},
                },
            },
        }
    )
    problems = binders(narrated_ironvale).problems(schema)
    assert problems == [
        "player.hp.bind: no binder 'vitals.hpp' (did you mean vitals.hp?); known: "
        "relationship.trust, vitals.hp, vitals.mana, world.fact",
        "player.mana.bind: leave out min and max: a character's hit points run to their "
        "own maximum",
        "player.luck.bind: bands of a bound stat are percentages of its live range and must "
        "run from 0 to 100, not 0 to 60",
        "player.nerve.bind: relationship.trust binds a stat under npc, not a stat under player",
        "npcs.gwen.trust.bind: min -200 is outside trust's range (-100 to 100)",
        "flags.free.bind: a flag bound to a world fact starts false (no fact is true before "
        "it happens)",
        "milestones.freed.bind: signal: unknown signal type 'ALLIANCE_FORMIN' (known: "
        "ALLIANCE_FORMING, BETRAYAL, CRISIS, DISCOVERY, FACTION_TENSION, GOAL_BLOCKED, "
        "POWER_SHIFT, RESOURCE_SCARCITY, RIVALRY_ESCALATION, SECRET_REVEALED, "
        "THREAT_DETECTED, THREAT_REGROUPING, TRADE_OPPORTUNITY, UNREQUITED)",
        "milestones.allied.bind: signal: ALLIANCE_FORMING needs context common_threat",
    ]
    with pytest.raises(ValueError, match="only a milestone bound to a world fact raises one"):
        load_schema({"milestones": {"freed": {"signal": {"type": "CRISIS"}}}})
    with pytest.raises(ValueError, match="already registered"):
        binders(narrated_ironvale).register(VitalsHp(narrated_ironvale))
