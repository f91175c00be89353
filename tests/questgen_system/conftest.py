"""Fixtures of the QuestGenerationSystem tests: Hamlet with the RPG layer and the
pipeline wired (this file also puts qskit.py on the path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from questgen_system.qskit import make_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def quiet(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet without story detectors: only the signals and seeds a test feeds."""
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        yield engine
