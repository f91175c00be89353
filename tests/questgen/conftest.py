"""Fixtures of the quest-generation tests (this file also puts qgkit.py on the path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from questgen.qgkit import Town, make_engine, populate, register_test_archetypes

from maid_stdlib.questgen import QuestGen


@pytest.fixture
async def town(tmp_path: Path) -> AsyncIterator[Town]:
    """A started Brookhaven with Hilda's troubles and the test archetypes (added
    before the start, when the registries are still open)."""
    engine = make_engine(tmp_path)
    engine.register_packs()
    register_test_archetypes(engine.services.get(QuestGen))
    async with engine.lifespan():
        yield populate(engine)
