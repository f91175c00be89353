"""No gold or goods made or lost by ``kill -9`` right after trading with a shopkeeper,
on SQLite and PostgreSQL.

A purchase changes the buyer, the keeper's stock and purse, and makes an item; a sale
moves an item to the keeper. Checkpoints are an hour apart, so only the trades'
own commits write; the server is killed the moment the last trade is told, and the
database must hold every trade whole: the buyer's gold, the goods, the keeper's stock,
purse and what it bought, all agreeing (docs/rpg.md, "Shops")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from uuid import UUID

import pytest
from e2e.client import ClientPool, flat
from e2e.server import ServerProcess
from e2e.worlddb import read_persisted

from maid_stdlib.world.components import data_uuid

pytestmark = pytest.mark.slow
StartServer = Callable[..., Awaitable[ServerProcess]]
GUNDRIK = data_uuid("ironvale", "npc", "gundrik")
KNIFE = "ironvale:scrap_knife"


async def test_kill9_right_after_buying_and_selling_keeps_every_trade_whole(
    tmp_path: Path, server_db: str, maid_server: StartServer, telnet: ClientPool
) -> None:
    env = {"MAID_CHECKPOINT_INTERVAL": "3600"}
    server = await maid_server(tmp_path, database_url=server_db, env=env)
    client = await telnet.open(server.host, server.telnet_port)
    await client.create("Alice", "secret-lantern-9")
    await client.command("west")
    await client.command("west")
    assert "You buy a scrap-iron knife (x2) from Gundrik for 10 gold." in flat(
        await client.command("buy knife 2")
    )
    assert "You sell a scrap-iron knife to Gundrik for 2 gold." in flat(
        await client.command("sell knife")
    )
    server.kill9()
    assert await server.wait() == -9
    await telnet.close_all()

    saved = await read_persisted(server_db)
    alice = saved.characters()["Alice"]
    entities = saved.entities
    assert entities[alice]["CharacterStats"]["gold"] == 2

    def knives(holder: UUID) -> list[UUID]:
        items = (entities[holder].get("Inventory") or {}).get("items", [])
        return [
            UUID(str(i))
            for i in items
            if (entities.get(UUID(str(i)), {}).get("Item") or {}).get("template") == KNIFE
        ]

    [kept] = knives(alice)
    [sold] = knives(GUNDRIK)
    assert kept != sold
    assert entities[kept]["HeldBy"]["holder"] == str(alice)
    assert entities[sold]["HeldBy"]["holder"] == str(GUNDRIK)
    shop = entities[GUNDRIK]["Shop"]
    assert [line["count"] for line in shop["stock"] if line["template"] == KNIFE] == [1]
    assert shop["bought"] == [str(sold)]
    assert entities[GUNDRIK]["Wealth"]["gold"] == 300 + 10 - 2
