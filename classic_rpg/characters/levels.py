"""The levelling curve and character progression (experience, gold, level-ups).

Experience is cumulative: ``CharacterStats.experience`` is everything a character
ever earned. Going from level L to L+1 costs ``xp_to_next(L) = round(100 * L**1.5)``
(100, 283, 520, 800, 1118, ...), so reaching level L needs ``xp_for_level(L)``
in total (level 2 at 100, 3 at 383, 4 at 903, 5 at 1703). Each level gained raises
maximum health by ``10 + (con - 10) // 2`` and mana by ``5 + (int - 10) // 2``
(at least 1 each) and restores both to full.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.components import Attributes, CharacterStats, Health, Mana
from classic_rpg.events import LevelUpEvent, ProgressChangedEvent, VitalsChangedEvent
from maid_engine.ports import EventsPort, SessionsPort, WorldPort
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    pass

log = logging.getLogger("maid.rpg.levels")

MAX_LEVEL = 50
#: What a new player character starts with.
START_HEALTH = 30
START_MANA = 15
START_GOLD = 10


def xp_to_next(level: int) -> int:
    """Experience needed to go from ``level`` to ``level + 1``."""
    needed: float = 100 * max(1, level) ** 1.5
    return round(needed)


@cache
def xp_for_level(level: int) -> int:
    """Total experience at which a character reaches ``level`` (0 for level 1)."""
    if level <= 1:
        return 0
    return xp_for_level(level - 1) + xp_to_next(level - 1)


def level_for_xp(experience: int) -> int:
    level = 1
    while level < MAX_LEVEL and experience >= xp_for_level(level + 1):
        level += 1
    return level


def health_per_level(attrs: Attributes | None) -> int:
    con = attrs.constitution if attrs is not None else 10
    return max(1, 10 + (con - 10) // 2)


def mana_per_level(attrs: Attributes | None) -> int:
    intelligence = attrs.intelligence if attrs is not None else 10
    return max(1, 5 + (intelligence - 10) // 2)


class StatusHost(WorldPort, SessionsPort, Protocol):
    """What Char.Status needs: the character's stats and its session."""


class ProgressionHost(WorldPort, SessionsPort, EventsPort, Protocol):
    """What awarding progress uses: the stats, telling the player, the events."""


def send_status(engine: StatusHost, uid: UUID) -> None:
    """GMCP ``Char.Status`` (level, experience, the next level's threshold, gold)."""
    stats = engine.world.try_component(uid, CharacterStats)
    if stats is None or not engine.sessions.is_online(uid):
        return
    engine.sessions.gmcp_to(
        uid,
        "Char.Status",
        {
            "level": stats.level,
            "xp": stats.experience,
            "xp_next_level": xp_for_level(stats.level + 1),
            "gold": stats.gold,
        },
    )


class StatusRelay:
    """Sends Char.Status to the owner whenever their progress changed."""

    def __init__(self, engine: StatusHost) -> None:
        self.engine = engine

    def on_progress_changed(self, event: ProgressChangedEvent) -> None:
        send_status(self.engine, event.character_id)


class Progression:
    """Service: awarding experience and gold, and levelling up.

    Quests grant rewards through it (``award_experience``/``award_gold``) so the
    player is told and level-ups happen in one place. It reports what changed
    with ProgressChangedEvent (the StatusRelay turns that into Char.Status).
    """

    def __init__(self, engine: ProgressionHost) -> None:
        self.engine = engine

    def _tell(self, uid: UUID, text: str) -> None:
        self.engine.sessions.send_to(uid, text)

    def award_experience(self, uid: UUID, amount: int, reason: str = "") -> int:
        """Add experience (negative amounts are ignored); returns the levels gained."""
        stats = self.engine.world.try_component(uid, CharacterStats)
        if stats is None or amount <= 0:
            return 0
        stats.experience += amount
        self._tell(uid, f"|yYou gain {amount} experience{' ' + reason if reason else ''}.|n")
        gained = 0
        while stats.level < MAX_LEVEL and stats.experience >= xp_for_level(stats.level + 1):
            self.level_up(uid)
            gained += 1
        self.engine.events.emit(ProgressChangedEvent(uid))
        return gained

    def level_up(self, uid: UUID) -> int:
        """Raise the level by one (max health/mana grow, both refilled); returns it."""
        world = self.engine.world
        stats = world.get_component(uid, CharacterStats)
        attrs = world.try_component(uid, Attributes)
        stats.level += 1
        # The message names what grew: "you feel stronger" read as a lie beside a
        # score whose attributes had not moved.
        grown: list[tuple[str, int]] = []
        health = world.try_component(uid, Health)
        if health is not None:
            health.maximum += health_per_level(attrs)
            health.current = health.maximum
            grown.append(("health", health.maximum))
        mana = world.try_component(uid, Mana)
        if mana is not None:
            mana.maximum += mana_per_level(attrs)
            mana.current = mana.maximum
            grown.append(("mana", mana.maximum))
        log.info("%s reached level %d", uid, stats.level)
        self.engine.events.emit(LevelUpEvent(uid, stats.level))
        self.engine.events.emit(VitalsChangedEvent(uid))
        told = f"|YYou have reached level {stats.level}!|n"
        if grown:
            rises = " and ".join(
                f"your maximum {what} {'rises ' if i == 0 else ''}to {value}"
                for i, (what, value) in enumerate(grown)
            )
            full = "both are" if len(grown) > 1 else "it is"
            told += f" {capitalize(rises)}; {full} full again."
        self._tell(uid, told)
        return stats.level

    def award_gold(self, uid: UUID, amount: int, reason: str = "") -> int:
        """Add (or, negative, take) gold, never below zero; returns the new total."""
        stats = self.engine.world.try_component(uid, CharacterStats)
        if stats is None or amount == 0:
            return stats.gold if stats is not None else 0
        stats.gold = max(0, stats.gold + amount)
        if amount > 0:
            self._tell(uid, f"|yYou receive {amount} gold{' ' + reason if reason else ''}.|n")
        self.engine.events.emit(ProgressChangedEvent(uid))
        return stats.gold
