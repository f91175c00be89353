"""ThreatFacts: the threats part of :class:`~maid_stdlib.questgen.facts.WorldFacts`.

Which living, hostile entities stand in a place and what names them: the living
layer's threat map, the Hostile markers, and providers a rules layer adds (a
classic RPG's hostile flag). Kept apart from the rest of the facts because it
has its own caches: the providers' answers (asked once per game time, and kept
with what was derived from them while each provider returns the very same
tuple) and, inside :meth:`ThreatFacts.steady`, the threats of each place.
Whether one entity is a threat is asked of the providers' checks instead, when
each has one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from uuid import UUID

from maid_engine.ports import WorldPort
from maid_stdlib.living.conditions import ThreatProvider
from maid_stdlib.living.facts import Hostile
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.world.components import Describable

if TYPE_CHECKING:
    from maid_engine.ecs import World
    from maid_stdlib.living.service import LivingWorld
    from maid_stdlib.world.service import WorldService

__all__ = ["ThreatFacts"]

#: (entity, the source it is a threat of)
Pair = tuple[UUID, str]


class ThreatFacts:
    """Mixed into WorldFacts, which supplies the plumbing declared below."""

    if TYPE_CHECKING:
        engine: WorldPort

        @property
        def ws(self) -> WorldService: ...
        @property
        def living(self) -> LivingWorld | None: ...
        @property
        def now(self) -> float: ...
        def is_alive(self, entity: UUID | None) -> bool: ...
        def room_of(self, entity: UUID | None) -> str | None: ...
        def faction_name(self, faction: str) -> str: ...

    def _init_threats(self) -> None:
        #: Extra ``(world) -> [(entity, source)]`` threats the living layer does not
        #: know of (a rules layer's hostile flag); merged with its threat map.
        self.threat_providers: list[ThreatProvider] = []
        #: provider -> ``(world, entity) -> bool``: whether it would name ``entity``.
        #: When every provider has one, ``is_threat`` asks them about the one
        #: entity instead of gathering everything they name (a walk of every
        #: hostile, again after each kill or spawn anywhere).
        self.threat_checks: dict[ThreatProvider, Callable[[World, UUID], bool]] = {}
        #: (game time, each provider's answer then, [(entity, source)] they named,
        #: their ids): see ``_provider_pairs``
        self._threat_cache: (
            tuple[float, list[Iterable[Pair]], list[Pair], set[UUID] | None] | None
        ) = None
        #: (pairs, their entities): see ``_provider_entities``
        self._provider_index: tuple[list[tuple[UUID, str]], list[UUID]] | None = None
        #: (source, rooms, limit) -> threats, inside ``steady`` only
        self._threats_memo: dict[tuple[str | None, tuple[str, ...], int | None], list[UUID]] | (
            None
        ) = None

    def threats(self, source: str | None, rooms: list[str], limit: int | None = None) -> list[UUID]:
        """Living, hostile entities in ``rooms`` whose threat source matches ``source``
        (the first ``limit`` of them, if given).

        Hostility comes from the living layer's threat map (Hostile markers, hostile
        factions, providers added by rules layers); without a living layer, from the
        Hostile markers alone. Inside :meth:`steady` answers are remembered.
        """
        memo = self._threats_memo
        if memo is None:
            return self._threats(source, rooms, limit)
        key = (source, tuple(rooms), limit)
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._threats(source, rooms, limit)
        return list(found)

    @contextmanager
    def steady(self) -> Iterator[None]:
        """A stretch of reading in which the world does not change (one signal's
        evaluation and composition): the threats of a place are looked up once.
        Nested uses share the outermost one's answers."""
        if self._threats_memo is not None:
            yield
            return
        self._threats_memo = {}
        try:
            yield
        finally:
            self._threats_memo = None

    def _threats(self, source: str | None, rooms: list[str], limit: int | None) -> list[UUID]:
        wanted = topic_tokens(source)
        room_set = set(rooms)
        pairs: list[tuple[UUID, str]] = []
        living = self.living
        if living is not None:
            threat_map = living.threat_map()
            for room in rooms:
                pairs.extend(threat_map.by_room.get(room, ()))
        else:
            for uid, marker in self.engine.world.each(Hostile):
                if marker.active and self.room_of(uid) in room_set:
                    pairs.append((uid, marker.source))
        if self.threat_providers:
            named_pairs, uids = self._provider_entities()
            # In the providers' order, as if each of their pairs were tested in
            # turn; one the WorldService has not placed is looked up by Position.
            room_of = self.room_of
            pairs.extend(
                named_pairs[i]
                for i, room in enumerate(self.ws.rooms_of(uids))
                if (room if room else room_of(uids[i])) in room_set
            )
        out: list[UUID] = []
        taken: set[UUID] = set()
        #: threat source -> whether its name matches ``source``
        named: dict[str, bool] = {}
        for uid, threat_source in pairs:
            # An entity named by several sources counts once, under the first
            # source that matches ``source``.
            if uid in taken or not self.is_alive(uid):
                continue
            if wanted:
                match = named.get(threat_source)
                if match is None:
                    match = named[threat_source] = bool(
                        wanted & topic_tokens(threat_source, self.faction_name(threat_source))
                    )
                if not match and not self._keywords_match(uid, wanted):
                    continue
            taken.add(uid)
            out.append(uid)
            if limit is not None and len(out) >= limit:
                break
        return out

    def is_threat(self, entity: UUID) -> bool:
        """Whether ``entity`` is one of the world's threats (hostile, living)."""
        living = self.living
        if living is not None and living.is_threat(entity):
            return True
        marker = self.engine.world.try_component(entity, Hostile)
        if marker is not None and marker.active:
            return True
        providers = self.threat_providers
        if not providers:
            return False
        checks = self.threat_checks
        if all(provider in checks for provider in providers):
            world = self.engine.world
            return any(checks[provider](world, entity) for provider in providers)
        pairs, ids = self._provider_pairs()
        if ids is None:
            ids = {uid for uid, _ in pairs}
            assert self._threat_cache is not None
            self._threat_cache = (*self._threat_cache[:3], ids)
        return entity in ids

    def _provider_pairs(self) -> tuple[list[tuple[UUID, str]], set[UUID] | None]:
        """What the threat providers name (and, once asked, their ids). The
        providers are asked once per game time: one may walk every entity, and seed
        evaluation asks about each involved NPC and the threats of each place.
        When each answers with the very tuple it gave before (a provider keeping
        its answer until the world changes), the pairs and ids stay as they were:
        gathering them again, and hashing thousands of ids, cost each tick that
        composed a seed milliseconds."""
        if not self.threat_providers:
            return [], set()
        now = self.now
        cached = self._threat_cache
        if cached is None or cached[0] != now:
            world = self.engine.world
            answers = [provider(world) for provider in self.threat_providers]
            if cached is not None and _unchanged(answers, cached[1]):
                cached = (now, cached[1], cached[2], cached[3])
            else:
                pairs = [p for answer in answers for p in answer]
                cached = (now, answers, pairs, None)
            self._threat_cache = cached
        return cached[2], cached[3]

    def _provider_entities(self) -> tuple[list[tuple[UUID, str]], list[UUID]]:
        """The providers' pairs and their entities, in order (kept with the pairs).
        A place's threats are those whose room is among its rooms, read for all of
        them at once: the pairs indexed by room again after anyone's move was half
        a millisecond, and a place is a hundred rooms or more."""
        pairs = self._provider_pairs()[0]
        cached = self._provider_index
        if cached is None or cached[0] is not pairs:
            cached = self._provider_index = (pairs, [uid for uid, _ in pairs])
        return cached

    def threat_keys(self, entities: list[UUID]) -> list[str]:
        """The living layer's keys ("threat:bandits:ironvale:old_trade_road") of the
        threat groups these entities belong to."""
        living = self.living
        if living is None:
            return []
        wanted = set(entities)
        return sorted(
            key for key, group in living.threat_map().groups.items() if wanted & set(group.entities)
        )

    def _keywords_match(self, entity: UUID, wanted: set[str]) -> bool:
        desc = self.engine.world.try_component(entity, Describable)
        if desc is None:
            return False
        return bool(wanted & topic_tokens(desc.name, " ".join(desc.keywords)))


def _unchanged(answers: list[Iterable[Pair]], before: list[Iterable[Pair]]) -> bool:
    """Whether every provider answered with the very tuple it answered before (a
    tuple cannot have changed since; a list or an iterator may have)."""
    return len(answers) == len(before) and all(
        type(a) is tuple and a is b for a, b in zip(answers, before, strict=True)
    )
