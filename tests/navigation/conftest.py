"""Fixtures of the navigation tests: Hamlet, the neutral test world."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import hamlet_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet on the stdlib, no store, a ManualClock at 08:00 of the first day."""
    async with hamlet_engine(tmp_path, tick=None, seed=None).lifespan() as started:
        yield started


@pytest.fixture
async def rpg_engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet under the RPG rules (its wolves fight)."""
    async with hamlet_engine(tmp_path, rpg=True, tick=None, seed=None).lifespan() as started:
        yield started
