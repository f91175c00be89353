"""Preconditions: ``requires`` on milestones and flags.

A milestone (or a flag leaving its initial value) whose preconditions do not hold is
refused with a fix built from its definition. Preconditions see stats as they stand
after this turn's stat changes, and flags and milestones as they stood before the turn.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kits.schemas import check_gates_every_milestone, check_rescue_needs_key_and_gwen_alive
from kits.schemas import refusal as rejected

from maid_engine.ecs import World
from maid_stdlib.worldstate import (
    ComponentStatView,
    Condition,
    DictStatView,
    Report,
    SchemaError,
    StatSchema,
    apply_delta,
    lint_schema,
    load_schema,
    load_schema_file,
    prompt_sections,
    render_changes,
    render_emit_rule,
    render_refusals,
    render_stat_guide,
    render_world_state,
    unmet_requires,
)

ROOT = Path(__file__).resolve().parents[2]
#: The stdlib's example schema; the content pack's copy of the demo is tested with the
#: pack, in its own test folder.
DEMOS = [ROOT / "maid_stdlib" / "worldstate" / "examples" / "bandit_camp.yaml"]

#: A small camp: the rescue needs the key and Gwen alive; the key needs her trust;
#: the road needs the rescue; the door starts locked (a flag whose initial is true).
BASE: dict[str, Any] = {
    "world": {"day": {"type": "counter", "min": 1, "initial": 1, "max_delta_per_turn": 1,
                      "desc": "+1 per night."}},
    "player": {"hp": {"min": 0, "max": 100, "initial": 90, "max_delta_per_turn": 30,
                      "desc": "-10 when hurt, +10 when healed."}},
    "npcs": {"gwen": {"name": "Gwen", "stats": {
        "health": {"min": 0, "max": 100, "initial": 20, "max_delta_per_turn": 30,
                   "desc": "-10 when hurt, +10 when tended."},
        "trust": {"min": -100, "max": 100, "initial": 20, "max_delta_per_turn": 20,
                  "desc": "+5 for kindness, -5 for cruelty."},
    }}},
    "flags": {
        "has_key": {"desc": "You hold the key.", "initial": False,
                    "requires": {"npc.gwen.trust": ">= 40"}},
        "door_locked": {"desc": "The cellar door is locked.", "initial": True,
                        "requires": {"player.hp": "> 50"}},
        "alarm_raised": {"desc": "The camp is awake.", "initial": False},
    },
    "milestones": {
        "rescue_gwen": {"desc": "Rescue Gwen",
                        "requires": {"flags.has_key": True, "npc.gwen.health": ">= 1"}},
        "reach_capital": {"desc": "Arrive at the capital",
                          "requires": {"milestones.rescue_gwen": True, "player.hp": "> 0"}},
        "sneak_out": {"desc": "Leave unseen", "requires": {"flags.alarm_raised": False}},
    },
}  # fmt: skip


def data() -> dict[str, Any]:
    return copy.deepcopy(BASE)


@pytest.fixture
def camp() -> StatSchema:
    return load_schema(data())


def errors_of(schema: dict[str, Any]) -> list[str]:
    with pytest.raises(SchemaError) as err:
        load_schema(schema)
    return err.value.errors


# -- the schema: parsing and validation ---------------------------------------------


def test_requires_parse_into_conditions_with_canonical_paths() -> None:
    schema = load_schema({
        **data(),
        "milestones": {"m": {"requires": {
            "npcs.gwen.health": ">= 1", "Player.HP": " <  50.5 ", "world.day": "!= \u22121",
            "flags.has_key": True, "milestone.rescue_gwen": False, "npc.gwen.trust": "==20",
        }}, "rescue_gwen": {}},
    })  # fmt: skip
    assert schema.milestones["m"].conditions == (
        Condition("npc.gwen.health", ">=", 1),
        Condition("player.hp", "<", 50.5),
        Condition("world.day", "!=", -1),
        Condition("flags.has_key", "==", True),
        Condition("milestones.rescue_gwen", "==", False),
        Condition("npc.gwen.trust", "==", 20),
    )
    texts = [c.text() for c in schema.milestones["m"].conditions]
    assert texts == ["npc.gwen.health >= 1", "player.hp < 50.5", "world.day != -1",
                     "flags.has_key = true", "milestones.rescue_gwen = false",
                     "npc.gwen.trust == 20"]  # fmt: skip
    # No requires (or an empty one) is no precondition.
    assert schema.milestones["rescue_gwen"].conditions == ()
    assert load_schema({"milestones": {"m": {"requires": None}}}).milestones["m"].conditions == ()


def _with(target: str, requires: Any) -> dict[str, Any]:
    schema = data()
    section, name = target.split(".")
    schema[section][name]["requires"] = requires
    return schema


@pytest.mark.parametrize(
    ("target", "requires", "message"),
    [
        # Syntax, checked per entry.
        (
            "milestones.rescue_gwen",
            {"player.hp": 5},
            "milestones.rescue_gwen.requires: player.hp: a bare number 5 is ambiguous; write "
            'a comparison such as ">= 5" or "== 5"',
        ),
        (
            "milestones.rescue_gwen",
            {"player.hp": "=> 1"},
            "milestones.rescue_gwen.requires: player.hp: '=> 1' is not a comparison",
        ),
        (
            "milestones.rescue_gwen",
            {"player.hp": "> one"},
            "milestones.rescue_gwen.requires: player.hp: '> one' is not a comparison",
        ),
        (
            "milestones.rescue_gwen",
            {"flags.has_key": "true"},
            "milestones.rescue_gwen.requires: flags.has_key: write true or false without "
            "quotes, not 'true'",
        ),
        (
            "milestones.rescue_gwen",
            {"flags.has_key": None},
            "milestones.rescue_gwen.requires: flags.has_key: None is neither true/false nor "
            "a comparison",
        ),
        ("flags.has_key", {"hp": "> 1"}, "flags.has_key.requires: 'hp' is not a world-state path"),
        (
            "flags.has_key",
            {"npc.gwen": "> 1"},
            "flags.has_key.requires: 'npc.gwen' is not a world-state path",
        ),
        (
            "milestones.sneak_out",
            ["flags.alarm_raised"],
            "milestones.sneak_out.requires: requires is a mapping of path: condition",
        ),
        (
            "milestones.sneak_out",
            {"player.hp": "> 1", "player.HP": "> 2"},
            "milestones.sneak_out.requires: player.hp: named twice",
        ),
        # Against the whole schema.
        (
            "milestones.rescue_gwen",
            {"flags.has_kee": True},
            "milestones.rescue_gwen.requires: flags.has_kee is not in the schema (did you mean "
            "flags.has_key?)",
        ),
        (
            "milestones.rescue_gwen",
            {"npc.milo.trust": "> 1"},
            "milestones.rescue_gwen.requires: npc.milo.trust is not in the schema",
        ),
        (
            "milestones.rescue_gwen",
            {"npc.gwen.health": True},
            "milestones.rescue_gwen.requires: npc.gwen.health is a number; compare it, e.g. "
            '">= 1", not true',
        ),
        (
            "flags.has_key",
            {"flags.alarm_raised": ">= 1"},
            "flags.has_key.requires: flags.alarm_raised is true or false; write true or false, "
            "not >= 1",
        ),
        (
            "milestones.sneak_out",
            {"milestones.sneak_out": False},
            "milestones.sneak_out.requires: milestones.sneak_out cannot require itself",
        ),
        (
            "milestones.sneak_out",
            {"player.hp": "> 100"},
            "milestones.sneak_out.requires: player.hp > 100 can never hold (player.hp runs "
            "from 0 to 100)",
        ),
        (
            "milestones.sneak_out",
            {"player.hp": "< 0"},
            "milestones.sneak_out.requires: player.hp < 0 can never hold",
        ),
        (
            "milestones.sneak_out",
            {"world.day": "== 0"},
            "milestones.sneak_out.requires: world.day == 0 can never hold (world.day runs "
            "from 1 to inf)",
        ),
    ],
)
def test_requires_errors_name_the_milestone_or_flag(
    target: str, requires: Any, message: str
) -> None:
    errors = errors_of(_with(target, requires))
    assert any(e.startswith(message) for e in errors), errors


def test_preconditions_that_wait_on_each_other_are_refused() -> None:
    schema = data()
    # The key needs the rescue, which needs the key: neither can ever happen.
    schema["flags"]["has_key"]["requires"] = {"milestones.reach_capital": True}
    errors = errors_of(schema)
    assert errors == [
        "flags.has_key.requires: the preconditions wait on each other (flags.has_key -> "
        "milestones.reach_capital -> milestones.rescue_gwen -> flags.has_key); none of "
        "them can ever be reached"
    ]
    # Waiting on a flag's *initial* value, or on a milestone still pending, is no wait.
    schema["flags"]["has_key"]["requires"] = {
        "milestones.reach_capital": False,
        "flags.door_locked": True,
    }
    load_schema(schema)


def test_every_problem_of_a_requires_is_listed() -> None:
    errors = errors_of(_with("milestones.rescue_gwen", {
        "flags.nope": True, "npc.gwen.health": True, "player.hp": "> 500",
    }))  # fmt: skip
    assert len(errors) == 3
    assert all(e.startswith("milestones.rescue_gwen.requires: ") for e in errors)


def test_unknown_keys_list_requires_as_allowed() -> None:
    errors = errors_of({"flags": {"f": {"needs": {}}}, "milestones": {"m": {"reward": 1}}})
    assert "flags.f: unknown key 'needs' (allowed: desc, initial, bind, requires)" in errors
    assert (
        "milestones.m: unknown key 'reward' (allowed: desc, bind, news, told_to, signal, requires)"
        in errors
    )


def test_a_schema_file_with_requires_errors_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "camp.yaml"
    path.write_text("flags:\n  lit: {}\nmilestones:\n  win:\n    requires: {flags.lot: true}\n")
    with pytest.raises(SchemaError) as err:
        load_schema_file(path)
    assert str(err.value) == (
        f"invalid stat schema ({path}):\n"
        "  milestones.win.requires: flags.lot is not in the schema (did you mean flags.lit?)"
    )


# -- each comparison ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "threshold", "hp", "holds"),
    [
        (">", 50, 51, True), (">", 50, 50, False),
        (">=", 50, 50, True), (">=", 50, 49, False),
        ("<", 50, 49, True), ("<", 50, 50, False),
        ("<=", 50, 50, True), ("<=", 50, 51, False),
        ("==", 50, 50, True), ("==", 50, 51, False),
        ("!=", 50, 51, True), ("!=", 50, 50, False),
        (">", 49.5, 50, True), ("<=", 0.5, 1, False), ("<", 0.5, 0, True),
    ],
)  # fmt: skip
def test_each_comparison(op: str, threshold: float, hp: int, holds: bool) -> None:
    schema = load_schema({
        "player": {"hp": {"min": 0, "max": 100, "initial": 90}},
        "milestones": {"win": {"requires": {"player.hp": f"{op} {threshold}"}}},
    })  # fmt: skip
    view = DictStatView({"player": {"hp": hp}})
    report = apply_delta(schema, view, {"milestones.win": True}, 1)
    assert (view.get("milestones.win") == 1) is holds
    if not holds:
        assert rejected(report, "milestones.win").code == "requires_unmet"
        assert str(rejected(report, "milestones.win").fix).startswith(
            f"`milestones.win` needs player.hp {op} "
        )


@pytest.mark.parametrize(("flag", "want", "holds"),
                         [(True, True, True), (False, True, False),
                          (False, False, True), (True, False, False)])  # fmt: skip
def test_boolean_conditions(flag: bool, want: bool, holds: bool) -> None:
    schema = load_schema({
        "flags": {"lit": {}},
        "milestones": {"win": {"requires": {"flags.lit": want}}},
    })  # fmt: skip
    view = DictStatView({"flags": {"lit": flag}})
    apply_delta(schema, view, {"milestones.win": True}, 1)
    assert (view.get("milestones.win") is not None) is holds


def test_a_condition_holds_for_its_kind_only() -> None:
    assert Condition("player.hp", ">", 0).holds(1)
    assert not Condition("player.hp", ">", 0).holds(True)  # a bool is not a number
    assert Condition("flags.lit", "==", True).holds(True)
    assert not Condition("flags.lit", "==", True).holds(1)


# -- rejection, the fix string, who is told ------------------------------------------


def test_an_unmet_milestone_is_refused_with_a_fix_from_its_definition(
    camp: StatSchema,
) -> None:
    view = DictStatView()
    report = apply_delta(camp, view, {"milestones.rescue_gwen": True}, 3)
    assert view.get("milestones.rescue_gwen") is None
    assert report.applied == []
    assert report.milestones_reached == []
    change = rejected(report, "milestones.rescue_gwen")
    assert change.kind == "milestone"
    assert change.code == "requires_unmet"
    assert change.old is False
    assert change.requested is True
    # Only the unmet condition is named; Gwen's health (20) is fine.
    assert change.reason == "needs has key on"
    assert change.fix == (
        "`milestones.rescue_gwen` needs flags.has_key = true (now false). Leave it out "
        "until the story has made that so; a flag or goal set in the same block counts "
        "only from the next turn."
    )
    # The players' change line says refused; the next prompt carries the fix.
    assert render_changes(report, camp) == "|rrescue gwen refused — needs has key on|n"
    refusals = render_refusals(report)
    assert "- `milestones.rescue_gwen` needs flags.has_key = true (now false)." in refusals
    assert prompt_sections(camp, view, ["gwen"], report)["world_state_refusals"] == refusals
    # Stored whole and read back, the refusal is still there (the write path keeps it).
    assert render_refusals(Report.from_json(report.to_json())) == refusals


def test_every_unmet_condition_is_in_the_fix_with_its_current_value(camp: StatSchema) -> None:
    view = DictStatView({"npc": {"gwen": {"health": 0}}, "player": {"hp": 0}})
    report = apply_delta(camp, view, {"milestones.rescue_gwen": True,
                                      "milestones.reach_capital": True}, 1)  # fmt: skip
    rescue = rejected(report, "milestones.rescue_gwen")
    assert rescue.fix is not None
    assert rescue.fix.startswith(
        "`milestones.rescue_gwen` needs flags.has_key = true (now false) and "
        "npc.gwen.health >= 1 (now 0). "
    )
    assert rescue.reason == "needs has key on, Gwen health >= 1"
    road = rejected(report, "milestones.reach_capital")
    assert road.fix is not None
    assert road.fix.startswith(
        "`milestones.reach_capital` needs milestones.rescue_gwen = true (now false) and "
        "player.hp > 0 (now 0). "
    )
    assert road.reason == "needs rescue gwen done, hp > 0"


def test_a_numeric_only_fix_does_not_talk_about_flags(camp: StatSchema) -> None:
    view = DictStatView({"flags": {"has_key": True}, "npc": {"gwen": {"health": 0}}})
    fix = rejected(apply_delta(camp, view, {"milestones.rescue_gwen": True}, 1),
                   "milestones.rescue_gwen").fix  # fmt: skip
    assert fix == (
        "`milestones.rescue_gwen` needs npc.gwen.health >= 1 (now 0). Leave it out until "
        "the story has made that so."
    )


def test_met_preconditions_apply(camp: StatSchema) -> None:
    view = DictStatView({"flags": {"has_key": True}})
    report = apply_delta(camp, view, {"milestones.rescue_gwen": True}, 4)
    assert report.rejected == []
    assert report.milestones_reached == ["rescue_gwen"]
    assert view.get("milestones.rescue_gwen") == 4
    assert render_changes(report, camp) == "|g✓ rescue gwen|n"
    # The next goal in the chain opens on the next turn.
    report = apply_delta(camp, view, {"milestones.reach_capital": True}, 5)
    assert report.milestones_reached == ["reach_capital"]


def test_a_reached_milestone_stays_quietly_reached_even_if_its_needs_lapse(
    camp: StatSchema,
) -> None:
    view = DictStatView({"flags": {"has_key": True}})
    apply_delta(camp, view, {"milestones.rescue_gwen": True}, 1)
    apply_delta(camp, view, {"flags.has_key": False}, 2)
    again = apply_delta(camp, view, {"milestones.rescue_gwen": True}, 3)
    assert rejected(again, "milestones.rescue_gwen").code == "milestone_repeat"
    assert view.get("milestones.rescue_gwen") == 1
    assert render_changes(again, camp) == ""  # a repeat is not news to players


def test_a_false_milestone_is_refused_as_before_not_as_unmet(camp: StatSchema) -> None:
    report = apply_delta(camp, DictStatView(), {"milestones.rescue_gwen": False}, 1)
    assert rejected(report, "milestones.rescue_gwen").code == "milestone_unset"


def test_a_flag_is_gated_only_when_it_leaves_its_initial_value(camp: StatSchema) -> None:
    view = DictStatView()
    report = apply_delta(camp, view, {"flags.has_key": True}, 1)
    key = rejected(report, "flags.has_key")
    assert key.code == "requires_unmet"
    assert key.kind == "flag"
    assert key.old is False
    assert key.reason == "needs Gwen trust >= 40"
    assert key.fix == (
        "`flags.has_key` can become true only once npc.gwen.trust >= 40 (now 20). Leave it "
        "out until the story has made that so."
    )
    assert view.get("flags.has_key") is None
    assert render_changes(report, camp) == "|rhas key refused — needs Gwen trust >= 40|n"
    # Gwen's trust high enough: the key turns; dropping it again is never gated.
    view.set("npc.gwen.trust", 40)
    assert apply_delta(camp, view, {"flags.has_key": True}, 2).rejected == []
    view.set("npc.gwen.trust", -100)
    assert apply_delta(camp, view, {"flags.has_key": False}, 3).rejected == []
    assert view.get("flags.has_key") is False


def test_a_flag_that_starts_true_is_gated_on_turning_false(camp: StatSchema) -> None:
    view = DictStatView({"player": {"hp": 40}})
    unlock = rejected(apply_delta(camp, view, {"flags.door_locked": False}, 1),
                      "flags.door_locked")  # fmt: skip
    assert unlock.fix is not None
    assert unlock.fix.startswith("`flags.door_locked` can become false only once player.hp > 50")
    view.set("player.hp", 60)
    apply_delta(camp, view, {"flags.door_locked": False}, 2)
    view.set("player.hp", 0)
    # Locking it again (back to initial) is free.
    assert apply_delta(camp, view, {"flags.door_locked": True}, 3).rejected == []


def test_an_absent_npc_meets_no_precondition(camp: StatSchema, world: World) -> None:
    room, hero = world.create_entity(), world.create_entity()
    view = ComponentStatView(world, room, hero, "camp", {})  # Gwen is not here
    view.set("flags.has_key", True)
    report = apply_delta(camp, view, {"milestones.rescue_gwen": True}, 1)
    change = rejected(report, "milestones.rescue_gwen")
    assert change.fix is not None
    assert change.fix.startswith("`milestones.rescue_gwen` needs npc.gwen.health >= 1 (not here).")
    unmet = unmet_requires(camp, view, camp.milestones["rescue_gwen"].conditions)
    assert [(u.condition.path, u.now) for u in unmet] == [("npc.gwen.health", "not here")]
    # With Gwen present, her (initial) health of 20 counts.
    gwen = world.create_entity()
    view = ComponentStatView(world, room, hero, "camp", {"gwen": gwen})
    assert apply_delta(camp, view, {"milestones.rescue_gwen": True}, 2).milestones_reached == [
        "rescue_gwen"
    ]


# -- the order of evaluation ---------------------------------------------------------


def test_stat_changes_of_the_same_block_count_whatever_their_place(camp: StatSchema) -> None:
    # Gwen dies in the block that tries to rescue her: refused, wherever the entry sits.
    for delta in (
        {"milestones.rescue_gwen": True, "npc.gwen.health": -30},
        {"npc.gwen.health": -30, "milestones.rescue_gwen": True},
    ):
        view = DictStatView({"flags": {"has_key": True}})
        report = apply_delta(camp, view, delta, 1)
        assert view.get("npc.gwen.health") == 0
        assert view.get("milestones.rescue_gwen") is None
        assert "npc.gwen.health >= 1 (now 0)" in (rejected(report, "milestones.rescue_gwen").fix
                                                  or "")  # fmt: skip
    # Trust earned in the same block opens the key, within the cap only.
    view = DictStatView()
    report = apply_delta(camp, view, {"flags.has_key": True, "npc.gwen.trust": 20}, 1)
    assert view.get("flags.has_key") is True
    assert report.rejected == []
    view = DictStatView()
    report = apply_delta(camp, view, {"flags.has_key": True, "npc.gwen.trust": 500}, 1)
    assert view.get("npc.gwen.trust") == 40  # +500 capped to +20: exactly enough
    assert view.get("flags.has_key") is True


def test_a_stat_that_cannot_move_does_not_meet_a_precondition(camp: StatSchema) -> None:
    # Sent big, cut by the cap: 20 + 20 = 40 < 50 is still short of a higher bar.
    schema = load_schema({**data(), "milestones": {"win": {"requires": {
        "npc.gwen.trust": ">= 50"}}}})  # fmt: skip
    view = DictStatView()
    report = apply_delta(schema, view, {"npc.gwen.trust": 1000, "milestones.win": True}, 1)
    assert view.get("npc.gwen.trust") == 40
    assert "npc.gwen.trust >= 50 (now 40)" in (rejected(report, "milestones.win").fix or "")


def test_flags_and_milestones_of_the_same_block_count_from_the_next_turn(
    camp: StatSchema,
) -> None:
    view = DictStatView({"npc": {"gwen": {"trust": 40}}})
    # The key and the rescue in one block: the key turns, the rescue waits a turn.
    report = apply_delta(camp, view, {"flags.has_key": True, "milestones.rescue_gwen": True,
                                      "milestones.reach_capital": True}, 1)  # fmt: skip
    assert view.get("flags.has_key") is True
    assert str(rejected(report, "milestones.rescue_gwen").fix).startswith(
        "`milestones.rescue_gwen` needs flags.has_key = true (now false)."
    )
    assert rejected(report, "milestones.reach_capital").code == "requires_unmet"
    report = apply_delta(camp, view, {"milestones.rescue_gwen": True,
                                      "milestones.reach_capital": True}, 2)  # fmt: skip
    assert report.milestones_reached == ["rescue_gwen"]  # the road waits another turn
    report = apply_delta(camp, view, {"milestones.reach_capital": True}, 3)
    assert report.milestones_reached == ["reach_capital"]


def test_a_flag_dropped_in_the_block_still_counts_as_held(camp: StatSchema) -> None:
    # The key was held when the turn began: it opens the cage, then it is dropped.
    view = DictStatView({"flags": {"has_key": True}})
    report = apply_delta(camp, view, {"flags.has_key": False, "milestones.rescue_gwen": True}, 1)
    assert report.milestones_reached == ["rescue_gwen"]
    assert view.get("flags.has_key") is False
    # And the alarm raised in the same block does not stop the sneaking out.
    report = apply_delta(camp, view, {"flags.alarm_raised": True,
                                      "milestones.sneak_out": True}, 2)  # fmt: skip
    assert report.milestones_reached == ["sneak_out"]


def test_the_outcome_does_not_depend_on_block_order_and_lists_keep_it(
    camp: StatSchema,
) -> None:
    delta = {"milestones.rescue_gwen": True, "flags.has_key": True, "npc.gwen.trust": 20,
             "player.hp": -5, "nope.x": 1, "world.day": -1}  # fmt: skip
    forward = apply_delta(camp, a := DictStatView(), delta, 1)
    backward = apply_delta(camp, b := DictStatView(), dict(reversed(delta.items())), 1)
    assert a.values() == b.values()
    assert {c.path: c.code for c in forward.entries()} == {
        c.path: c.code for c in backward.entries()
    }
    # Every list is in block order, as before preconditions existed.
    assert [c.path for c in forward.applied] == ["flags.has_key", "npc.gwen.trust", "player.hp"]
    assert [c.path for c in forward.rejected] == ["milestones.rescue_gwen", "nope.x", "world.day"]
    assert [c.seq for c in forward.entries()] == list(range(6))


# -- what the model is told ----------------------------------------------------------


def test_the_goals_line_names_each_goals_preconditions(camp: StatSchema) -> None:
    view = DictStatView({"npc": {"gwen": {"health": 0}}})
    text = render_world_state(camp, view, ["gwen"])
    assert (
        "Goals (mark with milestones.<id>): "
        "rescue_gwen — Rescue Gwen [needs flags.has_key = true (now false), "
        "npc.gwen.health >= 1 (now 0)]; "
        "reach_capital — Arrive at the capital [needs milestones.rescue_gwen = true "
        "(now false), player.hp > 0]; "
        "sneak_out — Leave unseen [needs flags.alarm_raised = false]."
    ) in text
    # A flag still at its initial value names what moving it needs.
    assert (
        "Flags: has_key false [to become true, needs npc.gwen.trust >= 40 (now 20)], "
        "door_locked true [to become false, needs player.hp > 50], alarm_raised false."
    ) in text
    # Once reached (or flipped) there is nothing left to need.
    view.set("milestones.rescue_gwen", 1)
    view.set("flags.has_key", True)
    text = render_world_state(camp, view, ["gwen"])
    assert "rescue_gwen —" not in text
    assert "Achieved: Rescue Gwen." in text
    assert (
        "reach_capital — Arrive at the capital [needs milestones.rescue_gwen = true, "
        "player.hp > 0]" in text
    )
    assert "has_key true," in text


def test_the_guide_and_the_rule_name_the_preconditions(camp: StatSchema) -> None:
    guide = render_stat_guide(camp)
    assert (
        "- milestones.rescue_gwen (send true once, when reached; only once "
        "flags.has_key = true and npc.gwen.health >= 1): Rescue Gwen"
    ) in guide
    assert (
        "- flags.has_key (true/false; to become true, needs npc.gwen.trust >= 40): "
        "You hold the key."
    ) in guide
    assert "- flags.alarm_raised (true/false): The camp is awake." in guide
    rule = render_emit_rule(camp)
    assert "flags and goals changed in the same block count only from the next turn" in rule


def test_a_schema_without_requires_reads_as_before(schema: StatSchema) -> None:
    # The bandit-camp schema (conftest) has no preconditions: no brackets, no extra rule.
    sections = prompt_sections(schema, DictStatView(), ["gwen"])
    assert "[needs" not in sections["world_state"]
    assert "[to become" not in sections["world_state"]
    assert "[needs" not in sections["world_state_rule"]
    assert (
        "- milestones.rescue_gwen (send true once, when reached): "
        in (sections["world_state_guide"])
    )


# -- lint and the demo schemas -------------------------------------------------------


def test_lint_advises_requires_on_every_milestone() -> None:
    warnings = lint_schema(load_schema({
        "player": {"hp": {"min": 0, "max": 100, "initial": 50, "desc": "-10 when hurt."}},
        "milestones": {
            "open": {"desc": "Anything goes"},
            "empty": {"desc": "Still anything", "requires": {}},
            "vain": {"desc": "Gated by nothing", "requires": {"player.hp": ">= 0"}},
            "real": {"desc": "Gated", "requires": {"player.hp": "> 0"}},
        },
    }))  # fmt: skip
    assert [w.split(":")[0] for w in warnings] == [
        "milestones.open",
        "milestones.empty",
        "milestones.vain.requires",
    ]
    assert warnings[0].startswith("milestones.open: no requires; any one reply can mark it")
    assert warnings[2] == (
        "milestones.vain.requires: player.hp >= 0 always holds (it is the whole range of "
        "the stat); it gates nothing."
    )


@pytest.mark.parametrize("path", DEMOS, ids=["example"])
def test_the_demo_schemas_gate_every_milestone_and_pass_lint(path: Path) -> None:
    check_gates_every_milestone(path)


@pytest.mark.parametrize("path", DEMOS, ids=["example"])
def test_the_demo_rescue_needs_the_key_first_and_gwen_alive(path: Path) -> None:
    check_rescue_needs_key_and_gwen_alive(path)
