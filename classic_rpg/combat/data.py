"""The ``stats:``, ``combat:`` and ``loot:`` sections of NPC entries.

    npcs:
      - key: bandit_scout
        name: a bandit scout
        keywords: [bandit, scout]
        room: trade_road
        count: 3
        stats: {level: 2, hp: 22, damage: [1, 4], armor: 1, xp: 40, gold: [2, 8]}
        combat: {hostile: true, respawn: 600}
        loot:
          - {item: bandit_insignia}
          - {item: healing_draught, chance: 0.25}

Defaults when omitted: hp 10 + 8 x level, damage [1 + level // 2, 3 + level],
xp 20 x level, attributes all 10. NPCs without ``stats:`` cannot fight.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, RootModel

from classic_rpg.combat.components import (
    CombatProfile,
    CombatRules,
    LootEntry,
    LootTable,
    SpawnPoint,
)
from classic_rpg.components import Attributes, CharacterStats, Health, Mana
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import qualify


class AttributesData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    strength: int = Field(default=10, ge=1, le=30)
    dexterity: int = Field(default=10, ge=1, le=30)
    constitution: int = Field(default=10, ge=1, le=30)
    intelligence: int = Field(default=10, ge=1, le=30)
    wisdom: int = Field(default=10, ge=1, le=30)
    charisma: int = Field(default=10, ge=1, le=30)


class NpcStatsData(BaseModel):
    """The ``stats:`` section of an NPC entry (classic_rpg): its fighting numbers.

    ``stats: {level: 5, hp: 60, damage: [3, 8], armor: 2}``. Applied when the NPC is
    built; on a reload or restart an edited section is applied again (full health).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    level: int = Field(default=1, ge=1, le=100)
    """1..100; sets the defaults of hp, damage and xp."""
    hp: int | None = Field(default=None, ge=1)
    """Maximum health (default 10 + 8 x level)."""
    mana: int = Field(default=0, ge=0)
    """Maximum mana."""
    attributes: AttributesData = AttributesData()
    """Strength, dexterity ... (10 each by default; 1..30)."""
    damage: tuple[int, int] | None = None
    """[min, max] damage per hit (default from the level)."""
    armor: int = Field(default=0, ge=0)
    """Damage taken off each hit."""
    xp: int | None = Field(default=None, ge=0)
    """Experience its killer gets (default from the level)."""
    gold: int | tuple[int, int] = 0
    """Gold it carries (given to its killer): a number or [min, max] rolled at spawn."""

    @property
    def max_hp(self) -> int:
        """``hp``, or the level's default."""
        return self.hp if self.hp is not None else 10 + 8 * self.level

    @property
    def damage_range(self) -> tuple[int, int]:
        """``damage``, or the level's default."""
        return self.damage if self.damage is not None else (1 + self.level // 2, 3 + self.level)

    @property
    def xp_value(self) -> int:
        """``xp``, or the level's default."""
        return self.xp if self.xp is not None else 20 * self.level


def _range_problem(name: str, value: tuple[int, int]) -> str | None:
    low, high = value
    if low < 0 or high < low:
        return f"{name} {list(value)} must be [min, max] with 0 <= min <= max"
    return None


def check_stats(value: NpcStatsData, scope: CheckScope) -> Iterable[str]:
    if value.damage is not None and (p := _range_problem("damage", value.damage)):
        yield p
    if isinstance(value.gold, tuple) and (p := _range_problem("gold", value.gold)):
        yield p
    if isinstance(value.gold, int) and value.gold < 0:
        yield "gold must not be negative"


def apply_stats(ctx: ExtensionContext, value: NpcStatsData) -> None:
    world = ctx.world
    uid = ctx.entity_id
    gold = value.gold
    if isinstance(gold, tuple):
        gold = ctx.engine.random.randint(gold[0], gold[1])
    low, high = value.damage_range
    world.add_component(uid, Health(value.max_hp, value.max_hp))
    world.add_component(uid, Mana(value.mana, value.mana))
    world.add_component(uid, CharacterStats(level=value.level, experience=0, gold=gold))
    world.add_component(uid, Attributes(**value.attributes.model_dump()))
    world.add_component(
        uid,
        CombatProfile(damage_min=low, damage_max=high, armor=value.armor, xp_value=value.xp_value),
    )


class CombatData(BaseModel):
    """The ``combat:`` section of an NPC entry (classic_rpg): how it takes part in fights.

    ``combat: {hostile: true, respawn: 600}``; hostile or respawning NPCs need ``stats:``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    hostile: bool = False
    """Attacks players who come into its room."""
    attackable: bool = True
    """Players may attack it (false for a shopkeeper or a quest giver)."""
    respawn: float | None = Field(default=None, ge=0)
    """Game seconds from death to a new one at its spawn room; null: never respawns."""


def check_combat(value: CombatData, scope: CheckScope) -> Iterable[str]:
    if "stats" not in scope.entry.extensions and (value.hostile or value.respawn is not None):
        yield "hostile or respawning NPCs need a stats: section (they must be able to fight)"


def apply_combat(ctx: ExtensionContext, value: CombatData) -> None:
    ctx.world.add_component(
        ctx.entity_id,
        CombatRules(hostile=value.hostile, attackable=value.attackable, respawn=value.respawn),
    )
    room = getattr(ctx.entry.spec, "room", None)
    if room is not None:
        ctx.world.add_component(ctx.entity_id, SpawnPoint(qualify(ctx.pack, room)))


class LootItemData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: Item template: "key" in this pack or "pack:key".
    item: str = Field(pattern=r"^(?:[a-z0-9][a-z0-9_\-]*:)?[a-z0-9][a-z0-9_\-]*$")
    chance: float = Field(default=1.0, ge=0.0, le=1.0)
    #: How many drop: a number or [min, max].
    count: int | tuple[int, int] = 1
    #: At most this many of the item in the whole world (carried, worn, lying
    #: about, in any NPC): a named weapon stays one of a kind however often its
    #: owner respawns. None: no limit.
    max_exist: int | None = Field(default=None, ge=1)

    @property
    def count_range(self) -> tuple[int, int]:
        return (self.count, self.count) if isinstance(self.count, int) else self.count


class LootData(RootModel[list[LootItemData]]):
    """The ``loot:`` section of an NPC entry: what it drops when it dies.

    ``loot: [{item: rusty_sword, chance: 0.5}, {item: coin_pouch, count: [1, 3]}]``;
    ``{item: chiefs_axe, max_exist: 1}`` drops only while no other exists.
    """

    model_config = ConfigDict(frozen=True)


def check_loot(value: LootData, scope: CheckScope) -> Iterable[str]:
    for i, line in enumerate(value.root):
        full = scope.qualify(line.item)
        if full.partition(":")[0] == scope.pack and full not in scope.item_keys:
            yield f"[{i}].item: unknown item template {full!r}"
        low, high = line.count_range
        if low < 0 or high < low:
            yield f"[{i}].count must be a number or [min, max] with 0 <= min <= max"


def apply_loot(ctx: ExtensionContext, value: LootData) -> None:
    entries = []
    for line in value.root:
        low, high = line.count_range
        entries.append(
            LootEntry(qualify(ctx.pack, line.item), line.chance, low, high, line.max_exist or 0)
        )
    ctx.world.add_component(ctx.entity_id, LootTable(entries))


def register_npc_data(data: WorldData, owner: str) -> None:
    data.register_extension("npc", "stats", NpcStatsData, apply_stats, check_stats, owner=owner)
    data.register_extension("npc", "combat", CombatData, apply_combat, check_combat, owner=owner)
    data.register_extension("npc", "loot", LootData, apply_loot, check_loot, owner=owner)
