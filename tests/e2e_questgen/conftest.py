"""Fixtures of the pipeline's integration tests.

``litellm_loaded`` imports LiteLLM once per session (seconds); only the tests that
go through real LiteLLM use it. ``fake_llm`` is a local OpenAI-compatible server
on its own thread (any test loop can use it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fakellm import FakeOpenAIServer


@pytest.fixture(scope="session")
def litellm_loaded() -> Any:
    # Sync on purpose: a session-scoped async fixture would live on another loop.
    from maid_engine.llm.litellm_provider import import_litellm

    return import_litellm()


@pytest.fixture
async def fake_llm(litellm_loaded: Any) -> AsyncIterator[FakeOpenAIServer]:
    from maid_engine.llm.litellm_provider import close_litellm_clients

    with FakeOpenAIServer() as server:
        yield server
        # LiteLLM caches an HTTP client per loop and never closes it: close it before
        # this test's loop ends, or its sockets leak as ResourceWarnings.
        await close_litellm_clients()
