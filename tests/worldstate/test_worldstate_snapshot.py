"""Undo and retry through snapshots, on the plain view and on components."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from maid_engine.ecs import World
from maid_stdlib.worldstate import (
    ComponentStatView,
    DictStatView,
    Snapshot,
    StatSchema,
    StatView,
    apply_delta,
    extract_delta,
    instantiate,
    load_schema,
    restore,
    take_snapshot,
)

TURN = (
    'Steel rings.\n```state\n{"player.hp": -20, "npc.gwen.trust": +10, "world.day": 1, '
    '"flags.has_key": true, "milestones.rescue_gwen": true}\n```'
)


def play(schema: StatSchema, view: StatView, reply: str, index: int) -> Snapshot:
    """One AI turn as the lead will wire it: snapshot, extract, apply."""
    before = take_snapshot(view)
    _, delta = extract_delta(reply)
    apply_delta(schema, view, delta, index)
    return before


def test_undo_restores_every_stat_milestone_flag_and_cooldown(
    schema: StatSchema, view: DictStatView
) -> None:
    instantiate(schema, view)
    apply_delta(schema, view, {"player.mana": -5}, 1)
    original = view.values(), view.all_last_changed()
    before = play(schema, view, TURN, 2)
    assert view.get("player.hp") == 80
    assert view.get("milestones.rescue_gwen") == 2
    restore(view, before)
    assert (view.values(), view.all_last_changed()) == original
    assert view.get("milestones.rescue_gwen") is None
    assert view.get("flags.has_key") is False


def test_undo_removes_values_first_set_in_the_undone_turn(
    schema: StatSchema, view: DictStatView
) -> None:
    before = play(schema, view, TURN, 1)  # nothing instantiated beforehand
    restore(view, before)
    assert view.values() == {}
    assert view.all_last_changed() == {}


def test_retry_does_not_double_apply(schema: StatSchema, view: DictStatView) -> None:
    before = play(schema, view, TURN, 1)
    assert view.get("player.hp") == 80
    # Retry: restore the regenerated turn's snapshot, then apply the new reply.
    restore(view, before)
    before_again = play(schema, view, TURN, 1)
    assert before_again == before
    assert view.get("player.hp") == 80  # not 60
    assert view.get("npc.gwen.trust") == 30  # not 40
    assert view.get("world.day") == 2  # not 3


def test_retry_respects_cooldowns_as_they_were(seed_dict: dict[str, Any]) -> None:
    seed_dict["player"]["mana"]["cooldown"] = 3
    schema = load_schema(seed_dict)
    view = DictStatView()
    before = play(schema, view, '```state\n{"player.mana": -5}\n```', 4)
    restore(view, before)
    # Without the restored cooldown record this retry would be refused as cooling down.
    report = apply_delta(schema, view, {"player.mana": -5}, 4)
    assert report.applied
    assert view.get("player.mana") == 15


def test_snapshot_round_trips_json(schema: StatSchema, view: DictStatView) -> None:
    play(schema, view, TURN, 3)
    snap = take_snapshot(view)
    back = Snapshot.from_json(snap.to_json())
    assert back == snap
    assert isinstance(back.values["flags.has_key"], bool)
    assert isinstance(back.values["milestones.rescue_gwen"], int)


# -- the same on components ------------------------------------------------------------


@pytest.fixture
def parts(world: World) -> tuple[UUID, UUID, UUID, UUID]:
    room, actor, gwen, milo = (world.create_entity() for _ in range(4))
    return room, actor, gwen, milo


def test_undo_and_retry_on_components(
    schema: StatSchema, world: World, parts: tuple[UUID, UUID, UUID, UUID]
) -> None:
    room, actor, gwen, milo = parts
    view = ComponentStatView(world, room, actor, "camp", {"gwen": gwen, "milo": milo})
    instantiate(schema, view)
    first = take_snapshot(view)
    before = play(schema, view, TURN, 1)
    assert before == first
    assert view.get("player.hp") == 80
    assert view.get("milestones.rescue_gwen") == 1
    restore(view, before)
    assert take_snapshot(view) == first
    play(schema, view, TURN, 1)
    assert view.get("player.hp") == 80
    assert view.get("npc.gwen.trust") == 30
