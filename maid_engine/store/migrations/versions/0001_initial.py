"""Initial schema: document collections, documents, entities and components.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported from schema.py: a migration must keep creating
# the same tables when the application's table definitions move on.
_JSON = sa.JSON().with_variant(JSONB(), "postgresql")
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "collections",
        sa.Column("name", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_collections"),
    )
    op.create_table(
        "documents",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("collection", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("data", _JSON, nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.current_timestamp(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_documents"),
        sa.UniqueConstraint("collection", "key", name="uq_documents_collection_key"),
    )
    op.create_table(
        "entities",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.current_timestamp(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_entities"),
    )
    op.create_table(
        "components",
        sa.Column("entity_id", sa.String(36), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("data", _JSON, nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.ForeignKeyConstraint(
            ["entity_id"],
            ["entities.id"],
            name="fk_components_entity_id_entities",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("entity_id", "type", name="pk_components"),
    )


def downgrade() -> None:
    op.drop_table("components")
    op.drop_table("entities")
    op.drop_table("documents")
    op.drop_table("collections")
