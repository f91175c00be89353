"""The world: rooms, exits, positions, names, movement, data packs and commands.

Public API (see docs/world.md):

* components: Room, Exits, Position, Describable, Area, NPC, Item (+ DataOrigin,
  SpawnLedger, SeenAs), ``data_uuid``
* events: EntityRelocatedEvent, CharacterCreatedEvent, EntityDiedEvent
* services: WorldService, WorldData (data + extensions), ScoreSheet,
  WorldCharacterFactory (provided as ``CharacterFactory``)
* WorldDataPack: base class of data-driven world packs
"""

from maid_stdlib.world.characters import WorldCharacterFactory
from maid_stdlib.world.components import (
    NPC,
    Area,
    DataOrigin,
    Describable,
    Exits,
    Item,
    Position,
    Room,
    SeenAs,
    SpawnLedger,
    data_uuid,
)
from maid_stdlib.world.datapack import WorldDataPack
from maid_stdlib.world.events import CharacterCreatedEvent, EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.extensions import CheckScope, Extension, ExtensionContext
from maid_stdlib.world.info import ScoreSheet
from maid_stdlib.world.loader import PackData, WorldData
from maid_stdlib.world.schema import Entry
from maid_stdlib.world.service import UnknownRoom, WorldService
from maid_stdlib.world.spawner import spawn_template

__all__ = [
    "NPC",
    "Area",
    "CharacterCreatedEvent",
    "CheckScope",
    "DataOrigin",
    "Describable",
    "EntityDiedEvent",
    "EntityRelocatedEvent",
    "Entry",
    "Exits",
    "Extension",
    "ExtensionContext",
    "Item",
    "PackData",
    "Position",
    "Room",
    "ScoreSheet",
    "SeenAs",
    "SpawnLedger",
    "UnknownRoom",
    "WorldCharacterFactory",
    "WorldData",
    "WorldDataPack",
    "WorldService",
    "data_uuid",
    "spawn_template",
]
