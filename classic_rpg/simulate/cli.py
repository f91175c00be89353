"""``maid simulate``: run the world with bot players and report on its quests.

    maid simulate --days 7 --bots 5 --seed 1 --pack ironvale --json report.json
    maid simulate --acceptance --seeds 1,2,3,4,5,6,7,8,9,10

The engine's CLI hands everything after ``simulate`` to :func:`main` (it imports
this module by path, only for this command). Exit status: 0 when every quality
target was met, 1 when some was missed (the report says which), 2 for bad
arguments, 3 when a pack failed to load. With ``--acceptance`` it runs each seed
of ``--seeds`` (4 bots unless ``--bots`` says otherwise) and prints the acceptance
table (:mod:`classic_rpg.simulate.acceptance`); 0 when every seed passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from classic_rpg.simulate.acceptance import DEFAULT_SEEDS, header, row, run_acceptance, table
from classic_rpg.simulate.bots import DEFAULT_ORDER, STYLES
from classic_rpg.simulate.report import summary
from classic_rpg.simulate.runner import LLM_MODES, SimulationOptions, run_simulation
from maid_engine.content import PackError
from maid_engine.logs import setup_logging

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="maid simulate",
        description="Run the world with scripted bot players on a manual clock, as fast "
        "as the machine allows, and report on the quests it generates: how many per "
        "game day, how varied, how grounded, whether chains emerge, whether bots of "
        "the right level can finish them.",
    )
    p.add_argument("--days", type=int, default=7, help="game days to simulate (default 7)")
    p.add_argument(
        "--bots",
        type=int,
        default=None,
        help=f"bot players; styles in turn: {', '.join(DEFAULT_ORDER)} "
        "(default 5; 4 with --acceptance)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument(
        "--pack",
        action="append",
        dest="packs",
        metavar="PACK",
        help="content pack to load (repeatable; default ironvale)",
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="write the full report here")
    p.add_argument(
        "--llm",
        choices=LLM_MODES,
        default="none",
        help="quest prose: none = templates, scripted = a deterministic "
        "scripted model through the real LLM path (default none)",
    )
    p.add_argument(
        "--persist",
        action="store_true",
        help="keep the world in a temporary SQLite database (default: in memory)",
    )
    p.add_argument(
        "--tick",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="game seconds per tick (default 60)",
    )
    p.add_argument(
        "--drain-hours",
        type=float,
        default=12.0,
        metavar="HOURS",
        help="game hours the bots get after the last day to finish quests",
    )
    p.add_argument(
        "--styles",
        metavar="LIST",
        help=f"comma-separated bot styles to cycle ({', '.join(STYLES)})",
    )
    p.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="write every bot command and the game's answer to FILE",
    )
    p.add_argument(
        "--acceptance",
        action="store_true",
        help="run the quest economy's acceptance check over --seeds (4 bots by default) "
        "and print its table",
    )
    p.add_argument(
        "--seeds",
        metavar="LIST",
        help="comma-separated seeds for --acceptance (default 1-10)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("-v", "--verbose", action="store_true", help="show the game's log")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    styles = tuple(s.strip() for s in args.styles.split(",")) if args.styles else DEFAULT_ORDER
    unknown = [s for s in styles if s not in STYLES]
    try:
        if unknown or not styles:
            raise ValueError(f"unknown bot style(s): {', '.join(unknown) or '(none)'}")
        seeds = _seeds(args.seeds) if args.seeds else list(DEFAULT_SEEDS)
        if args.seeds and not args.acceptance:
            raise ValueError("--seeds goes with --acceptance (one run takes --seed)")
        bots = args.bots if args.bots is not None else (4 if args.acceptance else 5)
        options = SimulationOptions(
            days=args.days,
            bots=bots,
            seed=args.seed,
            packs=args.packs or ["ironvale"],
            llm=args.llm,
            persist=args.persist,
            tick_game_seconds=args.tick,
            drain_hours=args.drain_hours,
            styles=styles,
            progress=False if args.no_progress else None,
            verbose=args.verbose,
            trace=args.trace,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.verbose:
        setup_logging("INFO", False)
    if args.acceptance:
        return _acceptance(options, seeds, args.json)
    try:
        report = asyncio.run(run_simulation(options))
    except PackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(summary(report))
    return 0 if all(report["targets"].values()) else 1


def _seeds(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--seeds takes comma-separated numbers, not {text!r}") from None
    if not seeds:
        raise ValueError("--seeds names no seed")
    return seeds


def _acceptance(options: SimulationOptions, seeds: list[int], out: Path | None) -> int:
    print(
        f"acceptance: {len(seeds)} seed(s) x {options.days} game days x {options.bots} bots",
        flush=True,
    )
    print(header(), flush=True)
    try:
        results = asyncio.run(run_acceptance(options, seeds, lambda r: print(row(r), flush=True)))
    except PackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    print(table(results))
    if out is not None:
        out.write_text(
            json.dumps([r.as_dict() for r in results], indent=2) + "\n", encoding="utf-8"
        )
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
