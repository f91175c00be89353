"""Fixtures of the QuestGenerationSystem tests: Ironvale with the pipeline wired."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from questgen_system.qskit import make_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def quiet(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale without story detectors: only the signals and seeds a test feeds."""
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        yield engine


@pytest.fixture
async def living(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Ironvale as it lives: the Iron Crisis arises on its own."""
    engine = make_engine(tmp_path)
    async with engine.lifespan():
        yield engine
