"""Fixtures of the RPG rules tests (helpers live in rpgkit.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rpg.rpgkit import make_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started engine on the small test world, no store, seed 1."""
    async with make_engine(tmp_path).lifespan() as started:
        yield started
