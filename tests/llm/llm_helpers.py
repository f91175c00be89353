"""Shared helpers for the LLM tests (a plain module: conftest files cannot be imported
unambiguously, since tests/conftest.py has the same module name)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TEST_MODEL = "openai/test-model"
TEST_KEY = "sk-test"


@dataclass(frozen=True)
class ImportStats:
    module: Any
    seconds: float
    max_loop_gap: float
    ticks: int
    was_imported_before: bool


async def import_while_ticking() -> ImportStats:
    from maid_engine.llm.litellm_provider import load_litellm

    before = "litellm" in sys.modules
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    started = time.perf_counter()
    module = await load_litellm()
    seconds = time.perf_counter() - started
    task.cancel()
    return ImportStats(module, seconds, max(gaps, default=0.0), len(gaps), before)


class MemoryDocuments:
    """The DocumentStore methods the cache uses, in memory (``fail`` simulates an outage)."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, dict[str, Any]]] = {}
        self.fail = False
        self.writes = 0

    def _check(self, collection: str) -> dict[str, dict[str, Any]]:
        if self.fail:
            raise ConnectionError("the database is down")
        if collection not in self.data:
            raise LookupError(f"no collection {collection}")
        return self.data[collection]

    async def ensure_collection(self, name: str) -> None:
        if self.fail:
            raise ConnectionError("the database is down")
        self.data.setdefault(name, {})

    async def put(self, collection: str, key: str, doc: dict[str, Any]) -> None:
        self._check(collection)[key] = dict(doc)
        self.writes += 1

    async def get(self, collection: str, key: str) -> dict[str, Any] | None:
        return self._check(collection).get(key)

    async def delete(self, collection: str, key: str) -> bool:
        return self._check(collection).pop(key, None) is not None

    async def query(
        self,
        collection: str,
        where: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        order_by: str | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]:
        docs = [
            d
            for d in self._check(collection).values()
            if all(d.get(k) == v for k, v in (where or {}).items())
        ]
        if order_by is not None:
            docs.sort(key=lambda d: d.get(order_by, 0), reverse=descending)
        elif descending:
            docs.reverse()
        return docs[:limit] if limit is not None else docs

    async def keys(self, collection: str) -> list[str]:
        return list(self._check(collection))
