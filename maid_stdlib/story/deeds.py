"""Deeds that change the story: a world fact that raises a story signal while it holds.

A narrated room's milestone bound to a world fact may say what the deed changes
(``signal:``: Gwen, freed, makes common cause with Voss against the bandits). The
fact carries that signal, resolved when it was set; this detector reports it as a
situation for as long as the fact holds and its NPCs live, so quest generation can
build on what a player did. Undoing the turn clears the fact and the situation with
it (the story layer forgets situations a pass no longer reports).
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from maid_stdlib.story.detectors import ANY_SIGNAL, Detection, DetectionContext, Detector
from maid_stdlib.story.facts import FACTS_ID, WorldFactRecords

__all__ = ["BUILTIN", "detect_deeds"]


def _uuid(text: str) -> UUID | None:
    try:
        return UUID(text)
    except ValueError:
        return None


def detect_deeds(ctx: DetectionContext) -> Iterator[Detection]:
    """One detection per world fact with a signal whose NPCs are all still alive."""
    records = ctx.world.try_component(FACTS_ID, WorldFactRecords)
    if records is None:
        return
    for name, record in sorted(records.facts.items()):
        signal = record.signal
        if signal is None:
            continue
        npcs = [_uuid(text) for text in signal.npcs]
        alive = [u for u in npcs if u is not None and ctx.world.entity_exists(u)]
        if len(alive) < len(signal.npcs):
            # Someone the deed concerns is gone: what it changed no longer stands.
            continue
        doer = _uuid(record.by) if record.by else None
        yield Detection(
            signal.signal_type,
            f"fact:{name}",
            signal.importance,
            alive,
            {**signal.context, "fact": name, "deed": record.news},
            involved_players=[doer] if doer is not None else [],
        )


#: Each fact says its own signal type.
BUILTIN = [Detector("deeds", ANY_SIGNAL, detect_deeds)]
