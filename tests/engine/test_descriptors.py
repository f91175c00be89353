"""Room for the connections' descriptors: the open-file limit and the kernel's
descriptor table, made once at start-up (maid_engine.descriptors).

Each case runs in a child process: it changes process-wide limits, and the table
of a test process that has opened many files is already large."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc/self/status"
)


def child(body: str) -> dict[str, Any]:
    """Run ``body`` in a fresh interpreter with a second thread alive (as in the
    server); it leaves its findings in the dict ``out``, printed as JSON."""
    code = (
        textwrap.dedent(
            """
        import json, logging, os, resource, threading
        from maid_engine.descriptors import RESERVE, descriptor_table, make_room
        records = []
        class Keep(logging.Handler):
            def emit(self, record):
                records.append(record.getMessage())
        logging.getLogger("maid.server").addHandler(Keep())
        threading.Thread(target=threading.Event().wait, daemon=True).start()
        out = {}
        """
        )
        + textwrap.dedent(body)
        + "\nout['logged'] = records\nprint(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_table_grows_once_to_hold_every_connection() -> None:
    out = child(
        """
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        # As many as the hard limit leaves room for (1,500 on most machines).
        conns = 1500 if hard == resource.RLIM_INFINITY else min(1500, hard - RESERVE)
        out["before"] = descriptor_table()
        room = make_room(conns)
        out["after"] = descriptor_table()
        out["wanted"] = room.wanted
        out["need"] = conns + RESERVE
        # Opening that many descriptors finds the table already large enough.
        fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(conns)]
        out["full"] = descriptor_table()
        """
    )
    assert out["wanted"] == out["need"]
    assert out["before"] < out["need"]
    assert out["after"] >= out["wanted"]
    assert out["full"] == out["after"]


def test_a_low_soft_limit_is_raised_to_what_the_connections_need() -> None:
    out = child(
        """
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        # As many as the hard limit leaves room for (1,000 on most machines).
        conns = 1000 if hard == resource.RLIM_INFINITY else min(1000, hard - RESERVE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(300, conns // 2), hard))
        room = make_room(conns)
        out["need"] = conns + RESERVE
        out["soft"] = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        out["limit"] = room.limit
        out["enough"] = room.enough
        """
    )
    assert out["soft"] == out["limit"] == out["need"]
    assert out["enough"] is True
    assert out["logged"] == []


def test_a_hard_limit_below_max_connections_is_said_and_used() -> None:
    out = child(
        """
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 400))
        room = make_room(1000)
        out["limit"] = room.limit
        out["enough"] = room.enough
        out["table"] = room.table
        """
    )
    assert out["limit"] == 400
    assert out["enough"] is False
    assert out["table"] >= 400
    (said,) = out["logged"]
    assert "the open-file limit is 400 (hard limit 400)" in said
    assert "about 144 connections, not max_connections=1000" in said
    assert "LimitNOFILE=" in said


def test_a_descriptor_in_use_at_the_top_is_left_alone() -> None:
    out = child(
        """
        room_top = 500 + RESERVE - 1
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, room_top)
        ino = os.fstat(room_top).st_ino
        make_room(500)
        out["same"] = os.fstat(room_top).st_ino == ino
        out["open"] = sorted(int(n) for n in os.listdir("/proc/self/fd"))[-1] == room_top
        """
    )
    assert out["same"] is True
    assert out["open"] is True
