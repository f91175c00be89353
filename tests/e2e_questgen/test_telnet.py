"""Over a real telnet socket: the living world of a running server brings on the
Iron Crisis by itself; a newcomer walks into Gundrik's smithy and Gundrik offers a
generated quest about his trouble, naming the real people and foes of the world."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from e2e.client import TelnetClient, flat
from kits.engines import npc, questgen_of

from classic_rpg.components import CharacterStats
from classic_rpg.questgen.challenge import LEVEL_NEAR, recommended_level
from classic_rpg.questgen.terms import rpg_terms
from classic_rpg.systems.quests import QuestManager
from classic_rpg.systems.quests.handles import handle_word
from maid_engine.app import MaidServer
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world import NPC, WorldService


def gundriks(engine: GameEngine) -> GeneratedQuest | None:
    gundrik = npc(engine, "gundrik")
    return next(
        (
            oq.quest
            for oq in questgen_of(engine).open_quests().values()
            if oq.quest.quest_giver_id == gundrik
        ),
        None,
    )


async def test_a_newcomer_is_offered_gundriks_quest_in_the_smithy(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        telnet_port=0,
        metrics_enabled=False,
        tick_rate=100,
        random_seed=3,
        commands_per_second=100,
        command_burst=100,
        scrypt_n=2**10,
    )
    # A game minute per tick, a hundred ticks a second: the morning passes in seconds.
    clock = ManualClock(tick_game_seconds=60.0)
    server = MaidServer(settings, clock=clock, packs=["ironvale"], announce=lambda _text: None)
    async with server.lifespan():
        engine = server.engine
        started = time.monotonic()
        ws = engine.services.get(WorldService)
        smithy = "ironvale:smithy"
        # Gundrik's quest, and Gundrik at his forge (his day takes him elsewhere).
        while gundriks(engine) is None or ws.room_key_of(npc(engine, "gundrik")) != smithy:
            assert time.monotonic() - started < 30, "no quest from Gundrik within 30 s"
            await asyncio.sleep(0.05)
        quest = gundriks(engine)
        assert quest is not None
        # The running pipeline's builder carries the RPG's terms as its extension.
        assert "classic_rpg" in quest.extensions
        clock.tick_game_seconds = 1.0  # from now on the world moves at walking pace
        async with await TelnetClient.open("127.0.0.1", server.telnet_port) as client:
            await client.create("Aldric", "tin-hunter-22")
            [hero] = engine.sessions.characters_online()
            # A brand-new character: level 1, no history, walking in off the square.
            assert engine.world.get_component(hero, CharacterStats).level == 1
            if recommended_level(quest.difficulty) - 1 > LEVEL_NEAR:
                # Gundrik's trouble is Kral's band, a hard quest for level 6 and up:
                # a level 1 is too far from it to be offered it. One fight or two
                # in (level 2), he is within reach of it.
                async with engine.world_lock:
                    engine.world.get_component(hero, CharacterStats).level = 2
            assert "Forge Lane" in await client.command("west")
            out = flat(await client.command("west"))
            # Players type a number or a word of the title, never the quest's id.
            word = handle_word(quest.title, [])
            assert word is not None
            level = rpg_terms(quest).level_requirement
            hero_level = engine.world.get_component(hero, CharacterStats).level
            hint = (
                # Followed by the fight that asks for it, if one does.
                f"(You can take it on once you reach level {level}"
                if level > hero_level
                else f"(Type 'accept 1' or 'accept {word}' to take it on.)"
            )
            if hint not in out:  # the offer may follow the prompt
                out += flat(await client.expect(hint))
            assert "Gundrik's Smithy" in out
            assert "Gundrik sizes you up, then beckons you closer." in out
            assert f"Quest offered: '{quest.title}'." in out
            assert quest.id not in out
            out = flat(await client.command(f"quest {word}"))
            first = min(quest.objectives, key=lambda o: o.order)
            assert " ".join(first.description.split()) in out
            # Gundrik asks whoever walks in; taking the job on needs some experience.
            out = flat(await client.command("accept 1"))
            if level > hero_level:
                assert f"[offered, needs level {level}]" in flat(await client.command("quests"))
                assert f"You must be level {level}" in out
                async with engine.world_lock:
                    engine.world.get_component(hero, CharacterStats).level = level
                out = flat(await client.command(f"accept {word.upper()}"))
            assert f"You accept '{quest.title}'." in out
        manager = engine.services.get(QuestManager)
        assert manager.quest_state(hero, quest.id) is QuestState.IN_PROGRESS
        entry = manager.entry(hero, quest.id)
        assert entry is not None
        assert entry.offer_method == "direct_offer"
        # Whoever the quest sends someone to fight stands in the world, not invented.
        for o in quest.objectives:
            for u in o.target_entity_ids:
                assert engine.world.try_component(u, NPC) is not None
