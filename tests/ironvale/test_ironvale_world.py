"""Ironvale's world data: its areas and regions, where its cast stands, and that the
shipped pack checks clean."""

from __future__ import annotations

from pathlib import Path

from kits.engines import ws_of
from world.worldkit import make_engine

from maid_engine.packcheck import check_pack
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
