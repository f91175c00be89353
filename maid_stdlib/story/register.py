"""``register_story(ctx)``: the story-signal layer (call after ``register_living``)."""

from __future__ import annotations

from maid_engine.content import PackContext
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.story import conflict, drama
from maid_stdlib.story.commands import COMMANDS
from maid_stdlib.story.detectors import StoryDetectors
from maid_stdlib.story.system import COLLECTION, StorySignalSystem


def builtin_detectors() -> StoryDetectors:
    registry = StoryDetectors()
    for detector in (*conflict.BUILTIN, *drama.BUILTIN):
        registry.add(detector)
    return registry


def register_story(ctx: PackContext) -> StorySignalSystem:
    """Provide ``StoryDetectors`` (the pluggable detector registry), declare
    ``story_situations``, add the StorySignalSystem (phase story) and ``@story``."""
    living = ctx.engine.services.try_get(LivingWorld)
    if living is None:
        raise ctx.error("register_story needs register_living to have run first")
    detectors = builtin_detectors()
    ctx.provide(StoryDetectors, detectors)
    ctx.ensure_collection(COLLECTION)
    system = StorySignalSystem(living, detectors)
    ctx.add_system(system)
    ctx.add_commands(COMMANDS)
    return system
