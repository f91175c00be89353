"""Password hashing with scrypt, always off the event loop.

A stored hash carries its own parameters and salt::

    scrypt$<n>$<r>$<p>$<salt, base64>$<hash, base64>

so the cost parameters in the settings can be raised later: old hashes still
verify, and :meth:`PasswordHasher.needs_rehash` tells the caller to re-hash on the
next successful login.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import gzip
import hashlib
import hmac
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from maid_engine.accounts.errors import InvalidPassword

if TYPE_CHECKING:
    from maid_engine.config import Settings

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


class PasswordHasher:
    """Hashes and verifies passwords in a worker thread.

    scrypt takes tens of milliseconds by design; running it on the event loop would
    freeze every connection for that long on each login.
    """

    def __init__(self, params: ScryptParams | None = None, *, kdf: Kdf | None = None) -> None:
        self.params = params or ScryptParams()
        self.kdf: Kdf = kdf or scrypt_kdf
        #: Fixed salt and digest for unknown names: verifying against them costs one
        #: scrypt with the current parameters, like a real account, and never matches.
        self._dummy = _Parsed(self.params, os.urandom(SALT_BYTES), os.urandom(HASH_BYTES))

    @classmethod
    def from_settings(cls, settings: Settings, *, kdf: Kdf | None = None) -> PasswordHasher:
        return cls(ScryptParams(settings.scrypt_n, settings.scrypt_r, settings.scrypt_p), kdf=kdf)

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
        return await asyncio.to_thread(self._hash_sync, password)

    async def verify(self, password: str, encoded: str) -> bool:
        """Whether ``password`` matches ``encoded``.

        A malformed stored hash never matches, but still costs one scrypt so that a
        broken record does not answer faster than a real one.
        """
        parsed = _parse(encoded)
        if parsed is None:
            await self.verify_dummy(password)
            return False
        return await asyncio.to_thread(self._verify_sync, password, parsed)

    async def verify_dummy(self, password: str) -> None:
        """Spend the same work as a real verification (for unknown names)."""
        await asyncio.to_thread(self._verify_sync, password, self._dummy)

    def needs_rehash(self, encoded: str) -> bool:
        """True if ``encoded`` was made with other parameters than the current ones."""
        parsed = _parse(encoded)
        return parsed is None or parsed.params != self.params or (len(parsed.digest) != HASH_BYTES)
