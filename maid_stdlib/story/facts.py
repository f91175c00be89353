"""World facts: deeds the world remembers (``rescue_gwen``: someone freed Gwen).

A narrated room's milestone bound to ``world.fact`` writes here, and whatever reads
deeds reads here: quest objectives of kind ``fact`` complete when their fact is set
by the character holding them, and the news of a fact reaches the NPCs who saw it
and those it is told to, as gossip.

Facts are kept on one world entity (:data:`FACTS_ID`), so they are stored and loaded
with the rest of the world. Setting a fact emits :class:`FactSetEvent`; whoever reacts
to it (an objective completed, news spread) records its reaction on the fact with
:meth:`FactBook.react`. A reaction cannot be taken back: a narrated turn whose fact
has reactions can no longer be undone, and the undo says why. A fact may carry the
story signal it raises while it holds (:class:`FactSignal`); the ``deeds`` story
detector reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from maid_engine.ecs import Component
from maid_engine.events import Event
from maid_engine.ports import ClockPort, EventsPort, WorldPort
from maid_stdlib.world.components import data_uuid

FACTS_ID = data_uuid("story", "state", "world_facts")


@dataclass
class FactSignal:
    """The story signal a fact raises while it holds (resolved when it was set)."""

    signal_type: str
    importance: float = 0.5
    #: NPCs involved (uuid strings), the one a quest would come from first.
    npcs: list[str] = field(default_factory=list)
    #: The signal's context, NPC references already uuid strings with their names.
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class FactRecord:
    """One fact as it stands: who made it true, where, when, and who reacted."""

    by: str = ""  # character uuid, "" when no one in particular
    by_name: str = ""
    room: str = ""
    at: float = 0.0  # game time
    #: The narrated room's action index it was reached at (what the milestone reads).
    index: int = 0
    #: What it tells the village, with the doer's name in it ("" for nothing).
    news: str = ""
    #: NPC ids (uuid strings) the news goes to besides those who saw it.
    told_to: list[str] = field(default_factory=list)
    #: What reacted to it, in words ("your quest 'The Caged Ranger' counted it").
    reactions: list[str] = field(default_factory=list)
    #: The story signal it raises, if the milestone declared one.
    signal: FactSignal | None = None


@dataclass
class WorldFactRecords(Component):
    component_name = "WorldFacts"
    facts: dict[str, FactRecord] = field(default_factory=dict)


@dataclass
class FactSetEvent(Event):
    """``name`` became true, by ``by`` (a character) in ``room``."""

    name: str
    by: UUID | None
    room: str


class FactsHost(WorldPort, EventsPort, ClockPort, Protocol):
    """What the fact book uses: the world entity holding facts, the event bus, game time."""


class FactBook:
    """Read and write world facts (the ``stdlib.story`` plugin provides one)."""

    def __init__(self, engine: FactsHost) -> None:
        self.engine = engine
        #: Fact name -> whether each thing that can make it true can do so now.
        self._sources: dict[str, list[Callable[[], bool]]] = {}

    def add_source(self, name: str, available: Callable[[], bool]) -> None:
        """Declare something that can make fact ``name`` true (a narrated room's
        milestone: only while a storyteller is configured)."""
        self._sources.setdefault(name, []).append(available)

    def reachable(self, name: str) -> bool:
        """Whether fact ``name`` can still come true: it holds already, or nothing
        declared a source for it (an admin, a script or a pack may set it), or one
        of its sources can now. A quest waiting on an unreachable fact cannot be
        finished, so it is not offered."""
        sources = self._sources.get(name)
        return not sources or self.holds(name) or any(available() for available in sources)

    def _records(self, create: bool) -> WorldFactRecords | None:
        world = self.engine.world
        found = world.try_component(FACTS_ID, WorldFactRecords)
        if found is None and create:
            found = WorldFactRecords()
            if world.entity_exists(FACTS_ID):
                world.add_component(FACTS_ID, found)
            else:
                world.create_entity(found, entity_id=FACTS_ID)
        return found

    def get(self, name: str) -> FactRecord | None:
        records = self._records(create=False)
        return records.facts.get(name) if records is not None else None

    def holds(self, name: str) -> bool:
        return self.get(name) is not None

    def set(
        self,
        name: str,
        *,
        by: UUID | None,
        by_name: str = "",
        room: str = "",
        index: int = 0,
        news: str = "",
        told_to: list[str] | None = None,
        signal: FactSignal | None = None,
    ) -> FactRecord:
        """Make ``name`` true (again: a repeat keeps the first doer and its reactions)."""
        records = self._records(create=True)
        assert records is not None
        found = records.facts.get(name)
        if found is not None:
            return found
        record = FactRecord(
            by=str(by) if by is not None else "",
            by_name=by_name,
            room=room,
            at=self.engine.clock.game_time,
            index=index,
            news=news,
            told_to=list(told_to or []),
            signal=signal,
        )
        records.facts[name] = record
        self.engine.world.modified(FACTS_ID, records)
        self.engine.events.emit(FactSetEvent(name, by, room))
        return record

    def clear(self, name: str) -> None:
        """Make ``name`` false again (an undone turn); reactions go with it."""
        records = self._records(create=False)
        if records is not None and records.facts.pop(name, None) is not None:
            self.engine.world.modified(FACTS_ID, records)

    def react(self, name: str, what: str) -> None:
        """Record that ``what`` happened because of ``name`` (it cannot be undone)."""
        records = self._records(create=False)
        record = records.facts.get(name) if records is not None else None
        if record is None or records is None or what in record.reactions:
            return
        record.reactions.append(what)
        self.engine.world.modified(FACTS_ID, records)

    def all(self) -> dict[str, FactRecord]:
        """Every fact that holds, by name."""
        records = self._records(create=False)
        return dict(records.facts) if records is not None else {}

    def current(self, event: FactSetEvent) -> FactRecord | None:
        """The fact an event announced, if it still holds as announced (an undo in
        the meantime cleared it: then nobody should react)."""
        record = self.get(event.name)
        if record is None or record.by != (str(event.by) if event.by else ""):
            return None
        return record


__all__ = [
    "FACTS_ID",
    "FactBook",
    "FactRecord",
    "FactSetEvent",
    "FactSignal",
    "WorldFactRecords",
]
