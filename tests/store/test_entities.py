"""EntityStore behaviour on both backends, and recovery from a PostgreSQL outage."""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import sqlalchemy as sa
from pg import ThrowawayPostgres

from maid_engine.store import EntityChangeSet, Store, StoreError, StoreUnavailable
from maid_engine.store.entities import encode_upserts
from maid_engine.store.rows import ROW_CHUNK
from maid_engine.store.schema import components, entities


async def test_save_and_load_roundtrip(store: Store) -> None:
    hero, sword, empty = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    await store.entities.save(
        EntityChangeSet(
            upserts={
                hero: {
                    "Name": {"value": "Hero"},
                    "Health": {"hp": 10, "max": 12},
                    "Inventory": {"items": [str(sword)], "gold": 3.5, "flags": {"cursed": False}},
                },
                sword: {"Name": {"value": "Épée ⚔"}},
                empty: {},
            }
        )
    )
    loaded = await store.entities.load_all()
    assert loaded == {
        hero: {
            "Name": {"value": "Hero"},
            "Health": {"hp": 10, "max": 12},
            "Inventory": {"items": [str(sword)], "gold": 3.5, "flags": {"cursed": False}},
        },
        sword: {"Name": {"value": "Épée ⚔"}},
        empty: {},
    }
    assert all(isinstance(key, UUID) for key in loaded)
    assert await store.entities.load(sword) == {"Name": {"value": "Épée ⚔"}}
    assert await store.entities.load(empty) == {}
    assert await store.entities.load(uuid.uuid4()) is None


async def test_partial_upsert_only_touches_given_components(store: Store) -> None:
    hero = uuid.uuid4()
    await store.entities.save(
        EntityChangeSet(upserts={hero: {"Name": {"value": "Hero"}, "Health": {"hp": 10}}})
    )
    await store.entities.save(EntityChangeSet(upserts={hero: {"Health": {"hp": 4}}}))
    await store.entities.save(EntityChangeSet(upserts={hero: {"Mana": {"mp": 1}}}))
    assert await store.entities.load(hero) == {
        "Name": {"value": "Hero"},
        "Health": {"hp": 4},
        "Mana": {"mp": 1},
    }


async def test_removed_component(store: Store) -> None:
    hero, other = uuid.uuid4(), uuid.uuid4()
    await store.entities.save(
        EntityChangeSet(
            upserts={
                hero: {"Name": {"value": "Hero"}, "Poisoned": {"turns": 3}},
                other: {"Poisoned": {"turns": 1}},
            }
        )
    )
    await store.entities.save(EntityChangeSet(removed=[(hero, "Poisoned"), (hero, "NeverHad")]))
    assert await store.entities.load(hero) == {"Name": {"value": "Hero"}}
    assert await store.entities.load(other) == {"Poisoned": {"turns": 1}}


async def test_destroyed_entity_cascades(store: Store) -> None:
    doomed, survivor = uuid.uuid4(), uuid.uuid4()
    await store.entities.save(
        EntityChangeSet(
            upserts={
                doomed: {"Name": {"value": "Orc"}, "Health": {"hp": 1}},
                survivor: {"Name": {"value": "Elf"}},
            }
        )
    )
    await store.entities.save(EntityChangeSet(destroyed=[doomed, uuid.uuid4()]))
    assert await store.entities.load(doomed) is None
    assert await store.entities.load_all() == {survivor: {"Name": {"value": "Elf"}}}


async def test_foreign_key_cascade_is_enforced_by_the_database(store: Store) -> None:
    # Deleting the entity row alone (not through save) must take its components.
    doomed = uuid.uuid4()
    await store.entities.save(EntityChangeSet(upserts={doomed: {"A": {}, "B": {}}}))
    # The Store's own engine, so SQLite runs with the Store's per-connection pragmas.
    engine = store._require_engine()
    async with engine.begin() as conn:
        await conn.execute(sa.delete(entities).where(entities.c.id == str(doomed)))
        left = await conn.scalar(sa.select(sa.func.count()).select_from(components))
    assert left == 0


async def test_destroy_wins_over_upsert_in_the_same_change_set(store: Store) -> None:
    entity = uuid.uuid4()
    await store.entities.save(
        EntityChangeSet(upserts={entity: {"A": {"x": 1}}}, destroyed=[entity])
    )
    assert await store.entities.load(entity) is None


