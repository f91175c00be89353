"""Where document and entity operations get their database connection from.

The same DocumentStore/EntityStore code serves two situations: used directly
(``store.documents.put``), each call is its own transaction; used through
``store.atomic()``, every call shares the one transaction of the block. A
ConnectionSource hides the difference.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from maid_engine.store.errors import translated_errors

# Execution option read by the SQLite "begin" listener (see database.py): write
# transactions start with BEGIN IMMEDIATE so they never need to upgrade a read lock,
# which SQLite refuses with "database is locked" when another writer got in first.
WRITE_OPTION = "maid_write"


class ConnectionSource(Protocol):
    def reading(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A connection for reads only."""
        ...

    def writing(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A connection in a write transaction, committed when the block succeeds."""
        ...


@asynccontextmanager
async def write_transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A new connection inside a write transaction (commit on success)."""
    async with engine.connect() as conn:
        await conn.execution_options(**{WRITE_OPTION: True})
        async with conn.begin():
            yield conn


class EngineConnections:
    """Each operation gets its own pooled connection and transaction."""

    def __init__(self, engine: Callable[[], AsyncEngine]) -> None:
        # A callable, not an engine: the Store creates its engine in open() and may
        # replace it after close()/open().
        self._engine = engine

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        async with translated_errors(), self._engine().connect() as conn:
            yield conn

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        async with translated_errors(), write_transaction(self._engine()) as conn:
            yield conn


class TransactionConnection:
    """Every operation runs on the one connection of a ``store.atomic()`` block."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        async with translated_errors():
            yield self._conn

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        async with translated_errors():
            yield self._conn
