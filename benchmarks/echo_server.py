"""A minimal telnetlib3 echo server: the baseline of the telnet load test.

    python -m benchmarks.echo_server [--port 0]

It negotiates like any telnetlib3 server (our load client refuses every option),
greets with a ``> `` prompt followed by IAC GA, and answers every line with the line
and a new prompt + IAC GA -- the least work a telnet server can do per command, so
MAID's round trip divided by this one is the cost of being a game. Prints
``ECHO listening on HOST:PORT`` once it accepts connections; binds 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from typing import Any

import telnetlib3

from maid_engine import loops

PROMPT = "> "


async def shell(reader: Any, writer: Any) -> None:
    writer.write(PROMPT)
    writer.send_ga()
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            writer.write(line.rstrip("\r\n") + "\r\n" + PROMPT)
            writer.send_ga()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def main(port: int) -> None:
    server = await telnetlib3.create_server(
        host="127.0.0.1",
        port=port,
        shell=shell,
        encoding="utf8",
        connect_maxwait=0.5,
        timeout=0,
    )
    sockets = server.sockets or ()
    host, real_port = sockets[0].getsockname()[:2]
    print(f"ECHO listening on {host}:{real_port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(server.wait_closed(), 5)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--event-loop",
        choices=["asyncio", "uvloop"],
        default="asyncio",
        help="the loop it runs on (asyncio: the baseline the peer figures were taken on)",
    )
    args = parser.parse_args()
    loops.run(main(args.port), args.event_loop)
