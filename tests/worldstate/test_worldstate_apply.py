"""apply_delta: its seven steps, the rules' checklist, and regressions found in play."""

from __future__ import annotations

from typing import Any

import pytest

from maid_stdlib.worldstate import (
    DictStatView,
    Report,
    StatSchema,
    apply_delta,
    current_value,
    instantiate,
    load_schema,
    render_refusals,
)


def one(report: Report) -> Any:
    entries = report.entries()
    assert len(entries) == 1, entries
    return entries[0]


# -- max_delta_per_turn and min/max ------------------------------------------------


def test_max_delta_clamps_then_the_floor_holds(schema: StatSchema, view: DictStatView) -> None:
    report = apply_delta(schema, view, {"player.hp": -50}, 1)
    change = one(report)
    assert (change.old, change.new, change.actual) == (100, 70, -30)
    assert change.code == "limited"
    assert change.fix is None
    assert report.applied == [change]
    assert report.clamped == [change]
    assert not report.rejected
    assert change.reason == "limited to 30 per turn"

    view.set("player.hp", 10)
    report = apply_delta(schema, view, {"player.hp": -50}, 2)
    change = one(report)
    assert (change.old, change.new, change.actual) == (10, 0, -10)
    assert change.reason == "limited to 30 per turn; stopped at its minimum of 0"

    report = apply_delta(schema, view, {"player.hp": -50}, 3)
    change = one(report)
    assert report.applied == []
    assert report.clamped == [change]
    assert change.code == "at_limit"
    assert change.reason == "no change — at its limit"
    # The correction the model is fed, word for word in shape.
    assert change.fix == (
        "`player.hp` did not move. It is already at its minimum of 0 "
        "(it runs from 0 to 100; it moves at most 30 per turn)."
    )
    assert view.get("player.hp") == 0


def test_a_clamp_that_still_moved_the_value_says_nothing(
    schema: StatSchema, view: DictStatView
) -> None:
    # Telling the model 80 became 30 invites it to send the other 50 next turn.
    report = apply_delta(schema, view, {"player.hp": -80}, 1)
    assert one(report).code == "limited"
    assert report.refusals() == []
    assert render_refusals(report) == ""


def test_wrong_signed_change_at_the_ceiling_is_reported(
    schema: StatSchema, view: DictStatView
) -> None:
    # Regression: hp at initial == max healed by mistake used to vanish silently.
    report = apply_delta(schema, view, {"npc.gwen.health": +20}, 1)
    change = one(report)
    assert change.code == "at_limit"
    assert change.new == 100
    assert "already at its maximum of 100" in (change.fix or "")
    assert render_refusals(report)


def test_absolute_sent_as_a_delta_clamps_out_loud() -> None:
    # Regression (pokemon_left): "two left" sent as +2 at 3/3 -> capped +1 -> clamped to 3.
    schema = load_schema({"npcs": {"milo": {"stats": {"pokemon_left": {
        "min": 0, "max": 3, "initial": 3, "max_delta_per_turn": 1}}}}})  # fmt: skip
    view = DictStatView()
    report = apply_delta(schema, view, {"npc.milo.pokemon_left": 2}, 1)
    assert one(report).code == "at_limit"
    assert "`npc.milo.pokemon_left` did not move" in render_refusals(report)


# -- cooldown ---------------------------------------------------------------------


def test_cooldown_two(seed_dict: dict[str, Any]) -> None:
    seed_dict["player"]["mana"]["cooldown"] = 2
    schema = load_schema(seed_dict)
    view = DictStatView()
    assert one(apply_delta(schema, view, {"player.mana": -5}, 1)).code == "applied"
    second = one(apply_delta(schema, view, {"player.mana": -5}, 2))
    assert second.code == "cooldown"
    assert second.fix == (
        "`player.mana` changed at action 1 and has a cooldown of 2; leave it out until action 3."
    )
    assert view.get("player.mana") == 15
    assert one(apply_delta(schema, view, {"player.mana": -5}, 3)).code == "applied"
    assert view.get("player.mana") == 10
    assert view.data["_meta"]["last_changed"]["player.mana"] == 3


