"""A quest's story reads the world's kept lists of room and place names, however
many texts it checks, and looks no room up by itself; and the rooms a clearing
quest searches are its areas' rooms, once each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.narrative.story import _after, _Places, _Retellable
from maid_stdlib.questgen.patterns import _search_rooms
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.text.realiser import clause, clauses

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

    def place_names(self) -> str:
        self.lists += 1
        return " | ".join([*ROOMS.values(), "Vale"])

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


def test_the_story_reads_the_worlds_lists_of_names_and_looks_no_room_up() -> None:
    facts = _Facts()
    prose = _Places(cast(WorldFacts, facts))
    fits = _Retellable(cast(WorldFacts, facts), "Hollin", "wolves")
    assert (
        prose("Wolves were seen at the Old Mill.")
        == "Wolves were seen at the Old Mill by the river."
    )
    assert prose("Nothing of note.") == "Nothing of note."
    assert fits("Hollin saw wolves near Room 12.")
    assert not fits("Aldric saw wolves near Room 12.")  # a name the world does not know
    # The world's kept lists, once a text; no room looked up one by one.
    assert (facts.lists, facts.reads) == (3, 0)


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


def _step(
    kind: ObjectiveType, description: str, quantity: int = 1, order: int = 0
) -> QuestObjective:
    return QuestObjective(
        objective_type=kind,
        description=description,
        target="a lump of iron ore",
        item_template="vale:ore",
        quantity=quantity,
        order=order,
    )


def test_goods_just_obtained_are_it_or_them_in_the_next_step() -> None:
    obtain = _step(ObjectiveType.COLLECT, "Obtain a lump of iron ore")
    bring = _step(ObjectiveType.DELIVER, "Bring the lump of iron ore to Hollin the miller", order=1)
    steps = [_after(None, obtain), _after(obtain, bring)]
    assert clauses([clause(s) for s in steps]).forms[""] == (
        "obtain a lump of iron ore and bring it to Hollin the miller"
    )
    three = _step(ObjectiveType.COLLECT, "Obtain 3 lumps of iron ore", quantity=3)
    them = _step(ObjectiveType.DELIVER, "Bring the 3 lumps of iron ore to Hollin", quantity=3)
    assert _after(three, them) == "Bring them to Hollin"
    # Other goods, or a step that is not the delivery of what was obtained, stay.
    other = QuestObjective(
        objective_type=ObjectiveType.DELIVER,
        description="Bring the plough share to Brin",
        target="a plough share",
        item_template="vale:share",
    )
    assert _after(obtain, other) == "Bring the plough share to Brin"
    assert _after(bring, bring) == bring.description
    assert _after(None, bring) == bring.description
