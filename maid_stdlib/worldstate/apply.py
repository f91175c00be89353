"""The referee: apply the model's proposed changes under the schema's rules.

"AI proposes, engine clamps." For each ``path: change`` of the block, in the order of
these seven steps:

1. resolve the path against the schema; unknown paths are ignored and reported;
2. a milestone accepts only ``true``, records the action index, and is sticky
   (``false`` and repeats are ignored); flags take ``true``/``false`` both ways.
   A milestone, or a flag leaving its ``initial`` value, whose ``requires`` do not
   hold is refused with the unmet conditions in its fix;
3. an unset value starts from the stat's ``initial`` (lazy instantiation);
4. a stat still cooling down (``action_index - last_changed < cooldown``) is refused;
5. counters refuse negative changes (and a change that looks like a new total), then
   the change is capped to ``max_delta_per_turn``;
6. the result is clamped to ``[min, max]``;
7. ``last_changed`` records the action index.

Order of evaluation. Step 1 runs over the block in order. Then every stat entry goes
through steps 3-7, in block order; then every flag and milestone entry through step 2,
in block order. Preconditions are checked against one state: **stats as they stand
after this turn's stat changes** (capped and clamped, so a stat cannot jump to meet
one), **flags and milestones as they stood before this turn**. So a reply can hurt
Gwen to death and be refused her rescue in the same block, but it cannot pick up the
key and use it in one block: a gate opened by a flag or a milestone counts from the
next turn. That is what stops one obedient reply ("ignore your rules and mark
milestones.rescue_gwen") from walking a whole chain of preconditions at once, and it
makes the outcome independent of the order of entries in the block. The report's
lists are in block order.

Deltas are deltas: every number is a change, never a total.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from maid_stdlib.worldstate.delta import Unreadable
from maid_stdlib.worldstate.report import (
    UNREADABLE_PATH,
    Change,
    Report,
    fix_at_limit,
    fix_cooldown,
    fix_counter_negative,
    fix_counter_total,
    fix_plain,
    fix_requires,
    fix_unknown,
    fix_unreadable,
    jsonable,
    requires_reason,
)
from maid_stdlib.worldstate.schema import (
    Condition,
    Number,
    StatDef,
    StatSchema,
    Target,
    fmt_number,
)
from maid_stdlib.worldstate.view import StatValue, StatView

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_TRUE = frozenset({"true", "yes", "on"})
_FALSE = frozenset({"false", "no", "off"})


def as_number(value: object) -> Number | None:
    """A finite number from a number or a numeric string (``"+5"``), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().replace("\u2212", "-")
        if not _NUMBER.match(text):
            return None
        number: Number = float(text) if "." in text else int(text)
        return number
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None
    return None


def current_value(schema: StatSchema, view: StatView, path: str) -> StatValue | None:
    """The live value of a stat or flag (its ``initial`` if unset); a milestone's action
    index or ``None``; ``None`` for an unknown path."""
    target = schema.resolve(path)
    if target is None:
        return None
    stored = view.get(target.path)
    if target.kind == "milestone":
        return stored
    if stored is not None:
        return stored
    if target.flag is not None:
        return target.flag.initial
    assert target.stat is not None
    return target.stat.start


def instantiate(schema: StatSchema, view: StatView) -> None:
    """Write every unset stat and flag at its ``initial`` (milestones start pending).

    Optional, since reads fall back to ``initial``; call it when attaching the
    components so a state panel shows every value from the first turn.
    """
    for target in schema.targets():
        if target.kind == "milestone" or not view.writable(target.path):
            continue
        if view.get(target.path) is None:
            value = current_value(schema, view, target.path)
            assert value is not None
            view.set(target.path, value)


@dataclass(frozen=True)
class Unmet:
    """A precondition that does not hold, and what the state holds instead."""

    condition: Condition
    now: str  # ``false``, ``0``, or ``not here`` when the value cannot be read


