"""Prompt text for a narrated turn: what the model is told about the world state.

Each builder returns a string, empty when there is nothing to say (an empty schema
injects nothing at all). The lead assembles them; :func:`prompt_sections` names them
the way a context snapshot should store them. Suggested order: ``world_state_rule``
with the system text; ``world_state`` and ``world_state_guide`` near the scene; the
replayed history; ``world_state_refusals`` directly above ``world_state_reminder``
at the end.

Lessons of real play built in: milestone ids and NPC ids are named to the model (it
cannot emit a path it never saw), refusals of the previous turn only are fed forward
with their fix, and the history replays what was applied, never what was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from pydantic import JsonValue

from maid_stdlib.worldstate.apply import current_value, unmet_requires
from maid_stdlib.worldstate.bands import band_ladder, fmt_signed, range_text, value_text
from maid_stdlib.worldstate.report import Report, condition_now, example_block
from maid_stdlib.worldstate.schema import Condition, StatDef, StatSchema, Target, fmt_number
from maid_stdlib.worldstate.view import StatView

REFUSALS_HEADER = "[Part of your last state block was not applied. Correct it in this turn's block:"


def _numeric(schema: StatSchema, view: StatView, target: Target) -> str:
    assert target.stat is not None
    value = current_value(schema, view, target.path)
    assert isinstance(value, int | float)
    return f"{target.name} {value_text(target.stat, value)}"


def render_needs(
    schema: StatSchema, view: StatView, conditions: tuple[Condition, ...], lead: str = "needs"
) -> str:
    """`` [needs flags.has_key = true (now false), npc.gwen.health >= 1]``: every
    precondition, the unmet ones with the value that fails them; ``""`` if none."""
    if not conditions:
        return ""
    unmet = {u.condition: u.now for u in unmet_requires(schema, view, conditions)}
    parts = [condition_now(c, unmet[c]) if c in unmet else c.text() for c in conditions]
    return f" [{lead} " + ", ".join(parts) + "]"


def _flag_lead(schema: StatSchema, name: str) -> str:
    return f"to become {str(not schema.flags[name].initial).lower()}, needs"


def render_world_state(schema: StatSchema, view: StatView, present_npcs: Iterable[str] = ()) -> str:
    """The live-values section, e.g.::

        World state — day 3.
        You: hp 55/100 (minor damage), mana 10/50.
        Gwen (npc.gwen): health 80/100 (healthy), trust 20 (wary).
        Flags: has_key false, alarm_raised false.
        Goals (mark with milestones.<id>): reach_capital — Arrive at the capital city.
        Achieved: Rescue Gwen from the bandits.

    Only NPCs in ``present_npcs`` (schema ids of those in the room) get a line. A
    pending goal with preconditions, and a flag with preconditions still at its
    initial value, name them in brackets, the unmet ones with their current value
    (``[needs flags.has_key = true (now false), npc.gwen.health >= 1]``).
    """
    if schema.is_empty:
        return ""
    world = [_numeric(schema, view, t) for t in schema.stat_targets() if t.section == "world"]
    lines = ["World state — " + ", ".join(world) + "." if world else "World state."]
    player = [_numeric(schema, view, t) for t in schema.stat_targets() if t.section == "player"]
    if player:
        lines.append("You: " + ", ".join(player) + ".")
    present = set(present_npcs)
    for npc_id, npc in schema.npcs.items():
        if npc_id not in present or not npc.stats:
            continue
        stats = [_numeric(schema, view, t) for t in schema.stat_targets() if t.npc == npc_id]
        lines.append(f"{schema.npc_name(npc_id)} (npc.{npc_id}): " + ", ".join(stats) + ".")
    if schema.flags:
        flags = []
        for name, flag in schema.flags.items():
            value = current_value(schema, view, f"flags.{name}")
            text = f"{name} {str(value).lower()}"
            if value == flag.initial:
                text += render_needs(schema, view, flag.conditions, _flag_lead(schema, name))
            flags.append(text)
        lines.append("Flags: " + ", ".join(flags) + ".")
    pending, achieved = [], []
    for name, ms in schema.milestones.items():
        if view.get(f"milestones.{name}") is None:
            text = f"{name} — {ms.desc}" if ms.desc else name
            pending.append(text + render_needs(schema, view, ms.conditions))
        else:
            achieved.append(ms.desc or name)
    if pending:
        lines.append("Goals (mark with milestones.<id>): " + "; ".join(pending) + ".")
    if achieved:
        lines.append("Achieved: " + "; ".join(achieved) + ".")
    return "\n".join(lines)


def _stat_rules(stat: StatDef) -> str:
    parts = []
    if stat.is_counter:
        parts.append("counter, only goes up")
    rng = range_text(stat).removeprefix("it runs ")
    if rng:
        parts.append(rng)
    if stat.max_delta_per_turn is not None:
        parts.append(f"at most {fmt_number(stat.max_delta_per_turn)} per turn")
    if stat.cooldown:
        parts.append(f"changes at most once every {stat.cooldown} actions")
    return "; ".join(parts)


def render_stat_guide(schema: StatSchema, present_npcs: Iterable[str] | None = None) -> str:
    """The fixed legend: every path with its rules, description and full band ladder.

    ``present_npcs=None`` lists every NPC; otherwise only those present. Milestones are
    listed too (a path missing from the prompt is a path the model never emits).
    """
    if schema.is_empty:
        return ""
    present = None if present_npcs is None else set(present_npcs)
    lines = ["Stat guide (paths for the state block; every number you send is a change):"]
    for target in schema.targets():
        if target.npc is not None and present is not None and target.npc not in present:
            continue
        if target.stat is not None:
            rules, ladder = _stat_rules(target.stat), band_ladder(target.stat)
            text = f"- {target.path}" + (f" ({rules})" if rules else "")
            if target.stat.desc:
                text += f": {target.stat.desc}"
            if ladder:
                text += f" Scale: {ladder}."
        elif target.flag is not None:
            text = f"- {target.path} (true/false"
            if target.flag.conditions:
                text += f"; {_flag_lead(schema, target.name)} " + " and ".join(
                    c.text() for c in target.flag.conditions
                )
            text += ")"
            text += f": {target.flag.desc}" if target.flag.desc else ""
        else:
            assert target.milestone is not None
            text = f"- {target.path} (send true once, when reached"
            if target.milestone.conditions:
                text += "; only once " + " and ".join(c.text() for c in target.milestone.conditions)
            text += ")"
            text += f": {target.milestone.desc}" if target.milestone.desc else ""
        lines.append(text)
    return "\n".join(lines)


def render_emit_rule(schema: StatSchema) -> str:
    """The emit rule, given once with the system text. Its example uses real paths."""
    if schema.is_empty:
        return ""
    flag = next(iter(schema.flags), None)
    flag_line = f' (e.g. "flags.{flag}": true)' if flag else ""
    return (
        "World state changes: end your reply with a fenced state block only when "
        "something in the world state actually changed this turn. It holds CHANGES ONLY, "
        "as deltas (not new totals): a signed number for each stat that moved, e.g.\n"
        f"```state\n{example_block(schema)}\n```\n"
        "Include only what changed: never restate unchanged stats, never send a full or "
        f"absolute value. Flags flip with true or false{flag_line}. Mark a goal with "
        '"milestones.<id>": true when it is reached. If nothing changed, leave the block '
        "out entirely (no empty {})." + _REQUIRES_RULE * _has_requires(schema)
    )


_REQUIRES_RULE = (
    "\nA goal or flag listed with [needs …] is refused until everything it needs holds: "
    "stats changed in the same block count, flags and goals changed in the same block "
    "count only from the next turn."
)


def _has_requires(schema: StatSchema) -> bool:
    return any(f.conditions for f in schema.flags.values()) or any(
        m.conditions for m in schema.milestones.values()
    )


def render_emit_reminder(schema: StatSchema) -> str:
    """The short reminder closing the prompt, right under the refusals."""
    if schema.is_empty:
        return ""
    return (
        "Reminder: if anything in the world state changed, end with a ```state block of "
        "deltas only (changes, not totals); if nothing changed, no block."
    )


def render_refusals(previous: Report | None) -> str:
    """The previous AI turn's refusals with their fixes, or ``""``.

    Pass the report of the last AI turn only: older refusals have had their chance.
    Partial clamps never appear (see :mod:`.report`).
    """
    items = previous.refusals() if previous is not None else []
    if not items:
        return ""
    return "\n".join([REFUSALS_HEADER, *(f"- {c.fix}" for c in items)]) + "]"


def applied_delta(report: Report) -> dict[str, JsonValue]:
    """The block as it was applied: actual deltas, numeric no-ops dropped."""
    out: dict[str, JsonValue] = {}
    for change in report.applied:
        if change.old == change.new or change.actual is None:
            continue  # a zero replayed is a zero the model learns to copy
        out[change.path] = change.actual
    return out


def replay_block(report: Report | None) -> str:
    """A ``state`` block rebuilt from what was applied, for the replayed history."""
    if report is None:
        return ""
    delta = applied_delta(report)
    if not delta:
        return ""
    body = ", ".join(
        f"{json.dumps(k)}: "
        + (
            json.dumps(v)
            if isinstance(v, bool) or not isinstance(v, int | float)
            else fmt_signed(v)
        )
        for k, v in delta.items()
    )
    return "```state\n{" + body + "}\n```"


def replay_turn(narration: str, report: Report | None) -> str:
    """A past AI turn as the history shows it: narration plus its applied block."""
    block = replay_block(report)
    return f"{narration.rstrip()}\n{block}" if block else narration


def prompt_sections(
    schema: StatSchema,
    view: StatView,
    present_npcs: Iterable[str] = (),
    previous: Report | None = None,
) -> dict[str, str]:
    """Every world-state section of one turn's prompt, by name; empty ones left out."""
    present = list(present_npcs)
    schema = view.live_schema(schema)
    sections = {
        "world_state_rule": render_emit_rule(schema),
        "world_state": render_world_state(schema, view, present),
        "world_state_guide": render_stat_guide(schema, present),
        "world_state_refusals": render_refusals(previous),
        "world_state_reminder": render_emit_reminder(schema),
    }
    return {name: text for name, text in sections.items() if text}
