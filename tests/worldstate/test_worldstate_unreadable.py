"""Reading state blocks: what is forgiven (and said so), what is refused (and why)."""

from __future__ import annotations

import pytest

from maid_stdlib.worldstate import (
    DictStatView,
    StatSchema,
    apply_delta,
    load_schema,
    read_reply,
    render_changes,
    render_refusals,
)
from maid_stdlib.worldstate.delta import MAX_BODY

PROSE = "Gwen steps out of the shadows."


def reply(body: str, close: bool = True) -> str:
    return f"{PROSE}\n```state\n{body}" + ("\n```" if close else "")


# -- leniency: one meaning only, so it is read, and the reading says what it forgave --


@pytest.mark.parametrize(
    ("body", "delta", "note"),
    [
        (
            "{'player.hp': -15, 'npc.gwen.trust': 5}",
            {"player.hp": -15, "npc.gwen.trust": 5},
            "single quotes",
        ),
        (
            "{\"player.hp\": -15, 'npc.gwen.trust': 5}",
            {"player.hp": -15, "npc.gwen.trust": 5},
            "mixed quotes",
        ),
        (
            '{"player.hp": -15, "npc.gwen.trust": 5,}',
            {"player.hp": -15, "npc.gwen.trust": 5},
            "trailing commas",
        ),
        (
            '{"player.hp": -15, "npc.gwen.trust": +5}',
            {"player.hp": -15, "npc.gwen.trust": 5},
            "+N numbers",
        ),
        ("{player.hp: -15}", {"player.hp": -15}, "unquoted keys"),
        ('{"flags.has_key": True}', {"flags.has_key": True}, "Python literals"),
        ('{"player.hp": -15 // ouch\n}', {"player.hp": -15}, "comments"),
        (
            '{"player.hp": -15\n"npc.gwen.trust": 5}',
            {"player.hp": -15, "npc.gwen.trust": 5},
            "missing commas between lines",
        ),
        ("{\u201cplayer.hp\u201d: -15}", {"player.hp": -15}, "curly quotes"),
        ('{"player.hp": -15', {"player.hp": -15}, "missing closing brace"),
        (
            "player.hp: -15\nnpc.gwen.trust = +5",
            {"player.hp": -15, "npc.gwen.trust": 5},
            "no braces (one path: change a line)",
        ),
    ],
)
def test_an_unambiguous_block_is_read_and_the_leniency_named(
    body: str, delta: dict[str, object], note: str
) -> None:
    reading = read_reply(reply(body))
    assert reading.narration == PROSE
    assert reading.delta == delta
    assert note in reading.lenient
    assert reading.unreadable == []
    assert [b.result for b in reading.blocks] == ["lenient"]


def test_a_missing_closing_fence_at_the_end_is_forgiven_and_named() -> None:
    reading = read_reply(reply('{"player.hp": -15}', close=False))
    assert (reading.narration, reading.delta) == (PROSE, {"player.hp": -15})
    assert reading.lenient == ["missing closing fence"]


def test_mixed_quotes_with_plus_and_trailing_comma_name_all_three() -> None:
    reading = read_reply(reply("{\"player.hp\": -15, 'npc.gwen.trust': +5,}"))
    assert reading.delta == {"player.hp": -15, "npc.gwen.trust": 5}
    assert reading.lenient == ["mixed quotes", "+N numbers", "trailing commas"]


def test_a_strict_block_forgives_nothing() -> None:
    reading = read_reply(reply('{"player.hp": -15, "npc.gwen.trust": 5}'))
    assert reading.delta == {"player.hp": -15, "npc.gwen.trust": 5}
    assert reading.lenient == []
    assert [b.result for b in reading.blocks] == ["strict"]


def test_no_block_is_neither_read_nor_refused() -> None:
    reading = read_reply(PROSE)
    assert (reading.narration, reading.delta, reading.blocks) == (PROSE, {}, [])


# -- refusal: more than one meaning (or none), so it is refused with line and key --


@pytest.mark.parametrize(
    ("body", "line", "key", "problem"),
    [
        (
            '{"player.hp": -15 "npc.gwen.trust": 5}',
            1,
            "player.hp",
            "expected a comma between entries",
        ),
        (
            '{\n  "player.hp": -15,\n  "npc.gwen.trust" 5\n}',
            3,
            "npc.gwen.trust",
            "expected a colon",
        ),
        (
            '{"player.hp": -15, "npc.gwen.trust": [1, 2}',
            1,
            "npc.gwen.trust",
            "expected a comma between entries",
        ),
        ("{hp -10}", 1, None, 'expected a quoted key ("path")'),
        ('{"player.hp": }', 1, "player.hp", "expected a value"),
        ('{"player.hp: -15}', 1, None, "quoted string"),
        (
            "{'flags.note': 'Gwen's key', \"player.hp\": 1}",
            1,
            "flags.note",
            "an apostrophe inside 'single quotes' ends the string",
        ),
        (
            "{'player.hp': -15 'npc.gwen.trust': 5}",
            1,
            "player.hp",
            "expected a comma between entries",
        ),
    ],
)
def test_an_ambiguous_block_is_refused_naming_line_and_key(
    body: str, line: int, key: str | None, problem: str
) -> None:
    reading = read_reply(reply(body))
    assert reading.narration == PROSE
    assert reading.delta == {}
    [item] = reading.unreadable
    assert item.line == line
    assert item.key == key
    assert problem in item.problem
    assert item.text == body.splitlines()[line - 1].strip()
    assert [b.result for b in reading.blocks] == ["unreadable"]


