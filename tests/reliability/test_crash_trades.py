"""No duplication or loss of gold and items by ``kill -9``, on SQLite and PostgreSQL.

A trade changes two characters; a narrated turn and a quest turn-in are written at
once, outside the checkpoint. If such a write put one side of a trade on disk
without the other, a crash would duplicate the goods (the taker written, the giver
not) or destroy them (the giver written, the taker not). Every order of the
trade with a narrated turn, a turn-in or both is played, each by its own pair of
characters (Giver and Taker), with the turn and the turn-in done once by the taker
and once by the giver; then the server is killed, right after the issue's
reproduction (trade, then the taker acts), and what is on disk is counted (docs/operations.md,
"Crash safety").

The world is tests/kits/vault: its start room is narrated, the warden's quest pays
7 gold and a seal, ``outfit`` gives armour. The storyteller is tests/fakellm.py.
Checkpoints are an hour apart, so after the test's ``save`` only the operations
under test write to the database.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from e2e.client import ClientPool, TelnetClient
from e2e.server import ServerProcess
from e2e.worlddb import read_persisted
from fakellm import Behaviour, FakeOpenAIServer

from classic_rpg.characters.levels import START_GOLD
from classic_rpg.systems.quests.rewards import COLLECTION as TURNINS
from maid_engine.store import Store
from maid_stdlib.narration import COLLECTION as TURNS

pytestmark = pytest.mark.slow
StartServer = Callable[..., Awaitable[ServerProcess]]

ARGS = ("--pack", "stdlib", "--pack", "classic_rpg", "--pack", "kits.vault.pack:VaultPack")
ARMOUR, SEAL = "vault:armour", "vault:seal"
QUEST_GOLD = 7
GIFT = 5
REPLY = (
    "The coins are counted twice among the chests, and nothing is amiss.\n"
    '```state\n{"player.nerve": 1}\n```'
)

#: One pair's play: "T" the trade (5 gold and the armour, Giver to Taker), "N" a
#: narrated turn, "Q" a turn-in; the actor of N and Q is g(iver) or t(aker).
Step = tuple[str, str]


def scenarios() -> list[list[Step]]:
    """Every order of the trade with a narrated turn, a turn-in or both, each by the
    taker and by the giver."""
    plays: list[list[Step]] = []
    for ops in ("TN", "TQ", "TNQ"):
        for order in itertools.permutations(ops):
            for narrator, quester in (("t", "g"), ("g", "t")):
                who = {"T": "g", "N": narrator, "Q": quester}
                plays.append([(op, who[op]) for op in order])
    # The last play is the reproduction: the server is killed right after a
    # narrated turn of the taker, which just received gold and the armour, landed.
    plays.sort(key=lambda p: p == [("T", "g"), ("N", "t")])
    return plays


@dataclass
class Pair:
    giver: str
    taker: str
    steps: list[Step]
    clients: dict[str, TelnetClient]

    def name(self, who: str) -> str:
        return self.giver if who == "g" else self.taker


async def until(condition: Callable[[], Awaitable[bool]], what: str, within: float = 30.0) -> None:
    """Poll ``condition`` (a database read) until it holds; fail after ``within`` s."""
    deadline = time.monotonic() + within
    while not await condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {within} s")
        await asyncio.sleep(0.02)


async def answered(client: TelnetClient, line: str, wanted: str) -> None:
    """Send ``line`` and wait for ``wanted``. Not ``command``: a narrated turn's
    reply arrives on its own, after the turn's answer, and the server prompts again
    a moment later; that prompt may still be on its way when the next command goes
    out, and ``command`` would read it as the answer."""
    client.skip()
    client.send_line(line)
    await client.expect(wanted)


async def play(pair: Pair, store: Store) -> None:
    for op, who in pair.steps:
        actor = pair.name(who)
        client = pair.clients[actor]
        if op == "T":
            await answered(client, f"give {GIFT} gold to {pair.taker}", f"You give {GIFT} gold")
            armour = "You give a suit of chain armour"
            await answered(client, f"give armour to {pair.taker}", armour)
        elif op == "N":

            async def stored(name: str = actor) -> bool:
                return bool(await store.documents.query(TURNS, {"actor_name": name}))

            client.skip()
            client.send_line("act counts the coins in the nearest chest")
            await client.expect("nothing is amiss")
            # Told is not stored: wait until the turn's record is in the database.
            await until(stored, f"{actor}'s narrated turn stored")
        else:
            await answered(client, "turnin", "Quest complete: 'Count the Stairs'")


def holdings(entities: dict[UUID, dict[str, dict[str, Any]]], uid: UUID) -> list[UUID]:
    comps = entities[uid]
    carried = [UUID(str(i)) for i in (comps.get("Inventory") or {}).get("items", [])]
    worn = [UUID(str(i)) for i in (comps.get("Equipment") or {}).get("slots", {}).values()]
    return carried + worn


def template(entities: dict[UUID, dict[str, dict[str, Any]]], uid: UUID) -> str:
    return str((entities[uid].get("Item") or {}).get("template", ""))


async def check_conservation(url: str, pairs: list[Pair]) -> None:
    saved = await read_persisted(url)
    chars = saved.characters()
    entities = saved.entities
    # No item is held by two characters, and every held item exists.
    owners: dict[UUID, str] = {}
    for name, uid in chars.items():
        for item in holdings(entities, uid):
            assert item in entities, f"{name} holds {item}, which is not in the database"
            assert item not in owners, f"{item} is held by {owners[item]} and {name}"
            owners[item] = name
    store = Store(url)
    await store.open()
    try:
        records = await store.documents.query(TURNINS)
    finally:
        await store.close()
    paid = {r["character_id"] for r in records}
    for pair in pairs:
        ids = [chars[pair.giver], chars[pair.taker]]
        turn_ins = sum(str(uid) in paid for uid in ids)
        for uid in ids:
            # The ledger and the character agree: a record on disk was paid on disk.
            qlog = entities[uid].get("QuestLog") or {}
            listed = any(key.startswith("count-the-stairs:") for key in qlog.get("paid", []))
            assert listed == (str(uid) in paid), (pair.steps, qlog, paid)
        gold = sum(int(entities[uid]["CharacterStats"]["gold"]) for uid in ids)
        items = [template(entities, i) for uid in ids for i in holdings(entities, uid)]
        where = f"{pair.steps}: {pair.giver} and {pair.taker}"
        assert gold == 2 * START_GOLD + QUEST_GOLD * turn_ins, f"{where}: {gold} gold"
        assert items.count(ARMOUR) == 1, f"{where}: {items}"
        assert items.count(SEAL) == turn_ins, f"{where}: {items}"


async def test_kill9_after_trades_narrated_turns_and_turn_ins_conserves_gold_and_items(
    tmp_path: Path, server_db: str, maid_server: StartServer, telnet: ClientPool
) -> None:
    plays = scenarios()
    with FakeOpenAIServer() as llm:
        llm.set_default(Behaviour("ok", text=REPLY))
        env = {
            # Only the test's `save` and the operations under test write.
            "MAID_CHECKPOINT_INTERVAL": "3600",
            "MAID_MAX_CONNECTIONS_PER_IP": "100",
            # Every narrated turn asks the model; the default allows bursts of 10.
            "MAID_LLM_REQUESTS_PER_MINUTE": "1000",
            "MAID_LLM_MODEL": "openai/test-model",
            "MAID_LLM_API_BASE": llm.url,
            "MAID_LLM_API_KEY": "sk-test",
        }
        server = await maid_server(tmp_path, database_url=server_db, env=env, args=ARGS)
        pairs: list[Pair] = []
        for n, steps in enumerate(plays):
            letter = chr(ord("a") + n)
            pair = Pair(f"Giver{letter}", f"Taker{letter}", steps, {})
            for name in (pair.giver, pair.taker):
                client = await telnet.open(server.host, server.telnet_port)
                await client.create(name, "secret-lantern-9")
                pair.clients[name] = client
            assert "You are outfitted" in await pair.clients[pair.giver].command("outfit")
            if "Q" in dict(steps):
                client = pair.clients[pair.name(dict(steps)["Q"])]
                await client.command("talk warden")
                assert "You accept 'Count the Stairs'" in await client.command("accept")
                out = await client.command("up")
                assert "Count the Stairs" in out, out
                await client.command("down")
            pairs.append(pair)
        assert "Saved" in await pairs[0].clients[pairs[0].giver].command("save")

        store = Store(server_db)
        await store.open()
        try:
            for pair in pairs:
                await play(pair, store)
        finally:
            await store.close()
        server.kill9()
        assert await server.wait() == -9
    await telnet.close_all()

    await check_conservation(server_db, pairs)

    # In the game too: the armour the last taker was given is there once.
    server = await maid_server(tmp_path, database_url=server_db, args=ARGS)
    last = pairs[-1]
    giver = await telnet.open(server.host, server.telnet_port)
    await giver.connect_as(last.giver, "secret-lantern-9")
    taker = await telnet.open(server.host, server.telnet_port)
    await taker.connect_as(last.taker, "secret-lantern-9")
    assert "chain armour" not in await giver.command("inventory")
    assert "chain armour" in await taker.command("inventory")
    await taker.command("drop armour")
    assert "chain armour" not in await taker.command("inventory")
    assert "chain armour" not in await giver.command("inventory")
    out = await giver.command("get armour")
    assert "You pick up a suit of chain armour." in out, out
    assert "chain armour" in await giver.command("inventory")
    assert "chain armour" not in await taker.command("inventory")
    assert await server.terminate() == 0
