"""A new player's first ten minutes, in TinTin++ against a real ``maid run``: create a
character and read the newbie guide, join a channel, group with a second player, buy
a weapon, take the first quest, fight with the prompt showing the fight, flee, and
finish the quest. The second player is the suite's plain telnet client.

The same script runs in both real clients, TinTin++ and TinyFugue."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool
from e2e.fixtures import maid_server, telnet
from e2e.server import ServerProcess
from e2e_client.ptyclient import PtyClient
from e2e_client.tintin import TinTin, require_tintin
from e2e_client.tinyfugue import TinyFugue, require_tinyfugue

__all__ = ["maid_server", "telnet"]

pytestmark = pytest.mark.slow

StartServer = Callable[..., Awaitable[ServerProcess]]

#: What a try to flee ends in.
FLED = re.compile(r"You flee (\w+)!|You try to flee, but cannot get away!")
#: Walking north from the wagon: there, held by a fight, or back at the wagon.
NORTH_OR_HELD = re.compile(r"Washed-out Bend|for your life!|The Broken Wagon")
#: How a fight for the first quest ends.
KILLED_OR_SLAIN = re.compile(
    r"\[Scouts on the Road\] Kill a bandit scout|You have been slain by a bandit scout!"
)
#: The prompt with health, as classic_rpg draws it ("<30/30hp 15/15mp>").
PROMPT = re.compile(r"<(\d+)/(\d+)hp")

#: A script types faster than a player: walking the road and a run of failed flees
#: can take more than the 20-command burst within two seconds. The limit itself is
#: tested in tests/net; here it would only make the run depend on the dice.
FAST = {
    "MAID_SCRYPT_N": "1024",
    "MAID_COMBAT_ROUND_SECONDS": "0.5",
    "MAID_COMMAND_BURST": "60",
}

#: The rooms from the guard post down to the broken wagon, walking south.
ROAD_SOUTH = (
    "Watch Street",
    "Ironvale Village Square",
    "South Street",
    "The South Gate",
    "Below the Gate",
    "Millstream Ford",
    "Washed-out Bend",
)


async def wounded_prompt(tt: PtyClient, within: float = 20.0) -> tuple[int, int]:
    """Wait for a prompt showing less health than the maximum: (health, maximum)."""
    while True:
        _, prompt = await tt.expect_re(PROMPT, within)
        hp, most = int(prompt.group(1)), int(prompt.group(2))
        if hp < most:
            return hp, most


async def walk(tt: PtyClient, direction: str, *rooms: str) -> None:
    for room in rooms:
        await tt.type(direction, room)


@pytest.mark.parametrize("client", ["tintin", "tinyfugue"])
async def test_a_new_players_first_ten_minutes(
    tmp_path: Path, maid_server: StartServer, telnet: ClientPool, client: str
) -> None:
    connect = TinTin.connect if client == "tintin" else TinyFugue.connect
    (require_tintin if client == "tintin" else require_tinyfugue)()
    server = await maid_server(tmp_path / "data", env=FAST)
    async with connect(server.telnet_port, tmp_path) as tt:
        await tt.expect("Type 'quit' to leave.")
        welcome = await tt.type("create Piper pipe-dream-42", "Welcome, Piper.")
        assert "Account Piper created." in welcome
        # The newbie guide comes with the first login, and is there to read again.
        guide = await tt.expect("talk voss")
        assert "A short guide" in guide
        again = await tt.type("help newbie", "talk voss")
        assert "A short guide to Ironvale" in again
        # A second player, on a plain telnet client.
        buddy = await telnet.open(server.host, server.telnet_port)
        await buddy.create("Buddy", "buddy-system-7")

        # Join a channel and talk on it.
        await tt.type("gossip on", "you hear it again")
        await buddy.command("gossip on")
        said = "[Gossip] Piper: Hello, where do I start?"
        await tt.type("gossip Hello, where do I start?", said)
        await buddy.expect(said)

        # Group: Buddy follows Piper and is taken into the group.
        await buddy.command("follow piper")
        await tt.expect("Buddy now follows you")
        await tt.type("group buddy", "Buddy joins your group.")
        await tt.type("gtell stay close", "You tell the group")
        await buddy.expect("stay close")

        # A weapon from Gundrik's smithy (Buddy walks after Piper).
        await walk(tt, "west", "Forge Lane", "Gundrik's Smithy")
        stock = await tt.type("list", "knife")
        assert "scrap-iron knife" in stock
        await tt.type("buy knife", "You buy a scrap-iron knife")
        await tt.type("wield knife", "scrap-iron knife")

        # The first quest, from Captain Voss at the guard post.
        await walk(tt, "east", "Forge Lane", "Ironvale Village Square")
        await walk(tt, "north", "Watch Street", "The Guard Post")
        offer = await tt.type("talk voss", "to take it on.)")
        assert "Scouts on the Road" in offer
        assert "'accept road'" in offer
        await tt.type("accept road", "You accept 'Scouts on the Road'.")

        # Down the road: at the wagon a scout attacks, and the prompt follows the fight
        # round by round, before anything is typed.
        await walk(tt, "south", *ROAD_SOUTH)
        arrival = await tt.type("south", "attacks you")
        assert "The Broken Wagon" in arrival
        await tt.expect("hits you")
        await wounded_prompt(tt)

        # Flee (a try can fail: then try again) ...
        for _ in range(10):
            tt.send("flee")
            _, fled = await tt.expect_re(FLED)
            if fled.group(0).startswith("You flee"):
                break
        fled_to = await tt.expect("Exits:")
        assert "The Broken Wagon" not in fled_to
        # ... and come back to finish a scout. The dice may have the last word: then,
        # as a player would, walk back from the square where one wakes, and again.
        back = {"north": "south", "south": "north"}[fled.group(1)]
        await tt.type(back, "The Broken Wagon")
        for _ in range(3):
            tt.send("kill scout")
            _, ended = await tt.expect_re(KILLED_OR_SLAIN, within=60)
            if not ended.group(0).startswith("You have been slain"):
                break
            await tt.expect("Ironvale Village Square")
            await walk(tt, "south", *ROAD_SOUTH[2:], "The Broken Wagon")
        else:
            raise AssertionError("slain three times by the scouts")
        await tt.type("get insignia", "insignia")

        # Back to Captain Voss with the proof. Another scout may have taken up the
        # fight: nobody walks out of one, so (as a player would) flee it, and come
        # back north through the wagon if the dice sent us south.
        for _ in range(10):
            tt.send("north")
            _, step = await tt.expect_re(NORTH_OR_HELD)
            if step.group(0) == "Washed-out Bend":
                break
            if step.group(0) == "for your life!":
                for _ in range(10):
                    tt.send("flee")
                    _, fled = await tt.expect_re(FLED)
                    if fled.group(0).startswith("You flee"):
                        break
                if fled.group(1) == "north":
                    await tt.expect("Washed-out Bend")
                    break
        else:
            raise AssertionError("never got away north of the wagon")
        await walk(tt, "north", *reversed(ROAD_SOUTH[:-1]))
        await tt.type("north", "The Guard Post")
        await tt.type(
            "give insignia to voss", "You have completed the objectives of 'Scouts on the Road'."
        )
        done = await tt.type("talk voss", "Quest complete: 'Scouts on the Road'")
        assert "Kral's mark" in done
        assert "You gain 120 experience for completing 'Scouts on the Road'." in done
        await tt.type("quests", "Scouts on the Road")
        await tt.type("quit", "oodbye")
