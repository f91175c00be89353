"""StoryPlugin (``stdlib.story``): the story-signal layer."""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.story import conflict, deeds, drama, missing
from maid_stdlib.story.commands import COMMANDS
from maid_stdlib.story.detectors import StoryDetectors
from maid_stdlib.story.facts import FactBook, FactSetEvent
from maid_stdlib.story.news import make_news
from maid_stdlib.story.system import COLLECTION, StorySignalSystem

__all__ = ["StoryPlugin", "builtin_detectors"]


def builtin_detectors() -> StoryDetectors:
    registry = StoryDetectors()
    for detector in (*conflict.BUILTIN, *drama.BUILTIN, *missing.BUILTIN, *deeds.BUILTIN):
        registry.add(detector)
    return registry


class StoryPlugin(ContentPack):
    """Provide ``StoryDetectors`` (the pluggable detector registry packs add to),
    declare ``story_situations``, add the StorySignalSystem (phase story) and
    ``@story``."""

    name = "stdlib.story"
    requires = (LivingPlugin,)
    provides = (StoryDetectors, FactBook)
    description = "Story signals: detectors of conflicts and drama in the living world."

    def register(self, ctx: PackContext) -> None:
        detectors = builtin_detectors()
        ctx.provide(StoryDetectors, detectors)
        facts = FactBook(ctx.engine)
        ctx.provide(FactBook, facts)
        ctx.subscribe(FactSetEvent, make_news(ctx.engine, facts))
        ctx.add_registry(detectors.claims)
        ctx.ensure_collection(COLLECTION)
        ctx.add_system(StorySignalSystem(ctx.service(LivingWorld), detectors))
        ctx.add_commands(COMMANDS)
