"""Fixtures of the quest-generation tests (this file also puts qgkit.py on the path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from questgen.qgkit import Town, make_engine, populate, register_test_archetypes


@pytest.fixture
async def town(tmp_path: Path) -> AsyncIterator[Town]:
    """A started Brookhaven with Hilda's troubles and the test archetypes."""
    async with make_engine(tmp_path).lifespan() as engine:
        town = populate(engine)
        register_test_archetypes(town.qg)
        yield town
