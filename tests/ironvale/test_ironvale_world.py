"""Ironvale's world data: its areas and regions, where its cast stands, and that the
shipped pack checks clean."""

from __future__ import annotations

from pathlib import Path

from kits.engines import ws_of
from kits.heroes import new_character
from world.worldkit import make_engine

from maid_engine.packcheck import check_pack
from maid_engine.testing import cmd
from maid_stdlib.navigation.layout import VECTORS, MapCoords
from maid_stdlib.world import NPC, Area, Describable, Item


async def test_ironvale_loads_two_areas_in_two_regions(tmp_path: Path) -> None:
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as engine:
        ws = ws_of(engine)
        assert ws.room_count >= 12
        assert ws.start_room == "ironvale:square"
        areas = {a: ws.area(a).name for a in ws.area_keys()}  # type: ignore[union-attr]
        # Other content (e.g. the narrated cellar) may add areas; these two are the core.
        assert areas["ironvale:village"] == "Ironvale"
        assert areas["ironvale:old_trade_road"] == "Old Trade Road"
        assert ws.area_of("ironvale:smithy") == "ironvale:village"
        assert ws.region_of("ironvale:smithy") == "ironvale"
        assert ws.area_of("ironvale:bandit_camp") == "ironvale:old_trade_road"
        assert ws.region_of("ironvale:bandit_camp") == "trade_road"
        assert engine.world.count(Area) == len(areas)


async def test_ironvale_cast_is_where_the_story_needs_it(tmp_path: Path) -> None:
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as engine:
        ws = ws_of(engine)

        def named(room: str, word: str) -> str:
            found = ws.find_in_room(room, word, kinds=[NPC])
            assert found is not None, f"no {word} in {room}"
            return engine.world.get_component(found, Describable).name

        assert named("ironvale:smithy", "blacksmith") == "Gundrik"
        assert named("ironvale:guard_post", "captain") == "Captain Voss"
        assert named("ironvale:selena_stall", "merchant") == "Selena"
        assert named("ironvale:tavern", "keeper") == "Bram Holloway"
        assert named("ironvale:bandit_camp", "kral") == "Kral"
        scouts = [
            n
            for n in ws.npcs_in("ironvale:road_wagon")
            if engine.world.get_component(n, NPC).template == "ironvale:bandit_scout"
        ]
        assert len(scouts) == 3
        assert engine.world.count(Item) >= 3


def test_the_ironvale_pack_has_no_problems() -> None:
    assert check_pack("ironvale") == []
    assert check_pack(Path(__file__).parents[2] / "content_packs" / "ironvale") == []


async def test_every_ironvale_room_has_a_map_place_that_agrees_with_its_exits(
    tmp_path: Path,
) -> None:
    """Declared places are distinct per level, and every compass exit between two
    Ironvale rooms points one cell that way: the map is drawn clean, and a room
    added later without a place still lands where its exits say."""
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as engine:
        ws = ws_of(engine)
        places: dict[str, tuple[int, int, int]] = {}
        for key in ws.room_keys():
            if not key.startswith("ironvale:"):
                continue
            room_id = ws.room_id(key)
            assert room_id is not None
            coords = engine.world.try_component(room_id, MapCoords)
            assert coords is not None, f"{key} has no map: place"
            places[key] = (coords.x, coords.y, coords.z)
        assert len(set(places.values())) == len(places)
        for key, (x, y, z) in places.items():
            for name, target in ws.exits_of(key).items():
                if name in VECTORS and target in places:
                    dx, dy = VECTORS[name]
                    assert places[target] == (x + dx, y + dy, z), f"{key} {name}"
                elif name in ("up", "down") and target in places:
                    assert places[target][2] == z + (1 if name == "up" else -1), f"{key} {name}"


async def test_the_map_of_the_square(tmp_path: Path) -> None:
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as engine:
        hero = new_character(engine, "Alice")
        lines = (await cmd(engine, hero, "map 2")).splitlines()
        assert lines[0] == "|cAround Ironvale Village Square|n (radius 2)"
        assert lines[1:10] == [
            "         [^]",  # the guard post, a ladder up to the watchtower
            "          ||",
            "         [ ]",
            "          ||",
            " [ ]-[ ]-[|y@|n]-[ ]-[ ]",
            "          ||",
            # Miners' Row west of South Street (on to Lamp Lane), the tavern east
            # with its upstairs; the chapel below the row, the gate below the street.
            "    -[ ]-[ ]-[^]",
            "      ||   ||",
            "         [ ]",
        ]


async def test_no_room_says_twice_what_stands_in_it(tmp_path: Path) -> None:
    # A thing's line follows the room's description: the same sentence in both
    # read twice in a row (the square's notice board did).
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as engine:
        ws = ws_of(engine)
        repeated = []
        for key in ws.room_keys():
            room = ws.room(key)
            assert room is not None
            for uid in ws.contents(key):
                desc = engine.world.try_component(uid, Describable)
                if desc is not None and desc.short and desc.short.strip() in room.description:
                    repeated.append((key, desc.short))
        assert repeated == []


async def test_what_the_flooded_drift_names_can_be_looked_at(tmp_path: Path) -> None:
    # A player read of a broken pump and marks on the wall, and could look at neither.
    async with make_engine(tmp_path, packs=["ironvale"]).lifespan() as engine:
        hero = new_character(engine, "Alice", online=False)
        ws_of(engine).move(hero, "ironvale:flooded_drift")
        assert "riveted iron" in await cmd(engine, hero, "look pump")
        assert "tally" in await cmd(engine, hero, "look marks")
        assert "nothing of the floor" in await cmd(engine, hero, "look water")
