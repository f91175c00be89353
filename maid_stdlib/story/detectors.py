"""Pluggable story detectors and the shared view of the world they read.

A detector is ``(DetectionContext) -> Iterable[Detection]``. Each detection names a
stable situation ``key`` and a severity ``band``; the StorySignalSystem turns new
situations (or a changed band) into signals and forgets situations that stop being
detected. Packs add detectors through the ``StoryDetectors`` service::

    ctx.service(StoryDetectors).register("plague", "CRISIS", detect_plague)

Detectors must only iterate entities having the components they care about
(``world.each(GoalsComponent)``), never every entity: they run every few game
minutes over worlds of thousands of NPCs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from uuid import UUID

from maid_stdlib.living.components import (
    FactionMembership,
    SocialInfluence,
    clamp_unit,
)
from maid_stdlib.living.gossip import GossipItem, KnownGossip
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.components import NPC, Area


@dataclass
class Detection:
    signal_type: str
    key: str
    importance: float
    involved_npcs: list[UUID]
    context: dict[str, Any]
    band: str = ""
    involved_players: list[UUID] = field(default_factory=list)


DetectorFunc = Callable[["DetectionContext"], Iterable[Detection]]


@dataclass(frozen=True)
class Detector:
    name: str
    signal_type: str
    func: DetectorFunc


class StoryDetectors:
    """The detector registry (a service)."""

    def __init__(self) -> None:
        self._detectors: dict[str, Detector] = {}

    def register(
        self, name: str, signal_type: str, func: DetectorFunc, *, replace: bool = False
    ) -> None:
        if name in self._detectors and not replace:
            raise ValueError(f"a story detector {name!r} is registered already")
        self._detectors[name] = Detector(name, signal_type, func)

    def unregister(self, name: str) -> bool:
        return self._detectors.pop(name, None) is not None

    def names(self) -> list[str]:
        return list(self._detectors)

    def __iter__(self) -> Iterator[Detector]:
        return iter(list(self._detectors.values()))


class DetectionContext:
    """One detection pass: the living world plus lazily built shared indexes."""

    def __init__(self, living: LivingWorld, now: float) -> None:
        self.living = living
        self.engine = living.engine
        self.world = living.world
        self.ws = living.world_service
        self.memory = living.memory
        self.now = now
        self.threats = living.threat_map()

    # -- names and references ---------------------------------------------------
    def name(self, entity: UUID) -> str:
        return self.living.name_of(entity)

    def room_ref(self, room_key: str) -> str:
        """A room's entity UUID as a string (the key if it has no entity)."""
        uid = self.ws.room_id(room_key)
        return str(uid) if uid is not None else room_key

    def room_name(self, room_key: str) -> str:
        room = self.ws.room(room_key)
        return room.name if room is not None else room_key

    @cached_property
    def _areas(self) -> dict[str, tuple[UUID, str]]:
        return {a.key: (uid, a.name) for uid, a in self.world.each(Area)}

    def place_ref(self, place: str) -> tuple[str, str]:
        """(UUID string, name) of an area key, or of a room key."""
        area = self._areas.get(place)
        if area is not None:
            return str(area[0]), area[1]
        return self.room_ref(place), self.room_name(place)

    def is_npc(self, entity: UUID) -> bool:
        return self.world.entity_exists(entity) and self.world.has_component(entity, NPC)

    def influence(self, entity: UUID) -> float:
        inf = self.world.try_component(entity, SocialInfluence)
        return inf.value if inf is not None else 0.0

    # -- shared indexes ---------------------------------------------------------
    @cached_property
    def statements(self) -> dict[str, list[tuple[UUID, GossipItem]]]:
        """Statement id -> (knower, its copy) for threat and secret statements."""
        out: dict[str, list[tuple[UUID, GossipItem]]] = {}
        for uid, known in self.world.each(KnownGossip):
            for item in known.items.values():
                if "threat" in item.tags or item.is_secret:
                    out.setdefault(item.id, []).append((uid, item))
        return out

    def aware_of(self, threat_key: str) -> list[UUID]:
        """NPCs who know of a threat, first-hand witnesses and the surest first."""
        holders = self.statements.get(threat_key, [])
        ranked = sorted(holders, key=lambda h: (-h[1].confidence, h[1].heard_at, str(h[0])))
        return [uid for uid, _ in ranked if self.world.entity_exists(uid)]

    @cached_property
    def faction_members(self) -> dict[str, list[tuple[UUID, str]]]:
        out: dict[str, list[tuple[UUID, str]]] = {}
        for uid, membership in self.world.each(FactionMembership):
            for faction, role in membership.factions.items():
                out.setdefault(faction, []).append((uid, role))
        return out

    def faction_voices(self, faction: str, limit: int = 2) -> list[UUID]:
        """Who speaks for a faction: its leaders, then its most influential members."""
        members = self.faction_members.get(faction, [])
        ranked = sorted(
            members, key=lambda m: (m[1] != "leader", -self.influence(m[0]), str(m[0]))
        )
        return [uid for uid, _ in ranked[:limit]]


def band_of(value: float, edges: Iterable[float]) -> str:
    """The highest edge ``value`` reaches, as text ("0.5"); "" below them all."""
    reached = [e for e in edges if value >= e]
    return f"{max(reached):g}" if reached else ""


def severity_band(severity: float) -> str:
    """Quartiles: "low", "moderate", "high", "extreme"."""
    return ("low", "moderate", "high", "extreme")[min(3, int(clamp_unit(severity) * 4))]


def uid_list(uids: Iterable[UUID]) -> list[str]:
    return [str(u) for u in uids]
