"""Fixtures of the RPG quest-generation tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import hamlet_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def hamlet(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet under the RPG rules, started; no store."""
    async with hamlet_engine(tmp_path, rpg=True).lifespan() as engine:
        yield engine
