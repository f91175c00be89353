"""What happened to each change the model sent: applied, clamped or rejected.

Every consumer must read all three lists (a write path once dropped two). A
refused change shown as an ordinary change tells the player a lie and, replayed, teaches
the model the refused value was right. So the report is one JSON-ready object, stored
whole, and these helpers read every list.

* ``applied``: every change that moved a stored value (partial clamps included,
  ``code == "limited"``). Nothing in it is a no-op.
* ``clamped``: every change the limits reduced. A partial clamp (also in ``applied``)
  carries no ``fix``: telling a model its 80 damage became 30 invites it to send the
  other 50 next turn. A clamp that moved nothing (``code == "at_limit"``) carries one.
* ``rejected``: refused outright, each with a reason and a ``fix``. A block (or a
  line of one) the reader could not make sense of is refused here too, as
  ``code == "unreadable"`` on the path ``state block``, its reason naming the line
  and the key, its fix showing the expected shape.
* ``lenient``: what the reader forgave to read the block as meant.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from maid_stdlib.worldstate.bands import fmt_signed, range_text
from maid_stdlib.worldstate.schema import (
    Condition,
    Number,
    StatDef,
    StatSchema,
    Target,
    fmt_number,
)

ChangeKind = Literal["stat", "flag", "milestone", "unknown"]

#: Refusals players do not need to see: restating what already holds is noise to them
#: (the model still gets the fix).
QUIET_CODES = frozenset({"zero_change", "unchanged", "milestone_repeat", "milestone_unset"})


def jsonable(value: object) -> JsonValue:
    """What the model sent, made safe to store (NaN and objects become strings)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return repr(value)


class Change(BaseModel):
    """One entry of the model's block and what became of it."""

    model_config = ConfigDict(extra="forbid")

    seq: int  # position in the block, so every list renders in the order sent
    path: str  # canonical path, or the key as sent when it names nothing
    kind: ChangeKind
    requested: JsonValue = None
    old: bool | int | float | None = None
    new: bool | int | float | None = None
    actual: bool | int | float | None = None  # the numeric delta made, or the flag value set
    code: str
    reason: str = ""
    fix: str | None = None

    @property
    def moved(self) -> bool:
        return self.actual is not None and self.old != self.new


class Report(BaseModel):
    """The outcome of one ``apply_delta``: JSON-serialisable, meant to be stored whole."""

    model_config = ConfigDict(extra="forbid")

    action_index: int
    delta: dict[str, JsonValue] = Field(default_factory=dict)
    applied: list[Change] = Field(default_factory=list)
    clamped: list[Change] = Field(default_factory=list)
    rejected: list[Change] = Field(default_factory=list)
    milestones_reached: list[str] = Field(default_factory=list)
    #: What the reader forgave in the block (single quotes, +N, a missing fence...):
    #: read as meant, and said so here.
    lenient: list[str] = Field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)

    def refusals(self) -> list[Change]:
        """Entries the model must hear about: rejections and clamps that moved nothing."""
        items = self.rejected + [c for c in self.clamped if c.fix]
        return sorted(items, key=lambda c: c.seq)

    def entries(self) -> list[Change]:
        """Every entry once, in block order."""
        seen: dict[int, Change] = {}
        for c in self.applied + self.clamped + self.rejected:
            seen.setdefault(c.seq, c)
        return [seen[k] for k in sorted(seen)]

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes | dict[str, Any]) -> Report:
        if isinstance(data, dict):
            return cls.model_validate(data)
        return cls.model_validate_json(data)


# -- fix strings: built from the definition at the point of refusal, so they quote the
# -- real limits and the real names ------------------------------------------------


def _limits(stat: StatDef) -> str:
    parts = [range_text(stat)]
    if stat.max_delta_per_turn is not None:
        parts.append(f"it moves at most {fmt_number(stat.max_delta_per_turn)} per turn")
    if stat.cooldown:
        parts.append(f"it can change once every {stat.cooldown} actions")
    text = "; ".join(p for p in parts if p)
    return f" ({text})" if text else ""


def fix_at_limit(target: Target, value: Number, upward: bool) -> str:
    assert target.stat is not None
    which = "maximum" if upward else "minimum"
    return (
        f"`{target.path}` did not move. It is already at its {which} of "
        f"{fmt_number(value)}{_limits(target.stat)}."
    )


