"""The whole loop, over a real telnet socket (the first integration test):

story signal -> seed -> quest -> delivery -> play over telnet -> turn-in ->
consequences visible -> the bandits regroup -> the revenge raised.

Nothing is fed by hand: Ironvale's living world raises the Iron Crisis by itself,
the QuestGenerationSystem builds a quest against the bandits (template narrative,
no model; who asks for it -- Gundrik, Selena -- depends on the seeded world),
a player takes it and does it with ordinary commands, the consequences change the
village; the bandits, driven off, stay away until they regroup a day and a half
later (a rumour first), and as they come back the retaliation chain signal is
raised. The server runs its own tick loop; the test only
changes how fast game time flows (and makes the newcomer sturdy enough for Kral).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

import pytest
from e2e.client import TelnetClient, flat
from ironvale.ironkit import CLEARED_NEWS, iv
from kits.heroes import VETERAN_HP, VETERAN_LEVEL, make_strong

from classic_rpg.combat.service import CombatService
from classic_rpg.systems.quests import QuestManager
from maid_engine.app import MaidServer
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_stdlib.consequences import AUDIT_COLLECTION, ConsequenceSystem, QuestChainEvent
from maid_stdlib.living import LivingWorld
from maid_stdlib.living.api import get_relationship
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world import WorldService

FAST, SLOW = 600.0, 1.0  # game seconds per tick
REGROUP, MINUTE = 3600.0, 60.0  # waiting for the bandits to regroup


async def until(check: Callable[[], object], what: str, within: float = 60.0) -> None:
    """Poll ``check`` while the server's own tick loop runs."""
    step = 0.02
    for _ in range(int(within / step)):
        if check():
            return
        await asyncio.sleep(step)
    raise AssertionError(f"never happened: {what}")


async def walk_to(client: TelnetClient, engine: GameEngine, hero: UUID, npc: UUID) -> None:
    """Walk to wherever ``npc`` is, one exit at a time (NPCs keep their schedules).
    Whoever attacks on the way is fought first: nobody walks out of a fight."""
    ws = engine.services.get(WorldService)
    combat = engine.services.get(CombatService)
    for _ in range(60):
        here, there = ws.room_key_of(hero), ws.room_key_of(npc)
        assert here is not None
        assert there is not None
        if here == there:
            return
        foe = next((o for o in combat.opponents_of(hero) if combat.valid_target(hero, o)), None)
        if foe is not None:
            await fight(client, engine, hero, ws.keywords_of(foe)[0])
            continue
        steps = ws.path(here, there)
        assert steps, f"no way from {here} to {there}"
        await client.command(f"go {steps[0]}")
    raise AssertionError("could not catch up")


async def fight(client: TelnetClient, engine: GameEngine, hero: UUID, keyword: str) -> None:
    """``kill <keyword>`` and wait until one of them fewer stands here."""
    ws = engine.services.get(WorldService)
    room = ws.room_key_of(hero)
    assert room is not None

    def standing() -> int:
        return sum(1 for u in ws.npcs_in(room) if ws.matches(u, [keyword]))

    before = standing()
    assert before, f"no {keyword} in {room}"
    await client.command(f"kill {keyword}")
    await until(lambda: standing() < before, f"a {keyword} dead", 30)


