"""The binders narration brings: an NPC's trust in the actor, and world facts.

``relationship.trust`` binds an ``npc.<id>.<stat>`` to the NPC's relationship toward
the acting character, the trust the living world drifts, quest matching reads and
``@living`` shows (``+0.25`` there is ``25`` here: the schema counts in hundredths,
because models send whole numbers far more reliably than decimals).

``world.fact`` binds a milestone to a world fact of the :class:`FactBook`: reaching
it makes the fact true, by the actor, with the milestone's ``news`` for the village
and the story ``signal`` it raises (resolved then: the pack's NPC ids become the
NPCs of the world); undoing it makes it false again unless something already reacted.

The RPG layer adds ``vitals.hp`` (``classic_rpg.narration``).
"""

from __future__ import annotations

from typing import Any, ClassVar
from uuid import UUID

from maid_stdlib.living.api import adjust_relationship, get_relationship
from maid_stdlib.story.facts import FactBook, FactSignal
from maid_stdlib.story.signals import REQUIRED_CONTEXT, missing_context
from maid_stdlib.world.components import NPC, Describable
from maid_stdlib.worldstate.binding import Binder, BindSite
from maid_stdlib.worldstate.schema import (
    FactSignalDef,
    Kind,
    Number,
    Section,
    Target,
    fmt_number,
)
from maid_stdlib.worldstate.view import StatValue

#: Schema units per unit of relationship trust ([-1, 1] there, [-100, 100] here).
TRUST_SCALE = 100


class RelationshipTrust(Binder):
    """``npc.<id>.<stat>`` is that NPC's trust in the acting character."""

    name = "relationship.trust"
    kinds: ClassVar[frozenset[Kind]] = frozenset({"stat"})
    sections: ClassVar[frozenset[Section]] = frozenset({"npc"})
    toward = "in {reader}"

    def check(self, target: Target) -> list[str]:
        stat = target.stat
        assert stat is not None
        out = []
        for value, what in ((stat.min, "min"), (stat.max, "max")):
            if value is not None and abs(value) > TRUST_SCALE:
                out.append(
                    f"{what} {fmt_number(value)} is outside trust's range "
                    f"(-{TRUST_SCALE} to {TRUST_SCALE})"
                )
        return out

    def writable(self, site: BindSite) -> bool:
        return (
            site.actor is not None
            and site.npc is not None
            and site.world.entity_exists(site.actor)
            and site.world.entity_exists(site.npc)
        )

    def get(self, site: BindSite) -> StatValue | None:
        if site.actor is None or site.npc is None:
            return None
        rel = get_relationship(site.world, site.npc, site.actor)
        if rel is None:
            return None
        value = rel.trust * TRUST_SCALE
        stat = site.target.stat if site.target is not None else None
        if stat is None or stat.integral:
            return round(value)
        return round(value, 6)

    def set(self, site: BindSite, value: StatValue | None) -> None:
        if value is None or isinstance(value, bool) or site.actor is None or site.npc is None:
            return
        rel = get_relationship(site.world, site.npc, site.actor)
        current = rel.trust if rel is not None else 0.0
        adjust_relationship(site.world, site.npc, site.actor, trust=value / TRUST_SCALE - current)

    def limits(self, site: BindSite) -> tuple[Number | None, Number | None]:
        return (-TRUST_SCALE, TRUST_SCALE)


class WorldFact(Binder):
    """A milestone (or a flag) is a world fact of the same name."""

    name = "world.fact"
    kinds: ClassVar[frozenset[Kind]] = frozenset({"milestone", "flag"})
    sections: ClassVar[frozenset[Section]] = frozenset({"milestones", "flags"})

    def __init__(self, facts: FactBook) -> None:
        self.facts = facts

    def check(self, target: Target) -> list[str]:
        if target.flag is not None and target.flag.initial:
            return ["a flag bound to a world fact starts false (no fact is true before it happens)"]
        signal = target.milestone.signal if target.milestone is not None else None
        if signal is None:
            return []
        if signal.type not in REQUIRED_CONTEXT:
            known = ", ".join(sorted(REQUIRED_CONTEXT))
            return [f"signal: unknown signal type {signal.type!r} (known: {known})"]
        missing = missing_context(signal.type, signal.context)
        if missing:
            return [f"signal: {signal.type} needs context {', '.join(missing)}"]
        return []

    def get(self, site: BindSite) -> StatValue | None:
        record = self.facts.get(site.name)
        if record is None:
            return None
        if site.target is not None and site.target.kind == "flag":
            return True
        return record.index

    def set(self, site: BindSite, value: StatValue | None) -> None:
        if value is None or value is False:
            self.facts.clear(site.name)
            return
        milestone = site.target.milestone if site.target is not None else None
        who = ""
        if site.actor is not None:
            described = site.world.try_component(site.actor, Describable)
            who = described.name if described is not None else ""
        news = milestone.news.replace("{actor}", who or "someone") if milestone else ""
        pack = site.room_key.split(":", 1)[0] if ":" in site.room_key else ""
        told = [f"{pack}:{npc}" if pack else npc for npc in milestone.told_to] if milestone else []
        self.facts.set(
            site.name,
            by=site.actor,
            by_name=who,
            room=site.room_key,
            index=value if isinstance(value, int) and not isinstance(value, bool) else 0,
            news=news,
            told_to=told,
            signal=_resolve_signal(site, milestone.signal, pack) if milestone else None,
        )

    def undo_blocked(self, site: BindSite) -> str | None:
        record = self.facts.get(site.name)
        if record is None or not record.reactions:
            return None
        return "; ".join(record.reactions)


def _resolve_signal(site: BindSite, signal: FactSignalDef | None, pack: str) -> FactSignal | None:
    """The declared signal with the pack's NPC ids turned into the world's NPCs.

    An id whose NPC is not in the world (killed, never placed) is left out; a context
    key left empty by that is the detector's to judge (no signal without its context).
    """
    if signal is None:
        return None
    wanted = {f"{pack}:{npc}" if pack else npc for npc in signal.npcs}
    found: dict[str, UUID] = {}
    for uid, npc in site.world.each(NPC):
        if npc.template in wanted:
            found.setdefault(npc.template.split(":", 1)[-1], uid)

    def name(uid: UUID) -> str:
        described = site.world.try_component(uid, Describable)
        return described.name if described is not None else ""

    context: dict[str, Any] = {}
    for key, value in signal.context.items():
        if isinstance(value, str) and value in found:
            context[key] = str(found[value])
            context[f"{key}_name"] = name(found[value])
        elif isinstance(value, list) and value and all(v in found for v in value):
            context[key] = [str(found[v]) for v in value]
            context[f"{key}_names"] = [name(found[v]) for v in value]
        else:
            context[key] = value
    return FactSignal(
        signal_type=signal.type,
        importance=signal.importance,
        npcs=[str(found[npc]) for npc in signal.npcs if npc in found],
        context=context,
    )


__all__ = ["TRUST_SCALE", "RelationshipTrust", "WorldFact"]
