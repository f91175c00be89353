"""Running a simulation: the engine on a manual clock, the bots, the report.

Each tick: the engine ticks (every system, in schedule order), then quest builds
started in the background are awaited (the QuestGenerationService's ``drain``), so
a build always lands on the next tick whatever the machine's speed and the run is
reproducible; then each bot types at most one command. After ``days`` game days
the world runs on for ``drain_hours`` more, in which bots take on only the quests
of the run, so that quests generated late can still be finished; quests generated
in that time are counted apart (``generated_after_end``).

A tick is ``tick_game_seconds`` (60 by default): finer than the story detectors'
rounds (600 s), the generation interval (300 s) and the grounding sweep (600 s);
combat then resolves one round per fighter per tick, and a bot walks one room a
game minute.
"""

from __future__ import annotations

import logging
import math
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from classic_rpg.simulate.bots import DEFAULT_ORDER, create_bots
from classic_rpg.simulate.collector import Collector
from classic_rpg.simulate.coordinator import SUCCESS, Coordinator
from classic_rpg.simulate.progress import ProgressBar
from classic_rpg.simulate.report import build_report
from classic_rpg.simulate.scripted import install_scripted_llm
from maid_engine.clock import GAME_DAY, GAME_HOUR, ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.service import QuestGenerationService

__all__ = ["SimulationOptions", "run_simulation"]

LLM_MODES = ("none", "scripted")


@dataclass
class SimulationOptions:
    days: int = 7
    bots: int = 5
    seed: int = 1
    packs: list[str] = field(default_factory=lambda: ["ironvale"])
    #: "none": template narrative only; "scripted": a deterministic scripted model.
    llm: str = "none"
    #: Keep the world in a temporary SQLite file (exercises every store path).
    persist: bool = False
    tick_game_seconds: float = 60.0
    drain_hours: float = 12.0
    styles: tuple[str, ...] = DEFAULT_ORDER
    #: Show a progress bar (None: only when stderr is a terminal).
    progress: bool | None = None
    #: Let the game's own logging through (it is quietened to errors otherwise).
    verbose: bool = False
    #: Write every bot command and what the game answered to this file.
    trace: Path | None = None

    def __post_init__(self) -> None:
        if self.days < 1 or self.bots < 0 or self.tick_game_seconds <= 0:
            raise ValueError("days >= 1, bots >= 0 and tick_game_seconds > 0 are needed")
        if self.llm not in LLM_MODES:
            raise ValueError(f"llm must be one of {', '.join(LLM_MODES)}")


@contextmanager
def _quiet(verbose: bool) -> Iterator[None]:
    """Warnings such as the generator's alerts would bury the progress bar."""
    logger = logging.getLogger("maid")
    old = logger.level
    if not verbose:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(old)


def _engine(options: SimulationOptions, data_dir: Path) -> GameEngine:
    db = f"sqlite+aiosqlite:///{data_dir / 'simulate.db'}" if options.persist else ""
    # Explicit settings: a model configured in the environment is never called. The
    # bots play between ticks, so a tick never lends the world (which would make a
    # report hang on how fast the machine ran it).
    settings = Settings(
        data_dir=data_dir,
        random_seed=options.seed,
        packs=options.packs,
        llm_model="",
        database_url=db,
        tick_lend_budget=0.0,
    )
    engine = GameEngine(
        settings,
        clock=ManualClock(options.tick_game_seconds),
        packs=options.packs,
        use_store=options.persist,
    )
    if options.llm == "scripted":
        install_scripted_llm(engine)
    return engine


async def run_simulation(options: SimulationOptions) -> dict[str, Any]:
    """Run the world with bots; returns the report (see report.py)."""
    with tempfile.TemporaryDirectory(prefix="maid-simulate-") as tmp, _quiet(options.verbose):
        return await _run(options, Path(tmp))


async def _run(options: SimulationOptions, data_dir: Path) -> dict[str, Any]:
    engine = _engine(options, data_dir)
    collector = Collector(engine)
    started_wall = time.perf_counter()
    tick = options.tick_game_seconds
    run_ticks = math.ceil(options.days * GAME_DAY / tick)
    total = run_ticks + math.ceil(options.drain_hours * GAME_HOUR / tick)
    bar = ProgressBar(total, enabled=options.progress)
    tick_ms: list[float] = []
    bot_ms: list[float] = []
    checkpoint_every = max(1, round(GAME_HOUR / tick))
    async with engine.lifespan():
        generation = engine.services.get(QuestGenerationService)
        bots = await create_bots(engine, options.bots, options.seed, options.styles)
        trace = options.trace.open("w", encoding="utf-8") if options.trace else None
        start = engine.clock.game_time
        end = start + run_ticks * tick
        coordinator = Coordinator(engine, bots, trace=trace, claims_until=end)
        next_day = start + GAME_DAY
        for n in range(total):
            tick_ms.append(await engine.tick() * 1000)
            if engine.clock.game_time >= next_day and len(collector.day_ends) < options.days:
                collector.day_ended()
                next_day += GAME_DAY
            engine.collector.maintain()  # the loop never sleeps: GC between ticks here
            await generation.drain()
            t0 = time.perf_counter()
            await coordinator.step()
            await coordinator.retire_outgrown(options.seed)
            bot_ms.append((time.perf_counter() - t0) * 1000)
            if options.persist and (n + 1) % checkpoint_every == 0:
                # Awaited, not in the background: the loop never sleeps, so a
                # background write would only run whenever something else yields.
                await engine.checkpoint()
            day = (engine.clock.game_time - start) / GAME_DAY
            bar.update(
                n + 1, f"day {min(day, options.days):.1f}/{options.days}", force=n + 1 == total
            )
        bar.close()
        coordinator.finish()
        if trace is not None:
            trace.close()
        bot_rows = []
        for b in [*coordinator.retired, *coordinator.bots]:
            mine = [a.result for a in coordinator.attempts if a.bot == b.name]
            bot_rows.append(
                {
                    "name": b.name,
                    "style": b.style.name,
                    "level_start": b.style.level,
                    "level_end": coordinator.level_of(b),
                    "commands": b.commands,
                    "deaths": b.deaths,
                    "quests_taken": len(mine),
                    "completed": sum(1 for r in mine if r in SUCCESS),
                    "abandoned": sum(1 for r in mine if r in ("abandoned", "gave_up")),
                    "retired": b in coordinator.retired,
                }
            )
        opts = asdict(options)
        for key in ("progress", "verbose", "styles", "trace"):
            opts.pop(key)
        return build_report(
            options=opts,
            start=start,
            end=end,
            days=options.days,
            collector=collector,
            coordinator=coordinator,
            bots=bot_rows,
            tick_ms=tick_ms,
            bot_ms=bot_ms,
            wall=time.perf_counter() - started_wall,
        )
