"""What NPCs, rooms and notice boards show is built from the living world: lines
valid under conditions, a line made from activity and mood where none fits, room
parts by state, a board listing public needs; bad references are refused."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kits.heroes import new_character, place
from living.livingkit import LIVING, hamlet_pack, make_engine, npc

from maid_engine.content import PackError
from maid_engine.testing import cmd
from maid_stdlib.living import LivingWorld
from maid_stdlib.living.api import set_need
from maid_stdlib.living.presence import Presence
from maid_stdlib.questgen.system_wiring import QuestBoardSection
from maid_stdlib.world import WorldService
from maid_stdlib.world.components import Describable, Room


def _living() -> dict[str, Any]:
    data = copy.deepcopy(LIVING)
    hollin = data["npcs"]["hollin"]
    hollin["schedule"] = [
        {"hour": 6, "room": "mill", "activity": "grinding"},
        {"hour": 20, "room": "inn", "activity": "having_supper"},
    ]
    hollin["presence"] = [
        # The hand-written line ("Hollin the miller is here") only at the mill.
        {"when": ["at:mill", "not:need_low"]},
        {"when": ["doing:grinding"], "short": "Hollin heaves a sack onto the millstone."},
    ]
    data["rooms"] = {
        "mill_lane": {
            "parts": {
                "wheel": [
                    {"who": "hollin", "when": ["doing:grinding"], "text": "The wheel turns."},
                    {"text": "The wheel stands still."},
                ]
            }
        }
    }
    data["boards"] = {"notice_board": {"area": "hamlet"}}
    return data


def _engine(tmp_path: Path, living: dict[str, Any]) -> Any:
    return make_engine(tmp_path, [hamlet_pack(tmp_path / "pack", living)])


async def test_lines_parts_and_board_follow_the_living_world(tmp_path: Path) -> None:
    engine = _engine(tmp_path, _living())
    async with engine.lifespan():
        world = engine.world
        hollin = npc(engine, "hollin")
        ws = engine.services.get(WorldService)
        living = engine.services.get(LivingWorld)
        await engine.run_ticks(1)  # 08:00: at the mill, content: the data's line
        desc = world.get_component(hollin, Describable)
        data_line = desc.short
        assert ws.room_key_of(hollin) == "hamlet:mill"
        lane = world.get_component(ws.room_id("hamlet:mill_lane"), Room)
        assert "The wheel turns." in lane.description
        # In need, the data's line no longer fits: the next line holds.
        set_need(world, hollin, "economic", 0.1)
        await engine.run_ticks(2)
        assert desc.short == "Hollin heaves a sack onto the millstone."
        # Nothing written fits at the inn: a line from activity and mood.
        ws.move(hollin, "hamlet:inn", reason="test")
        await engine.dispatch_events()
        assert desc.short == "Hollin is here, looking worried."
        assert data_line != desc.short
        await engine.run_ticks(2)
        assert "The wheel stands still." in lane.description
        assert "{" not in lane.description
        # The board lists what the hamlet's people need.
        board = next(u for u, d in world.each(Describable) if "notice" in d.name.lower())
        await engine.run_ticks(12)
        assert living.presence.public_needs("hamlet:hamlet") == [
            "Hollin: Get iron (held up by bandits at the Copse)."
        ]
        text = world.get_component(board, Describable).description
        assert "Pinned up lately:\n  - Hollin: Get iron" in text


async def test_look_shows_the_made_line(tmp_path: Path) -> None:
    engine = _engine(tmp_path, _living())
    async with engine.lifespan():
        await engine.run_ticks(1)
        hollin = npc(engine, "hollin")
        set_need(engine.world, hollin, "economic", 0.1)
        alice = new_character(engine)
        place(engine, alice, "hamlet:inn")
        place(engine, hollin, "hamlet:inn")
        await engine.dispatch_events()
        assert "Hollin is here, looking worried." in await cmd(engine, alice, "look")
        assert "A floury, worried man." in await cmd(engine, alice, "look hollin")
        presence: Presence = engine.services.get(LivingWorld).presence
        assert presence.mood(hollin) == "worried"


class _Oq:
    def __init__(self, quest: Any) -> None:
        self.quest = quest


class _Quest:
    def __init__(self, title: str, giver: Any) -> None:
        self.title = title
        self.quest_giver_id = giver


class _Service:
    def __init__(self, quests: dict[str, Any]) -> None:
        self.quests = quests

    def open_quests(self) -> dict[str, Any]:
        return self.quests


async def test_the_board_lists_open_quests_of_its_area(tmp_path: Path) -> None:
    engine = _engine(tmp_path, _living())
    async with engine.lifespan():
        hollin = npc(engine, "hollin")
        section = QuestBoardSection(
            _Service({"q": _Oq(_Quest("The Miller's Errand", hollin))}),  # type: ignore[arg-type]
            engine,
        )
        assert section.lines("hamlet:hamlet") == [
            "Work on offer:",
            "  - The Miller's Errand (ask Hollin)",
        ]
        assert section.lines("hamlet:mill_road") == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: d["npcs"]["hollin"]["presence"].append({"when": ["sulking"]}),
            "presence[2].when[0]: unknown condition 'sulking'",
        ),
        (
            lambda d: d["rooms"]["mill_lane"]["parts"]["wheel"].append(
                {"who": "nobody", "text": "x"}
            ),
            "parts.wheel[2].who: no NPC 'hamlet:nobody'",
        ),
        (
            lambda d: d["rooms"]["mill_lane"]["parts"]["wheel"].append(
                {"when": ["always"], "text": "x"}
            ),
            "parts.wheel[2]: conditions need a 'who'",
        ),
        (lambda d: d["boards"].update(nothing={"area": "hamlet"}), "no item 'hamlet:nothing'"),
        (lambda d: d["boards"].update(notice_board={"area": "moon"}), "no area 'hamlet:moon'"),
        (lambda d: d["rooms"].update(moon={"parts": {}}), "unknown room 'hamlet:moon'"),
    ],
)
async def test_bad_presence_data_is_refused(tmp_path: Path, change: Any, problem: str) -> None:
    data = _living()
    change(data)
    engine = _engine(tmp_path, data)
    with pytest.raises(PackError) as err:
        await engine.start()
    await engine.stop()
    assert problem in str(err.value)
