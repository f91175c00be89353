"""Fixtures of the consequence tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import hamlet_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started Hamlet with the RPG layer (its QuestManager holds the generated
    quests); no store, 60 s ticks."""
    async with hamlet_engine(tmp_path, rpg=True).lifespan() as eng:
        yield eng
