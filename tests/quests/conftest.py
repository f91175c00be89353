from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from quests.questkit import make_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with make_engine(tmp_path).lifespan() as eng:
        yield eng
