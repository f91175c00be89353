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
from maid_stdlib.worldstate.binding import Binder, BindSite, Bound, live_schema, live_stat
from maid_stdlib.worldstate.schema import StatDef, StatSchema
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

    ``bindings`` (canonical path -> :class:`Bound`) sends bound entries to the
    world instead: their values are read and written by the binder, their cooldown
    records stay here, and a private value of the same path left from before the
    binding is ignored.
    """

    def __init__(
        self,
        world: World,
        room: UUID,
        actor: UUID | None,
        scope: str,
        npcs: Mapping[str, UUID] | None = None,
        *,
        bindings: Mapping[str, Bound] | None = None,
        room_key: str = "",
    ) -> None:
        self.world = world
        self.room = room
        self.actor = actor
        self.scope = scope
        self.npcs = dict(npcs or {})
        self.bindings = dict(bindings or {})
        self.room_key = room_key

    # -- bound entries ---------------------------------------------------------------
    def site(self, path: str) -> BindSite:
        section, npc, name = parse_path(path)
        key = f"npc.{npc}.{name}" if section == "npc" else f"{section}.{name}"
        bound = self.bindings.get(key)
        return BindSite(
            world=self.world,
            room=self.room,
            room_key=self.room_key,
            actor=self.actor,
            npc=self.npcs.get(npc or "") if section == "npc" else None,
            name=name,
            path=key,
            target=bound.target if bound is not None else None,
        )

    def _bound(self, path: str) -> Binder | None:
        if not self.bindings:
            return None
        section, npc, name = parse_path(path)
        key = f"npc.{npc}.{name}" if section == "npc" else f"{section}.{name}"
        bound = self.bindings.get(key)
        return bound.binder if bound is not None else None

    def live_schema(self, schema: StatSchema) -> StatSchema:
        live: dict[str, StatDef] = {}
        for target in schema.stat_targets():
            bound = self.bindings.get(target.path)
            if bound is None or target.stat is None or not self.writable(target.path):
                continue
            binder = bound.binder
            bounds = binder.limits(self.site(target.path))
            if bounds is not None:
                live[target.path] = live_stat(target.stat, bounds, binder.relative_bands)
        return live_schema(schema, live)

    def undo_blocked(self, paths: list[str]) -> list[str]:
        out: list[str] = []
        for path in paths:
            binder = self._bound(path)
            if binder is not None and self.writable(path):
                reason = binder.undo_blocked(self.site(path))
                if reason and reason not in out:
                    out.append(reason)
        return out

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
        if entity is None or not self.world.entity_exists(entity):
            return False
        binder = self._bound(path)
        return binder is None or binder.writable(self.site(path))

    # -- values ----------------------------------------------------------------------
    def get(self, path: str) -> StatValue | None:
        binder = self._bound(path)
        if binder is not None:
            return binder.get(self.site(path)) if self.writable(path) else None
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
        binder = self._bound(path)
        if binder is not None:
            if self.writable(path):
                binder.set(self.site(path), value)
            return
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
        for path in self.bindings:
            # The world's value, never a private one left from before the binding.
            out.pop(path, None)
            value = self.get(path)
            if value is not None:
                out[path] = value
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
