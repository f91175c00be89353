"""The prompt sections: World State, stat guide, emit rule, refusals, history replay."""

from __future__ import annotations

from maid_stdlib.worldstate import (
    DictStatView,
    Report,
    StatSchema,
    applied_delta,
    apply_delta,
    extract_delta,
    prompt_sections,
    render_emit_reminder,
    render_emit_rule,
    render_refusals,
    render_stat_guide,
    render_world_state,
    replay_block,
    replay_turn,
)


def test_world_state_section_shape(schema: StatSchema, view: DictStatView) -> None:
    view.set("world.day", 3)
    view.set("player.hp", 55)
    view.set("player.mana", 10)
    view.set("npc.gwen.health", 80)
    view.set("milestones.rescue_gwen", 2)
    assert render_world_state(schema, view, ["gwen"]) == (
        "World state — day 3.\n"
        "You: hp 55/100 (minor damage), mana 10/50.\n"
        "Gwen (npc.gwen): health 80/100 (healthy), trust 20 (wary).\n"
        "Flags: has_key false, alarm_raised false.\n"
        "Goals (mark with milestones.<id>): reach_capital — Arrive at the capital city.\n"
        "Achieved: Rescue Gwen from the bandits."
    )


def test_only_present_npcs_are_injected(schema: StatSchema, view: DictStatView) -> None:
    nobody = render_world_state(schema, view, [])
    assert "npc." not in nobody
    milo = render_world_state(schema, view, ["milo", "stranger"])
    assert "Milo (npc.milo): trust 0." in milo
    assert "npc.gwen" not in milo


def test_goals_and_achieved_lines_are_omitted_when_empty(
    schema: StatSchema, view: DictStatView
) -> None:
    text = render_world_state(schema, view)
    assert "Achieved" not in text
    view.set("milestones.rescue_gwen", 1)
    view.set("milestones.reach_capital", 2)
    text = render_world_state(schema, view)
    assert "Goals" not in text
    assert "Achieved: Rescue Gwen from the bandits; " in text


def test_milestone_ids_are_named_to_the_model(schema: StatSchema, view: DictStatView) -> None:
    # A regression: the id was nowhere in the prompt, so it was never emitted.
    sections = prompt_sections(schema, view, ["gwen"])
    assert "rescue_gwen — Rescue Gwen" in sections["world_state"]
    guide = sections["world_state_guide"]
    assert "- milestones.rescue_gwen (send true once, when reached)" in guide
    assert '"milestones.<id>": true' in sections["world_state_rule"]


def test_stat_guide_has_descs_ranges_and_ladders(schema: StatSchema) -> None:
    guide = render_stat_guide(schema)
    assert guide.splitlines()[0].startswith("Stat guide")
    assert (
        "- player.hp (from 0 to 100; at most 30 per turn) Scale: 0\u201320 very weak, "
        "20\u201340 hurt, 40\u201360 minor damage, 60\u201390 healthy, 90\u2013100 full health."
    ) in guide
    assert (
        "- world.day (counter, only goes up; from 1 upward; at most 1 per turn): In-game day"
        in guide
    )
    assert "- flags.has_key (true/false): Player holds the dungeon key" in guide
    assert "npc.milo.trust" in guide
    assert "npc.milo.trust" not in render_stat_guide(schema, ["gwen"])


def test_emit_rule_asks_for_deltas_only(schema: StatSchema) -> None:
    rule = render_emit_rule(schema)
    assert "CHANGES ONLY, as deltas (not new totals)" in rule
    assert "never restate unchanged stats" in rule
    assert "leave the block out entirely (no empty {})" in rule
    # The example uses real paths and parses with our own parser.
    assert extract_delta(rule.split("e.g.\n", 1)[1])[1] == {"player.hp": -15, "npc.gwen.health": 5}
    assert "deltas only" in render_emit_reminder(schema)


def test_empty_schema_injects_nothing(view: DictStatView) -> None:
    empty = StatSchema()
    assert render_world_state(empty, view, ["gwen"]) == ""
    assert render_stat_guide(empty) == ""
    assert render_emit_rule(empty) == ""
    assert render_emit_reminder(empty) == ""
    assert prompt_sections(empty, view, ["gwen"], None) == {}
    assert view.data == {}


def test_refusals_reach_the_next_prompt_and_only_that_one(
    schema: StatSchema, view: DictStatView
) -> None:
    turn1 = apply_delta(schema, view, {"world.day": -1, "player.hp": -10}, 1)
    turn2_prompt = prompt_sections(schema, view, [], previous=turn1)
    assert turn2_prompt["world_state_refusals"] == (
        "[Part of your last state block was not applied. Correct it in this turn's block:\n"
        "- `world.day` is a counter: it only goes up. Send a positive change such as +1, "
        "or leave it out.]"
    )
    turn2 = apply_delta(schema, view, {"player.hp": -10}, 2)
    turn3_prompt = prompt_sections(schema, view, [], previous=turn2)
    assert "world_state_refusals" not in turn3_prompt
    assert render_refusals(None) == ""


def test_refusals_list_every_total_loss(schema: StatSchema, view: DictStatView) -> None:
    report = apply_delta(schema, view, {"npc.gwen.health": 5, "bogus": 1, "player.hp": -50}, 1)
    lines = render_refusals(report).splitlines()
    assert len(lines) == 3  # header, at-limit, unknown; the partial clamp says nothing
    assert lines[1].startswith("- `npc.gwen.health` did not move.")
    assert lines[2].startswith("- `bogus` is not in the world state.")


def test_replay_carries_only_what_was_applied(schema: StatSchema, view: DictStatView) -> None:
    sent = {
        "player.hp": -50,  # applied as -30
        "npc.gwen.health": 10,  # moved nothing
        "world.day": -1,  # refused
        "npc.gwen.trust": 5,
        "flags.has_key": True,
        "milestones.rescue_gwen": True,
        "player.mana": 0,
    }
    report = apply_delta(schema, view, sent, 1)
    assert applied_delta(report) == {
        "player.hp": -30,
        "npc.gwen.trust": 5,
        "flags.has_key": True,
        "milestones.rescue_gwen": True,
    }
    block = replay_block(report)
    assert block == (
        "```state\n"
        '{"player.hp": -30, "npc.gwen.trust": +5, "flags.has_key": true, '
        '"milestones.rescue_gwen": true}\n'
        "```"
    )
    replayed = replay_turn("Steel rings.", report)
    assert extract_delta(replayed) == ("Steel rings.", applied_delta(report))


def test_replay_drops_numeric_no_ops_from_stored_reports() -> None:
    # An older stored report may hold a zero move in `applied`; it must not be replayed.
    stored = {
        "action_index": 3,
        "applied": [
            {"seq": 0, "path": "npc.milo.pokemon_left", "kind": "stat", "requested": 2,
             "old": 3, "new": 3, "actual": 0, "code": "applied"},
        ],
    }  # fmt: skip
    report = Report.from_json(stored)
    assert applied_delta(report) == {}
    assert replay_block(report) == ""
    assert replay_turn("She faints.", report) == "She faints."
    assert replay_turn("She faints.", None) == "She faints."
