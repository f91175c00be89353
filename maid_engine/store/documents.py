"""Keyed JSON documents grouped in named collections (accounts, help pages, ...)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from maid_engine.jsontext import dump_json
from maid_engine.store import filters
from maid_engine.store.connection import ConnectionSource
from maid_engine.store.errors import CollectionNotFound
from maid_engine.store.rows import RowStatement, json_text
from maid_engine.store.schema import collections, documents, upsert_statement
from maid_engine.turns import in_turns

#: A document: JSON-ready objects, or its JSON text encoded already (UTF-8 bytes).
Document: TypeAlias = dict[str, Any] | bytes

# Keys per query of get_many: far below every backend's limit on bound parameters.
_MANY_CHUNK = 500


def _document_upsert(dialect: str) -> Any:
    """Insert or replace a document whose data is bound as JSON text."""
    data = json_text(dialect)
    if dialect == "sqlite":
        # PostgreSQL's JSONB refuses text that is not JSON; SQLite's json() does too
        # (in the driver's thread, off the loop) and stores what it takes as plain
        # JSON, so a document handed over encoded is never stored broken on either.
        data = sa.func.json(data)
    insert = upsert_statement(dialect, documents).values(
        collection=sa.bindparam("b_collection"), key=sa.bindparam("b_key"), data=data
    )
    return insert.on_conflict_do_update(
        index_elements=[documents.c.collection, documents.c.key],
        set_={
            "data": insert.excluded.data,
            # Literals: a bound 1 would be one more parameter in every row.
            "version": documents.c.version + sa.literal_column("1"),
            "updated_at": sa.func.current_timestamp(),
        },
    )


_DOCUMENT_UPSERT = RowStatement(_document_upsert, ("b_collection", "b_key", "b_data"))

# Built once: a statement made for every call costs its construction and its
# cache key on the event loop each time (several hundred microseconds).
_SELECT_MANY = sa.select(documents.c.key, documents.c.data).where(
    documents.c.collection == sa.bindparam("b_collection"),
    documents.c.key.in_(sa.bindparam("b_keys", expanding=True)),
)


def _check_name(what: str, value: object) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} must be a non-empty string, not {value!r}")


def _check_document(key: str, doc: object) -> None:
    if isinstance(doc, bytes):
        # Encoded already: a JSON object is all it can be (read back, it is a dict).
        if not doc.lstrip().startswith(b"{"):
            raise TypeError(f"document {key!r} must be the JSON text of an object")
    elif not isinstance(doc, dict):
        raise TypeError(f"document {key!r} must be a dict, not {type(doc).__name__}")


class DocumentStore:
    """JSON documents addressed by (collection, key).

    Every method is its own transaction, unless this object came from
    ``store.atomic()``, in which case all calls share the block's transaction.
    Database failures raise StoreUnavailable (or StoreError); bad arguments raise
    TypeError/ValueError before anything is sent.
    """

    def __init__(
        self,
        connections: ConnectionSource,
        known_collections: set[str],
        pending_collections: set[str] | None = None,
    ) -> None:
        self._connections = connections
        # Collections known to exist in committed data, shared by every
        # DocumentStore of one Store so each is looked up at most once.
        self._known = known_collections
        # Inside atomic(): collections created or seen by this transaction; the
        # Store merges them into _known only once the transaction commits.
        self._pending = pending_collections

    async def ensure_collection(self, name: str) -> None:
        """Create collection ``name`` unless it exists already."""
        _check_name("collection name", name)
        if name in self._known:
            return
        async with self._connections.writing() as conn:
            stmt = upsert_statement(conn.dialect.name, collections).on_conflict_do_nothing(
                index_elements=[collections.c.name]
            )
            await conn.execute(stmt, {"name": name})
        self._remember(name)

    async def put(self, collection: str, key: str, doc: Document) -> None:
        """Insert or replace one document."""
        await self.put_many(collection, {key: doc})

    async def put_many(self, collection: str, items: Mapping[str, Document]) -> None:
        """Insert or replace several documents in one statement batch.

        A document is a dict, or its JSON text already encoded (UTF-8 ``bytes`` of
        a JSON object, parsed by the database alone). Dicts are encoded here, with
        the event loop given its turns between documents (a memory flush or a seed
        queue is hundreds of them). Raises ``ValueError`` (NaN, infinity) or
        ``TypeError`` (not JSON, not a dict, bytes not of an object) for a document
        that cannot be stored, before anything is sent; ``StoreError`` when the
        database finds encoded text is not JSON (then nothing of the call is
        written).
        """
        _check_name("collection name", collection)
        for key, doc in items.items():
            _check_name("document key", key)
            _check_document(key, doc)
        rows: list[tuple[str, str, str]] = []
        async for key, doc in in_turns(list(items.items())):
            rows.append(
                (collection, key, doc.decode() if isinstance(doc, bytes) else dump_json(doc))
            )
        async with self._connections.writing() as conn:
            await self._require(conn, collection)
            if rows:
                await _DOCUMENT_UPSERT.run(conn, rows)

    async def get(self, collection: str, key: str) -> dict[str, Any] | None:
        """The document, or None if there is none under ``key``."""
        _check_name("collection name", collection)
        async with self._connections.reading() as conn:
            await self._require(conn, collection)
            data = await conn.scalar(
                sa.select(documents.c.data).where(
                    documents.c.collection == collection, documents.c.key == key
                )
            )
        return data if isinstance(data, dict) else None

    async def get_many(self, collection: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The documents under ``keys`` that exist, by key, in one query (per
        ``_MANY_CHUNK`` keys)."""
        _check_name("collection name", collection)
        wanted = list(dict.fromkeys(keys))
        for key in wanted:
            _check_name("document key", key)
        found: dict[str, dict[str, Any]] = {}
        if not wanted:
            return found
        async with self._connections.reading() as conn:
            await self._require(conn, collection)
            for start in range(0, len(wanted), _MANY_CHUNK):
                result = await conn.execute(
                    _SELECT_MANY,
                    {"b_collection": collection, "b_keys": wanted[start : start + _MANY_CHUNK]},
                )
                found.update((key, data) for key, data in result if isinstance(data, dict))
        return found

    async def delete(self, collection: str, key: str) -> bool:
        """Delete one document; False if it did not exist."""
        _check_name("collection name", collection)
        async with self._connections.writing() as conn:
            await self._require(conn, collection)
            result = await conn.execute(
                sa.delete(documents).where(
                    documents.c.collection == collection, documents.c.key == key
                )
            )
        return result.rowcount > 0

    async def query(
        self,
        collection: str,
        where: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        order_by: str | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]:
        """Documents whose top-level fields equal every value in ``where``.

        Values may be str, int, float, bool or None (None: null or absent). Results
        come in insertion order, or sorted by the top-level field ``order_by``
        (documents without it last, ties in insertion order); ``descending``
        reverses either order.
        """
        _check_name("collection name", collection)
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, not {limit}")
        async with self._connections.reading() as conn:
            await self._require(conn, collection)
            dialect = conn.dialect.name
            stmt = sa.select(documents.c.data).where(
                documents.c.collection == collection,
                *self._conditions(where, dialect),
            )
            if order_by is None:
                stmt = stmt.order_by(documents.c.id.desc() if descending else documents.c.id)
            else:
                sort = filters.sort_key(documents.c.data, order_by, dialect)
                direction = sort.desc() if descending else sort.asc()
                stmt = stmt.order_by(direction.nulls_last(), documents.c.id)
            if limit is not None:
                stmt = stmt.limit(limit)
            result = await conn.execute(stmt)
            return [row[0] for row in result]

    async def count(self, collection: str, where: Mapping[str, Any] | None = None) -> int:
        """How many documents ``query(collection, where)`` would return."""
        _check_name("collection name", collection)
        async with self._connections.reading() as conn:
            await self._require(conn, collection)
            stmt = (
                sa.select(sa.func.count())
                .select_from(documents)
                .where(
                    documents.c.collection == collection,
                    *self._conditions(where, conn.dialect.name),
                )
            )
            total = await conn.scalar(stmt)
        return int(total or 0)

    async def keys(self, collection: str) -> list[str]:
        """Every key of the collection, in insertion order."""
        _check_name("collection name", collection)
        async with self._connections.reading() as conn:
            await self._require(conn, collection)
            result = await conn.execute(
                sa.select(documents.c.key)
                .where(documents.c.collection == collection)
                .order_by(documents.c.id)
            )
            return [row[0] for row in result]

    @staticmethod
    def _conditions(where: Mapping[str, Any] | None, dialect: str) -> list[Any]:
        if not where:
            return []
        return [filters.equals(documents.c.data, k, v, dialect) for k, v in where.items()]

    def _remember(self, name: str) -> None:
        if self._pending is None:
            self._known.add(name)
        else:
            self._pending.add(name)

    async def _require(self, conn: AsyncConnection, name: str) -> None:
        """Raise CollectionNotFound unless ``name`` exists (as seen by ``conn``)."""
        if name in self._known or (self._pending is not None and name in self._pending):
            return
        found = await conn.scalar(sa.select(collections.c.name).where(collections.c.name == name))
        if found is None:
            raise CollectionNotFound(name)
        self._remember(name)
