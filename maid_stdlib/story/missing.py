"""Missing people: someone a threat has kept from going where their day takes them.

The schedule system keeps an NPC in place while a threat shares its room (it hides
rather than walk past the wolves) and marks it ``Stranded``. After
``MISSING_AFTER_HOURS`` of that, the one who would miss it most -- whoever it trusts
most among those who trust it back -- raises the alarm: a CRISIS whose
``crisis_type`` is "missing person" with the ``victim`` named, which quest
generation reads as a rescue. Game-agnostic: it knows nothing of wolves or glades,
only schedules, threats and relationships.
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from maid_engine.clock import GAME_HOUR
from maid_stdlib.living.components import Relationships, Stranded, clamp_unit, target_uuid
from maid_stdlib.story.detectors import (
    Detection,
    DetectionContext,
    Detector,
    severity_band,
)
from maid_stdlib.story.signals import StorySignalType as T

__all__ = ["MISSING_AFTER_HOURS", "MISSING_TRUST", "detect_missing", "who_misses"]

#: Game hours someone must have been held before anyone misses them.
MISSING_AFTER_HOURS = 3.0
#: How much the one who raises the alarm must trust the missing one (and be trusted).
MISSING_TRUST = 0.3


def who_misses(ctx: DetectionContext, victim: UUID) -> UUID | None:
    """The NPC closest to ``victim`` who trusts it back and is not held somewhere
    too: the one who notices it gone. None when nobody cares enough."""
    rels = ctx.world.try_component(victim, Relationships)
    if rels is None:
        return None
    best: tuple[float, str, UUID] | None = None
    for key, rel in rels.entries.items():
        other = target_uuid(key)
        if other is None or rel.trust < MISSING_TRUST or not ctx.is_npc(other):
            continue
        if not ctx.world.entity_exists(other) or ctx.world.has_component(other, Stranded):
            continue
        back = ctx.world.try_component(other, Relationships)
        mine = back.entries.get(str(victim)) if back is not None else None
        if mine is None or mine.trust < MISSING_TRUST:
            continue
        row = (-(rel.trust + rel.affinity + mine.trust + mine.affinity), key, other)
        if best is None or row < best:
            best = row
    return best[2] if best is not None else None


def detect_missing(ctx: DetectionContext) -> Iterator[Detection]:
    """Each NPC held by a threat for ``MISSING_AFTER_HOURS`` or more, still where it
    was held and with the threat still there, that someone misses."""
    held = sorted(ctx.world.each(Stranded), key=lambda row: str(row[0]))
    for victim, stranded in held:
        if ctx.ws.room_key_of(victim) != stranded.room:
            continue
        hours = (ctx.now - stranded.since) / GAME_HOUR
        if hours < MISSING_AFTER_HOURS:
            continue
        groups = ctx.threats.groups_in([stranded.room])
        if not groups:
            continue
        group = groups[0]
        reporter = who_misses(ctx, victim)
        if reporter is None:
            continue
        # A day held is as bad as it gets.
        severity = clamp_unit(0.5 + hours / 48)
        yield Detection(
            T.CRISIS,
            f"missing:{victim}",
            clamp_unit(0.55 + hours / 60),
            [reporter, victim],
            {
                "crisis_type": "missing person",
                "affected_area": ctx.room_ref(stranded.room),
                "affected_area_key": stranded.room,
                "affected_area_name": ctx.room_name(stranded.room),
                "severity": round(severity, 3),
                "victim": str(victim),
                "victim_name": ctx.name(victim),
                "reported_by": str(reporter),
                "reported_by_name": ctx.name(reporter),
                "threat_source": group.source,
                "threat_source_name": ctx.living.source_name(group.source),
                "threat_key": group.key,
                "hours_missing": round(hours, 1),
                "affected_npcs": [str(reporter), str(victim)],
            },
            band=severity_band(severity),
        )


BUILTIN = [Detector("missing_persons", T.CRISIS, detect_missing)]
