"""NarrationPlugin (``stdlib.narration``): narrated rooms and their service."""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_engine.events import EngineStartedEvent, EngineStoppingEvent
from maid_stdlib.narration.binders import RelationshipTrust, WorldFact
from maid_stdlib.narration.commands import (
    COMMANDS,
    make_arrival_hint,
    make_fallback,
    make_rescue,
)
from maid_stdlib.narration.gmcp import add_state_feed
from maid_stdlib.narration.rooms import EXTENSION, NarratedData, apply_narrated, make_check
from maid_stdlib.narration.service import NarrationService
from maid_stdlib.narration.turnlog import COLLECTION
from maid_stdlib.story.facts import FactBook
from maid_stdlib.story.register import StoryPlugin
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.gmcp import GmcpFeeds
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.plugin import WorldPlugin
from maid_stdlib.worldstate.binding import Binders

__all__ = ["NarrationPlugin"]


class NarrationPlugin(ContentPack):
    """Provide NarrationService, the ``narrated:`` room extension section, the
    ``narrated_turns`` collection, the commands, the command fallback and GMCP
    ``World.State``."""

    name = "stdlib.narration"
    # The story layer keeps the world facts milestones bind to (and it needs living,
    # whose relationships trust binds to).
    requires = (WorldPlugin, StoryPlugin)
    provides = (NarrationService, Binders)
    description = "Narrated rooms: free-text play in rooms with a stat schema."

    def register(self, ctx: PackContext) -> None:
        engine = ctx.engine
        svc = NarrationService(engine)
        ctx.provide(NarrationService, svc)
        # Where a schema's `bind:` entries live; packs register their own binders here.
        binders = Binders([RelationshipTrust(), WorldFact(ctx.service(FactBook))])
        ctx.provide(Binders, binders)
        ctx.ensure_collection(COLLECTION)
        ctx.service(WorldData).register_extension(
            "room",
            EXTENSION,
            NarratedData,
            apply_narrated,
            check=make_check(engine),
            owner=ctx.pack.name,
        )
        facts = ctx.service(FactBook)

        def started(_event: EngineStartedEvent) -> None:
            svc.start()
            # Only a storyteller makes these facts true: without one, quests that
            # wait on them cannot be finished (and are not offered).
            for name in svc.bound_facts():
                facts.add_source(name, svc.has_storyteller)

        # After every pack built its world (and the world plugin rebuilt the room index).
        ctx.subscribe(EngineStartedEvent, started)
        ctx.subscribe(EngineStoppingEvent, lambda _event: svc.shutdown())
        ctx.add_commands(COMMANDS)
        engine.commands.add_fallback(make_fallback(svc))
        engine.commands.add_rescue(make_rescue(svc))
        ctx.subscribe(EntityRelocatedEvent, make_arrival_hint(svc))
        ctx.subscribe(EntityRelocatedEvent, add_state_feed(svc, ctx.service(GmcpFeeds)))
