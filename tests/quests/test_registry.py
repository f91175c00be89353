"""QuestRegistry: a giver's quests, kept by giver as definitions are added,
replaced and restored, in the order a scan of every definition gives."""

from __future__ import annotations

from uuid import UUID, uuid4

from quests.questkit import quest

from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.registry import QuestRegistry

VISIT = {"objective_type": "visit", "destination_room_id": "qtest:yard"}


def scanned(registry: QuestRegistry, npc: UUID) -> list[str]:
    """What the registry held for ``npc`` before it kept them by giver."""
    return [q.quest_id for q in registry.all() if q.giver_npc_id == npc]


def given(registry: QuestRegistry, npc: UUID) -> list[str]:
    return [q.quest_id for q in registry.from_giver(npc)]


def by(quest_id: str, giver: UUID | None) -> Quest:
    return quest(quest_id, VISIT, giver_npc_id=giver)


def test_a_givers_quests_in_the_order_they_were_registered() -> None:
    registry = QuestRegistry()
    smith, baker = uuid4(), uuid4()
    for quest_id, giver in [("a", smith), ("b", baker), ("c", smith), ("d", None), ("e", smith)]:
        registry.add(by(quest_id, giver))
    assert given(registry, smith) == scanned(registry, smith) == ["a", "c", "e"]
    assert given(registry, baker) == ["b"]
    assert given(registry, uuid4()) == []
    # What it hands out is a copy: changing it changes nothing kept.
    registry.from_giver(smith).clear()
    assert given(registry, smith) == ["a", "c", "e"]


def test_a_replaced_definition_keeps_its_place_or_changes_hands() -> None:
    registry = QuestRegistry()
    smith, baker = uuid4(), uuid4()
    for quest_id, giver in [("a", smith), ("b", baker), ("c", smith), ("d", baker)]:
        registry.add(by(quest_id, giver))
    registry.replace(by("a", smith).model_copy(update={"title": "A again"}))
    assert given(registry, smith) == ["a", "c"]
    assert registry.from_giver(smith)[0].title == "A again"
    registry.replace(by("c", baker))  # the baker gives it now
    for npc in (smith, baker):
        assert given(registry, npc) == scanned(registry, npc)
    assert given(registry, baker) == ["b", "c", "d"]
    registry.replace(by("b", None))  # nobody does
    assert given(registry, baker) == scanned(registry, baker) == ["c", "d"]
