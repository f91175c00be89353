"""Store exceptions, and the translation of driver errors into them.

Callers (the checkpoint loop above all) must be able to tell "the database is away,
try again later" from "this call is wrong", without knowing which driver is in use.
Everything the store raises is a :class:`StoreError`; outages are
:class:`StoreUnavailable`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import asyncpg
from sqlalchemy import exc as sa_exc


class StoreError(Exception):
    """Base class of every error raised by the store."""


class StoreUnavailable(StoreError):
    """The database cannot be reached, or the connection dropped.

    The operation did not take effect (its transaction was rolled back); the same
    Store object can simply be used again once the database is back.
    """


def unsupported_backend(dialect: str) -> StoreError:
    """The error for a database MAID has no SQL for (only the two URLs it documents)."""
    return StoreError(
        f"unsupported database backend {dialect!r}: use sqlite+aiosqlite:// or "
        "postgresql+asyncpg://"
    )


class CollectionNotFound(StoreError):
    """A document collection was used before ``ensure_collection`` created it."""

    def __init__(self, name: str) -> None:
        super().__init__(f"document collection {name!r} does not exist (call ensure_collection)")
        self.name = name


# SQLSTATE classes that mean "the server or the link is the problem, not the query":
# 08 connection exception, 53 insufficient resources (too many connections, disk
# full), 57P operator intervention (shutdown, crash recovery, cannot connect now).
_UNAVAILABLE_SQLSTATES = ("08", "53", "57P")

# sqlite3.OperationalError is also raised for plain mistakes ("no such table"), which
# retrying will never fix, so only these messages count as an outage.
_SQLITE_UNAVAILABLE_MESSAGES = (
    "database is locked",
    "database table is locked",
    "unable to open database file",
    "disk i/o error",
    "database or disk is full",
    "attempt to write a readonly database",
)

# Longest exception message we build; the full error stays available as __cause__.
_MAX_MESSAGE = 500

_UNAVAILABLE_TYPES: tuple[type[BaseException], ...] = (
    OSError,  # includes ConnectionError and TimeoutError (asyncio.TimeoutError on 3.11)
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.CannotConnectNowError,
    sa_exc.TimeoutError,  # connection pool exhausted/timed out
    sa_exc.DisconnectionError,
    # The DBAPI's InterfaceError is about the link to the database, not the query.
    # (OperationalError is not listed: SQLite also uses it for "no such table";
    # its outage cases are matched by message below.)
    sa_exc.InterfaceError,
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, its wrapped DBAPI error and everything it was raised from."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        orig = getattr(current, "orig", None)
        for nxt in (orig, current.__cause__, current.__context__):
            if isinstance(nxt, BaseException):
                todo.append(nxt)


def _single_is_unavailable(exc: BaseException) -> bool:
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, _UNAVAILABLE_TYPES):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        message = str(exc).lower()
        return any(text in message for text in _SQLITE_UNAVAILABLE_MESSAGES)
    if isinstance(exc, asyncpg.InterfaceError) and "connection is closed" in str(exc):
        return True
    sqlstate = getattr(exc, "sqlstate", None)
    return isinstance(sqlstate, str) and sqlstate.startswith(_UNAVAILABLE_SQLSTATES)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or anything it wraps) means the database is unreachable."""
    return any(_single_is_unavailable(item) for item in _chain(exc))


def _describe(exc: BaseException) -> str:
    """A short message: the driver's own text, without SQLAlchemy's SQL and parameters."""
    orig = getattr(exc, "orig", None)
    text = str(orig) if isinstance(orig, BaseException) and str(orig) else str(exc)
    text = text or type(exc).__name__
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def translate(exc: Exception) -> Exception | None:
    """The exception to raise instead of ``exc``, or None to let it through as is.

    Store errors pass unchanged (None); outages become StoreUnavailable and other
    database failures StoreError. A value SQLAlchemy could not bind (a document
    that is not JSON-serialisable, NaN) never reached the database: it comes back
    as a plain TypeError/ValueError, the caller's mistake rather than the store's.
    """
    if isinstance(exc, StoreError):
        return None
    if (
        isinstance(exc, sa_exc.StatementError)
        and not isinstance(exc, sa_exc.DBAPIError)
        and isinstance(exc.orig, TypeError | ValueError)
    ):
        kind = TypeError if isinstance(exc.orig, TypeError) else ValueError
        return kind(f"cannot store value: {exc.orig}")
    if is_unavailable(exc):
        return StoreUnavailable(f"database unavailable: {_describe(exc)}")
    if isinstance(exc, sa_exc.SQLAlchemyError | asyncpg.PostgresError | sqlite3.Error):
        return StoreError(f"database error: {_describe(exc)}")
    return None


@asynccontextmanager
async def translated_errors() -> AsyncIterator[None]:
    """Re-raise database errors inside the block as StoreError/StoreUnavailable."""
    try:
        yield
    except Exception as exc:
        replacement = translate(exc)
        if replacement is None:
            raise
        raise replacement from exc
