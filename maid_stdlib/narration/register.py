"""Wiring narration into an engine: ``register_narration(ctx)``.

Called from a pack's ``register`` after ``WorldData`` is provided (the stdlib
pack). Safe to call more than once: the second call returns the service already
installed.
"""

from __future__ import annotations

from maid_engine.content import PackContext
from maid_engine.events import EngineStartedEvent, EngineStoppingEvent
from maid_stdlib.narration.commands import COMMANDS, make_fallback
from maid_stdlib.narration.rooms import EXTENSION, NarratedData, apply_narrated, make_check
from maid_stdlib.narration.service import NarrationService
from maid_stdlib.narration.turnlog import COLLECTION
from maid_stdlib.world.loader import WorldData


def register_narration(ctx: PackContext) -> NarrationService:
    """Provide NarrationService, the ``narrated:``
    room extension, the ``narrated_turns`` collection, the commands and the fallback."""
    engine = ctx.engine
    existing = engine.services.try_get(NarrationService)
    if existing is not None:
        return existing
    svc = NarrationService(engine)
    ctx.provide(NarrationService, svc)
    ctx.ensure_collection(COLLECTION)
    data = ctx.service(WorldData)
    if data.extension("room", EXTENSION) is None:
        data.register_extension(
            "room",
            EXTENSION,
            NarratedData,
            apply_narrated,
            check=make_check(engine),
            owner=ctx.pack.name,
        )
    # After every pack built its world (and the stdlib rebuilt the room index).
    ctx.subscribe(EngineStartedEvent, lambda _event: svc.start())
    ctx.subscribe(EngineStoppingEvent, lambda _event: svc.shutdown())
    ctx.add_commands(COMMANDS)
    engine.commands.add_fallback(make_fallback(svc))
    return svc
