"""Fixtures of the help tests: Hamlet on the stdlib, and under the RPG rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import HAMLET, HAMLET_RPG, make_engine

from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with make_engine(tmp_path, HAMLET, tick=None, seed=None).lifespan() as started:
        yield started


@pytest.fixture
async def rpg(tmp_path: Path) -> AsyncIterator[GameEngine]:
    async with make_engine(tmp_path, HAMLET_RPG, tick=None, seed=None).lifespan() as started:
        yield started
