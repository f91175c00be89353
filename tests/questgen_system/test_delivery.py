"""The seven delivery methods, each planned and then fired by its real
trigger: the giver in the room, the next room entered, a gossiping NPC talked to,
the notice board read, the quest's place entered, two knowing NPCs overheard, a
person involved talked to."""

from __future__ import annotations

from uuid import UUID

from kits.engines import npc, qm, questgen_of
from questgen_system.qskit import move, online, seed_for, until

from maid_engine.engine import GameEngine
from maid_engine.testing import FakeSession, cmd
from maid_stdlib.living import api
from maid_stdlib.living.gossip import KnownGossip, inject
from maid_stdlib.questgen.delivery import PendingDelivery
from maid_stdlib.questgen.personalization import PlayStyle
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod
from maid_stdlib.world import WorldService

M = QuestDeliveryMethod
GOSSIP = "threat:wolves:hamlet:mill_road"


def silence(engine: GameEngine) -> None:
    """Nobody knows any gossip (the living world may have spread some already)."""
    for uid, _ in list(engine.world.each(KnownGossip)):
        engine.world.remove_component(uid, KnownGossip)


def tell(engine: GameEngine, *who: str) -> None:
    inject(
        engine.world,
        [npc(engine, w) for w in who],
        GOSSIP,
        "Wolves hold the mill road at the copse.",
        engine.clock.game_time,
        subject="wolves",
    )


async def hollins_quest(
    engine: GameEngine, importance: float = 0.9, involved: tuple[str, ...] = ()
) -> GeneratedQuest:
    system = questgen_of(engine)
    system.enqueue(seed_for(engine, "hollin", importance=importance, involved=involved))
    await until(engine, lambda: bool(system.open_quests()))
    return next(iter(system.open_quests().values())).quest


def planned(engine: GameEngine, hero: UUID, quest: GeneratedQuest) -> PendingDelivery:
    pending = questgen_of(engine).pending_deliveries(hero)
    assert quest.id in pending, f"nothing planned; offers: {qm(engine).quests_of(hero)}"
    return pending[quest.id]


def offered_by(engine: GameEngine, hero: UUID, quest: GeneratedQuest) -> str | None:
    entry = qm(engine).entry(hero, quest.id)
    return entry.offer_method if entry is not None else None


async def test_direct_offer_when_the_character_is_in_the_givers_room(quiet: GameEngine) -> None:
    silence(quiet)
    present, present_session = await online(quiet, "Present", room="hamlet:mill", level=4)
    quest = await hollins_quest(quiet)
    # Planned and fired at once: the giver is right there.
    assert offered_by(quiet, present, quest) == M.DIRECT_OFFER
    assert 'Hollin says, "' in present_session.text()
    assert quest.quest_giver_dialogue.offer in present_session.text()
    # Someone walking in later is approached too.
    later, later_session = await online(quiet, "Later", level=4)
    assert offered_by(quiet, later, quest) is None
    await move(quiet, later, "mill_lane")
    assert offered_by(quiet, later, quest) is None
    await move(quiet, later, "mill")
    assert offered_by(quiet, later, quest) == M.DIRECT_OFFER
    assert "Hollin sizes you up, then beckons you closer." in later_session.text()


async def test_a_letter_arrives_on_the_next_room_entered(quiet: GameEngine) -> None:
    silence(quiet)
    hero, session = await online(quiet, "Aldric", level=4)
    api.adjust_relationship(quiet.world, npc(quiet, "hollin"), hero, trust=0.8)
    quest = await hollins_quest(quiet)
    assert planned(quiet, hero, quest).method is M.LETTER
    assert offered_by(quiet, hero, quest) is None
    await move(quiet, hero, "inn")
    assert offered_by(quiet, hero, quest) == M.LETTER
    text = session.text()
    assert "presses a sealed letter into your hand" in text
    assert "It is from Hollin" in text


async def test_a_rumor_from_an_npc_who_knows_the_gossip(quiet: GameEngine) -> None:
    silence(quiet)
    tell(quiet, "marta")
    hero, _ = await online(quiet, "Aldric", level=4)
    quest = await hollins_quest(quiet)
    pending = planned(quiet, hero, quest)
    assert (pending.method, pending.delivery_npc) == (M.RUMOR, npc(quiet, "marta"))
    await move(quiet, hero, "warden_hut")
    await move(quiet, hero, "green")
    await cmd(quiet, hero, "talk pell")  # he has not heard
    assert offered_by(quiet, hero, quest) is None
    await move(quiet, hero, "inn")
    out = await cmd(quiet, hero, "talk marta")
    assert "Marta lowers her voice" in out  # her data's pronouns, not "their"
    assert "Wolves hold the mill road" in out
    assert "Hollin is looking for someone" in out
    assert offered_by(quiet, hero, quest) == M.RUMOR


