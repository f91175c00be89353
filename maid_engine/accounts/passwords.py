"""Password hashing with scrypt, always off the event loop, in a bounded pool.

A stored hash carries its own parameters and salt::

    scrypt$<n>$<r>$<p>$<salt, base64>$<hash, base64>

so the cost parameters in the settings can be raised later: old hashes still
verify, and :meth:`PasswordHasher.needs_rehash` tells the caller to re-hash on the
next successful login.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import functools
import gzip
import hashlib
import hmac
import logging
import os
import unicodedata
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, TypeVar

from maid_engine.accounts.errors import InvalidPassword
from maid_engine.background import BACKGROUND_NICENESS, run_in_background

if TYPE_CHECKING:
    from maid_engine.config import Settings

log = logging.getLogger("maid.accounts")
T = TypeVar("T")

MIN_PASSWORD_LENGTH = 6
# Long enough for any passphrase; bounded so a client cannot make us hash megabytes.
MAX_PASSWORD_LENGTH = 256
SALT_BYTES = 16
HASH_BYTES = 64
SCHEME = "scrypt"
#: Package data: the most common passwords, lowercased, one per line (its source and
#: licence are in common-passwords.LICENSE.txt beside it).
COMMON_PASSWORDS_FILE = "common-passwords.txt.gz"
TOO_COMMON = (
    "That password is one of the most common ones, the first that attackers try; "
    "please choose another."
)

#: (password, salt, n, r, p, dklen) -> derived key. Replaceable for tests.
Kdf = Callable[[bytes, bytes, int, int, int, int], bytes]


def scrypt_kdf(password: bytes, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    # OpenSSL refuses to use more than 32 MiB unless told otherwise; allow what the
    # parameters need (128 * r * n for V, 128 * r * p for B) plus some slack.
    maxmem = 128 * r * (n + p + 2) + 1024 * 1024
    return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, maxmem=maxmem, dklen=dklen)


@dataclass(frozen=True)
class ScryptParams:
    n: int = 2**14
    r: int = 8
    p: int = 1

    def __post_init__(self) -> None:
        if self.n < 2 or self.n & (self.n - 1):
            raise ValueError(f"scrypt n must be a power of two > 1, not {self.n}")
        if self.r < 1 or self.p < 1:
            raise ValueError("scrypt r and p must be >= 1")


@dataclass(frozen=True)
class _Parsed:
    params: ScryptParams
    salt: bytes
    digest: bytes


@functools.cache
def common_passwords() -> frozenset[str]:
    """The common-password list (lowercased), read once, at the first check."""
    data = resources.files("maid_engine.accounts").joinpath(COMMON_PASSWORDS_FILE).read_bytes()
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip())


def is_common_password(password: str) -> bool:
    """Whether ``password`` is on the common-password list, in any letter case."""
    return unicodedata.normalize("NFC", password).strip().lower() in common_passwords()


def check_password_policy(password: str, name: str | None = None) -> None:
    """Raise :class:`InvalidPassword` if ``password`` may not be used as a new one."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidPassword(f"Passwords must be at least {MIN_PASSWORD_LENGTH} characters long.")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise InvalidPassword(f"Passwords can be at most {MAX_PASSWORD_LENGTH} characters long.")
    if name is not None and password.casefold() == name.strip().casefold():
        raise InvalidPassword("Your password must not be your name.")
    if is_common_password(password):
        raise InvalidPassword(TOO_COMMON)


def _encode_password(password: str) -> bytes:
    # Clients may send the same accented text composed or decomposed; normalise so
    # the user can log in from any of them.
    return unicodedata.normalize("NFC", password).encode("utf-8")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _parse(encoded: str) -> _Parsed | None:
    try:
        scheme, n, r, p, salt, digest = encoded.split("$")
        if scheme != SCHEME:
            return None
        return _Parsed(
            ScryptParams(int(n), int(r), int(p)),
            base64.b64decode(salt, validate=True),
            base64.b64decode(digest, validate=True),
        )
    except (ValueError, TypeError):
        return None


#: ``told(position)``: someone waiting for a hashing thread is ``position``-th in line.
QueueListener = Callable[[int], None]

#: Who hears about their place in the hashing line: the login screen sets it for the
#: session whose line it is handling (a context variable, so the account service
#: between them needs no parameter for it; each session's task has its own).
queue_listener: contextvars.ContextVar[QueueListener | None] = contextvars.ContextVar(
    "maid_hash_queue_listener", default=None
)


#: How much lower than the game the hashing threads run where the idle scheduling
#: class is not to be had (a nice value, added).
HASH_NICENESS = BACKGROUND_NICENESS


def _background_priority() -> None:
    """Run in each hashing thread as it starts: the hashing threads run below the
    event loop (:func:`maid_engine.background.run_in_background`). Logins beyond
    what is left wait in the hashing line, which tells them their place."""
    run_in_background()


