"""A quest's story reads the world's list of room names once, however many texts
it checks, and looks no room up by itself; and the rooms a clearing quest
searches are its areas' rooms, once each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.narrative.story import _Places, _Retellable, _RoomNames
from maid_stdlib.questgen.patterns import _search_rooms
from maid_stdlib.questgen.seed import QuestSeed

ROOMS = {f"vale:r{i}": f"Room {i}" for i in range(300)} | {"vale:mill": "the Old Mill"}


@dataclass
class _Ws:
    def room_keys(self) -> list[str]:
        return list(ROOMS)

    def area_keys(self) -> list[str]:
        return ["vale"]


@dataclass
class _Facts:
    ws: _Ws = field(default_factory=_Ws)
    reads: int = 0
    lists: int = 0

    def room_name(self, room: str | None) -> str:
        self.reads += 1
        return ROOMS.get(room or "", room or "")

    def room_names(self) -> list[tuple[str, str]]:
        self.lists += 1
        return list(ROOMS.items())

    def place(self, room: str | None) -> str:
        return f"{ROOMS[room or '']} by the river"

    def area_name(self, area: str | None) -> str:
        return "Vale"

    def resolve_npc(self, _ref: object) -> None:
        return None

    def area_of(self, room: str | None) -> str | None:
        return (room or "").partition(":")[0] or None

    def rooms_of_area(self, area: str) -> list[str]:
        return [r for r in ROOMS if r.startswith(f"{area}:")]


def test_the_room_names_are_read_once_for_every_text_of_a_story() -> None:
    facts = _Facts()
    rooms = _RoomNames(cast(WorldFacts, facts))
    prose = _Places(cast(WorldFacts, facts), rooms)
    fits = _Retellable(cast(WorldFacts, facts), "Hollin", "wolves", rooms)
    assert (
        prose("Wolves were seen at the Old Mill.")
        == "Wolves were seen at the Old Mill by the river."
    )
    assert prose("Nothing of note.") == "Nothing of note."
    assert fits("Hollin saw wolves near Room 12.")
    assert not fits("Aldric saw wolves near Room 12.")  # a name the world does not know
    # The world's kept list, once; no room looked up one by one.
    assert (facts.lists, facts.reads) == (1, 0)


def test_the_search_covers_each_area_once_in_order() -> None:
    facts = _Facts()
    seed = cast(
        QuestSeed,
        cast(
            Any, type("S", (), {"location": "vale:mill", "affected_area": ["vale:r3", "vale:r7"]})
        ),
    )
    rooms = _search_rooms(cast(WorldFacts, facts), seed)
    assert rooms[:3] == ["vale:mill", "vale:r3", "vale:r7"]
    assert len(rooms) == len(set(rooms)) == len(ROOMS)
    assert rooms[3:] == [r for r in ROOMS if r not in ("vale:mill", "vale:r3", "vale:r7")]
