"""`maid run` as a real process: listener lines, /metrics, clean SIGTERM."""

from __future__ import annotations

import asyncio
import os
import re
import resource
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

LISTEN = re.compile(rb"MAID (\w+) listening on ([\d.]+):(\d+)")


async def start_server(
    tmp_path: Path, *extra: str, env_extra: dict[str, str] | None = None, **popen: Any
) -> tuple[asyncio.subprocess.Process, dict[str, int]]:
    env = {**os.environ, "MAID_DATA_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    env.update(env_extra or {})
    env.pop("MAID_CONFIG", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "maid_engine.cli",
        "run",
        "--telnet-port",
        "0",
        "--metrics-port",
        "0",
        *extra,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        **popen,
    )
    ports: dict[str, int] = {}
    assert proc.stdout is not None
    while len(ports) < 3:
        line = await asyncio.wait_for(proc.stdout.readline(), timeout=60)
        if not line:
            err = await proc.stderr.read() if proc.stderr else b""
            raise AssertionError(f"server exited early: {err.decode(errors='replace')}")
        m = LISTEN.search(line)
        if m:
            ports[m.group(1).decode()] = int(m.group(3))
    return proc, ports


def proc_line(pid: int, name: str, start: str) -> list[str]:
    """The words of the line of ``/proc/PID/NAME`` that starts with ``start``."""
    text = Path(f"/proc/{pid}/{name}").read_text()
    (line,) = [ln for ln in text.splitlines() if ln.startswith(start)]
    return line.split()


async def http_get(port: int, path: str) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), timeout=10)
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body


async def test_run_serves_metrics_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    proc, ports = await start_server(tmp_path)
    try:
        assert set(ports) == {"telnet", "web", "metrics"}
        status, page = await http_get(ports["web"], "/")
        assert status == 200
        assert 'id="output"' in page
        status, body = await http_get(ports["metrics"], "/metrics")
        assert status == 200
        names = {f.name for f in text_string_to_metric_families(body)}
        assert {
            "maid_tick_duration_seconds",
            "maid_entities",
            "maid_tick_overruns",
            "maid_checkpoint_duration_seconds",
            "maid_events_dispatched",
            "maid_system_update_duration_seconds",
        } <= names
        status, _ = await http_get(ports["metrics"], "/nope")
        assert status == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), timeout=30)
    out = (await proc.stdout.read()).decode() if proc.stdout else ""
    err = (await proc.stderr.read()).decode() if proc.stderr else ""
    assert code == 0, err
    assert "MAID stopped" in out
    assert "Traceback" not in err
    assert (tmp_path / "maid.db").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_the_server_makes_room_for_max_connections_before_players_come(
    tmp_path: Path,
) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # As many connections as this machine's hard limit leaves room for (1,500 on
    # most), so the test runs everywhere rather than skipping where it is low.
    conns = 1500 if hard == resource.RLIM_INFINITY else min(1500, hard - 256)
    soft = min(512, conns // 2)

    def low_soft_limit() -> None:  # as many systems start a service
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    proc, _ = await start_server(
        tmp_path, env_extra={"MAID_MAX_CONNECTIONS": str(conns)}, preexec_fn=low_soft_limit
    )
    try:
        # Max open files: soft, hard, unit; FDSize: the descriptor table's slots.
        assert int(proc_line(proc.pid, "limits", "Max open files")[3]) == conns + 256
        assert int(proc_line(proc.pid, "status", "FDSize:")[1]) >= conns + 256
    finally:
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), timeout=30) == 0


async def test_bad_config_exits_nonzero_with_one_line_per_problem(tmp_path: Path) -> None:
    env = {**os.environ, "MAID_DATA_DIR": str(tmp_path), "MAID_TICK_RATE": "-5"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "maid_engine.cli",
        "run",
        "--telnet-port",
        "99999",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 2
    lines = err.decode().strip().splitlines()
    assert len(lines) == 2
    assert any("telnet_port" in ln for ln in lines)
    assert any("tick_rate" in ln for ln in lines)


async def test_missing_pack_exits_nonzero_naming_it(tmp_path: Path) -> None:
    env = {**os.environ, "MAID_DATA_DIR": str(tmp_path)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "maid_engine.cli",
        "run",
        "--telnet-port",
        "0",
        "--metrics-port",
        "0",
        "--pack",
        "atlantis",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 3
    assert "content pack 'atlantis'" in err.decode()
