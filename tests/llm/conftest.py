"""Fixtures for the LLM layer tests.

- ``litellm_import``: LiteLLM imported once per session, through the async
  threaded loader while a ticker measures how long the event loop stalled.
- ``litellm_ready``: the same for one async test, closing LiteLLM's HTTP clients
  at the end of it.
- ``fake_llm``: a started :class:`FakeOpenAIServer` (its own thread, so it works
  from any test's event loop).
- ``memory_documents``: an in-memory stand-in for ``DocumentStore``.
- ``metrics``: a fresh EngineMetrics registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fakellm import FakeOpenAIServer
from llm.llm_helpers import ImportStats, MemoryDocuments, import_while_ticking

from maid_engine.clock import ManualClock
from maid_engine.llm.litellm_provider import close_litellm_clients
from maid_engine.metrics import EngineMetrics


@pytest.fixture(scope="session")
def litellm_import() -> ImportStats:
    # Sync on purpose (its own short-lived loop): a session-scoped async fixture
    # would live on a different loop than the tests.
    return asyncio.run(import_while_ticking())


@pytest.fixture
async def litellm_ready(litellm_import: ImportStats) -> AsyncIterator[Any]:
    """LiteLLM for one async test; its cached HTTP clients are closed while the
    test's event loop is still alive (else their sockets leak with ResourceWarnings)."""
    yield litellm_import.module
    await close_litellm_clients()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def metrics() -> EngineMetrics:
    return EngineMetrics()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def memory_documents() -> MemoryDocuments:
    return MemoryDocuments()
