"""Player characters: creating them, and bringing them in and out of the world.

The account layer calls :class:`WorldCharacterFactory` (the ``CharacterFactory``
service) for a new character and publishes ``CharacterConnectedEvent`` /
``CharacterDisconnectedEvent``; this module reacts. Characters stay in their room
while offline, but are hidden from ``look``/``who`` (see WorldService.is_visible).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import ClockPort, EventsPort, SessionsPort, WorldPort
from maid_stdlib.world.components import Describable
from maid_stdlib.world.events import CharacterCreatedEvent
from maid_stdlib.world.gmcp import GmcpFeeds, send_char_name, send_room_info
from maid_stdlib.world.look import name_of, render_room

if TYPE_CHECKING:
    from maid_stdlib.world.service import WorldService

log = logging.getLogger("maid.world")

#: ``hook(character_id, name, account_id)`` run synchronously inside create_character,
#: so components other layers add are saved with the new character.
CreationHook = Callable[[UUID, str, str], None]


class CharacterFactoryHost(WorldPort, EventsPort, ClockPort, SessionsPort, Protocol):
    """What the character factory uses: the world, the creation event, the wall
    clock (created / last seen) and the session of a character coming in."""


class WorldCharacterFactory:
    def __init__(self, engine: CharacterFactoryHost, ws: WorldService) -> None:
        self.engine = engine
        self.ws = ws
        self.creation_hooks: list[CreationHook] = []
        #: Remembers the Room.Info sent on connect (the world plugin sets it).
        self.gmcp: GmcpFeeds | None = None

    def start_room(self) -> str:
        start = self.ws.start_room
        if start is not None and self.ws.has_room(start):
            return start
        keys = self.ws.room_keys()
        if not keys:
            raise RuntimeError("the world has no rooms to put a character in")
        return keys[0]

    def create_character(self, name: str, account_id: str) -> UUID:
        now = self.engine.clock.wall()
        uid = self.engine.world.create_entity(
            PlayerCharacter(name=name, account_id=account_id, created_at=now, last_seen=now),
            Describable(name=name, short=f"{name} is here.", keywords=[name.lower()]),
        )
        self.ws.place(uid, self.start_room(), reason="created")
        for hook in self.creation_hooks:
            hook(uid, name, account_id)
        self.engine.events.emit(CharacterCreatedEvent(uid, name, account_id))
        return uid

    def ensure_in_world(self, character_id: UUID) -> bool:
        """Put a stashed character (no room, or a room that is gone) in the start room.

        Returns True if it had to be placed.
        """
        room = self.ws.room_key_of(character_id)
        if room is not None and self.ws.has_room(room):
            return False
        self.ws.place(character_id, self.start_room(), reason="login")
        return True

    def on_connected(self, event: CharacterConnectedEvent) -> None:
        uid = event.character_id
        if not self.engine.world.entity_exists(uid):
            log.warning("connected character %s does not exist", uid)
            return
        placed = self.ensure_in_world(uid)
        room = self.ws.room_key_of(uid)
        assert room is not None
        session = self.engine.sessions.session_for(uid)
        if session is not None:
            session.send(render_room(self.ws, room, uid))
            send_char_name(self.ws, uid)
            send_room_info(self.ws, uid, self.gmcp)
        if event.takeover:
            return  # the character never left; only the connection changed
        name = name_of(self.ws, uid)
        verb = "has arrived" if placed else "has entered the game"
        self.ws.announce(room, uid, name, verb)

    def on_disconnected(self, event: CharacterDisconnectedEvent) -> None:
        uid = event.character_id
        room = self.ws.room_key_of(uid)
        if room is None or not self.engine.world.entity_exists(uid):
            return
        self.ws.announce(room, uid, name_of(self.ws, uid), "has left the game")
