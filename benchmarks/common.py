"""Shared helpers: percentiles, the machine description, process CPU and memory."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of ``values``; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summary(values: Sequence[float], scale: float = 1000.0) -> dict[str, float | None]:
    """p50/p95/p99/max (and mean) of ``values`` multiplied by ``scale`` (s -> ms)."""
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None, "mean": None}
    return {
        "n": len(values),
        "p50": _scaled(percentile(values, 50), scale),
        "p95": _scaled(percentile(values, 95), scale),
        "p99": _scaled(percentile(values, 99), scale),
        "max": max(values) * scale,
        "mean": sum(values) / len(values) * scale,
    }


def _scaled(value: float | None, scale: float) -> float | None:
    return None if value is None else value * scale


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def proc_cpu(pid: int) -> float | None:
    """utime + stime of a process (all threads) in seconds; None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def loadavg() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def cpu_stat() -> tuple[int, int] | None:
    """(wanted, stolen) clock ticks of the machine's CPUs since boot
    (``/proc/stat``; None where it cannot be read): ``wanted`` every tick but the
    idle ones, ``stolen`` those a virtual machine's host gave to others while
    this machine wanted to run. A benchmark's tail moves with them, whatever the
    code."""
    try:
        first = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    if len(first) < 9 or first[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal (guest time is inside user)
    values = [int(v) for v in first[1:9]]
    return sum(values) - values[3] - values[4], values[7]


def stolen_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of the CPU time the machine wanted that its host gave to others
    between two ``cpu_stat`` readings (0-1; None without both, or with nothing
    wanted between)."""
    if before is None or after is None or after[0] <= before[0]:
        return None
    return (after[1] - before[1]) / (after[0] - before[0])


def calibration_ms(rounds: int = 3) -> float:
    """Milliseconds of a fixed pure-Python workload (the best of ``rounds``).

    A shared virtual machine's speed drifts by tens of percent within minutes;
    measured at the start and the end of a run, this tells how fast the machine
    was, so figures of different runs can be compared (a run with a 30 % slower
    calibration is expected to show 30 % slower ticks)."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        table: dict[int, int] = {}
        total = 0
        for i in range(200_000):
            total += i & 7
            table[i & 1023] = i
        best = min(best, time.perf_counter() - t0)
    return round(best * 1000, 1)


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "python": sys.version.split()[0],
        "kernel": platform.release(),
        "commit": git_commit(),
        "loadavg_at_start": loadavg(),
        "calibration_ms_at_start": calibration_ms(),
        "cpu_stat_at_start": cpu_stat(),
    }


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = out.stdout.strip() or "unknown"
    return commit + ("+dirty" if dirty.stdout.strip() else "")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)
