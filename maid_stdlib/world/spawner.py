"""Building world entities from validated data.

Data-defined entities get deterministic ids (:func:`data_uuid`), so a restart on a
persisted world finds them instead of duplicating them:

* areas and rooms are geography owned by the data: created if missing, rebuilt
  when their entry changed (the digest in :class:`DataOrigin` differs), otherwise
  left as persisted (runtime changes such as an opened exit survive restarts);
* NPCs and items are spawned once. The pack's :class:`SpawnLedger` remembers them,
  so one that was destroyed in play (a slain bandit) is not spawned again; entries
  added to the data later are spawned on the next start (or reload);
* an NPC or item whose entry changed gets what the pack owns again: its name,
  room line, description, keywords and pronouns, and each extension section whose value
  changed (applied again; unchanged sections leave their state alone). Where it
  is, and everything the world changed since, is kept;
* an entry removed from the data removes what it built: its NPCs and the items
  lying in rooms (an item someone carries stays theirs), and its rooms and areas
  when there is a room to move their occupants to.

The same function builds the world at start-up and applies a reload
(:mod:`maid_stdlib.world.reload`), so a restart and a reload agree.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.content import PackError
from maid_engine.ecs import Component
from maid_engine.ports import WorldPort
from maid_stdlib.world.components import (
    NPC,
    Area,
    DataOrigin,
    Describable,
    Exits,
    Item,
    Position,
    Room,
    SpawnLedger,
    data_uuid,
)
from maid_stdlib.world.extensions import ExtensionContext, ExtensionHost
from maid_stdlib.world.loader import PackData, WorldData
from maid_stdlib.world.schema import AreaSpec, Entry, NpcSpec, RoomSpec, ThingSpec, qualify
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

log = logging.getLogger("maid.world")


@dataclass
class SpawnReport:
    created: int = 0
    refreshed: int = 0
    kept: int = 0
    removed: int = 0
    #: Entities moved out of a removed room (to the fallback room).
    moved: list[UUID] = field(default_factory=list)
    #: Full keys of what changed, for a reload's report: kind -> keys.
    changed: dict[str, list[str]] = field(default_factory=dict)

    def note(self, what: str, kind: str, key: str) -> None:
        self.changed.setdefault(f"{what} {kind}", []).append(key)


#: ``gate(template, room) -> bool``: True holds a respawn of ``template`` at ``room``.
SpawnGate = Callable[[str, str], bool]


class SpawnGates:
    """Service: what may hold a respawn back (a faction driven off by players stays
    away until it regroups). A rules layer that respawns NPCs asks :meth:`held`
    and tries again later; any gate saying True holds it."""

    def __init__(self) -> None:
        self._gates: list[SpawnGate] = []

    def add(self, gate: SpawnGate) -> None:
        self._gates.append(gate)

    def held(self, template: str, room: str) -> bool:
        return any(gate(template, room) for gate in self._gates)


def area_components(entry: Entry) -> list[Component]:
    spec = entry.spec
    assert isinstance(spec, AreaSpec)
    return [Area(key=entry.full_key, name=spec.name, region=spec.region)]


def room_components(entry: Entry) -> list[Component]:
    spec = entry.spec
    assert isinstance(spec, RoomSpec)
    return [
        Room(
            key=entry.full_key,
            name=spec.name,
            description=spec.description,
            area=entry.area,
            flags=list(spec.flags),
            details=dict(spec.details),
        ),
        Exits({name: qualify(entry.pack, t) for name, t in spec.exits.items()}),
    ]


def thing_components(entry: Entry) -> list[Component]:
    spec = entry.spec
    assert isinstance(spec, ThingSpec)
    marker: Component = NPC(entry.full_key) if entry.kind == "npc" else Item(entry.full_key)
    return [
        marker,
        Describable(
            name=spec.name,
            short=spec.short or f"{capitalize(spec.name)} is here.",
            description=spec.description,
            keywords=list(spec.keywords),
            pronouns=spec.pronouns if isinstance(spec, NpcSpec) else "it",
        ),
    ]


def _apply_extensions(
    engine: ExtensionHost,
    data: WorldData,
    entry: Entry,
    uid: UUID,
    only: list[str] | None = None,
) -> None:
    for name, value in entry.extensions.items():
        if only is not None and name not in only:
            continue
        ext = data.extension(entry.kind, name)
        if ext is None:  # validated earlier; only a changed registry gets here
            continue
        try:
            ext.apply(ExtensionContext(engine, uid, entry), value)
        except PackError:
            raise
        except Exception as exc:
            raise PackError(
                entry.pack,
                f"{entry.file}: {entry.kind} {entry.key!r}: {name}: applying it failed: "
                f"{type(exc).__name__}: {exc}",
            ) from exc


def _origin(entry: Entry, instance: str) -> DataOrigin:
    return DataOrigin(
        pack=entry.pack,
        kind=entry.kind,
        key=instance,
        digest=entry.digest,
        extensions=list(entry.extensions),
        sections=entry.section_digests(),
    )


def _refresh_thing(engine: ExtensionHost, data: WorldData, entry: Entry, uid: UUID) -> bool:
    """Give an existing NPC or item what the pack owns of its edited entry (see the
    module docstring); True if anything changed."""
    world = engine.world
    origin = world.try_component(uid, DataOrigin)
    if origin is None:
        return False
    digests = entry.section_digests()
    edited = origin.digest != entry.digest
    changed = [
        name
        for name in entry.extensions
        if name not in origin.extensions or (edited and origin.sections.get(name) != digests[name])
    ]
    if not edited and not changed:
        return False
    if edited:
        fresh = thing_components(entry)[1]
        assert isinstance(fresh, Describable)
        desc = world.try_component(uid, Describable)
        if desc is None:
            world.add_component(uid, fresh)
        else:
            if desc.name != fresh.name:
                world.rename(uid, desc, fresh.name)
            desc.short = fresh.short
            desc.description = fresh.description
            desc.keywords = fresh.keywords
            desc.pronouns = fresh.pronouns
            world.modified(uid, desc)
    _apply_extensions(engine, data, entry, uid, only=changed)
    origin.digest = entry.digest
    origin.extensions = list(entry.extensions)
    origin.sections = digests
    world.modified(uid, origin)
    return True


def _prune(
    engine: ExtensionHost,
    pack: PackData,
    wanted: set[str],
    ledger: SpawnLedger,
    fallback_room: str | None,
    report: SpawnReport,
) -> None:
    """Remove what entries no longer in the data built (see the module docstring)."""
    world = engine.world
    gone_rooms: dict[str, UUID] = {}
    gone_areas: list[UUID] = []
    for uid, origin in list(world.each(DataOrigin)):
        if origin.pack != pack.pack:
            continue
        if origin.kind in ("npc", "item"):
            tag = f"{origin.kind}:{origin.key}"
            if tag in wanted:
                continue
            if origin.kind == "item" and not world.has_component(uid, Position):
                continue  # carried by someone: theirs now
            world.destroy_entity(uid)
            if tag in ledger.spawned:
                ledger.spawned.remove(tag)
            report.removed += 1
            report.note("removed", origin.kind, f"{pack.pack}:{origin.key}")
        elif origin.kind == "room" and origin.key not in pack.entries["room"]:
            gone_rooms[f"{pack.pack}:{origin.key}"] = uid
        elif origin.kind == "area" and origin.key not in pack.entries["area"]:
            gone_areas.append(uid)
    if not gone_rooms and not gone_areas:
        return
    if fallback_room is None or fallback_room in gone_rooms:
        if gone_rooms:
            log.warning(
                "pack %s: rooms no longer in its data were kept (no room to move their "
                "occupants to): %s",
                pack.pack,
                sorted(gone_rooms),
            )
        return
    for uid, pos in list(world.each(Position)):
        if pos.room in gone_rooms:
            pos.room = fallback_room
            world.modified(uid, pos)
            report.moved.append(uid)
    for key, uid in gone_rooms.items():
        world.destroy_entity(uid)
        report.removed += 1
        report.note("removed", "room", key)
    for uid in gone_areas:
        world.destroy_entity(uid)
        report.removed += 1


def _sync_static(
    engine: ExtensionHost,
    data: WorldData,
    entry: Entry,
    comps: list[Component],
    report: SpawnReport,
) -> None:
    world = engine.world
    uid = data_uuid(entry.pack, entry.kind, entry.key)
    if not world.entity_exists(uid):
        world.create_entity(*comps, _origin(entry, entry.key), entity_id=uid)
        _apply_extensions(engine, data, entry, uid)
        report.created += 1
        report.note("new", entry.kind, entry.full_key)
        return
    origin = world.try_component(uid, DataOrigin)
    if origin is not None and origin.digest == entry.digest:
        report.kept += 1
        return
    for comp in comps:
        world.add_component(uid, comp)
    world.add_component(uid, _origin(entry, entry.key))
    _apply_extensions(engine, data, entry, uid)
    report.refreshed += 1
    report.note("changed", entry.kind, entry.full_key)


def _ledger_id(pack: str) -> UUID:
    return data_uuid(pack, "ledger", "spawned")


def _ledger(engine: WorldPort, pack: str) -> SpawnLedger:
    world = engine.world
    uid = _ledger_id(pack)
    ledger = world.try_component(uid, SpawnLedger)
    if ledger is None:
        ledger = SpawnLedger(pack=pack)
        if world.entity_exists(uid):
            world.add_component(uid, ledger)
        else:
            world.create_entity(ledger, entity_id=uid)
    return ledger


def instance_keys(entry: Entry) -> list[str]:
    """ "gundrik" for a single NPC; "bandit_scout#1" ... for ``count: 3``."""
    spec = entry.spec
    assert isinstance(spec, ThingSpec)
    if spec.count == 1:
        return [entry.key]
    return [f"{entry.key}#{i}" for i in range(1, spec.count + 1)]


def spawn_pack(
    engine: ExtensionHost,
    data: WorldData,
    pack: PackData,
    fallback_room: str | None = None,
) -> SpawnReport:
    """Create, refresh or remove the pack's entities; see the module docstring for
    the rules. ``fallback_room``: where occupants of a removed room go (without one,
    removed rooms are kept).

    Positions are set directly and the caller rebuilds the WorldService index once
    afterwards, so no relocation events are emitted for the initial population.
    """
    world = engine.world
    report = SpawnReport()
    for entry in pack.of("area"):
        _sync_static(engine, data, entry, area_components(entry), report)
    for entry in pack.of("room"):
        _sync_static(engine, data, entry, room_components(entry), report)
    ledger = _ledger(engine, pack.pack)
    spawned = set(ledger.spawned)
    added: list[str] = []
    wanted: set[str] = set()
    for kind in ("npc", "item"):
        for entry in pack.of(kind):
            spec = entry.spec
            assert isinstance(spec, ThingSpec)
            if spec.room is None:
                continue  # a template only
            room = qualify(entry.pack, spec.room)
            for instance in instance_keys(entry):
                tag = f"{kind}:{instance}"
                wanted.add(tag)
                uid = data_uuid(entry.pack, kind, instance)
                if tag in spawned or world.entity_exists(uid):
                    if tag not in spawned:
                        added.append(tag)
                    if world.entity_exists(uid) and _refresh_thing(engine, data, entry, uid):
                        report.refreshed += 1
                        report.note("changed", kind, entry.full_key)
                    else:
                        report.kept += 1
                    continue
                world.create_entity(
                    *thing_components(entry),
                    Position(room),
                    _origin(entry, instance),
                    entity_id=uid,
                )
                _apply_extensions(engine, data, entry, uid)
                added.append(tag)
                report.created += 1
                report.note("new", kind, entry.full_key)
    ledger.spawned.extend(added)
    _prune(engine, pack, wanted, ledger, fallback_room, report)
    world.modified(_ledger_id(pack.pack), ledger)
    return report


def spawn_template(
    engine: ExtensionHost,
    template: str,
    room: str | None,
    *,
    kind: str | None = None,
    entity_id: UUID | None = None,
    reason: str = "spawn",
    persistent: bool = True,
) -> UUID:
    """Create a new NPC or item from a data entry ("ironvale:bandit_scout").

    Used by later layers (behaviour systems spawning hostile NPCs, loot). The entity
    gets a fresh id (unless given), the entry's extension components, and is placed
    in ``room`` through the WorldService (emitting a relocation event).
    ``persistent=False`` makes a runtime-only entity that no checkpoint writes.
    """
    data = engine.services.get(WorldData)
    entry = data.template(template, kind)
    if entry is None or entry.kind not in ("npc", "item"):
        raise LookupError(f"no NPC or item template {template!r}")
    uid = engine.world.create_entity(
        *thing_components(entry), entity_id=entity_id, persistent=persistent
    )
    _apply_extensions(engine, data, entry, uid)
    if room is not None:
        engine.services.get(WorldService).place(uid, room, reason)
    return uid