@pytest.mark.slow
async def test_signal_to_follow_up_over_telnet(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        telnet_port=0,
        metrics_enabled=False,
        tick_rate=50,
        random_seed=4,
        commands_per_second=100,
        command_burst=100,
        scrypt_n=2**10,
    )
    clock = ManualClock(tick_game_seconds=FAST)
    server = MaidServer(settings, clock=clock, announce=lambda _text: None, packs=["ironvale"])
    async with server.lifespan():
        engine = server.engine
        manager = engine.services.get(QuestManager)
        ws = engine.services.get(WorldService)
        chains: list[QuestChainEvent] = []
        engine.events.subscribe(QuestChainEvent, chains.append)
        client = await TelnetClient.open("127.0.0.1", server.telnet_port, within=30)
        try:
            await client.create("Aldric", "tin-hunter-22")
            [hero] = engine.sessions.characters_online()
            async with engine.world_lock:
                make_strong(engine, hero, level=VETERAN_LEVEL, hp=VETERAN_HP)

            # -- signal -> seed -> quest: the world raises the Iron Crisis itself -----
            def bandit_quest() -> str | None:
                for q in manager.quests():
                    if (
                        q.source == "generated"
                        and "threat_elimination" in q.tags
                        and manager.is_open(q.quest_id)
                    ):
                        return q.quest_id
                return None

            await until(bandit_quest, "a generated quest against the bandits")
            quest_id = bandit_quest()
            assert quest_id is not None
            clock.tick_game_seconds = SLOW
            quest = manager.get_quest(quest_id)
            assert quest is not None
            giver = quest.giver_npc_id
            assert giver is not None
            talk_giver = f"talk {ws.keywords_of(giver)[0]}"

            # -- delivery: the giver offers it when talked to ---------------------------
            await walk_to(client, engine, hero, giver)
            client.skip()
            client.send_line(talk_giver)
            offer = re.compile(r"Type\s+'accept\s+\d+'\s+or\s+'accept\s+\w+'")
            out = flat(await client.expect(offer))
            assert f"'{quest.title}'" in out
            # The offer names short handles to type, never the quest's id.
            assert quest_id not in out
            handles = re.search(r"Type 'accept (\d+)' or 'accept (\w+)'", out)
            assert handles is not None, out
            client.skip()
            client.send_line(f"accept {handles.group(2)}")
            out = flat(await client.expect(f"You accept '{quest.title}'", within=30))
            assert f"You accept '{quest.title}'" in out

            # -- play ------------------------------------------------------------------
            # Whoever knows most about the bandits first (a talk before the fights).
            talks = [
                o.target_id
                for o in quest.objectives
                if o.objective_type.value == "talk" and o.target_id not in (None, giver)
            ]
            for npc in talks:
                assert npc is not None
                await walk_to(client, engine, hero, npc)
                await client.command(f"talk {ws.keywords_of(npc)[0]}")
            await walk_to(client, engine, hero, _one(engine, "ironvale:bandit_scout"))
            for _ in range(3):
                await fight(client, engine, hero, "scout")
            await walk_to(client, engine, hero, iv("kral"))
            await fight(client, engine, hero, "kral")
            entry = manager.entry(hero, quest_id)
            assert entry is not None
            assert entry.state is QuestState.IN_PROGRESS
            kills = [o.objective_id for o in quest.objectives if o.objective_type.value == "kill"]
            assert kills
            assert all(entry.objectives[k].completed for k in kills)

            # -- turn-in -----------------------------------------------------------------
            await walk_to(client, engine, hero, giver)
            # The end of the last fight may still be on its way (its own line and
            # prompt): read on until the turn-in, not only up to the next prompt.
            client.skip()
            client.send_line(talk_giver)
            out = flat(await client.expect(f"Quest complete: '{quest.title}'", within=30))
            assert f"Quest complete: '{quest.title}'" in out

            # -- consequences visible ------------------------------------------------------
            system = engine.services.get(ConsequenceSystem)
            await until(
                lambda: any(p.quest_id == quest_id for p in system.recent), "consequences applied"
            )
            result = [p for p in system.recent if p.quest_id == quest_id][-1]
            assert result.status == "applied"
            assert result.outcome.value in (
                "perfect",
                "completed",
                "pyrrhic_victory",
            )
            rel = get_relationship(engine.world, giver, hero)
            assert rel is not None
            assert rel.trust > 0.05
            # The giver talks about it (an ambient line of theirs, such as a goal
            # done now that the road is safe, may come first with its own prompt).
            client.skip()
            client.send_line(talk_giver)
            out = flat(await client.expect(CLEARED_NEWS, within=30))
            assert CLEARED_NEWS in out
            audit = await engine.store.documents.query(AUDIT_COLLECTION, {"quest_id": quest_id})
            assert [a["status"] for a in audit] == ["applied"]

            # -- the bandits regroup, and their revenge is raised when they are back ------
            # Driven off, they stay away a day and a half, the rumour first; the
            # retaliation follow-up waits for them and is raised as they return.
            living = engine.services.get(LivingWorld)
            clock.tick_game_seconds = REGROUP
            turned_in = clock.game_time
            await until(
                lambda: any(c.warned for c in living.clearances.all()), "the rumour", within=60
            )
            assert not [c for c in chains if c.original_quest_id == quest_id]
            clock.tick_game_seconds = MINUTE
            await until(
                lambda: [c for c in chains if c.original_quest_id == quest_id],
                "the revenge",
                within=90,
            )
            revenge = [c for c in chains if c.original_quest_id == quest_id]
            assert [c.chain_type for c in revenge] == ["retaliation"]
            assert revenge[0].chain_signal.signal_type == "THREAT_DETECTED"
            assert revenge[0].chain_signal.created_at - turned_in >= 1.4 * 86400
        finally:
            await client.close()


def _one(engine: GameEngine, template: str) -> UUID:
    from maid_stdlib.world import NPC

    found = sorted(u for u, n in engine.world.each(NPC) if n.template == template)
    assert found, f"no {template}"
    return found[0]
