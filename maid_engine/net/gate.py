"""Who may connect: the connection counts and input budgets every listener shares.

Telnet (plain or TLS) and the WebSocket endpoint are doors into the same game, so an
address's connections, its connections still logging in and its input byte budget are
counted once across all of them: twenty telnet connections and twenty browser tabs
from one address are forty connections against one per-address cap, not two caps.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

from maid_engine.net.limits import (
    MSG_FLOOD_WAIT,
    MSG_LOGIN_BUSY,
    MSG_PER_IP,
    MSG_PRELOGIN_PER_IP,
    MSG_SERVER_FULL,
    ByteBudget,
    NetLimits,
)

log = logging.getLogger("maid.net")

__all__ = ["ConnectionGate"]


class ConnectionGate:
    """Admits and counts connections of every transport against one set of limits.

    ``on_limit(kind)`` is called whenever a limit refuses something; the same counts are
    kept in :attr:`counters`.
    """

    def __init__(
        self,
        limits: NetLimits,
        clock: Callable[[], float],
        on_limit: Callable[[str], None] | None = None,
    ) -> None:
        self.limits = limits
        self.clock = clock
        self.on_limit = on_limit
        self.counters: Counter[str] = Counter()
        self._per_ip: Counter[str] = Counter()
        self._connections = 0
        self._prelogin_per_ip: Counter[str] = Counter()
        self._prelogin = 0
        # Input byte budgets by address. Kept after an address's last connection closes
        # until the budget is full again, so reconnecting does not buy a fresh burst.
        self._budgets: dict[str, ByteBudget] = {}

    @property
    def connection_count(self) -> int:
        return self._connections

    @property
    def prelogin_count(self) -> int:
        """Connections accepted that have not logged in (yet)."""
        return self._prelogin

    def admit(self, host: str) -> str | None:
        """Count a new connection in, or return the message it is refused with."""
        limits = self.limits
        if limits.max_connections and self._connections >= limits.max_connections:
            self.limit_hit("max_connections")
            return MSG_SERVER_FULL
        if limits.max_connections_per_ip and self._per_ip[host] >= limits.max_connections_per_ip:
            self.limit_hit("per_ip")
            return MSG_PER_IP
        budget = self._budgets.get(host)
        if budget is not None and budget.owing:
            # An address still paying off a flood gets no new connection meanwhile:
            # being cut off and reconnecting must not become the cheaper way to flood.
            self.limit_hit("flood_wait")
            return MSG_FLOOD_WAIT
        if limits.max_prelogin_per_ip and (
            self._prelogin_per_ip[host] >= limits.max_prelogin_per_ip
        ):
            self.limit_hit("prelogin_per_ip")
            return MSG_PRELOGIN_PER_IP
        if limits.max_prelogin and self._prelogin >= limits.max_prelogin:
            # The rest of max_connections is kept for players who have logged in.
            self.limit_hit("login_busy")
            return MSG_LOGIN_BUSY
        self._connections += 1
        self._per_ip[host] += 1
        self._prelogin += 1
        self._prelogin_per_ip[host] += 1
        return None

    def release(self, host: str, *, prelogin: bool) -> None:
        self._connections = max(self._connections - 1, 0)
        self._per_ip[host] -= 1
        if self._per_ip[host] <= 0:
            del self._per_ip[host]
            budget = self._budgets.get(host)
            if budget is not None and budget.idle:
                del self._budgets[host]
        if prelogin:
            self._prelogin_done(host)

    def _prelogin_done(self, host: str) -> None:
        self._prelogin = max(self._prelogin - 1, 0)
        self._prelogin_per_ip[host] -= 1
        if self._prelogin_per_ip[host] <= 0:
            del self._prelogin_per_ip[host]

    def logged_in(self, host: str, logged_in: bool) -> None:
        """A connection of ``host`` logged in (or, ``False``, is back at the login)."""
        if logged_in:
            self._prelogin_done(host)
        else:
            # Counted again, never refused: it already holds its slot.
            self._prelogin += 1
            self._prelogin_per_ip[host] += 1

    def budget(self, host: str) -> ByteBudget | None:
        """The input byte budget shared by every connection of ``host`` (None: no limit)."""
        limits = self.limits
        if not limits.input_bytes_per_second:
            return None
        budget = self._budgets.get(host)
        if budget is None:
            if len(self._budgets) >= 2 * max(limits.max_connections, 1000):
                # Addresses that left long ago: their buckets are full, forget them.
                for key in [
                    k for k, b in self._budgets.items() if k not in self._per_ip and b.idle
                ]:
                    del self._budgets[key]
            budget = ByteBudget(
                limits.input_bytes_per_second,
                max(limits.input_byte_burst, 1),
                limits.input_byte_debt,
                self.clock,
            )
            self._budgets[host] = budget
        return budget

    def limit_hit(self, kind: str) -> None:
        self.counters[kind] += 1
        if self.on_limit is not None:
            try:
                self.on_limit(kind)
            except Exception:
                log.exception("on_limit hook failed")
