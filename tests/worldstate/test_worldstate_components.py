"""Live values as components on the room, the acting character and each NPC."""

from __future__ import annotations

from uuid import UUID

from maid_engine.ecs import World, dump_component, load_component
from maid_stdlib.worldstate import (
    ComponentStatView,
    NarratedNPCStats,
    NarratedPlayerStats,
    NarratedRoomState,
    StatSchema,
    apply_delta,
    prompt_sections,
)


def make(world: World) -> tuple[UUID, UUID, UUID]:
    return world.create_entity(), world.create_entity(), world.create_entity()


def test_values_land_on_the_entities_they_describe(schema: StatSchema, world: World) -> None:
    room, hero, gwen = make(world)
    view = ComponentStatView(world, room, hero, "camp", {"gwen": gwen})
    delta = {"world.day": 1, "player.hp": -10, "npc.gwen.trust": 5, "flags.has_key": True,
             "milestones.rescue_gwen": True}  # fmt: skip
    report = apply_delta(schema, view, delta, 3)
    assert len(report.applied) == 5
    state = world.get_component(room, NarratedRoomState)
    assert state.world == {"day": 2}
    assert state.flags == {"has_key": True}
    assert state.milestones == {"rescue_gwen": 3}
    assert state.last_changed == {"world.day": 3}
    player = world.get_component(hero, NarratedPlayerStats)
    assert player.values == {"camp": {"hp": 90}}
    assert player.last_changed == {"camp": {"hp": 3}}
    npc = world.get_component(gwen, NarratedNPCStats)
    assert npc.npc_id == "gwen"
    assert npc.values == {"trust": 25}
    assert npc.last_changed == {"camp": {"trust": 3}}
    assert view.values() == {
        "world.day": 2, "flags.has_key": True, "milestones.rescue_gwen": 3,
        "player.hp": 90, "npc.gwen.trust": 25,
    }  # fmt: skip


def test_one_character_carries_stats_for_several_rooms(schema: StatSchema, world: World) -> None:
    camp, hero, _ = make(world)
    keep = world.create_entity()
    apply_delta(schema, ComponentStatView(world, camp, hero, "camp"), {"player.hp": -10}, 1)
    apply_delta(schema, ComponentStatView(world, keep, hero, "keep"), {"player.hp": -20}, 1)
    assert world.get_component(hero, NarratedPlayerStats).values == {
        "camp": {"hp": 90},
        "keep": {"hp": 80},
    }


def test_npc_stats_are_the_npcs_own_across_rooms(schema: StatSchema, world: World) -> None:
    camp, hero, gwen = make(world)
    keep = world.create_entity()
    apply_delta(schema, ComponentStatView(world, camp, hero, "camp", {"gwen": gwen}),
                {"npc.gwen.trust": 10}, 1)  # fmt: skip
    keep_view = ComponentStatView(world, keep, hero, "keep", {"gwen": gwen})
    assert keep_view.get("npc.gwen.trust") == 30
    # Cooldown records are per scope: indices of different rooms do not compare.
    assert keep_view.last_changed("npc.gwen.trust") is None


def test_writes_mark_entities_dirty(schema: StatSchema, world: World) -> None:
    room, hero, gwen = make(world)
    view = ComponentStatView(world, room, hero, "camp", {"gwen": gwen})
    apply_delta(schema, view, {"player.hp": -1}, 1)
    world.take_changes()
    apply_delta(schema, view, {"player.hp": -1, "npc.gwen.trust": 1, "flags.has_key": True}, 2)
    dirty, _, _ = world.take_changes()
    assert dirty == {room, hero, gwen}


def test_components_persist(schema: StatSchema, world: World) -> None:
    room, hero, gwen = make(world)
    view = ComponentStatView(world, room, hero, "camp", {"gwen": gwen})
    apply_delta(schema, view, {"player.hp": -1, "npc.gwen.trust": 2, "flags.has_key": True,
                               "milestones.rescue_gwen": True}, 1)  # fmt: skip
    for entity, ctype in ((room, NarratedRoomState), (hero, NarratedPlayerStats),
                          (gwen, NarratedNPCStats)):  # fmt: skip
        component = world.get_component(entity, ctype)
        assert load_component(ctype.component_name, dump_component(component)) == component


def test_missing_npc_entity_or_actor_is_refused(schema: StatSchema, world: World) -> None:
    room = world.create_entity()
    view = ComponentStatView(world, room, None, "camp", {})
    report = apply_delta(schema, view, {"npc.gwen.trust": 5, "player.hp": -5}, 1)
    assert [c.code for c in report.rejected] == ["absent", "absent"]
    assert report.rejected[0].fix == (
        "`npc.gwen.trust` belongs to someone who is not in this world; leave it out."
    )


def test_destroyed_npc_is_not_written(schema: StatSchema, world: World) -> None:
    room, hero, gwen = make(world)
    view = ComponentStatView(world, room, hero, "camp", {"gwen": gwen})
    world.destroy_entity(gwen)
    world.flush_destroyed()
    assert not view.writable("npc.gwen.trust")
    assert view.get("npc.gwen.trust") is None
    assert apply_delta(schema, view, {"npc.gwen.trust": 5}, 1).rejected[0].code == "absent"


def test_component_view_feeds_the_prompt(schema: StatSchema, world: World) -> None:
    room, hero, gwen = make(world)
    view = ComponentStatView(world, room, hero, "camp", {"gwen": gwen})
    apply_delta(schema, view, {"npc.gwen.trust": 15}, 1)
    assert "trust 35 (ally)" in prompt_sections(schema, view, ["gwen"])["world_state"]
