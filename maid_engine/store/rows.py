"""Statements run for many rows through the driver's own SQL.

Through SQLAlchemy's ``execute`` each row's dict becomes the driver's parameters on
the event loop (about 3 ms per 1,000 rows at a normal machine speed, in one go per
statement), and a statement built anew for every call costs its construction and
cache key too. The rows' writers here compile their statement once per dialect and
hand the driver plain tuples (``exec_driver_sql``): aiosqlite binds them in its
thread, asyncpg in its C code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection

from maid_engine.store.errors import StoreError

# Rows per statement: a statement's rows are made on the event loop, and between two
# statements the loop serves everything else. A thousand at once held it for 1-1.5
# ms at a normal machine speed (a busy evening's checkpoint writes several thousand);
# a quarter of that is about what one command's own work takes, for a few more
# statements (each a hand-over to the driver of a tenth of a millisecond or so).
ROW_CHUNK = 250

_T = TypeVar("_T")


def json_text(dialect: str, name: str = "b_data") -> Any:
    """A parameter bound to JSON already encoded as text, so the driver's JSON type
    does not encode it again on the loop; PostgreSQL's column is JSONB."""
    data: Any = sa.bindparam(name, type_=sa.Text())
    return sa.cast(data, JSONB) if dialect == "postgresql" else data


def chunks(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    """``items`` in lists of ``size`` (the last one shorter), taken as they come."""
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


class RowStatement:
    """A statement run for many rows, handed to the driver as its own SQL with the
    rows as tuples. Both drivers the store uses take positional parameters, in the
    order ``params`` names them; ``build`` makes the statement for a dialect name.
    """

    def __init__(self, build: Callable[[str], Any], params: tuple[str, ...]) -> None:
        self._build = build
        self._params = params
        self._sql: dict[tuple[str, str], str] = {}

    def sql(self, dialect: Dialect) -> str:
        key = (dialect.name, dialect.paramstyle)
        cached = self._sql.get(key)
        if cached is None:
            compiled = self._build(dialect.name).compile(dialect=dialect)
            order = tuple(compiled.positiontup or ())
            if order != self._params:
                raise StoreError(
                    f"the {dialect.name} driver binds {order or dialect.paramstyle!r}, "
                    f"not the positional {self._params!r} this statement's rows are made for"
                )
            cached = self._sql[key] = str(compiled)
        return cached

    async def run(self, conn: AsyncConnection, rows: Iterable[tuple[str, ...]]) -> None:
        sql = self.sql(conn.dialect)
        for chunk in chunks(rows, ROW_CHUNK):
            await conn.exec_driver_sql(sql, chunk)