async def test_empty_change_set_is_a_no_op(store: Store) -> None:
    await store.entities.save(EntityChangeSet())
    assert await store.entities.load_all() == {}


async def test_bad_change_set_is_rejected(store: Store) -> None:
    with pytest.raises(TypeError):
        await store.entities.save(EntityChangeSet(upserts={"not-a-uuid": {}}))  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        await store.entities.save(EntityChangeSet(upserts={uuid.uuid4(): {"A": [1]}}))  # type: ignore[dict-item]


async def test_ten_thousand_components_in_one_save(store: Store) -> None:
    ids = [uuid.uuid4() for _ in range(2500)]
    changes = EntityChangeSet(
        upserts={
            entity: {
                "Position": {"room": f"room-{i % 50}", "x": i},
                "Health": {"hp": i % 100},
                "Name": {"value": f"mob {i}"},
                "Tags": {"tags": ["mob", str(i)]},
            }
            for i, entity in enumerate(ids)
        }
    )
    await store.entities.save(changes)
    loaded = await store.entities.load_all()
    assert loaded == changes.upserts
    assert sum(len(comps) for comps in loaded.values()) == 10_000

    # A second large save updating half of them and destroying a quarter.
    update = EntityChangeSet(
        upserts={entity: {"Health": {"hp": -1}} for entity in ids[:1250]},
        destroyed=ids[1875:],
    )
    await store.entities.save(update)
    loaded = await store.entities.load_all()
    assert len(loaded) == 1875
    assert all(loaded[entity]["Health"] == {"hp": -1} for entity in ids[:1250])
    assert all(
        loaded[entity]["Health"] == {"hp": i % 100} for i, entity in enumerate(ids[1250:1875], 1250)
    )


async def test_encoded_rows_are_stored_as_the_same_json(store: Store) -> None:
    """A change set whose data was encoded beforehand (a checkpoint's) loads back as
    the data itself, mixed with rows given as dicts, and an update still counts the
    row's version up."""
    hero, sword = uuid.uuid4(), uuid.uuid4()
    data: dict[UUID, dict[str, Any]] = {
        hero: {
            "Name": {"value": "Épée ⚔", "tags": ["a", "b"]},
            "Stats": {"hp": 3, "ratio": 0.25, "flags": {"x": None, "y": True}},
        },
        sword: {"Name": {"value": "sword"}},
    }
    encoded = await encode_upserts(data)
    assert all(type(v) is bytes for comps in encoded.values() for v in comps.values())
    # Encoding twice leaves encoded rows alone.
    assert await encode_upserts(encoded) == encoded
    await store.entities.save(EntityChangeSet(upserts=encoded))
    assert await store.entities.load_all() == data
    await store.entities.save(
        EntityChangeSet(
            upserts={
                hero: {"Stats": b'{"hp": 1}', "Mana": {"mp": 2}},
            }
        )
    )
    assert await store.entities.load(hero) == {
        "Name": {"value": "Épée ⚔", "tags": ["a", "b"]},
        "Stats": {"hp": 1},
        "Mana": {"mp": 2},
    }
    async with store.sql_engine.connect() as conn:
        versions = dict(
            (
                await conn.execute(
                    sa.select(components.c.type, components.c.version).where(
                        components.c.entity_id == str(hero)
                    )
                )
            ).all()
        )
    assert versions == {"Name": 1, "Stats": 2, "Mana": 1}


@contextlib.asynccontextmanager
async def _turns() -> AsyncIterator[list[int]]:
    """Counts the turns another task gets while the block awaits (``[count]``)."""
    turns = [0]

    async def other_task() -> None:
        while True:
            turns[0] += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(other_task())
    await asyncio.sleep(0)
    turns[0] = 0
    try:
        yield turns
    finally:
        other.cancel()


