"""The world-state sheet (``state``, ``@state``) and builders' edits (``@state set``).

The sheet reads like a World State panel: world, you, the NPCs here, with
a bar for every stat that has both a min and a max, then the goals checklist.
Builders see paths instead of labels, every NPC of the schema and the room's
bookkeeping, and may set values: an edit is validated against the schema and
clamped to the stat's limits, never applied blindly.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any
from uuid import UUID

from maid_stdlib.narration.components import NarratedRoom
from maid_stdlib.narration.rooms import RoomSetup, present_npcs
from maid_stdlib.world.look import name_of
from maid_stdlib.worldstate import StatDef, StatView, current_value
from maid_stdlib.worldstate.apply import as_bool, as_number
from maid_stdlib.worldstate.bands import band_label, is_gauge
from maid_stdlib.worldstate.report import fix_unknown
from maid_stdlib.worldstate.schema import Number, fmt_number

if TYPE_CHECKING:
    from maid_stdlib.narration.service import NarrationService

BAR_WIDTH = 10


def bar(stat: StatDef, value: Number, width: int = BAR_WIDTH) -> str:
    """``[#####-----]`` for a stat with both limits, else ``""``."""
    if stat.min is None or stat.max is None or stat.max <= stat.min:
        return ""
    share = (value - stat.min) / (stat.max - stat.min)
    filled = min(width, max(0, round(share * width)))
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _stat_line(label: str, stat: StatDef, value: Number) -> str:
    shown = fmt_number(value)
    if is_gauge(stat) and stat.max is not None:
        shown += f"/{fmt_number(stat.max)}"
    parts = [f"  {label:<14} {shown:<8}"]
    graph = bar(stat, value)
    if graph:
        parts.append(graph)
    if stat.is_counter:
        parts.append("(counter)")
    words = band_label(stat, value)
    if words:
        parts.append(words)
    return " ".join(parts).rstrip()


def _view(
    svc: NarrationService, setup: RoomSetup, actor: UUID | None, every_npc: bool
) -> tuple[StatView, dict[str, UUID]]:
    room_id = svc.ws.room_id(setup.key)
    assert room_id is not None
    npcs = dict(setup.npcs) if every_npc else present_npcs(svc.engine, setup)
    return setup.view(svc.engine.world, room_id, actor, npcs), npcs


def render_sheet(
    svc: NarrationService, setup: RoomSetup, actor: UUID | None, *, builder: bool = False
) -> str:
    """The room's world state as seen by ``actor`` (their own ``player.*`` values)."""
    schema = setup.schema
    room = svc.ws.room(setup.key)
    title = f"|c{room.name if room else setup.key}|n — world state"
    if schema.is_empty:
        return f"{title}\nThis place keeps no world state."
    view, npcs = _view(svc, setup, actor, every_npc=builder)
    schema = view.live_schema(schema)
    present = present_npcs(svc.engine, setup)
    lines = [title]

    def stats(section: str, npc: str | None = None) -> list[str]:
        out = []
        for target in schema.stat_targets():
            if target.section != section or target.npc != npc:
                continue
            value = current_value(schema, view, target.path)
            assert target.stat is not None
            assert isinstance(value, int | float)
            out.append(
                _stat_line(
                    target.path if builder else target.name.replace("_", " "), target.stat, value
                )
            )
        return out

    world = stats("world")
    if world:
        lines += ["World", *world]
    you = stats("player")
    if you and actor is not None:
        lines += [f"You ({name_of(svc.ws, actor)})" if builder else "You", *you]
    for npc_id in schema.npcs:
        if npc_id not in npcs or not schema.npcs[npc_id].stats:
            continue
        where = "" if npc_id in present else " — not here"
        head = schema.npc_name(npc_id) + (f" (npc.{npc_id}){where}" if builder else "")
        lines += [head, *stats("npc", npc_id)]
    if schema.flags:
        flags = []
        for name in schema.flags:
            on = current_value(schema, view, f"flags.{name}")
            label = f"flags.{name}" if builder else name.replace("_", " ")
            flags.append(f"{label} {'yes' if on else 'no'}")
        lines.append("Flags: " + ", ".join(flags))
    pending = [(n, m) for n, m in schema.milestones.items() if view.get(f"milestones.{n}") is None]
    reached = [(n, m) for n, m in schema.milestones.items() if (n, m) not in pending]
    if pending:
        lines.append("Goals")
        lines += [
            f"  [ ] {m.desc or n}" + (f" (milestones.{n})" if builder else "") for n, m in pending
        ]
    if reached:
        lines.append("Achieved")
        lines += [
            f"  |g[x]|n {m.desc or n}" + (f" (milestones.{n})" if builder else "")
            for n, m in reached
        ]
    if builder:
        lines.append(_bookkeeping(svc, setup))
    return "\n".join(lines)


def _stat_data(name: str, stat: StatDef, value: Number) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "label": name.replace("_", " "), "value": value}
    if stat.min is not None:
        out["min"] = stat.min
    if stat.max is not None:
        out["max"] = stat.max
    band = band_label(stat, value)
    if band:
        out["band"] = band
    if stat.is_counter:
        out["counter"] = True
    return out


