"""Room for every connection's file descriptor, made before players come.

Each connection is a file descriptor, and two things about them would otherwise
show only under load:

* The **open-file limit** (``ulimit -n``). Many systems start services with a soft
  limit of 1,024 and a much higher hard limit. A server configured for
  ``max_connections`` = 2,000 would stop accepting at about a thousand: the
  event loop's ``accept()`` fails with "too many open files" and pauses its
  listener. The soft limit is raised to what the connections need, up to the
  hard limit, which only the administrator can raise.
* The **kernel's descriptor table**. A process's table starts small and doubles
  when a descriptor past its end is opened (at 256, 512, 1,024, ...). In a
  process with more than one thread -- the server has its database and hashing
  threads -- each doubling waits for the kernel's read-copy-update grace period
  (``synchronize_rcu``): 7-15 ms on a two-CPU Linux machine, with the event loop stopped
  inside ``accept()``, every player's command waiting behind it. A login storm
  of 200 crosses one or two doublings. Opening one descriptor near the top of
  the room needed, once at start-up, grows the table in one step; the kernel
  never shrinks it.

POSIX only: where ``resource`` or ``fcntl`` is missing there is nothing to do.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RESERVE", "DescriptorRoom", "descriptor_table", "make_room"]

log = logging.getLogger("maid.server")

#: Descriptors beyond the players' connections: listeners, database files and
#: connections, model servers' HTTP connections, logs, the loop's own.
RESERVE = 256


@dataclass(frozen=True)
class DescriptorRoom:
    """What :func:`make_room` asked for and what the process has now."""

    #: Descriptors wanted: the connections plus :data:`RESERVE`.
    wanted: int
    #: The soft open-file limit now (``None``: the system has no such limit).
    limit: int | None
    #: Slots in the kernel's descriptor table now (``None``: not known here).
    table: int | None

    @property
    def enough(self) -> bool:
        return self.limit is None or self.limit >= self.wanted


def make_room(connections: int, *, reserve: int = RESERVE) -> DescriptorRoom:
    """Raise the soft open-file limit to ``connections + reserve`` (at most the
    hard limit) and grow the descriptor table to match; warn when the hard limit
    is lower. Safe to call again: a limit or table already large enough is left."""
    wanted = connections + reserve
    try:
        import fcntl
        import resource
    except ImportError:  # not a POSIX system
        return DescriptorRoom(wanted, None, None)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (OSError, ValueError) as exc:  # a platform cap below the hard limit
            log.warning("could not raise the open-file limit to %d: %s", raised, exc)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        log.warning(
            "the open-file limit is %d (hard limit %s): the server can hold about %d "
            "connections, not max_connections=%d; raise the hard limit (ulimit -Hn, "
            "or LimitNOFILE= in a systemd unit)",
            soft,
            "unlimited" if hard == resource.RLIM_INFINITY else hard,
            max(soft - reserve, 0),
            connections,
        )
    top = wanted if soft == resource.RLIM_INFINITY else min(wanted, soft)
    # F_DUPFD takes the lowest free descriptor at or above ``top - 1``: it never
    # replaces one in use, and the table grows to hold it.
    with contextlib.suppress(OSError), open(os.devnull, "rb") as null:
        os.close(fcntl.fcntl(null.fileno(), fcntl.F_DUPFD_CLOEXEC, top - 1))
    return DescriptorRoom(
        wanted, None if soft == resource.RLIM_INFINITY else soft, descriptor_table()
    )


def descriptor_table() -> int | None:
    """Slots in this process's descriptor table (Linux's ``FDSize``), or None."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("FDSize:"):
                return int(line.split()[1])
    return None
