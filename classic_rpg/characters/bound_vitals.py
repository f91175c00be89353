"""``vitals.hp``: a narrated room's ``player.<stat>`` that is the character's own hit points.

Bound, the narrated hp is the number the prompt, ``score`` and combat read: a turn
that hurts the character hurts them, within the schema's per-turn limits and within
their own bounds. The lowest a story can bring them is 1: a death is combat's to
decide (it drops what is carried, moves the body, counts kills), not a narrator's.
The schema's bands are read as percentages of the character's maximum, which grows
with their level.
"""

from __future__ import annotations

from typing import ClassVar

from classic_rpg.components import Health
from classic_rpg.events import VitalsChangedEvent
from maid_engine.ports import EventsPort
from maid_stdlib.worldstate.binding import Binder, BindSite, percent_band_problems
from maid_stdlib.worldstate.schema import Kind, Number, Section, Target
from maid_stdlib.worldstate.view import StatValue

#: The least hit points a narrated turn leaves: dying is for combat.
STORY_FLOOR = 1


class VitalsHp(Binder):
    name = "vitals.hp"
    kinds: ClassVar[frozenset[Kind]] = frozenset({"stat"})
    sections: ClassVar[frozenset[Section]] = frozenset({"player"})
    relative_bands = True

    def __init__(self, engine: EventsPort) -> None:
        self.engine = engine

    def check(self, target: Target) -> list[str]:
        stat = target.stat
        assert stat is not None
        out = []
        if stat.min is not None or stat.max is not None:
            out.append("leave out min and max: a character's hit points run to their own maximum")
        if stat.is_counter:
            out.append("hit points go down as well as up; not a counter")
        return out + percent_band_problems(target)

    def writable(self, site: BindSite) -> bool:
        return site.actor is not None and site.world.has_component(site.actor, Health)

    def get(self, site: BindSite) -> StatValue | None:
        health = site.world.try_component(site.actor, Health) if site.actor else None
        return health.current if health is not None else None

    def set(self, site: BindSite, value: StatValue | None) -> None:
        if site.actor is None or value is None or isinstance(value, bool):
            return
        health = site.world.try_component(site.actor, Health)
        if health is None:
            return
        new = max(STORY_FLOOR, min(health.maximum, round(value)))
        if new != health.current:
            health.current = new
            site.world.modified(site.actor, health)
            self.engine.events.emit(VitalsChangedEvent(site.actor))

    def limits(self, site: BindSite) -> tuple[Number | None, Number | None] | None:
        health = site.world.try_component(site.actor, Health) if site.actor else None
        if health is None:
            return None
        return (STORY_FLOOR, health.maximum)


__all__ = ["STORY_FLOOR", "VitalsHp"]