def state_data(svc: NarrationService, setup: RoomSetup, actor: UUID) -> dict[str, Any]:
    """What ``state`` shows ``actor``, as data (GMCP ``World.State``): the room,
    the world's, the actor's and the present NPCs' stats with their limits and
    bands, the flags and the goals."""
    room = svc.ws.room(setup.key)
    out: dict[str, Any] = {"room": setup.key, "name": room.name if room else setup.key}
    if setup.schema.is_empty:
        return out
    view, npcs = _view(svc, setup, actor, every_npc=False)
    schema = view.live_schema(setup.schema)

    def stats(section: str, npc: str | None = None) -> list[dict[str, Any]]:
        rows = []
        for target in schema.stat_targets():
            if target.section == section and target.npc == npc:
                value = current_value(schema, view, target.path)
                assert target.stat is not None
                assert isinstance(value, int | float)
                rows.append(_stat_data(target.name, target.stat, value))
        return rows

    out["world"] = stats("world")
    out["you"] = stats("player")
    out["npcs"] = [
        {"id": npc_id, "name": schema.npc_name(npc_id), "stats": stats("npc", npc_id)}
        for npc_id in schema.npcs
        if npc_id in npcs and schema.npcs[npc_id].stats
    ]
    out["flags"] = {
        name: bool(current_value(schema, view, f"flags.{name}")) for name in schema.flags
    }
    out["goals"] = [
        {"id": name, "text": m.desc or name, "done": view.get(f"milestones.{name}") is not None}
        for name, m in schema.milestones.items()
    ]
    return out


def _bookkeeping(svc: NarrationService, setup: RoomSetup) -> str:
    room_id = svc.ws.room_id(setup.key)
    record = svc.engine.world.try_component(room_id, NarratedRoom) if room_id else None
    index = record.action_index if record is not None else 0
    return (
        f"|xschema {setup.ref}; scope {setup.scope}; action index {index}; "
        f"{svc.waiting(setup.key)} job(s) queued|n"
    )


def _integral(value: float) -> int:
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def set_value(
    svc: NarrationService, setup: RoomSetup, actor: UUID | None, path: str, raw: str
) -> str:
    """A builder's edit: set ``path`` to ``raw`` (a value, not a change), checked
    against the schema and clamped to the stat's limits. Returns the report line."""
    schema = setup.schema
    target = schema.resolve(path)
    if target is None:
        return fix_unknown(schema, path).replace(
            "is not in the world state", "is not in this room's schema"
        )
    view, _ = _view(svc, setup, actor, every_npc=True)
    schema = view.live_schema(schema)
    target = schema.resolve(path)
    assert target is not None
    where = target.path
    if not view.writable(where):
        who = "no character" if target.section == "player" else "that NPC is not in the world"
        return f"{where}: nothing to write it on ({who})."
    old = current_value(schema, view, where)
    if target.kind in ("flag", "milestone"):
        flag = as_bool(raw)
        if flag is None:
            return f"{where} takes true or false, not {raw!r}."
        if target.kind == "milestone":
            reached = old is not None
            if flag != reached:
                room_id = svc.ws.room_id(setup.key)
                record = svc.engine.world.try_component(room_id, NarratedRoom) if room_id else None
                view.set(where, (record.action_index if record else 0) if flag else None)
            return (
                f"{where}: {'reached' if reached else 'pending'} -> "
                f"{'reached' if flag else 'pending'}."
            )
        view.set(where, flag)
        return f"{where}: {str(old).lower()} -> {str(flag).lower()}."
    stat = target.stat
    assert stat is not None
    assert isinstance(old, int | float)
    number = as_number(raw)
    if number is None:
        return f"{where} takes a number, not {raw!r}."
    value: Number = _integral(number) if stat.integral and isinstance(number, float) else number
    note = ""
    if stat.max is not None and value > stat.max:
        value, note = stat.max, f" (clamped to its maximum of {fmt_number(stat.max)})"
    elif stat.min is not None and value < stat.min:
        value, note = stat.min, f" (clamped to its minimum of {fmt_number(stat.min)})"
    view.set(where, value)
    return f"{where}: {fmt_number(old)} -> {fmt_number(value)}{note}."
