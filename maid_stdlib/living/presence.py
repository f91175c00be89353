"""What NPCs and places show follows what they live.

Living data declares, per NPC template, the room lines (``short``) and ``look``
descriptions valid under conditions of the living world (``at:``, ``doing:``,
``supply_clear``, ``need_low``, ``heard:`` ...), per room the parts of its
description that depend on the state of the world (the forge cold or working),
and per notice board the area whose public needs it lists. The
:class:`PresenceSystem` keeps ``Describable``/``Room`` text in step with them, so
``look`` and its cached listings read ordinary components:

* an NPC shows the first of its lines whose conditions hold; an entry without
  ``short`` stands for the hand-written line of its world data, which is thereby
  valid only under those conditions; when none holds, a line is made from what
  it does (its schedule's activity), its mood (its lowest unmet need) and where
  it is: "Gundrik is here, drinking, looking worried.";
* a room's description has ``{name}`` where a part goes (appended when absent):
  the first variant whose conditions hold for its ``who`` (an NPC key) is put in;
* a notice board's description is followed by the needs that NPCs of its area
  have made public (their open goals) and by what other layers add
  (:meth:`Presence.board_sections`: a quest layer lists the open quests there).

Only entities with these components are visited, once per :data:`REFRESH` game
seconds, and any NPC as soon as it arrives somewhere; a world without such data
pays one empty query a tick.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.ecs import Component, System, World
from maid_stdlib.living.components import GoalsComponent, NeedsComponent
from maid_stdlib.living.conditions import Evaluation, LivingView
from maid_stdlib.living.facts import Schedule
from maid_stdlib.world.components import NPC, Describable, Position, Room
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import ThingSpec
from maid_stdlib.world.text import capitalize

#: Game seconds between two refreshes of what is shown.
REFRESH = 60.0
#: How a mood reads for a need below its threshold; others read "troubled".
MOODS = {
    "economic": "worried",
    "safety": "uneasy",
    "social": "lonely",
    "health": "unwell",
    "rest": "weary",
}
#: ``section(area_key) -> lines`` for a notice board of that area.
BoardSection = Callable[[str], list[str]]
_PART = re.compile(r"\{([a-z0-9_]+)\}")


@dataclass
class ShownLine:
    when: list[str] = field(default_factory=list)
    #: None: the world data's own line.
    short: str | None = None
    description: str | None = None
    #: What it is seen doing while the line holds (None: its schedule's activity).
    activity: str | None = None


@dataclass
class PresenceLines(Component):
    """On an NPC: its lines by condition (living data ``presence:``)."""

    component_name = "PresenceLines"
    lines: list[ShownLine] = field(default_factory=list)


@dataclass
class PartVariant:
    text: str
    when: list[str] = field(default_factory=list)
    #: The NPC the conditions are about (an entity id string; "" = none).
    who: str = ""


@dataclass
class RoomParts(Component):
    """On a room: its description's state-dependent parts (living data ``rooms:``)."""

    component_name = "RoomParts"
    template: str = ""
    parts: dict[str, list[PartVariant]] = field(default_factory=dict)


@dataclass
class NoticeBoard(Component):
    """On an item: it lists the public needs (and open quests) of ``area``."""

    component_name = "NoticeBoard"
    area: str = ""
    base: str = ""


