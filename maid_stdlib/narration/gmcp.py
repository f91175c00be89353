"""GMCP ``World.State``: what ``state`` shows in a narrated room, for client UIs.

Sent when it changed: on entering a narrated room, after a turn, an undo or a
builder's edit, or a change made any other way, since the characters in narrated
rooms are checked every tick and sent only what differs. Leaving the room sends
``{}`` once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from uuid import UUID

from maid_stdlib.narration.sheet import state_data
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.gmcp import GmcpFeed, GmcpFeeds

if TYPE_CHECKING:
    from maid_stdlib.narration.service import NarrationService

PACKAGE = "World.State"


def world_state_of(svc: NarrationService, character: UUID) -> dict[str, Any] | None:
    setup = svc.room_of(character)
    return state_data(svc, setup, character) if setup is not None else None


def in_narrated_rooms(svc: NarrationService) -> Iterator[UUID]:
    ws = svc.ws
    for key in svc.rooms:
        yield from ws.characters_in(key)


def add_state_feed(svc: NarrationService, feeds: GmcpFeeds) -> Any:
    """Register the feed; returns the relocation handler that marks who moved."""
    feeds.add(
        GmcpFeed(
            PACKAGE,
            lambda character: world_state_of(svc, character),
            watch=lambda: in_narrated_rooms(svc),
        )
    )
    online = svc.engine.sessions.is_online

    def on_relocated(event: EntityRelocatedEvent) -> None:
        if online(event.entity_id):
            feeds.mark(PACKAGE, [event.entity_id])

    return on_relocated
