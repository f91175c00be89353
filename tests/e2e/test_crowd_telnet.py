"""A crowd over real sockets: the summarised look, 'look crowd', and comings and
goings told once per tick. The crowd size is lowered to 3 so six clients make one."""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.client import ClientPool, TelnetClient, flat
from e2e.fixtures import served, telnet

from maid_engine.app import MaidServer
from maid_stdlib.world.service import WorldService

__all__ = ["telnet"]

NAMES = ["Ana", "Bea", "Cid", "Dov", "Eli", "Fen"]


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[MaidServer]:
    async with served(tmp_path, commands_per_second=100, command_burst=100) as server:
        server.engine.services.get(WorldService).crowd_size = 3
        yield server


async def gather(live: MaidServer, telnet: ClientPool) -> list[TelnetClient]:
    clients = []
    for name in NAMES:
        client = await telnet.open("127.0.0.1", live.telnet_port)
        await client.create(name, f"{name.lower()}-quiet-harbour-7")
        clients.append(client)
    return clients


async def answer(client: TelnetClient, line: str, mark: str) -> str:
    """The answer to ``line``: a line about someone entering the game, told at the
    end of a tick, may come with its own prompt before it."""
    out = await client.command(line)
    while mark not in flat(out):
        out = await client.read_until_prompt()
    return flat(out)


async def test_a_crowd_is_summarised_and_listed_on_demand(
    live: MaidServer, telnet: ClientPool
) -> None:
    ana, *_others, fen = await gather(live, telnet)
    looked = await answer(ana, "look", "Exits:")
    assert "Bea, Cid and 3 others are here. ('look crowd' lists everyone.)" in looked
    assert "Dov is here." not in looked
    assert "Ana, Bea and 3 others are here." in await answer(fen, "look", "Exits:")
    crowd = await answer(ana, "look crowd", "Here with you")
    assert crowd.startswith("Here with you (5 players): Bea, Cid, Dov, Eli, Fen.")
    assert (await answer(fen, "who here", "Here with you")).startswith(
        "Here with you (5 players): Ana, Bea, Cid, Dov, Eli."
    )


async def test_comings_and_goings_reach_the_crowd_once_per_tick(
    live: MaidServer, telnet: ClientPool
) -> None:
    ana, bea, cid, dov, eli, fen = await gather(live, telnet)
    for client in (ana, bea, cid, dov):
        client.skip()
    # Two leave at once: one line if they fall in one tick, one each if not; a
    # crowd reads each departure once.
    eli.send_line("north")
    fen.send_line("north")
    departures = re.compile(r"(?:Eli|Fen)(?: and (?:Eli|Fen))? leaves? north\.")

    def told(client: TelnetClient) -> list[str]:
        return departures.findall(flat(client.unread()))

    def both_told(client: TelnetClient) -> bool:
        lines = "".join(told(client))
        return "Eli" in lines and "Fen" in lines

    for client in (ana, bea):
        await client.wait_until(functools.partial(both_told, client), what="both leaving")
        lines = sorted(told(client))
        assert lines in (
            ["Eli and Fen leave north."],
            ["Fen and Eli leave north."],
            ["Eli leaves north.", "Fen leaves north."],
        ), lines
    # Back into a crowd of five: the arrival comes at the end of the tick.
    cid.skip()
    await eli.command("south")
    await cid.expect("Eli arrives from the north.")
    assert cid.count("Eli arrives from the north.") == 1
