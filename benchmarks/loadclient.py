"""The telnet load client: N connections in one asyncio process, minimal telnet.

    python -m benchmarks.loadclient --port P --clients 200 --commands 20 \
        --mode maid --server-pid PID

Each connection refuses every option the server offers (DONT/WONT, once per option;
``--mccp`` and ``--gmcp`` ask for those two up front),
reads until a prompt marker (IAC GA or IAC EOR: what MAID and the echo server send
after a prompt to a client that refused everything), and never decodes text except
to check that a login worked. Connections start ``--stagger-ms`` apart.

Phases, each bounded in time:

1. connect + log in (maid mode: ``create benchaaab <password>``, as names may not
   contain digits; echo mode: the first prompt); the login time is from starting
   the TCP connect to the prompt after the game's welcome;
2. once every connection logged in (or failed), all of them issue ``--commands``
   commands one after another, each waiting for the answer's prompt.

With ``--duration`` the second phase is a time instead of a count: each player
thinks (``--think-ms`` on average, uniformly 0 to twice that), sends a command, waits
for its answer and goes on until the time is up. The first command comes after a
think too: players who all sent their first command in the same millisecond were a
burst of one command per player, and those answers, queued behind each other, made
the whole phase's p99. ``--mix evening`` draws each
command from :data:`EVENING_MIX` (a seeded random per player) instead of repeating
``--command``; the answer to a look or a step is the prompt after "Exits:" (or the
refusal), to a say the prompt after "You say", so a prompt that followed unasked-for
text (someone arriving, an NPC talking, a round of a fight) is not taken for it.

``--burst-at S`` makes that burst on purpose, S seconds into the second phase:
every player sends its next command at once (a player thinking stops; one waiting
for an answer sends right after it). Those answers are reported apart
(``burst_rtts``, with the burst's ``time.monotonic()``), not in ``rtts``.

``--storm N`` opens N more connections ``--storm-after`` seconds into the second
phase, each creating an account at once (the login storm), from a second load
client process (``--storm-only``, started with the phase and told when to begin),
so that the newcomers' telnet and text never hold up this process's reading of the
players' answers; it runs at the lowest priority. The players' answer times are
then reported apart, before the storm and while it lasts, with how long each
creation took, how many were told their place in line, and how often a timer of
this client ran more than ``LATE_S`` late (its own delays, which its answer times
include).

``/proc/<server-pid>/stat`` is sampled at the phase boundaries, so the server's
CPU time of each phase is exact. One JSON object is printed on stdout at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import sys
import time
import zlib
from collections import deque
from typing import Any

IAC, DONT, DO, WONT, WILL, SB, SE, GA, EOR = 255, 254, 253, 252, 251, 250, 240, 249, 239
COMPRESS2 = 86
GMCP = 201
#: What a ``--gmcp`` client says it takes, as Mudlet does for an IRE-style game.
GMCP_HELLO = (
    b'Core.Hello {"client": "maid-bench", "version": "1"}',
    b'Core.Supports.Set ["Char 1", "Room 1"]',
)
_IAC_B = b"\xff"
#: How much lower the storm's client runs than the players' (a nice value, added).
STORM_NICENESS = 19
#: A timer of the players' client this late (seconds) counts as the client's own delay.
LATE_S = 0.002

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int, thread: int | None = None) -> float | None:
    """utime + stime of ``pid`` in seconds (all its threads, or only ``thread``:
    the main thread's id is the pid), or None if it is gone."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    # Field 2 (comm) may contain spaces; everything after the last ')' is fixed.
    fields = raw[raw.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _spent(start: float | None, end: float | None) -> float | None:
    return end - start if start is not None and end is not None else None


#: The evening's command mix: (weight, command, what its answer contains). Players
#: look around, walk (the generated areas are 10 x 10 grids: some steps hit a wall),
#: talk to villagers and accept what they offer, read their quest log, say things,
#: pick fights with bandits (one room in twenty holds some), check score and who.
#: ``None``: any prompt is the answer.
#: What answers a step: the room, a wall, or (in a fight) the refusal to walk out.
STEP_ANSWERS = (b"Exits:", b"cannot go", b"nowhere", b"for your life")
EVENING_MIX: list[tuple[int, str, tuple[bytes, ...] | None]] = [
    (20, "look", (b"Exits:",)),
    (7, "north", STEP_ANSWERS),
    (6, "south", STEP_ANSWERS),
    (6, "east", STEP_ANSWERS),
    (6, "west", STEP_ANSWERS),
    (10, "say Good evening, everyone.", (b"You say",)),
    (10, "quests", None),
    (10, "talk villager", None),
    (5, "accept", None),
    (5, "kill bandit", None),
    (5, "score", None),
    (5, "who", None),
    (5, "inventory", None),
]


def letters(n: int, width: int = 4) -> str:
    """0 -> "aaaa", 1 -> "aaab" ...: MAID names may not contain digits."""
    out = []
    for _ in range(width):
        n, r = divmod(n, 26)
        out.append(chr(97 + r))
    return "".join(reversed(out))


class Conn(asyncio.Protocol):
    """One telnet connection. ``expect_prompt()`` returns a future for the next
    prompt marker; the text since the last marker is kept only while ``capture``."""

    __slots__ = (
        "_answered",
        "_inflate",
        "_ready",
        "_tail",
        "_waiter",
        "capture",
        "closed",
        "gmcp",
        "gmcp_received",
        "mccp",
        "plain",
        "received",
        "text",
        "transport",
    )

    def __init__(self, mccp: bool = False, gmcp: bool = False) -> None:
        self.transport: asyncio.Transport | None = None
        self._answered: set[tuple[int, int]] = set()
        self._tail = b""
        self._waiter: asyncio.Future[bytes] | None = None
        #: Texts of prompts that arrived while nobody was waiting (oldest first).
        self._ready: deque[bytes] = deque()
        self.capture = True
        self.text = bytearray()
        #: Bytes off the wire, and the same after inflating (equal without MCCP2).
        self.received = 0
        self.plain = 0
        self.closed = False
        #: Ask for MCCP2, and inflate what follows the start marker.
        self.mccp = mccp
        self._inflate: Any = None
        #: Ask for GMCP and take the Char and Room modules (the server's messages
        #: are read and dropped, as a UI would read them elsewhere).
        self.gmcp = gmcp
        #: GMCP messages the server sent (any package).
        self.gmcp_received = 0

    # -- asyncio.Protocol --------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.mccp:
            # Ask at once: a client that refuses everything else never hears the offer
            # (telnetlib3 offers options only to clients that agreed to something).
            self._answered.add((WILL, COMPRESS2))
            transport.write(bytes((IAC, DO, COMPRESS2)))
        if self.gmcp:
            transport.write(bytes((IAC, DO, GMCP)))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(ConnectionError("closed by the server"))

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self._inflate is not None:
            self._decompress(data)
        else:
            self._parse(data)

    def _decompress(self, data: bytes) -> None:
        inflate = self._inflate
        plain = inflate.decompress(data)
        rest = b""
        if inflate.eof:  # the server ended the stream: plain bytes follow
            rest, self._inflate = inflate.unused_data, None
        self._parse(plain)
        if rest:
            self._parse(rest)

    def _parse(self, data: bytes) -> None:
        self.plain += len(data)
        if self._tail:
            data = self._tail + data
            self._tail = b""
        pos = 0
        n = len(data)
        while True:
            i = data.find(_IAC_B, pos)
            if i < 0:
                if self.capture:
                    self.text += data[pos:]
                return
            if self.capture and i > pos:
                self.text += data[pos:i]
            if i + 1 >= n:
                self._tail = data[i:]
                return
            cmd = data[i + 1]
            if cmd in (DO, DONT, WILL, WONT):
                if i + 2 >= n:
                    self._tail = data[i:]
                    return
                self._negotiate(cmd, data[i + 2])
                pos = i + 3
            elif cmd == SB:
                end = data.find(b"\xff\xf0", i + 2)
                if end < 0:
                    self._tail = data[i:]
                    return
                pos = end + 2
                if data[i + 2] == GMCP:
                    self.gmcp_received += 1
                if self.mccp and data[i + 2 : end] == bytes((COMPRESS2,)):
                    # Everything after the marker is the zlib stream.
                    self._inflate = zlib.decompressobj()
                    self.plain -= n - pos
                    if pos < n:
                        self._decompress(data[pos:])
                    return
            elif cmd == GA or cmd == EOR:
                pos = i + 2
                self._prompt()
            elif cmd == IAC:
                if self.capture:
                    self.text.append(IAC)
                pos = i + 2
            else:
                pos = i + 2

    # -- telnet ------------------------------------------------------------------------
    def _negotiate(self, cmd: int, opt: int) -> None:
        # Refuse everything (MCCP2 and GMCP were asked for up front, if at all),
        # answering each (verb, option) once (no loops).
        if cmd == WILL and opt == GMCP and self.gmcp:
            if (cmd, opt) not in self._answered and self.transport is not None:
                self._answered.add((cmd, opt))
                for message in GMCP_HELLO:
                    self.transport.write(bytes((IAC, SB, GMCP)) + message + bytes((IAC, SE)))
            return
        if cmd in (DO, WILL) and (cmd, opt) not in self._answered:
            self._answered.add((cmd, opt))
            reply = WONT if cmd == DO else DONT
            if self.transport is not None:
                self.transport.write(bytes((IAC, reply, opt)))

    def _prompt(self) -> None:
        text = bytes(self.text) if self.capture else b""
        self.text.clear()
        waiter = self._waiter
        self._waiter = None
        if waiter is not None and not waiter.done():
            waiter.set_result(text)
        else:
            self._ready.append(text)

    # -- use ---------------------------------------------------------------------------
    def expect_prompt(self) -> asyncio.Future[bytes]:
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        if self._ready:
            fut.set_result(self._ready.popleft())
        elif self.closed:
            fut.set_exception(ConnectionError("closed"))
        else:
            self._waiter = fut
        return fut

    def send_line(self, line: str) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(line.encode() + b"\r\n")

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


class Client:
    """One simulated player: connect, log in, then issue commands on a signal."""

    def __init__(self, index: int, args: argparse.Namespace, prefix: str | None = None) -> None:
        self.index = index
        self.args = args
        self.prefix = args.prefix if prefix is None else prefix
        self.conn: Conn | None = None
        self.login_time: float | None = None
        self.error: str | None = None
        self.rtts: list[float] = []
        #: perf_counter() at which each answered command was sent.
        self.sent_at: list[float] = []
        #: The command of each answer in ``rtts`` (its first word).
        self.verbs: list[str] = []
        #: The answer to this player's command of the burst (``--burst-at``), if
        #: it made one.
        self.burst_rtt: float | None = None
        self.timeouts = 0
        #: Whether the login's text told a place in the hashing line.
        self.queued = False
        self.rng = random.Random(args.seed * 100_003 + index)

    async def login(self, loop: asyncio.AbstractEventLoop) -> None:
        args = self.args
        started = time.perf_counter()
        try:
            _, conn = await asyncio.wait_for(
                loop.create_connection(lambda: Conn(args.mccp, args.gmcp), args.host, args.port),
                args.login_timeout,
            )
            self.conn = conn
            deadline = started + args.login_timeout
            await asyncio.wait_for(conn.expect_prompt(), max(deadline - time.perf_counter(), 0))
            if args.mode == "maid":
                fut = conn.expect_prompt()
                conn.send_line(f"create {self.prefix}{letters(self.index)} {args.password}")
                text = await asyncio.wait_for(fut, max(deadline - time.perf_counter(), 0))
                self.queued = b"in line" in text
                if b"Welcome," not in text:
                    self.error = "login refused: " + text.decode("utf-8", "replace")[-200:]
                    return
            # Text is kept only where answers are told apart by it (the evening mix).
            conn.capture = args.mix == "evening" and args.mode == "maid"
            self.login_time = time.perf_counter() - started
        except TimeoutError:
            self.error = "login timed out"
        except (OSError, ConnectionError) as exc:
            self.error = f"login failed: {type(exc).__name__}: {exc}"

    def _next(self) -> tuple[str, tuple[bytes, ...] | None]:
        args = self.args
        if args.mix != "evening":
            return args.command, None
        weights = [w for w, _, _ in EVENING_MIX]
        _, command, marks = self.rng.choices(EVENING_MIX, weights)[0]
        return command, (marks if args.mode == "maid" else None)

    async def _think(self, burst: asyncio.Event | None) -> None:
        """A pause of ``--think-ms`` on average, cut short by the burst (``burst``
        set) unless this player already took part in it."""
        pause = self.rng.uniform(0, 2 * self.args.think_ms) / 1000.0
        if burst is None or self.burst_rtt is not None:
            await asyncio.sleep(pause)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(burst.wait(), pause)

    async def run_commands(
        self,
        deadline: float,
        until: list[float] | None = None,
        burst: asyncio.Event | None = None,
    ) -> None:
        """``--commands`` commands, or with ``until`` (``[perf_counter time]``, which
        the storm may bring forward) as many as fit before it, thinking before each;
        when ``burst`` is set, the next command is this player's part of the burst."""
        conn = self.conn
        if conn is None or self.login_time is None:
            return
        args = self.args
        thinking = until is not None and args.think_ms > 0
        sent = 0
        if thinking:
            await self._think(burst)
        while (sent < args.commands) if until is None else (time.perf_counter() < until[0]):
            sent += 1
            in_burst = burst is not None and burst.is_set() and self.burst_rtt is None
            command, marks = self._next()
            left = min(args.command_timeout, deadline - time.perf_counter())
            if left <= 0:
                self.timeouts += 1
                return
            # Prompts that followed text nobody asked for are not this answer.
            conn._ready.clear()
            t0 = time.perf_counter()
            conn.send_line(command)
            try:
                while True:
                    text = await asyncio.wait_for(conn.expect_prompt(), left)
                    if marks is None or any(m in text for m in marks):
                        break
                    left = min(args.command_timeout, deadline - time.perf_counter())
            except TimeoutError:
                self.timeouts += 1
                return  # the answer may still come: later prompts would be misattributed
            except ConnectionError:
                self.error = "closed during commands"
                return
            if in_burst:
                self.burst_rtt = time.perf_counter() - t0
            else:
                self.rtts.append(time.perf_counter() - t0)
                self.sent_at.append(t0)
                self.verbs.append(command.split()[0])
            if thinking:
                await self._think(burst)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    clients = [Client(i + args.first_index, args) for i in range(args.clients)]
    pid = args.server_pid
    cpu0 = proc_cpu(pid) if pid else None
    t0 = time.perf_counter()
    tasks = []
    for client in clients:
        tasks.append(loop.create_task(client.login(loop)))
        await asyncio.sleep(args.stagger_ms / 1000.0)
    await asyncio.wait(tasks, timeout=args.login_timeout + 5)
    login_wall = time.perf_counter() - t0
    cpu1 = proc_cpu(pid) if pid else None
    logged_in = [c for c in clients if c.login_time is not None]
    # The login's text (banner, welcome, newbie guide, first room) is said once per
    # player, unlike a repeated command's: what compression does to text seen once.
    login_wire = sum(c.conn.received for c in logged_in if c.conn is not None)
    login_plain = sum(c.conn.plain for c in logged_in if c.conn is not None)

    storm_proc: asyncio.subprocess.Process | None = None
    if args.storm > 0:
        # The newcomers are other people's connections: a load client of their own
        # (started now, told when to begin), so their telnet and text never hold up
        # this loop's reading of the players' answers, which is what their round
        # trips measure.
        storm_proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.loadclient",
            *storm_argv(args),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
    if args.settle > 0:
        await asyncio.sleep(args.settle)  # let arrival announcements drain
    cpu2 = proc_cpu(pid) if pid else None
    wire0 = sum(c.conn.received for c in logged_in if c.conn is not None)
    plain0 = sum(c.conn.plain for c in logged_in if c.conn is not None)
    t1 = time.perf_counter()
    mono1 = time.monotonic()
    deadline = t1 + args.phase_timeout
    until = [t1 + args.duration] if args.duration > 0 else None
    loop_cpu_start = proc_cpu(pid, pid) if pid else None
    burst = asyncio.Event() if until is not None and 0 < args.burst_at < args.duration else None
    cmd_tasks = [loop.create_task(c.run_commands(deadline, until, burst)) for c in logged_in]
    # This client's own lateness: a timer due every millisecond, noted when it ran
    # more than LATE_S after it was due (the loop was busy or had no CPU). Its
    # answers' times include it; in a storm it tells the client from the server.
    late: list[float] = []

    async def probe() -> None:
        while True:
            due = time.perf_counter() + 0.001
            await asyncio.sleep(0.001)
            if time.perf_counter() - due > LATE_S:
                late.append(due)

    probe_task = loop.create_task(probe()) if args.storm > 0 else None
    burst_at: list[float] = []
    if burst is not None:

        def fire() -> None:
            burst_at.append(time.monotonic())
            burst.set()

        loop.call_later(args.burst_at, fire)
    storm_out: dict[str, Any] | None = None
    if args.storm > 0 and cmd_tasks:
        await asyncio.sleep(args.storm_after)
        assert storm_proc is not None
        assert storm_proc.stdin is not None
        assert storm_proc.stdout is not None
        storm_proc.stdin.write(b"go\n")
        line = await storm_proc.stdout.readline()
        storm_out = json.loads(line) if line else {"errors": ["the storm's client failed"]}
        if until is not None:
            # The players go on a little after the storm, then stop.
            until[0] = min(until[0], time.perf_counter() + 2.0)
    if cmd_tasks:
        await asyncio.wait(cmd_tasks, timeout=args.phase_timeout + 5)
    cmd_wall = time.perf_counter() - t1
    mono2 = time.monotonic()
    cpu3 = proc_cpu(pid) if pid else None
    wire1 = sum(c.conn.received for c in logged_in if c.conn is not None)
    plain1 = sum(c.conn.plain for c in logged_in if c.conn is not None)

    for c in clients:
        if c.conn is not None:
            c.conn.close()
    if storm_proc is not None:
        assert storm_proc.stdin is not None
        storm_proc.stdin.close()  # the newcomers leave now
        await storm_proc.wait()
    await asyncio.sleep(0)
    if probe_task is not None:
        probe_task.cancel()
    if storm_out is not None and "window" in storm_out:
        s0, s1 = storm_out.pop("window")
        storm_out["client_late_per_s"] = [
            sum(1 for t in late if t1 <= t < s0) / max(s0 - t1, 1e-9),
            sum(1 for t in late if s0 <= t < s1) / max(s1 - s0, 1e-9),
        ]
        loop_cpu = storm_out.pop("loop_cpu")
        before = [r for c in logged_in for r, t in zip(c.rtts, c.sent_at, strict=True) if t < s0]
        during_at = sorted(
            (t - s0, r)
            for c in logged_in
            for r, t in zip(c.rtts, c.sent_at, strict=True)
            if s0 <= t < s1
        )
        storm_out.update(
            {
                "wall": s1 - s0,
                # Its start on the machine's monotonic clock (on Linux what
                # ``time.monotonic()`` reads too), to line it up with the server's
                # own records.
                "started_monotonic": s0,
                "loop_cpu_before_s": _spent(loop_cpu_start, loop_cpu[0]),
                "before_s": s0 - t1,
                "loop_cpu_during_s": _spent(loop_cpu[0], loop_cpu[1]),
                "rtts_before": before,
                "rtts_during": [r for _, r in during_at],
                # (seconds into the storm, rtt): where in the storm the slow answers fall.
                "rtts_during_at": during_at,
            }
        )

    rtts = [r for c in clients for r in c.rtts]
    burst_rtts = [c.burst_rtt for c in clients if c.burst_rtt is not None]
    errors: dict[str, int] = {}
    for c in clients:
        if c.error:
            key = c.error.split(":")[0]
            errors[key] = errors.get(key, 0) + 1
    return {
        "mode": args.mode,
        "clients": args.clients,
        "commands_per_client": args.commands,
        "logged_in": len(logged_in),
        "login_times": [c.login_time for c in logged_in],
        "login_wall": login_wall,
        "login_cpu": _delta(cpu0, cpu1),
        "rtts": rtts,
        "rtt_verbs": [v for c in clients for v in c.verbs],
        "answered": len(rtts) + len(burst_rtts),
        # By time, every command sent is expected: those answered and those timed out.
        "expected": len(rtts) + len(burst_rtts) + sum(c.timeouts for c in clients)
        if args.duration > 0
        else len(logged_in) * args.commands,
        "timeouts": sum(c.timeouts for c in clients),
        "clients_all_answered": sum(
            1
            for c in logged_in
            if (
                (c.timeouts == 0 and not c.error)
                if args.duration > 0
                else len(c.rtts) == args.commands
            )
        ),
        "command_wall": cmd_wall,
        "command_cpu": _delta(cpu2, cpu3),
        # What the server sent while the commands ran: on the wire, and inflated.
        "command_wire_bytes": wire1 - wire0,
        "command_plain_bytes": plain1 - plain0,
        "login_wire_bytes": login_wire,
        "login_plain_bytes": login_plain,
        "mccp": args.mccp,
        "gmcp": args.gmcp,
        "compressed_connections": sum(
            1 for c in logged_in if c.conn is not None and c.conn.received != c.conn.plain
        ),
        "gmcp_messages": sum(c.conn.gmcp_received for c in logged_in if c.conn is not None),
        "errors": errors,
        "error_samples": [c.error for c in clients if c.error][:3],
        "client_cpu": time.process_time(),
        "phase_monotonic": [mono1, mono2],
        "storm": storm_out,
        "burst": {"at_monotonic": burst_at[0], "rtts": burst_rtts} if burst_at else None,
    }


def storm_argv(args: argparse.Namespace) -> list[str]:
    """The command line of the storm's own load client (``--storm-only``)."""
    argv = [
        "--host",
        args.host,
        "--port",
        str(args.port),
        "--password",
        args.password,
        "--stagger-ms",
        str(args.stagger_ms),
        "--login-timeout",
        str(args.login_timeout),
        "--server-pid",
        str(args.server_pid),
        "--storm",
        str(args.storm),
        "--storm-only",
    ]
    return [*argv, *(["--mccp"] if args.mccp else []), *(["--gmcp"] if args.gmcp else [])]


async def run_storm_only(args: argparse.Namespace) -> None:
    """``--storm`` connections, each creating an account at once; one JSON line on
    stdout when they are done (the window in ``perf_counter`` time, which is the
    machine's monotonic clock and so the players' client's too), then the
    connections stay until stdin closes. It begins at a line on stdin."""
    # Below the players' client, which may share its CPUs: the newcomers' own
    # client work must not make the players' answers late.
    os.nice(STORM_NICENESS)
    loop = asyncio.get_running_loop()
    pid = args.server_pid
    storm = [Client(i, args, prefix="storm") for i in range(args.storm)]
    if not await loop.run_in_executor(None, sys.stdin.readline):  # "go"
        return  # the players' client ended first
    s0 = time.perf_counter()
    # The event loop's own CPU (the server's main thread), before and during.
    loop_cpu = [proc_cpu(pid, pid) if pid else None]
    tasks = []
    for client in storm:
        tasks.append(loop.create_task(client.login(loop)))
        await asyncio.sleep(args.stagger_ms / 1000.0)
    await asyncio.wait(tasks, timeout=args.login_timeout + 5)
    s1 = time.perf_counter()
    loop_cpu.append(proc_cpu(pid, pid) if pid else None)
    out = {
        "connections": len(storm),
        "created": sum(1 for c in storm if c.login_time is not None),
        "create_times": [c.login_time for c in storm if c.login_time is not None],
        "told_place_in_line": sum(1 for c in storm if c.queued),
        "window": [s0, s1],
        "loop_cpu": loop_cpu,
        "errors": [c.error for c in storm if c.error][:3],
        "client_cpu": time.process_time(),
    }
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    await loop.run_in_executor(None, sys.stdin.read)
    for c in storm:
        if c.conn is not None:
            c.conn.close()
    await asyncio.sleep(0)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="MAID telnet load client")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--commands", type=int, default=20)
    p.add_argument("--command", default="look")
    p.add_argument("--mode", choices=("maid", "echo"), default="maid")
    p.add_argument("--prefix", default="bench")
    p.add_argument("--first-index", type=int, default=0)
    p.add_argument("--password", default="bench-load-pass")
    p.add_argument("--stagger-ms", type=float, default=2.0)
    p.add_argument("--login-timeout", type=float, default=120.0)
    p.add_argument("--command-timeout", type=float, default=30.0)
    p.add_argument("--phase-timeout", type=float, default=180.0)
    p.add_argument("--settle", type=float, default=0.5, help="seconds to wait between the phases")
    p.add_argument("--server-pid", type=int, default=0)
    p.add_argument("--mix", choices=("fixed", "evening"), default="fixed")
    p.add_argument("--duration", type=float, default=0.0, help="seconds of commands (0: count)")
    p.add_argument("--think-ms", type=float, default=0.0, help="mean pause between commands")
    p.add_argument(
        "--burst-at",
        type=float,
        default=0.0,
        help="with --duration: seconds into it when every player sends a command at once",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--storm", type=int, default=0, help="account creations during the commands")
    p.add_argument("--storm-after", type=float, default=5.0)
    p.add_argument(
        "--storm-only",
        action="store_true",
        help="only the --storm connections (the players' client runs this itself)",
    )
    p.add_argument("--mccp", action="store_true", help="agree to MCCP2 compression")
    p.add_argument(
        "--gmcp", action="store_true", help="agree to GMCP and take its Char and Room modules"
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.storm_only:
        asyncio.run(run_storm_only(args))
        return 0
    result = asyncio.run(run(args))
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