def fix_cooldown(target: Target, last: int) -> str:
    assert target.stat is not None
    ready = last + target.stat.cooldown
    return (
        f"`{target.path}` changed at action {last} and has a cooldown of "
        f"{target.stat.cooldown}; leave it out until action {ready}."
    )


def fix_counter_negative(target: Target) -> str:
    return (
        f"`{target.path}` is a counter: it only goes up. Send a positive change such as +1, "
        "or leave it out."
    )


def fix_counter_total(target: Target, current: Number, sent: Number) -> str:
    if sent == current:
        guess = f"{fmt_number(sent)} is its current value, not a change. Leave it out"
    else:
        guess = (
            f"{fmt_number(sent)} looks like a new total, not a change. "
            f"Send the change ({fmt_signed(sent - current)}) instead"
        )
    return f"`{target.path}` is a counter at {fmt_number(current)}; {guess}."


def condition_now(condition: Condition, now: str) -> str:
    """``flags.has_key = true (now false)``; ``npc.gwen.health >= 1 (not here)``."""
    return f"{condition.text()} ({now if now == 'not here' else 'now ' + now})"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def fix_requires(target: Target, unmet: list[tuple[Condition, str]]) -> str:
    """E.g. ``milestones.rescue_gwen needs flags.has_key = true (now false)``, built
    from the definition: every unmet condition with the value that fails it."""
    needs = _and([condition_now(c, now) for c, now in unmet])
    if target.kind == "flag":
        assert target.flag is not None
        becomes = str(not target.flag.initial).lower()
        head = f"`{target.path}` can become {becomes} only once {needs}"
    else:
        head = f"`{target.path}` needs {needs}"
    tail = "Leave it out until the story has made that so"
    if any(c.is_boolean for c, _ in unmet):
        tail += "; a flag or goal set in the same block counts only from the next turn"
    return f"{head}. {tail}."


def _condition_label(schema: StatSchema, condition: Condition) -> str:
    parts = condition.path.split(".")
    if parts[0] == "npc" and len(parts) == 3:
        label = f"{schema.npc_name(parts[1])} {parts[2]}".replace("_", " ")
    else:
        label = parts[-1].replace("_", " ")
    if parts[0] == "flags":
        return f"{label} {'on' if condition.value else 'off'}"
    if parts[0] == "milestones":
        return f"{label} {'done' if condition.value else 'not done'}"
    assert not isinstance(condition.value, bool)
    return f"{label} {condition.op} {fmt_number(condition.value)}"


def requires_reason(schema: StatSchema, unmet: list[Condition]) -> str:
    """The players' short form: ``needs has key on, Gwen health >= 1``."""
    return "needs " + ", ".join(_condition_label(schema, c) for c in unmet)


def fix_unknown(schema: StatSchema, key: str) -> str:
    paths = schema.paths()
    close = difflib.get_close_matches(key.strip().lower(), paths, n=3, cutoff=0.8)
    tail = key.strip().lower().rsplit(".", 1)[-1]
    close += [p for p in paths if p.endswith("." + tail) and p not in close]
    if close:
        return f"`{key}` is not in the world state. Did you mean " + _or(close[:3]) + "?"
    sample = ", ".join(f"`{p}`" for p in paths[:12])
    more = ", …" if len(paths) > 12 else ""
    return f"`{key}` is not in the world state. Real names: {sample}{more}."


