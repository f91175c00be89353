"""The ``score`` section of a character's standing with the world's factions."""

from __future__ import annotations

from uuid import UUID

from maid_engine.ports import WorldPort
from maid_stdlib.living.components import FactionStandings
from maid_stdlib.living.registries import FactionDef

#: (lowest standing, word), highest first: how a faction regards the character.
STANDING_WORDS: tuple[tuple[float, str], ...] = (
    (0.6, "honoured"),
    (0.2, "friendly"),
    (-0.2, "neutral"),
    (-0.6, "unfriendly"),
    (-1.0, "hated"),
)


def standing_word(value: float) -> str:
    for floor, word in STANDING_WORDS:
        if value >= floor:
            return word
    return STANDING_WORDS[-1][1]


class ReputationSection:
    """``provider(engine, character)`` for the ScoreSheet: one line naming each faction
    that has an opinion of the character, or nothing when none has."""

    def __init__(self, factions: dict[str, FactionDef]) -> None:
        self.factions = factions

    def __call__(self, engine: WorldPort, character: UUID) -> str | None:
        standings = engine.world.try_component(character, FactionStandings)
        if standings is None or not standings.standings:
            return None
        parts = []
        for key, value in sorted(standings.standings.items()):
            faction = self.factions.get(key)
            name = faction.name if faction is not None else key
            # "the village: neutral", not "the village neutral": a name may be a phrase.
            parts.append(f"{name}: {standing_word(value)} ({value:+.1f})")
        return "|cReputation:|n " + "; ".join(parts)
