"""Fixtures of the account tests (helpers live in account_helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from accounts.account_helpers import Client, Events, build_engine

from maid_engine.accounts import AccountService
from maid_engine.engine import GameEngine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """A started engine on a SQLite file, with accounts installed."""
    eng = build_engine(tmp_path)
    await eng.start()
    try:
        yield eng
    finally:
        await eng.stop()


@pytest.fixture
def accounts(engine: GameEngine) -> AccountService:
    return engine.services.get(AccountService)


@pytest.fixture
def events(engine: GameEngine) -> Events:
    return Events(engine)


@pytest.fixture
def client(engine: GameEngine) -> Callable[..., Client]:
    def make(host: str = "127.0.0.1") -> Client:
        return Client(engine, host)

    return make
