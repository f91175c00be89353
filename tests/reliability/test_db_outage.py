"""PostgreSQL going away under a running server, and coming back.

The server must not crash; players keep playing and are told once that saving is
delayed; logins and account creation fail with a clear message instead of pretending
success; checkpoints are retried and, once the database is back, everything that
was acknowledged meanwhile is written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.server import ServerProcess
from e2e.worlddb import read_persisted
from pg import ThrowawayPostgres

from maid_engine.reliability import DATABASE_UNAVAILABLE

pytestmark = [pytest.mark.slow, pytest.mark.postgres]
StartServer = Callable[..., Awaitable[ServerProcess]]

DELAYED = "Saving is delayed; your progress is kept and will be saved when the database is back."
RESUMED = "Saving has resumed."


@pytest.fixture
def private_postgres() -> Iterator[ThrowawayPostgres]:
    """A PostgreSQL server of our own: this test stops and restarts it."""
    server = ThrowawayPostgres()
    try:
        server.start()
        yield server
    finally:
        server.close()


async def test_postgres_outage_delays_saving_and_loses_nothing(
    tmp_path: Path,
    private_postgres: ThrowawayPostgres,
    maid_server: StartServer,
    telnet: ClientPool,
) -> None:
    url = await private_postgres.create_database("outage")
    server = await maid_server(tmp_path, database_url=url, env={"MAID_CHECKPOINT_INTERVAL": "0.3"})
    alice = await telnet.open(server.host, server.telnet_port)
    await alice.create("Alice", "secret-lantern-9")

    await asyncio.to_thread(private_postgres.stop)
    failures = await server.metric("maid_checkpoint_failures_total")
    # The game goes on without a database.
    assert "Watch Street" in await alice.command("north")
    # The notice may arrive before, with or after the answer to `north`: wait for it
    # anywhere in what Alice received.
    await alice.wait_until(lambda: alice.count(DELAYED) >= 1, within=15, what="the notice")
    assert await server.metric("maid_saving_delayed") == 1

    # Logging in and creating accounts need the database: a clear refusal, no pretence.
    carol = await telnet.open(server.host, server.telnet_port)
    answer = await carol.try_login("create", "Carol", "secret-lantern-9")
    assert DATABASE_UNAVAILABLE in flat(answer)
    assert "Welcome" not in answer
    answer = await carol.try_login("connect", "Alice", "secret-lantern-9")
    assert DATABASE_UNAVAILABLE in flat(answer)
    assert "Welcome" not in answer

    # Checkpoints keep being retried, and the player is told only once.
    await server.wait_metric("maid_checkpoint_failures_total", failures + 4, within=15)
    assert "The Guard Post" in await alice.command("north")
    assert "Saving is delayed" not in await alice.command("say still here")
    assert alice.count("Saving is delayed") == 1

    await asyncio.to_thread(private_postgres.start)
    await alice.expect(RESUMED, within=20)
    assert await server.metric("maid_saving_delayed") == 0
    # Everything acknowledged during the outage has been written.
    saved = await read_persisted(url)
    assert saved.room_of("Alice") == "ironvale:guard_post"
    assert "carol" not in saved.accounts
    assert "Carol" not in saved.characters()

    # The same server, still running, serves logins and creations again.
    answer = await carol.try_login("create", "Carol", "secret-lantern-9")
    assert "Welcome, Carol." in answer
    assert "The Guard Post" in await alice.command("look")
    assert alice.count("Saving is delayed") == 1
    assert alice.count(RESUMED) == 1
    assert await server.terminate() == 0
    assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
