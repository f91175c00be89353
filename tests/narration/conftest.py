"""Fixtures of the narration tests (this file also puts narrkit.py on the import path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from narration.narrkit import make_engine, write_pack

from maid_engine.engine import GameEngine


@pytest.fixture
def pack_root(tmp_path: Path) -> Path:
    return write_pack(tmp_path / "testpack")


@pytest.fixture
async def engine(pack_root: Path, tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started engine with the test world, storing on a SQLite file."""
    async with make_engine(pack_root, tmp_path / "data").lifespan() as started:
        yield started
