"""The evening benchmark's server: the generated world served to real telnet players.

    python -m benchmarks.evening_server --rooms 2000 --npcs 10000 --quests 200 \
        --ticks-json ticks.json

A real :class:`~maid_engine.app.MaidServer` (telnet, metrics, a SQLite store under
``--data-dir``) on the tick benchmark's generated world (``benchmarks.worldgen``),
ticking in real time at the configured tick rate. ``--quests`` offline characters
each hold one accepted quest and ``fights`` NPC pairs fight, as in the tick
benchmark. A new player starts in a room drawn from the whole world (seeded), so
the players of the benchmark are spread over every area.

Prints ``EVENING ready telnet <port> metrics <port>`` once the world is built. On
SIGTERM or SIGINT it stops and writes to ``--ticks-json`` a row per tick: its start
(``time.monotonic()``, the same clock in every process of the machine), duration,
whether it had to wait for the world lock, the garbage collections inside it (ms),
whether a write of the world to the database was under way when it began, and its
slowest system with that system's ms (what a slow tick was busy with); and every
collection of changes under the world lock (a piece of a checkpoint or a commit's:
when it ended and how long it held the world), and the time spent turning each
component type into JSON for them.
Settings come from the environment (``MAID_*``) like ``maid run``'s.
``--profile PATH`` profiles the process (cProfile) from the world being ready to the
stop and writes the statistics there (``python -m pstats PATH``); it slows the
server, so its figures are for finding where the time goes, not for the report.
``--memory DIR`` traces allocations (tracemalloc) from the world being ready and
writes a snapshot to ``DIR/snap-N.pickle`` on every SIGHUP (with the RSS then in
``DIR/snap-N.rss``): what the process holds that it did not hold before, for
finding where memory goes (it slows the server too).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import faulthandler
import gc
import json
import logging
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from uuid import UUID

from benchmarks.worldgen import Layers, WorldSpec, add_quests, make_pack, start_fights
from maid_engine import loops


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="MAID evening benchmark server")
    p.add_argument("--rooms", type=int, default=2000)
    p.add_argument("--npcs", type=int, default=10_000)
    p.add_argument("--quests", type=int, default=200)
    p.add_argument("--fights", type=int, default=50)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--data-dir", type=Path, required=True)
    p.add_argument("--ticks-json", type=Path, required=True)
    p.add_argument("--profile", type=Path, help="write cProfile statistics here on stop")
    p.add_argument("--memory", type=Path, help="trace allocations; snapshot here on SIGHUP")
    return p.parse_args(argv)


async def serve(args: argparse.Namespace) -> int:
    from maid_engine.app import MaidServer
    from maid_engine.config import Settings
    from maid_stdlib.world.characters import WorldCharacterFactory
    from maid_stdlib.world.service import WorldService

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    spec = WorldSpec(args.rooms, args.npcs, args.quests, args.fights, args.seed)
    root = Path(tempfile.mkdtemp(prefix="maid-evening-world-"))
    layers = Layers()
    settings = Settings(
        data_dir=args.data_dir,
        database_url=f"sqlite+aiosqlite:///{args.data_dir / 'maid.db'}",
        telnet_port=0,
        metrics_port=0,
        # The players come by telnet; a fixed web port may be taken on the machine.
        web_enabled=False,
        telnet_host="127.0.0.1",
        metrics_host="127.0.0.1",
        random_seed=spec.seed,
    )
    #: (start, seconds, 1.0 if the world lock was held when the tick began, ms of
    #: garbage collection inside it, 1.0 if a world write was under way when it
    #: began, its slowest system, that system's ms, and system -> ms of every system
    #: that took 0.1 ms or more, with "(between systems)" for the rest of the tick:
    #: its events, the lock; then the tick's CPU ms and system -> CPU ms: the
    #: process's own work, without the time the machine gave to others)
    ticks: list[
        tuple[
            float, float, float, float, float, str, float, dict[str, float], float, dict[str, float]
        ]
    ] = []
    probe = _TickProbe()
    deep: dict[str, float] = {}
    #: (end, seconds) of every collection of changes under the world lock: a piece
    #: of a checkpoint, or a commit's
    collections: list[tuple[float, float]] = []
    #: component type -> [components turned into JSON for checkpoints, seconds]
    dumps: dict[str, list[float]] = {}
    try:
        pack = make_pack(root / "pack", spec, layers)
        server = MaidServer(
            settings, packs=["stdlib", "classic_rpg", pack], announce=lambda _line: None
        )
        engine = server.engine
        untimed = engine.tick

        async def timed_tick() -> float:
            started = time.monotonic()
            # Held already: the tick first waits for a command, a login or a
            # checkpoint's collection to let go of the world.
            waited = engine.world_lock.locked()
            writing = engine.writing_world
            probe.begin()
            cpu0 = time.thread_time()
            elapsed = await untimed()
            # The commands the tick lent the world to are not the tick's work.
            cpu_ms = (time.thread_time() - cpu0 - probe.lent_cpu) * 1000
            gc_ms, slowest, slowest_ms, systems = probe.end()
            rest = elapsed * 1000 - sum(probe.spent.values())
            if rest >= 0.1:
                systems["(between systems)"] = round(rest, 2)
            ticks.append(
                (
                    started,
                    elapsed,
                    1.0 if waited else 0.0,
                    gc_ms,
                    1.0 if writing else 0.0,
                    slowest,
                    slowest_ms,
                    systems,
                    round(cpu_ms, 2),
                    {name: round(ms, 2) for name, ms in probe.cpu.items() if ms >= 0.1},
                )
            )
            return elapsed

        engine.tick = timed_tick  # type: ignore[method-assign]
        engine._lend = probe.lending(engine._lend)  # type: ignore[method-assign,assignment]
        observe = engine.metrics.checkpoint_collect.observe

        def collected(seconds: float, exemplar: Any = None) -> None:
            collections.append((time.monotonic(), seconds))
            observe(seconds, exemplar)

        engine.metrics.checkpoint_collect.observe = collected  # type: ignore[method-assign,assignment]
        _time_dumps(dumps)
        gc.callbacks.append(probe.on_gc)
        await server.start()
        for system in engine.systems:
            system.update = probe.timed(system.name, system.update)  # type: ignore[method-assign,assignment]
        try:
            await add_quests(engine, spec, layers)
            start_fights(engine, spec, layers)
            ws = engine.services.get(WorldService)
            rooms = ws.room_keys()
            rng = random.Random(spec.seed)

            def spread(uid: UUID, _name: str, _account: str) -> None:
                ws.move(uid, rooms[rng.randrange(len(rooms))], reason="bench")

            engine.services.get(WorldCharacterFactory).creation_hooks.append(spread)
            if args.memory is not None:
                args.memory.mkdir(parents=True, exist_ok=True)
                tracemalloc.start(8)
            print(
                f"EVENING ready telnet {server.telnet_port} metrics {server.metrics_port} "
                f"entities {engine.world.entity_count}",
                flush=True,
            )
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            # Where a stuck server is: SIGUSR1 prints every task's stack (when the
            # loop still turns), SIGUSR2 every thread's (even when it does not).
            faulthandler.register(signal.SIGUSR2, all_threads=True)
            loop.add_signal_handler(signal.SIGUSR1, _print_tasks)
            if args.memory is not None:
                loop.add_signal_handler(signal.SIGHUP, _snapshot, args.memory)
            profiler = cProfile.Profile() if args.profile else None
            if profiler is not None:
                profiler.enable()
            try:
                await server.serve_until(stop)
            finally:
                if profiler is not None:
                    profiler.disable()
                    profiler.dump_stats(args.profile)
            deep = _deep_collection()

        finally:
            await server.stop()
    finally:
        if probe.on_gc in gc.callbacks:
            gc.callbacks.remove(probe.on_gc)
        shutil.rmtree(root, ignore_errors=True)
        out: dict[str, Any] = {
            "ticks": ticks,
            "layers": layers.status,
            "deep_at_end": deep,
            "collections": collections,
            "dumps": dumps,
            "event_loop": loops.loop_name(asyncio.get_running_loop()),
        }
        args.ticks_json.write_text(json.dumps(out))
    return 0


class _TickProbe:
    """Inside one tick: the garbage collections' time and the slowest system. A
    system's time leaves out the commands it lent the world to (``lend_point``), as
    the engine's own metric does."""

    def __init__(self) -> None:
        self.inside = False
        self.gc_s = 0.0
        self._gc_started = 0.0
        self.slowest = ""
        self.slowest_s = 0.0
        #: system -> ms in this tick, and its CPU ms
        self.spent: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        #: seconds (real, CPU) the tick has lent the world to commands so far
        self.lent_s = 0.0
        self.lent_cpu = 0.0

    def begin(self) -> None:
        self.inside, self.gc_s, self.slowest, self.slowest_s = True, 0.0, "", 0.0
        self.spent, self.cpu = {}, {}
        self.lent_s = self.lent_cpu = 0.0

    def end(self) -> tuple[float, str, float, dict[str, float]]:
        self.inside = False
        big = {name: round(ms, 2) for name, ms in self.spent.items() if ms >= 0.1}
        return self.gc_s * 1000, self.slowest, self.slowest_s * 1000, big

    def on_gc(self, phase: str, _info: dict[str, int]) -> None:
        if not self.inside:
            return
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self._gc_started

    def timed(
        self, name: str, update: Callable[[float], Awaitable[None]]
    ) -> Callable[[float], Awaitable[None]]:
        async def timed_update(delta: float) -> None:
            t0 = time.perf_counter()
            c0 = time.thread_time()
            lent0, lent_cpu0 = self.lent_s, self.lent_cpu
            try:
                await update(delta)
            finally:
                spent = time.perf_counter() - t0 - (self.lent_s - lent0)
                cpu = time.thread_time() - c0 - (self.lent_cpu - lent_cpu0)
                self.spent[name] = self.spent.get(name, 0.0) + spent * 1000
                self.cpu[name] = self.cpu.get(name, 0.0) + cpu * 1000
                if spent > self.slowest_s:
                    self.slowest, self.slowest_s = name, spent

        return timed_update

    def lending(
        self, lend: Callable[[Any, float], Awaitable[int]]
    ) -> Callable[[Any, float], Awaitable[int]]:
        """Wrap the engine's ``_lend``: what it gives away, real and CPU time."""

        async def timed_lend(lending: Any, budget: float) -> int:
            t0 = time.perf_counter()
            c0 = time.thread_time()
            try:
                return await lend(lending, budget)
            finally:
                self.lent_s += time.perf_counter() - t0
                self.lent_cpu += time.thread_time() - c0

        return timed_lend


