"""Run MAID's benchmarks.

    .venv/bin/python -m benchmarks                 # standard: 50 + 200 clients, full tick world
    .venv/bin/python -m benchmarks --full          # + 500 clients, 1,000 held, login at 200
    .venv/bin/python -m benchmarks --quick         # smoke sizes (seconds)
    .venv/bin/python -m benchmarks --only tick,budget --json out.json --markdown out.md
    .venv/bin/python -m benchmarks --only telnet --clients 100,300

Benchmarks: ``telnet`` (load test against a real ``maid run`` and an echo
baseline, each in its own process), ``tick`` (10,000 NPCs, 2,000 rooms, 200 active
quests), ``budget`` (the quest-generation processing budget), ``evening`` (that
world served to 200 players playing a mix, against an echo baseline, and a login
storm of 200 account creations with the real scrypt).
See docs/performance.md for what each measures and the latest figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import calibration_ms, cpu_stat, loadavg, machine, stolen_share

ALL = ("telnet", "tick", "budget", "evening")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    size = p.add_mutually_exclusive_group()
    size.add_argument(
        "--quick",
        action="store_const",
        dest="mode",
        const="quick",
        help="smallest sizes: checks that everything runs",
    )
    size.add_argument(
        "--full",
        action="store_const",
        dest="mode",
        const="full",
        help="every client count (50, 200, 500, 1,000 held)",
    )
    p.set_defaults(mode="standard")
    p.add_argument(
        "--only", default=",".join(ALL), help=f"comma-separated subset of {', '.join(ALL)}"
    )
    p.add_argument(
        "--clients", default="", help="telnet: comma-separated client counts instead of the mode's"
    )
    p.add_argument(
        "--telnet-targets",
        default="",
        help="telnet: comma-separated targets instead of the scenario's "
        "(echo, maid, maid+mccp, maid+gmcp)",
    )
    p.add_argument("--json", type=Path, help="write every figure (JSON) here")
    p.add_argument("--markdown", type=Path, help="write the report (markdown) here")
    p.add_argument(
        "--evening-parts",
        default="evening,echo,storm",
        help="evening: which of its parts to run (evening, echo, storm)",
    )
    p.add_argument(
        "--profile",
        type=Path,
        help="evening: write the evening server's cProfile statistics here (slows it)",
    )
    p.add_argument(
        "--memory",
        type=Path,
        help="evening: write the evening server's allocation snapshots (tracemalloc) to this "
        "folder, before the players, every quarter of their play and once they have gone "
        "(slows it)",
    )
    p.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="evening: a setting for MAID's servers, the evening's and the storm's "
        "(MAID_EVENT_LOOP=asyncio); repeatable",
    )
    p.add_argument(
        "--echo-loop",
        choices=["asyncio", "uvloop"],
        default="asyncio",
        help="evening: the echo baseline's event loop (asyncio: the one the peer figures used)",
    )
    p.add_argument(
        "--evening-cpus",
        choices=["apart", "shared"],
        default="apart",
        help="evening: the evening's server and the echo server on half the CPUs and "
        "their load client on the other half (apart, as the storm always runs), or all "
        "of them on every CPU (shared)",
    )
    p.add_argument(
        "--keep-logs",
        action="store_true",
        help="telnet: keep the servers' data and logs (path printed)",
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in ALL]
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(unknown)} (choose from {', '.join(ALL)})",
            file=sys.stderr,
        )
        return 2
    clients = [int(c) for c in args.clients.split(",") if c.strip()] or None
    results: dict[str, Any] = {"mode": args.mode, "machine": machine(), "started": time.time()}

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    sections: list[str] = []
    if "telnet" in wanted:
        from benchmarks import telnet_load

        log("telnet load test ...")
        targets = tuple(t for t in args.telnet_targets.split(",") if t) or None
        results["telnet"] = telnet_load.run(
            args.mode, clients, log, keep=args.keep_logs, targets=targets
        )
        sections.append(
            "## Telnet load\n\n"
            + results["telnet"]["settings"]
            + "\n\n"
            + telnet_load.markdown(results["telnet"])
        )
    if "tick" in wanted:
        from benchmarks import tick

        log("tick benchmark ...")
        results["tick"] = tick.run(args.mode, log)
        sections.append("## Tick\n\n" + tick.markdown(results["tick"]))
    if "budget" in wanted:
        from benchmarks import budget

        log("processing budget ...")
        results["budget"] = budget.run(args.mode, log)
        sections.append(
            "## Quest-generation processing budget\n\n" + budget.markdown(results["budget"])
        )
    if "evening" in wanted:
        from benchmarks import evening

        log("evening benchmark ...")
        parts = tuple(p.strip() for p in args.evening_parts.split(",") if p.strip())
        server_env = dict(kv.partition("=")[::2] for kv in args.server_env)
        bad = [k for k in server_env if not k.startswith("MAID_")]
        if bad:
            print(f"--server-env takes MAID_ settings, not {', '.join(bad)}", file=sys.stderr)
            return 2
        results["evening"] = evening.run(
            args.mode,
            log,
            keep=args.keep_logs,
            profile=args.profile,
            parts=parts,
            server_env=server_env,
            memory=args.memory,
            echo_loop=args.echo_loop,
            cpus=args.evening_cpus,
        )
        sections.append("## Evening and login storm\n\n" + evening.markdown(results["evening"]))
    results["finished"] = time.time()
    m = results["machine"]
    m["calibration_ms_at_end"] = calibration_ms()
    m["loadavg_at_end"] = loadavg()
    m["stolen_share"] = stolen_share(m.get("cpu_stat_at_start"), cpu_stat())
    took = results["finished"] - results["started"]
    stolen = (
        f" Of the CPU time the machine wanted during the run, its host gave"
        f" {m['stolen_share']:.1%} to others (steal, `/proc/stat`)."
        if m["stolen_share"] is not None
        else ""
    )
    header = (
        f"# MAID benchmarks ({args.mode})\n\n"
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Python "
        f"{m['python']}, Linux {m['kernel']}; commit {m['commit']}; load average "
        f"{m['loadavg_at_start']} at the start, {m['loadavg_at_end']} at the end. "
        f"Took {took:.0f} s. Machine speed "
        f"(`benchmarks.common.calibration_ms`, a fixed Python workload; lower is "
        f"faster): {m['calibration_ms_at_start']} ms at the start, "
        f"{m['calibration_ms_at_end']} ms at the end.{stolen}"
    )
    report = "\n\n".join([header, *sections]) + "\n"
    print(report)
    if args.markdown:
        args.markdown.write_text(report)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
