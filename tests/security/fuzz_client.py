"""The attacking side of the telnet fuzz test, run as its own process.

    python tests/security/fuzz_client.py HOST PORT --seconds 12 --seed 1729

Several connections (from 127.0.0.2, so they look like another machine) send
malformed input for the given time: random bytes, invalid UTF-8, IAC floods,
truncated and malformed subnegotiations (SB without SE, NAWS of the wrong length,
TTYPE/CHARSET/ENVIRON garbage, GMCP with invalid JSON or huge payloads), 1 MB lines,
garbage commands from a logged-in character, slowloris clients and rapid
connect/disconnect. Prints one JSON line with what was sent.

It runs in a process of its own so that generating and sending the flood does not
slow down the test process, where the normal player's response times are measured.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from e2e.client import TelnetClient

ATTACKER = "127.0.0.2"  # the fuzzers look like another machine
# The logged-in garbage typist comes from a third address: the other fuzzers keep the
# attacker's address at its cap of connections still logging in, so a login from there
# is (rightly) refused.
INGAME = "127.0.0.3"

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
NOP, DM, BRK, IP, AO, AYT, EC, EL, GA = 241, 242, 243, 244, 245, 246, 247, 248, 249
ECHO, SGA, TTYPE, NAWS, LINEMODE, NEW_ENVIRON, CHARSET = 1, 3, 24, 31, 34, 39, 42
EOR, MSSP, MSDP, GMCP, MCCP2, MCCP3 = 25, 70, 69, 201, 86, 87
OPTIONS = [
    0,
    ECHO,
    SGA,
    5,
    TTYPE,
    EOR,
    NAWS,
    32,
    33,
    LINEMODE,
    NEW_ENVIRON,
    CHARSET,
    MSDP,
    MSSP,
    MCCP2,
    MCCP3,
    91,
    93,
    200,
    GMCP,
    255,
]


def sb(option: int, payload: bytes, *, close: bool = True) -> bytes:
    return bytes([IAC, SB, option]) + payload + (bytes([IAC, SE]) if close else b"")


def random_bytes(rng: random.Random) -> bytes:
    return rng.randbytes(rng.randint(1, 2000))


def invalid_utf8(rng: random.Random) -> bytes:
    pieces = [
        b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xe2\x82\x28", b"\xf0\x28\x8c\xbc",
        b"\xf8\xa1\xa1\xa1\xa1", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80", b"\x80", b"\xbf", b"\xfe", b"\xc2", b"\x00", b"\x1b[31m",
        b"\x1b]0;pwned\x07", b"\x9b31m", "\u202e\u200b\ufeff".encode(), b"\x7f\x08\x08",
    ]  # fmt: skip
    line = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
    return line + rng.choice([b"\r\n", b"\n", b"\r", b"\r\x00", b""])


def iac_flood(rng: random.Random) -> bytes:
    out = bytearray()
    for _ in range(rng.randint(10, 400)):
        kind = rng.random()
        if kind < 0.6:
            out += bytes([IAC, rng.choice([DO, DONT, WILL, WONT]), rng.choice(OPTIONS)])
        elif kind < 0.8:
            out += bytes([IAC, rng.choice([NOP, DM, BRK, IP, AO, AYT, EC, EL, GA, 239])])
        elif kind < 0.9:
            out += bytes([IAC, IAC])
        else:
            out += bytes([IAC, rng.randint(0, 255)])
    return bytes(out)


def bad_subnegotiation(rng: random.Random) -> bytes:
    choices: list[Callable[[], bytes]] = [
        # SB without SE, then ordinary data that must not be swallowed forever
        lambda: sb(rng.choice(OPTIONS), rng.randbytes(rng.randint(0, 300)), close=False),
        lambda: sb(NAWS, rng.randbytes(rng.choice([0, 1, 2, 3, 5, 7, 9, 100]))),
        lambda: sb(NAWS, struct.pack(">HH", rng.choice([0, 1, 65535]), rng.choice([0, 65535]))),
        lambda: sb(TTYPE, b"\x00" + rng.randbytes(rng.randint(0, 5000))),
        lambda: sb(TTYPE, bytes([rng.randint(2, 255)]) + b"xterm"),
        lambda: sb(TTYPE, b"\x00MTTS " + str(rng.randint(-(10**20), 10**20)).encode()),
        lambda: sb(GMCP, b"Core.Hello {" + rng.randbytes(rng.randint(0, 100))),
        lambda: sb(GMCP, b'Core.Supports.Set ["Char 1", ' * rng.randint(1, 50)),
        lambda: sb(GMCP, b"Char.Vitals " + b"[" * rng.randint(1, 5000)),
        lambda: sb(GMCP, b'Core.Hello {"client": "' + b"A" * 100_000 + b'"}'),
        lambda: sb(GMCP, rng.randbytes(rng.randint(0, 500))),
        lambda: sb(GMCP, b"Core.Supports.Add " + b'["x 1",' * 5000 + b'"y 1"]'),
        lambda: sb(CHARSET, bytes([rng.randint(0, 255)]) + rng.randbytes(rng.randint(0, 200))),
        lambda: sb(CHARSET, b"\x01;UTF-8;" + b";latin1" * rng.randint(1, 500)),
        lambda: sb(NEW_ENVIRON, bytes([rng.randint(0, 3)]) + rng.randbytes(rng.randint(0, 500))),
        lambda: sb(NEW_ENVIRON, b"\x00" + b"\x00VAR\x01" * rng.randint(1, 2000)),
        lambda: sb(MSSP, rng.randbytes(rng.randint(0, 300))),
        lambda: sb(LINEMODE, rng.randbytes(rng.randint(0, 50))),
        lambda: bytes([IAC, SE]) * rng.randint(1, 50),  # SE without SB
        lambda: bytes([IAC, SB]) * rng.randint(1, 50),  # nested SB
        lambda: sb(rng.randint(0, 255), rng.randbytes(rng.randint(0, 100)).replace(b"\xff", b"")),
    ]
    return rng.choice(choices)() + rng.choice([b"", b"look\r\n", rng.randbytes(10)])


def huge_line(rng: random.Random) -> bytes:
    body = bytes([rng.choice(b"abcxyz ")]) * 1_000_000
    return body + rng.choice([b"\r\n", b""])


def garbage_command(rng: random.Random) -> bytes:
    """A line a logged-in character types: commands with junk arguments."""
    words = [
        "look",
        "say",
        "emote",
        "tell",
        "go",
        "north",
        "who",
        "help",
        "score",
        "@goto",
        "@shutdown",
        "@role",
        "get",
        "drop",
        "kill",
        "give",
        "quest",
        "l",
        "'",
        ":",
        "password",
        "inventory",
        "examine",
        "talk",
        "ask",
        "x",
    ]
    junk = "".join(
        rng.choice(
            [
                "|r",
                "||",
                "|[#ff0000",
                "%s",
                "{0}",
                "\\",
                "\x00",
                "é",
                "🙂",
                "A" * 50,
                " ",
                "..",
                "*",
                "-1",
                "99999999999999999999",
                "\u202e",
                "$(id)",
            ]
        )
        for _ in range(rng.randint(0, 12))
    )
    line = f"{rng.choice(words)} {junk}"
    return line.encode("utf-8", errors="replace") + b"\r\n"


GENERATORS: dict[str, Callable[[random.Random], bytes]] = {
    "random": random_bytes,
    "utf8": invalid_utf8,
    "iac": iac_flood,
    "subneg": bad_subnegotiation,
}


class Fuzzer:
    def __init__(self, host: str, port: int, seed: int) -> None:
        self.host, self.port = host, port
        self.rng = random.Random(seed)
        self.sent = 0
        self.connections = 0
        self.refused = 0

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port, local_addr=(ATTACKER, 0)),
                5,
            )
        except (OSError, TimeoutError):
            self.refused += 1
            return None
        self.connections += 1
        return reader, writer

    @staticmethod
    async def _drain_reads(reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(Exception):
            while await reader.read(65536):
                pass

    async def blast(self, kinds: list[str], deadline: float, per_connection: int = 60) -> None:
        """Open a connection, send ``per_connection`` malformed payloads, close; repeat."""
        while time.monotonic() < deadline:
            opened = await self._open()
            if opened is None:
                await asyncio.sleep(0.05)
                continue
            reader, writer = opened
            drain = asyncio.create_task(self._drain_reads(reader))
            try:
                for _ in range(per_connection):
                    if time.monotonic() >= deadline or reader.at_eof():
                        break
                    payload = GENERATORS[self.rng.choice(kinds)](self.rng)
                    writer.write(payload)
                    self.sent += 1
                    await asyncio.wait_for(writer.drain(), 5)
                    await asyncio.sleep(0)
            except (ConnectionError, TimeoutError, OSError):
                pass
            finally:
                await _close(writer, abort=self.rng.random() < 0.3)
                drain.cancel()
                await asyncio.gather(drain, return_exceptions=True)

    async def huge_lines(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            opened = await self._open()
            if opened is None:
                await asyncio.sleep(0.05)
                continue
            reader, writer = opened
            drain = asyncio.create_task(self._drain_reads(reader))
            try:
                for _ in range(3):
                    writer.write(huge_line(self.rng))
                    self.sent += 1
                    await asyncio.wait_for(writer.drain(), 10)
            except (ConnectionError, TimeoutError, OSError):
                pass
            finally:
                await _close(writer)
                drain.cancel()
                await asyncio.gather(drain, return_exceptions=True)

    async def slowloris(self, deadline: float) -> None:
        """One byte every few hundred milliseconds, never quite finishing anything."""
        opened = await self._open()
        if opened is None:
            return
        reader, writer = opened
        drain = asyncio.create_task(self._drain_reads(reader))
        data = b"What is this place, I wonder, and who built it long ago?" * 10
        try:
            for byte in data:
                if time.monotonic() >= deadline:
                    break
                writer.write(bytes([byte]))
                self.sent += 1
                await asyncio.wait_for(writer.drain(), 5)
                await asyncio.sleep(self.rng.uniform(0.2, 0.4))
        except (ConnectionError, TimeoutError, OSError):
            pass
        finally:
            await _close(writer)
            drain.cancel()
            await asyncio.gather(drain, return_exceptions=True)

    async def flap(self, deadline: float) -> None:
        """Rapid connect/disconnect, half of them with a reset instead of a FIN."""
        while time.monotonic() < deadline:
            opened = await self._open()
            if opened is None:
                await asyncio.sleep(0.02)
                continue
            _, writer = opened
            self.sent += 1
            if self.rng.random() < 0.3:
                writer.write(self.rng.randbytes(self.rng.randint(1, 40)))
            await _close(writer, abort=self.rng.random() < 0.5)

    async def ingame(self, name: str, deadline: float) -> None:
        """A logged-in character typing garbage commands (paced under the rate limit)."""
        client = await TelnetClient.open(self.host, self.port, source=INGAME)
        try:
            await client.create(name, "fuzzpass1")
            self.connections += 1
            while time.monotonic() < deadline and not client.eof:
                client.send_raw(garbage_command(self.rng))
                self.sent += 1
                await asyncio.sleep(0.11)
        finally:
            await client.close()


async def _close(writer: asyncio.StreamWriter, abort: bool = False) -> None:
    if abort:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
        return
    writer.close()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer.wait_closed(), 2)


async def run(host: str, port: int, seconds: float, seed: int) -> dict[str, int]:
    deadline = time.monotonic() + seconds
    fuzzers = [Fuzzer(host, port, seed + i) for i in range(9)]
    kinds = list(GENERATORS)
    # Idle connections that never send a byte, held open for the whole run.
    half_open = []
    for _ in range(3):
        with contextlib.suppress(OSError):
            half_open.append(await asyncio.open_connection(host, port, local_addr=(ATTACKER, 0)))
    await asyncio.gather(
        fuzzers[0].blast(kinds, deadline),
        fuzzers[1].blast(kinds, deadline),
        fuzzers[2].blast(["iac", "subneg"], deadline),
        fuzzers[3].blast(["utf8", "random"], deadline),
        fuzzers[4].huge_lines(deadline),
        fuzzers[5].slowloris(deadline),
        fuzzers[6].slowloris(deadline),
        fuzzers[7].flap(deadline),
        fuzzers[8].ingame("Mangler", deadline),
    )
    for _, writer in half_open:
        await _close(writer)
    return {
        "sent": sum(f.sent for f in fuzzers),
        "connections": sum(f.connections for f in fuzzers) + len(half_open),
        "refused": sum(f.refused for f in fuzzers),
        "half_open": len(half_open),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--seed", type=int, default=1729)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.host, args.port, args.seconds, args.seed))), flush=True)


if __name__ == "__main__":
    main()