def _time_dumps(sink: dict[str, list[float]]) -> None:
    """Time the checkpoints' JSON of each component, by type (what a piece costs)."""
    from maid_engine import changes

    dump = changes._staged_data

    def timed(component: Any) -> Any:
        t0 = time.perf_counter()
        out = dump(component)
        row = sink.setdefault(type(component).__name__, [0.0, 0.0])
        row[0] += 1
        row[1] += time.perf_counter() - t0
        return out

    changes._staged_data = timed


def _deep_collection() -> dict[str, float]:
    """What a deep collection (unfreeze, collect everything) frees once the players
    are gone, and how long it takes: the cyclic garbage the collector policy's
    freezing left behind, and the heap's size to the collector."""
    frozen = gc.get_freeze_count()
    started = time.perf_counter()
    gc.unfreeze()
    freed = gc.collect()
    seconds = time.perf_counter() - started
    gc.freeze()
    return {"frozen_objects": frozen, "freed_objects": freed, "ms": seconds * 1000}


def _snapshot(directory: Path) -> None:
    taken = len(list(directory.glob("snap-*.pickle")))
    gc.collect()
    tracemalloc.take_snapshot().dump(str(directory / f"snap-{taken}.pickle"))
    status = Path("/proc/self/status").read_text().splitlines()
    rss = next((line for line in status if line.startswith("VmRSS")), "")
    (directory / f"snap-{taken}.rss").write_text(rss)


def _print_tasks() -> None:
    for task in asyncio.all_tasks():
        task.print_stack(file=sys.stderr)
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    from pydantic import TypeAdapter

    # The loop the settings name (MAID_EVENT_LOOP), as ``maid run`` chooses it.
    choice = TypeAdapter(loops.EventLoopChoice).validate_python(
        os.environ.get("MAID_EVENT_LOOP", "auto")
    )
    return loops.run(serve(parse_args(argv)), choice)


if __name__ == "__main__":
    raise SystemExit(main())