def _or(items: list[str]) -> str:
    quoted = [f"`{i}`" for i in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


UNREADABLE_PATH = "state block"


def example_block(schema: StatSchema) -> str:
    """A one-line block body with the schema's real paths, e.g.
    ``{"player.hp": -15, "npc.gwen.trust": +5}``."""
    picks: list[Target] = []
    for section in ("player", "npc", "world"):
        found = next((t for t in schema.stat_targets() if t.section == section), None)
        if found is not None and len(picks) < 2:
            picks.append(found)
    parts = []
    for i, target in enumerate(picks):
        stat = target.stat
        assert stat is not None
        size = 1 if stat.is_counter else 15 if i == 0 else 5
        if stat.max_delta_per_turn is not None and size > stat.max_delta_per_turn:
            size = 1
        value = size if stat.is_counter or i else -size
        parts.append(f'"{target.path}": {fmt_signed(value)}')
    if not parts:
        name = next(iter(schema.flags), None)
        if name is not None:
            parts.append(f'"flags.{name}": true')
        else:
            parts.append(f'"milestones.{next(iter(schema.milestones))}": true')
    return "{" + ", ".join(parts) + "}"


def fix_unreadable(schema: StatSchema, where: str, problem: str, text: str) -> str:
    sent = f" (`{text}`)" if text else ""
    return (
        f"Your state block could not be read at {where}{sent}: {problem}. What could not be read "
        'was not applied. Send one object of "path": change pairs, keys in double quotes, '
        f"entries separated by commas, e.g. {example_block(schema)}"
    )


FIXES_PLAIN: dict[str, str] = {
    "not_a_number": "`{path}` takes a signed number such as -10 or +5.",
    "not_a_boolean": "`{path}` takes true or false.",
    "zero_change": "`{path}` did not change; leave unchanged stats out of the block.",
    "unchanged": "`{path}` is already {value}; send a flag only when it flips.",
    "milestone_not_true": "Mark `{path}` with true, and only once it is reached.",
    "milestone_unset": "Milestones stay reached and pending ones need no entry; "
    "leave `{path}` out unless it was just reached (then send true).",
    "milestone_repeat": "`{path}` is already achieved; leave it out.",
    "absent": "`{path}` belongs to someone who is not in this world; leave it out.",
    "duplicate": "Send `{path}` once per block, as one combined change.",
}


def fix_plain(code: str, path: str, value: object = None) -> str:
    text = value if not isinstance(value, bool) else str(value).lower()
    return FIXES_PLAIN[code].format(path=path, value=text)


# -- the players' change line ------------------------------------------------------


def _esc(text: str) -> str:
    # Stat ids, names and the model's values must never act as colour codes.
    return text.replace("|", "||")


@dataclass(frozen=True)
class Reader:
    """Who reads a change line: the actor (``you``) or someone else in the room.

    With a reader, each stat says whose it is: ``Your hp`` to the actor and
    ``Aldric's hp`` to the others; ``toward`` names the stats that are someone's
    feeling about the actor, with the words that say so (``in {reader}``: "Gwen's
    trust in you", "Gwen's trust in Aldric").
    """

    actor: str
    you: bool
    toward: Mapping[str, str] = field(default_factory=dict)


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def change_label(
    change: Change, schema: StatSchema | None = None, reader: Reader | None = None
) -> str:
    """``hp``, ``Gwen trust``, ``alarm raised``: a path as a player reads it; with a
    reader, whose it is (``Your hp``, ``Gwen's trust in you``)."""
    parts = change.path.split(".")
    if change.kind == "unknown":
        return change.path
    if parts[0] == "npc" and len(parts) == 3:
        who = schema.npc_name(parts[1]) if schema else parts[1]
        stat = parts[2].replace("_", " ")
        if reader is None:
            return f"{who} {stat}".replace("_", " ")
        toward = reader.toward.get(change.path, "")
        tail = " " + toward.format(reader="you" if reader.you else reader.actor) if toward else ""
        return f"{_possessive(who)} {stat}{tail}"
    if parts[0] == "player" and reader is not None:
        owner = "Your" if reader.you else _possessive(reader.actor)
        return f"{owner} {parts[-1].replace('_', ' ')}"
    return parts[-1].replace("_", " ")


def _segment(change: Change, schema: StatSchema | None, reader: Reader | None) -> str | None:
    label = _esc(change_label(change, schema, reader))
    if change.code == "at_limit":
        return f"|y{label} no change — at its limit|n"
    if change.fix is not None or change.actual is None:
        if change.code in QUIET_CODES:
            return None
        return f"|r{label} refused — {_esc(change.reason)}|n"
    if not change.moved:
        return None
    if change.kind == "milestone":
        return f"|g✓ {label}|n"
    if change.kind == "flag":
        return f"|g{label} {'on' if change.new else 'off'}|n"
    assert isinstance(change.actual, int | float)
    if change.code == "limited":
        return f"|y{label} {fmt_signed(change.actual)} (limited)|n"
    return f"|g{label} {fmt_signed(change.actual)}|n"


def render_changes(
    report: Report, schema: StatSchema | None = None, reader: Reader | None = None
) -> str:
    """One compact line for everyone in the room, e.g.
    ``hp -10, Gwen trust +20 (limited), day refused — counters only go up, ✓ rescue gwen``.

    Empty when nothing worth showing happened. Pass the schema to show NPC names, and
    a :class:`Reader` to say whose each value is, for that reader:
    ``Your hp -30 (limited); Gwen's trust in you +5``.
    """
    segments = [s for c in report.entries() if (s := _segment(c, schema, reader))]
    return ("; " if reader is not None else ", ").join(segments)
