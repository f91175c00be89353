"""Fixtures of the building tests: Hamlet (the neutral kit) copied to a folder the
test may edit, on a started engine."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from kits.engines import make_engine, ws_of
from kits.hamlet.pack import HamletPack
from kits.heroes import new_character

from maid_engine.engine import GameEngine

KITS = Path(__file__).resolve().parents[1] / "kits"


@pytest.fixture
def hamlet_dir(tmp_path: Path) -> Path:
    root = tmp_path / "packs" / "hamlet"
    shutil.copytree(KITS / "hamlet", root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
async def engine(tmp_path: Path, hamlet_dir: Path) -> AsyncIterator[GameEngine]:
    pack = type("EditableHamlet", (HamletPack,), {"path": property(lambda self: hamlet_dir)})
    async with make_engine(tmp_path, [pack], tick=None, seed=None).lifespan() as started:
        yield started


@pytest.fixture
def builder(engine: GameEngine) -> UUID:
    hero = new_character(engine, "Bea", online=False)
    ws_of(engine).move(hero, "hamlet:green")
    return hero