async def test_encoding_lets_other_tasks_run_between_slices() -> None:
    rows = {uuid.uuid4(): {"Name": {"value": f"npc {i}"}} for i in range(100)}
    async with _turns() as turns:
        await encode_upserts(rows, slice_cost=10**9)
        assert turns[0] == 0  # in one slice: nothing else ran
        await encode_upserts(rows, slice_cost=1)
        assert turns[0] >= 99  # a slice per row: the other task ran between them
        turns[0] = 0
        # A row counts its text and a fixed cost: slices of about four rows.
        await encode_upserts(rows, slice_cost=4 * 520)
        assert 20 <= turns[0] <= 34
        # Rows encoded already (a checkpoint's) are passed on, and count too.
        staged = await encode_upserts(rows)
        turns[0] = 0
        await encode_upserts(staged, slice_cost=4 * 40)
        assert 20 <= turns[0] <= 34


async def test_a_writes_rows_go_to_the_driver_as_they_are_a_statement_at_a_time(
    store: Store,
) -> None:
    """The rows are bound by the driver (no SQLAlchemy parameter processing per row
    on the event loop), at most ``ROW_CHUNK`` per statement, and other tasks run
    between two statements."""
    ids = [uuid.uuid4() for _ in range(1200)]
    upserts: dict[UUID, dict[str, Any]] = {
        e: {"Name": {"value": f"npc {i}"}, "Health": {"hp": i}} for i, e in enumerate(ids)
    }
    changes = EntityChangeSet(
        upserts=await encode_upserts(upserts), removed=[(e, "Health") for e in ids[:5]]
    )
    #: (first words of the SQL, rows, compiled by SQLAlchemy, turns so far)
    seen: list[tuple[str, int, bool, int]] = []
    engine = store.sql_engine.sync_engine
    async with _turns() as turns:

        def before(
            _conn: Any, _cursor: Any, sql: str, params: Any, context: Any, many: bool
        ) -> None:
            rows = len(params) if many else 1
            seen.append((" ".join(sql.split()[:3]), rows, context.compiled is not None, turns[0]))

        sa.event.listen(engine, "before_cursor_execute", before)
        try:
            await store.entities.save(changes)
        finally:
            sa.event.remove(engine, "before_cursor_execute", before)
    writes = [row for row in seen if row[0].split()[0] in ("INSERT", "DELETE")]

    def batches(what: str, total: int) -> list[tuple[str, int, bool]]:
        sizes = [ROW_CHUNK] * (total // ROW_CHUNK) + (
            [total % ROW_CHUNK] if total % ROW_CHUNK else []
        )
        return [(what, size, False) for size in sizes]

    assert [(what, rows, compiled) for what, rows, compiled, _ in writes] == [
        *batches("INSERT INTO entities", 1200),
        *batches("INSERT INTO components", 2400),
        ("DELETE FROM components", 5, False),
    ]
    assert len(writes) > 4  # the rows did not all go in one statement each
    turns_seen = [t for *_, t in writes]
    assert turns_seen == sorted(set(turns_seen))  # the other task ran between any two
    loaded = await store.entities.load_all()
    assert loaded[ids[0]] == {"Name": {"value": "npc 0"}}
    assert loaded[ids[-1]] == upserts[ids[-1]]


def test_a_driver_that_binds_by_name_is_refused_clearly() -> None:
    from sqlalchemy.dialects import sqlite

    from maid_engine.store.entities import _COMPONENT_UPSERT

    with pytest.raises(StoreError, match="positional"):
        _COMPONENT_UPSERT.sql(sqlite.dialect(paramstyle="named"))


async def test_data_that_is_not_json_fails_before_anything_is_written() -> None:
    with pytest.raises(ValueError, match="JSON"):
        await encode_upserts({uuid.uuid4(): {"Ratio": {"v": float("nan")}}})
    with pytest.raises(TypeError):
        await encode_upserts({uuid.uuid4(): {"Thing": {"v": object()}}})


async def test_reopened_store_sees_the_data(db_url: str) -> None:
    entity = uuid.uuid4()
    first = Store(db_url)
    await first.open()
    try:
        await first.entities.save(EntityChangeSet(upserts={entity: {"Name": {"value": "Kept"}}}))
        await first.documents.ensure_collection("c")
        await first.documents.put("c", "k", {"v": 1})
    finally:
        await first.close()

    second = Store(db_url)
    await second.open()
    try:
        assert await second.entities.load_all() == {entity: {"Name": {"value": "Kept"}}}
        assert await second.documents.get("c", "k") == {"v": 1}
    finally:
        await second.close()

    # The same object can be opened again after close().
    await first.open()
    try:
        assert await first.entities.load(entity) == {"Name": {"value": "Kept"}}
    finally:
        await first.close()


