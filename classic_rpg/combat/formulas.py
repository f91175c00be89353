"""The numbers of combat (see docs/rpg.md, "Combat rules").

* A round every ``ROUND_SECONDS`` real seconds per fighter (the default of the
  ``combat_round_seconds`` setting).
* Hit chance (percent) = 75 + 5 x (attacker level - defender level)
  + 2 x (attacker dex - defender dex), clamped to 10..95.
* Damage = a roll in the weapon's range (NPCs: their data range; unarmed 1-3)
  + bonus - defender armor // 2, at least 1. The bonus is (str - 10) // 2 for
  everyone, plus level // 2 for player characters (NPC ranges already reflect
  their level).
* Armor: an NPC's data armor; a player's is the sum of the armor of what they wear.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from uuid import UUID

from classic_rpg.combat.components import CombatProfile
from classic_rpg.components import Attributes, CharacterStats, Equipment
from classic_rpg.items.components import ItemStats
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import World
from maid_stdlib.world.components import Describable

ROUND_SECONDS = 3.0
UNARMED = (1, 3)
MIN_HIT, MAX_HIT, BASE_HIT = 10, 95, 75


@dataclass(frozen=True)
class Offense:
    damage_min: int
    damage_max: int
    bonus: int
    level: int
    dexterity: int
    weapon: str


@dataclass(frozen=True)
class Defense:
    armor: int
    level: int
    dexterity: int


def level_of(world: World, uid: UUID) -> int:
    stats = world.try_component(uid, CharacterStats)
    return stats.level if stats is not None else 1


def _attrs(world: World, uid: UUID) -> Attributes:
    return world.try_component(uid, Attributes) or Attributes()


def worn_stats(world: World, uid: UUID) -> dict[str, ItemStats]:
    """Slot -> stats of what ``uid`` wears (items that no longer exist are skipped)."""
    eq = world.try_component(uid, Equipment)
    out: dict[str, ItemStats] = {}
    if eq is None:
        return out
    for slot, item in eq.slots.items():
        stats = world.try_component(item, ItemStats)
        if stats is not None:
            out[slot] = stats
    return out


def offense_of(world: World, uid: UUID) -> Offense:
    attrs = _attrs(world, uid)
    level = level_of(world, uid)
    bonus = (attrs.strength - 10) // 2
    profile = world.try_component(uid, CombatProfile)
    if profile is not None:
        low, high, weapon = profile.damage_min, profile.damage_max, "natural"
    else:
        bonus += level // 2
        low, high, weapon = UNARMED[0], UNARMED[1], "bare hands"
        eq = world.try_component(uid, Equipment)
        item = eq.slots.get("weapon") if eq is not None else None
        stats = world.try_component(item, ItemStats) if item is not None else None
        if item is not None and stats is not None and stats.is_weapon:
            low, high = stats.damage_min, stats.damage_max
            desc = world.try_component(item, Describable)
            weapon = desc.name if desc is not None else "weapon"
    return Offense(low, max(low, high), bonus, level, attrs.dexterity, weapon)


def defense_of(world: World, uid: UUID) -> Defense:
    attrs = _attrs(world, uid)
    profile = world.try_component(uid, CombatProfile)
    if profile is not None and not world.has_component(uid, PlayerCharacter):
        armor = profile.armor
    else:
        armor = sum(s.armor for s in worn_stats(world, uid).values())
    return Defense(armor, level_of(world, uid), attrs.dexterity)


def hit_chance(att: Offense, dfn: Defense) -> int:
    chance = BASE_HIT + 5 * (att.level - dfn.level) + 2 * (att.dexterity - dfn.dexterity)
    return max(MIN_HIT, min(MAX_HIT, chance))


def roll_hit(rng: random.Random, att: Offense, dfn: Defense) -> bool:
    return rng.randint(1, 100) <= hit_chance(att, dfn)


def expected_damage(att: Offense, dfn: Defense) -> float:
    """The average damage of one attack, misses included."""
    low = max(1, att.damage_min + att.bonus - dfn.armor // 2)
    high = max(1, att.damage_max + att.bonus - dfn.armor // 2)
    return hit_chance(att, dfn) / 100 * (low + high) / 2


def roll_damage(rng: random.Random, att: Offense, dfn: Defense) -> int:
    return max(1, rng.randint(att.damage_min, att.damage_max) + att.bonus - dfn.armor // 2)
