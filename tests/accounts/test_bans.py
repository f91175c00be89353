"""The ban list: durations, addresses and networks, ends, persistence."""

from __future__ import annotations

from typing import Any

from maid_engine.accounts.bans import (
    Ban,
    BanList,
    format_duration,
    parse_address,
    parse_duration,
)
from maid_engine.accounts.model import MemoryDocuments


def test_durations_and_addresses_parse() -> None:
    assert parse_duration("30m") == 1800
    assert parse_duration("12H") == 12 * 3600
    assert parse_duration("2w") == 14 * 86400
    assert parse_duration("0d") is None
    assert parse_duration("soon") is None
    assert format_duration(7200 - 1) == "2 hours"
    assert format_duration(86400 * 3) == "3 days"
    assert format_duration(60) == "1 minute"
    assert format_duration(5) == "less than a minute"
    assert parse_address("203.0.113.7") == "203.0.113.7"
    assert parse_address("203.0.113.7/24") == "203.0.113.0/24"
    assert parse_address("::1") == "::1"
    assert parse_address("bryn") is None


async def test_bans_end_are_replaced_lifted_and_kept() -> None:
    docs = MemoryDocuments()
    bans = BanList(lambda: docs)
    assert await bans.add(Ban("account", "bryn", "griefing", "warden", 0.0, 100.0)) is None
    assert await bans.add(Ban("address", "10.0.0.0/8", "bots", "warden", 0.0)) is None
    old = await bans.add(Ban("account", "bryn", "worse", "warden", 0.0, 200.0))
    assert old is not None
    assert old.reason == "griefing"
    assert (await bans.of_account("bryn", 150.0)) is not None
    assert (await bans.of_account("bryn", 250.0)) is None
    assert (await bans.of_address("10.9.9.9", 1e9)) is not None
    assert (await bans.of_address("11.0.0.1", 1.0)) is None
    assert (await bans.of_address("not an address", 1.0)) is None
    # A second list over the same documents reads what the first wrote.
    again = BanList(lambda: docs)
    assert [b.reason for b in await again.listing(150.0)] == ["bots", "worse"]
    # Expired bans are dropped from the document when listed.
    assert [b.reason for b in await again.listing(250.0)] == ["bots"]
    doc: Any = await docs.get("moderation", "bans")
    assert [b["reason"] for b in doc["bans"]] == ["bots"]
    lifted = await again.remove("address", "10.0.0.0/8")
    assert lifted is not None
    assert lifted.ends(0.0) == "until lifted"
    assert await again.remove("address", "10.0.0.0/8") is None
    assert Ban("account", "x", "", "", 0.0, 3600.0).ends(0.0) == "for another 1 hour"
