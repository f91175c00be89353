"""Death: what happens when health reaches 0, and NPC respawns.

NPCs: EntityDiedEvent; their carried items, worn items and rolled loot drop in the
room; the killer gets their experience value and gold; the entity is destroyed
(EntityDestroyedEvent follows at the next safe point); if their ``combat.respawn``
is set, a :class:`PendingRespawn` is stored and the RespawnSystem creates a *new*
NPC (new id) from the same template at the spawn room when it is due.

Players never lose their character: EntityDiedEvent (is_player=True), 10% of the
gold they carry goes to the killer (or is lost), health is set to 50% of the
maximum, and they wake up in the recall room. Items, equipment, experience, level
and quests are kept.
"""

from __future__ import annotations

import logging
from typing import Protocol
from uuid import UUID

from classic_rpg.characters.levels import Progression, send_status
from classic_rpg.combat.components import (
    CombatProfile,
    CombatRules,
    LootEntry,
    LootTable,
    PendingRespawn,
    SpawnPoint,
)
from classic_rpg.combat.formulas import level_of
from classic_rpg.combat.service import CombatService
from classic_rpg.combat.system import CombatSystem
from classic_rpg.components import CharacterStats, Health
from classic_rpg.events import VitalsChangedEvent
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.select import group_names
from maid_engine.ecs import System, World
from maid_engine.ports import (
    ClockPort,
    EventsPort,
    RandomPort,
    ServicesPort,
    SessionsPort,
    WorldPort,
)
from maid_stdlib.world.characters import WorldCharacterFactory
from maid_stdlib.world.components import NPC
from maid_stdlib.world.events import EntityDiedEvent
from maid_stdlib.world.look import name_of, render_room
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import SpawnGates, spawn_template
from maid_stdlib.world.text import capitalize, join_words

log = logging.getLogger("maid.rpg.death")


class DeathHost(WorldPort, EventsPort, ClockPort, ServicesPort, SessionsPort, RandomPort, Protocol):
    """What the death rules use: the world and its services (items, progression,
    the world index), telling the dead, the vitals event, game time (respawns) and
    the seeded random source (loot rolls)."""


def room_for(entry: LootEntry, items: ItemFactory) -> int:
    """How many of ``entry``'s item may still drop: its ``max_exist`` less what the
    world already has (a one-of-a-kind weapon), or no limit."""
    if not entry.max_exist:
        return entry.max_count
    return max(0, entry.max_exist - items.existing(entry.item))


def can_drop(entry: LootEntry, template: str, items: ItemFactory) -> bool:
    """Whether killing the entry's owner may drop ``template`` now (quests and the
    simulation's bots ask, so neither counts on an axe that cannot fall)."""
    return entry.item == template and entry.chance > 0 and room_for(entry, items) > 0


def handle_death(engine: DeathHost, event: EntityDiedEvent) -> None:
    """The death rules, given to CombatService as its ``on_death`` handler: it has
    already stopped the fights and emitted ``event``."""
    if event.is_player:
        _player_death(engine, event.entity_id, event.killer_id, event.room)
    else:
        _npc_death(engine, event.entity_id, event.killer_id, event.room)


def _npc_death(engine: DeathHost, victim: UUID, killer: UUID | None, room: str) -> None:
    world = engine.world
    ws = engine.services.get(WorldService)
    items = engine.services.get(ItemFactory)
    name = name_of(ws, victim)
    if room:
        ws.message_room(room, f"|r{capitalize(name)} falls to the ground, dead.|n")
    dropped: list[UUID] = []
    if room:
        for item in items.all_items(victim):
            items.move_to_room(item, room, reason="loot")
            dropped.append(item)
        table = world.try_component(victim, LootTable)
        for entry in table.entries if table is not None else []:
            if engine.random.random() >= entry.chance:
                continue
            count = min(
                engine.random.randint(entry.min_count, entry.max_count), room_for(entry, items)
            )
            for _ in range(count):
                try:
                    item = items.spawn(entry.item, room=room)
                except LookupError:
                    log.warning("loot of %s names unknown item template %r", name, entry.item)
                    break
                dropped.append(item)
        if dropped:
            what = join_words(group_names(ws, dropped))
            ws.message_room(room, f"{capitalize(name)} drops {what}.")
    if killer is not None and world.entity_exists(killer):
        progression = engine.services.get(Progression)
        profile = world.try_component(victim, CombatProfile)
        if profile is not None and profile.xp_value > 0:
            combat = engine.services.get(CombatService)
            sharers = [u for u in combat.companions(killer) if world.entity_exists(u)]
            if len(sharers) <= 1:
                progression.award_experience(killer, profile.xp_value, f"for killing {name}")
            else:
                for uid, share in experience_shares(world, sharers, profile.xp_value):
                    progression.award_experience(uid, share, f"as your share for {name}")
        stats = world.try_component(victim, CharacterStats)
        if stats is not None and stats.gold > 0:
            progression.award_gold(killer, stats.gold, f"from the body of {name}")
            stats.gold = 0
    _schedule_respawn(engine, victim, room)
    world.destroy_entity(victim)


