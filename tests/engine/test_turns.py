"""in_turns: long work on the event loop gives the loop a turn once a slice of
time is spent, and not before (time from a clock the test moves)."""

from __future__ import annotations

import asyncio

from maid_engine.turns import in_turns


class _Watcher:
    """A task that notes, at each of its turns, the last item walked so far."""

    def __init__(self) -> None:
        self.last = -1
        self.turns: list[int] = []

    async def run(self) -> None:
        while True:
            await asyncio.sleep(0)
            self.turns.append(self.last)


async def _walk(work_per_item: float, items: int) -> list[int]:
    now = 0.0

    def clock() -> float:
        return now

    watcher = _Watcher()
    task = asyncio.create_task(watcher.run())
    await asyncio.sleep(0)
    watcher.turns.clear()
    walked = []
    async for i in in_turns(range(items), seconds=0.0005, clock=clock):
        walked.append(i)
        watcher.last = i
        now += work_per_item
    task.cancel()
    assert walked == list(range(items))
    return watcher.turns


async def test_the_loop_gets_a_turn_each_time_a_slice_of_work_is_spent() -> None:
    # 0.2 ms an item: the third item of each slice ends past 0.5 ms.
    assert await _walk(0.0002, 10) == [2, 5, 8]


async def test_quick_work_runs_through_without_a_turn() -> None:
    assert await _walk(0.0, 1000) == []


async def test_an_item_longer_than_a_slice_is_followed_by_a_turn() -> None:
    assert await _walk(0.002, 3) == [0, 1, 2]
