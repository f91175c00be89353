"""Cleared threats stay cleared until their faction regroups.

When players clear a threat group of a faction ("threat:bandits:ironvale:old_trade_road",
the quest consequence that says so), the living world records it here. While it
is recorded, members of that faction do not come back to that place: a rules
layer asks :meth:`Clearances.holds` before it respawns one (plain creatures, who
belong to no faction, respawn as before). The faction regroups by the world's own
rules: ``regroup_days`` after the clearing (per faction, in living data), with a
rumour spread ``regroup_warning_hours`` before (gossip to whoever knew of the
clearing, and a :class:`ThreatRegroupingEvent` the story layer turns into a
signal); then the record is dropped and the held respawns come due.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol
from uuid import UUID

from maid_engine.ecs import Component, System, World
from maid_engine.events import Event
from maid_stdlib.living import gossip
from maid_stdlib.living.registries import FactionDef
from maid_stdlib.text.place import with_article
from maid_stdlib.world.components import data_uuid
from maid_stdlib.world.service import WorldService

#: The entity holding the record (one per world).
CLEARANCES_ID = data_uuid("stdlib", "living", "cleared_threats")
#: Confidence of the rumour that a faction is regrouping ("... That is the word, anyway.").
RUMOUR_CONFIDENCE = 0.6


@dataclass
class ClearedThreat:
    key: str
    #: Faction key ("bandits") and the place (area key, or a room key).
    source: str
    place: str
    cleared_at: float
    #: Game time the faction is back; None: never by itself.
    regroup_at: float | None = None
    warn_at: float | None = None
    warned: bool = False


@dataclass
class ClearedThreats(Component):
    component_name = "ClearedThreats"
    threats: dict[str, ClearedThreat] = field(default_factory=dict)


@dataclass
class ThreatRegroupingEvent(Event):
    """A cleared faction is gathering again at ``place`` (due back at ``regroup_at``)."""

    threat_key: str
    source: str
    place: str
    regroup_at: float
    #: Who heard the rumour first.
    told: list[UUID] = field(default_factory=list)


@dataclass
class ThreatRegroupedEvent(Event):
    """The faction is free to come back: its held respawns come due."""

    threat_key: str
    source: str
    place: str


def split_threat_key(key: str) -> tuple[str, str] | None:
    """ "threat:bandits:ironvale:old_trade_road" -> ("bandits", "ironvale:old_trade_road")."""
    kind, _, rest = key.partition(":")
    source, _, place = rest.partition(":")
    if kind != "threat" or not source or not place:
        return None
    return source, place


class ClearanceView(Protocol):
    """What the record reads of the living world (``LivingWorld``)."""

    @property
    def world(self) -> World: ...

    @property
    def world_service(self) -> WorldService: ...

    @property
    def factions(self) -> dict[str, FactionDef]: ...

    def template_factions(self, template: str) -> list[str]: ...

    def source_name(self, source: str) -> str: ...

    def place_name(self, rooms: list[str]) -> str: ...


class Clearances:
    """The record of cleared threats, on :data:`CLEARANCES_ID`."""

    def __init__(self, living: ClearanceView) -> None:
        self.living = living

    def _record(self, create: bool = False) -> ClearedThreats | None:
        world = self.living.world
        record = world.try_component(CLEARANCES_ID, ClearedThreats)
        if record is None and create:
            record = ClearedThreats()
            if world.entity_exists(CLEARANCES_ID):
                world.add_component(CLEARANCES_ID, record)
            else:
                world.create_entity(record, entity_id=CLEARANCES_ID)
        return record

    def all(self) -> list[ClearedThreat]:
        record = self._record()
        return list(record.threats.values()) if record is not None else []

    def get(self, key: str) -> ClearedThreat | None:
        record = self._record()
        return record.threats.get(key) if record is not None else None

    def clear(self, key: str, now: float) -> ClearedThreat | None:
        """Record ``key`` as cleared by players at ``now``. Only a faction's threats
        are held (None for anything else: plain creatures respawn as before)."""
        parts = split_threat_key(key)
        if parts is None:
            return None
        source, place = parts
        faction = self.living.factions.get(source)
        if faction is None:
            return None
        regroup_at = warn_at = None
        if faction.regroup_days is not None:
            regroup_at = now + faction.regroup_days * 86400.0
            warn_at = max(now, regroup_at - faction.regroup_warning_hours * 3600.0)
        record = self._record(create=True)
        assert record is not None
        entry = ClearedThreat(key, source, place, now, regroup_at, warn_at)
        record.threats[key] = entry
        self.living.world.modified(CLEARANCES_ID, record)
        return entry

    def restore(self, entry: ClearedThreat) -> None:
        record = self._record(create=True)
        assert record is not None
        record.threats[entry.key] = entry
        self.living.world.modified(CLEARANCES_ID, record)

    def forget(self, key: str) -> bool:
        record = self._record()
        if record is None or key not in record.threats:
            return False
        del record.threats[key]
        self.living.world.modified(CLEARANCES_ID, record)
        return True

    def holds(self, template: str, room: str) -> bool:
        """Whether an NPC of ``template`` may not come back to ``room`` yet."""
        record = self._record()
        if record is None or not record.threats:
            return False
        factions = self.living.template_factions(template)
        if not factions:
            return False
        place = self.living.world_service.area_of(room) or room
        return any(f"threat:{f}:{place}" in record.threats for f in factions)

    def place_text(self, entry: ClearedThreat) -> str:
        ws = self.living.world_service
        area = ws.area(entry.place)
        if area is not None:
            return with_article(area.name)
        return self.living.place_name([entry.place])


class RegroupSystem(System):
    """Spreads the rumour of a regrouping faction, then lets it come back.

    Cheap when nothing was cleared (one component lookup a tick)."""

    phase = "living"
    after = ("SocialFabricSystem",)

    def __init__(self, clearances: Clearances) -> None:
        super().__init__()
        self.clearances = clearances

    async def update(self, delta: float) -> None:
        entries = self.clearances.all()
        if not entries:
            return
        now = self.engine.clock.game_time
        for entry in entries:
            if entry.regroup_at is None:
                continue
            if not entry.warned and entry.warn_at is not None and now >= entry.warn_at:
                self._rumour(entry, now)
            if now >= entry.regroup_at:
                self.clearances.forget(entry.key)
                self.engine.events.emit(ThreatRegroupedEvent(entry.key, entry.source, entry.place))

    def _rumour(self, entry: ClearedThreat, now: float) -> None:
        living = self.clearances.living
        world = living.world
        entry.warned = True
        record = world.try_component(CLEARANCES_ID, ClearedThreats)
        if record is not None:
            world.modified(CLEARANCES_ID, record)
        # Whoever heard of the clearing hears first that it will not last.
        tellers = sorted(
            uid
            for uid, known in world.each(gossip.KnownGossip)
            if any(i.subject == entry.key for i in known.items.values())
        )
        name = living.source_name(entry.source)
        place = self.clearances.place_text(entry)
        told = gossip.inject(
            world,
            tellers,
            f"{entry.key}:regrouping",
            f"Travellers speak of {name} gathering again near {place}.",
            now,
            subject=entry.key,
            confidence=RUMOUR_CONFIDENCE,
            tags=["threat_rumour", entry.source],
            source="rumour",
        )
        assert entry.regroup_at is not None
        self.engine.events.emit(
            ThreatRegroupingEvent(entry.key, entry.source, entry.place, entry.regroup_at, told)
        )
