"""The shipped Ironvale pack checks clean."""

from __future__ import annotations

from pathlib import Path

from maid_engine.packcheck import check_pack

IRONVALE = Path(__file__).resolve().parents[2] / "content_packs" / "ironvale"


def test_the_shipped_ironvale_is_clean() -> None:
    assert check_pack(IRONVALE) == []
