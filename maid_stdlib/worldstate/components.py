"""Live world-state values as ECS components on the entities they describe.

* the room entity carries :class:`NarratedRoomState`: ``world.*`` stats, flags,
  milestones and their cooldown records;
* the acting character carries :class:`NarratedPlayerStats`, keyed by a *scope* (the
  scenario or room id the caller picks) so one character can hold stats for several
  narrated rooms without them mixing;
* each NPC entity carries :class:`NarratedNPCStats` with its own stats. They are the
  NPC's, not the room's: a trust gained in one room is the trust every system reads.

:class:`ComponentStatView` presents those components as a :class:`StatView` so the
apply, snapshot and context code never needs to know where a value lives. Dict fields
are mutated in place, so every write reports it with ``World.modified``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import UUID

from maid_engine.ecs import Component, World
from maid_stdlib.worldstate.view import StatValue, StatView, parse_path

C = TypeVar("C", bound=Component)


@dataclass
class NarratedRoomState(Component):
    """World stats, flags and milestones of one narrated room."""

    component_name = "NarratedRoomState"

    world: dict[str, int | float] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)
    milestones: dict[str, int] = field(default_factory=dict)  # id -> action index reached
    last_changed: dict[str, int] = field(default_factory=dict)  # path -> action index


@dataclass
class NarratedPlayerStats(Component):
    """A character's ``player.*`` stats, one block per narrated scope."""

    component_name = "NarratedPlayerStats"

    values: dict[str, dict[str, int | float]] = field(default_factory=dict)  # scope -> stat
    last_changed: dict[str, dict[str, int]] = field(default_factory=dict)  # scope -> stat


@dataclass
class NarratedNPCStats(Component):
    """An NPC's own stats (``npc.<npc_id>.*``).

    Cooldown records are kept per scope because action indices count one room's turns:
    comparing an index from one room with another room's would be meaningless.
    """

    component_name = "NarratedNPCStats"

    npc_id: str = ""
    values: dict[str, int | float] = field(default_factory=dict)
    last_changed: dict[str, dict[str, int]] = field(default_factory=dict)  # scope -> stat


def _room_bucket(room: NarratedRoomState, section: str) -> dict[str, Any]:
    if section == "flags":
        return room.flags
    if section == "milestones":
        return room.milestones
    return room.world


