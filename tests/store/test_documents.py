"""DocumentStore behaviour, identical on SQLite and PostgreSQL (via db_url)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from maid_engine.store import CollectionNotFound, EntityChangeSet, Store, StoreError


async def test_put_get_overwrite_delete(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("accounts")
    assert await docs.get("accounts", "alice") is None

    await docs.put("accounts", "alice", {"name": "Alice", "level": 1})
    assert await docs.get("accounts", "alice") == {"name": "Alice", "level": 1}

    await docs.put("accounts", "alice", {"name": "Alice", "level": 2})
    assert await docs.get("accounts", "alice") == {"name": "Alice", "level": 2}
    assert await docs.count("accounts") == 1

    assert await docs.delete("accounts", "alice") is True
    assert await docs.get("accounts", "alice") is None
    assert await docs.delete("accounts", "alice") is False


async def test_collections_are_separate(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("a")
    await docs.ensure_collection("b")
    await docs.put("a", "k", {"from": "a"})
    await docs.put("b", "k", {"from": "b"})
    assert await docs.get("a", "k") == {"from": "a"}
    assert await docs.get("b", "k") == {"from": "b"}
    await docs.delete("a", "k")
    assert await docs.get("b", "k") == {"from": "b"}


async def test_ensure_collection_is_idempotent(store: Store, db_url: str) -> None:
    await store.documents.ensure_collection("help")
    await store.documents.put("help", "look", {"text": "Look around."})
    await store.documents.ensure_collection("help")
    assert await store.documents.get("help", "look") == {"text": "Look around."}

    # A second Store has an empty cache and must find (not recreate) the collection.
    other = Store(db_url)
    await other.open()
    try:
        await other.documents.ensure_collection("help")
        assert await other.documents.keys("help") == ["look"]
    finally:
        await other.close()


async def test_collection_created_by_another_store_is_found(store: Store, db_url: str) -> None:
    other = Store(db_url)
    await other.open()
    try:
        await other.documents.ensure_collection("late")
        await other.documents.put("late", "k", {"v": 1})
    finally:
        await other.close()
    assert await store.documents.get("late", "k") == {"v": 1}


async def test_unknown_collection_raises(store: Store) -> None:
    docs = store.documents
    with pytest.raises(CollectionNotFound, match="nope"):
        await docs.put("nope", "k", {})
    with pytest.raises(CollectionNotFound, match="nope"):
        await docs.put_many("nope", {"k": {}})
    with pytest.raises(CollectionNotFound):
        await docs.get("nope", "k")
    with pytest.raises(CollectionNotFound):
        await docs.query("nope")
    with pytest.raises(CollectionNotFound):
        await docs.count("nope")
    with pytest.raises(CollectionNotFound):
        await docs.keys("nope")
    with pytest.raises(CollectionNotFound):
        await docs.delete("nope", "k")
    assert issubclass(CollectionNotFound, StoreError)


async def test_bad_arguments_are_rejected_before_the_database(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("c")
    with pytest.raises(TypeError):
        await docs.put("c", "k", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="document key must be a non-empty string"):
        await docs.put("c", "", {})
    with pytest.raises(ValueError, match="collection name must be a non-empty string"):
        await docs.ensure_collection("")
    with pytest.raises(TypeError):
        await docs.query("c", {"tags": ["a"]})
    with pytest.raises(ValueError, match="limit must be >= 0"):
        await docs.query("c", limit=-1)
    with pytest.raises(ValueError, match="document field name"):
        await docs.query("c", {'we"ird': 1})
    # Values JSON cannot hold are the caller's mistake, refused alike on both
    # backends, and the store keeps working.
    with pytest.raises(ValueError, match="JSON"):
        await docs.put("c", "nan", {"x": float("nan")})
    with pytest.raises(TypeError, match="JSON serializable"):
        await docs.put("c", "obj", {"x": object()})
    assert await docs.keys("c") == []


async def _fill_people(store: Store) -> None:
    await store.documents.ensure_collection("people")
    await store.documents.put_many(
        "people",
        {
            "ann": {"name": "Ann", "age": 31, "admin": True, "room": "hall", "score": 2.5},
            "bob": {"name": "Bob", "age": 25, "admin": False, "room": None, "score": 10},
            "cid": {"name": "Cid", "age": 31, "admin": False, "room": "hall"},
            "dee": {"name": "Dee", "age": "31", "admin": 1, "room": "attic", "score": -1},
        },
    )


async def test_query_by_string(store: Store) -> None:
    await _fill_people(store)
    found = await store.documents.query("people", {"room": "hall"})
    assert [d["name"] for d in found] == ["Ann", "Cid"]
    assert await store.documents.query("people", {"room": "cellar"}) == []


async def test_query_by_int_matches_numbers_only(store: Store) -> None:
    await _fill_people(store)
    found = await store.documents.query("people", {"age": 31})
    # Dee's age is the string "31": not equal to the number 31.
    assert [d["name"] for d in found] == ["Ann", "Cid"]
    assert [d["name"] for d in await store.documents.query("people", {"age": "31"})] == ["Dee"]


async def test_query_by_float(store: Store) -> None:
    await _fill_people(store)
    assert [d["name"] for d in await store.documents.query("people", {"score": 2.5})] == ["Ann"]
    # 10 == 10.0, as in Python.
    assert [d["name"] for d in await store.documents.query("people", {"score": 10.0})] == ["Bob"]


async def test_query_by_bool_is_not_confused_with_numbers(store: Store) -> None:
    await _fill_people(store)
    admins = await store.documents.query("people", {"admin": True})
    assert [d["name"] for d in admins] == ["Ann"]
    others = await store.documents.query("people", {"admin": False})
    assert [d["name"] for d in others] == ["Bob", "Cid"]
    # Dee's admin is the number 1, which is not True.
    assert [d["name"] for d in await store.documents.query("people", {"admin": 1})] == ["Dee"]


async def test_query_by_none_matches_null_and_missing(store: Store) -> None:
    await _fill_people(store)
    found = await store.documents.query("people", {"room": None})
    assert [d["name"] for d in found] == ["Bob"]
    missing_score = await store.documents.query("people", {"score": None})
    assert [d["name"] for d in missing_score] == ["Cid"]


async def test_query_with_several_filters(store: Store) -> None:
    await _fill_people(store)
    found = await store.documents.query("people", {"room": "hall", "admin": False, "age": 31})
    assert [d["name"] for d in found] == ["Cid"]
    assert await store.documents.count("people", {"room": "hall", "age": 31}) == 2


async def test_large_integers_compare_exactly(store: Store) -> None:
    await store.documents.ensure_collection("big")
    big = 2**53 + 1  # not representable as a float
    await store.documents.put_many("big", {"a": {"n": big}, "b": {"n": big - 1}})
    assert await store.documents.query("big", {"n": big}) == [{"n": big}]
    assert await store.documents.get("big", "a") == {"n": big}


async def test_insertion_order_limit_and_order_by(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("scores")
    for name, points in [("z", 5), ("a", 50), ("m", 7), ("b", 50)]:
        await docs.put("scores", name, {"name": name, "points": points})
    await docs.put("scores", "nopoints", {"name": "nopoints"})
    # Overwriting keeps the original insertion position.
    await docs.put("scores", "z", {"name": "z", "points": 6})

    assert [d["name"] for d in await docs.query("scores")] == ["z", "a", "m", "b", "nopoints"]
    assert [d["name"] for d in await docs.query("scores", descending=True)] == [
        "nopoints", "b", "m", "a", "z",
    ]  # fmt: skip
    assert [d["name"] for d in await docs.query("scores", limit=2)] == ["z", "a"]
    assert await docs.query("scores", limit=0) == []

    # Numeric (not lexical) order; documents without the key last; ties by insertion.
    by_points = await docs.query("scores", order_by="points")
    assert [d["name"] for d in by_points] == ["z", "m", "a", "b", "nopoints"]
    top = await docs.query("scores", order_by="points", descending=True, limit=3)
    assert [d["name"] for d in top] == ["a", "b", "m"]
    by_name = await docs.query("scores", order_by="name", descending=True)
    assert [d["name"] for d in by_name] == ["z", "nopoints", "m", "b", "a"]


async def test_count_and_keys(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("rooms")
    assert await docs.count("rooms") == 0
    assert await docs.keys("rooms") == []
    await docs.put_many("rooms", {f"r{i}": {"n": i, "even": i % 2 == 0} for i in range(10)})
    await docs.put_many("rooms", {})
    assert await docs.count("rooms") == 10
    assert await docs.count("rooms", {"even": True}) == 5
    assert await docs.keys("rooms") == [f"r{i}" for i in range(10)]
    await docs.delete("rooms", "r3")
    assert await docs.count("rooms") == 9
    assert "r3" not in await docs.keys("rooms")


async def test_unicode_and_nested_data_roundtrip(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("lore")
    doc: dict[str, Any] = {
        "title": "Ærøskøbing — 東京 🐉",
        "nested": {"list": [1, 2.5, "three", None, True, {"deep": ["x"]}], "empty": {}},
        "escapes": 'quote " backslash \\ newline \n tab \t',
        "big": 2**62,
        "neg": -0.125,
        "ключ": "значение",
    }
    await docs.put("lore", "drache-🐉", doc)
    assert await docs.get("lore", "drache-🐉") == doc
    assert await docs.query("lore", {"title": "Ærøskøbing — 東京 🐉"}) == [doc]
    assert await docs.query("lore", {"ключ": "значение"}) == [doc]
    assert await docs.keys("lore") == ["drache-🐉"]


async def test_atomic_commits_documents_and_entities_together(store: Store) -> None:
    entity = uuid.uuid4()
    async with store.atomic() as tx:
        await tx.documents.ensure_collection("accounts")
        await tx.documents.put("accounts", "alice", {"entity": str(entity)})
        await tx.entities.save(EntityChangeSet(upserts={entity: {"Name": {"value": "Alice"}}}))
        # The transaction sees its own writes.
        assert await tx.documents.get("accounts", "alice") == {"entity": str(entity)}
    assert await store.documents.get("accounts", "alice") == {"entity": str(entity)}
    assert await store.entities.load(entity) == {"Name": {"value": "Alice"}}


async def test_atomic_rollback_leaves_nothing(store: Store) -> None:
    await store.documents.ensure_collection("kept")
    await store.documents.put("kept", "k", {"v": 1})
    entity = uuid.uuid4()

    class Boom(Exception):
        pass

    with pytest.raises(Boom):  # noqa: PT012 - raised inside the transaction, which must roll back
        async with store.atomic() as tx:
            await tx.documents.ensure_collection("ghosts")
            await tx.documents.put("ghosts", "g", {"boo": True})
            await tx.documents.put("kept", "k", {"v": 2})
            await tx.documents.put("kept", "new", {"v": 3})
            await tx.entities.save(EntityChangeSet(upserts={entity: {"Ghost": {}}}))
            raise Boom

    assert await store.documents.get("kept", "k") == {"v": 1}
    assert await store.documents.keys("kept") == ["k"]
    assert await store.entities.load(entity) is None
    assert await store.entities.load_all() == {}
    # The collection created in the rolled-back transaction does not exist either,
    # and the Store did not cache it as existing.
    with pytest.raises(CollectionNotFound):
        await store.documents.put("ghosts", "g", {})


async def test_concurrent_writers_do_not_fail(store: Store) -> None:
    await store.documents.ensure_collection("busy")

    async def writer(n: int) -> None:
        for i in range(5):
            async with store.atomic() as tx:
                # Read first, then write: the pattern that makes deferred SQLite
                # transactions fail with "database is locked".
                await tx.documents.count("busy")
                await tx.documents.put("busy", f"{n}-{i}", {"n": n, "i": i})

    await asyncio.gather(*(writer(n) for n in range(8)))
    assert await store.documents.count("busy") == 40


async def test_get_many_reads_the_documents_that_exist(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maid_engine.store import documents as documents_module

    await store.documents.ensure_collection("things")
    await store.documents.put_many("things", {f"k{i}": {"i": i} for i in range(7)})
    # Several queries when there are more keys than one query takes.
    monkeypatch.setattr(documents_module, "_MANY_CHUNK", 3)
    found = await store.documents.get_many("things", ["k6", "k0", "nope", "k3", "k0"])
    assert found == {"k6": {"i": 6}, "k0": {"i": 0}, "k3": {"i": 3}}
    assert await store.documents.get_many("things", []) == {}
    with pytest.raises(ValueError, match="document key"):
        await store.documents.get_many("things", [""])
    with pytest.raises(CollectionNotFound):
        await store.documents.get_many("missing", ["k0"])


async def test_a_document_encoded_already_is_written_as_it_is(store: Store) -> None:
    docs = store.documents
    await docs.ensure_collection("c")
    await docs.put_many("c", {"a": b'{"name": "Ann", "tags": ["x"]}', "b": {"name": "Bo"}})
    assert await docs.get("c", "a") == {"name": "Ann", "tags": ["x"]}
    assert await docs.get_many("c", ["a", "b"]) == {
        "a": {"name": "Ann", "tags": ["x"]},
        "b": {"name": "Bo"},
    }
    # Text that is not a JSON object is refused before anything is sent, as a
    # document that is not a dict is.
    with pytest.raises(TypeError, match="JSON text of an object"):
        await docs.put_many("c", {"d": {"fine": 1}, "e": b'["a", "list"]'})
    assert await docs.keys("c") == ["a", "b"]
    # Nor is text that is not JSON at all stored (the database refuses it): the
    # whole call fails, and the documents before it in the call are not written.
    with pytest.raises(StoreError):
        await docs.put_many("c", {"d": {"fine": 1}, "e": b'{"cut": "sho'})
    assert await docs.keys("c") == ["a", "b"]
    assert await docs.get("c", "a") == {"name": "Ann", "tags": ["x"]}


async def test_writing_many_documents_gives_the_loop_turns_while_it_encodes(
    tmp_path: Path,
) -> None:
    """A flush of hundreds of documents is encoded with the loop given its turns,
    not in one go before the first statement. On SQLite the connection is taken
    from the pool without a round trip, so every turn before it is encoding's
    (PostgreSQL pings the connection it takes: turns of its own, so not there)."""
    from sqlalchemy import event

    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'turns.db'}")
    await store.open()
    try:
        docs = store.documents
        await docs.ensure_collection("c")
        await docs.put("c", "warm", {})  # a connection in the pool
        checked_out = False

        def on_checkout(*_args: Any) -> None:
            nonlocal checked_out
            checked_out = True

        turns_before = 0

        async def watch() -> None:
            nonlocal turns_before
            while not checked_out:
                turns_before += 1
                await asyncio.sleep(0)

        pool = store.sql_engine.sync_engine.pool
        event.listen(pool, "checkout", on_checkout)
        try:
            watcher = asyncio.create_task(watch())
            await asyncio.sleep(0)
            turns_before = 0
            body = {"text": "x" * 2000, "numbers": list(range(200))}
            await docs.put_many("c", {f"k{i}": dict(body) for i in range(2000)})
            await watcher
        finally:
            event.remove(pool, "checkout", on_checkout)
        assert turns_before >= 2
        assert await docs.count("c") == 2001
    finally:
        await store.close()
