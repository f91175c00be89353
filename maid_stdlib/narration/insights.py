"""What the turn log says about past turns: ``@state insights`` and ``state last``.

Builders tuning a narrated room need to see what the model proposed and what the
engine made of it: every applied, clamped and refused change with its reason, the
fix strings the next prompt carried, the tokens and the time the call took. All of
it is read back from the stored turns, so the view shows what was really kept.

Players get the short, plain version of their own last turn: what changed and what
was refused and why, with no paths, fix strings or model details.

Both views are wrapped here with hanging indents, at most :data:`WIDTH` columns, so
they read well at 80 columns even before the pager wraps them to the window.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Sequence

from pydantic import JsonValue

from maid_stdlib.narration.turnlog import OK, TurnRecord
from maid_stdlib.world.text import escape_markup
from maid_stdlib.worldstate import Report
from maid_stdlib.worldstate.bands import fmt_signed
from maid_stdlib.worldstate.report import QUIET_CODES, Change, change_label
from maid_stdlib.worldstate.schema import StatSchema, fmt_number

#: Columns of the widest line either view produces.
WIDTH = 78
#: ``@state insights`` shows this many turns unless asked, and never more than MAX_TURNS.
DEFAULT_TURNS = 5
MAX_TURNS = 20
#: Longest action text shown before it is shortened (the builders' heading holds
#: more besides it).
ACTION_CHARS = 44
PLAYER_ACTION_CHARS = 56

#: What a turn's outcome means, for builders (``ok`` needs no note).
OUTCOME_NOTES = {
    "no_model": "no model configured: a sketch, nothing applied",
    "timeout": "the model timed out: fallback narration, nothing applied",
    "llm_error": "the model call failed: fallback narration, nothing applied",
    "filtered": "the content filter refused the narration: nothing applied",
}


def shorten(text: str, limit: int = ACTION_CHARS) -> str:
    """``text`` on one line, cut at a word with an ellipsis past ``limit``."""
    return textwrap.shorten(" ".join(text.split()), limit, placeholder=" …") or "…"


def _wrap(label: str, text: str, indent: int = 2, hang: int = 4) -> list[str]:
    """``label`` then ``text``; continuation lines indented ``hang`` more."""
    head = " " * indent + label
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=head,
        subsequent_indent=" " * (indent + hang),
        break_long_words=True,
        break_on_hyphens=False,
    ) or [head.rstrip()]


def _value(value: JsonValue | bool | int | float | None) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return fmt_number(value)
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _requested(value: JsonValue) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return fmt_signed(value)
    return _value(value)


def _proposed(report: Report) -> str:
    if not report.delta:
        if any(c.code == "unreadable" for c in report.rejected):
            return "(a state block that could not be read: see Refused)"
        return "(no state block)"
    return ", ".join(f"{k} {_requested(v)}" for k, v in report.delta.items())


def _moved(change: Change) -> str:
    if change.kind == "milestone":
        return f"{change.path} reached"
    return f"{change.path} {_value(change.old)} -> {_value(change.new)}"


def _applied(change: Change) -> str:
    text = _moved(change)
    if change.kind == "stat" and isinstance(change.actual, int | float):
        text += f" ({fmt_signed(change.actual)})"
    return text


def _clamped(change: Change) -> str:
    return f"{change.path}: asked {_requested(change.requested)}, {change.reason}"


def _refused(change: Change) -> str:
    return f"{change.path} {_requested(change.requested)}: {change.reason} [{change.code}]"


def _section(title: str, items: Iterable[str]) -> list[str]:
    shown = list(items)
    if not shown:
        return _wrap(f"{title}: ", "none")
    lines = [f"  {title}:"]
    for item in shown:
        lines += _wrap("- ", item, indent=4, hang=2)
    return lines


def _usage(turn: TurnRecord) -> str:
    if not turn.model and not turn.latency and not turn.prompt_tokens:
        return "no model call"
    tokens = turn.prompt_tokens + turn.completion_tokens
    return (
        f"{turn.model or 'unknown model'}; {tokens} tokens ({turn.prompt_tokens} prompt, "
        f"{turn.completion_tokens} completion); {turn.latency:.2f} s"
    )


def turn_insight(turn: TurnRecord) -> list[str]:
    """Every line ``@state insights`` shows for one stored turn."""
    kind = "" if turn.kind == "act" else f", {turn.kind}"
    lines = _wrap(
        "",
        f"Turn {turn.action_index}{kind}: {turn.actor_name or turn.actor} - "
        f'"{shorten(turn.player_text)}"',
        indent=0,
    )
    note = OUTCOME_NOTES.get(turn.outcome, "" if turn.outcome == OK else turn.outcome)
    if note:
        lines += _wrap("Outcome: ", note)
    report = turn.parsed_report()
    if report is None:
        lines += _wrap("State: ", "this room keeps no world state")
    else:
        lines += _wrap("Proposed: ", _proposed(report))
        if report.lenient:
            lines += _wrap("Read leniently: ", ", ".join(report.lenient))
        lines += _section("Applied", (_applied(c) for c in report.applied if c.moved))
        lines += _section("Clamped", (_clamped(c) for c in report.clamped))
        lines += _section("Refused", (_refused(c) for c in report.rejected))
        lines += _section(
            "Fix strings for the next prompt", (str(c.fix) for c in report.refusals())
        )
    lines += _wrap("Model: ", _usage(turn))
    return lines


def render_insights(room_name: str, turns: Sequence[TurnRecord], asked: int) -> str:
    """``@state insights``: the room's last turns, newest first, markup-safe."""
    if not turns:
        return f"{room_name}: no turns have been told here yet."
    head = f"{room_name}: the last {len(turns)} turn{'s' if len(turns) != 1 else ''}"
    if len(turns) < asked:
        head += f" (of {asked} asked)"
    lines = _wrap("", head + ", newest first.", indent=0)
    for turn in turns:
        lines += ["", *turn_insight(turn)]
    return escape_markup("\n".join(lines))


