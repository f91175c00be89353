"""The Store: one database (SQLite or PostgreSQL) behind documents and entities."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from maid_engine.background import run_in_background
from maid_engine.jsontext import dump_json
from maid_engine.store.connection import (
    WRITE_OPTION,
    EngineConnections,
    TransactionConnection,
    write_transaction,
)
from maid_engine.store.documents import DocumentStore
from maid_engine.store.entities import EntityStore
from maid_engine.store.errors import StoreError, translate, translated_errors
from maid_engine.store.migrations import upgrade_to_head

# The async driver used for each backend when the URL names none.
_DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}

# Seconds to wait for a PostgreSQL connection before calling the database unavailable.
_CONNECT_TIMEOUT = 10.0
# Seconds ping() waits for an answer.
_PING_TIMEOUT = 5.0
# Milliseconds SQLite waits for another writer's lock before giving up.
_SQLITE_BUSY_TIMEOUT_MS = 10_000
# Arbitrary constant identifying the store's migration lock among advisory locks.
_MIGRATION_LOCK_ID = 0x4D414944


def _parse_url(url: str) -> URL:
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(f"invalid database URL {url!r}: {exc}") from exc
    backend = parsed.get_backend_name()
    if backend not in _DRIVERS:
        raise StoreError(f"unsupported database backend {backend!r} (use sqlite or postgresql)")
    if parsed.drivername == backend:
        parsed = parsed.set(drivername=f"{backend}+{_DRIVERS[backend]}")
    elif parsed.get_driver_name() != _DRIVERS[backend]:
        raise StoreError(
            f"database URL must use the async driver {backend}+{_DRIVERS[backend]}, "
            f"not {parsed.drivername}"
        )
    return parsed


def _sqlite_file(url: URL) -> Path | None:
    """The database file of a SQLite URL, None for in-memory databases."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _driver_thread_in_background(dbapi_connection: Any) -> None:
    """aiosqlite runs each connection's statements in a thread of its own, which
    writes a checkpoint's rows for tens of milliseconds beside the event loop: on
    a server of one or two CPUs that thread at the loop's priority held the CPU
    for scheduler slices of a few milliseconds while the players' commands
    waited. It runs below the loop (:mod:`maid_engine.background`). A driver
    connection without a thread is left as it is."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    thread = getattr(driver, "_thread", driver)
    native = getattr(thread, "native_id", None)
    if isinstance(native, int):
        run_in_background(native)


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        _driver_thread_in_background(dbapi_connection)
        # Stop the sqlite3 module from issuing its own BEGIN, so that _on_begin
        # decides how transactions start (and DDL is transactional too).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            # WAL lets readers proceed while a checkpoint is being written.
            cursor.execute("PRAGMA journal_mode=WAL")
            # Off by default in SQLite; the components -> entities cascade needs it.
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_TIMEOUT_MS}")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Writers take the write lock up front; a deferred transaction that reads
        # and then writes fails at once (busy_timeout does not help) if another
        # connection wrote in between.
        immediate = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _create_engine(url: URL) -> AsyncEngine:
    # pool_pre_ping: after an outage, pooled connections to a database server are
    # dead; test each one on checkout so the same Store recovers once it is back.
    # A SQLite file has no server to lose: its ping would only be four more
    # hand-overs to the driver's thread (each some 0.1 ms of the event loop's time)
    # at every checkout, and a failing statement fails the same without it.
    if url.get_backend_name() == "sqlite":
        engine = create_async_engine(
            url, pool_pre_ping=False, json_serializer=dump_json, json_deserializer=json.loads
        )
        _configure_sqlite(engine)
        return engine
    return create_async_engine(
        url,
        pool_pre_ping=True,
        json_serializer=dump_json,
        json_deserializer=json.loads,
        connect_args={"timeout": _CONNECT_TIMEOUT},
    )


def _migrate(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        # Two servers opening one fresh database at once must not both create tables.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK_ID})
    upgrade_to_head(connection)


@dataclass(frozen=True)
class Transaction:
    """The document and entity stores of one ``store.atomic()`` block."""

    documents: DocumentStore
    entities: EntityStore


class Store:
    """Persistent storage of MAID: JSON documents and ECS entities.

    ``Store(url)`` does no I/O; ``await store.open()`` connects and migrates the
    schema to the newest version. URLs: ``sqlite+aiosqlite:///path/file.db`` or
    ``postgresql+asyncpg://user@host:port/db`` (a URL without a driver gets the
    async one).
    """

    def __init__(self, url: str) -> None:
        self._url = _parse_url(url)
        self._engine: AsyncEngine | None = None
        self._open_lock = asyncio.Lock()
        self._known_collections: set[str] = set()
        connections = EngineConnections(self._require_engine)
        self.documents = DocumentStore(connections, self._known_collections)
        self.entities = EntityStore(connections)

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return self._url.render_as_string(hide_password=True)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._url.get_backend_name()

    @property
    def is_open(self) -> bool:
        return self._engine is not None

    @property
    def sql_engine(self) -> AsyncEngine:
        """The open SQLAlchemy engine, for instrumentation only (tests and
        benchmarks attach event listeners to count what reaches the database);
        reads and writes go through ``documents``, ``entities`` and ``atomic``."""
        return self._require_engine()

    async def open(self) -> None:
        """Connect and upgrade the schema to head; does nothing if already open.

        Raises StoreUnavailable if the database cannot be reached; open() may then
        simply be called again later.
        """
        async with self._open_lock:
            if self._engine is not None:
                return
            path = _sqlite_file(self._url)
            if path is not None:
                await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
            engine = _create_engine(self._url)
            try:
                async with translated_errors(), write_transaction(engine) as conn:
                    await conn.run_sync(_migrate)
            except BaseException:
                await engine.dispose()
                raise
            self._engine = engine

    async def close(self) -> None:
        """Close every pooled connection. The Store can be opened again."""
        async with self._open_lock:
            engine, self._engine = self._engine, None
            if engine is not None:
                await engine.dispose()

    @asynccontextmanager
    async def atomic(self) -> AsyncIterator[Transaction]:
        """One transaction for several document and entity writes.

        ``async with store.atomic() as tx:`` then use ``tx.documents`` and
        ``tx.entities``; everything commits when the block ends, or nothing if it
        raises.
        """
        engine = self._require_engine()
        created: set[str] = set()
        async with translated_errors(), write_transaction(engine) as conn:
            connections = TransactionConnection(conn)
            yield Transaction(
                documents=DocumentStore(connections, self._known_collections, created),
                entities=EntityStore(connections),
            )
        # Only reached once the commit succeeded.
        self._known_collections.update(created)

    async def ping(self) -> bool:
        """True if the database answers (within a few seconds); never raises for an outage."""
        engine = self._engine
        if engine is None:
            return False
        try:
            async with asyncio.timeout(_PING_TIMEOUT), engine.connect() as conn:
                await conn.execute(sa.select(1))
        except Exception as exc:
            if not isinstance(translate(exc), StoreError):
                raise
            return False
        return True

    def _require_engine(self) -> AsyncEngine:
        if self._engine is None:
            raise StoreError("the store is not open (call `await store.open()` first)")
        return self._engine

    def __repr__(self) -> str:
        state = "open" if self._engine is not None else "closed"
        return f"<Store {self.url} {state}>"