async def test_a_notice_on_the_village_board(quiet: GameEngine) -> None:
    silence(quiet)
    hero, _ = await online(quiet, "Aldric", room="hamlet:mill", level=4)
    await move(quiet, hero, "mill_lane")
    quest = await hollins_quest(quiet, importance=0.6)
    pending = planned(quiet, hero, quest)
    assert (pending.method, pending.trigger_location) == (M.NOTICE_BOARD, "hamlet:green")
    assert "There is no notice board here." in await cmd(quiet, hero, "board")
    await move(quiet, hero, "green")
    assert offered_by(quiet, hero, quest) is None
    out = await cmd(quiet, hero, "read board")
    assert "KEEP OFF THE MILL ROAD AFTER DARK" in out
    assert "A fresh notice is pinned to the board, signed by Hollin" in out
    assert offered_by(quiet, hero, quest) == M.NOTICE_BOARD
    assert "Nothing new has been posted for you." in await cmd(quiet, hero, "board")


async def test_an_explorer_discovers_it_at_the_quests_place(quiet: GameEngine) -> None:
    silence(quiet)
    hero, session = await online(quiet, "Aldric", level=4)
    questgen_of(quiet).record_play(hero, PlayStyle.EXPLORER, 6.0)
    quest = await hollins_quest(quiet)
    pending = planned(quiet, hero, quest)
    assert (pending.method, pending.trigger_location) == (M.DISCOVERY, "hamlet:road_copse")
    for room in ("hamlet_gate", "road_bridge"):
        await move(quiet, hero, room)
    assert offered_by(quiet, hero, quest) is None
    await move(quiet, hero, "road_copse")
    assert offered_by(quiet, hero, quest) == M.DISCOVERY
    assert "Something here catches your eye" in session.text()


async def test_overheard_when_two_npcs_who_know_are_in_the_room(quiet: GameEngine) -> None:
    silence(quiet)
    tell(quiet, "pell", "marta")
    hero, session = await online(quiet, "Aldric", level=4)
    quest = await hollins_quest(quiet, importance=0.6)
    assert planned(quiet, hero, quest).method is M.OVERHEARD
    ws = quiet.services.get(WorldService)
    await move(quiet, hero, "warden_hut")
    await move(quiet, hero, "green")
    await move(quiet, hero, "inn")  # Marta alone knows nothing worth overhearing
    assert offered_by(quiet, hero, quest) is None
    ws.move(npc(quiet, "pell"), "hamlet:inn")  # Pell comes in for a drink
    await quiet.dispatch_events()
    assert offered_by(quiet, hero, quest) == M.OVERHEARD
    assert (
        "You overhear Marta and Pell talking in low voices." in session.text()
        or "You overhear Pell and Marta talking in low voices." in session.text()
    )
    # The summary's full stop is a comma before the tag; the reply adds, not repeats.
    assert f'"{quest.summary.rstrip(".")}," one of them mutters.' in session.text()
    assert '"Someone ought to go and see Hollin," the other replies.' in session.text()


async def test_a_social_character_hears_of_it_in_conversation(quiet: GameEngine) -> None:
    silence(quiet)
    hero, _ = await online(quiet, "Aldric", level=4)
    questgen_of(quiet).record_play(hero, PlayStyle.SOCIAL, 6.0)
    quest = await hollins_quest(quiet, involved=("tamsin",))
    tamsin = npc(quiet, "tamsin")
    assert tamsin in quest.involved_npcs
    pending = planned(quiet, hero, quest)
    assert (pending.method, pending.delivery_npc) == (M.CONVERSATION, tamsin)
    await move(quiet, hero, "mill_lane")
    await move(quiet, hero, "green")
    await move(quiet, hero, "warden_hut")
    assert offered_by(quiet, hero, quest) is None
    out = await cmd(quiet, hero, "ask tamsin about the weather")
    assert offered_by(quiet, hero, quest) is None  # not what the quest is about
    out = await cmd(quiet, hero, "ask tamsin about wolves")
    assert "As you talk, Warden Tamsin mentions it" in out
    assert offered_by(quiet, hero, quest) == M.CONVERSATION


async def test_offers_are_only_made_to_characters_online(quiet: GameEngine) -> None:
    hero, session = await online(quiet, "Aldric", room="hamlet:mill", level=4)
    quiet.sessions.detach(session)
    quest = await hollins_quest(quiet)
    assert offered_by(quiet, hero, quest) is None
    assert isinstance(session, FakeSession)
