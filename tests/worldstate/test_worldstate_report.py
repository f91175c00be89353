"""The Report: three lists, stored whole, and the players' change line."""

from __future__ import annotations

import json

import pytest

from maid_stdlib.worldstate import (
    DictStatView,
    Report,
    StatSchema,
    apply_delta,
    render_changes,
    render_refusals,
)

MIXED = {
    "player.hp": -50,  # limited
    "npc.gwen.health": +10,  # at its limit
    "world.day": -1,  # rejected
    "nope.x": 1,  # unknown
    "npc.gwen.trust": 5,  # applied
    "milestones.rescue_gwen": True,
    "flags.alarm_raised": True,
    "player.mana": 0,  # quiet refusal
}


@pytest.fixture
def mixed(schema: StatSchema, view: DictStatView) -> Report:
    return apply_delta(schema, view, MIXED, 4)


def test_report_carries_all_three_lists(mixed: Report) -> None:
    assert [c.path for c in mixed.applied] == [
        "player.hp",
        "npc.gwen.trust",
        "milestones.rescue_gwen",
        "flags.alarm_raised",
    ]
    assert [c.path for c in mixed.clamped] == ["player.hp", "npc.gwen.health"]
    assert [c.path for c in mixed.rejected] == ["world.day", "nope.x", "player.mana"]
    assert mixed.milestones_reached == ["rescue_gwen"]
    for change in mixed.rejected:
        assert change.reason
        assert change.fix
    assert all(c.fix is None for c in mixed.applied)


def test_report_round_trips_json_and_keeps_every_list(mixed: Report) -> None:
    # A past write-path bug: the stored column dropped clamped and rejected, so
    # nothing downstream could see them. What is stored must be the whole report.
    stored = json.loads(mixed.to_json())
    assert set(stored) >= {"applied", "clamped", "rejected", "milestones_reached", "delta"}
    back = Report.from_json(json.dumps(stored))
    assert back == mixed
    assert Report.from_json(stored) == mixed
    assert render_refusals(back) == render_refusals(mixed) != ""
    assert render_changes(back) == render_changes(mixed)


def test_report_with_odd_requests_is_still_json(schema: StatSchema, view: DictStatView) -> None:
    report = apply_delta(
        schema, view, {"player.hp": float("inf"), "world.day": {"to": 3}, "x": object()}, 1
    )
    back = Report.from_json(report.to_json())
    assert back == report
    assert [c.code for c in back.rejected] == ["not_a_number", "not_a_number", "unknown_path"]


def test_change_line(schema: StatSchema, mixed: Report) -> None:
    assert render_changes(mixed, schema) == (
        "|yhp -30 (limited)|n, "
        "|yGwen health no change — at its limit|n, "
        "|rday refused — counters only go up|n, "
        "|rnope.x refused — no such stat|n, "
        "|gGwen trust +5|n, "
        "|g✓ rescue gwen|n, "
        "|galarm raised on|n"
    )


def test_change_line_without_schema_uses_ids(mixed: Report) -> None:
    assert "|ggwen trust +5|n" in render_changes(mixed)


def test_change_line_is_empty_when_nothing_happened(schema: StatSchema, view: DictStatView) -> None:
    assert render_changes(apply_delta(schema, view, {}, 1)) == ""
    # Restating what already holds is noise to players (the model still hears of it).
    quiet = apply_delta(schema, view, {"player.hp": 0, "flags.has_key": False}, 1)
    assert render_changes(quiet) == ""
    assert len(quiet.refusals()) == 2


def test_change_line_escapes_pipes(schema: StatSchema, view: DictStatView) -> None:
    line = render_changes(apply_delta(schema, view, {"|rplayer.hp": -1}, 1))
    assert line == "|r||rplayer.hp refused — no such stat|n"