def test_a_refused_change_does_not_restart_the_cooldown(seed_dict: dict[str, Any]) -> None:
    seed_dict["player"]["mana"]["cooldown"] = 2
    schema = load_schema(seed_dict)
    view = DictStatView()
    apply_delta(schema, view, {"player.mana": +50}, 1)  # 20 -> 35 (capped)
    apply_delta(schema, view, {"player.mana": +50}, 3)  # 35 -> 50
    at_limit = one(apply_delta(schema, view, {"player.mana": +1}, 5))
    assert at_limit.code == "at_limit"
    assert view.last_changed("player.mana") == 3


# -- counters ---------------------------------------------------------------------


def test_counter_rejects_negative_and_advances(schema: StatSchema, view: DictStatView) -> None:
    change = one(apply_delta(schema, view, {"world.day": -1}, 1))
    assert change.code == "counter_negative"
    assert change.reason == "counters only go up"
    assert "`world.day` is a counter: it only goes up" in (change.fix or "")
    assert current_value(schema, view, "world.day") == 1
    assert one(apply_delta(schema, view, {"world.day": +1}, 2)).code == "applied"
    assert view.get("world.day") == 2


@pytest.mark.parametrize(
    ("day", "sent", "fix"),
    [
        (3, 4, "`world.day` is a counter at 3; 4 looks like a new total, not a change. "
               "Send the change (+1) instead."),
        (3, 3, "`world.day` is a counter at 3; 3 is its current value, not a change. "
               "Leave it out."),
    ],
)  # fmt: skip
def test_absolute_on_a_counter_is_refused_out_loud(
    schema: StatSchema, view: DictStatView, day: int, sent: int, fix: str
) -> None:
    view.set("world.day", day)
    report = apply_delta(schema, view, {"world.day": sent}, 5)
    change = one(report)
    assert report.rejected == [change]
    assert change.code == "counter_total"
    assert change.fix == fix
    assert view.get("world.day") == day
    assert fix in render_refusals(report)


def test_a_big_counter_change_that_is_no_total_is_capped(
    schema: StatSchema, view: DictStatView
) -> None:
    view.set("world.day", 3)
    change = one(apply_delta(schema, view, {"world.day": 10}, 1))
    assert (change.code, change.new) == ("limited", 4)


# -- milestones and flags ------------------------------------------------------------


def test_milestone_sticky_and_false_ignored(schema: StatSchema, view: DictStatView) -> None:
    ignored = one(apply_delta(schema, view, {"milestones.rescue_gwen": False}, 1))
    assert ignored.code == "milestone_unset"
    assert view.get("milestones.rescue_gwen") is None

    report = apply_delta(schema, view, {"milestones.rescue_gwen": True}, 7)
    assert one(report).code == "reached"
    assert report.milestones_reached == ["rescue_gwen"]
    assert view.data["milestones"]["rescue_gwen"] == {"reached": True, "at": 7}

    again = apply_delta(schema, view, {"milestones.rescue_gwen": True}, 8)
    assert one(again).code == "milestone_repeat"
    assert again.milestones_reached == []
    unset = apply_delta(schema, view, {"milestones.rescue_gwen": False}, 9)
    assert one(unset).code == "milestone_unset"
    assert view.data["milestones"]["rescue_gwen"] == {"reached": True, "at": 7}


@pytest.mark.parametrize("value", [1, "done", None, [True]])
def test_milestone_takes_true_only(schema: StatSchema, view: DictStatView, value: Any) -> None:
    assert one(apply_delta(schema, view, {"milestones.reach_capital": value}, 1)).code == (
        "milestone_not_true"
    )
    assert view.get("milestones.reach_capital") is None


def test_flags_flip_both_ways(schema: StatSchema, view: DictStatView) -> None:
    on = one(apply_delta(schema, view, {"flags.alarm_raised": True}, 1))
    assert (on.code, on.old, on.new) == ("applied", False, True)
    assert one(apply_delta(schema, view, {"flags.alarm_raised": "false"}, 2)).new is False
    same = one(apply_delta(schema, view, {"flags.alarm_raised": False}, 3))
    assert same.code == "unchanged"
    assert "already false" in (same.fix or "")
    assert one(apply_delta(schema, view, {"flags.has_key": 3}, 4)).code == "not_a_boolean"


# -- per-NPC stats -------------------------------------------------------------------


