"""The evening benchmark and the login storm.

**Evening**: the tick benchmark's world (2,000 rooms, 10,000 NPCs, 200 accepted
quests, 50 fights) served by a real server (``benchmarks.evening_server``), ticking
in real time, while 200 players, each starting in a room drawn from the whole world,
play the mix of ``benchmarks.loadclient.EVENING_MIX`` (look, walk, say, quest log,
talk to villagers and accept their offers, fight bandits, score, who, inventory)
with a think time before each command; half-way, every player sends a command at
once (the burst, reported apart). The same clients, mix, pauses and burst run
against the echo server in the same run (its p99 is the baseline). Reported:
command round trips (and the ratio to echo), the burst's answers and the ticks
during it, tick times and overruns while the world idles and while the players
play, and the server's RSS growth per connected player.

**Login storm**: a real ``maid run`` (Ironvale) with MAID's real scrypt parameters;
players already in the game send ``look`` with a think time; after a while 200 new
connections create accounts at once, from a load client of their own. Reported: the
players' p99 before and during the storm, the creations' times, how many were told
their place in line, and how often the players' client was itself late.

On a machine of two or more CPUs the storm's server runs on half of them and the
load clients on the other half (``split_cpus``), the newcomers' client below the
players' in priority: what the players' round trips measure is then the server,
not the load clients' own work and scheduling on the server's CPUs, which on two
shared cores made most of the storm's tail (the players' client was late for its
own timers three to ten times as often during the storm as before it). Players and
newcomers come from other machines in a real game. The evening and its echo
baseline are run the same way (``cpus="apart"``, the default; ``"shared"``: every
process on every CPU, as before): on two shared cores each answer's write to the
load client on loopback woke the client onto the server's CPU, a write then
taking 0.13-0.15 ms of the server's wall time against 0.04 ms apart.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import (
    REPO,
    cpu_stat,
    fmt,
    loadavg,
    proc_cpu,
    proc_rss_mib,
    stolen_share,
    summary,
    table,
)
from benchmarks.telnet_load import (
    Proc,
    _clean_env,
    digest,
    maid_argv,
    maid_env,
    scrape,
    start_echo,
)

_READY = re.compile(r"EVENING ready telnet (\d+) metrics (\d+)")
_MAID_LISTEN = re.compile(r"MAID (telnet|metrics) listening on ([\d.]+):(\d+)")
TICK_INTERVAL_S = 0.1  # the default tick rate, 10 per second


@dataclass
class Sizes:
    rooms: int = 2000
    npcs: int = 10_000
    quests: int = 200
    fights: int = 50
    players: int = 200
    #: Seconds of play, and the mean pause between a player's commands.
    duration: float = 40.0
    think_ms: float = 1000.0
    #: Seconds into the play when every player sends a command at once (the
    #: burst, reported apart from the mix's answers).
    burst_at: float = 20.0
    #: Seconds the world ticks with nobody on before the players come: first
    #: ``warmup_s`` (the world's first minutes run its first detection rounds and
    #: quest builds; reported apart), then ``idle_s`` measured.
    warmup_s: float = 20.0
    idle_s: float = 10.0
    #: Then, before the players come, the world's own RSS growth is waited out:
    #: until it moved less than ``rss_settle_mib`` over ``rss_settle_window_s``
    #: (at most ``rss_settle_max_s``). With nobody on, the 10,000-NPC world grows
    #: about 40 MiB in its first two to three minutes (its memories, gossip and
    #: quest records filling up, the checkpoints' buffers) and then stays flat:
    #: measured from before that, 200 players were charged 200 KiB each for it.
    rss_settle_window_s: float = 20.0
    rss_settle_mib: float = 2.0
    rss_settle_max_s: float = 240.0
    storm_players: int = 50
    storm: int = 200
    storm_after: float = 10.0
    storm_think_ms: float = 250.0
    #: None: MAID's real scrypt parameters in the storm.
    storm_scrypt_n: int | None = None


def sizes(mode: str) -> Sizes:
    if mode == "quick":
        return Sizes(
            rooms=100,
            npcs=200,
            quests=5,
            fights=2,
            players=5,
            duration=3.0,
            think_ms=100.0,
            burst_at=1.5,
            warmup_s=1.0,
            idle_s=1.0,
            rss_settle_window_s=1.0,
            rss_settle_max_s=3.0,
            storm_players=3,
            storm=20,
            storm_after=1.0,
            storm_think_ms=50.0,
            storm_scrypt_n=1024,
        )
    return Sizes()


def wait_for_flat_rss(
    read_rss: Callable[[], float | None],
    window: float,
    tolerance_mib: float,
    limit: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[float, bool]:
    """Wait until the RSS ``read_rss`` gives moved less than ``tolerance_mib`` over
    the last ``window`` seconds, or ``limit`` seconds have passed. Returns the
    seconds waited and whether it settled."""
    start = clock()
    samples: deque[tuple[float, float]] = deque()
    while True:
        now = clock()
        rss = read_rss()
        if rss is not None:
            samples.append((now, rss))
        while samples and samples[0][0] < now - window:
            samples.popleft()
        if now - start >= window and samples:
            values = [v for _, v in samples]
            if max(values) - min(values) < tolerance_mib:
                return now - start, True
        if now - start >= limit:
            return now - start, False
        sleep(0.5)


class RssSampler:
    """The server's RSS every quarter second, with the monotonic time, and the
    machine's CPU ticks (wanted, stolen by its host) read with it."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, float]] = []
        self.cpu: list[tuple[float, tuple[int, int]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = proc_rss_mib(self.pid)
            now = time.monotonic()
            if rss is not None:
                self.samples.append((now, rss))
            stat = cpu_stat()
            if stat is not None:
                self.cpu.append((now, stat))
            self._stop.wait(0.25)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def max_between(self, start: float, end: float) -> float | None:
        inside = [rss for t, rss in self.samples if start <= t <= end]
        return max(inside) if inside else None

    def stolen_between(self, start: float, end: float) -> float | None:
        """The share of the CPU time the machine wanted that its host gave to
        others, between the readings nearest ``start`` and ``end`` inside them."""
        inside = [stat for t, stat in self.cpu if start <= t <= end]
        return stolen_share(inside[0], inside[-1]) if len(inside) > 1 else None

    def at(self, when: float) -> float | None:
        """The last RSS read at or before ``when``."""
        before = [rss for t, rss in self.samples if t <= when]
        return before[-1] if before else None


def load_client(
    port: int,
    pid: int,
    players: int,
    extra: list[str],
    timeout: float,
    cpus: set[int] | None = None,
) -> Any:
    """Run the load client to its end and return its JSON; ``cpus``: the CPUs it
    (and the clients it starts) may run on."""
    argv = [
        sys.executable,
        "-m",
        "benchmarks.loadclient",
        "--port",
        str(port),
        "--clients",
        str(players),
        "--server-pid",
        str(pid),
        *extra,
    ]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(REPO),
        env=_clean_env(),
        check=False,
        preexec_fn=None if cpus is None else (lambda: os.sched_setaffinity(0, cpus)),
    )
    if done.returncode != 0:
        raise RuntimeError(f"load client failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mix_args(sz: Sizes, mode: str) -> list[str]:
    return [
        "--mode",
        mode,
        "--mix",
        "evening",
        "--duration",
        str(sz.duration),
        "--think-ms",
        str(sz.think_ms),
        "--burst-at",
        str(sz.burst_at),
        "--stagger-ms",
        "10",
        "--settle",
        "1",
        "--login-timeout",
        "300",
        "--command-timeout",
        "30",
        "--phase-timeout",
        str(sz.duration + 120),
    ]


def tick_figures(ticks: list[list[float]], start: float, end: float) -> dict[str, Any]:
    rows = [row for row in ticks if start <= row[0] <= end]
    inside = [row[1] for row in rows]
    return {
        "ticks": len(inside),
        "ms": summary(inside),
        "overruns": sum(1 for e in inside if e > TICK_INTERVAL_S),
        # Overruns of ticks that began by waiting for the world lock (held by a
        # command, a login or a checkpoint's collection).
        "overruns_waited": sum(
            1 for row in rows if row[1] > TICK_INTERVAL_S and len(row) > 2 and row[2]
        ),
        "over_10ms": sum(1 for e in inside if e > 0.010),
        "slow": slow_ticks(rows),
        "systems": system_tails(rows),
        # The tick's own CPU (thread time): what it cost without the moments the
        # machine gave to other processes, which a shared machine's wall time holds.
        "cpu_ms": summary([float(row[8]) / 1000 for row in rows if len(row) >= 10]),
        "systems_cpu": system_tails(rows, 9),
    }


def system_tails(rows: list[list[Any]], column: int = 7) -> dict[str, dict[str, float | None]]:
    """system -> p50 / p99 / max of its ms per tick over ``rows`` (a tick it took
    under 0.1 ms in counts as 0), the largest p99 first: which systems make the
    tick's tail, and by how much. ``column``: the rows' wall ms (7) or CPU ms (9)."""
    per: dict[str, list[float]] = {}
    timed = [row for row in rows if len(row) > column and isinstance(row[column], dict)]
    for i, row in enumerate(timed):
        for name, ms in row[column].items():
            per.setdefault(str(name), [0.0] * len(timed))[i] = float(ms)
    out = {name: summary([ms / 1000 for ms in values]) for name, values in per.items()}
    return dict(sorted(out.items(), key=lambda kv: -(kv[1]["p99"] or 0.0)))


def burst_figures(
    burst: dict[str, Any] | None, ticks: list[list[float]] | None = None
) -> dict[str, Any] | None:
    """The burst's answers (``burst``: the load client's ``burst``) and, given the
    server's tick rows, the ticks from the burst until its last answer."""
    if not burst:
        return None
    rtts = burst["rtts"]
    out: dict[str, Any] = {"rtt_ms": summary(rtts)}
    if ticks is not None:
        start = burst["at_monotonic"]
        # A tick that began just before the burst may be the one the commands wait for.
        end = start + (max(rtts) if rtts else 0.0)
        inside = [row[1] for row in ticks if start - TICK_INTERVAL_S <= row[0] <= end]
        out["ticks"] = len(inside)
        out["tick_max_ms"] = max(inside) * 1000 if inside else None
        out["overruns"] = sum(1 for e in inside if e > TICK_INTERVAL_S)
    return out


def collect_figures(rows: list[list[float]], start: float, end: float) -> dict[str, Any]:
    """The collections of changes under the world lock between ``start`` and ``end``."""
    inside = [row[1] for row in rows if start <= row[0] <= end]
    return {**summary(inside), "total_ms": sum(inside) * 1000}


def slow_ticks(rows: list[list[Any]]) -> dict[str, Any]:
    """What the ticks over 10 ms were busy with (the server's tick rows: start,
    seconds, waited, gc ms, write under way, slowest system, its ms)."""
    slow = [row for row in rows if row[1] > 0.010 and len(row) >= 7]
    by_system: dict[str, int] = {}
    for row in slow:
        by_system[str(row[5])] = by_system.get(str(row[5]), 0) + 1
    return {
        "n": len(slow),
        "with_gc": sum(1 for row in slow if row[3] >= 1.0),
        "gc_ms": sum(float(row[3]) for row in slow),
        "gc_ms_all": sum(float(row[3]) for row in rows if len(row) >= 7),
        "write_under_way": sum(1 for row in slow if row[4]),
        "write_under_way_all": sum(1 for row in rows if len(row) >= 7 and row[4]),
        "slowest_system": dict(sorted(by_system.items(), key=lambda kv: -kv[1])),
        "slowest_system_ms": summary([float(row[6]) / 1000 for row in slow]),
    }


def system_times(metrics: dict[str, float]) -> dict[str, float]:
    """system -> mean ms per update, from the scraped histograms, slowest first."""
    sums, counts = {}, {}
    for name, value in metrics.items():
        head, _, label = name.partition("{")
        system = label.split('"')[1] if '"' in label else ""
        if head == "maid_system_update_duration_seconds_sum":
            sums[system] = value
        elif head == "maid_system_update_duration_seconds_count":
            counts[system] = value
    means = {k: sums[k] * 1000 / counts[k] for k in sums if counts.get(k)}
    return dict(sorted(means.items(), key=lambda kv: -kv[1]))


def slices_line(metrics: dict[str, float]) -> str | None:
    """How often the systems that spread their work stopped at their share of a
    tick (``tick_slice``, or what was left of ``tick_budget``), over the whole run:
    work put off to later ticks."""
    ticks = metrics.get("maid_ticks_total", 0.0)
    cut = {
        name.split('"')[1]: value
        for name, value in metrics.items()
        if name.startswith("maid_tick_slices_spent_total{")
    }
    if not ticks or not cut:
        return None
    return (
        "Updates that stopped at their share of the tick (their own `tick_slice`, or "
        f"what was left of the tick's `tick_budget`), over the whole run's {ticks:.0f} "
        "ticks: "
        + ", ".join(f"{system} {n:.0f}" for system, n in sorted(cut.items(), key=lambda kv: -kv[1]))
        + "."
    )


def questgen_line(metrics: dict[str, float]) -> str | None:
    """What quest generation saw and registered over the whole run: whether work
    put off to later ticks left it with less done."""

    def total(prefix: str) -> float:
        return sum(v for name, v in metrics.items() if name.startswith(prefix))

    signals = total("maid_questgen_signals_total{")
    accepted = metrics.get('maid_questgen_signals_total{outcome="accepted"}', 0.0)
    built = total("maid_questgen_quests_built_total{")
    if not signals and not built:
        return None
    return (
        f"Quest generation over the whole run: {signals:.0f} story signals seen "
        f"({accepted:.0f} accepted), {built:.0f} quests registered."
    )


def between_ticks_line(metrics: dict[str, float]) -> str:
    """The collector's full collections and the checkpoints, from the scraped
    counters: what runs between ticks and holds up commands meanwhile."""
    kinds = []
    for name, value in metrics.items():
        if name.startswith("maid_gc_pause_seconds_count{"):
            kind = name.split('"')[1]
            total = metrics.get(name.replace("_count{", "_sum{"), 0.0)
            if value:
                kinds.append(f"{value:.0f} {kind} ({total * 1000 / value:.0f} ms each)")
    n = metrics.get("maid_checkpoint_duration_seconds_count", 0.0)
    write = metrics.get("maid_checkpoint_duration_seconds_sum", 0.0)
    c_n = metrics.get("maid_checkpoint_collect_seconds_count", 0.0)
    c_sum = metrics.get("maid_checkpoint_collect_seconds_sum", 0.0)
    c_max = metrics.get("maid_checkpoint_collect_max_seconds", 0.0)
    return (
        "Between ticks, over the whole run: the collector ran "
        + (", ".join(kinds) if kinds else "no full collection")
        + f"; {n:.0f} writes of the world ({write:.1f} s writing, off the world lock)"
        + (
            f", collected in {c_n:.0f} pieces under the world lock since start ("
            f"{c_sum * 1000:.0f} ms in all, the longest {c_max * 1000:.0f} ms, with the first "
            "checkpoint, which writes the whole new world)."
            if c_n
            else "."
        )
    )


def by_command(rtts: list[float], verbs: list[str]) -> dict[str, dict[str, float | None]]:
    """Answer times (ms) of each command of the mix apart: which commands make the
    tail. Empty when the load client did not say which command each answer was."""
    if len(verbs) != len(rtts):
        return {}
    grouped: dict[str, list[float]] = {}
    for rtt, verb in zip(rtts, verbs, strict=True):
        grouped.setdefault(verb, []).append(rtt)
    return {verb: summary(values) for verb, values in sorted(grouped.items())}


class MemorySnapshots:
    """Asks the evening server (``--memory``) for allocation snapshots: one now,
    waiting for it, then one every ``every`` seconds from a thread until stopped."""

    def __init__(self, pid: int, directory: Path) -> None:
        self.pid = pid
        self.directory = directory
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def take(self, timeout: float = 300.0) -> None:
        taken = len(list(self.directory.glob("snap-*.rss")))
        os.kill(self.pid, signal.SIGHUP)
        deadline = time.monotonic() + timeout
        while len(list(self.directory.glob("snap-*.rss"))) <= taken:
            if time.monotonic() > deadline:
                raise RuntimeError("the evening server wrote no memory snapshot")
            time.sleep(0.5)

    def every(self, seconds: float) -> None:
        def run() -> None:
            while not self._stop.wait(seconds):
                self.take()

        self._thread = threading.Thread(target=run, name="memory-snapshots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def run_evening(
    sz: Sizes,
    workdir: Path,
    log: Any,
    profile: Path | None = None,
    server_env: dict[str, str] | None = None,
    memory: Path | None = None,
    apart: bool = True,
) -> dict[str, Any]:
    data = workdir / "evening-data"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    ticks_json = workdir / "evening-ticks.json"
    argv = [
        sys.executable,
        "-m",
        "benchmarks.evening_server",
        "--rooms",
        str(sz.rooms),
        "--npcs",
        str(sz.npcs),
        "--quests",
        str(sz.quests),
        "--fights",
        str(sz.fights),
        "--data-dir",
        str(data),
        "--ticks-json",
        str(ticks_json),
        *(["--profile", str(profile)] if profile is not None else []),
        *(["--memory", str(memory)] if memory is not None else []),
    ]
    started = time.monotonic()
    proc = Proc("evening", argv, maid_env(1024, data, server_env or {}), workdir)
    out: dict[str, Any] = {}
    try:
        ready = proc.wait_for(_READY, 1, timeout=600)[0]
        port, metrics_port = int(ready.group(1)), int(ready.group(2))
        out["build_s"] = time.monotonic() - started
        log(
            f"    world up in {out['build_s']:.0f} s; warming up {sz.warmup_s:.0f} s, "
            f"idling {sz.idle_s:.0f} s ..."
        )
        warmup = (time.monotonic(), 0.0)
        out["rss_mib_idle_start"] = proc_rss_mib(proc.pid)
        time.sleep(sz.warmup_s)
        idle = (time.monotonic(), 0.0)
        warmup = (warmup[0], idle[0])
        time.sleep(sz.idle_s)
        idle = (idle[0], time.monotonic())
        pid = proc.pid
        out["rss_settle_s"], out["rss_settled"] = wait_for_flat_rss(
            lambda: proc_rss_mib(pid),
            sz.rss_settle_window_s,
            sz.rss_settle_mib,
            sz.rss_settle_max_s,
        )
        if memory is not None:
            snapshots = MemorySnapshots(proc.pid, memory)
            snapshots.take()
        rss_before = proc_rss_mib(proc.pid)
        cpus = pin_apart(proc.pid) if apart else None
        out["cpus"] = cpu_figures(cpus)
        with RssSampler(proc.pid) as rss:
            if memory is not None:
                snapshots.every(sz.duration / 4)
            raw = load_client(
                port,
                proc.pid,
                sz.players,
                _mix_args(sz, "maid"),
                sz.duration + 900,
                cpus=None if cpus is None else cpus[1],
            )
        if memory is not None:
            snapshots.stop()
            snapshots.take()  # once they have gone
        # Where the ticks' time went, system by system.
        out["metrics"] = scrape(
            metrics_port,
            (
                "maid_system_update_duration_seconds_sum{",
                "maid_system_update_duration_seconds_count{",
                "maid_checkpoint_collect",
                "maid_tick_slices_spent_total{",
                "maid_questgen_signals_total{",
                "maid_questgen_quests_built_total{",
            ),
        )
    finally:
        # A tick may run for seconds (the figures say so): give it time to end so
        # that the server writes its tick log.
        out["exit_code"] = proc.stop(timeout=120)
    log_json = json.loads(ticks_json.read_text()) if ticks_json.exists() else {}
    ticks = log_json.get("ticks", [])
    out["deep_at_end"] = log_json.get("deep_at_end") or {}
    out["dumps"] = log_json.get("dumps") or {}
    out["event_loop"] = log_json.get("event_loop", "")
    play = raw["phase_monotonic"]
    out.update(digest(raw))
    out["rtt_ms_by_command"] = by_command(raw.get("rtts", []), raw.get("rtt_verbs", []))
    out["tick_warmup"] = tick_figures(ticks, *warmup)
    out["tick_idle"] = tick_figures(ticks, *idle)
    out["tick_play"] = tick_figures(ticks, play[0], play[1])
    out["stolen_idle"] = rss.stolen_between(*idle)
    out["stolen_play"] = rss.stolen_between(play[0], play[1])
    out["burst"] = burst_figures(raw.get("burst"), ticks)
    collections = log_json.get("collections", [])
    out["collect_idle"] = collect_figures(collections, *idle)
    out["collect_play"] = collect_figures(collections, play[0], play[1])
    peak = rss.max_between(play[0], play[1])
    out["rss_mib_before"] = rss_before
    out["systems_ms_per_tick"] = system_times(out.get("metrics", {}))
    out["rss_mib_peak_playing"] = peak
    out["rss_kib_per_player"] = (
        (peak - rss_before) * 1024 / raw["logged_in"]
        if peak is not None and rss_before is not None and raw["logged_in"]
        else None
    )
    # Apart: what the players cost once in (sessions, characters, accounts) before
    # they did anything, and what is left once they have gone.
    in_game = rss.at(play[0])
    out["rss_mib_logged_in"] = in_game
    out["rss_kib_per_player_logged_in"] = (
        (in_game - rss_before) * 1024 / raw["logged_in"]
        if in_game is not None and rss_before is not None and raw["logged_in"]
        else None
    )
    out["rss_mib_after"] = rss.samples[-1][1] if rss.samples else None
    return out


def run_echo(sz: Sizes, workdir: Path, loop: str = "asyncio", apart: bool = True) -> dict[str, Any]:
    proc, port = start_echo(workdir, loop)
    try:
        cpus = pin_apart(proc.pid) if apart else None
        cpu0 = proc_cpu(proc.pid)
        raw = load_client(
            port,
            proc.pid,
            sz.players,
            _mix_args(sz, "echo"),
            sz.duration + 600,
            cpus=None if cpus is None else cpus[1],
        )
        out = digest(raw)
        out["cpus"] = cpu_figures(cpus)
        out["burst"] = burst_figures(raw.get("burst"))
        out["server_cpu_total_s"] = (proc_cpu(proc.pid) or 0.0) - (cpu0 or 0.0)
    finally:
        out["exit_code"] = proc.stop()
    return out


def split_cpus() -> tuple[set[int], set[int]] | None:
    """The storm's CPUs: (the server's, the load clients'), half each, or None on a
    machine with one."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    half = len(cpus) // 2
    return set(cpus[:half]), set(cpus[half:])


def pin(pid: int, cpus: set[int]) -> None:
    """Every thread of process ``pid`` onto ``cpus`` (threads it starts later
    inherit it from theirs)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(tid), cpus)


def pin_apart(pid: int) -> tuple[set[int], set[int]] | None:
    """Process ``pid`` (a server) onto its half of the CPUs (``split_cpus``);
    returns both halves for the load clients to take the other, or None on a
    machine with one CPU."""
    cpus = split_cpus()
    if cpus is not None:
        pin(pid, cpus[0])
    return cpus


def cpu_figures(cpus: tuple[set[int], set[int]] | None) -> dict[str, list[int]] | None:
    """The CPUs of the server and of the load clients, for the report."""
    return None if cpus is None else {"server": sorted(cpus[0]), "clients": sorted(cpus[1])}


def run_storm(sz: Sizes, workdir: Path, server_env: dict[str, str] | None = None) -> dict[str, Any]:
    data = workdir / "storm-data"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    proc = Proc(
        "storm",
        [*maid_argv(), "--data-dir", str(data)],
        maid_env(sz.storm_scrypt_n, data, server_env or {}),
        workdir,
    )
    try:
        found = proc.wait_for(_MAID_LISTEN, 2, timeout=120)
        port = {m.group(1): int(m.group(3)) for m in found}["telnet"]
        cpus = pin_apart(proc.pid)
        raw = load_client(
            port,
            proc.pid,
            sz.storm_players,
            [
                "--command",
                "look",
                "--duration",
                "900",
                "--think-ms",
                str(sz.storm_think_ms),
                "--storm",
                str(sz.storm),
                "--storm-after",
                str(sz.storm_after),
                "--login-timeout",
                "600",
                "--phase-timeout",
                "900",
            ],
            1800,
            cpus=None if cpus is None else cpus[1],
        )
    finally:
        code = proc.stop()
    storm = raw["storm"] or {}
    before = summary(storm.get("rtts_before", []))
    during = summary(storm.get("rtts_during", []))
    p99b, p99d = before["p99"], during["p99"]
    # The event loop's extra CPU per creation: its CPU during the storm less what
    # the players' commands took at the rate before it.
    loop_ms = None
    cpu_b, cpu_d = storm.get("loop_cpu_before_s"), storm.get("loop_cpu_during_s")
    if cpu_b is not None and cpu_d is not None and storm.get("created"):
        extra = cpu_d - cpu_b / storm["before_s"] * storm["wall"]
        loop_ms = 1000 * extra / storm["created"]
    return {
        "players": raw["logged_in"],
        "player_login_ms": summary(raw["login_times"]),
        "storm": storm.get("connections", 0),
        "created": storm.get("created", 0),
        "create_ms": summary(storm.get("create_times", [])),
        "told_place_in_line": storm.get("told_place_in_line", 0),
        "storm_wall_s": storm.get("wall"),
        "storm_started_monotonic": storm.get("started_monotonic"),
        "cpus": cpu_figures(cpus),
        "client_late_per_s": storm.get("client_late_per_s"),
        "rtt_before_ms": before,
        "rtt_during_ms": during,
        "rtt_during_at": storm.get("rtts_during_at", []),
        "loop_cpu_ms_per_creation": loop_ms,
        "p99_increase": (p99d / p99b - 1) if p99b and p99d is not None else None,
        "errors": storm.get("errors", []) + raw["error_samples"],
        "exit_code": code,
        "scrypt": "default (n=2^14, r=8, p=1)"
        if sz.storm_scrypt_n is None
        else f"MAID_SCRYPT_N={sz.storm_scrypt_n}",
    }


def run(
    mode: str,
    log: Any = print,
    keep: bool = False,
    profile: Path | None = None,
    parts: tuple[str, ...] = ("evening", "echo", "storm"),
    server_env: dict[str, str] | None = None,
    memory: Path | None = None,
    echo_loop: str = "asyncio",
    cpus: str = "apart",
) -> dict[str, Any]:
    """The evening (``evening``), its echo baseline (``echo``) and the login storm
    (``storm``); ``profile``: the evening server's cProfile statistics go there;
    ``server_env``: settings (``MAID_*``) for MAID's servers, the evening's and
    the storm's; ``echo_loop``: the echo server's event loop; ``memory``: the
    evening server's allocation snapshots go there (before the players, every
    quarter of their play, and once they have gone); ``cpus``: ``apart`` runs the
    evening's server and the echo server on half the CPUs and their load client
    on the other half, ``shared`` all of them on every CPU (the storm always runs
    apart)."""
    if cpus not in ("apart", "shared"):
        raise ValueError(f"cpus must be 'apart' or 'shared', not {cpus!r}")
    apart = cpus == "apart"
    sz = sizes(mode)
    workdir = Path(tempfile.mkdtemp(prefix="maid-bench-evening-"))
    res: dict[str, Any] = {
        "sizes": asdict(sz),
        "loadavg_before": loadavg(),
        "server_env": dict(server_env or {}),
        "echo_loop": echo_loop,
        "cpus": cpus,
    }
    try:
        if "evening" in parts:
            log(f"  evening: {sz.players} players on {sz.rooms} rooms / {sz.npcs} NPCs ...")
            res["maid"] = run_evening(sz, workdir, log, profile, server_env or {}, memory, apart)
            m = res["maid"]
            log(
                f"    answered {m['answered']}/{m['expected']}, rtt p99 "
                f"{fmt(m['rtt_ms']['p99'])} ms, tick p99 {fmt(m['tick_play']['ms']['p99'], 2)} "
                f"ms, {fmt(m['rss_kib_per_player'], 0)} KiB per player"
            )
        if "echo" in parts:
            log("  evening: echo baseline ...")
            res["echo"] = run_echo(sz, workdir, echo_loop, apart)
            e = res["echo"]
            if e["rtt_ms"]["p99"] and "maid" in res:
                res["ratio_p99"] = res["maid"]["rtt_ms"]["p99"] / e["rtt_ms"]["p99"]
            log(f"    echo rtt p99 {fmt(e['rtt_ms']['p99'])} ms")
        if "storm" in parts:
            log(f"  login storm: {sz.storm} creations while {sz.storm_players} play ...")
            res["storm"] = run_storm(sz, workdir, server_env)
            s = res["storm"]
            log(
                f"    created {s['created']}/{s['storm']}, p99 before "
                f"{fmt(s['rtt_before_ms']['p99'])} during {fmt(s['rtt_during_ms']['p99'])} ms"
            )
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    res["loadavg_after"] = loadavg()
    return res


def _cpus_line(out: dict[str, Any]) -> str:
    if not out:
        return ""
    cpus = out.get("cpus")
    if not cpus:
        return " The servers and their load client shared every CPU."
    return (
        f" The servers ran on CPU {', '.join(map(str, cpus['server']))}, their load "
        f"client on CPU {', '.join(map(str, cpus['clients']))}."
    )


def markdown(res: dict[str, Any]) -> str:
    sz = res["sizes"]
    m, e = res.get("maid", {}), res.get("echo", {})
    env = res.get("server_env") or {}
    parts = [
        (
            f"Evening server settings: {', '.join(f'{k}={v}' for k, v in env.items())}.\n\n"
            if env
            else ""
        )
        + f"{sz['players']} players spread over {sz['rooms']} rooms ({sz['npcs']} NPCs, "
        f"{sz['quests']} accepted quests, {sz['fights']} fights at the start), each "
        f"playing the evening mix for {sz['duration']:.0f} s with {sz['think_ms']:.0f} ms "
        f"of thought on average before each command; the world ticked "
        f"{sz.get('warmup_s', 0) + sz['idle_s']:.0f} s with nobody on before they came "
        f"(the first {sz.get('warmup_s', 0):.0f} s reported apart)."
        + (
            f" Event loops: MAID {m.get('event_loop') or '?'}, "
            f"echo {res.get('echo_loop', 'asyncio')}."
            if m and e
            else ""
        )
        + _cpus_line(m or e)
    ]
    rows = []
    for name, out in (("echo", e), ("maid", m)):
        if not out:
            continue
        rtt = out["rtt_ms"]
        rows.append(
            [
                name,
                f"{out['logged_in']}/{sz['players']}",
                f"{out['answered']}/{out['expected']}",
                f"{fmt(rtt['p50'])} / {fmt(rtt['p95'])} / {fmt(rtt['p99'])} / {fmt(rtt['max'])}",
                fmt(out["commands_per_s"], 0),
                fmt(out["cpu_ms_per_command"], 3),
            ]
        )
    parts.append(
        table(
            ["server", "logged in", "answered", "rtt p50/p95/p99/max ms", "cmds/s", "CPU ms/cmd"],
            rows,
        )
    )
    if m:
        parts.append(f"Command p99, MAID / echo: **{fmt(res.get('ratio_p99'), 2)}** (target < 2).")
        burst = m.get("burst")
        if burst:
            b, eb = burst["rtt_ms"], (e.get("burst") or {}).get("rtt_ms")
            parts.append(
                f"The burst, {sz.get('burst_at', 0):.0f} s into the play, every player "
                f"sending a command at once (not in the figures above): MAID answered "
                f"{b['n']} in p50 / p99 / max {fmt(b['p50'])} / {fmt(b['p99'])} / "
                f"{fmt(b['max'])} ms"
                + (
                    f" (echo: {eb['n']} in {fmt(eb['p50'])} / {fmt(eb['p99'])} / "
                    f"{fmt(eb['max'])} ms)"
                    if eb
                    else ""
                )
                + f"; the ticks from it to its last answer: {burst.get('ticks', 0)}, the "
                f"longest {fmt(burst.get('tick_max_ms'), 1)} ms, "
                f"{burst.get('overruns', 0)} overruns."
            )
        verbs = m.get("rtt_ms_by_command") or {}
        if verbs:
            slowest = sorted(verbs.items(), key=lambda kv: -(kv[1]["p99"] or 0.0))
            parts.append(
                "MAID's answers by command (n, p50 / p99 / max ms, the slowest p99 first): "
                + "; ".join(
                    f"`{verb}` {f['n']}, {fmt(f['p50'])} / {fmt(f['p99'])} / {fmt(f['max'])}"
                    for verb, f in slowest
                )
                + "."
            )
        tick_rows = []
        for label, key in (
            (f"the world's first {sz.get('warmup_s', 0):.0f} s, nobody on", "tick_warmup"),
            ("world idle, nobody on", "tick_idle"),
            ("players playing", "tick_play"),
        ):
            t = m.get(key)
            if t is None:
                continue
            ms = t["ms"]
            tick_rows.append(
                [
                    label,
                    t["ticks"],
                    f"{fmt(ms['p50'], 2)} / {fmt(ms['p95'], 2)} / {fmt(ms['p99'], 2)} / "
                    f"{fmt(ms['max'], 1)}",
                    t["over_10ms"],
                    f"{t['overruns']} ({t.get('overruns_waited', 0)} waited for the lock)",
                ]
            )
        parts.append(
            table(
                ["ticks while", "ticks", "p50/p95/p99/max ms", "over 10 ms", "overruns (> 100 ms)"],
                tick_rows,
            )
        )
        stolen = [
            f"{share:.1%} {label}"
            for label, share in (
                ("with nobody on", m.get("stolen_idle")),
                ("while they played", m.get("stolen_play")),
            )
            if share is not None
        ]
        if stolen:
            # A virtual machine's host taking the CPU away stretches a tick or an
            # answer whatever the code: the tails read with it.
            parts.append(
                "Of the CPU time the machine wanted, its host gave to others "
                "(steal, `/proc/stat`): " + ", ".join(stolen) + "."
            )
        for label, key in (
            ("in the world's first seconds", "tick_warmup"),
            ("with nobody on", "tick_idle"),
            ("while they played", "tick_play"),
        ):
            slow = (m.get(key) or {}).get("slow")
            if slow and slow["n"]:
                top = list(slow["slowest_system"].items())[:4]
                culprits = ", ".join(f"{k} {v}" for k, v in top)
                parts.append(
                    f"Ticks over 10 ms {label}: {slow['n']}; {slow['with_gc']} with a garbage "
                    f"collection inside ({fmt(slow['gc_ms'], 0)} ms of "
                    f"{fmt(slow['gc_ms_all'], 0)} ms inside all ticks), {slow['write_under_way']} "
                    f"began while a write of the world was under way "
                    f"({slow['write_under_way_all']} of all ticks); their slowest system: "
                    f"{culprits} (its p50 / p99 "
                    f"{fmt(slow['slowest_system_ms']['p50'])} / "
                    f"{fmt(slow['slowest_system_ms']['p99'])} ms)."
                )
            figures = m.get(key) or {}
            cpu = figures.get("cpu_ms") or {}
            if cpu.get("n"):
                parts.append(
                    f"The tick's CPU {label} (thread time, without the machine's other "
                    f"work): p50 / p99 / max {fmt(cpu['p50'], 2)} / {fmt(cpu['p99'], 2)} / "
                    f"{fmt(cpu['max'], 1)} ms."
                )
            for what, column in (("ms", "systems"), ("CPU ms", "systems_cpu")):
                tails = list((figures.get(column) or {}).items())[:6]
                if tails:
                    parts.append(
                        f"Systems' {what} per tick {label} (p50 / p99 / max, the largest p99 "
                        "first): "
                        + "; ".join(
                            f"{name} {fmt(t['p50'], 2)} / {fmt(t['p99'], 2)} / {fmt(t['max'], 1)}"
                            for name, t in tails
                        )
                        + "."
                    )
        parts.append(between_ticks_line(m.get("metrics", {})))
        for line in (slices_line(m.get("metrics", {})), questgen_line(m.get("metrics", {}))):
            if line:
                parts.append(line)
        for label, key in (
            ("with nobody on", "collect_idle"),
            ("while they played", "collect_play"),
        ):
            c = m.get(key)
            if c and c["n"]:
                parts.append(
                    f"Changes collected under the world lock {label} (checkpoint pieces and "
                    f"commits): {c['n']}, p50 / p99 / max {fmt(c['p50'], 2)} / "
                    f"{fmt(c['p99'], 2)} / {fmt(c['max'], 1)} ms, {fmt(c['total_ms'], 0)} ms "
                    "in all."
                )
        dumps = sorted((m.get("dumps") or {}).items(), key=lambda kv: -kv[1][1])
        if dumps:
            total = sum(v[1] for _, v in dumps) or 1.0
            parts.append(
                "Components turned into JSON for checkpoints and commits, the costliest "
                "types (count, ms in all, µs each, share): "
                + "; ".join(
                    f"{name} {n:.0f}, {sec * 1000:.0f} ms, {sec * 1e6 / n:.0f} µs, "
                    f"{sec / total * 100:.0f}%"
                    for name, (n, sec) in dumps[:6]
                    if n
                )
                + "."
            )
        deep = m.get("deep_at_end") or {}
        if deep:
            parts.append(
                f"After the players (the server stopping): a deep collection of the "
                f"{deep['frozen_objects']:.0f} frozen objects and the rest freed "
                f"{deep['freed_objects']:.0f} objects in {fmt(deep['ms'], 0)} ms (cyclic "
                "garbage the policy's freezing kept, and the cost of one deep collection)."
            )
        slowest = list(m.get("systems_ms_per_tick", {}).items())[:6]
        if slowest:
            parts.append(
                "Slowest systems (mean ms per update over the whole run): "
                + ", ".join(f"{name} {fmt(ms, 2)}" for name, ms in slowest)
                + "."
            )
        parts.append(
            f"RSS: {fmt(m.get('rss_mib_idle_start'), 0)} MiB when the world was up, "
            f"{fmt(m['rss_mib_before'], 0)} MiB before the players (after the idle and "
            f"{fmt(m.get('rss_settle_s'), 0)} s more for the world's own growth to "
            f"{'settle' if m.get('rss_settled', True) else 'settle, which it did not'}), "
            f"{fmt(m.get('rss_mib_logged_in'), 0)} MiB once all had logged in, before they "
            f"played ({fmt(m.get('rss_kib_per_player_logged_in'), 0)} KiB a player), "
            f"{fmt(m['rss_mib_peak_playing'], 0)} MiB at most while they played: "
            f"**{fmt(m['rss_kib_per_player'], 0)} KiB per connected player** (target < 100 KB); "
            f"{fmt(m.get('rss_mib_after'), 0)} MiB once they had gone."
        )
    s = res.get("storm")
    if s:
        parts.append(
            f"Login storm ({s['scrypt']}): {s['players']} players in the game sending `look` "
            f"every {sz['storm_think_ms'] * 2 / 1000:.1f} s at most; {s['storm']} connections "
            f"create accounts at once."
        )
        parts.append(
            table(
                ["figure", "value"],
                [
                    ["created", f"{s['created']}/{s['storm']} in {fmt(s['storm_wall_s'])} s"],
                    [
                        "creation time p50/p95/max ms",
                        f"{fmt(s['create_ms']['p50'], 0)} / {fmt(s['create_ms']['p95'], 0)} / "
                        f"{fmt(s['create_ms']['max'], 0)}",
                    ],
                    ["told their place in line", s["told_place_in_line"]],
                    [
                        "players' rtt p50/p99 before the storm ms",
                        f"{fmt(s['rtt_before_ms']['p50'])} / {fmt(s['rtt_before_ms']['p99'])}",
                    ],
                    [
                        "players' rtt p50/p99 during the storm ms",
                        f"{fmt(s['rtt_during_ms']['p50'])} / {fmt(s['rtt_during_ms']['p99'])}",
                    ],
                    [
                        "event loop CPU per creation ms (beyond the players' commands)",
                        fmt(s.get("loop_cpu_ms_per_creation")),
                    ],
                    [
                        "CPUs: server / load clients",
                        "shared"
                        if not s.get("cpus")
                        else f"{s['cpus']['server']} / {s['cpus']['clients']}",
                    ],
                    [
                        "times a second the players' client ran > 2 ms late: before / during",
                        " / ".join(fmt(v) for v in s.get("client_late_per_s") or [None, None]),
                    ],
                    [
                        "p99 increase (target < 20%)",
                        f"**{fmt((s['p99_increase'] or 0) * 100, 0)}%**"
                        if s["p99_increase"] is not None
                        else "-",
                    ],
                ],
            )
        )
    return "\n\n".join(parts)
