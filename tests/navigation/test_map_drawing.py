"""The map's layout and drawing, on small worlds of their own."""

from __future__ import annotations

import re
from pathlib import Path

from world.worldkit import tiny_area, tmp_pack, write_yaml

from maid_engine.packcheck import check_pack
from maid_stdlib.navigation.drawing import draw
from maid_stdlib.navigation.layout import Coords, lay_out

World = dict[str, dict[str, str]]


def picture(
    world: World,
    here: str,
    radius: int = 4,
    width: int = 80,
    coords: dict[str, Coords] | None = None,
) -> str:
    def exits_of(room: str) -> dict[str, str]:
        return world.get(room, {})

    def coords_of(room: str) -> Coords | None:
        return None if coords is None else coords.get(room)

    placed = lay_out(here, radius, exits_of, coords_of)
    return "\n".join(draw(placed, here, exits_of, width))


CROSS: World = {
    "mid": {"north": "n", "south": "s", "east": "e", "west": "w", "up": "attic"},
    "n": {"south": "mid", "down": "cellar"},
    "s": {"north": "mid", "up": "a", "down": "b"},
    "e": {"west": "mid"},
    "w": {"east": "mid"},
}


def test_rooms_ways_and_markers() -> None:
    assert picture(CROSS, "mid") == "\n".join(
        [
            "     [v]",
            "      |",
            " [ ]-[@]-[ ]",
            "      |",
            "     [#]",
        ]
    )


def test_a_room_with_a_way_up_shows_it_when_it_is_not_you() -> None:
    # "mid" has a way up; its ways to rooms beyond the radius are stubs.
    assert picture(CROSS, "n", radius=1) == "\n".join([" [@]", "  |", "-[^]-", "  |"])


def test_diagonals_meet_in_an_x_and_ways_beyond_the_radius_are_stubs() -> None:
    world: World = {
        "a": {"southeast": "d", "east": "b"},
        "b": {"west": "a", "southwest": "c"},
        "c": {"northeast": "b"},
        "d": {"northwest": "a", "east": "far"},
        "far": {"west": "d"},
    }
    # c is two steps away: only the stub of b's way to it shows, crossing a's way to d.
    assert picture(world, "a", radius=1) == "\n".join([" [@]-[ ]", "    X", "     [ ]-"])
    assert picture(world, "a", radius=2) == "\n".join([" [@]-[ ]", "    X", " [ ] [ ]-[ ]"])


def test_a_cell_taken_twice_keeps_the_first_room() -> None:
    # "loop" says it is east of "b", which puts it where "a" already is.
    world: World = {
        "a": {"north": "b"},
        "b": {"south": "a", "west": "loop"},
        "loop": {"east": "b"},
    }
    placed = lay_out("a", 4, lambda r: world.get(r, {}), lambda r: None)
    assert placed.where == {"a": (0, 0), "b": (0, -1), "loop": (-1, -1)}
    clash: World = {"a": {"north": "b", "east": "c"}, "b": {"south": "a", "southeast": "c"}}
    clash["c"] = {"west": "a"}
    clash["b"]["east"] = "d"
    clash["d"] = {"south": "c2"}
    clash["c2"] = {"north": "d"}
    placed = lay_out("a", 4, lambda r: clash.get(r, {}), lambda r: None)
    assert placed.cells[(1, 0)] == "c"
    assert "c2" not in placed.where  # its cell is c's


def test_declared_coordinates_stretch_a_way_and_keep_other_levels_off() -> None:
    world: World = {
        "gate": {"east": "far", "gate": "yard", "up": "tower"},
        "far": {"west": "gate"},
        "yard": {"out": "gate"},
        "tower": {"down": "gate"},
    }
    coords = {"gate": (0, 0, 0), "far": (3, 0, 0), "yard": (0, 1, 0), "tower": (0, 0, 1)}
    assert picture(world, "gate", coords=coords) == "\n".join([" [@]---------[ ]", "", " [ ]"])


def test_a_long_north_south_way_is_drawn_whole() -> None:
    world: World = {"a": {"south": "b"}, "b": {"north": "a"}}
    coords = {"a": (0, 0, 0), "b": (0, 2, 0)}
    assert picture(world, "a", coords=coords) == "\n".join([" [@]", "  |", "  |", "  |", " [ ]"])


def test_a_map_wider_than_the_client_is_cut_around_you() -> None:
    row = {f"r{i}": {"east": f"r{i + 1}", "west": f"r{i - 1}"} for i in range(-9, 10)}
    full = picture(row, "r0", radius=9, width=200)
    assert len(full) == 4 * 19 + 1  # 19 rooms, a stub at each end
    cut = picture(row, "r0", radius=9, width=21)
    assert len(cut) <= 21
    assert "[@]" in cut
    assert cut.index("[@]") in range(8, 11)


def test_a_map_section_is_checked_with_the_pack(tmp_path: Path) -> None:
    root = tmp_path / "testpack"
    rooms = [
        {"key": "hall", "name": "Hall", "description": "A hall.", "map": {"x": 0, "y": 0}},
        {"key": "yard", "name": "Yard", "description": "A yard.", "map": {"x": 1, "up": 2}},
    ]
    write_yaml(root / "areas" / "town.yaml", tiny_area(rooms=rooms))
    problems = check_pack(tmp_pack(root))
    assert len(problems) == 2, problems
    assert all(re.match(r"testpack/areas/town\.yaml:\d+: room 'yard': map", p) for p in problems), (
        problems
    )
    assert any("y" in p and "missing" in p for p in problems)
    assert any("up" in p for p in problems)
