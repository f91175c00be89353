"""Writing a turn's results: the views undo and retry restore through, and waiting
for the commit that stores a turn together with everything the world changed."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from uuid import UUID

from maid_engine.ports import WorldPort
from maid_stdlib.narration.rooms import RoomSetup
from maid_stdlib.narration.turnlog import TurnRecord
from maid_stdlib.worldstate import ComponentStatView, DictStatView, Snapshot, StatView, restore

log = logging.getLogger("maid.narration")


def snapshot_view(snapshot: Snapshot) -> StatView:
    """A detached view holding a snapshot's values (what a retry's prompt shows)."""
    view = DictStatView()
    restore(view, snapshot)
    return view


def record_view(engine: WorldPort, setup: RoomSetup, room_id: UUID, record: TurnRecord) -> StatView:
    """The view a stored turn's snapshot was taken through: same actor, same NPCs."""
    npcs = {npc_id: UUID(uid) for npc_id, uid in record.npcs.items()}
    return ComponentStatView(
        engine.world,
        room_id,
        UUID(record.actor),
        record.scope or setup.scope,
        npcs,
        bindings=setup.bindings,
        room_key=setup.key,
    )


async def store(pending: Awaitable[int], records: list[TurnRecord]) -> None:
    """Wait for the commit that stores a turn's records (``TurnLog.commit``)."""
    try:
        await pending
    except Exception:
        # The turn happened and players saw it. Its changes went back to the world
        # with the rest of the commit, and the next checkpoint writes them; only the
        # record is lost.
        log.exception("narrated turn %s could not be stored", records[0].key)