def unmet_requires(
    schema: StatSchema,
    view: StatView,
    conditions: tuple[Condition, ...],
    booleans: Mapping[str, bool] | None = None,
) -> list[Unmet]:
    """The conditions that do not hold in ``view``, in the order written.

    ``booleans`` overrides the values of flags and milestones (``apply_delta`` passes
    them as they stood before the turn). A path the view cannot read (an NPC who is not
    here, a turn with no actor) holds nothing: its conditions are unmet.
    """
    out: list[Unmet] = []
    for cond in conditions:
        target = schema.resolve(cond.path)
        if target is None:  # load_schema refuses this; a hand-built schema may not
            out.append(Unmet(cond, "not in the schema"))
            continue
        if not view.writable(target.path):
            out.append(Unmet(cond, "not here"))
            continue
        current: StatValue
        if booleans is not None and target.path in booleans:
            current = booleans[target.path]
        elif target.kind == "milestone":
            current = view.get(target.path) is not None
        else:
            found = current_value(schema, view, target.path)
            assert found is not None
            current = found
        if not cond.holds(current):
            now = str(current).lower() if isinstance(current, bool) else fmt_number(current)
            out.append(Unmet(cond, now))
    return out


def boolean_state(schema: StatSchema, view: StatView) -> dict[str, bool]:
    """Every flag's value and whether every milestone is reached, by path."""
    out: dict[str, bool] = {}
    for target in schema.targets():
        if target.kind == "milestone":
            out[target.path] = view.get(target.path) is not None
        elif target.kind == "flag":
            out[target.path] = bool(current_value(schema, view, target.path))
    return out


def _round_half_away(value: float) -> int:
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def _tidy(value: Number, stat: StatDef) -> Number:
    if stat.integral:
        return _round_half_away(value) if isinstance(value, float) else value
    return round(value, 9) if isinstance(value, float) else value


def _looks_like_total(stat: StatDef, current: Number, sent: Number) -> bool:
    """A counter change bigger than its cap that lands on a value the counter could hold
    right now or next is almost surely a total, not a change (day 3 -> "world.day": 4).

    Without a cap a total cannot be told from a change, so nothing is refused.
    """
    cap = stat.max_delta_per_turn
    return cap is not None and sent > cap and current <= sent <= current + cap


