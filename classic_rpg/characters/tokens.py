"""The RPG's prompt tokens (``config prompt``): health, mana, gold, experience."""

from __future__ import annotations

from uuid import UUID

from classic_rpg.characters.levels import xp_for_level
from classic_rpg.characters.vitals import foe_health
from classic_rpg.components import CharacterStats, Health, Mana
from maid_engine.ports import WorldPort
from maid_stdlib.options import PromptTokens


class RpgTokens:
    def __init__(self, engine: WorldPort) -> None:
        self.engine = engine

    def health(self, uid: UUID) -> int | None:
        h = self.engine.world.try_component(uid, Health)
        return h.current if h is not None else None

    def max_health(self, uid: UUID) -> int | None:
        h = self.engine.world.try_component(uid, Health)
        return h.maximum if h is not None else None

    def mana(self, uid: UUID) -> int | None:
        m = self.engine.world.try_component(uid, Mana)
        return m.current if m is not None else None

    def max_mana(self, uid: UUID) -> int | None:
        m = self.engine.world.try_component(uid, Mana)
        return m.maximum if m is not None else None

    def gold(self, uid: UUID) -> int | None:
        s = self.engine.world.try_component(uid, CharacterStats)
        return s.gold if s is not None else None

    def to_level(self, uid: UUID) -> int | None:
        s = self.engine.world.try_component(uid, CharacterStats)
        return max(0, xp_for_level(s.level + 1) - s.experience) if s is not None else None

    def foe(self, uid: UUID) -> str:
        found = foe_health(self.engine.world, uid)
        return f"{found[1]}%" if found is not None else ""

    def add_to(self, tokens: PromptTokens) -> None:
        tokens.add("h", "your health", self.health)
        tokens.add("H", "your maximum health", self.max_health)
        tokens.add("m", "your mana", self.mana)
        tokens.add("M", "your maximum mana", self.max_mana)
        tokens.add("g", "your gold", self.gold)
        tokens.add("x", "experience to the next level", self.to_level)
        tokens.add("e", "your foe's health, in a fight (60%)", self.foe)
