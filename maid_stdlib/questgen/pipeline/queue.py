"""SeedQueue: seeds waiting to be built.

Seeds arrive in an incoming queue (from the intake, admin tools, pack code) and
are moved to the pending list at the start of a tick; a compound seed supersedes
pending seeds built from a subset of its signals. A seed whose build failed waits
``seed_retry_backoff * 2**(n-1)`` game seconds after its n-th failure, so its
``max_seed_attempts`` attempts are spread over hours and a passing rejection
(combat fatigue, a full day) does not kill a situation the story layer will not
signal again. Eviction drops expired seeds, seeds out of attempts and the least
important beyond ``max_pending_seeds``. Seeds being built (``busy``) are never
dropped or superseded.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Container
from uuid import UUID

from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import signal_key

__all__ = ["SeedQueue"]

log = logging.getLogger("maid.questgen.system")


class SeedQueue:
    def __init__(self, settings: QuestGenerationConfig, metrics: QuestGenMetrics) -> None:
        self._settings = settings
        self._metrics = metrics
        self._incoming: deque[QuestSeed] = deque()
        #: seed id -> the keys of its source signals (for supersession, computed once)
        self._signal_keys: dict[UUID, frozenset[object]] = {}
        self._pending: list[QuestSeed] = []
        #: Seeds built or found stale: never taken up again.
        self._processed: set[UUID] = set()
        #: seed id -> game time before which a failed seed is not retried
        self._retry_at: dict[UUID, float] = {}
        #: Counts every change of what the queue holds (the seed store writes when
        #: it moved).
        self.changes = 0

    @property
    def pending(self) -> list[QuestSeed]:
        """The pending seeds (a copy), in queue order."""
        return list(self._pending)

    def enqueue(self, seed: QuestSeed) -> None:
        """Queue a seed for the next tick."""
        self._incoming.append(seed)
        self.changes += 1
        self._metrics.seed("queued")
        log.info(
            "seed queued",
            extra={
                "seed_id": str(seed.id),
                "seed_type": seed.seed_type,
                "npc_id": str(seed.primary_npc),
            },
        )

    def depth(self, busy: Container[UUID]) -> int:
        """Seeds waiting (queued or pending, not being built)."""
        waiting = sum(1 for s in self._pending if s.id not in busy)
        return len(self._incoming) + waiting

    def drain_incoming(self, busy: Container[UUID]) -> None:
        """Move the queued seeds to the pending list, superseding their subsets."""
        keys = self._signal_keys
        if self._incoming:
            self.changes += 1
        while self._incoming:
            seed = self._incoming.popleft()
            if seed.id in self._processed:
                continue
            mine = keys[seed.id] = frozenset(signal_key(s) for s in seed.source_signals)
            kept = []
            for old in self._pending:
                theirs = keys.get(old.id)
                if theirs is None:
                    theirs = keys[old.id] = frozenset(signal_key(s) for s in old.source_signals)
                if old.id not in busy and theirs <= mine:
                    self._metrics.seed("superseded")
                    continue
                kept.append(old)
            self._pending = [*kept, seed]
        if len(keys) > 4 * len(self._pending) + 64:
            pending = {s.id for s in self._pending}
            self._signal_keys = {k: v for k, v in keys.items() if k in pending}

    def backing_off(self, seed: QuestSeed, now: float) -> bool:
        """Is ``seed`` waiting out the backoff after a failed build?"""
        return self._retry_at.get(seed.id, now) > now

    def schedule_retry(self, seed: QuestSeed, now: float) -> None:
        failures = max(1, seed.attempt_count)
        delay = self._settings.seed_retry_backoff * 2 ** (failures - 1)
        self._retry_at[seed.id] = now + delay
        self.changes += 1
        log.info(
            "seed %s failed %d time(s); retry in %.0f game seconds",
            seed.id,
            failures,
            delay,
            extra={"seed_id": str(seed.id), "seed_type": seed.seed_type},
        )

    def evict(self, now: float, busy: Container[UUID]) -> None:
        cfg = self._settings
        before = len(self._pending)
        kept = []
        for seed in self._pending:
            if seed.id in busy:
                kept.append(seed)
            elif seed.id in self._processed:
                continue
            elif seed.is_expired(now):
                self._metrics.seed("evicted_expired")
            elif seed.attempt_count >= cfg.max_seed_attempts:
                self._metrics.seed("evicted_attempts")
            else:
                kept.append(seed)
        kept.sort(key=lambda s: -s.importance)
        for seed in kept[cfg.max_pending_seeds :]:
            if seed.id not in busy:
                self._metrics.seed("evicted_overflow")
        self._pending = [s for i, s in enumerate(kept) if i < cfg.max_pending_seeds or s.id in busy]
        pending = {s.id for s in self._pending}
        self._retry_at = {k: t for k, t in self._retry_at.items() if k in pending}
        if len(self._pending) != before:
            self.changes += 1

    def drop_stale(self, seed: QuestSeed) -> None:
        """The world that produced ``seed`` no longer holds: never build it."""
        self._processed.add(seed.id)
        self._pending.remove(seed)
        self.changes += 1
        self._metrics.seed("stale")

    def withdraw(self, seed: QuestSeed) -> None:
        """Take ``seed`` out without a verdict (nothing is counted; it may come back)."""
        self._pending = [s for s in self._pending if s.id != seed.id]
        self._incoming = deque(s for s in self._incoming if s.id != seed.id)
        self.changes += 1

    def built(self, seed: QuestSeed) -> None:
        """``seed`` became a quest: it leaves the queue for good."""
        self._processed.add(seed.id)
        self._pending = [s for s in self._pending if s.id != seed.id]
        self.changes += 1

    def snapshot(self) -> tuple[list[QuestSeed], dict[UUID, float]]:
        """Every seed held (pending, then queued) and the retry times, to store."""
        return [*self._pending, *self._incoming], dict(self._retry_at)

    def restore(self, seeds: list[QuestSeed], retry_at: dict[str, float]) -> None:
        """Take back stored seeds as pending (at startup, before the first tick)."""
        by_text = {str(s.id): s.id for s in seeds}
        self._pending = [*self._pending, *seeds]
        for key, at in retry_at.items():
            if key in by_text:
                self._retry_at[by_text[key]] = at
