"""Pluggable story detectors and the shared view of the world they read.

A detector watches the living world and yields a :class:`Detection` per live
situation: a stable ``key`` and a severity ``band``. The StorySignalSystem turns new
situations (or a changed band) into signals and forgets situations that a detector's
pass stops reporting. Packs add detectors through the ``StoryDetectors`` service.

There are two kinds (see docs/living-world.md, "Writing a detector"):

* a **plain** detector, ``(DetectionContext) -> Iterable[Detection]``, runs whole
  within one tick::

      ctx.service(StoryDetectors).register("plague", "CRISIS", detect_plague)

* a **sliced** detector does its pass over several ticks, so that no tick pays for a
  scan of every NPC. It is a generator function: it yields, every few entities, how
  much work it did since its last yield (in *units*: one entity or item visited, a
  few microseconds), and *returns* its detections. The system resumes it while the
  tick's budget of units lasts::

      def detect_plague(ctx: DetectionContext) -> DetectorWork:
          sick: list[UUID] = []
          for chunk in ctx.scan(NeedsComponent):
              sick += [uid for uid, needs in chunk if (needs.value("health") or 1) < 0.2]
              yield len(chunk)
          return [Detection(...)] if len(sick) >= 3 else []

      ctx.service(StoryDetectors).register_sliced("plague", "CRISIS", detect_plague)

Detectors must only iterate entities having the components they care about
(``ctx.scan(GoalsComponent)``), never every entity: worlds have thousands of NPCs.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from operator import itemgetter
from typing import Any, TypeVar, cast
from uuid import UUID

from maid_engine.content import Claims
from maid_engine.ecs import Component
from maid_engine.slicing import run_steps
from maid_stdlib.living.components import (
    FactionMembership,
    SocialInfluence,
    clamp_unit,
)
from maid_stdlib.living.conditions import ThreatMap
from maid_stdlib.living.gossip import GossipItem, KnownGossip
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.components import NPC, Area

C = TypeVar("C", bound=Component)
R = TypeVar("R")
T = TypeVar("T")

#: Entities or items per slice of a sliced scan: small enough that a tick's budget
#: is overshot by little, big enough that resuming generators costs next to nothing.
SLICE = 32
#: Units that building one detection counts (names, references, the context): it
#: costs about as much as visiting this many entities.
DETECTION_UNITS = 8
#: Entities a scan lists (``World.each``, one step that cannot be sliced) per unit
#: it is charged.
LISTED_PER_UNIT = 8


@dataclass
class Detection:
    """What a story detector found: one situation worth a story signal (and maybe a quest).

    A detector (``StoryDetectors.add_from(pack, detector)``) yields these from real
    world state; the story layer turns each into a ``StorySignal`` of ``signal_type``,
    keeping one per ``key`` until the situation resolves.
    """

    signal_type: str
    """The kind of situation ("threat_near", or a pack's own such as "heist_opportunity"); a seed
    type must be registered for it to become a quest.
    """
    key: str
    """Identifies the situation across rounds ("threat:bandits@ironvale:road"): the same key is the
    same situation, noticed once.
    """
    importance: float
    """0..1: how much it matters; the composer weighs seeds by it."""
    involved_npcs: list[UUID]
    """NPC entities in the situation, the one a quest would come from first."""
    context: dict[str, Any]
    """What the seed type's contract needs (its required keys, e.g. ``threat_source``,
    ``location``), resolved against the world when the seed is made.
    """
    band: str = ""
    """An optional strength band ("low", "high" ...): a change of band is news even under the same
    key.
    """
    involved_players: list[UUID] = field(default_factory=list)
    """Player characters involved (a player who started it, one it concerns)."""


#: The signal type of a detector whose detections each carry their own (world facts
#: raising the signal their pack declared); any registered type is accepted from it.
ANY_SIGNAL = "*"

#: Work done in slices: yields units of work done since the last yield, returns R.
Work = Generator[int, None, R]
#: A sliced detector's pass; returning None means "no detections".
DetectorWork = Work[Iterable[Detection] | None]
DetectorFunc = Callable[["DetectionContext"], Iterable[Detection]]
SlicedDetectorFunc = Callable[["DetectionContext"], DetectorWork]


def run_whole(work: Work[R]) -> R:
    """Run sliced work to its end at once and return its result."""
    return run_steps(work)


def _whole(func: DetectorFunc, ctx: DetectionContext) -> DetectorWork:
    detections = list(func(ctx))
    yield from ()  # a generator that never yields: the whole pass in one step
    return detections


@dataclass(frozen=True)
class Detector:
    name: str
    signal_type: str
    func: DetectorFunc | SlicedDetectorFunc
    sliced: bool = False

    def emits(self, signal_type: str) -> bool:
        """Whether its detections may be of ``signal_type`` (a detector registered
        for :data:`ANY_SIGNAL` reports situations whose type the data says)."""
        return self.signal_type in (signal_type, ANY_SIGNAL)

    def work(self, ctx: DetectionContext) -> DetectorWork:
        """One pass of this detector as sliced work (a plain one in a single step)."""
        if self.sliced:
            return cast(SlicedDetectorFunc, self.func)(ctx)
        return _whole(cast(DetectorFunc, self.func), ctx)


class StoryDetectors:
    """The detector registry (a service)."""

    def __init__(self) -> None:
        self._detectors: dict[str, Detector] = {}
        #: Which pack added which detector (a second one under a name is an error);
        #: locked, with every change below, once the engine has started.
        self.claims = Claims("story detector", keys=lambda: self._detectors)

    def register(
        self, name: str, signal_type: str, func: DetectorFunc, *, replace: bool = False
    ) -> None:
        """A plain detector: its pass runs whole within one tick."""
        self.add(Detector(name, signal_type, func), replace=replace)

    def add_from(self, pack: str, detector: Detector) -> None:
        """A pack's detector (from its ``register``): a name taken by the stdlib or
        another pack is a start-up error naming both."""
        self.claims.claim(pack, detector.name, built_in=detector.name in self._detectors)
        self.add(detector)

    def register_sliced(
        self, name: str, signal_type: str, func: SlicedDetectorFunc, *, replace: bool = False
    ) -> None:
        """A sliced detector: a generator function that yields units of work done and
        returns its detections; its pass is spread over ticks."""
        self.add(Detector(name, signal_type, func, sliced=True), replace=replace)

    def add(self, detector: Detector, *, replace: bool = False) -> None:
        self.claims.check_open(detector.name)
        if detector.name in self._detectors and not replace:
            raise ValueError(f"a story detector {detector.name!r} is registered already")
        self._detectors[detector.name] = detector

    def unregister(self, name: str) -> bool:
        self.claims.check_open(name, "remove")
        return self._detectors.pop(name, None) is not None

    def get(self, name: str) -> Detector | None:
        return self._detectors.get(name)

    def names(self) -> list[str]:
        return list(self._detectors)

    def __iter__(self) -> Iterator[Detector]:
        return iter(list(self._detectors.values()))


def chunks(items: Sequence[T], size: int = SLICE) -> Iterator[Sequence[T]]:
    """``items`` in consecutive slices of ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


