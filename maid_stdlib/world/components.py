"""World components: rooms, exits, positions, names and descriptions.

Rooms are addressed by stable string keys ("ironvale:smithy") everywhere in data
and components, so stored state stays readable and survives a rebuild of the
world; :class:`~maid_stdlib.world.service.WorldService` resolves keys to entities.
Every class sets ``component_name`` explicitly because stored rows refer to it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, ClassVar
from uuid import UUID

from maid_engine.ecs import Component

#: Namespace of the deterministic ids of data-defined entities. Never change it:
#: persisted worlds are keyed by the ids derived from it.
DATA_NAMESPACE = UUID("6f1d3c2a-8a4e-5b7c-9d1e-4a6b8c0d2e3f")


def data_uuid(pack: str, kind: str, key: str) -> UUID:
    """The id of a data-defined entity, stable across restarts and machines."""
    return uuid.uuid5(DATA_NAMESPACE, f"{pack}:{kind}:{key}")


@dataclass
class Room(Component):
    """A place. ``key`` is "pack:local" and unique in the world."""

    component_name = "Room"
    key: str = ""
    name: str = ""
    description: str = ""
    #: Key of the area entity ("pack:area").
    area: str = ""
    flags: list[str] = field(default_factory=list)
    #: Scenery players can look at: "anvil scarred" (its keywords) -> description.
    details: dict[str, str] = field(default_factory=dict)

    #: Bumped whenever a Room's name is assigned, in any world: the world's
    #: versions count components added, replaced, removed or reported modified,
    #: not fields assigned, and the WorldService's list of room names (read for
    #: every quest planned) is kept by both.
    names_assigned: ClassVar[int] = 0

    def __setattr__(self, key: str, value: Any) -> None:
        super().__setattr__(key, value)
        if key == "name":
            Room.names_assigned += 1


@dataclass
class Exits(Component):
    """Direction or exit name -> target room key.

    Change exits through ``WorldService.set_exit``/``remove_exit`` (or call
    ``WorldService.invalidate_paths()``) so cached paths are dropped.
    """

    component_name = "Exits"
    exits: dict[str, str] = field(default_factory=dict)


@dataclass
class Position(Component):
    """Where something is: a room key. Moved only through ``WorldService``."""

    component_name = "Position"
    room: str = ""


@dataclass
class Describable(Component):
    """How something looks: its name, the line shown in a room, and its description."""

    component_name = "Describable"
    name_field = "name"
    name: str = ""
    #: The line shown in a room listing, e.g. "Gundrik the blacksmith is here."
    short: str = ""
    description: str = ""
    #: Lower-case words players can use to refer to it ("scout", "bandit").
    keywords: list[str] = field(default_factory=list)
    #: How text refers back to it: "he", "she", "they", "it"; "" is not said (read
    #: as "they" for a person; see :func:`maid_stdlib.text.pronouns.pronouns`).
    pronouns: str = ""

    #: Bumped whenever any Describable's ``name`` or ``short`` is assigned (renames
    #: included) after it was made: cached room listings key on it. Making one
    #: does not: it is in no listing until an entity holds it, and an entity taking
    #: it is news to its room's listing (``WorldService.shown_version``) -- two
    #: hundred characters created in a minute would otherwise empty every listing.
    listing_version: ClassVar[int] = 0

    def __setattr__(self, key: str, value: Any) -> None:
        if (key == "name" or key == "short") and key in self.__dict__:
            Describable.listing_version += 1
        super().__setattr__(key, value)


@dataclass
class SeenAs(Component):
    """The room line particular viewers read instead of ``Describable.short``: a
    quest's quarry is "hunted by Ann" to everyone but Ann, who reads "your quarry".

    Runtime only. Assign ``lines`` whole rather than changing it in place: an
    assignment is what tells the kept room listings to read it again.
    """

    component_name = "SeenAs"
    persist: ClassVar[bool] = False
    #: viewer -> the line that viewer reads.
    lines: dict[UUID, str] = field(default_factory=dict)

    def __setattr__(self, key: str, value: Any) -> None:
        if key == "lines" and key in self.__dict__:
            Describable.listing_version += 1
        super().__setattr__(key, value)


@dataclass
class Area(Component):
    """An area (a set of rooms) and the region it belongs to."""

    component_name = "Area"
    key: str = ""
    name: str = ""
    region: str = ""


@dataclass
class NPC(Component):
    """Marks a non-player character; ``template`` is its data key ("ironvale:gundrik")."""

    component_name = "NPC"
    template: str = ""


@dataclass
class Item(Component):
    """Marks an object; ``template`` is its data key ("ironvale:anvil")."""

    component_name = "Item"
    template: str = ""


@dataclass
class DataOrigin(Component):
    """Which data entry an entity was built from, and a digest of that entry.

    When the digest changes (a builder edited the file) what the pack owns is
    refreshed from data on the next load or reload: all of a room or area; an NPC's
    or item's name, descriptions and keywords and its edited extension sections.
    Otherwise the persisted state, including runtime changes, is kept.
    """

    component_name = "DataOrigin"
    pack: str = ""
    kind: str = ""
    key: str = ""
    digest: str = ""
    #: Extension sections applied to it, so a section added to the data later
    #: (``stats:`` on an NPC that already exists) still reaches it.
    extensions: list[str] = field(default_factory=list)
    #: Section -> digest of the value applied: an edited section is applied again,
    #: an unchanged one leaves the state it made alone (empty in worlds saved
    #: before it existed: every section of an edited entry is then applied again).
    sections: dict[str, str] = field(default_factory=dict)


@dataclass
class SpawnLedger(Component):
    """Per-pack record of the data entries that were ever spawned.

    An NPC or item that was spawned once and later destroyed (a slain bandit) is
    not spawned again on the next start; only entries new to the data are.
    """

    component_name = "SpawnLedger"
    pack: str = ""
    spawned: list[str] = field(default_factory=list)


@dataclass
class Away(Component):
    """A player marked away (``afk``): shown in ``who`` and told to whoever sends a
    tell. Runtime only: any command but ``afk`` ends it, and so does logging out."""

    component_name = "Away"
    persist = False
    message: str = ""


@dataclass
class ReplyTo(Component):
    """Who last sent this character a tell or whisper (``reply`` answers them)."""

    component_name = "ReplyTo"
    persist = False
    sender: UUID | None = None
