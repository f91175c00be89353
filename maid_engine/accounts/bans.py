"""Bans of accounts and addresses: who, why, until when; kept in the database.

A ban names an account (by its key) or an address (one IP, or a network such as
``203.0.113.0/24``), with a reason, who set it, and an end (None: until lifted).
The list lives in one document of the ``moderation`` collection and is read once
and then kept in memory, so checking a connection costs no query. The login
screen refuses a banned address as soon as it connects and a banned account after
its password; ``@ban`` also throws out whoever is connected under it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from maid_engine.accounts.model import Documents

__all__ = [
    "MODERATION_COLLECTION",
    "Ban",
    "BanList",
    "format_duration",
    "parse_address",
    "parse_duration",
]

MODERATION_COLLECTION = "moderation"
BANS_KEY = "bans"

Kind = Literal["account", "address"]

_DURATION = re.compile(r"^(\d+)([mhdw])$")
_UNIT = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
_UNIT_NAME = {"m": "minute", "h": "hour", "d": "day", "w": "week"}


def parse_duration(word: str) -> float | None:
    """Seconds for "30m", "12h", "7d", "2w"; None if ``word`` is not a duration."""
    m = _DURATION.match(word.lower())
    if m is None or int(m.group(1)) == 0:
        return None
    return int(m.group(1)) * _UNIT[m.group(2)]


def format_duration(seconds: float) -> str:
    """In the largest unit that fits, rounded: "2 days", "45 minutes" (a mute of 2h
    read a moment later still says "2 hours")."""
    for unit in "wdhm":
        if seconds >= _UNIT[unit] * 0.99:
            count = max(1, round(seconds / _UNIT[unit]))
            return f"{count} {_UNIT_NAME[unit]}{'s' if count != 1 else ''}"
    return "less than a minute"


def parse_address(text: str) -> str | None:
    """The normalised address or network ``text`` names, or None if it is neither."""
    try:
        if "/" in text:
            return str(ipaddress.ip_network(text, strict=False))
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


@dataclass(frozen=True)
class Ban:
    kind: Kind
    #: The account key, or the address / network.
    target: str
    reason: str
    by: str
    since: float
    #: Wall-clock end; None: until someone lifts it.
    until: float | None = None

    def active(self, now: float) -> bool:
        return self.until is None or now < self.until

    def covers_address(self, address: str) -> bool:
        if self.kind != "address":
            return False
        try:
            return ipaddress.ip_address(address) in ipaddress.ip_network(self.target)
        except ValueError:
            return False

    def ends(self, now: float) -> str:
        """ "until lifted" or "for another 3 days"."""
        if self.until is None:
            return "until lifted"
        return f"for another {format_duration(max(0.0, self.until - now))}"


class DocumentsSource(Protocol):
    """Where the bans document is read and written (the store, or memory)."""

    def __call__(self) -> Documents: ...


class BanList:
    """The bans, loaded on first use and written through on every change."""

    def __init__(self, documents: DocumentsSource) -> None:
        self._documents = documents
        self._bans: list[Ban] | None = None

    async def load(self) -> list[Ban]:
        if self._bans is None:
            doc = await self._documents().get(MODERATION_COLLECTION, BANS_KEY) or {}
            self._bans = [Ban(**entry) for entry in doc.get("bans", [])]
        return self._bans

    async def _save(self, bans: list[Ban]) -> None:
        doc: dict[str, Any] = {"v": 1, "bans": [asdict(b) for b in bans]}
        await self._documents().put(MODERATION_COLLECTION, BANS_KEY, doc)
        self._bans = bans

    async def add(self, ban: Ban) -> Ban | None:
        """Set ``ban``, replacing an earlier one of the same target (returned)."""
        bans = await self.load()
        old = next((b for b in bans if (b.kind, b.target) == (ban.kind, ban.target)), None)
        await self._save([b for b in bans if b is not old] + [ban])
        return old

    async def remove(self, kind: Kind, target: str) -> Ban | None:
        """Lift the ban of ``target``; the ban lifted, or None if there was none."""
        bans = await self.load()
        old = next((b for b in bans if (b.kind, b.target) == (kind, target)), None)
        if old is not None:
            await self._save([b for b in bans if b is not old])
        return old

    async def listing(self, now: float) -> list[Ban]:
        """The bans in force (expired ones are dropped from the document)."""
        bans = await self.load()
        live = [b for b in bans if b.active(now)]
        if len(live) != len(bans):
            await self._save(live)
        return live

    async def of_account(self, key: str, now: float) -> Ban | None:
        bans = await self.load()
        return next(
            (b for b in bans if b.kind == "account" and b.target == key and b.active(now)), None
        )

    async def of_address(self, address: str, now: float) -> Ban | None:
        bans = await self.load()
        return next((b for b in bans if b.active(now) and b.covers_address(address)), None)