class DetectionContext:
    """One detection round: the living world plus shared indexes.

    The system makes one context per round and refreshes ``now`` and ``threats`` at
    every tick of it (``refresh``), so they are always the current tick's. The
    shared indexes (``statements``, ``faction_members``, the area table) are built
    when a detector first needs them and kept for the rest of the round: each
    detector read them once per round before, and a round lasts a few game minutes.
    A sliced detector that needs a consistent view for its whole pass (the threat
    map) takes it once, at the start of its pass.
    """

    def __init__(self, living: LivingWorld, now: float) -> None:
        self.living = living
        self.engine = living.engine
        self.world = living.world
        self.ws = living.world_service
        self.memory = living.memory
        self.now = now
        self._threats: ThreatMap | None = None
        self._statements: dict[str, list[tuple[UUID, GossipItem]]] | None = None
        self._faction_members: dict[str, list[tuple[UUID, str]]] | None = None
        #: Units of work done for the detectors beyond what they yield (listing the
        #: entities of a scan); the system charges it to the pass that caused it.
        self.debt = 0
        #: Threat key -> who knows of it, surest first (see ``aware_of_work``).
        self._ranked: dict[str, list[UUID]] = {}
        #: UUID ints of the entities destroyed during the round (a cheap hash).
        self._gone: set[int] = set()

    def refresh(self, now: float) -> None:
        """A new tick of the round: the current game time and threats."""
        self.now = now
        self._threats = None

    @property
    def threats(self) -> ThreatMap:
        """The threats of this tick (asked for lazily: most passes never read them)."""
        if self._threats is None:
            self._threats = self.living.threat_map()
        return self._threats

    # -- sliced iteration -------------------------------------------------------
    def scan(self, ctype: type[C], size: int = SLICE) -> Iterator[list[tuple[UUID, C]]]:
        """The entities having a ``ctype`` when the scan starts, with their
        components, in slices of ``size``. Entities destroyed since the scan started
        are left out of the slices handed out after (see ``forget``)."""
        rows = self.world.each(ctype)  # materialised: the world may change meanwhile
        self.debt += self.world.count(ctype) // LISTED_PER_UNIT
        gone = self._gone
        while chunk := list(islice(rows, size)):
            if gone:
                chunk = [row for row in chunk if row[0].int not in gone]
            yield chunk

    def present(self, rows: Sequence[tuple[UUID, T]]) -> Sequence[tuple[UUID, T]]:
        """``rows`` of entities not destroyed during the round: for rows taken from
        an index that was built earlier in the round."""
        gone = self._gone
        return [row for row in rows if row[0].int not in gone] if gone else rows

    def forget(self, entity: UUID) -> None:
        """``entity`` was destroyed during the round: scans skip it from now on.
        (Checking every entity of a slice for existence would cost more than the
        detectors' own work; the StorySignalSystem calls this on each destruction.)"""
        self._gone.add(entity.int)

    def names(self, entities: Sequence[UUID]) -> Work[list[str]]:
        """Names of ``entities``, in slices (for situations of many NPCs)."""
        out: list[str] = []
        for chunk in chunks(entities):
            out += [self.name(u) for u in chunk]
            yield len(chunk)
        return out

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
    @property
    def statements(self) -> dict[str, list[tuple[UUID, GossipItem]]]:
        """Statement id -> (knower, its copy) for threat and secret statements."""
        return run_whole(self.build_statements())

    def build_statements(self) -> Work[dict[str, list[tuple[UUID, GossipItem]]]]:
        """``statements``, built in slices unless this round has it already."""
        if self._statements is None:
            out: dict[str, list[tuple[UUID, GossipItem]]] = {}
            for chunk in self.scan(KnownGossip):
                for uid, known in chunk:
                    for item in known.items.values():
                        if "threat" in item.tags or item.is_secret:
                            out.setdefault(item.id, []).append((uid, item))
                yield len(chunk)
            self._statements = out
        return self._statements

    def aware_of(self, threat_key: str) -> list[UUID]:
        """NPCs who know of a threat, first-hand witnesses and the surest first."""
        return run_whole(self.aware_of_work(threat_key))

    def aware_of_work(self, threat_key: str) -> Work[list[UUID]]:
        """``aware_of`` in slices. The ranking is kept for the round (threats and
        alliances both ask); who still exists is checked at every call."""
        ranked = self._ranked.get(threat_key)
        if ranked is None:
            holders = (yield from self.build_statements()).get(threat_key, [])
            keyed: list[tuple[tuple[float, float, str], UUID]] = []
            for chunk in chunks(holders):
                keyed += [((-i.confidence, i.heard_at, str(u)), u) for u, i in chunk]
                yield len(chunk)
            keyed.sort(key=itemgetter(0))
            ranked = self._ranked[threat_key] = [uid for _, uid in keyed]
        exists = self.world.entity_exists
        aware: list[UUID] = []
        for part in chunks(ranked):
            aware += [uid for uid in part if exists(uid)]
            yield len(part)
        return aware

    @property
    def faction_members(self) -> dict[str, list[tuple[UUID, str]]]:
        return run_whole(self.build_faction_members())

    def build_faction_members(self) -> Work[dict[str, list[tuple[UUID, str]]]]:
        """``faction_members``, built in slices unless this round has it already."""
        if self._faction_members is None:
            out: dict[str, list[tuple[UUID, str]]] = {}
            for chunk in self.scan(FactionMembership):
                for uid, membership in chunk:
                    for faction, role in membership.factions.items():
                        out.setdefault(faction, []).append((uid, role))
                yield len(chunk)
            self._faction_members = out
        return self._faction_members

    def faction_voices(self, faction: str, limit: int = 2) -> list[UUID]:
        """Who speaks for a faction: its leaders, then its most influential members."""
        return run_whole(self.faction_voices_work(faction, limit))

    def faction_voices_work(self, faction: str, limit: int = 2) -> Work[list[UUID]]:
        """``faction_voices`` in slices."""
        members = (yield from self.build_faction_members()).get(faction, [])
        ranked: list[tuple[tuple[bool, float], UUID]] = []
        for chunk in chunks(members):
            ranked += [
                ((role != "leader", -self.influence(u)), u) for u, role in self.present(chunk)
            ]
            yield len(chunk)
        # The first ``limit`` by (rank, str(uid)) all rank at most the limit-th best
        # rank: only those need their (costly) str; nsmallest(n) is sorted(...)[:n].
        if len(ranked) > limit:
            cut = heapq.nsmallest(limit, [rank for rank, _ in ranked])[-1]
            ranked = [row for row in ranked if row[0] <= cut]
        best = heapq.nsmallest(limit, ranked, key=lambda row: (*row[0], str(row[1])))
        return [uid for _, uid in best]


def band_of(value: float, edges: Iterable[float]) -> str:
    """The highest edge ``value`` reaches, as text ("0.5"); "" below them all."""
    reached = [e for e in edges if value >= e]
    return f"{max(reached):g}" if reached else ""


def severity_band(severity: float) -> str:
    """Quartiles: "low", "moderate", "high", "extreme"."""
    return ("low", "moderate", "high", "extreme")[min(3, int(clamp_unit(severity) * 4))]


def uid_list(uids: Iterable[UUID]) -> list[str]:
    return [str(u) for u in uids]
