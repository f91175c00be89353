"""GMCP messages of the world layer: ``Char.Name`` and ``Room.Info``.

``Room.Info`` follows the IRE convention mapping clients (Mudlet's mapper) read:
``num`` is a stable integer per room and ``exits`` maps directions to the ``num``
of the target room; ``id`` and ``exit_ids`` carry the readable room keys too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.look import name_of

if TYPE_CHECKING:
    from maid_stdlib.world.service import WorldService


def room_num(room_id: UUID) -> int:
    """A positive 31-bit number derived from the room's (deterministic) id."""
    return (room_id.int & 0x7FFFFFFF) or 1


def room_info(ws: WorldService, room_key: str) -> dict[str, Any] | None:
    room = ws.room(room_key)
    room_id = ws.room_id(room_key)
    if room is None or room_id is None:
        return None
    exits = ws.exits_of(room_key)
    nums: dict[str, int] = {}
    for name, target in exits.items():
        target_id = ws.room_id(target)
        if target_id is not None:
            nums[name] = room_num(target_id)
    area = ws.area(room.area) if room.area else None
    return {
        "num": room_num(room_id),
        "id": room_key,
        "name": room.name,
        "area": area.name if area is not None else room.area,
        "area_id": room.area,
        "region": area.region if area is not None else "",
        "environment": "outdoors" if "outdoors" in room.flags else "indoors",
        "exits": nums,
        "exit_ids": exits,
    }


def send_room_info(ws: WorldService, character_id: UUID) -> None:
    room_key = ws.room_key_of(character_id)
    info = room_info(ws, room_key) if room_key is not None else None
    if info is not None:
        ws.engine.sessions.gmcp_to(character_id, "Room.Info", info)


def send_char_name(ws: WorldService, character_id: UUID) -> None:
    name = name_of(ws, character_id)
    ws.engine.sessions.gmcp_to(character_id, "Char.Name", {"name": name, "fullname": name})


#: Placements the connect handler reports itself (after Char.Name, in that order).
SILENT_REASONS = frozenset({"created", "login"})


class GmcpRelay:
    """Sends ``Room.Info`` to a connected character after each of its moves."""

    def __init__(self, ws: WorldService) -> None:
        self.ws = ws

    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        if event.to_room is None or event.reason in SILENT_REASONS:
            return
        if self.ws.engine.sessions.is_online(event.entity_id):
            send_room_info(self.ws, event.entity_id)
