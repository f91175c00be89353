"""Writing a turn's results: the views undo and retry restore through, and the one
transaction that stores a turn together with the entities it touched."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from uuid import UUID

from maid_engine.ecs import Component
from maid_engine.ecs.component import dump_component
from maid_engine.store import EntityChangeSet
from maid_stdlib.narration.rooms import RoomSetup
from maid_stdlib.narration.turnlog import TurnRecord
from maid_stdlib.worldstate import ComponentStatView, DictStatView, Snapshot, StatView, restore

if TYPE_CHECKING:
    from maid_engine.ports import Host
    from maid_stdlib.narration.service import NarrationService

log = logging.getLogger("maid.narration")


def snapshot_view(snapshot: Snapshot) -> StatView:
    """A detached view holding a snapshot's values (what a retry's prompt shows)."""
    view = DictStatView()
    restore(view, snapshot)
    return view


def record_view(engine: Host, setup: RoomSetup, room_id: UUID, record: TurnRecord) -> StatView:
    """The view a stored turn's snapshot was taken through: same actor, same NPCs."""
    npcs = {npc_id: UUID(uid) for npc_id, uid in record.npcs.items()}
    return ComponentStatView(
        engine.world, room_id, UUID(record.actor), record.scope or setup.scope, npcs
    )


def entity_changes(
    engine: Host, uids: Iterable[UUID]
) -> tuple[EntityChangeSet, list[tuple[UUID, Component]]]:
    """The whole entities a turn touched, for the turn's own transaction.

    Whole, not just the narration components: a character created since the last
    checkpoint must never reach the database as a row holding nothing but its stats.
    """
    world = engine.world
    upserts: dict[UUID, dict[str, dict[str, Any]]] = {}
    written: list[tuple[UUID, Component]] = []
    for uid in dict.fromkeys(uids):
        if not world.entity_exists(uid) or not world.is_persistent(uid):
            continue
        found = [c for c in world.components_of(uid) if c.persist]
        upserts[uid] = {c.component_name: dump_component(c) for c in found}
        written.extend((uid, c) for c in found[:1])
    return EntityChangeSet(upserts=upserts), written


async def store(
    svc: NarrationService,
    records: list[TurnRecord],
    changes: EntityChangeSet,
    written: list[tuple[UUID, Component]],
) -> None:
    try:
        await svc.log.write(*records, entities=changes)
    except Exception:
        # The turn happened and players saw it; the checkpoint still saves the values.
        log.exception("narrated turn %s could not be stored", records[0].key)
    # A checkpoint that collected these entities before the turn may land after this
    # write; marking them dirty again makes the next checkpoint write today's values.
    for uid, component in written:
        svc.engine.world.modified(uid, component)