def test_each_npc_instantiates_its_own_stats(schema: StatSchema, view: DictStatView) -> None:
    instantiate(schema, view)
    assert view.data["npc"] == {"gwen": {"health": 100, "trust": 20}, "milo": {"trust": 0}}
    assert view.data["flags"] == {"has_key": False, "alarm_raised": False}
    assert "milestones" not in view.data  # pending milestones are absent
    apply_delta(schema, view, {"npc.gwen.trust": +5, "npcs.milo.trust": -5}, 1)
    assert view.get("npc.gwen.trust") == 25
    assert view.get("npc.milo.trust") == -5


def test_lazy_instantiation_from_the_template(schema: StatSchema, view: DictStatView) -> None:
    assert current_value(schema, view, "npc.gwen.trust") == 20
    apply_delta(schema, view, {"npc.gwen.trust": 5}, 1)
    assert view.data["npc"] == {"gwen": {"trust": 25}}


# -- unknown paths, bad values, edge cases --------------------------------------------


def test_unknown_path_is_ignored_and_reported(schema: StatSchema, view: DictStatView) -> None:
    report = apply_delta(schema, view, {"player.hpp": -5, "weather.rain": 1}, 1)
    near, far = report.rejected
    assert near.code == far.code == "unknown_path"
    assert near.kind == "unknown"
    assert near.fix == "`player.hpp` is not in the world state. Did you mean `player.hp`?"
    assert far.fix is not None
    assert far.fix.startswith(
        "`weather.rain` is not in the world state. Real names: `world.day`, `player.hp`"
    )
    assert view.data == {}


def test_empty_delta_is_a_no_op(schema: StatSchema, view: DictStatView) -> None:
    report = apply_delta(schema, view, {}, 1)
    assert report == Report(action_index=1)
    assert view.data == {}


def test_empty_schema_writes_nothing(view: DictStatView) -> None:
    report = apply_delta(StatSchema(), view, {"player.hp": -5, "flags.x": True}, 1)
    assert report.entries() == []
    assert view.data == {}


@pytest.mark.parametrize(
    ("sent", "code", "new"),
    [
        ("-5", "applied", 95 - 0),
        ("+5", "at_limit", 100),
        ("lots", "not_a_number", None),
        (True, "not_a_number", None),
        (float("nan"), "not_a_number", None),
        (0, "zero_change", None),
        (0.4, "zero_change", None),  # rounds to 0 on a whole-number stat
        (-2.5, "applied", 97),  # half away from zero
    ],
)
def test_values_are_read_forgivingly(
    schema: StatSchema, view: DictStatView, sent: Any, code: str, new: Any
) -> None:
    change = one(apply_delta(schema, view, {"player.hp": sent}, 1))
    assert change.code == code
    if new is not None and code == "applied":
        assert change.new == new


def test_fractional_stats_keep_fractions() -> None:
    schema = load_schema({"world": {"price": {"min": 0.0, "max": 10.0, "initial": 1.5}}})
    view = DictStatView()
    apply_delta(schema, view, {"world.price": 0.1}, 1)
    apply_delta(schema, view, {"world.price": 0.2}, 2)
    assert view.get("world.price") == 1.8


def test_an_alias_sent_twice_counts_once(schema: StatSchema, view: DictStatView) -> None:
    report = apply_delta(schema, view, {"npc.gwen.trust": 20, "npcs.gwen.trust": 20}, 1)
    assert [c.code for c in report.entries()] == ["applied", "duplicate"]
    assert view.get("npc.gwen.trust") == 40


def test_last_changed_is_recorded(schema: StatSchema, view: DictStatView) -> None:
    apply_delta(schema, view, {"player.hp": -5, "npc.gwen.trust": 1, "flags.has_key": True}, 6)
    assert view.data["_meta"]["last_changed"] == {"player.hp": 6, "npc.gwen.trust": 6}


def test_entries_keep_block_order(schema: StatSchema, view: DictStatView) -> None:
    delta = {"nope": 1, "player.hp": -50, "world.day": -1, "npc.gwen.trust": 1}
    report = apply_delta(schema, view, delta, 1)
    assert [c.path for c in report.entries()] == [
        "nope",
        "player.hp",
        "world.day",
        "npc.gwen.trust",
    ]
    assert report.delta == delta
