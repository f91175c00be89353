"""Loading world data: a data pack (the Hamlet test world), validation problems, extensions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from kits.engines import ws_of
from kits.hamlet.pack import HamletPack
from world.worldkit import (
    OgreStats,
    StatsData,
    apply_stats,
    make_engine,
    stats_pack,
    tiny_area,
    tmp_pack,
    write_yaml,
)

from maid_engine.content import PackError
from maid_engine.packcheck import check_pack as check_pack_lined
from maid_stdlib.world import (
    NPC,
    Describable,
    Exits,
    Room,
    WorldData,
    data_uuid,
)


def unlined(problems: list[str]) -> list[str]:
    """The problems without their line numbers (test_problems_carry_their_lines
    checks those); the other tests read what each problem says."""
    return [re.sub(r"(\S+\.yaml):\d+:", r"\1:", p) for p in problems]


def check_pack(*args: Any, **kwargs: Any) -> list[str]:
    return unlined(check_pack_lined(*args, **kwargs))


async def test_every_room_is_reachable_from_the_start(tmp_path: Path) -> None:
    async with make_engine(tmp_path).lifespan() as engine:
        ws = ws_of(engine)
        for key in ws.room_keys():
            assert ws.is_reachable("hamlet:green", key), key
            assert ws.is_reachable(key, "hamlet:green"), key


async def test_data_entities_have_deterministic_ids(tmp_path: Path) -> None:
    async with make_engine(tmp_path).lifespan() as engine:
        ws = ws_of(engine)
        assert ws.room_id("hamlet:mill") == data_uuid("hamlet", "room", "mill")
        miller = data_uuid("hamlet", "npc", "hollin")
        assert engine.world.get_component(miller, NPC).template == "hamlet:hollin"
        assert engine.world.entity_exists(data_uuid("hamlet", "npc", "wolf#2"))
        exits = engine.world.get_component(ws.room_id("hamlet:green"), Exits)  # type: ignore[arg-type]
        assert exits.exits["west"] == "hamlet:mill_lane"


async def test_on_world_loaded_twice_does_not_duplicate(tmp_path: Path) -> None:
    async with make_engine(tmp_path).lifespan() as engine:
        before = engine.world.entity_count
        miller = data_uuid("hamlet", "npc", "hollin")
        ws_of(engine).move(miller, "hamlet:green", reason="test")
        pack = next(p for p in engine.packs if p.name == "hamlet")
        from maid_engine.content import PackContext

        await pack.on_world_loaded(PackContext(engine, pack))
        assert engine.world.entity_count == before
        assert ws_of(engine).room_key_of(miller) == "hamlet:green"
        assert engine.world.count(Room) == ws_of(engine).room_count


async def test_slain_npcs_are_not_respawned_by_a_rebuild(tmp_path: Path) -> None:
    async with make_engine(tmp_path).lifespan() as engine:
        leader = data_uuid("hamlet", "npc", "old_grey")
        engine.world.destroy_entity(leader)
        await engine.dispatch_events()
        pack = next(p for p in engine.packs if p.name == "hamlet")
        from maid_engine.content import PackContext

        await pack.on_world_loaded(PackContext(engine, pack))
        assert not engine.world.entity_exists(leader)
        assert ws_of(engine).npcs_in("hamlet:wolf_den") == []


# -- validation -------------------------------------------------------------------


def problems_of(
    tmp_path: Path, area: dict[str, Any] | str, manifest: dict[str, Any] | None = None
) -> list[str]:
    root = tmp_path / "testpack"
    write_yaml(root / "areas" / "town.yaml", area)
    if manifest is not None:
        write_yaml(root / "pack.yaml", manifest)

    return check_pack(tmp_pack(root))


def test_a_valid_tiny_pack_has_no_problems(tmp_path: Path) -> None:
    assert problems_of(tmp_path, tiny_area(), {"start_room": "hall"}) == []


@pytest.mark.parametrize(
    ("area", "expected"),
    [
        ("rooms: [unclosed", "testpack/areas/town.yaml: invalid YAML at line"),
        ("", "testpack/areas/town.yaml: the file is empty"),
        ("- a\n- b\n", "testpack/areas/town.yaml: must be a mapping"),
        (
            {"area": {"key": "town", "name": "Town", "region": "r"}, "monsters": []},
            "testpack/areas/town.yaml: unknown section 'monsters'",
        ),
        ({"rooms": []}, "testpack/areas/town.yaml: area: missing"),
        (
            tiny_area(rooms=[{"key": "hall", "name": "Hall"}]),
            "testpack/areas/town.yaml: room 'hall': description: required but missing",
        ),
        (
            tiny_area(rooms=[{"key": "Hall!", "name": "Hall", "description": "x"}]),
            "testpack/areas/town.yaml: room 'Hall!': key: 'Hall!' is not a valid key",
        ),
        (
            tiny_area(rooms=[{"key": "hall", "name": "Hall", "description": "x", "smell": 1}]),
            "testpack/areas/town.yaml: room 'hall': unknown key 'smell'",
        ),
        (
            tiny_area(
                rooms=[
                    {
                        "key": "hall",
                        "name": "Hall",
                        "description": "x",
                        "exits": {"north": "nowhere"},
                    }
                ]
            ),
            "testpack/areas/town.yaml: room 'hall': exit 'north' leads to unknown room "
            "'testpack:nowhere'",
        ),
        (
            tiny_area(
                rooms=[
                    {
                        "key": "hall",
                        "name": "Hall",
                        "description": "x",
                        "exits": {"n": "hall", "north": "hall"},
                    }
                ]
            ),
            "testpack/areas/town.yaml: room 'hall': exits: exit 'north' is given twice",
        ),
        (
            tiny_area(
                rooms=[
                    {
                        "key": "hall",
                        "name": "Hall",
                        "description": "x",
                        "exits": {"north": "elsewhere:hall"},
                    }
                ]
            ),
            "(pack 'elsewhere' is not among the packs 'testpack' requires)",
        ),
        (
            tiny_area(
                rooms=[
                    {"key": "hall", "name": "Hall", "description": "x"},
                    {"key": "hall", "name": "Hall 2", "description": "y"},
                ]
            ),
            "testpack/areas/town.yaml: room 'hall': duplicate room key",
        ),
        (
            tiny_area(npcs=[{"key": "bob", "name": "Bob", "keywords": ["bob"], "room": "cellar"}]),
            "testpack/areas/town.yaml: npc 'bob': room 'testpack:cellar' does not exist",
        ),
        (
            tiny_area(npcs=[{"key": "bob", "name": "Bob", "keywords": [], "room": "hall"}]),
            "testpack/areas/town.yaml: npc 'bob': keywords: List should have at least 1 item",
        ),
        (
            tiny_area(
                items=[
                    {
                        "key": "rock",
                        "name": "a rock",
                        "keywords": ["rock"],
                        "count": 0,
                        "room": "hall",
                    }
                ]
            ),
            "testpack/areas/town.yaml: item 'rock': count: Input should be greater than",
        ),
        (tiny_area(npcs="bob"), "testpack/areas/town.yaml: npcs: must be a list of entries"),
        (tiny_area(items=["rock"]), "testpack/areas/town.yaml: items[0]: must be a mapping"),
    ],
)
def test_each_kind_of_problem_names_file_entry_and_problem(
    tmp_path: Path, area: dict[str, Any] | str, expected: str
) -> None:
    problems = problems_of(tmp_path, area)
    assert any(expected in p for p in problems), problems


def test_manifest_problems(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, tiny_area(), {"start_room": "attic", "colour": "red"})
    assert "testpack/pack.yaml: colour: unknown key" in problems
    problems = problems_of(tmp_path, tiny_area(), {"start_room": "attic"})
    assert problems == ["testpack/pack.yaml: start_room: unknown room 'testpack:attic'"]


def test_a_pack_without_area_files_is_reported(tmp_path: Path) -> None:

    root = tmp_path / "empty"
    root.mkdir()
    assert check_pack(tmp_pack(root, "empty")) == ["empty/areas: no area files (*.yaml) found"]


def test_check_pack_reports_every_problem_at_once(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    write_yaml(
        root / "areas" / "a.yaml",
        tiny_area(
            rooms=[
                {"key": "hall", "name": "Hall", "description": "x", "exits": {"up": "loft"}},
                {"key": "yard", "description": "no name"},
            ]
        ),
    )
    write_yaml(
        root / "areas" / "c.yaml",
        tiny_area(
            "other",
            rooms=[
                {"key": "hall", "name": "Hall again", "description": "dup"},
            ],
            npcs=[{"key": "ghost", "name": "a ghost", "keywords": ["ghost"], "room": "crypt"}],
        ),
    )
    write_yaml(root / "pack.yaml", {"start_room": "nowhere"})

    problems = check_pack(tmp_pack(root))
    assert len(problems) == 5, problems
    text = "\n".join(problems)
    assert "testpack/areas/a.yaml: room 'hall': exit 'up' leads to unknown room" in text
    assert "testpack/areas/a.yaml: room 'yard': name: required but missing" in text
    assert "testpack/areas/c.yaml: room 'hall': duplicate room key (first defined in" in text
    assert "testpack/areas/c.yaml: npc 'ghost': room 'testpack:crypt' does not exist" in text
    assert "testpack/pack.yaml: start_room: unknown room 'testpack:nowhere'" in text


def test_check_pack_by_path_imports_the_pack_file(tmp_path: Path) -> None:

    root = tmp_path / "pathpack"
    write_yaml(
        root / "pack.py",
        (
            "from maid_stdlib.world import WorldDataPack\n\n\n"
            "class PathPack(WorldDataPack):\n    name = 'pathpack'\n"
        ),
    )
    write_yaml(
        root / "areas" / "a.yaml",
        tiny_area(
            rooms=[
                {"key": "hall", "name": "Hall", "description": "x", "exits": {"east": "void"}},
            ]
        ),
    )
    assert check_pack(root) == [
        "pathpack/areas/a.yaml: room 'hall': exit 'east' leads to unknown room 'pathpack:void'"
    ]
    assert check_pack(root / "pack.py") == check_pack(root)
    [problem] = check_pack(tmp_path)
    assert "no pack.py" in problem


def test_check_pack_of_an_unknown_name() -> None:

    problems = check_pack("no-such-pack")
    assert len(problems) == 1
    assert "no-such-pack" in problems[0]
    assert "not found" in problems[0]


async def test_bad_data_fails_start_up_with_a_pack_error(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    write_yaml(
        root / "areas" / "town.yaml",
        tiny_area(
            rooms=[
                {"key": "hall", "name": "Hall", "description": "x", "exits": {"north": "nowhere"}},
            ]
        ),
    )
    engine = make_engine(tmp_path, packs=[tmp_pack(root)])
    with pytest.raises(PackError) as info:
        async with engine.lifespan():
            pass
    message = "\n".join(unlined(str(info.value).splitlines()))
    assert "content pack 'testpack'" in message
    assert "testpack/areas/town.yaml: room 'hall': exit 'north' leads to unknown room" in message
    assert info.value.file == "testpack/areas/town.yaml"


async def test_exits_may_lead_into_a_required_pack(tmp_path: Path) -> None:
    root = tmp_path / "annex"
    write_yaml(
        root / "areas" / "annex.yaml",
        tiny_area(
            "annex",
            rooms=[
                {
                    "key": "porch",
                    "name": "Porch",
                    "description": "A porch.",
                    "exits": {"west": "hamlet:green"},
                },
            ],
        ),
    )
    annex = tmp_pack(root, "annex", requires=(HamletPack,))

    assert check_pack(annex) == []
    async with make_engine(tmp_path, packs=[annex]).lifespan() as engine:
        ws = ws_of(engine)
        ws.set_exit("hamlet:green", "east", "annex:porch")
        assert ws.path("hamlet:mill", "annex:porch") == ["east", "east", "east"]
        assert ws.start_room == "hamlet:green"


# -- extensions ---------------------------------------------------------------------


def npc_area(stats: object) -> dict[str, Any]:
    return tiny_area(
        npcs=[
            {"key": "ogre", "name": "an ogre", "keywords": ["ogre"], "room": "hall", "stats": stats}
        ]
    )


async def test_extension_sections_add_components(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    write_yaml(root / "areas" / "town.yaml", npc_area({"level": 3, "hp": 40}))
    pack = tmp_pack(root, requires=("stdlib", "rules"))
    async with make_engine(tmp_path, packs=[stats_pack(), pack]).lifespan() as engine:
        ogre = data_uuid("testpack", "npc", "ogre")
        assert engine.world.get_component(ogre, OgreStats) == OgreStats(level=3, hp=40)


def test_extension_values_are_validated_by_their_model(tmp_path: Path) -> None:

    root = tmp_path / "testpack"
    write_yaml(root / "areas" / "town.yaml", npc_area({"level": "high", "mana": 3}))
    problems = check_pack(tmp_pack(root), also=[stats_pack()])
    assert sorted(problems) == [
        "testpack/areas/town.yaml: npc 'ogre': stats.level: Input should be a valid integer, "
        "unable to parse string as an integer",
        "testpack/areas/town.yaml: npc 'ogre': stats.mana: unknown key",
    ]


def test_an_extension_key_nobody_registered_is_an_error(tmp_path: Path) -> None:

    root = tmp_path / "testpack"
    write_yaml(root / "areas" / "town.yaml", npc_area({"level": 3}))
    [problem] = check_pack(tmp_pack(root))
    assert problem.startswith("testpack/areas/town.yaml: npc 'ogre': unknown key 'stats'")
    assert "(not an NPC field," in problem
    assert "no loaded pack registered a 'stats' extension for npcs" in problem


def test_extension_checks_see_the_whole_pack(tmp_path: Path) -> None:

    root = tmp_path / "testpack"
    write_yaml(root / "areas" / "town.yaml", npc_area({"level": 5, "hp": 5}))
    assert check_pack(tmp_pack(root), also=[stats_pack(with_check=True)]) == [
        "testpack/areas/town.yaml: npc 'ogre': stats: hp must exceed the level"
    ]


def test_extension_registration_rules() -> None:
    data = WorldData()
    data.register_extension("npc", "stats", StatsData, apply_stats, owner="rules")
    with pytest.raises(ValueError, match="already registered by rules"):
        data.register_extension("npc", "stats", StatsData, apply_stats)
    with pytest.raises(ValueError, match="already have a 'room' field"):
        data.register_extension("npc", "room", StatsData, apply_stats)
    with pytest.raises(ValueError, match="unknown entry kind"):
        data.register_extension("monster", "stats", StatsData, apply_stats)
    assert [e.key for e in data.extensions_for("npc")] == ["stats"]


def test_one_broken_room_is_one_problem(tmp_path: Path) -> None:
    problems = problems_of(
        tmp_path,
        tiny_area(
            rooms=[
                {"key": "hall", "name": "Hall"},
                {"key": "yard", "name": "Yard", "description": "A yard.", "exits": {"s": "hall"}},
            ]
        ),
    )
    assert problems == ["testpack/areas/town.yaml: room 'hall': description: required but missing"]


async def test_an_npc_has_the_pronouns_its_data_gives_they_by_default(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    npcs = [
        {"key": "ogre", "name": "Grud", "keywords": ["grud"], "room": "hall", "pronouns": "he"},
        {"key": "imp", "name": "an imp", "keywords": ["imp"], "room": "hall"},
    ]
    write_yaml(root / "areas" / "town.yaml", tiny_area(npcs=npcs))
    async with make_engine(tmp_path, packs=[tmp_pack(root)]).lifespan() as engine:
        said = {
            key: engine.world.get_component(data_uuid("testpack", "npc", key), Describable)
            for key in ("ogre", "imp")
        }
        assert (said["ogre"].pronouns, said["imp"].pronouns) == ("he", "they")
    npcs[0]["pronouns"] = "him"
    write_yaml(root / "areas" / "town.yaml", tiny_area(npcs=npcs))
    [problem] = check_pack(tmp_pack(root))
    assert "npc 'ogre': pronouns: Input should be 'he', 'she', 'they' or 'it'" in problem
