"""The data format of world packs, as pydantic models (``extra="forbid"``).

An area file (``areas/*.yaml``) has an ``area:`` header and lists of ``rooms``,
``npcs`` and ``items``; ``pack.yaml`` names the start room. Keys are local to the
pack ("smithy"); references may name another pack's room ("ironvale:square").
Keys other packs register as extensions (``stats:``, ``needs:`` ...) are split off
before these models see an entry, so anything left over is a typo.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Annotated, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from maid_stdlib.text.pronouns import PronounKey
from maid_stdlib.world.text import normalize_exit

_KEY = re.compile(r"[a-z0-9][a-z0-9_\-]*")
_REF = re.compile(r"(?:[a-z0-9][a-z0-9_\-]*:)?[a-z0-9][a-z0-9_\-]*")
_EXIT = re.compile(r"[a-z][a-z0-9 _\-]*")


def _key(value: str) -> str:
    if not _KEY.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a valid key (use lower-case letters, digits, '_' and '-')"
        )
    return value


def _ref(value: str) -> str:
    if not _REF.fullmatch(value):
        raise ValueError(f"{value!r} is not a valid room reference ('key' or 'pack:key')")
    return value


def _text(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("must not be empty")
    return value


Key = Annotated[str, AfterValidator(_key)]
RoomRef = Annotated[str, AfterValidator(_ref)]
Text = Annotated[str, AfterValidator(_text)]


def qualify(pack: str, ref: str) -> str:
    """ "smithy" in pack ironvale -> "ironvale:smithy"; qualified refs are kept."""
    return ref if ":" in ref else f"{pack}:{ref}"


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: The entry kind extensions are registered for ("area", "room", "npc", "item").
    kind: ClassVar[str] = ""


class KeyedSpec(Spec):
    """An entry with a key: areas, rooms, NPCs and items."""

    key: Key


class AreaSpec(KeyedSpec):
    """The ``area:`` header of an area file (its key is the area's local key)."""

    kind = "area"
    name: Text
    """Shown to players (GMCP Room.Info "area", score)."""
    region: Key
    """The region the area belongs to (quest density limits count per region)."""
    description: str = ""
    """Optional text about the area."""


class RoomSpec(KeyedSpec):
    """A room entry (``rooms:`` of an area file); extension sections (``narrated:``,
    ``map:``) sit beside these fields."""

    kind = "room"
    name: Text
    """The room's title."""
    description: Text
    """What ``look`` shows (folded into one paragraph; the client wraps it)."""
    exits: dict[str, RoomRef] = Field(default_factory=dict)
    """Exit name -> room reference. "n", "ne" ... are expanded to full directions; a word ("gate")
    makes a named exit (``go gate``). To join another pack's room, name it "pack:key" (a pack this
    one requires); to lead from that pack's room into this one, add the exit from code (the heist
    pack's ``ENTRANCE``), since its data cannot name this pack.
    """
    flags: list[Key] = Field(default_factory=list)
    """Free lower-case words other layers interpret (outdoors, safe, dark ...)."""
    details: dict[str, Text] = Field(default_factory=dict)
    """Scenery players can look at: "anvil scarred" (its keywords) -> description."""

    @field_validator("exits", mode="before")
    @classmethod
    def _exits(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        out: dict[object, object] = {}
        for name, target in value.items():
            if not isinstance(name, str) or not _EXIT.fullmatch(normalize_exit(name)):
                raise ValueError(f"exit name {name!r} is not a word")
            full = normalize_exit(name)
            if full in out:
                raise ValueError(f"exit {full!r} is given twice")
            out[full] = target
        return out

    @field_validator("details")
    @classmethod
    def _details(cls, value: dict[str, str]) -> dict[str, str]:
        return {" ".join(k.lower().split()): v for k, v in value.items()}


class ThingSpec(KeyedSpec):
    """What NPC and item entries share (``npcs:`` and ``items:`` of an area file);
    extension sections (``stats:``, ``dialogue:`` ...) sit beside these fields."""

    name: Text
    """Its name: "a bandit scout" for the nameless, "Gundrik" for the named."""
    keywords: list[Text] = Field(min_length=1)
    """Words players use to name it (at least one; lower-cased)."""
    short: str = ""
    """The line shown in a room ("Gundrik the blacksmith is here."); default "<Name> is here."
    """
    description: str = ""
    """What ``look <it>`` shows."""
    room: RoomRef | None = None
    """Where it starts. Without a room the entry is only a template others spawn."""
    count: int = Field(default=1, ge=1, le=1000)
    """How many instances to spawn in ``room`` (ids key#1 .. key#n)."""

    @field_validator("keywords")
    @classmethod
    def _keywords(cls, value: list[str]) -> list[str]:
        return [k.lower() for k in value]


class NpcSpec(ThingSpec):
    kind = "npc"

    pronouns: PronounKey = "they"
    """How text refers back to them: "he", "she", "they" (the default) or "it"."""


class ItemSpec(ThingSpec):
    kind = "item"


class PackManifest(Spec):
    """``pack.yaml``."""

    name: str | None = None
    """Optional; must match the pack class's name if given."""
    description: str = ""
    """What the pack is, in a line."""
    start_room: RoomRef | None = None
    """Where new characters start (the top pack's start room wins)."""


#: Section of an area file -> the model of its entries.
SECTIONS: dict[str, type[KeyedSpec]] = {"rooms": RoomSpec, "npcs": NpcSpec, "items": ItemSpec}
SPECS: dict[str, type[KeyedSpec]] = {
    "area": AreaSpec, "room": RoomSpec, "npc": NpcSpec, "item": ItemSpec,
}  # fmt: skip


@dataclass
class Entry:
    """One validated data entry (an area, room, NPC or item)."""

    kind: str
    pack: str
    key: str
    spec: KeyedSpec
    file: str
    extensions: dict[str, BaseModel] = field(default_factory=dict)
    #: Full key of the area a room belongs to.
    area: str = ""
    #: The line of the file the entry starts at (0: unknown), for problems.
    line: int = 0

    @property
    def full_key(self) -> str:
        return f"{self.pack}:{self.key}"

    @property
    def digest(self) -> str:
        """Changes whenever the entry's data changes (drives refreshing rooms)."""
        blob = json.dumps(
            {
                "spec": self.spec.model_dump(mode="json"),
                "ext": {k: v.model_dump(mode="json") for k, v in sorted(self.extensions.items())},
                "area": self.area,
            },
            sort_keys=True,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def section_digests(self) -> dict[str, str]:
        """Extension section -> a digest of its value: which sections an edit changed
        (only those are applied again to an NPC or item that exists)."""
        return {
            name: hashlib.sha256(
                json.dumps(value.model_dump(mode="json"), sort_keys=True).encode()
            ).hexdigest()[:16]
            for name, value in self.extensions.items()
        }
