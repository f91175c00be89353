"""WorldPlugin (``stdlib.world``): the game-agnostic world layer.

Services it provides: ``WorldService`` (rooms, positions, movement, paths),
``WorldData`` (world data of packs and the extension registry), ``ScoreSheet``,
``WhoList`` (what ``who`` shows besides names), ``LookExtras`` (what
``look <target>`` shows below the description) and
``CharacterFactory``. Commands: look, the directions, go, say, emote, tell, who, title, describe,
score, @goto, @who, @shutdown, @reload (``PackReloader``, also a service).
``look <target>`` shows below the description), ``GmcpFeeds`` (GMCP packages
sent on change; the GmcpSystem sends them once per tick) and ``CharacterFactory``.
Commands: look, the directions, go, say, emote, tell, who, title, describe, score,
@goto, @who, @shutdown.
"""

from __future__ import annotations

import logging

from maid_engine.accounts.components import CharacterFactory
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import (
    CharacterConnectedEvent,
    CharacterDisconnectedEvent,
    EngineStartedEvent,
    EntityDestroyedEvent,
)
from maid_stdlib.world import admin, info, movement, pager, reload, social, who
from maid_stdlib.world.characters import WorldCharacterFactory
from maid_stdlib.world.components import NPC, Area, Away, Item, Room
from maid_stdlib.world.crowd import CrowdSystem
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.gmcp import GmcpFeeds, GmcpRelay, GmcpSystem
from maid_stdlib.world.info import ScoreSheet, default_score_sheet
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import LookExtras
from maid_stdlib.world.reload import PackReloader, PackWatcher, PackWatchSystem
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import SpawnGates
from maid_stdlib.world.who import WhoList

__all__ = ["WorldPlugin"]

#: Where ``maid run --watch`` reports its reloads (the console, with the log).
watch_log = logging.getLogger("maid.watch")


class WorldPlugin(ContentPack):
    name = "stdlib.world"
    version = "0.1.0"
    provides = (
        WorldService,
        WorldData,
        ScoreSheet,
        WhoList,
        LookExtras,
        WorldCharacterFactory,
        SpawnGates,
        PackReloader,
        GmcpFeeds,
    )
    description = "Rooms, movement, talking, help and the data format of world packs."

    def register(self, ctx: PackContext) -> None:
        engine = ctx.engine
        ws = WorldService(engine)
        factory = WorldCharacterFactory(engine, ws)
        ctx.provide(WorldService, ws)
        data = WorldData()
        ctx.provide(WorldData, data)
        ctx.add_registry(data.claims)
        ctx.provide(ScoreSheet, default_score_sheet())
        listing = WhoList(engine)
        listing.add_flag("afk", lambda uid: engine.world.has_component(uid, Away), "AFK")
        ctx.provide(WhoList, listing)
        ctx.provide(LookExtras, LookExtras())
        # CharacterFactory is a Protocol; the service registry keys by the type object.
        ctx.provide(CharacterFactory, factory)  # type: ignore[type-abstract]
        ctx.provide(WorldCharacterFactory, factory)
        ctx.provide(SpawnGates, SpawnGates())
        reloader = PackReloader(engine)
        ctx.provide(PackReloader, reloader)
        if engine.settings.watch:
            # Development only: reload a pack when its files change.
            ctx.add_system(PackWatchSystem(PackWatcher(reloader, watch_log.info)))

        ctx.subscribe(EntityDestroyedEvent, ws.on_destroyed)

        # After every pack built its entities and systems started: one full rebuild
        # catches entities created without going through the service.
        def started(_event: EngineStartedEvent) -> None:
            ws.rebuild_index()
            ws.warm()

        ctx.subscribe(EngineStartedEvent, started)
        feeds = GmcpFeeds(engine.sessions)
        ctx.provide(GmcpFeeds, feeds)
        relay = GmcpRelay(ws, feeds)
        ctx.add_system(GmcpSystem(feeds, relay.tell_presence))
        ctx.add_system(CrowdSystem(ws.announcements, listing.next_tick))
        factory.gmcp = feeds
        ctx.subscribe(EntityRelocatedEvent, relay.on_relocated)
        ctx.subscribe(EntityDiedEvent, relay.on_died)
        ctx.subscribe(CharacterConnectedEvent, factory.on_connected)
        ctx.subscribe(CharacterDisconnectedEvent, factory.on_disconnected)
        ctx.subscribe(CharacterConnectedEvent, relay.on_presence)
        ctx.subscribe(CharacterDisconnectedEvent, relay.on_presence)

        for group in (
            movement.COMMANDS,
            social.COMMANDS,
            who.COMMANDS,
            info.COMMANDS,
            admin.COMMANDS,
            pager.PAGER_COMMANDS,
            reload.COMMANDS,
        ):
            ctx.add_commands(group)

        world = engine.world
        mssp = engine.sessions.mssp_providers
        mssp["AREAS"] = lambda: str(world.count(Area))
        mssp["ROOMS"] = lambda: str(world.count(Room))
        mssp["MOBILES"] = lambda: str(world.count(NPC))
        mssp["OBJECTS"] = lambda: str(world.count(Item))

    async def on_world_loaded(self, ctx: PackContext) -> None:
        # Persisted entities are in the world now; world packs spawn after this.
        ctx.service(WorldService).rebuild_index()
