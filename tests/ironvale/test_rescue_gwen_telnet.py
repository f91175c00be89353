"""End to end over a real telnet socket: a player takes Voss's quest, rescues Gwen in
the narrated cellar (the scripted narrator stands in for the model), and then sees
the one world the story changed: their own hit points in the prompt, ``state`` and
``score``, Gwen's trust in them in ``@living``, the quest objective done, and a
villager telling of the rescue, and the deed a live story situation (`@story`). An undo
that the world already reacted to is refused."""

from __future__ import annotations

import re
from pathlib import Path

from e2e.fixtures import served
from narration.narrkit import block, settle
from narration.telnetkit import Client

from classic_rpg.components import CharacterStats, Health
from classic_rpg.systems.quests import QuestManager
from maid_engine.accounts.service import AccountService
from maid_engine.commands import Role
from maid_engine.llm import ScriptedProvider
from maid_stdlib.living.api import get_relationship
from maid_stdlib.narration import NarrationConfig, NarrationService
from maid_stdlib.questgen.vocabulary import QuestState

CELLAR = "ironvale:camp_cellar"
PROMPT = re.compile(r"<(\d+)/(\d+)hp")


def last_prompt_hp(client: Client) -> tuple[int, int]:
    found = PROMPT.findall(client.text())
    assert found, client.text()
    hp, top = found[-1]
    return int(hp), int(top)


async def say(client: Client, line: str, needle: str) -> str:
    """Send ``line``; wait for ``needle`` after it; what came since."""
    since = client.mark()
    client.send_line(line)
    await client.wait_for(needle, since=since)
    return client.flat()[since:]


async def test_rescuing_gwen_changes_the_one_world(tmp_path: Path) -> None:
    async with served(tmp_path, commands_per_second=100, command_burst=100) as server:
        engine = server.engine
        svc = engine.services.get(NarrationService)
        svc.config = NarrationConfig(unfolding_after=30.0, timeout=30.0)
        svc.provider = ScriptedProvider(
            [
                block('{"player.hp": -4}', "You kick the bars; the cage rings; your toe throbs."),
                block(
                    '{"player.hp": -25, "npc.gwen.trust": +10, "flags.has_key": true}',
                    "Behind the third cask your fingers close on a key, and on a nail.",
                ),
                block(
                    '{"npc.gwen.trust": +5, "milestones.rescue_gwen": true}',
                    "The padlock gives. Gwen steps out, rubbing her wrists.",
                ),
            ]
        )
        client = await Client.connect(server.telnet_port)
        try:
            await client.wait_for("What is your name?")
            client.send_line("create Aldric correct-horse-battery")
            await client.wait_for("Village Square")
            [hero] = engine.sessions.characters_online()
            async with engine.world_lock:
                engine.world.get_component(hero, CharacterStats).level = 2
            await engine.services.get(AccountService).set_role("Aldric", Role.BUILDER)

            await say(client, "@goto Captain Voss", "The Guard Post")
            await say(client, "talk voss", "The Caged Ranger")
            await say(client, "accept caged", "You accept 'The Caged Ranger'.")
            await say(client, "@goto ironvale:camp_cellar", "The Cellar Beneath the Camp")
            full = engine.world.get_component(hero, Health).maximum
            await say(client, "look", "Gwen")
            assert last_prompt_hp(client) == (full, full)

            # A turn that only hurts can be undone: the hp comes back.
            await say(client, "kick the cage", "Your hp -4")
            await settle(svc.drain())
            await say(client, "look", "Gwen")
            assert last_prompt_hp(client) == (full - 4, full)
            await say(client, "undo", "Aldric's last action is undone")
            await settle(svc.drain())
            await say(client, "look", "Gwen")
            assert last_prompt_hp(client) == (full, full)

            # The key: hp is the character's own, cut to the schema's 10 per turn.
            since = client.mark()
            client.send_line("feel behind the casks for the spare key")
            await client.wait_for("Your hp -10 (limited); Gwen's trust in you +10", since=since)
            await settle(svc.drain())
            await say(client, "look", "Gwen")
            assert last_prompt_hp(client) == (full - 10, full)
            out = await say(client, "state", "Flags")
            assert f"hp {full - 10}/{full}" in out
            out = await say(client, "score", "Health")
            assert f"{full - 10}/{full}" in out

            # The rescue: a world fact, which completes the objective of Voss's quest.
            since = client.mark()
            client.send_line("open the cage with the key and lead Gwen out")
            await client.wait_for("Gwen's trust in you +5; ✓ rescue gwen", since=since)
            await client.wait_for("Free Gwen from the cage", since=since)
            await settle(svc.drain())
            manager = engine.services.get(QuestManager)
            assert manager.quest_state(hero, "caged-ranger") is QuestState.COMPLETED
            out = await say(client, "quests", "The Caged Ranger")
            assert "The Caged Ranger [ready to turn in]" in out
            assert "[x] Free Gwen from the cage" in out

            # The quest counted it and the village heard: undo says why it cannot.
            out = await say(client, "undo", "cannot be taken back")
            assert "it counted for your quest 'The Caged Ranger'" in out
            assert "already know of it" in out
            assert manager.quest_state(hero, "caged-ranger") is QuestState.COMPLETED

            # Gwen's trust in Aldric, as the living world holds it: 0.20 + 0.10 + 0.05.
            out = await say(client, "@living gwen", "feels about Aldric")
            assert "feels about Aldric: trust +0.35" in out
            svc_gwen = svc.rooms[CELLAR].npcs["gwen"]
            rel = get_relationship(engine.world, svc_gwen, hero)
            assert rel is not None
            assert round(rel.trust, 2) == 0.35

            # The deed is a story situation quest generation can build on.
            out = await say(client, "@story now", "live situation")
            assert "ALLIANCE_FORMING fact:rescue_gwen" in out

            # A villager tells of it.
            await say(client, "@goto ironvale:south_gate", "South Gate")
            out = await say(client, "talk guard", "freed Gwen")
            assert "Aldric freed Gwen the ranger from the cage in the bandits' cellar." in out
        finally:
            await client.close()
