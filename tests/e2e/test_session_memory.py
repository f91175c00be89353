"""What a connected player costs in memory, so it cannot grow back unnoticed.

Real telnet connections log in to a real server (Ironvale) in this process while
tracemalloc watches; what the server keeps per player afterwards (the session,
telnetlib3's reader and writer, the character's entity and components, render
caches, ...) is bounded. The clients are bare sockets driven from this file, and
every allocation made from it is left out, so only the server's side counts.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import tracemalloc
from pathlib import Path

from e2e.fixtures import served

# Measured on the commit that added this test: 43.5 KiB per player (telnetlib3's
# writer, server state and SLC table about 17, the character's entity and its
# components 7, the session with its input queue and timers 5, render caches 2).
# Components sharing their world's change marker (instead of a closure each) took
# 3.6 KiB off (40.4 in one run). The session's inbox as one deque instead
# of an asyncio.Queue (2.7 KiB) and telnetlib3's SLC table and buffer built only
# when a client asks for LINEMODE (2.7 KiB) took it from 45.4-51.2 KiB (this test,
# loaded machine) to 35.3-40.3 (three runs, load 6). The bound leaves room for
# small changes and that spread, not for a new per-player buffer or cache. The target
# of the evening benchmark is 100 KB of RSS per player, which also pays for the
# allocator's slack.
MAX_BYTES_PER_PLAYER = 46 * 1024
PLAYERS = 20


async def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    loop = asyncio.get_running_loop()
    seen = b""
    while marker not in seen:
        chunk = await asyncio.wait_for(loop.sock_recv(sock, 65536), 30)
        if not chunk:
            raise ConnectionError(f"closed before {marker!r}: {seen[-300:]!r}")
        seen += chunk
    return seen


async def _login(port: int, name: str) -> socket.socket:
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    await _read_until(sock, b"What is your name?")
    await loop.sock_sendall(sock, f"create {name} secret-lantern-9\r\n".encode())
    await _read_until(sock, b"Welcome, ")
    await loop.sock_sendall(sock, b"look\r\n")
    await _read_until(sock, b"Exits")
    return sock


def _name(i: int) -> str:
    return "Memo" + "".join(chr(97 + (i // 26**k) % 26) for k in range(3))


async def test_memory_per_connected_player_is_bounded(tmp_path: Path) -> None:
    async with served(tmp_path, max_connections_per_ip=100) as server:
        port = server.telnet_port
        assert port is not None
        # The first logins pay for what every later one shares (caches, imports).
        kept = [await _login(port, _name(i)) for i in range(3)]
        # Both snapshots with no write of the world in flight (each creation is
        # written at once): a write under way holds its rows, which are not a player's.
        await server.engine.checkpoint()
        gc.collect()
        tracemalloc.start(25)
        try:
            before = tracemalloc.take_snapshot()
            for i in range(3, 3 + PLAYERS):
                kept.append(await _login(port, _name(i)))
            await server.engine.checkpoint()
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        for sock in kept:
            sock.close()
    ours = [
        tracemalloc.Filter(False, __file__, all_frames=True),
        tracemalloc.Filter(False, tracemalloc.__file__),
    ]
    diff = after.filter_traces(ours).compare_to(before.filter_traces(ours), "filename")
    per_player = sum(stat.size_diff for stat in diff) / PLAYERS
    biggest = "\n".join(str(stat) for stat in diff[:8])
    assert per_player < MAX_BYTES_PER_PLAYER, f"{per_player / 1024:.1f} KiB per player:\n{biggest}"
    # It does count the server's side: a player is not free.
    assert per_player > 8 * 1024, biggest
