"""check-pack on a copy of Ironvale: a broken room or NPC is one problem in its area
file, not also an unknown one in quests.yaml; quest problems carry their lines."""

from __future__ import annotations

import shutil
from pathlib import Path

from maid_engine.packcheck import check_pack

IRONVALE = Path(__file__).resolve().parents[2] / "content_packs" / "ironvale"


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def copy(tmp_path: Path) -> Path:
    pack = tmp_path / "ironvale"
    shutil.copytree(IRONVALE, pack, ignore=shutil.ignore_patterns("__pycache__"))
    return pack


def test_broken_entries_are_not_unknown_in_quests(tmp_path: Path) -> None:
    """quests.yaml sends players to road_ridge and has Voss give the quest: with both
    entries broken, each is one problem in its area file and none in quests.yaml."""
    pack = copy(tmp_path)
    road = pack / "areas" / "old_trade_road.yaml"
    road.write_text(
        road.read_text().replace(
            "  - key: road_ridge\n", "  - key: road_ridge\n    colour: red\n", 1
        )
    )
    village = pack / "areas" / "village.yaml"
    village.write_text(
        village.read_text().replace("  - key: voss\n", "  - key: voss\n    mood: grim\n", 1)
    )
    problems = check_pack(pack)
    assert len(problems) == 2, problems
    ridge, voss = line_of(road, "colour: red"), line_of(village, "mood: grim")
    assert problems[0].startswith(f"ironvale/areas/old_trade_road.yaml:{ridge}: room 'road_ridge'")
    assert problems[1].startswith(f"ironvale/areas/village.yaml:{voss}: npc 'voss': unknown key")
    assert not any("quests.yaml" in p for p in problems)


def test_quest_problems_have_lines(tmp_path: Path) -> None:
    pack = copy(tmp_path)
    quests = pack / "quests.yaml"
    quests.write_text(quests.read_text().replace("giver: voss", "giver: vos", 1))
    [problem] = check_pack(pack)
    assert problem == (
        f"ironvale/quests.yaml:{line_of(quests, 'giver: vos')}: quest "
        + problem.split(": quest ", 1)[1]
    )
    assert "giver: unknown NPC 'ironvale:vos'" in problem
