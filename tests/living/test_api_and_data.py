"""Bounded mutations (what quest consequences write) and living-data validation."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from kits.engines import living_of
from living.livingkit import LIVING, hamlet_pack, make_engine, npc

from maid_engine.content import PackError
from maid_stdlib.living import GoalsComponent, GoalStatus, api
from maid_stdlib.living.data import parse_living


async def test_bounded_mutations(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        world = engine.world
        smith, trader = npc(engine, "hollin"), npc(engine, "pell")
        # Needs: [0, 1]; project_* shows the unclamped value for batch validation.
        assert api.project_need(world, smith, 0.5, "economic") == pytest.approx(1.4)
        assert api.satisfy_need(world, smith, 0.5, "economic") == ("economic", 1.0)
        assert api.satisfy_need(world, smith, -3.0) == ("economic", 0.0)  # default need
        with pytest.raises(KeyError):
            api.satisfy_need(world, trader, 0.1)
        # Relationships: trust and affinity in [-1, 1], created on first write.
        assert api.get_relationship(world, smith, trader) is None
        rel = api.adjust_relationship(world, smith, trader, trust=0.7, affinity=-2.0)
        assert (rel.trust, rel.affinity) == (0.7, -1.0)
        assert api.adjust_relationship(world, smith, trader, trust=0.7).trust == 1.0
        # Faction standings and faction relations: [-1, 1].
        assert api.get_faction_standing(world, trader, "village") == 0.0
        assert api.adjust_faction_standing(world, trader, "village", 1.5) == 1.0
        assert api.adjust_faction_standing(world, trader, "village", -2.5) == -1.0
        assert api.adjust_faction_relation(world, "village", "bandits", -1.4, "raids") == -1.0
        tie = api.get_faction_relation(world, "bandits", "village")
        assert tie is not None
        assert tie.cause == "raids"
        # Influence [0, 1]; wealth never negative.
        assert api.adjust_influence(world, trader, 0.4) == 0.4
        assert api.adjust_influence(world, trader, 2.0) == 1.0
        assert api.adjust_wealth(world, trader, 50) == 50
        assert api.adjust_wealth(world, trader, -80) == 0
        assert api.wealth_of(world, smith) == 0
        # Goals: progress clamps, reaching 1 completes and satisfies the need.
        from maid_stdlib.living import Goal

        api.add_goal(
            world,
            smith,
            Goal(
                "forge",
                description="Relight the forge",
                need="economic",
                completion_need_delta=0.25,
            ),
        )
        goals = world.get_component(smith, GoalsComponent)
        assert goals.has_active_goals()
        assert goals.primary() is not None
        goal = api.advance_goal(world, smith, 0.6, "forge")
        assert goal is not None
        assert goal.progress == pytest.approx(0.6)
        assert goal.is_open
        api.advance_goal(world, smith, 0.6)
        assert goal.status == GoalStatus.DONE
        assert goal.progress == 1.0
        assert api.get_need_value(world, smith, "economic") == pytest.approx(0.25)
        assert not goals.has_active_goals()
        assert api.complete_goal(world, trader) is None


def test_schema_problems_name_the_file_and_entry() -> None:
    raw = copy.deepcopy(LIVING)
    raw["npcs"]["hollin"]["needs"]["economic"]["decay"] = -1
    raw["npcs"]["hollin"]["moods"] = {}
    raw["factions"]["bandits"]["hostle"] = True
    _, problems = parse_living(raw, "hamlet/living.yaml")
    assert (
        "hamlet/living.yaml: npc 'hollin': needs.economic.decay: "
        "Input should be greater than or equal to 0" in problems
    )
    assert "hamlet/living.yaml: npc 'hollin': moods: unknown key" in problems
    assert "hamlet/living.yaml: faction 'bandits': hostle: unknown key" in problems


async def test_invalid_yaml_stops_registration(tmp_path: Path) -> None:
    pack = hamlet_pack(tmp_path / "p")
    (tmp_path / "p" / "living.yaml").write_text("npcs: [unclosed\n")
    engine = make_engine(tmp_path, [pack])
    with pytest.raises(PackError, match=r"p/living.yaml:2: invalid YAML at line 2"):
        await engine.start()
    await engine.stop()


async def test_bad_references_stop_startup_naming_each(tmp_path: Path) -> None:
    data = copy.deepcopy(LIVING)
    smith = data["npcs"]["hollin"]
    smith["supply"][0]["route"] = ["road_bridge", "roda2"]
    smith["needs"]["economic"]["modifiers"][0]["when"] = "supply_blockd"
    smith["needs"]["economic"]["modifiers"].append({"when": "not:threat_in:glade", "add": 0.01})
    smith["relationships"] = {"nobody": {"trust": 0.2}}
    smith["schedule"] = [{"hour": 9, "room": "inn"}, {"hour": 20, "room": "pub"}]
    data["npcs"]["ghost"] = {}
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p", data)])
    with pytest.raises(PackError) as err:
        await engine.start()
    text = str(err.value)
    for expected in (
        "p/living.yaml: npc 'hollin': supply[0].route: unknown room 'hamlet:roda2'",
        "p/living.yaml: npc 'hollin': needs.economic.modifiers[0].when: "
        "unknown condition 'supply_blockd'",
        "p/living.yaml: npc 'hollin': needs.economic.modifiers[1].when: "
        "unknown room 'hamlet:glade'",
        "p/living.yaml: npc 'hollin': relationships: no NPC 'hamlet:nobody' in the world",
        "p/living.yaml: npc 'hollin': schedule[1].room: unknown room 'hamlet:pub'",
        "p/living.yaml: npc 'ghost': no NPC 'hamlet:ghost' in the world data",
    ):
        assert expected in text
    await engine.stop()


async def test_stored_needs_hold_values_only_and_old_saves_load_alike(
    db_url: str, tmp_path: Path
) -> None:
    """A need's rule (decay, threshold, modifiers, satisfiers, goal) comes from the
    data and is not stored; a save made before the split, which stored it, loads to
    the same component as a save made now."""
    from maid_engine.store import EntityChangeSet
    from maid_stdlib.living import NeedsComponent

    pack = hamlet_pack(tmp_path / "p")
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        smith = npc(engine, "hollin")
        api.satisfy_need(engine.world, smith, -0.5, "economic")
        seeded = copy.deepcopy(engine.world.get_component(smith, NeedsComponent))
        assert seeded.needs["economic"].threshold == 0.4  # the data's rule is there
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        stored = await engine.store.entities.load(smith)
        assert stored is not None
        assert stored["Needs"] == {"needs": {"economic": {"value": pytest.approx(0.4)}}}
        from_new = engine.world.get_component(smith, NeedsComponent)
        assert from_new == seeded
        # The same state as the stores of earlier versions wrote it: rule and all
        # (with a rule the data no longer has, which the data's replaces).
        old_save = {
            "needs": {
                "economic": {
                    "value": stored["Needs"]["needs"]["economic"]["value"],
                    "decay": 0.5,
                    "threshold": 0.9,
                    "modifiers": [{"when": "supply_blocked", "decay_x": 3.0, "add": 0.0}],
                    "satisfied_by": [],
                    "goal": {"id": "old_goal", "type": "ACQUIRE"},
                }
            }
        }
        await engine.store.entities.save(EntityChangeSet(upserts={smith: {"Needs": old_save}}))
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        assert engine.world.get_component(smith, NeedsComponent) == seeded
    # Loaded on their own (before seeding), the two saves are the same component too.
    from maid_engine.ecs.component import load_component

    assert load_component("Needs", old_save) == load_component("Needs", stored["Needs"])


def test_npcs_of_one_template_share_their_need_rules() -> None:
    from maid_stdlib.living import NeedsComponent, NeedState
    from maid_stdlib.living.data import LivingData
    from maid_stdlib.living.seeding import need_rule

    parsed, problems = parse_living(LIVING, "hamlet/living.yaml")
    assert parsed is not None
    assert not problems
    data = LivingData("hamlet", "hamlet/living.yaml", parsed)
    spec = data.spec.npcs["hollin"].needs["economic"]
    rule = need_rule(spec, data)
    assert need_rule(spec, data) is rule
    # A copied component (a consequence's snapshot) still shares it.
    needs = NeedsComponent({"economic": NeedState(0.5, rule)})
    assert copy.deepcopy(needs).needs["economic"].rule is rule
    assert rule.threshold == 0.4
    assert rule.modifiers[0].when == "supply_blocked"
    assert rule.goal is not None
    assert rule.goal.id == "get_iron"


async def test_restart_keeps_state_and_refreshes_configuration(db_url: str, tmp_path: Path) -> None:
    pack = hamlet_pack(tmp_path / "p")
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        smith = npc(engine, "hollin")
        api.satisfy_need(engine.world, smith, -0.5, "economic")
        api.adjust_relationship(engine.world, smith, npc(engine, "pell"), trust=0.3)
    data = copy.deepcopy(LIVING)
    data["npcs"]["hollin"]["needs"]["economic"]["threshold"] = 0.2  # a builder's edit
    hamlet_pack(tmp_path / "p", data)
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        from maid_stdlib.living import NeedsComponent

        needs = engine.world.get_component(npc(engine, "hollin"), NeedsComponent)
        assert needs.value("economic") == pytest.approx(0.4)  # state kept
        assert needs.needs["economic"].threshold == 0.2  # configuration refreshed
        rel = api.get_relationship(engine.world, npc(engine, "hollin"), npc(engine, "pell"))
        assert rel is not None
        assert rel.trust == pytest.approx(0.3)
        assert living_of(engine).factions["bandits"].hostile
