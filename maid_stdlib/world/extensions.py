"""Extension sections of world data entries.

Other packs teach the world loader new keys of an entry kind, each with its own
pydantic model and an ``apply`` function that adds components to the entity built
from the entry::

    class StatsData(BaseModel):
        model_config = ConfigDict(extra="forbid")
        level: int = 1
        hp: int = 10

    def apply_stats(ctx: ExtensionContext, value: StatsData) -> None:
        ctx.world.add_component(ctx.entity_id, Stats(level=value.level, hp=value.hp))

    ctx.service(WorldData).register_extension("npc", "stats", StatsData, apply_stats)

``apply`` runs when the entity is created from data (NPCs, items) or rebuilt
because its data changed (rooms, areas); persisted entities keep their state.
An optional ``check(value, scope)`` returns extra problems that need the whole
pack (e.g. a schedule naming rooms), reported like every other data problem.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from pydantic import BaseModel

from maid_engine.ports import ClockPort, EventsPort, RandomPort, ServicesPort, WorldPort
from maid_stdlib.world.schema import Entry

if TYPE_CHECKING:
    from maid_engine.ecs import World

KINDS = ("area", "room", "npc", "item")


class ExtensionHost(WorldPort, EventsPort, ClockPort, ServicesPort, RandomPort, Protocol):
    """What an extension's ``apply`` may reach while an entity is built from data:
    the world, the event bus, shared services, game time and the seeded random
    source (loot rolls replay with the simulation's seed). Whatever spawns from data
    takes this, since it hands the engine on to the extensions."""


@dataclass
class ExtensionContext:
    """What an extension's ``apply`` gets besides its validated value."""

    engine: ExtensionHost
    """What ``apply`` may reach: world, events, services, game time, the seeded random source."""
    entity_id: UUID
    """The entity being built from the entry."""
    entry: Entry
    """The validated data entry (its spec and extension values)."""

    @property
    def world(self) -> World:
        """The world the entity lives in."""
        return self.engine.world

    @property
    def pack(self) -> str:
        """The name of the pack the entry belongs to."""
        return self.entry.pack

    @property
    def key(self) -> str:
        """The entry's full key ("ironvale:gundrik")."""
        return self.entry.full_key


@dataclass
class CheckScope:
    """What an extension's ``check`` may ask about the pack being validated."""

    pack: str
    """The pack being checked."""
    entry: Entry
    """The entry whose section is checked."""
    room_keys: frozenset[str]
    """Full keys of every room the pack may name (its own and its requirements')."""
    npc_keys: frozenset[str]
    """Full keys of the pack's NPC entries (a broken one's too: it was reported
    already, and a reference to it is not a second problem)."""
    item_keys: frozenset[str]
    """Full keys of the pack's item entries (a broken one's too)."""
    placed_npc_keys: frozenset[str] = frozenset()
    """Full keys of the pack's NPC entries placed once (a room, no ``count``): the
    ones a reference can name as one person (a broken one's too)."""

    def qualify(self, ref: str) -> str:
        """A reference as a full key ("smithy" -> "pack:smithy")."""
        return ref if ":" in ref else f"{self.pack}:{ref}"

    def room_exists(self, ref: str) -> bool:
        """Whether a reference names a room the pack may use."""
        return self.qualify(ref) in self.room_keys


class ProblemAt(str):
    """A check's problem that lies in another file than the entry's (a narrated
    room's schema file): reported at ``file:line``, with the entry named.

    ``file`` is relative to the pack's parent folder, as the loader labels files
    ("heist/narrated/counting_house.yaml")."""

    file: str
    line: int | None

    def __new__(cls, message: str, file: str, line: int | None = None) -> ProblemAt:
        out = super().__new__(cls, message)
        out.file = file
        out.line = line
        return out


ApplyFunc = Callable[[ExtensionContext, Any], None]
CheckFunc = Callable[[Any, CheckScope], Iterable[str]]


@dataclass(frozen=True)
class Extension:
    kind: str
    key: str
    model: type[BaseModel]
    apply: ApplyFunc
    check: CheckFunc | None = None
    #: The pack that registered it (for messages).
    owner: str = ""
