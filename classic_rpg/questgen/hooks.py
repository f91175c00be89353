"""What the stdlib pipeline cannot know about a classic RPG, given to it as hooks:
who is alive (health), how strong someone is (level), who is hostile (combat
rules), which items exist at which tier, where items can be had (loot tables),
which items a giver can offer as a reward, and where finished quests go.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.combat.components import CombatRules, LootTable, PendingRespawn
from classic_rpg.combat.data import LootData
from classic_rpg.combat.death import can_drop
from classic_rpg.components import Health
from classic_rpg.items.components import HeldBy, ItemStats
from classic_rpg.items.data import ItemStatsData
from classic_rpg.items.factory import ItemFactory
from classic_rpg.questgen.challenge import LevelChallenge
from classic_rpg.questgen.convert import registration_meta, to_quest_model
from maid_engine.ecs import World
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.questgen import DifficultyTier, GeneratedQuest, QuestSeed, WorldFacts
from maid_stdlib.world.components import NPC, Describable, Item
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import qualify
from maid_stdlib.world.spawner import SpawnGates

if TYPE_CHECKING:
    from classic_rpg.systems.quests.manager import QuestManager

__all__ = ["RPG_ITEM_TIER_CAPS", "RpgHooks", "RpgQuestSink"]

#: The highest item tier (1 common .. 5 legendary) a quest of each difficulty pays.
RPG_ITEM_TIER_CAPS: dict[DifficultyTier, int] = {
    DifficultyTier.TRIVIAL: 1,
    DifficultyTier.EASY: 1,
    DifficultyTier.MODERATE: 2,
    DifficultyTier.HARD: 3,
    DifficultyTier.EPIC: 4,
}


class HooksHost(WorldPort, ServicesPort, Protocol):
    """What the RPG hooks read: the world and the world data."""


class RpgHooks:
    def __init__(self, engine: HooksHost) -> None:
        self.engine = engine
        self._hostiles: tuple[tuple[int, int, int], tuple[tuple[UUID, str], ...]] | None = None
        #: hostile -> its source in ``hostile_threats``
        self._sources: dict[UUID, str] = {}

    @property
    def world(self) -> World:
        return self.engine.world

    def alive(self, entity: UUID) -> bool:
        health = self.world.try_component(entity, Health)
        return health is None or health.current > 0

    def hostile_threats(self, world: World) -> Iterable[tuple[UUID, str]]:
        """Hostile NPCs, their source named after their template ("bandit_scout").

        Kept until combat rules, NPC markers or descriptions are added or removed
        (``World.version_of``): quest generation asks on every tick it works, and
        walking every NPC's rules each time was most of a seed's cost. The same
        tuple while it is kept: quest generation keeps what it derived from it."""
        key = (world.version_of(CombatRules), world.version_of(NPC), world.version_of(Describable))
        if self._hostiles is None or self._hostiles[0] != key:
            # Each one's source is kept until its NPC marker or description changes
            # (``install``): naming all 500 hostiles of a big world again after
            # each kill or spawn anywhere was a millisecond or more.
            sources = self._sources
            found = []
            for uid, rules in world.each(CombatRules):
                if not rules.hostile:
                    continue
                source = sources.get(uid)
                if source is None:
                    source = sources[uid] = self._source_of(world, uid)
                found.append((uid, source))
            self._hostiles = (key, tuple(found))
        return self._hostiles[1]

    @staticmethod
    def _source_of(world: World, uid: UUID) -> str:
        npc = world.try_component(uid, NPC)
        if npc is not None and npc.template:
            return npc.template.split(":")[-1]
        desc = world.try_component(uid, Describable)
        return desc.name if desc is not None else "hostiles"

    def _forget_source(self, uid: UUID) -> None:
        self._sources.pop(uid, None)

    def is_hostile(self, world: World, entity: UUID) -> bool:
        """Whether ``hostile_threats`` names ``entity`` (an existing entity whose
        combat rules are hostile), asked of the one entity."""
        rules = world.try_component(entity, CombatRules)
        return rules is not None and rules.hostile and world.entity_exists(entity)

    def item_tier(self, template: str) -> int | None:
        entry = self.engine.services.get(WorldData).template(template, "item")
        if entry is not None:
            stats = entry.extensions.get("stats")
            tier = getattr(stats, "tier", None)
            if isinstance(tier, int):
                return tier
        for uid, item in self.world.each(Item):
            if item.template == template:
                spawned = self.world.try_component(uid, ItemStats)
                if spawned is not None:
                    return spawned.tier
        return None

    def dropped_by_loot(self, template: str) -> bool:
        """Some living NPC's loot table can drop ``template``."""
        return bool(self.droppers(template))

    def droppers(self, template: str) -> list[UUID]:
        """The living NPCs whose loot table can drop ``template`` (not a
        one-of-a-kind item the world already has)."""
        items = self.engine.services.get(ItemFactory)
        return [
            uid
            for uid, table in self.world.each(LootTable)
            if any(can_drop(e, template, items) for e in table.entries) and self.alive(uid)
        ]

    def pick_reward_items(
        self, seed: QuestSeed, difficulty: DifficultyTier, facts: WorldFacts, rng: random.Random
    ) -> list[str]:
        """One item the giver actually owns, of the best tier the difficulty allows.

        A giver with nothing of value offers no item: rewards stay grounded in what
        the giver has.
        """
        cap = RPG_ITEM_TIER_CAPS[difficulty]
        best: list[tuple[int, str]] = []
        for uid, held in self.world.each(HeldBy):
            if held.holder != seed.primary_npc:
                continue
            item = self.world.try_component(uid, Item)
            stats = self.world.try_component(uid, ItemStats)
            if item is None or stats is None or not item.template or stats.tier > cap:
                continue
            best.append((stats.tier, item.template))
        if not best:
            return []
        top = max(t for t, _ in best)
        choices = sorted({tpl for t, tpl in best if t == top})
        return [rng.choice(choices)]

    def respawn_pending(self, template: str) -> bool:
        """The RespawnSystem has a respawn of ``template`` scheduled (one held back
        until its faction regroups does not count: nobody could fight it now)."""
        return template in self._due_templates()

    def dropped_after_respawn(self, template: str) -> bool:
        """An NPC due to respawn (not held back) has ``template`` in its loot: the
        ore its only dropper carried is to be had again once the chief is back, as
        a kill objective's kind is."""
        data = self.engine.services.try_get(WorldData)
        if data is None:
            return False
        for npc in self._due_templates():
            entry = data.template(npc, "npc")
            loot = entry.extensions.get("loot") if entry is not None else None
            if isinstance(loot, LootData):
                pack = npc.partition(":")[0]
                if any(
                    line.chance > 0
                    and qualify(pack, line.item) == template
                    and (line.max_exist is None or self._existing(template) < line.max_exist)
                    for line in loot.root
                ):
                    return True
        return False

    def _existing(self, template: str) -> int:
        return self.engine.services.get(ItemFactory).existing(template)

    def _due_templates(self) -> set[str]:
        """The NPC templates with a respawn scheduled and not held back."""
        gates = self.engine.services.try_get(SpawnGates)
        return {
            p.template
            for _, p in self.world.each(PendingRespawn)
            if gates is None or not gates.held(p.template, p.room)
        }

    def respawns(self, entity: UUID) -> bool:
        """``entity`` is an NPC the RespawnSystem brings back when it dies."""
        rules = self.world.try_component(entity, CombatRules)
        npc = self.world.try_component(entity, NPC)
        return (
            rules is not None
            and rules.respawn is not None
            and npc is not None
            and bool(npc.template)
        )

    def item_stats(self) -> list[ItemStatsData]:
        """The ``stats:`` of every item template the packs define."""
        data = self.engine.services.get(WorldData)
        return [
            stats
            for pack in sorted(data.declared())
            for entry in data.load(pack).of("item")
            if isinstance(stats := entry.extensions.get("stats"), ItemStatsData)
        ]

    def portable(self, item: UUID) -> bool:
        return self.world.has_component(item, ItemStats)

    def install(self, facts: WorldFacts) -> None:
        facts.alive_checks.append(self.alive)
        facts.respawn_pending.append(self.respawn_pending)
        facts.respawners.append(self.respawns)

        facts.challenge = LevelChallenge(self.world, self.item_stats)
        facts.item_sources.append(self.dropped_by_loot)
        facts.item_returns.append(self.dropped_after_respawn)
        facts.item_droppers.append(self.droppers)
        # Only an item with stats can be picked up ("get sack" on the mill's fixed
        # sacks is refused): fetch and delivery objectives ask for those alone.
        facts.portable_checks.append(self.portable)
        facts.threat_providers.append(self.hostile_threats)
        world = self.world
        for ctype in (NPC, Describable):
            world.on_changed(ctype, lambda uid, _c: self._forget_source(uid))
        world.watch_holders(self._forget_source, NPC, Describable)
        facts.threat_checks[self.hostile_threats] = self.is_hostile


class RpgQuestSink:
    """Registers finished quests with the QuestManager (``QuestGen.sink``)."""

    def __init__(self, manager: QuestManager) -> None:
        self.manager = manager

    def register(self, quest: GeneratedQuest) -> str:
        return self.manager.register_generated_quest(
            to_quest_model(quest), **registration_meta(quest)
        )

    def expire(self, quest_id: str) -> list[UUID]:
        return self.manager.expire_quest(quest_id)

    def invalidate(self, quest_id: str, reason: str, explanation: str = "") -> list[UUID]:
        return self.manager.invalidate_quest(quest_id, reason, explanation)
