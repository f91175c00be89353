"""The per-room record of a narrated room.

The live values of the world state are not here: they sit on the entities they
describe (``NarratedRoomState`` on the room, ``NarratedPlayerStats`` on characters,
``NarratedNPCStats`` on NPCs; see :mod:`maid_stdlib.worldstate.components`). This
component holds what the turn machinery needs between turns and across restarts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maid_engine.ecs import Component


@dataclass
class NarratedRoom(Component):
    """Marks a room as narrated and keeps its turn bookkeeping.

    ``schema_ref`` names where the schema came from (``ironvale:narrated/camp.yaml``,
    or ``ironvale:cellar#inline``); the schema itself is read from the pack's data at
    start-up, so editing the file takes effect on the next start. ``action_index``
    counts this room's turns: cooldowns are measured in it, so it only ever steps
    back through undo and retry. ``last_turn`` is the key of the room's newest active
    turn in the ``narrated_turns`` collection. ``spawned`` lists the schema NPCs this
    room created, so one killed in play is not brought back on the next start.
    """

    component_name = "NarratedRoom"

    schema_ref: str = ""
    scope: str = ""
    action_index: int = 0
    last_turn: str = ""
    turns_stored: int = 0
    spawned: list[str] = field(default_factory=list)
