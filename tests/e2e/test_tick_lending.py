"""Over a real socket: a command typed while a long tick runs is run inside the
tick, between two of its systems, not after it."""

from __future__ import annotations

import time
from pathlib import Path

from e2e.client import ClientPool
from e2e.fixtures import served, telnet

from maid_engine.ecs import System

__all__ = ["telnet"]

#: Each slow system's CPU per tick: three make a 45 ms tick of a 100 ms interval.
SPIN = 0.015


class _Slow(System):
    phase = "living"

    def __init__(self, spans: list[list[float]]) -> None:
        self.spans = spans

    def spin(self) -> float:
        started = time.perf_counter()
        while time.perf_counter() - started < SPIN:  # a system's work, not a sleep
            pass
        return started


class _SlowFirst(_Slow):
    async def update(self, delta: float) -> None:
        self.spans.append([self.spin(), 0.0])


class _SlowMiddle(_Slow):
    after = (_SlowFirst,)

    async def update(self, delta: float) -> None:
        self.spin()


class _SlowLast(_Slow):
    after = (_SlowMiddle,)

    async def update(self, delta: float) -> None:
        self.spin()
        self.spans[-1][1] = time.perf_counter()


async def test_a_command_typed_during_a_long_tick_runs_inside_it(
    tmp_path: Path, telnet: ClientPool
) -> None:
    # Answers come back at once here: no rate limit on how fast they are typed.
    async with served(tmp_path, commands_per_second=1e6, command_burst=1_000_000) as server:
        client = await telnet.open("127.0.0.1", server.telnet_port)
        await client.read_until_prompt()
        await client.create("Lenda", "secret-lantern-7")
        spans: list[list[float]] = []
        for slow in (_SlowFirst, _SlowMiddle, _SlowLast):
            server.engine.add_system(slow(spans))
        answered = 0
        # Typing without pause over five ticks (each answer comes in a fraction of a
        # millisecond between ticks): about half of the time is tick.
        while len(spans) < 5 and answered < 100_000:
            assert "Level:" in await client.command("score", within=10)
            answered += 1
        # Commands that came in during those ticks ran inside them (the answer is
        # written as the command ends); without lending they all wait for the end.
        lent = server.engine.metrics.registry.get_sample_value("maid_tick_commands_lent_total")
        assert lent is not None
        assert lent >= 2
