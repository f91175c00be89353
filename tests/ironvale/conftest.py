"""Fixtures of the tests of Ironvale (this file also puts ironkit.py on the path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ironvale.ironkit import ironvale_engine
from narration.narrkit import NarrationPack

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine


@pytest.fixture
async def ironvale(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale with the living world, story signals and quest generation, after
    five game hours: Gundrik's iron goal is blocked by then."""
    async with ironvale_engine(tmp_path).lifespan() as engine:
        await engine.run_ticks(5 * 60)
        yield engine


@pytest.fixture
async def narrated_ironvale(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale with the narration test pack (a scripted storyteller for the cellar
    beneath the bandit camp), at the start of its first day."""
    engine = GameEngine(
        Settings(data_dir=tmp_path),
        clock=ManualClock(),
        packs=["ironvale", NarrationPack],
        use_store=False,
    )
    async with engine.lifespan():
        yield engine
