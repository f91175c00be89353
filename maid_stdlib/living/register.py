"""LivingPlugin (``stdlib.living``): the living world of an engine."""

from __future__ import annotations

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import EntityDestroyedEvent
from maid_stdlib.living.ambient import Ambient, AmbientSystem
from maid_stdlib.living.autonomy import AutonomySystem, ScheduleSystem, SocialFabricSystem
from maid_stdlib.living.commands import COMMANDS
from maid_stdlib.living.conditions import Evaluation
from maid_stdlib.living.data import with_entry_lines
from maid_stdlib.living.events import GoalStatusChangedEvent, ThreatObservedEvent
from maid_stdlib.living.facts import DiscoverySite
from maid_stdlib.living.memory import COLLECTION, MemoryFlushSystem, MemoryService
from maid_stdlib.living.presence import PresenceLines, PresenceSystem
from maid_stdlib.living.regroup import RegroupSystem
from maid_stdlib.living.reload import LivingReload
from maid_stdlib.living.reputation import ReputationSection
from maid_stdlib.living.seeding import apply_spawned, check, data_refs
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.components import NPC
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.info import ScoreSheet
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.plugin import WorldPlugin
from maid_stdlib.world.reload import PackReloader
from maid_stdlib.world.spawner import SpawnGates

__all__ = ["LivingPlugin"]


class _Handlers:
    def __init__(self, living: LivingWorld, presence: PresenceSystem) -> None:
        self.living = living
        self.presence = presence

    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        living = self.living
        uid = event.entity_id
        # Only a threat's moves change the threat map (a spawn's living data, which
        # may make it one, invalidates it in apply_spawned).
        living.threat_moved(uid)
        if not living.started:
            return
        if event.from_room is None:
            apply_spawned(living, uid)
        if event.to_room is not None:
            self._discover(event.to_room, event)
            if living.world.has_component(uid, PresenceLines):
                # Shown as it is where it arrived, before anyone there looks.
                now = living.engine.clock.game_time
                self.presence.refresh_npc(Evaluation(living, now), uid)

    def _discover(self, room_key: str, event: EntityRelocatedEvent) -> None:
        living = self.living
        world = living.world
        room_id = living.world_service.room_id(room_key)
        site = None if room_id is None else world.try_component(room_id, DiscoverySite)
        if site is None or site.found_by is not None:
            return
        uid = event.entity_id
        finder = world.has_component(uid, PlayerCharacter) or (
            world.has_component(uid, NPC) and not living.is_threat(uid)
        )
        if finder:
            site.found_by = str(uid)
            site.found_at = living.engine.clock.game_time

    def on_destroyed(self, event: EntityDestroyedEvent) -> None:
        if self.living.may_be_threat(event.entity_id):
            self.living.invalidate_threats()
        self.living.memory.forget_npc(event.entity_id)


#: Where the reputation section sits in ``score`` (after the rules layer's sections).
REPUTATION_ORDER = 50


class LivingPlugin(ContentPack):
    """Provide ``LivingWorld`` and ``MemoryService``, declare ``npc_memories``, add the
    Schedule, Autonomy, SocialFabric (phase living) and memory-flush (phase
    persistence) systems and the ``@living`` builder command. Packs then add living data with
    ``load_living_data(ctx, path)`` (requiring this plugin, or the ``stdlib`` group)."""

    name = "stdlib.living"
    requires = (WorldPlugin,)
    provides = (LivingWorld, MemoryService)
    description = "Needs, goals, relationships, factions, memory, gossip and schedules."

    def validate_data(self, ctx: PackContext) -> list[str]:
        """The references of every pack's living data, judged against the packs' world
        data before anything is built (``maid check-pack``); start-up judges them
        again against the world it built."""
        living = ctx.service(LivingWorld)
        data = ctx.engine.services.try_get(WorldData)
        if data is None:
            return []
        refs = data_refs(data)
        factions = {f for d in living.pending_data for f in d.spec.factions}
        problems: list[str] = []
        for pending in living.pending_data:
            found = check(living, pending, {}, refs, factions_known=factions)
            problems += with_entry_lines(pending, found)
        return problems

    def register(self, ctx: PackContext) -> None:
        living = LivingWorld(ctx.engine)
        ctx.provide(LivingWorld, living)
        ctx.provide(MemoryService, living.memory)
        ctx.add_registry(living.data_claims)
        ctx.ensure_collection(COLLECTION)
        ctx.add_system(ScheduleSystem(living))
        ctx.add_system(AutonomySystem(living))
        ctx.add_system(SocialFabricSystem(living))
        ctx.add_system(RegroupSystem(living.clearances))
        presence = PresenceSystem(living.presence)
        ctx.add_system(presence)
        ambient = AmbientSystem(Ambient(living))
        ctx.add_system(ambient)
        ctx.service(SpawnGates).add(living.respawn_held)
        ctx.service(PackReloader).add_step(LivingReload(living))
        ctx.add_system(MemoryFlushSystem(living.memory))
        ctx.add_commands(COMMANDS)
        reputation = ReputationSection(living.factions)
        ctx.service(ScoreSheet).add("reputation", reputation, order=REPUTATION_ORDER)
        handlers = _Handlers(living, presence)
        ctx.subscribe(EntityRelocatedEvent, handlers.on_relocated)
        ctx.subscribe(EntityDestroyedEvent, handlers.on_destroyed)
        ctx.subscribe(EntityRelocatedEvent, ambient.on_relocated)
        ctx.subscribe(EntityDiedEvent, ambient.on_died)
        ctx.subscribe(ThreatObservedEvent, ambient.on_threat)
        ctx.subscribe(GoalStatusChangedEvent, ambient.on_goal)
