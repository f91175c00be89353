"""Fixtures of the grounding-monitor tests (they share the consequence tests' kit)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import ironvale_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started Ironvale with every layer wired in; no store, 60 s ticks."""
    async with ironvale_engine(tmp_path).lifespan() as eng:
        yield eng
