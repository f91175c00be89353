"""Counting what reaches the database, for tests and benchmarks.

A round trip here is one exchange between the game and the database driver:
a pooled connection handed out, the ping ``pool_pre_ping`` sends then (the
store pings PostgreSQL's connections, not SQLite's), a statement (``BEGIN``
included), a commit, a rollback or a connection reset when it goes back to the
pool. On SQLite every one of them is also a hand-over
between the event loop and aiosqlite's thread, which is what a login storm
pays for.
"""

from __future__ import annotations

from collections import Counter
from types import TracebackType
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

_CONNECTION_EVENTS = ("before_cursor_execute", "commit", "rollback")
_POOL_EVENTS = ("checkout", "reset")


class RoundTripCounter:
    """``with RoundTripCounter(store.sql_engine) as trips: ...`` then
    ``trips.total`` (and ``trips.kinds`` per kind, ``trips.statements`` the SQL)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine.sync_engine
        self.kinds: Counter[str] = Counter()
        self.statements: list[str] = []
        self._listeners: list[tuple[Any, str, Any]] = []
        self._ping: Any = None

    @property
    def total(self) -> int:
        return sum(self.kinds.values())

    def _listener(self, kind: str) -> Any:
        def count(*args: Any, **_kw: Any) -> None:
            self.kinds[kind] += 1
            if kind == "before_cursor_execute":
                self.statements.append(str(args[2]).split("\n", 1)[0][:120])

        return count

    def __enter__(self) -> RoundTripCounter:
        targets: list[tuple[Any, str]] = [(self._engine, k) for k in _CONNECTION_EVENTS]
        targets += [(self._engine.pool, k) for k in _POOL_EVENTS]
        for target, kind in targets:
            fn = self._listener(kind)
            event.listen(target, kind, fn)
            self._listeners.append((target, kind, fn))
        # The pre-ping goes to the driver's cursor directly, past every event:
        # counted by wrapping the dialect's do_ping for as long as this counts.
        dialect = self._engine.dialect
        ping = self._ping = dialect.do_ping

        def do_ping(dbapi_connection: Any) -> bool:
            self.kinds["ping"] += 1
            return bool(ping(dbapi_connection))

        dialect.do_ping = do_ping  # type: ignore[method-assign]
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for target, kind, fn in self._listeners:
            event.remove(target, kind, fn)
        self._listeners.clear()
        if self._ping is not None:
            # The instance's own attribute goes; the class's method shows again.
            del self._engine.dialect.do_ping
            self._ping = None
