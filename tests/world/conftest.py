"""Fixtures of the world tests (this file also puts worldkit.py on the import path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from world.worldkit import make_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started engine on Hamlet (the neutral test world) and no store."""
    async with make_engine(tmp_path).lifespan() as started:
        yield started