class Presence:
    """Works out what an NPC, a room or a board shows now."""

    NOTHING_PINNED = "Nothing else has been pinned up lately."

    def __init__(
        self,
        living: LivingView,
        names: Callable[[UUID], str],
        world_data: Callable[[], WorldData | None],
    ) -> None:
        self.living = living
        self.names = names
        self.world_data = world_data
        self.board_sections: list[BoardSection] = []

    @property
    def world(self) -> World:
        return self.living.engine.world

    def _data_text(self, npc: UUID) -> tuple[str, str]:
        """The NPC's hand-written short line and description (its world data)."""
        world = self.world
        marker = world.try_component(npc, NPC)
        data = self.world_data()
        entry = data.template(marker.template, "npc") if marker is not None and data else None
        spec = entry.spec if entry is not None else None
        desc = world.get_component(npc, Describable)
        if isinstance(spec, ThingSpec):
            short = spec.short or f"{capitalize(spec.name)} is here."
            return short, spec.description
        return desc.short, desc.description

    def _shown(self, ev: Evaluation, npc: UUID) -> ShownLine | None:
        """The first of the NPC's lines whose conditions hold."""
        shown = self.world.try_component(npc, PresenceLines)
        if shown is not None:
            for line in shown.lines:
                if all(ev.holds(spec, npc) for spec in line.when):
                    return line
        return None

    def npc_text(self, ev: Evaluation, npc: UUID) -> tuple[str, str]:
        """(room line, description) the NPC shows now."""
        short, description = self._data_text(npc)
        line = self._shown(ev, npc)
        if line is not None:
            return (line.short or short, line.description or description)
        return self.made_line(ev, npc), description

    def seen_doing(self, npc: UUID, now: float) -> str:
        """What the NPC is seen doing now: the activity of the line it shows, if
        that line names one, else its schedule's (what "goes on ..." tells)."""
        line = self._shown(Evaluation(self.living, now), npc)
        if line is not None and line.activity:
            return line.activity
        return self.activity_now(npc, now)

    def made_line(self, ev: Evaluation, npc: UUID) -> str:
        """ "Gundrik is here, drinking, looking worried." """
        bits = [f"{capitalize(self.names(npc))} is here"]
        activity = self.activity(ev, npc)
        if activity:
            bits.append(activity.replace("_", " "))
        mood = self.mood(npc)
        if mood:
            bits.append(f"looking {mood}")
        return ", ".join(bits) + "."

    def activity(self, ev: Evaluation, npc: UUID) -> str:
        return self.activity_now(npc, ev.now)

    def activity_now(self, npc: UUID, now: float) -> str:
        """What the NPC's schedule has it doing now, if it is where it should be."""
        schedule = self.world.try_component(npc, Schedule)
        if schedule is None:
            return ""
        entry = schedule.entry_at(int(now // 3600) % 24)
        if entry is None or self.living.world_service.room_key_of(npc) != entry.room:
            return ""
        return entry.activity

    def mood(self, npc: UUID) -> str:
        needs = self.world.try_component(npc, NeedsComponent)
        if needs is None:
            return ""
        unmet = sorted((s.value, n) for n, s in needs.needs.items() if s.value < s.threshold)
        return MOODS.get(unmet[0][1], "troubled") if unmet else ""

    def room_text(self, ev: Evaluation, parts: RoomParts) -> str:
        world = self.world

        def fits(variant: PartVariant) -> bool:
            if not variant.when:
                return True
            who = _uuid(variant.who)
            if who is None or not world.entity_exists(who):
                return False
            return all(ev.holds(spec, who) for spec in variant.when)

        return render_parts(parts.template, parts.parts, fits)

    def board_text(self, board: NoticeBoard) -> str:
        lines = [board.base.strip()]
        needs = self.public_needs(board.area)
        if needs:
            lines.append("Pinned up lately:")
            lines.extend(f"  - {n}" for n in needs)
        for section in self.board_sections:
            lines.extend(section(board.area))
        if not needs and len(lines) == 1:
            lines.append(self.NOTHING_PINNED)
        return "\n".join(lines)

    def public_needs(self, area: str) -> list[str]:
        """Open goals of the NPCs who live in ``area`` (their schedule's rooms or
        where they stand), as a notice would put them."""
        world = self.world
        ws = self.living.world_service
        out = []
        for uid, goals in world.each(GoalsComponent):
            primary = goals.primary()
            if primary is None:
                continue
            schedule = world.try_component(uid, Schedule)
            rooms = [e.room for e in schedule.entries] if schedule is not None else []
            pos = world.try_component(uid, Position)
            if pos is not None and pos.room:
                rooms.append(pos.room)
            if area not in {ws.area_of(r) for r in rooms}:
                continue
            text = f"{self.names(uid)}: {primary.description or primary.id}"
            if primary.blocker:
                text += f" (held up by {primary.blocker})"
            out.append(text + ".")
        return sorted(out)


def render_parts(
    template: str, parts: dict[str, list[PartVariant]], fits: Callable[[PartVariant], bool]
) -> str:
    """``template`` with each ``{part}`` replaced by its first fitting variant
    (a part the template does not name is appended)."""
    chosen: dict[str, str] = {}
    for name, variants in parts.items():
        chosen[name] = next((" ".join(v.text.split()) for v in variants if fits(v)), "")
    extra = [t for n, t in chosen.items() if t and "{" + n + "}" not in template]
    text = _PART.sub(lambda m: chosen.get(m.group(1), m.group(0)), template)
    text = " ".join(text.split())
    return " ".join([text, *extra]) if extra else text


def _uuid(text: str) -> UUID | None:
    try:
        return UUID(text) if text else None
    except ValueError:
        return None


class PresenceSystem(System):
    """Keeps what NPCs, rooms and boards show in step with the living world."""

    phase = "living"
    after = ("RegroupSystem",)

    def __init__(self, presence: Presence) -> None:
        self.presence = presence
        self._last: float | None = None
        #: NPCs that moved since the last refresh (refreshed at the next tick).
        self.moved: set[UUID] = set()

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        due = self._last is None or now - self._last >= REFRESH
        if not due and not self.moved:
            return
        ev = Evaluation(self.presence.living, now)
        if due:
            self._last = now
            self.refresh_all(ev)
        else:
            for npc in sorted(self.moved):
                if self.world.entity_exists(npc):
                    self.refresh_npc(ev, npc)
        self.moved.clear()

    def refresh_all(self, ev: Evaluation) -> None:
        world = self.world
        for uid, _lines in world.each(PresenceLines):
            self.refresh_npc(ev, uid)
        for uid, parts in world.each(RoomParts):
            room = world.try_component(uid, Room)
            if room is not None:
                text = self.presence.room_text(ev, parts)
                if room.description != text:
                    room.description = text
        for uid, board in world.each(NoticeBoard):
            desc = world.try_component(uid, Describable)
            if desc is not None:
                text = self.presence.board_text(board)
                if desc.description != text:
                    desc.description = text

    def refresh_npc(self, ev: Evaluation, npc: UUID) -> None:
        desc = self.world.try_component(npc, Describable)
        if desc is None or not self.world.has_component(npc, PresenceLines):
            return
        short, description = self.presence.npc_text(ev, npc)
        if desc.short != short:
            desc.short = short
        if desc.description != description:
            desc.description = description


__all__ = [
    "NoticeBoard",
    "PartVariant",
    "Presence",
    "PresenceLines",
    "PresenceSystem",
    "RoomParts",
    "ShownLine",
]
