"""Run ``maid run`` as a real process for end-to-end tests.

    server = await ServerProcess.start(tmp_path, env={"MAID_CHECKPOINT_INTERVAL": "0.5"})
    client = await TelnetClient.open(server.host, server.telnet_port)
    await server.wait_checkpoints(after=n, count=2)   # two checkpoints finished since n
    server.kill9()                                     # or: code = await server.terminate()

stdout and stderr go to files in the data folder (``server.log`` / ``server.err``), never
to pipes, so a chatty server can never block on a full pipe. Every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import BinaryIO

from prometheus_client.parser import text_string_to_metric_families

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
_LISTEN = re.compile(r"MAID ([\w+]+) listening on ([\d.]+):(\d+)")

#: Settings that keep a test server fast: cheap scrypt, quick negotiation.
FAST_ENV = {
    "MAID_SCRYPT_N": "1024",
    "MAID_LOG_LEVEL": "INFO",
    "MAID_WEB_PORT": "0",
}


class ServerExited(AssertionError):
    pass


class ServerProcess:
    def __init__(self, proc: asyncio.subprocess.Process, data_dir: Path, run_no: int) -> None:
        self.proc = proc
        self.data_dir = data_dir
        self.run_no = run_no
        self.host = "127.0.0.1"
        self.telnet_port = 0
        #: Telnet over TLS (``--tls-port``); 0 when the server has no TLS listener.
        self.tls_port = 0
        self.metrics_port = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def stdout_path(self) -> Path:
        return self.data_dir / f"server{self.run_no}.log"

    @property
    def stderr_path(self) -> Path:
        return self.data_dir / f"server{self.run_no}.err"

    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace") if self.stdout_path.exists() else ""

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""

    @classmethod
    async def start(
        cls,
        data_dir: Path,
        *,
        database_url: str | None = None,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        within: float = 60.0,
    ) -> ServerProcess:
        """Start ``maid run`` on free ports and wait (up to ``within`` seconds) for its
        listener lines (telnet, metrics, and telnet+tls when a TLS port is given).
        ``env`` adds MAID_* settings (the caller's own MAID_* variables
        are not inherited); ``args`` are extra ``maid run`` arguments (e.g. --pack)."""
        argv = [
            sys.executable, "-m", "maid_engine.cli", "run", "--telnet-port", "0",
            "--metrics-port", "0", "--data-dir", str(data_dir),
        ]  # fmt: skip
        if database_url:
            argv += ["--database-url", database_url]
        argv += list(args)
        run_no, out, err = _open_logs(data_dir)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdout=out, stderr=err, stdin=asyncio.subprocess.DEVNULL,
                env=child_env(env), cwd=str(REPO),
            )  # fmt: skip
        finally:
            out.close()
            err.close()
        server = cls(proc, data_dir, run_no)
        wanted = {"telnet", "metrics"}
        if "--tls-port" in args or "MAID_TLS_PORT" in (env or {}):
            wanted.add("telnet+tls")
        await server._await_listeners(within, wanted)
        return server

    async def _await_listeners(self, within: float, wanted: set[str]) -> None:
        deadline = time.monotonic() + within
        while True:
            found = {m.group(1): int(m.group(3)) for m in _LISTEN.finditer(self.stdout())}
            if wanted <= set(found):
                self.telnet_port, self.metrics_port = found["telnet"], found["metrics"]
                self.tls_port = found.get("telnet+tls", 0)
                return
            if self.proc.returncode is not None:
                code = self.proc.returncode
                raise ServerExited(f"server exited early ({code}):\n{self.stderr()}")
            if time.monotonic() > deadline:
                self.kill9()
                raise TimeoutError(f"server did not start in {within}s:\n{self.stderr()}")
            await asyncio.sleep(0.02)

    # -- stopping -------------------------------------------------------------------------

    def kill9(self) -> None:
        """SIGKILL: no cleanup, no final checkpoint."""
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)

    async def wait(self, within: float = 30.0) -> int:
        """The exit code, once the process has ended (-9 after kill9)."""
        return await asyncio.wait_for(self.proc.wait(), within)

    async def terminate(self, within: float = 30.0) -> int:
        """SIGTERM and wait for the exit code."""
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        return await self.wait(within)

    async def ensure_stopped(self) -> None:
        """For ``finally`` blocks: kill the process if it still runs, and reap it."""
        if self.proc.returncode is None:
            self.kill9()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            pass

    # -- observing ------------------------------------------------------------------------

    def rss_kib(self) -> int:
        """Resident set size of the server process (VmRSS), in KiB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc status")

    async def metrics(self) -> dict[str, float]:
        """Current /metrics samples: ``name{label="v"}`` (or bare name) -> value."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.metrics_port), 10
        )
        try:
            writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), 10)
        finally:
            writer.close()
        _, _, body = data.decode().partition("\r\n\r\n")
        samples: dict[str, float] = {}
        for family in text_string_to_metric_families(body):
            for s in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                samples[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
        return samples

    async def metric(self, name: str) -> float:
        return (await self.metrics()).get(name, 0.0)

    async def checkpoints(self) -> int:
        """How many checkpoints have completed (maid_checkpoint_duration_seconds_count)."""
        return int(await self.metric("maid_checkpoint_duration_seconds_count"))

    async def wait_metric(
        self, name: str, at_least: float, within: float = 15.0, poll: float = 0.05
    ) -> float:
        """Poll /metrics until ``name`` >= ``at_least``; return its value."""
        deadline = time.monotonic() + within
        while True:
            value = await self.metric(name)
            if value >= at_least:
                return value
            if self.proc.returncode is not None:
                raise ServerExited(f"server exited ({self.proc.returncode}):\n{self.stderr()}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} stayed at {value} < {at_least} for {within}s")
            await asyncio.sleep(poll)

    async def wait_checkpoints(self, after: int, count: int = 2, within: float = 15.0) -> int:
        """Wait until ``count`` more checkpoints than ``after`` have completed.

        Two are needed to be sure a change is on disk: the first may have collected its
        changes just before the change was made.
        """
        return int(
            await self.wait_metric("maid_checkpoint_duration_seconds_count", after + count, within)
        )


async def run_cli(
    *args: str, env: dict[str, str] | None = None, within: float = 60.0
) -> tuple[int, str, str]:
    """Run ``python -m maid_engine.cli ARGS`` to completion: (code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "maid_engine.cli", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL, env=child_env(env), cwd=str(REPO),
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), within)
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def child_env(extra: dict[str, str] | None) -> dict[str, str]:
    """The environment of a child: ours without MAID_*, plus FAST_ENV and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    env.update(FAST_ENV)
    env.update(extra or {})
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), str(TESTS), os.environ.get("PYTHONPATH", "")) if p
    )
    return env


def _open_logs(data_dir: Path) -> tuple[int, BinaryIO, BinaryIO]:
    """Number the next run in ``data_dir`` and open its stdout/stderr files."""
    data_dir.mkdir(parents=True, exist_ok=True)
    run_no = len(list(data_dir.glob("server*.log"))) + 1
    out = open(data_dir / f"server{run_no}.log", "wb")
    err = open(data_dir / f"server{run_no}.err", "wb")
    return run_no, out, err
