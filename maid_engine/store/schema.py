"""Table definitions used by the queries (the migrations create the same tables).

Alembic migrations are the source of truth for the database layout; this metadata
must describe the state at head, which tests/store/test_migrations.py checks with
Alembic's autogenerate comparison.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import JSONB

from maid_engine.store.errors import unsupported_backend

# Same JSON on both backends, but JSONB on PostgreSQL so documents can be indexed
# and compared server-side.
JSON_DATA = sa.JSON().with_variant(JSONB(), "postgresql")

# SQLite only autoincrements a column declared exactly INTEGER PRIMARY KEY (the
# rowid alias); PostgreSQL gets a 64-bit identity.
SURROGATE_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# Explicit constraint names keep later batch migrations on SQLite workable.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)

collections = sa.Table(
    "collections",
    metadata,
    sa.Column("name", sa.String(), primary_key=True),
)

# `id` only records insertion order (the default order of query results);
# documents are addressed by (collection, key).
documents = sa.Table(
    "documents",
    metadata,
    sa.Column("id", SURROGATE_ID, primary_key=True, autoincrement=True),
    sa.Column("collection", sa.String(), nullable=False),
    sa.Column("key", sa.String(), nullable=False),
    sa.Column("data", JSON_DATA, nullable=False),
    sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("1")),
    sa.Column(
        "updated_at",
        sa.DateTime(timezone=True),
        nullable=False,
        server_default=sa.func.current_timestamp(),
    ),
    sa.UniqueConstraint("collection", "key"),
)

entities = sa.Table(
    "entities",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column(
        "created_at",
        sa.DateTime(timezone=True),
        nullable=False,
        server_default=sa.func.current_timestamp(),
    ),
)

components = sa.Table(
    "components",
    metadata,
    sa.Column(
        "entity_id",
        sa.String(36),
        sa.ForeignKey("entities.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("type", sa.String(), primary_key=True),
    sa.Column("data", JSON_DATA, nullable=False),
    sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("1")),
)


def upsert_statement(dialect_name: str, table: sa.Table) -> Any:
    """``INSERT`` supporting ``on_conflict_do_*`` for the given backend.

    Both dialect Insert classes share the same on_conflict API, but not a common
    typed base, hence ``Any``.
    """
    if dialect_name == "postgresql":
        return postgresql.insert(table)
    if dialect_name == "sqlite":
        return sqlite.insert(table)
    raise unsupported_backend(dialect_name)
