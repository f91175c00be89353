"""``vitals.hp`` and ``vitals.mana``: a narrated room's ``player.<stat>`` that is the
character's own hit points or mana.

Bound, the narrated hp is the number the prompt, ``score`` and combat read: a turn
that hurts the character hurts them, within the schema's per-turn limits and within
their own bounds. The lowest a story can bring them is 1: a death is combat's to
decide (it drops what is carried, moves the body, counts kills), not a narrator's.
Mana runs from 0 to the character's maximum. The schema's bands are read as
percentages of the character's maximum, which grows with their level.
"""

from __future__ import annotations

from typing import ClassVar

from classic_rpg.components import Health, Mana
from classic_rpg.events import VitalsChangedEvent
from maid_engine.ports import EventsPort
from maid_stdlib.worldstate.binding import Binder, BindSite, percent_band_problems
from maid_stdlib.worldstate.schema import Kind, Number, Section, Target
from maid_stdlib.worldstate.view import StatValue

#: The least hit points a narrated turn leaves: dying is for combat.
STORY_FLOOR = 1


class _Vital(Binder):
    """A player stat that is one of the character's vitals (current/maximum)."""

    kinds: ClassVar[frozenset[Kind]] = frozenset({"stat"})
    sections: ClassVar[frozenset[Section]] = frozenset({"player"})
    relative_bands = True
    #: The component holding the vital, its least value in a story, and its name.
    component: ClassVar[type[Health] | type[Mana]]
    floor: ClassVar[int]
    said: ClassVar[str]

    def __init__(self, engine: EventsPort) -> None:
        self.engine = engine

    def check(self, target: Target) -> list[str]:
        stat = target.stat
        assert stat is not None
        out = []
        if stat.min is not None or stat.max is not None:
            out.append(f"leave out min and max: a character's {self.said} run to their own maximum")
        if stat.is_counter:
            out.append(f"{self.said} go down as well as up; not a counter")
        return out + percent_band_problems(target)

    def _vital(self, site: BindSite) -> Health | Mana | None:
        return site.world.try_component(site.actor, self.component) if site.actor else None

    def writable(self, site: BindSite) -> bool:
        return self._vital(site) is not None

    def get(self, site: BindSite) -> StatValue | None:
        vital = self._vital(site)
        return vital.current if vital is not None else None

    def set(self, site: BindSite, value: StatValue | None) -> None:
        if site.actor is None or value is None or isinstance(value, bool):
            return
        vital = self._vital(site)
        if vital is None:
            return
        new = max(self.floor, min(vital.maximum, round(value)))
        if new != vital.current:
            vital.current = new
            site.world.modified(site.actor, vital)
            self.engine.events.emit(VitalsChangedEvent(site.actor))

    def limits(self, site: BindSite) -> tuple[Number | None, Number | None] | None:
        vital = self._vital(site)
        if vital is None:
            return None
        return (self.floor, vital.maximum)


class VitalsHp(_Vital):
    name = "vitals.hp"
    component = Health
    floor = STORY_FLOOR
    said = "hit points"


class VitalsMana(_Vital):
    name = "vitals.mana"
    component = Mana
    floor = 0
    said = "mana points"


__all__ = ["STORY_FLOOR", "VitalsHp", "VitalsMana"]
