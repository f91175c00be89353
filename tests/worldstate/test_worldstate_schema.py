"""Schema loading, validation messages (every one names its stat path), and lint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from maid_stdlib.worldstate import (
    SchemaError,
    StatSchema,
    band_label,
    band_ladder,
    lint_schema,
    load_schema,
    load_schema_file,
)


def errors_of(data: Any) -> list[str]:
    with pytest.raises(SchemaError) as info:
        load_schema(data)
    return info.value.errors


def test_seed_schema_loads_as_written(schema: StatSchema) -> None:
    assert schema.world["day"].is_counter
    assert schema.player["hp"].max_delta_per_turn == 30
    gwen = schema.npcs["gwen"]
    assert gwen.name == "Gwen"
    assert gwen.keys == ["Gwen", "ranger", "her"]
    assert set(gwen.stats) == {"health", "trust"}
    assert schema.flags["has_key"].initial is False
    assert schema.milestones["rescue_gwen"].desc == "Rescue Gwen from the bandits"
    assert not schema.is_empty


@pytest.mark.parametrize("data", [None, {}, {"world": {}, "npcs": {}}])
def test_empty_schema(data: Any) -> None:
    schema = load_schema(data)
    assert schema.is_empty
    assert schema.paths() == []


def test_each_npc_has_its_own_stats(schema: StatSchema) -> None:
    # No shared template: Milo has trust only, Gwen health and trust.
    assert schema.resolve("npc.gwen.health") is not None
    assert schema.resolve("npc.milo.health") is None
    milo = schema.resolve("npc.milo.trust")
    gwen = schema.resolve("npc.gwen.trust")
    assert milo is not None
    assert gwen is not None
    assert milo.stat is not None
    assert gwen.stat is not None
    assert (milo.stat.start, gwen.stat.start) == (0, 20)


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ("npc.gwen.trust", "npc.gwen.trust"),
        ("npcs.gwen.trust", "npc.gwen.trust"),
        (" NPC.Gwen.Trust ", "npc.gwen.trust"),
        ("`player.hp`", "player.hp"),
        ("flag.has_key", "flags.has_key"),
        ("milestone.rescue_gwen", "milestones.rescue_gwen"),
        ("world.day", "world.day"),
    ],
)
def test_paths_resolve_to_canonical(schema: StatSchema, raw: str, path: str) -> None:
    target = schema.resolve(raw)
    assert target is not None
    assert target.path == path


@pytest.mark.parametrize("raw", ["hp", "player", "npc.gwen", "npc.nobody.trust", "x.y", ""])
def test_unresolvable_paths(schema: StatSchema, raw: str) -> None:
    assert schema.resolve(raw) is None


def test_initial_defaults_into_range() -> None:
    schema = load_schema({"world": {"day": {"min": 1}, "heat": {"max": -5}, "x": {}}})
    assert [schema.world[k].start for k in ("day", "heat", "x")] == [1, -5, 0]


def _with_stat(data: dict[str, Any], **fields: Any) -> dict[str, Any]:
    data["npcs"]["gwen"]["stats"]["trust"] = {"min": -100, "max": 100, "initial": 20, **fields}
    return data


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"bands": [[-100, 50, "a"], [40, 100, "b"]]}, "npcs.gwen.trust: bands overlap at 40"),
        ({"bands": [[-100, 30, "a"], [40, 100, "b"]]},
         "npcs.gwen.trust: bands leave a gap between 30 and 40"),
        ({"bands": [[-90, 100, "a"]]},
         "npcs.gwen.trust: bands leave a gap between -100 (min) and -90"),
        ({"bands": [[-100, 90, "a"]]},
         "npcs.gwen.trust: bands leave a gap between 90 and 100 (max)"),
        ({"bands": [[-100, 120, "a"]]}, "npcs.gwen.trust: bands end at 120, above max 100"),
        ({"bands": [[-100, -100, "a"], [-100, 100, "b"]]},
         "npcs.gwen.trust: band [-100, -100] is empty or reversed"),
        ({"bands": [[-100, 100, " "]]}, "npcs.gwen.trust: band [-100, 100] has no label"),
        ({"bands": [[0, 10]]},
         "npcs.gwen.trust.bands[0]: a band is [low, high, label], got [0, 10]"),
        ({"initial": 150}, "npcs.gwen.trust: initial 150 is above max 100"),
        ({"initial": -150}, "npcs.gwen.trust: initial -150 is below min -100"),
        ({"min": 200}, "npcs.gwen.trust: min 200 is above max 100"),
        ({"maxx": 5}, "npcs.gwen.trust: unknown key 'maxx' (allowed: type, desc, min, max, "
                      "initial, max_delta_per_turn, cooldown, bands, bind)"),
        ({"max_delta_per_turn": 0}, "npcs.gwen.trust: max_delta_per_turn must be above 0"),
        ({"min": True}, "npcs.gwen.trust.min: must be a number, got True"),
        ({"min": "0"}, "npcs.gwen.trust.min: must be a number, got '0'"),
        ({"cooldown": -1}, "npcs.gwen.trust.cooldown: Input should be greater than or equal to 0"),
        ({"type": "gauge"}, "npcs.gwen.trust.type: Input should be 'number' or 'counter'"),
    ],
)  # fmt: skip
def test_validation_errors_name_the_stat_path(
    seed_dict: dict[str, Any], fields: dict[str, Any], message: str
) -> None:
    assert message in errors_of(_with_stat(seed_dict, **fields))


def test_every_problem_is_listed_at_once(seed_dict: dict[str, Any]) -> None:
    data = seed_dict
    data["player"]["hp"]["initial"] = 101
    data["player"]["hp"]["bands"] = [[0, 50, "a"], [40, 100, "b"]]
    data["world"]["day"]["colour"] = "red"
    data["npcs"]["gwen"]["mood"] = "grim"
    data["weather"] = {}
    errors = errors_of(data)
    assert "player.hp: initial 101 is above max 100" in errors
    assert "player.hp: bands overlap at 40" in errors
    assert any(e.startswith("world.day: unknown key 'colour'") for e in errors)
    assert any(e.startswith("npcs.gwen: unknown key 'mood'") for e in errors)
    assert any(e.startswith("schema: unknown key 'weather'") for e in errors)


@pytest.mark.parametrize("bad", ["Day", "my day", "2day", "day.night"])
def test_ids_must_be_path_safe(bad: str) -> None:
    errors = errors_of({"world": {bad: {}}})
    assert errors == [
        f"world.{bad}: ids are lowercase letters, digits and _, starting with a letter"
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"flags": {"lit": {"initial": "yes"}}},
         "flags.lit.initial: Input should be a valid boolean"),
        ({"milestones": {"win": {"reward": 5}}},
         "milestones.win: unknown key 'reward' "
         "(allowed: desc, bind, news, told_to, signal, requires)"),
        ({"npcs": {"gwen": {"stats": {"trust": 5}}}},
         "npcs.gwen.trust: Input should be a valid dictionary"),
        (["world"],
         "schema: must be a mapping of sections (world, player, npcs, flags, milestones)"),
    ],
)  # fmt: skip
def test_other_sections_are_validated(data: Any, message: str) -> None:
    errors = errors_of(data)
    assert any(e.startswith(message) for e in errors), errors


def test_schema_error_message_lists_everything() -> None:
    with pytest.raises(SchemaError) as info:
        load_schema({"world": {"day": {"min": 5, "max": 1}}}, source="camp.yaml")
    assert str(info.value) == "invalid stat schema (camp.yaml):\n  world.day: min 5 is above max 1"


def test_load_schema_file(tmp_path: Path) -> None:
    good = tmp_path / "ok.yaml"
    good.write_text("player:\n  hp: {min: 0, max: 10, initial: 5}\n", encoding="utf-8")
    assert load_schema_file(good).player["hp"].start == 5
    bad = tmp_path / "bad.yaml"
    bad.write_text("player: [\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="not valid YAML"):
        load_schema_file(bad)


@pytest.mark.parametrize(
    ("value", "label"),
    [(0, "very weak"), (19, "very weak"), (20, "hurt"), (55, "minor damage"),
     (89.5, "healthy"), (90, "full health"), (100, "full health")],
)  # fmt: skip
def test_band_labels(schema: StatSchema, value: float, label: str) -> None:
    assert band_label(schema.player["hp"], value) == label


def test_band_ladder_and_unbanded(schema: StatSchema) -> None:
    assert band_ladder(schema.npcs["gwen"].stats["trust"]) == (
        "-100\u2013-30 hostile, -30\u201330 wary, 30\u2013100 ally"
    )
    assert band_label(schema.player["mana"], 10) is None
    assert band_ladder(schema.player["mana"]) == ""


# -- lint ---------------------------------------------------------------------------


def test_example_schema_is_valid_and_lint_clean(example_path: Path) -> None:
    schema = load_schema_file(example_path)
    assert lint_schema(schema) == []
    assert set(schema.player) == {"hp", "mana"}
    assert set(schema.world) == {"day"}
    assert set(schema.npcs["gwen"].stats) == {"health", "trust"}
    assert set(schema.flags) == {"has_key", "alarm_raised"}
    assert set(schema.milestones) == {"rescue_gwen", "reach_capital"}


def test_lint_flags_the_seed_schema(schema: StatSchema) -> None:
    warnings = lint_schema(schema)
    # hp and Gwen's health start at their max: the initial == boundary trap.
    assert any(w.startswith("player.hp: initial 100 equals its max") for w in warnings)
    assert any(w.startswith("npcs.gwen.health: initial 100 equals its max") for w in warnings)
    # The day counter starts at its min, which is fine for a counter.
    assert not any(w.startswith("world.day: initial") for w in warnings)
    # "In-game day" names no sign.
    assert any(w.startswith("world.day: desc names no sign") for w in warnings)
    assert any(w.startswith("player.mana: no desc") for w in warnings)


@pytest.mark.parametrize(
    ("desc", "ok"),
    [
        ("Send -10 when hurt, +10 when healed.", True),
        ("Add 1 each time a pokemon faints.", True),
        ("A negative change when hurt, a positive one when healed.", True),
        ("Drop the HP when hurt and raise it when healed.", False),
        ("Current health.", False),
    ],
)
def test_lint_wants_signed_change_wording(desc: str, ok: bool) -> None:
    schema = load_schema({"player": {"hp": {"min": 0, "max": 100, "initial": 50, "desc": desc}}})
    assert (lint_schema(schema) == []) is ok


def test_lint_flags_absolute_wording_and_uncapped_counters() -> None:
    schema = load_schema(
        {
            "npcs": {"milo": {"stats": {"active_hp": {
                "min": 0, "max": 98, "initial": 60,
                "desc": "Reset this to the newcomer's full HP (+98 at most)."}}}},
            "world": {"turn": {"type": "counter", "desc": "Add 1 every reply (+1)."}},
            "milestones": {"won": {}},
        }
    )  # fmt: skip
    warnings = lint_schema(schema)
    assert any(w.startswith("npcs.milo.active_hp: desc reads as an instruction") for w in warnings)
    assert any(w.startswith("world.turn: a counter without max_delta_per_turn") for w in warnings)
    assert "milestones.won: no desc; the model sees only the id." in warnings
