"""OptionsPlugin (``stdlib.options``): ``config`` and what it changes.

Services: ``PromptTokens`` (the ``%x`` tokens of prompt formats; other layers add
theirs) and ``PromptFormatter`` (installed as the prompt provider when the engine
has started, wrapping the provider a layer set). Registered before the world
layer, so a character's colour and page length apply to their connection before
the world shows them the room they log in to.
"""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import CharacterConnectedEvent, EngineStartedEvent
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.options import commands
from maid_stdlib.options.components import PlayerOptions
from maid_stdlib.options.prompt import PromptFormatter, PromptTokens
from maid_stdlib.options.session import apply_options
from maid_stdlib.world.service import WorldService

__all__ = ["OptionsPlugin"]


class TokenHost(WorldPort, ServicesPort, Protocol):
    """What the stdlib's tokens read: the character, and the world index (looked up
    when a prompt is drawn: the world layer registers after this plugin)."""


class StdlibTokens:
    """The stdlib's own prompt tokens: %n the name, %r the room."""

    def __init__(self, engine: TokenHost) -> None:
        self.engine = engine

    def name(self, uid: UUID) -> str | None:
        pc = self.engine.world.try_component(uid, PlayerCharacter)
        return pc.name if pc is not None else None

    def room(self, uid: UUID) -> str | None:
        ws = self.engine.services.try_get(WorldService)
        key = ws.room_key_of(uid) if ws is not None else None
        room = ws.room(key) if ws is not None and key else None
        return room.name if room is not None else None


class OptionsPlugin(ContentPack):
    name = "stdlib.options"
    version = "0.1.0"
    provides = (PromptTokens, PromptFormatter)
    description = "Per-character settings: colour, prompt, page length, brief, auto-exits."

    def register(self, ctx: PackContext) -> None:
        engine = ctx.engine
        tokens = PromptTokens()
        own = StdlibTokens(engine)
        tokens.add("n", "your name", own.name)
        tokens.add("r", "your room", own.room)
        formatter = PromptFormatter(engine, tokens)
        ctx.provide(PromptTokens, tokens)
        ctx.provide(PromptFormatter, formatter)
        ctx.add_commands(commands.COMMANDS)

        def connected(event: CharacterConnectedEvent) -> None:
            session = engine.sessions.session_for(event.character_id)
            if session is not None:
                options = engine.world.try_component(event.character_id, PlayerOptions)
                apply_options(session, options)

        def started(_event: EngineStartedEvent) -> None:
            formatter.install()

        ctx.subscribe(CharacterConnectedEvent, connected)
        ctx.subscribe(EngineStartedEvent, started)