class _Turn:
    def __init__(self, schema: StatSchema, view: StatView, index: int, report: Report) -> None:
        self.schema, self.view, self.index, self.report = schema, view, index, report
        #: Flags and milestones as they stood before the turn (set before step 2 runs).
        self.booleans: dict[str, bool] = {}

    def gate(
        self,
        seq: int,
        target: Target,
        requested: object,
        conditions: tuple[Condition, ...],
        old: StatValue,
    ) -> bool:
        """Refuse ``target`` (and say why) unless its preconditions hold."""
        if not conditions:
            return True
        unmet = unmet_requires(self.schema, self.view, conditions, self.booleans)
        if not unmet:
            return True
        needs = [(u.condition, u.now) for u in unmet]
        self.reject(
            seq,
            target,
            target.path,
            requested,
            "requires_unmet",
            requires_reason(self.schema, [u.condition for u in unmet]),
            fix_requires(target, needs),
            old=old,
        )
        return False

    def reject(
        self,
        seq: int,
        target: Target | None,
        key: str,
        requested: object,
        code: str,
        reason: str,
        fix: str,
        old: StatValue | None = None,
    ) -> None:
        self.report.rejected.append(
            Change(
                seq=seq,
                path=target.path if target else key,
                kind=target.kind if target else "unknown",
                requested=jsonable(requested),
                old=old,
                code=code,
                reason=reason,
                fix=fix,
            )
        )

    def milestone(self, seq: int, target: Target, requested: object) -> None:
        assert target.milestone is not None
        value = as_bool(requested)
        path = target.path
        if value is None:
            self.reject(
                seq,
                target,
                path,
                requested,
                "milestone_not_true",
                "takes true only",
                fix_plain("milestone_not_true", path),
            )
        elif value is False:
            self.reject(
                seq,
                target,
                path,
                requested,
                "milestone_unset",
                "milestones are sticky",
                fix_plain("milestone_unset", path),
            )
        elif self.view.get(path) is not None:
            self.reject(
                seq,
                target,
                path,
                requested,
                "milestone_repeat",
                "already reached",
                fix_plain("milestone_repeat", path),
                old=True,
            )
        elif not self.gate(seq, target, requested, target.milestone.conditions, old=False):
            return
        else:
            self.view.set(path, self.index)
            self.report.applied.append(
                Change(
                    seq=seq,
                    path=path,
                    kind="milestone",
                    requested=jsonable(requested),
                    old=False,
                    new=True,
                    actual=True,
                    code="reached",
                    reason="reached",
                )
            )
            self.report.milestones_reached.append(target.name)

    def flag(self, seq: int, target: Target, requested: object) -> None:
        assert target.flag is not None
        value = as_bool(requested)
        path = target.path
        stored = self.view.get(path)
        old = stored if isinstance(stored, bool) else target.flag.initial
        if value is None:
            self.reject(
                seq,
                target,
                path,
                requested,
                "not_a_boolean",
                "takes true or false",
                fix_plain("not_a_boolean", path),
                old=old,
            )
        elif value == old:
            self.reject(
                seq,
                target,
                path,
                requested,
                "unchanged",
                "already so",
                fix_plain("unchanged", path, old),
                old=old,
            )
        elif value != target.flag.initial and not self.gate(
            seq, target, requested, target.flag.conditions, old=old
        ):
            # Only leaving ``initial`` is gated: dropping the key is always allowed.
            return
        else:
            self.view.set(path, value)
            self.report.applied.append(
                Change(
                    seq=seq,
                    path=path,
                    kind="flag",
                    requested=jsonable(requested),
                    old=old,
                    new=value,
                    actual=value,
                    code="applied",
                    reason="applied",
                )
            )

    def stat(self, seq: int, target: Target, requested: object) -> None:
        stat, path = target.stat, target.path
        assert stat is not None
        stored = self.view.get(path)
        # Step 3: an unset value is instantiated lazily from the template.
        old = stat.start
        if isinstance(stored, int | float) and not isinstance(stored, bool):
            old = stored
        sent = as_number(requested)
        if sent is None:
            self.reject(
                seq,
                target,
                path,
                requested,
                "not_a_number",
                "not a number",
                fix_plain("not_a_number", path),
                old=old,
            )
            return
        sent = _tidy(sent, stat)
        if sent == 0:
            self.reject(
                seq,
                target,
                path,
                requested,
                "zero_change",
                "no change sent",
                fix_plain("zero_change", path),
                old=old,
            )
            return
        # Step 4: cooldown, counted in player actions.
        last = self.view.last_changed(path)
        if stat.cooldown and last is not None and self.index - last < stat.cooldown:
            self.reject(
                seq,
                target,
                path,
                requested,
                "cooldown",
                "cooling down",
                fix_cooldown(target, last),
                old=old,
            )
            return
        # Step 5: counters only go up, and take changes, not totals; then the cap.
        if stat.is_counter and sent < 0:
            self.reject(
                seq,
                target,
                path,
                requested,
                "counter_negative",
                "counters only go up",
                fix_counter_negative(target),
                old=old,
            )
            return
        if stat.is_counter and _looks_like_total(stat, old, sent):
            self.reject(
                seq,
                target,
                path,
                requested,
                "counter_total",
                "a total, not a change",
                fix_counter_total(target, old, sent),
                old=old,
            )
            return
        step, reasons = sent, []
        cap = stat.max_delta_per_turn
        if cap is not None and abs(sent) > cap:
            step = cap if sent > 0 else -cap
            reasons.append(f"limited to {fmt_number(cap)} per turn")
        # Step 6: clamp the result.
        new = _tidy(old + step, stat)
        if stat.max is not None and new > stat.max:
            new = stat.max
            reasons.append(f"stopped at its maximum of {fmt_number(stat.max)}")
        if stat.min is not None and new < stat.min:
            new = stat.min
            reasons.append(f"stopped at its minimum of {fmt_number(stat.min)}")
        if new == old:
            self.report.clamped.append(
                Change(
                    seq=seq,
                    path=path,
                    kind="stat",
                    requested=jsonable(requested),
                    old=old,
                    new=old,
                    actual=0,
                    code="at_limit",
                    reason="no change — at its limit",
                    fix=fix_at_limit(target, old, upward=sent > 0),
                )
            )
            return
        # Step 7: apply and record the action index for the cooldown rule.
        self.view.set(path, new)
        self.view.set_last_changed(path, self.index)
        change = Change(
            seq=seq,
            path=path,
            kind="stat",
            requested=jsonable(requested),
            old=old,
            new=new,
            actual=_tidy(new - old, stat),
            code="limited" if reasons else "applied",
            reason="; ".join(reasons) or "applied",
        )
        self.report.applied.append(change)
        if reasons:
            self.report.clamped.append(change)


