"""Alembic environment: migrates on a connection handed over by the Store.

Store.open() runs the upgrade on its own async engine through ``run_sync`` and
passes the sync connection in ``config.attributes["connection"]``; calling
asyncio.run here would fail inside the server's running loop. Without a
connection (alembic CLI), an engine is created from ``sqlalchemy.url``.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from maid_engine.store.schema import metadata

config = context.config


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds tables instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _migrate_url(url: str) -> None:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_migrate)
    finally:
        await engine.dispose()


def _run_offline() -> None:
    url = config.get_main_option("sqlalchemy.url")
    context.configure(
        url=url,
        target_metadata=metadata,
        literal_binds=True,
        render_as_batch=bool(url and url.startswith("sqlite")),
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _migrate(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no connection in config.attributes and no sqlalchemy.url set")
    asyncio.run(_migrate_url(url))


if context.is_offline_mode():
    _run_offline()
else:
    _run_online()