# -- the players' view -------------------------------------------------------------


def _player_change(change: Change, schema: StatSchema) -> str | None:
    label = change_label(change, schema)
    if change.kind == "milestone":
        return f"{label}: reached"
    if change.kind == "flag":
        return f"{label}: {'yes' if change.new else 'no'}"
    if not isinstance(change.actual, int | float):
        return None
    text = f"{label} {fmt_signed(change.actual)}"
    if change.code == "limited":
        text += f" ({change.reason})"
    return text


def _player_refusal(change: Change, schema: StatSchema) -> str | None:
    if change.code in QUIET_CODES:
        return None
    label = change_label(change, schema)
    if change.code == "at_limit":
        return f"{label}: did not change, it is at its limit"
    if change.code == "unknown_path":
        # The model's key is an internal name: say what it was about, in words.
        about = change.path.rsplit(".", 1)[-1].replace("_", " ")
        return f"{about}: this place keeps no such count"
    return f"{label}: {change.reason}"


def render_last(turn: TurnRecord | None, schema: StatSchema) -> str:
    """``state last``: the player's own last turn here, in plain words."""
    if turn is None:
        return "You have not acted here yet."
    text = shorten(turn.player_text, PLAYER_ACTION_CHARS)
    lines = _wrap("", f'Your last turn here: "{text}"', indent=0)
    report = turn.parsed_report()
    if turn.outcome != OK:
        lines += _wrap("", "The story did not answer that one, so nothing changed.")
        return escape_markup("\n".join(lines))
    if report is None:
        lines += _wrap("", "This place keeps no world state, so nothing is counted.")
        return escape_markup("\n".join(lines))
    changed = [s for c in report.applied if c.moved if (s := _player_change(c, schema))]
    refused = [
        s
        for c in sorted(report.rejected + [c for c in report.clamped if c.fix], key=lambda c: c.seq)
        if (s := _player_refusal(c, schema))
    ]
    lines += _section("What changed", changed) if changed else _wrap("", "Nothing changed.")
    if refused:
        lines += _section("What the story could not do", refused)
    return escape_markup("\n".join(lines))