def default_workers() -> int:
    """One less than the CPUs this process may run on, at least one: hashing must
    leave the event loop a CPU. The CPUs it may use, not the machine's: a server
    pinned to some of them (``taskset``, a container's cpuset) has only those."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, cpus - 1)


class _Waiter:
    __slots__ = ("future", "listener", "told")

    def __init__(self, future: asyncio.Future[None], listener: QueueListener | None) -> None:
        self.future = future
        self.listener = listener
        self.told = 0


class HashPool:
    """A bounded pool of hashing threads with a first-come line in front of it.

    At most ``workers`` hashes run at once, in threads of their own (scrypt lets go
    of the GIL while it works). The others wait in line, in arrival order; a waiter
    with a listener (:data:`queue_listener`) is told their place when they join the
    line and again each time it has halved, so two hundred logins at once read a few
    lines each, not two hundred.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers if workers else default_workers()
        self._executor: ThreadPoolExecutor | None = None
        self._running = 0
        self._line: deque[_Waiter] = deque()
        #: The longest the line has been (for the metrics and the benchmark).
        self.longest_line = 0

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._line)

    def _pool(self) -> ThreadPoolExecutor:
        # Built on first use: no threads for an engine that never hashes.
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                self.workers, thread_name_prefix="maid-hash", initializer=_background_priority
            )
        return self._executor

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a hashing thread, after waiting in line if all are busy."""
        if self._running < self.workers and not self._line:
            self._running += 1
        else:
            await self._wait(queue_listener.get())
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool(), fn, *args)
        finally:
            self._release()

    async def _wait(self, listener: QueueListener | None) -> None:
        waiter = _Waiter(asyncio.get_running_loop().create_future(), listener)
        self._line.append(waiter)
        self.longest_line = max(self.longest_line, len(self._line))
        self._tell(waiter, len(self._line))
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                # The slot was handed over just as we were cancelled: pass it on.
                self._release()
            else:
                self._line.remove(waiter)
            raise

    def _release(self) -> None:
        """A hash finished: its thread goes to the first in line, else it is free."""
        while self._line:
            waiter = self._line.popleft()
            if waiter.future.done():
                continue
            waiter.future.set_result(None)
            for position, other in enumerate(self._line, 1):
                if position * 2 <= other.told:
                    self._tell(other, position)
            return
        self._running -= 1

    @staticmethod
    def _tell(waiter: _Waiter, position: int) -> None:
        waiter.told = position
        if waiter.listener is not None:
            try:
                waiter.listener(position)
            except Exception:
                log.exception("telling a login its place in line failed")

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


class PasswordHasher:
    """Hashes and verifies passwords in a bounded pool of worker threads.

    scrypt takes tens of milliseconds by design; running it on the event loop would
    freeze every connection for that long on each login, and running every login's
    hash at once would take every core from the players in the game.
    """

    def __init__(
        self,
        params: ScryptParams | None = None,
        *,
        kdf: Kdf | None = None,
        pool: HashPool | None = None,
    ) -> None:
        self.params = params or ScryptParams()
        self.kdf: Kdf = kdf or scrypt_kdf
        self.pool = pool or HashPool()
        #: Fixed salt and digest for unknown names: verifying against them costs one
        #: scrypt with the current parameters, like a real account, and never matches.
        self._dummy = _Parsed(self.params, os.urandom(SALT_BYTES), os.urandom(HASH_BYTES))

    @classmethod
    def from_settings(cls, settings: Settings, *, kdf: Kdf | None = None) -> PasswordHasher:
        return cls(
            ScryptParams(settings.scrypt_n, settings.scrypt_r, settings.scrypt_p),
            kdf=kdf,
            pool=HashPool(settings.hash_workers),
        )

    def _derive(self, password: str, salt: bytes, params: ScryptParams, dklen: int) -> bytes:
        return self.kdf(_encode_password(password), salt, params.n, params.r, params.p, dklen)

    def _hash_sync(self, password: str) -> str:
        salt = os.urandom(SALT_BYTES)
        digest = self._derive(password, salt, self.params, HASH_BYTES)
        p = self.params
        return f"{SCHEME}${p.n}${p.r}${p.p}${_b64(salt)}${_b64(digest)}"

    def _verify_sync(self, password: str, parsed: _Parsed) -> bool:
        candidate = self._derive(password, parsed.salt, parsed.params, len(parsed.digest))
        return hmac.compare_digest(candidate, parsed.digest)

    async def hash(self, password: str) -> str:
        """A new salted hash of ``password`` in the stored format."""
        return await self.pool.run(self._hash_sync, password)

    async def verify(self, password: str, encoded: str) -> bool:
        """Whether ``password`` matches ``encoded``.

        A malformed stored hash never matches, but still costs one scrypt so that a
        broken record does not answer faster than a real one.
        """
        parsed = _parse(encoded)
        if parsed is None:
            await self.verify_dummy(password)
            return False
        return await self.pool.run(self._verify_sync, password, parsed)

    async def verify_dummy(self, password: str) -> None:
        """Spend the same work as a real verification (for unknown names)."""
        await self.pool.run(self._verify_sync, password, self._dummy)

    def needs_rehash(self, encoded: str) -> bool:
        """True if ``encoded`` was made with other parameters than the current ones."""
        parsed = _parse(encoded)
        return parsed is None or parsed.params != self.params or (len(parsed.digest) != HASH_BYTES)