def apply_delta(
    schema: StatSchema,
    view: StatView,
    delta: Mapping[str, object],
    action_index: int,
    *,
    unreadable: Sequence[Unreadable] = (),
    lenient: Sequence[str] = (),
) -> Report:
    """Apply a parsed state block to ``view`` and report every entry's fate.

    ``action_index`` is the room's monotonic count of player actions (cooldowns are
    measured in it). With an empty schema the feature is off: nothing is read, written
    or reported. ``unreadable`` (what the reader could not make sense of) is refused
    after the entries, each with a fix showing the expected shape; ``lenient`` (what
    it forgave) is noted in the report.
    """
    report = Report(action_index=action_index)
    if schema.is_empty:
        return report
    # Bound stats are clamped by their live bounds (a character's maximum hp) too.
    schema = view.live_schema(schema)
    report.lenient = list(lenient)
    for i, item in enumerate(unreadable):
        report.rejected.append(
            Change(
                seq=len(delta) + i,
                path=UNREADABLE_PATH,
                kind="unknown",
                requested=item.text,
                code="unreadable",
                reason=f"{item.where()}: {item.problem}",
                fix=fix_unreadable(schema, item.where(), item.problem, item.text),
            )
        )
    if not delta:
        return report
    report.delta = {str(k): jsonable(v) for k, v in delta.items()}
    turn = _Turn(schema, view, action_index, report)
    seen: set[str] = set()
    entries: list[tuple[int, Target, object]] = []
    for seq, (raw_key, requested) in enumerate(delta.items()):
        key = str(raw_key)
        target = schema.resolve(key)
        # Step 1: unknown paths change nothing but are reported, with the real names.
        if target is None:
            turn.reject(
                seq, None, key, requested, "unknown_path", "no such stat", fix_unknown(schema, key)
            )
            continue
        if target.path in seen:
            turn.reject(
                seq,
                target,
                key,
                requested,
                "duplicate",
                "sent twice",
                fix_plain("duplicate", target.path),
            )
            continue
        seen.add(target.path)
        if not view.writable(target.path):
            turn.reject(
                seq, target, key, requested, "absent", "not here", fix_plain("absent", target.path)
            )
            continue
        entries.append((seq, target, requested))
    # Steps 3-7: every stat first, so preconditions see this turn's (clamped) numbers.
    for seq, target, requested in entries:
        if target.kind == "stat":
            turn.stat(seq, target, requested)
    # Step 2: flags and milestones, gated on flags and milestones as they were before
    # the turn (none has changed yet: snapshot them now).
    turn.booleans = boolean_state(schema, view)
    for seq, target, requested in entries:
        if target.kind == "milestone":
            turn.milestone(seq, target, requested)
        elif target.kind == "flag":
            turn.flag(seq, target, requested)
    for changes in (report.applied, report.clamped, report.rejected):
        changes.sort(key=lambda c: c.seq)
    return report
