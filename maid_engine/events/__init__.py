"""Typed events and the EventBus."""

from maid_engine.events.bus import Event, EventBus
from maid_engine.events.core import (
    CharacterConnectedEvent,
    CharacterDisconnectedEvent,
    EngineStartedEvent,
    EngineStoppingEvent,
    EntityDestroyedEvent,
    ShutdownRequestedEvent,
)

__all__ = [
    "CharacterConnectedEvent",
    "CharacterDisconnectedEvent",
    "EngineStartedEvent",
    "EngineStoppingEvent",
    "EntityDestroyedEvent",
    "Event",
    "EventBus",
    "ShutdownRequestedEvent",
]
