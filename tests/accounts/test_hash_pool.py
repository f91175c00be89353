"""The hashing pool: a bounded number of hashes at once, a first-come line behind
them, and players in the line told their place (when they join, then as it halves)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable

import pytest
from accounts.account_helpers import PASSWORD, Client

from maid_engine.accounts import AccountService
from maid_engine.accounts.passwords import (
    HASH_NICENESS,
    HashPool,
    PasswordHasher,
    ScryptParams,
    default_workers,
    queue_listener,
    scrypt_kdf,
)
from maid_engine.config import Settings
from maid_engine.engine import GameEngine

FAST = ScryptParams(n=2**10)


class Gate:
    """A kdf that holds every hash until released, and counts the ones running."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.started = 0

    def __call__(self, password: bytes, salt: bytes, n: int, r: int, p: int, dk: int) -> bytes:
        with self.lock:
            self.started += 1
        self.release.wait(10)
        return scrypt_kdf(password, salt, n, r, p, dk)


async def settle() -> None:
    """Let every task run up to its next wait (no sleeping: loop turns only)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def until(condition: Callable[[], bool]) -> None:
    """Yield to the loop (and the database's thread) until ``condition`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0)


def listening(told: list[tuple[str, int]], who: str) -> Callable[[int], None]:
    return lambda position: told.append((who, position))


async def hash_as(hasher: PasswordHasher, told: list[tuple[str, int]], who: str) -> str:
    queue_listener.set(listening(told, who))
    return await hasher.hash(PASSWORD)


def test_the_default_leaves_a_core_to_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_workers() >= 1
    # The CPUs the server may run on count, not the machine's.
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert default_workers() == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {2}, raising=False)
    assert default_workers() == 1
    monkeypatch.undo()
    assert HashPool().workers == default_workers()
    assert HashPool(3).workers == 3
    assert PasswordHasher.from_settings(Settings(hash_workers=2)).pool.workers == 2
    with pytest.raises(ValueError, match="hash_workers"):
        Settings(hash_workers=-1)


async def test_at_most_workers_hash_at_once_and_the_rest_wait_in_order() -> None:
    gate = Gate()
    hasher = PasswordHasher(FAST, kdf=gate, pool=HashPool(2))
    told: list[tuple[str, int]] = []
    names = ["ann", "bo", "cy", "dee", "eve"]
    done: list[str] = []

    async def one(who: str) -> None:
        await hash_as(hasher, told, who)
        done.append(who)

    tasks = [asyncio.create_task(one(who)) for who in names]
    await settle()
    assert (hasher.pool.running, hasher.pool.waiting) == (2, 3)
    # Only those in line hear about it, each their own place.
    assert told == [("cy", 1), ("dee", 2), ("eve", 3)]
    gate.release.set()
    await asyncio.gather(*tasks)
    assert sorted(done) == sorted(names)
    assert gate.started == 5
    assert (hasher.pool.running, hasher.pool.waiting) == (0, 0)
    assert hasher.pool.longest_line == 3
    hasher.pool.close()


async def test_a_long_line_is_told_again_as_it_halves() -> None:
    gate = Gate()
    pool = HashPool(1)
    hasher = PasswordHasher(FAST, kdf=gate, pool=pool)
    told: list[tuple[str, int]] = []
    tasks = [asyncio.create_task(hash_as(hasher, told, f"p{i}")) for i in range(10)]
    await settle()
    assert pool.waiting == 9
    gate.release.set()
    await asyncio.gather(*tasks)
    last = [position for who, position in told if who == "p9"]
    # The last of nine: 9th, then 4th, 2nd and 1st -- not every step.
    assert last == [9, 4, 2, 1]
    assert len(told) < 9 * 4
    pool.close()


async def test_a_waiter_that_gives_up_leaves_the_line() -> None:
    gate = Gate()
    pool = HashPool(1)
    hasher = PasswordHasher(FAST, kdf=gate, pool=pool)
    told: list[tuple[str, int]] = []
    first = asyncio.create_task(hash_as(hasher, told, "first"))
    quitter = asyncio.create_task(hash_as(hasher, told, "quitter"))
    last = asyncio.create_task(hash_as(hasher, told, "last"))
    await settle()
    assert pool.waiting == 2
    quitter.cancel()
    await settle()
    assert pool.waiting == 1
    gate.release.set()
    encoded = await asyncio.gather(first, last)
    assert [await hasher.verify(PASSWORD, e) for e in encoded] == [True, True]
    assert quitter.cancelled()
    assert (pool.running, pool.waiting) == (0, 0)
    pool.close()


async def test_the_login_screen_tells_a_waiting_player_their_place(
    engine: GameEngine, accounts: AccountService, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    monkeypatch.setattr(accounts.hasher, "kdf", gate)
    monkeypatch.setattr(accounts.hasher, "pool", HashPool(1))
    clients = [Client(engine) for _ in range(3)]
    for c in clients:
        await c.open()
    pending = [
        asyncio.create_task(c.line(f"create {name} {PASSWORD}"))
        for c, name in zip(clients, ["Aldric", "Brenna", "Corin"], strict=True)
    ]
    pool = accounts.hasher.pool
    await until(lambda: pool.waiting == 2)
    gate.release.set()
    outs = await asyncio.gather(*pending)
    lines = sorted([ln for ln in out.split("\n") if "in line" in ln] for out in outs)
    # The first to ask hashes at once; the second waits 1st in line; the third
    # hears 2nd, then 1st when the line has halved.
    place = "Many players are logging in right now; you are {} in line."
    assert lines == [[], [place.format("1st")], [place.format("2nd"), place.format("1st")]]
    # Everyone got in, in the end.
    assert all(c.session.character_id is not None for c in clients)
    accounts.hasher.pool.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="per-thread scheduling is Linux's")
async def test_hashing_threads_run_in_the_idle_class() -> None:
    pool = HashPool(1)

    def policy() -> int:
        return os.sched_getscheduler(threading.get_native_id())

    game = policy()
    assert await pool.run(policy) == os.SCHED_IDLE
    assert policy() == game  # the event loop's own thread is left alone
    pool.close()


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="per-thread nice values are Linux's")
async def test_hashing_threads_run_below_the_game_where_the_idle_class_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(*args: object) -> None:
        raise PermissionError("not here")

    monkeypatch.setattr(os, "sched_setscheduler", refused)
    pool = HashPool(1)

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    game = niceness()
    assert await pool.run(niceness) == min(game + HASH_NICENESS, 19)
    assert niceness() == game
    pool.close()