class ComponentStatView(StatView):
    """A :class:`StatView` over the components of one narrated turn.

    ``room``: the room entity; ``actor``: the acting character (``None`` when no one
    acts, then ``player.*`` is not writable); ``scope``: the key of the player's and
    NPCs' blocks; ``npcs``: schema NPC id -> entity. An NPC id without an entity is
    not writable, so changes to it are refused as absent. Missing components are
    created on first write.
    """

    def __init__(
        self,
        world: World,
        room: UUID,
        actor: UUID | None,
        scope: str,
        npcs: Mapping[str, UUID] | None = None,
    ) -> None:
        self.world = world
        self.room = room
        self.actor = actor
        self.scope = scope
        self.npcs = dict(npcs or {})

    # -- component access ------------------------------------------------------------
    def _read(self, entity: UUID | None, ctype: type[C]) -> C | None:
        if entity is None or not self.world.entity_exists(entity):
            return None
        return self.world.try_component(entity, ctype)

    def _write(self, entity: UUID, ctype: type[C], **init: str) -> C:
        found = self.world.try_component(entity, ctype)
        if found is None:
            found = ctype(**init)
            self.world.add_component(entity, found)
        return found

    def _entity(self, section: str, npc: str | None) -> UUID | None:
        if section == "player":
            return self.actor
        if section == "npc":
            return self.npcs.get(npc or "")
        return self.room

    def writable(self, path: str) -> bool:
        section, npc, _ = parse_path(path)
        entity = self._entity(section, npc)
        return entity is not None and self.world.entity_exists(entity)

    # -- values ----------------------------------------------------------------------
    def get(self, path: str) -> StatValue | None:
        section, npc, name = parse_path(path)
        if section == "player":
            player = self._read(self.actor, NarratedPlayerStats)
            return player.values.get(self.scope, {}).get(name) if player else None
        if section == "npc":
            stats = self._read(self.npcs.get(npc or ""), NarratedNPCStats)
            return stats.values.get(name) if stats else None
        room = self._read(self.room, NarratedRoomState)
        if room is None:
            return None
        return _room_bucket(room, section).get(name)

    def set(self, path: str, value: StatValue | None) -> None:
        section, npc, name = parse_path(path)
        entity = self._entity(section, npc)
        if entity is None or not self.world.entity_exists(entity):
            return
        target: dict[str, Any]
        if section == "player":
            player = self._write(entity, NarratedPlayerStats)
            target = player.values.setdefault(self.scope, {})
            owner: Component = player
        elif section == "npc":
            stats = self._write(entity, NarratedNPCStats, npc_id=npc or "")
            target, owner = stats.values, stats
        else:
            room = self._write(entity, NarratedRoomState)
            target, owner = _room_bucket(room, section), room
        if value is None:
            target.pop(name, None)
        else:
            target[name] = value
        self.world.modified(entity, owner)

    def values(self) -> dict[str, StatValue]:
        out: dict[str, StatValue] = {}
        room = self._read(self.room, NarratedRoomState)
        if room is not None:
            out.update({f"world.{k}": v for k, v in room.world.items()})
            out.update({f"flags.{k}": v for k, v in room.flags.items()})
            out.update({f"milestones.{k}": v for k, v in room.milestones.items()})
        player = self._read(self.actor, NarratedPlayerStats)
        if player is not None:
            out.update({f"player.{k}": v for k, v in player.values.get(self.scope, {}).items()})
        for npc_id, entity in self.npcs.items():
            stats = self._read(entity, NarratedNPCStats)
            if stats is not None:
                out.update({f"npc.{npc_id}.{k}": v for k, v in stats.values.items()})
        return out

    # -- cooldown records ------------------------------------------------------------
    def last_changed(self, path: str) -> int | None:
        section, npc, name = parse_path(path)
        if section == "player":
            player = self._read(self.actor, NarratedPlayerStats)
            return player.last_changed.get(self.scope, {}).get(name) if player else None
        if section == "npc":
            stats = self._read(self.npcs.get(npc or ""), NarratedNPCStats)
            return stats.last_changed.get(self.scope, {}).get(name) if stats else None
        room = self._read(self.room, NarratedRoomState)
        return room.last_changed.get(f"{section}.{name}") if room else None

    def set_last_changed(self, path: str, index: int | None) -> None:
        section, npc, name = parse_path(path)
        entity = self._entity(section, npc)
        if entity is None or not self.world.entity_exists(entity):
            return
        owner: Component
        if section == "player":
            player = self._write(entity, NarratedPlayerStats)
            records, key, owner = player.last_changed.setdefault(self.scope, {}), name, player
        elif section == "npc":
            stats = self._write(entity, NarratedNPCStats, npc_id=npc or "")
            records, key, owner = stats.last_changed.setdefault(self.scope, {}), name, stats
        else:
            room = self._write(entity, NarratedRoomState)
            records, key, owner = room.last_changed, f"{section}.{name}", room
        if index is None:
            records.pop(key, None)
        else:
            records[key] = index
        self.world.modified(entity, owner)

    def all_last_changed(self) -> dict[str, int]:
        out: dict[str, int] = {}
        room = self._read(self.room, NarratedRoomState)
        if room is not None:
            out.update(room.last_changed)
        player = self._read(self.actor, NarratedPlayerStats)
        if player is not None:
            records = player.last_changed.get(self.scope, {})
            out.update({f"player.{k}": v for k, v in records.items()})
        for npc_id, entity in self.npcs.items():
            stats = self._read(entity, NarratedNPCStats)
            if stats is not None:
                records = stats.last_changed.get(self.scope, {})
                out.update({f"npc.{npc_id}.{k}": v for k, v in records.items()})
        return out
