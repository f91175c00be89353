"""Alembic migrations of the store schema, run by ``Store.open()``.

There is no alembic.ini: the configuration is built here so the migrations travel
with the package. For the alembic CLI (e.g. ``alembic revision --autogenerate``),
use ``alembic_config(url=...)`` from Python, or point ``-c`` at an ini of your own
with ``script_location = maid_engine.store:migrations``.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

MIGRATIONS_DIR = Path(__file__).resolve().parent


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """An Alembic Config for these migrations.

    With ``connection``, env.py migrates on it (inside the caller's transaction);
    otherwise it connects to ``url`` itself.
    """
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("path_separator", "os")
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str | None:
    """The newest revision the code knows about."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at (None before the first migration)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade_to_head(connection: Connection) -> None:
    """Migrate the database behind ``connection`` to head (a sync call: run_sync it)."""
    command.upgrade(alembic_config(connection), "head")