def test_a_line_that_is_not_path_change_is_refused_and_the_others_read() -> None:
    reading = read_reply(reply("player.hp: -10\nthe guard is angry now\nnpc.gwen.trust: 5"))
    assert reading.delta == {"player.hp": -10, "npc.gwen.trust": 5}
    [item] = reading.unreadable
    assert (item.line, item.key, item.text) == (2, "player.hp", "the guard is angry now")
    assert item.where() == "line 2, at `player.hp`"


def test_yaml_anchors_and_aliases_are_refused_not_expanded() -> None:
    bomb = "{'a': &x [1, 2], 'b': [*x, *x]}"
    reading = read_reply(reply(bomb))
    assert reading.delta == {}
    assert len(reading.unreadable) == 1


def test_a_key_with_no_value_is_not_read_as_null() -> None:
    reading = read_reply(reply("{'player.hp' -10, \"x\": 1}"))
    assert reading.delta == {}
    assert len(reading.unreadable) == 1


def test_an_oversized_block_is_refused_unread() -> None:
    body = '{"player.hp": -1, "flags.note": "' + "x" * MAX_BODY + '"}'
    [item] = read_reply(reply(body)).unreadable
    assert item.line == 1
    assert str(MAX_BODY) in item.problem


def test_the_last_readable_block_wins_and_an_unreadable_one_is_still_reported() -> None:
    text = reply('{"player.hp": -5}') + "\n" + reply('{"player.hp": -15 "x": 1}')
    reading = read_reply(text)
    assert reading.delta == {"player.hp": -5}
    assert [b.result for b in reading.blocks] == ["strict", "unreadable"]


# -- the report: a refusal like any other, with a fix showing the expected shape ----


@pytest.fixture
def schema() -> StatSchema:
    return load_schema(
        {
            "player": {"hp": {"min": 0, "max": 100, "initial": 90}},
            "npcs": {"gwen": {"name": "Gwen", "stats": {"trust": {"min": -100, "max": 100}}}},
        }
    )


def test_the_report_refuses_the_unreadable_part_with_a_fix(schema: StatSchema) -> None:
    reading = read_reply(reply('{"player.hp": -15 "npc.gwen.trust": 5}'))
    view = DictStatView({})
    report = apply_delta(
        schema, view, reading.delta, 1, unreadable=reading.unreadable, lenient=reading.lenient
    )
    assert report.applied == []
    [change] = report.rejected
    assert (change.path, change.kind, change.code) == ("state block", "unknown", "unreadable")
    assert change.reason == "line 1, at `player.hp`: expected a comma between entries"
    assert change.requested == '{"player.hp": -15 "npc.gwen.trust": 5}'
    assert change.fix is not None
    assert "could not be read at line 1, at `player.hp`" in change.fix
    # The expected shape, with the schema's real paths.
    assert change.fix.endswith('e.g. {"player.hp": -15, "npc.gwen.trust": +5}')
    assert render_refusals(report).endswith(f"- {change.fix}]")
    assert render_changes(report, schema) == (
        "|rstate block refused — line 1, at `player.hp`: expected a comma between entries|n"
    )


def test_the_readable_lines_apply_and_the_report_names_the_leniency(schema: StatSchema) -> None:
    reading = read_reply(reply("player.hp: -10\nthe guard is angry"))
    view = DictStatView({})
    report = apply_delta(
        schema, view, reading.delta, 1, unreadable=reading.unreadable, lenient=reading.lenient
    )
    assert [(c.path, c.actual) for c in report.applied] == [("player.hp", -10)]
    assert [(c.seq, c.code) for c in report.rejected] == [(1, "unreadable")]
    assert report.lenient == ["no braces (one path: change a line)"]
    assert [c.seq for c in report.entries()] == [0, 1]


def test_an_empty_schema_reports_nothing(schema: StatSchema) -> None:
    reading = read_reply(reply("{hp -10}"))
    report = apply_delta(StatSchema(), DictStatView({}), {}, 1, unreadable=reading.unreadable)
    assert report.rejected == []
