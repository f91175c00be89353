"""Schema migrations run by Store.open()."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Connection

from maid_engine.store import Store
from maid_engine.store.migrations import current_revision, head_revision
from maid_engine.store.schema import metadata

EXPECTED_TABLES = {"alembic_version", "collections", "documents", "entities", "components"}


@dataclass
class SchemaState:
    tables: set[str]
    revision: str | None
    components_fks: list[Any]
    documents_uniques: list[Any]
    diff: list[Any]


def _inspect(conn: Connection) -> SchemaState:
    inspector = sa.inspect(conn)
    return SchemaState(
        tables=set(inspector.get_table_names()),
        revision=current_revision(conn),
        components_fks=list(inspector.get_foreign_keys("components")),
        documents_uniques=list(inspector.get_unique_constraints("documents")),
        diff=compare_metadata(MigrationContext.configure(conn), metadata),
    )


async def _describe(store: Store) -> SchemaState:
    # The Store's own engine: on SQLite its connections carry the store's pragmas.
    async with store._require_engine().connect() as conn:
        return await conn.run_sync(_inspect)


async def test_tables_exist_at_head(store: Store) -> None:
    state = await _describe(store)
    assert state.tables >= EXPECTED_TABLES
    assert state.revision == head_revision() == "0001"
    [fk] = state.components_fks
    assert fk["referred_table"] == "entities"
    assert fk["options"].get("ondelete", "").upper() == "CASCADE"
    assert [u["column_names"] for u in state.documents_uniques] == [["collection", "key"]]


async def test_schema_module_matches_the_migrations(store: Store) -> None:
    # schema.py (used by the queries) and the migrations must not drift apart.
    assert (await _describe(store)).diff == []


async def test_open_is_idempotent(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    await store.open()  # same object: no-op
    try:
        await store.documents.ensure_collection("c")
        await store.documents.put("c", "k", {"v": 1})
    finally:
        await store.close()

    # A new Store on an up-to-date database: the upgrade runs and changes nothing.
    again = Store(db_url)
    await again.open()
    try:
        assert (await _describe(again)).revision == "0001"
        assert await again.documents.get("c", "k") == {"v": 1}
    finally:
        await again.close()


async def test_sqlite_parent_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "maid.db"
    store = Store(f"sqlite+aiosqlite:///{path}")
    await store.open()
    try:
        assert await store.ping()
    finally:
        await store.close()
    assert path.exists()


def test_url_without_driver_gets_the_async_one(tmp_path: Path) -> None:
    assert Store(f"sqlite:///{tmp_path / 'x.db'}").url.startswith("sqlite+aiosqlite:")
    assert Store("postgresql://u@h/db").url.startswith("postgresql+asyncpg:")