def experience_shares(world: World, sharers: list[UUID], xp: int) -> list[tuple[UUID, int]]:
    """A kill's experience split among the group members present: by level, with
    10% more in all per member beyond the first (grouping must not cost experience),
    at least 1 each."""
    levels = [level_of(world, uid) for uid in sharers]
    pool = xp * (10 + len(sharers) - 1)
    total = 10 * sum(levels)
    return [(uid, max(1, pool * lvl // total)) for uid, lvl in zip(sharers, levels, strict=True)]


def _schedule_respawn(engine: DeathHost, victim: UUID, room: str) -> None:
    world = engine.world
    rules = world.try_component(victim, CombatRules)
    npc = world.try_component(victim, NPC)
    if rules is None or rules.respawn is None or npc is None or not npc.template:
        return
    point = world.try_component(victim, SpawnPoint)
    where = point.room if point is not None and point.room else room
    if not where:
        return
    due = engine.clock.game_time + rules.respawn
    world.create_entity(PendingRespawn(template=npc.template, room=where, due=due))
    log.info("%s will respawn in %s at game time %.0f", npc.template, where, due)


def recall_room(engine: ServicesPort) -> str | None:
    combat = engine.services.get(CombatService)
    ws = engine.services.get(WorldService)
    if combat.recall_room is not None and ws.has_room(combat.recall_room):
        return combat.recall_room
    factory = engine.services.try_get(WorldCharacterFactory)
    try:
        return factory.start_room() if factory is not None else ws.start_room
    except RuntimeError:
        return None


def _player_death(engine: DeathHost, victim: UUID, killer: UUID | None, room: str) -> None:
    world = engine.world
    ws = engine.services.get(WorldService)
    combat = engine.services.get(CombatService)
    send = engine.sessions.send_to
    name = name_of(ws, victim)
    by = f" by {name_of(ws, killer)}" if killer is not None and world.entity_exists(killer) else ""
    send(victim, f"|rYou have been slain{by}!|n Everything goes dark...")
    if room:
        ws.message_room(room, f"|r{name} has been slain{by}!|n", exclude=(victim,))
    stats = world.try_component(victim, CharacterStats)
    if stats is not None and stats.gold > 0:
        lost = int(stats.gold * combat.death_gold_penalty)
        if lost > 0:
            stats.gold -= lost
            send(victim, f"You lost {lost} gold.")
            if killer is not None and not combat.is_player(killer):
                loot = world.try_component(killer, CharacterStats)
                if loot is not None:
                    loot.gold += lost  # kill it to get your gold back
    health = world.get_component(victim, Health)
    health.current = max(1, int(health.maximum * combat.death_health_fraction))
    engine.events.emit(VitalsChangedEvent(victim))
    send_status(engine, victim)
    target = recall_room(engine)
    if target is not None and target != ws.room_key_of(victim):
        ws.move(victim, target, reason="death")
        ws.message_room(target, f"{name} appears, pale and shaken.", exclude=(victim,))
    if target is not None:
        send(victim, "You wake up, sore but alive.\n" + render_room(ws, target, victim))


class RespawnSystem(System):
    """Brings back NPCs whose PendingRespawn is due (a new entity each time)."""

    phase = "combat"
    after = (CombatSystem,)

    async def update(self, delta: float) -> None:
        now = self.engine.clock.game_time
        world = self.world
        for marker, (pending,) in world.query(PendingRespawn):
            if pending.due > now:
                continue
            gates = self.engine.services.try_get(SpawnGates)
            if gates is not None and gates.held(pending.template, pending.room):
                continue  # driven off: back when the gate opens (its faction regroups)
            world.destroy_entity(marker)
            try:
                uid = spawn_template(self.engine, pending.template, None, kind="npc")
            except LookupError:
                log.warning("cannot respawn %r: the template is gone", pending.template)
                continue
            ws = self.engine.services.get(WorldService)
            if not ws.has_room(pending.room):
                log.warning("cannot respawn %r: room %r is gone", pending.template, pending.room)
                world.destroy_entity(uid)
                continue
            world.add_component(uid, SpawnPoint(pending.room))
            ws.place(uid, pending.room, reason="respawn")
            ws.message_room(pending.room, f"{capitalize(name_of(ws, uid))} arrives.")
            log.info("respawned %s in %s", pending.template, pending.room)
