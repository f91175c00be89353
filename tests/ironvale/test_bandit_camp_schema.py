"""The bandit camp's narrated schema in the Ironvale pack: the same rules as the
stdlib's example (tests/worldstate checks the example itself, with the same kit)."""

from __future__ import annotations

from pathlib import Path

from kits.schemas import check_gates_every_milestone, check_rescue_needs_key_and_gwen_alive

SCHEMA = Path(__file__).resolve().parents[2] / "content_packs/ironvale/narrated/bandit_camp.yaml"


def test_the_camp_schema_gates_every_milestone_and_passes_lint() -> None:
    check_gates_every_milestone(SCHEMA)


def test_the_camp_rescue_needs_the_key_first_and_gwen_alive() -> None:
    check_rescue_needs_key_and_gwen_alive(SCHEMA)
