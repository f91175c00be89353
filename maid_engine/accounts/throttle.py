"""Limits on failed logins, keyed so that nobody can lock somebody else out.

Two rules, both about the address a login comes from:

* **account and address**: one address may fail ``pair_limit`` times on one account
  within a sliding ``pair_window``; then that address waits (for that account only)
  until its oldest failure there has aged out;
* **address**: every failure from an address, whatever the account, counts towards
  ``address_free``; past it, each further failure makes the address wait
  ``backoff_base * 2**k`` seconds (k = failures past the free ones), at most
  ``backoff_max``. An address's failures are forgotten after ``address_forget``
  seconds without one (longer than the longest wait, so that waiting it out does
  not wipe the slate).

There is deliberately no rule keyed by the account alone: whatever it counts, an
attacker can fill it, and the owner would then be refused from an address that
never failed, which is the lockout these rules exist to prevent. Many addresses
guessing one account are slowed by the address rule (each address gets a handful
of free failures, then waits exponentially) and stopped by the password policy
(the common passwords they would try first are refused when a password is set).

A success never clears an address's count, only that account's count from that
address: otherwise logging into an account of one's own between guesses would
reset the backoff.
"""

from __future__ import annotations

import ipaddress
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from maid_engine.config import Settings

# Above this many tracked keys, a failure also sweeps out keys that have nothing
# left to say, so a scan from many addresses cannot grow the tables without bound.
# The next sweep waits until the tables have doubled, so sweeping stays cheap on
# average even when most keys are still live.
_SWEEP_THRESHOLD = 10_000
# 2**60 seconds is far past any sensible backoff_max; capping the exponent keeps the
# float arithmetic finite however many failures an address piles up.
_MAX_DOUBLINGS = 60


@dataclass(frozen=True)
class ThrottlePolicy:
    pair_limit: int = 5
    pair_window: float = 60.0
    address_free: int = 10
    backoff_base: float = 2.0
    backoff_max: float = 900.0
    address_forget: float = 3600.0

    def __post_init__(self) -> None:
        if self.pair_limit < 1 or self.address_free < 1:
            raise ValueError("login limits must be >= 1")
        if self.pair_window <= 0 or self.backoff_base <= 0:
            raise ValueError("the login window and backoff base must be > 0")
        if self.backoff_max < self.backoff_base:
            raise ValueError("the longest login backoff must be at least its base")
        if self.address_forget <= self.backoff_max:
            raise ValueError(
                "failed logins must be remembered longer than the longest backoff "
                f"({self.address_forget} <= {self.backoff_max})"
            )

    @classmethod
    def from_settings(cls, settings: Settings) -> ThrottlePolicy:
        return cls(
            pair_limit=settings.login_attempts_per_minute,
            pair_window=60.0,
            address_free=settings.login_failures_per_address,
            backoff_base=settings.login_backoff_base,
            backoff_max=settings.login_backoff_max,
            address_forget=settings.login_failures_forget,
        )

    def backoff(self, failures: int) -> float:
        """How long an address with ``failures`` failures waits after its last one."""
        if failures < self.address_free:
            return 0.0
        doublings = min(failures - self.address_free, _MAX_DOUBLINGS)
        return min(self.backoff_max, self.backoff_base * 2.0**doublings)


class SlidingWindow:
    """Counts events per key over the last ``window`` seconds of ``clock``."""

    def __init__(self, window: float, clock: Callable[[], float]) -> None:
        self.window = window
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}

    def _live(self, key: str, now: float) -> deque[float] | None:
        hits = self._hits.get(key)
        if hits is None:
            return None
        cutoff = now - self.window
        while hits and hits[0] <= cutoff:
            hits.popleft()
        if not hits:
            del self._hits[key]
            return None
        return hits

    def count(self, key: str) -> int:
        hits = self._live(key, self.clock())
        return len(hits) if hits is not None else 0

    def wait(self, key: str, limit: int) -> float:
        """0 if ``key`` has fewer than ``limit`` events in the window, else the
        seconds until enough of them have aged out."""
        now = self.clock()
        hits = self._live(key, now)
        if hits is None or len(hits) < limit:
            return 0.0
        return hits[len(hits) - limit] + self.window - now

    def hit(self, key: str) -> None:
        self._hits.setdefault(key, deque()).append(self.clock())

    def reset(self, key: str) -> None:
        self._hits.pop(key, None)

    def sweep(self) -> None:
        now = self.clock()
        for key in list(self._hits):
            self._live(key, now)

    def __len__(self) -> int:
        return len(self._hits)


@dataclass
class _Address:
    failures: int
    last: float


class LoginThrottle:
    """The two rules above; ``clock`` is monotonic and injectable (tests step it).

    The caller asks :meth:`retry_after` before checking a password and reports the
    outcome with :meth:`failed` or :meth:`succeeded`. Attempts from one address must
    be checked one at a time (the account service holds a lock per address), so
    parallel guesses cannot all pass the check before the first failure counts.
    """

    def __init__(
        self,
        policy: ThrottlePolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy or ThrottlePolicy()
        self.clock = clock
        # Through _now, so that replacing ``clock`` later moves both tables.
        self._pairs = SlidingWindow(self.policy.pair_window, self._now)
        self._addresses: dict[str, _Address] = {}
        self._sweep_at = _SWEEP_THRESHOLD

    def _now(self) -> float:
        return self.clock()

    def _address(self, address: str, now: float) -> _Address | None:
        record = self._addresses.get(address)
        if record is not None and now - record.last >= self.policy.address_forget:
            del self._addresses[address]
            return None
        return record

    def address_failures(self, address: str) -> int:
        record = self._address(address, self._now())
        return record.failures if record is not None else 0

    def pair_failures(self, account: str, address: str) -> int:
        return self._pairs.count(_pair(account, address))

    def retry_after(self, account: str, address: str) -> float:
        """0 if ``address`` may try a password for ``account`` now, else how many
        seconds it has to wait. An address that has not failed never waits."""
        now = self._now()
        waits = [self._pairs.wait(_pair(account, address), self.policy.pair_limit)]
        record = self._address(address, now)
        if record is not None:
            waits.append(record.last + self.policy.backoff(record.failures) - now)
        return max(0.0, *waits)

    def failed(self, account: str, address: str) -> None:
        now = self._now()
        if len(self) > self._sweep_at:
            self._sweep(now)
            self._sweep_at = max(_SWEEP_THRESHOLD, 2 * len(self))
        self._pairs.hit(_pair(account, address))
        record = self._address(address, now)
        if record is None:
            self._addresses[address] = _Address(1, now)
        else:
            record.failures += 1
            record.last = now

    def succeeded(self, account: str, address: str) -> None:
        self._pairs.reset(_pair(account, address))

    def _sweep(self, now: float) -> None:
        self._pairs.sweep()
        for address in list(self._addresses):
            self._address(address, now)

    def __len__(self) -> int:
        return len(self._pairs) + len(self._addresses)


def _pair(account: str, address: str) -> str:
    return f"{account}@{address}"


def address_key(host: str) -> str:
    """The address a login counts against.

    IPv6 hosts count by their /64 network: one subscriber usually gets a whole /64,
    so counting single addresses would give an attacker 2**64 fresh ones. An
    IPv4-mapped IPv6 address counts as the IPv4 address it is.
    """
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
