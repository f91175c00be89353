"""Giving player characters their RPG components, and the ``score`` section."""

from __future__ import annotations

import logging
from typing import Protocol
from uuid import UUID

from classic_rpg.characters.levels import (
    START_GOLD,
    START_HEALTH,
    START_MANA,
    send_status,
    xp_for_level,
)
from classic_rpg.characters.vitals import send_vitals
from classic_rpg.combat.formulas import defense_of, offense_of
from classic_rpg.components import (
    Attributes,
    CharacterStats,
    Equipment,
    Health,
    Inventory,
    Mana,
)
from classic_rpg.items.components import ItemStats
from maid_engine.ecs import Component
from maid_engine.events import CharacterConnectedEvent
from maid_engine.ports import SessionsPort, WorldPort

log = logging.getLogger("maid.rpg.characters")


def starting_components() -> list[Component]:
    return [
        CharacterStats(level=1, experience=0, gold=START_GOLD),
        Health(START_HEALTH, START_HEALTH),
        Mana(START_MANA, START_MANA),
        Attributes(),
        Inventory(),
        Equipment(),
    ]


class SetupHost(WorldPort, SessionsPort, Protocol):
    """What character setup uses: the character's components and its session."""


def ensure_rpg_components(engine: WorldPort, uid: UUID) -> bool:
    """Add whatever RPG component a character lacks (e.g. one created before
    classic_rpg was installed). Returns True if something was added."""
    world = engine.world
    added = False
    for comp in starting_components():
        if not world.has_component(uid, type(comp)):
            world.add_component(uid, comp)
            added = True
    return added


class CharacterSetup:
    """Hooks into the world layer: new characters and logins."""

    def __init__(self, engine: SetupHost) -> None:
        self.engine = engine

    def on_created(self, uid: UUID, name: str, account_id: str) -> None:
        # A WorldCharacterFactory creation hook: runs inside create_character, so
        # the account layer's immediate save includes these components.
        ensure_rpg_components(self.engine, uid)

    def on_connected(self, event: CharacterConnectedEvent) -> None:
        uid = event.character_id
        if not self.engine.world.entity_exists(uid):
            return
        if ensure_rpg_components(self.engine, uid):
            log.info("character %s got its missing RPG components at login", uid)
        send_vitals(self.engine, uid)
        send_status(self.engine, uid)


def _bar(current: int, maximum: int) -> str:
    return f"{current}/{maximum}"


def attack_line(engine: WorldPort, uid: UUID) -> str:
    off = offense_of(engine.world, uid)
    dfn = defense_of(engine.world, uid)
    low, high = off.damage_min + off.bonus, off.damage_max + off.bonus
    # The weapon's own numbers too: a shop's "damage 2-5" must be findable here.
    own = f"{off.weapon} {off.damage_min}-{off.damage_max}"
    if off.bonus:
        own += f", {off.bonus:+d} from strength and level"
    return f"|cAttack:|n {max(1, low)}-{max(1, high)} ({own})   |cArmor:|n {dfn.armor}"


class LevelOf:
    """``who``'s level column: the level of a character with RPG stats."""

    def __init__(self, engine: WorldPort) -> None:
        self.engine = engine

    def __call__(self, uid: UUID) -> int | None:
        stats = self.engine.world.try_component(uid, CharacterStats)
        return stats.level if stats is not None else None


def rpg_score(engine: WorldPort, uid: UUID) -> list[str] | None:
    """The ScoreSheet section: level, experience, vitals, gold, attributes, gear."""
    world = engine.world
    stats = world.try_component(uid, CharacterStats)
    if stats is None:
        return None
    lines = []
    nxt = xp_for_level(stats.level + 1)
    lines.append(
        f"|cLevel:|n {stats.level}   |cExperience:|n {stats.experience}/{nxt} "
        f"({max(0, nxt - stats.experience)} to next level)"
    )
    health = world.try_component(uid, Health)
    mana = world.try_component(uid, Mana)
    vit = []
    if health is not None:
        vit.append(f"|cHealth:|n {_bar(health.current, health.maximum)}")
    if mana is not None:
        vit.append(f"|cMana:|n {_bar(mana.current, mana.maximum)}")
    vit.append(f"|cGold:|n {stats.gold}")
    lines.append("   ".join(vit))
    attrs = world.try_component(uid, Attributes)
    if attrs is not None:
        lines.append(
            f"|cStr|n {attrs.strength}  |cDex|n {attrs.dexterity}  "
            f"|cCon|n {attrs.constitution}  |cInt|n {attrs.intelligence}  "
            f"|cWis|n {attrs.wisdom}  |cCha|n {attrs.charisma}"
        )
    lines.append(attack_line(engine, uid))
    inv = world.try_component(uid, Inventory)
    eq = world.try_component(uid, Equipment)
    if inv is not None:
        slots = eq.slots.values() if eq is not None else ()
        worn = sum(1 for i in slots if world.has_component(i, ItemStats))
        carried = sum(1 for i in inv.items if world.entity_exists(i))
        lines.append(f"|cCarrying:|n {carried}/{inv.capacity} items, wearing {worn}")
    return lines