async def test_closed_store_raises_store_error(db_url: str) -> None:
    store = Store(db_url)
    with pytest.raises(StoreError, match="not open"):
        await store.entities.load_all()
    assert await store.ping() is False


# --- outage ------------------------------------------------------------------


@pytest.fixture
def private_postgres() -> Iterator[ThrowawayPostgres]:
    # Its own server: stopping the shared one would break every other test.
    server = ThrowawayPostgres()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.mark.postgres
async def test_postgres_outage_raises_store_unavailable_then_recovers(
    private_postgres: ThrowawayPostgres,
) -> None:
    url = await private_postgres.create_database("outage")
    store = Store(url)
    await store.open()
    entity = uuid.uuid4()
    try:
        await store.documents.ensure_collection("c")
        await store.entities.save(EntityChangeSet(upserts={entity: {"A": {"n": 1}}}))
        assert await store.ping() is True

        await asyncio.to_thread(private_postgres.stop)

        # Pooled connections are now dead and new ones are refused: every kind of
        # call must say "unavailable", not leak a driver exception.
        with pytest.raises(StoreUnavailable):
            await store.entities.save(EntityChangeSet(upserts={entity: {"A": {"n": 2}}}))
        with pytest.raises(StoreUnavailable):
            await store.documents.put("c", "k", {"v": 1})
        with pytest.raises(StoreUnavailable):
            await store.entities.load_all()
        with pytest.raises(StoreUnavailable):
            async with store.atomic() as tx:
                await tx.documents.get("c", "k")
        assert await store.ping() is False

        await asyncio.to_thread(private_postgres.start)

        # The same Store works again, and the failed save left nothing behind.
        assert await store.ping() is True
        assert await store.entities.load(entity) == {"A": {"n": 1}}
        await store.entities.save(EntityChangeSet(upserts={entity: {"A": {"n": 3}}}))
        assert await store.entities.load(entity) == {"A": {"n": 3}}
        await store.documents.put("c", "k", {"v": 1})
        assert await store.documents.get("c", "k") == {"v": 1}

        # The connection dropping in the middle of a transaction, and at commit.
        with pytest.raises(StoreUnavailable):  # noqa: PT012 - mid-transaction or at commit
            async with store.atomic() as tx:
                await tx.documents.put("c", "mid", {"v": 2})
                await asyncio.to_thread(private_postgres.stop)
                await tx.entities.save(EntityChangeSet(destroyed=[entity]))
        await asyncio.to_thread(private_postgres.start)
        with pytest.raises(StoreUnavailable):  # noqa: PT012 - mid-transaction or at commit
            async with store.atomic() as tx:
                await tx.documents.put("c", "commit", {"v": 2})
                await asyncio.to_thread(private_postgres.stop)
        await asyncio.to_thread(private_postgres.start)
        assert await store.documents.keys("c") == ["k"]
        assert await store.entities.load(entity) == {"A": {"n": 3}}
    finally:
        await store.close()


@pytest.mark.postgres
async def test_open_while_postgres_is_down_raises_store_unavailable(
    private_postgres: ThrowawayPostgres,
) -> None:
    url = await private_postgres.create_database("down")
    await asyncio.to_thread(private_postgres.stop)
    store = Store(url)
    with pytest.raises(StoreUnavailable):
        await store.open()
    assert not store.is_open
    await asyncio.to_thread(private_postgres.start)
    await store.open()
    try:
        assert await store.ping() is True
    finally:
        await store.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="per-thread scheduling is Linux's")
async def test_the_sqlite_drivers_thread_runs_below_the_event_loop(tmp_path: Path) -> None:
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'maid.db'}")
    await store.open()
    try:
        async with store.sql_engine.connect() as conn:
            raw = await conn.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            # A SQL function runs in the thread running the statement: the driver's.
            await driver.create_function("policy", 0, lambda: os.sched_getscheduler(0))
            result = await conn.exec_driver_sql("SELECT policy()")
            assert result.scalar_one() == os.SCHED_IDLE
        # The event loop's own thread is left as it was.
        assert os.sched_getscheduler(0) != os.SCHED_IDLE
    finally:
        await store.close()
