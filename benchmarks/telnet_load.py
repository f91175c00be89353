"""Benchmark 1: the telnet load test, MAID against a telnetlib3 echo server.

For every scenario (a client count, commands per client, scrypt cost) it starts, in
their own processes and each on a fresh port:

* the echo baseline (``python -m benchmarks.echo_server``), then
* a real ``maid run`` (default ironvale pack, fresh data dir, port 0), and
* another, whose clients agree to MCCP2 compression (``maid+mccp``),

and runs the load client (``python -m benchmarks.loadclient``, a third process)
against each. The bytes the clients received while the commands ran (on the wire,
and inflated) are reported per command, next to the server's CPU per command.
Every process is killed in ``finally``; every wait is bounded.

Server settings for the run (reported with the figures): per-IP and total
connection limits raised to 5000 (every client comes from 127.0.0.1) and the
per-session command rate limit raised to 1000/s, because a load test is not
abuse -- the same as measuring Evennia "with throttles off".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import REPO, fmt, loadavg, proc_cpu, proc_rss_mib, summary, table

#: MAID's own default (maid_engine.config.Settings.scrypt_n).
DEFAULT_SCRYPT = "default (n=2^14, r=8, p=1)"

#: Every server and client pairing: the echo server, MAID with clients that refuse
#: every option, MAID with clients that take MCCP2, MAID with clients that take GMCP
#: (Char and Room, as Mudlet would for an IRE-style game).
TARGETS = ("echo", "maid", "maid+mccp", "maid+gmcp")

_MAID_LISTEN = re.compile(r"MAID (\w+) listening on ([\d.]+):(\d+)")
_ECHO_LISTEN = re.compile(r"ECHO listening on ([\d.]+):(\d+)")


@dataclass
class Scenario:
    name: str
    clients: int
    commands: int = 20
    #: None = MAID's default scrypt parameters; else MAID_SCRYPT_N.
    scrypt_n: int | None = 1024
    targets: tuple[str, ...] = ("echo", "maid", "maid+mccp")
    command_timeout: float = 30.0
    login_timeout: float = 180.0
    phase_timeout: float = 240.0
    note: str = ""
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def scrypt(self) -> str:
        return DEFAULT_SCRYPT if self.scrypt_n is None else f"MAID_SCRYPT_N={self.scrypt_n}"


def scenarios(mode: str, clients: list[int] | None = None) -> list[Scenario]:
    """The scenarios of a mode: quick (smoke), standard or full."""
    if clients:
        return [Scenario(f"{n} clients", n, commands=20 if n < 1000 else 5) for n in clients]
    if mode == "quick":
        return [
            Scenario(
                "smoke", 5, commands=3, command_timeout=20, login_timeout=60, phase_timeout=60
            ),
        ]
    login = Scenario(
        "login, default scrypt",
        50 if mode == "standard" else 200,
        scrypt_n=None,
        targets=("maid",),
        note="login time with the real password hashing",
    )
    runs = [login, Scenario("50 clients", 50), Scenario("200 clients", 200)]
    if mode == "full":
        runs += [
            Scenario("500 clients", 500),
            Scenario(
                "1000 held",
                1000,
                commands=5,
                command_timeout=60.0,
                login_timeout=300.0,
                phase_timeout=300.0,
                note="1,000 connections logged in and held, 5 looks each",
            ),
        ]
    return runs


class Proc:
    """A child process whose output goes to files; ``stop()`` always reaps it."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logdir: Path) -> None:
        self.name = name
        self.out_path = logdir / f"{name}.out"
        self.err_path = logdir / f"{name}.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.popen = subprocess.Popen(
                argv,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=str(REPO),
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        return self.out_path.read_text(errors="replace") if self.out_path.exists() else ""

    def errors(self, tail: int = 2000) -> str:
        text = self.err_path.read_text(errors="replace") if self.err_path.exists() else ""
        return text[-tail:]

    def wait_for(self, pattern: re.Pattern[str], count: int, timeout: float) -> list[re.Match[str]]:
        deadline = time.monotonic() + timeout
        while True:
            found = list(pattern.finditer(self.output()))
            if len(found) >= count:
                return found
            if self.popen.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited early ({self.popen.returncode}):\n{self.errors()}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not start in {timeout}s:\n{self.errors()}")
            time.sleep(0.05)

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout``; returns the exit code."""
        if self.popen.poll() is None:
            try:
                self.popen.send_signal(signal.SIGTERM)
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                try:
                    self.popen.wait(10)
                except subprocess.TimeoutExpired:
                    pass
        return self.popen.returncode


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def maid_env(scrypt_n: int | None, data_dir: Path, extra: dict[str, str]) -> dict[str, str]:
    env = _clean_env()
    env.update(
        {
            "MAID_DATA_DIR": str(data_dir),
            "MAID_MAX_CONNECTIONS_PER_IP": "5000",
            "MAID_MAX_CONNECTIONS": "5000",
            "MAID_COMMANDS_PER_SECOND": "1000",
            "MAID_COMMAND_BURST": "1000",
            # Every client logs in from 127.0.0.1 at once: the pre-login and byte caps
            # per address are off too, and logins may queue behind scrypt for minutes.
            "MAID_MAX_PRELOGIN_PER_IP": "5000",
            "MAID_INPUT_BYTES_PER_SECOND": "1000000000",
            "MAID_LOGIN_TIMEOUT": "600",
        }
    )
    if scrypt_n is not None:
        env["MAID_SCRYPT_N"] = str(scrypt_n)
    env.update(extra)
    return env


def maid_argv() -> list[str]:
    script = Path(sys.executable).with_name("maid")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "maid_engine.cli"]
    return [
        *base,
        "run",
        "--telnet-port",
        "0",
        "--metrics-port",
        "0",
        "--web-port",
        "0",
        "--telnet-host",
        "127.0.0.1",
        "--metrics-host",
        "127.0.0.1",
    ]


def start_maid(workdir: Path, sc: Scenario) -> tuple[Proc, int, int]:
    data = workdir / "maid-data"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    proc = Proc(
        "maid",
        [*maid_argv(), "--data-dir", str(data)],
        maid_env(sc.scrypt_n, data, sc.extra_env),
        workdir,
    )
    try:
        found = proc.wait_for(_MAID_LISTEN, 2, timeout=120)
    except BaseException:
        proc.stop()
        raise
    ports = {m.group(1): int(m.group(3)) for m in found}
    return proc, ports["telnet"], ports["metrics"]


def start_echo(workdir: Path, loop: str = "asyncio") -> tuple[Proc, int]:
    proc = Proc(
        "echo",
        [sys.executable, "-m", "benchmarks.echo_server", "--port", "0", "--event-loop", loop],
        _clean_env(),
        workdir,
    )
    try:
        found = proc.wait_for(_ECHO_LISTEN, 1, timeout=30)
    except BaseException:
        proc.stop()
        raise
    return proc, int(found[0].group(2))


def scrape(metrics_port: int, extra: tuple[str, ...] = ()) -> dict[str, float]:
    """A few samples of MAID's /metrics (tick health under load); ``extra``: more
    sample name prefixes to keep (labelled ones end in ``{``)."""
    wanted = (
        "maid_ticks_total",
        "maid_tick_overruns_total",
        "maid_tick_duration_seconds_sum",
        "maid_tick_duration_seconds_count",
        "maid_checkpoint_duration_seconds_sum",
        "maid_checkpoint_duration_seconds_count",
        "maid_entities",
    )
    # Collector pauses between ticks, per kind (labelled samples).
    labelled = ("maid_gc_pause_seconds_sum{", "maid_gc_pause_seconds_count{", *extra)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
            body = r.read().decode()
    except OSError:
        return {}
    out: dict[str, float] = {}
    for line in body.splitlines():
        name, _, value = line.partition(" ")
        if name in wanted or name.startswith(labelled):
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


def run_client(port: int, pid: int, sc: Scenario, target: str) -> dict[str, Any]:
    mode = "echo" if target == "echo" else "maid"
    argv = [
        sys.executable,
        "-m",
        "benchmarks.loadclient",
        "--port",
        str(port),
        "--clients",
        str(sc.clients),
        "--commands",
        str(sc.commands),
        "--mode",
        mode,
        "--server-pid",
        str(pid),
        "--command-timeout",
        str(sc.command_timeout),
        "--login-timeout",
        str(sc.login_timeout),
        "--phase-timeout",
        str(sc.phase_timeout),
        *(["--mccp"] if target == "maid+mccp" else []),
        *(["--gmcp"] if target == "maid+gmcp" else []),
    ]
    limit = sc.login_timeout + sc.phase_timeout + 60
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=limit,
        cwd=str(REPO),
        env=_clean_env(),
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"load client failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def digest(raw: dict[str, Any]) -> dict[str, Any]:
    """Percentiles and rates from a load-client result (raw samples dropped)."""
    answered = raw["answered"]
    cmd_cpu = raw["command_cpu"]
    login_cpu = raw["login_cpu"]
    return {
        "clients": raw["clients"],
        "logged_in": raw["logged_in"],
        "login_ms": summary(raw["login_times"]),
        "login_wall_s": raw["login_wall"],
        "login_cpu_ms_each": (login_cpu / raw["logged_in"] * 1000)
        if login_cpu is not None and raw["logged_in"]
        else None,
        "rtt_ms": summary(raw["rtts"]),
        "answered": answered,
        "expected": raw["expected"],
        "timeouts": raw["timeouts"],
        "clients_all_answered": raw["clients_all_answered"],
        "commands_per_s": answered / raw["command_wall"] if raw["command_wall"] > 0 else None,
        "cpu_ms_per_command": (cmd_cpu / answered * 1000)
        if cmd_cpu is not None and answered
        else None,
        "server_cpu_s_commands": cmd_cpu,
        "wire_bytes_per_command": raw["command_wire_bytes"] / answered if answered else None,
        "plain_bytes_per_command": raw["command_plain_bytes"] / answered if answered else None,
        "compressed_connections": raw["compressed_connections"],
        "gmcp_messages": raw["gmcp_messages"],
        "login_wire_bytes_each": raw["login_wire_bytes"] / raw["logged_in"]
        if raw["logged_in"]
        else None,
        "login_plain_bytes_each": raw["login_plain_bytes"] / raw["logged_in"]
        if raw["logged_in"]
        else None,
        "client_cpu_s": raw["client_cpu"],
        "errors": raw["errors"],
        "error_samples": raw["error_samples"],
    }


def run_target(sc: Scenario, target: str, workdir: Path) -> dict[str, Any]:
    """One server (echo or maid) under one scenario's load; the server is always stopped."""
    started = time.monotonic()
    if target == "echo":
        proc, port = start_echo(workdir)
        metrics_port = 0
    else:
        proc, port, metrics_port = start_maid(workdir, sc)
    try:
        cpu_idle0 = proc_cpu(proc.pid)
        raw = run_client(port, proc.pid, sc, target)
        out = digest(raw)
        out["server_rss_mib"] = proc_rss_mib(proc.pid)
        out["server_cpu_total_s"] = (proc_cpu(proc.pid) or 0.0) - (cpu_idle0 or 0.0)
        if metrics_port:
            out["metrics"] = scrape(metrics_port)
    finally:
        code = proc.stop()
    out["exit_code"] = code
    if target != "echo" and code not in (0, None):
        out["server_errors"] = proc.errors(1500)
    out["wall_s"] = time.monotonic() - started
    return out


def run_scenario(sc: Scenario, workdir: Path, log: Any = print) -> dict[str, Any]:
    result: dict[str, Any] = {
        "name": sc.name,
        "clients": sc.clients,
        "commands": sc.commands,
        "scrypt": sc.scrypt,
        "note": sc.note,
        "loadavg_before": loadavg(),
    }
    for target in sc.targets:
        log(f"  telnet: {sc.name}: {target} ...")
        try:
            out = run_target(sc, target, workdir)
        except Exception as exc:  # one broken server must not lose the other figures
            message = f"{type(exc).__name__}: {exc}"
            log(f"    FAILED: {message[-1500:]}")
            result[target] = {"error": message[-3000:]}
            continue
        result[target] = out
        rtt = out["rtt_ms"]
        log(
            f"    logged in {out['logged_in']}/{sc.clients}, answered "
            f"{out['answered']}/{out['expected']}, rtt p50 {fmt(rtt['p50'])} p99 "
            f"{fmt(rtt['p99'])} ms, cpu/cmd {fmt(out['cpu_ms_per_command'], 3)} ms, "
            f"{fmt(out['wire_bytes_per_command'], 0)} bytes/cmd"
        )
    echo, maid = result.get("echo"), result.get("maid")
    if echo and maid and "error" not in echo and "error" not in maid:
        result["ratio"] = {
            q: _ratio(maid["rtt_ms"][q], echo["rtt_ms"][q]) for q in ("p50", "p95", "p99")
        }
        result["ratio"]["cpu_per_command"] = _ratio(
            maid["cpu_ms_per_command"], echo["cpu_ms_per_command"]
        )
    mccp = result.get("maid+mccp")
    if echo and maid and mccp and not any("error" in x for x in (echo, maid, mccp)):
        result["mccp"] = {
            "bytes": _ratio(mccp["wire_bytes_per_command"], maid["wire_bytes_per_command"]),
            "login_bytes": _ratio(mccp["login_wire_bytes_each"], maid["login_wire_bytes_each"]),
            "cpu_per_command": _ratio(mccp["cpu_ms_per_command"], maid["cpu_ms_per_command"]),
            "cpu_vs_echo": _ratio(mccp["cpu_ms_per_command"], echo["cpu_ms_per_command"]),
            "p99_vs_echo": _ratio(mccp["rtt_ms"]["p99"], echo["rtt_ms"]["p99"]),
        }
    result["loadavg_after"] = loadavg()
    return result


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def run(
    mode: str,
    clients: list[int] | None = None,
    log: Any = print,
    keep: bool = False,
    targets: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The mode's scenarios; ``targets``: the servers and clients each runs instead
    of the scenario's own (echo, maid, maid+mccp, maid+gmcp)."""
    unknown = set(targets or ()) - set(TARGETS)
    if unknown:
        raise ValueError(f"unknown telnet targets {sorted(unknown)}; known: {', '.join(TARGETS)}")
    workdir = Path(tempfile.mkdtemp(prefix="maid-bench-telnet-"))
    results = []
    try:
        for sc in scenarios(mode, clients):
            if targets:
                sc.targets = targets
            results.append(run_scenario(sc, workdir, log))
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return {
        "scenarios": results,
        "settings": "MAID_MAX_CONNECTIONS_PER_IP=5000 MAID_MAX_CONNECTIONS=5000 "
        "MAID_COMMANDS_PER_SECOND=1000 MAID_COMMAND_BURST=1000 "
        "MAID_MAX_PRELOGIN_PER_IP=5000 MAID_INPUT_BYTES_PER_SECOND=1000000000 "
        "MAID_LOGIN_TIMEOUT=600; clients started "
        "2 ms apart, all in the start room, 'look' after every client logged in",
        "workdir": str(workdir) if keep else None,
    }


def markdown(res: dict[str, Any]) -> str:
    rows = []
    for sc in res["scenarios"]:
        for target in TARGETS:
            out = sc.get(target)
            if out is None:
                continue
            if "error" in out:
                lines = [x for x in out["error"].splitlines() if x.strip()] or ["?"]
                why = lines[-1][:200].replace("|", "/")
                rows.append([sc["name"], target, "-", f"FAILED: {why}", "", "", "", "", "", "", ""])
                continue
            rtt, login = out["rtt_ms"], out["login_ms"]
            rows.append(
                [
                    sc["name"],
                    target,
                    sc["scrypt"] if target != "echo" else "-",
                    f"{out['logged_in']}/{sc['clients']}",
                    f"{fmt(login['p50'])} / {fmt(login['p95'])} / {fmt(login['p99'])}"
                    if target != "echo"
                    else f"({fmt(login['p50'])} connect)",
                    f"{out['answered']}/{out['expected']}",
                    f"{fmt(rtt['p50'])} / {fmt(rtt['p95'])} / "
                    f"{fmt(rtt['p99'])} / {fmt(rtt['max'])}",
                    fmt(out["commands_per_s"], 0),
                    fmt(out["cpu_ms_per_command"], 3),
                    fmt(out.get("wire_bytes_per_command"), 0),
                    fmt(out.get("server_rss_mib"), 0),
                ]
            )
    body = table(
        [
            "scenario",
            "server",
            "scrypt",
            "logged in",
            "login p50/p95/p99 ms",
            "answered",
            "look rtt p50/p95/p99/max ms",
            "cmds/s",
            "server CPU ms/cmd",
            "bytes sent/cmd",
            "RSS MiB",
        ],
        rows,
    )
    ratios = []
    for sc in res["scenarios"]:
        r = sc.get("ratio")
        if r:
            ratios.append(
                [
                    sc["name"],
                    fmt(r["p50"], 2),
                    fmt(r["p95"], 2),
                    fmt(r["p99"], 2),
                    fmt(r["cpu_per_command"], 1),
                ]
            )
    if ratios:
        body += "\n\nMAID / echo, same run:\n\n" + table(
            ["scenario", "p50", "p95", "p99", "CPU per command"], ratios
        )
    squeezed = [
        [
            sc["name"],
            fmt(m["bytes"], 3),
            fmt(m["login_bytes"], 2),
            fmt(m["cpu_per_command"], 2),
            fmt(m["cpu_vs_echo"], 1),
            fmt(m["p99_vs_echo"], 2),
        ]
        for sc in res["scenarios"]
        if (m := sc.get("mccp"))
    ]
    if squeezed:
        body += "\n\nMCCP2, same run (maid+mccp / maid, and / echo):\n\n" + table(
            ["scenario", "bytes/cmd", "login bytes", "CPU per command", "CPU / echo", "p99 / echo"],
            squeezed,
        )
    return body
