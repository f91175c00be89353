"""``commit_now``: an operation's own writes with the whole change set, on both backends.

A write outside the checkpoint never puts one entity on disk without the others
changed since the last checkpoint (a trade's two sides), writes land in the order
they were collected, and a failed write hands everything back like a failed
checkpoint.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import Component
from maid_engine.engine import GameEngine
from maid_engine.ports import TransactionWrites
from maid_engine.store import StoreError, Transaction

LEDGER = "commit_test_ledger"


@dataclass
class Purse(Component):
    gold: int = 0


def make(db_url: str, tmp_path: Path) -> GameEngine:
    engine = GameEngine(
        Settings(data_dir=tmp_path, database_url=db_url), clock=ManualClock(), packs=[]
    )
    engine.declare_collection(LEDGER)
    return engine


async def gold_on_disk(engine: GameEngine, uid: UUID) -> int | None:
    row = await engine.store.entities.load(uid)
    return None if row is None else int(row["Purse"]["gold"])


def entry(key: str, gate: asyncio.Event | None = None, fail: bool = False) -> TransactionWrites:
    """Writes ``key`` to the ledger, after ``gate`` opens; then fails if told to."""

    async def put(tx: Transaction) -> None:
        if gate is not None:
            await gate.wait()
        await tx.documents.put(LEDGER, key, {"key": key})
        if fail:
            raise ValueError("refused")

    return put


def give(engine: GameEngine, giver: UUID, taker: UUID, amount: int) -> None:
    engine.world.get_component(giver, Purse).gold -= amount
    engine.world.get_component(taker, Purse).gold += amount


async def test_a_commit_writes_both_sides_of_a_trade_with_its_own_document(
    db_url: str, tmp_path: Path
) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        giver = engine.world.create_entity(Purse(10))
        taker = engine.world.create_entity(Purse(10))
        await engine.checkpoint()
        give(engine, giver, taker, 5)
        async with engine.world_lock:
            pending = engine.commit_now(entry("turn-1"))
        assert await pending == 2
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (5, 15)
        assert await engine.store.documents.get(LEDGER, "turn-1") == {"key": "turn-1"}
        # Both are clean now: the next checkpoint has nothing to write.
        assert await engine.checkpoint() == 0


async def test_a_failed_commit_writes_nothing_and_hands_everything_back(
    db_url: str, tmp_path: Path
) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        giver = engine.world.create_entity(Purse(10))
        taker = engine.world.create_entity(Purse(10))
        await engine.checkpoint()
        give(engine, giver, taker, 5)
        failures = engine.checkpoint_failures
        async with engine.world_lock:
            pending = engine.commit_now(entry("turn-1", fail=True))
        with pytest.raises(ValueError, match="refused"):
            await pending
        assert engine.checkpoint_failures == failures + 1
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (10, 10)
        assert await engine.store.documents.get(LEDGER, "turn-1") is None
        assert await engine.checkpoint() == 2
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (5, 15)


async def test_writes_land_in_the_order_they_were_collected(db_url: str, tmp_path: Path) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        purse = engine.world.create_entity(Purse(1))
        gate = asyncio.Event()
        async with engine.world_lock:
            first = engine.commit_now(entry("first", gate))
        engine.world.get_component(purse, Purse).gold = 2
        started: list[str] = []

        async def second_put(tx: Transaction) -> None:
            started.append("second")
            await tx.documents.put(LEDGER, "second", {"key": "second"})

        async with engine.world_lock:
            second = engine.commit_now(second_put)
        # Round trips to the database, during which the second write would begin if
        # it were free to: it waits for the first, still held by its gate.
        for _ in range(5):
            await engine.store.documents.get(LEDGER, "first")
        assert started == []
        gate.set()
        assert await first == 1
        assert await second == 1
        assert started == ["second"]
        # The newer value, never the older snapshot landing last.
        assert await gold_on_disk(engine, purse) == 2


async def test_a_write_collected_behind_a_failed_one_fails_too(db_url: str, tmp_path: Path) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        giver = engine.world.create_entity(Purse(10))
        taker = engine.world.create_entity(Purse(10))
        await engine.checkpoint()
        give(engine, giver, taker, 5)  # a trade, collected by a write that will fail
        gate = asyncio.Event()
        async with engine.world_lock:
            failing = engine.commit_now(entry("a", gate, fail=True))
        engine.world.get_component(taker, Purse).gold += 1  # the taker acts on
        async with engine.world_lock:
            behind = engine.commit_now(entry("b"))
        gate.set()
        with pytest.raises(ValueError, match="refused"):
            await failing
        # Written alone, the taker would be on disk with the gold, the giver without
        # having given it.
        with pytest.raises(StoreError, match="an earlier write of the world failed"):
            await behind
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (10, 10)
        assert await engine.store.documents.get(LEDGER, "b") is None
        # Both change sets went back to the world; a later commit takes them along.
        async with engine.world_lock:
            later = engine.commit_now(entry("c"))
        assert await later == 2
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (5, 16)


@dataclass
class Ratio(Component):
    value: float = 0.0


async def test_a_component_that_is_not_json_fails_the_write_and_loses_nothing(
    db_url: str, tmp_path: Path
) -> None:
    """The JSON is encoded before the transaction: a value JSON cannot hold fails
    the whole write (the other side of a trade is not written alone) and the
    changes go back to the world, written once the value is fixed."""
    async with make(db_url, tmp_path).lifespan() as engine:
        giver = engine.world.create_entity(Purse(10))
        taker = engine.world.create_entity(Purse(10), Ratio(0.5))
        await engine.checkpoint()
        give(engine, giver, taker, 5)
        engine.world.get_component(taker, Ratio).value = float("nan")
        async with engine.world_lock:
            pending = engine.commit_now(entry("turn-1"))
        with pytest.raises(ValueError, match="JSON"):
            await pending
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (10, 10)
        assert await engine.store.documents.get(LEDGER, "turn-1") is None
        engine.world.get_component(taker, Ratio).value = 0.75
        assert await engine.checkpoint() == 2
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (5, 15)
        stored = await engine.store.entities.load(taker)
        assert stored is not None
        assert stored["Ratio"] == {"value": 0.75}


@dataclass
class Label(Component):
    text: str = ""


async def test_text_that_cannot_be_utf8_fails_the_write_and_loses_nothing(
    db_url: str, tmp_path: Path
) -> None:
    """A lone surrogate (JSON from outside may carry one) cannot be written: the
    collection does not raise under the world lock, the write fails as a whole,
    and the changes go back to the world, written once the text is fixed."""
    async with make(db_url, tmp_path).lifespan() as engine:
        giver = engine.world.create_entity(Purse(10))
        taker = engine.world.create_entity(Purse(10), Label("ok"))
        await engine.checkpoint()
        give(engine, giver, taker, 5)
        engine.world.get_component(taker, Label).text = "a\ud800b"
        async with engine.world_lock:
            pending = engine.commit_now(entry("turn-1"))
        # SQLite's driver raises the encoding error itself; PostgreSQL's is a StoreError.
        with pytest.raises((UnicodeEncodeError, StoreError), match="surrogate"):
            await pending
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (10, 10)
        engine.world.get_component(taker, Label).text = "fixed"
        assert await engine.checkpoint() == 2
        assert (await gold_on_disk(engine, giver), await gold_on_disk(engine, taker)) == (5, 15)
        stored = await engine.store.entities.load(taker)
        assert stored is not None
        assert stored["Label"] == {"text": "fixed"}


async def test_a_cancelled_caller_does_not_abort_the_write(db_url: str, tmp_path: Path) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        purse = engine.world.create_entity(Purse(3))
        gate = asyncio.Event()

        async def caller() -> None:
            async with engine.world_lock:
                pending = engine.commit_now(entry("turn", gate))
            await pending

        task = asyncio.create_task(caller())
        for _ in range(5):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set()
        assert await engine.checkpoint() == 0  # waits for the write, which landed
        assert await gold_on_disk(engine, purse) == 3
        assert await engine.store.documents.get(LEDGER, "turn") == {"key": "turn"}


async def test_without_a_store_a_commit_is_done_at_once(tmp_path: Path) -> None:
    engine = GameEngine(Settings(data_dir=tmp_path), clock=ManualClock(), packs=[], use_store=False)
    async with engine.lifespan():
        engine.world.create_entity(Purse(1))
        async with engine.world_lock:
            pending = engine.commit_now()
        assert await pending == 0
