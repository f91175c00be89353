"""check-pack problems carry ``file:line``, and one mistake is one problem: a broken
room is not also an unknown room elsewhere (exits, quests.yaml), a file that is not
YAML does not make every reference into the pack unknown, nothing is said twice."""

from __future__ import annotations

import shutil
from pathlib import Path

from maid_engine.packcheck import check_pack

HAMLET = Path(__file__).resolve().parents[1] / "kits" / "hamlet"


def line_of(path: Path, needle: str) -> int:
    """The 1-based line of the first line of ``path`` containing ``needle``."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def copy(src: Path, tmp_path: Path, name: str) -> Path:
    pack = tmp_path / name
    shutil.copytree(src, pack)
    return pack


def test_every_world_problem_has_its_line(tmp_path: Path) -> None:
    pack = copy(HAMLET, tmp_path, "hamlet")
    area = pack / "areas" / "hamlet.yaml"
    text = area.read_text()
    text = text.replace(
        "keywords: [wenna, goatherd]", "keywords: [wenna, goatherd]\n    smell: goat", 1
    )
    text = text.replace("  - key: marta\n", "  - key: marta\n    count: -3\n", 1)
    area.write_text(text)
    problems = check_pack(pack)
    smell = line_of(area, "smell: goat")
    count = line_of(area, "count: -3")
    assert f"hamlet/areas/hamlet.yaml:{smell}: npc 'wenna': unknown key 'smell'" in "\n".join(
        problems
    ), problems
    assert any(
        p.startswith(f"hamlet/areas/hamlet.yaml:{count}: npc 'marta': count") for p in problems
    )
    assert len(problems) == len(set(problems)), "a problem was reported twice"


def test_a_syntax_error_is_one_problem(tmp_path: Path) -> None:
    pack = copy(HAMLET, tmp_path, "hamlet")
    road = pack / "areas" / "mill_road.yaml"
    road.write_text(road.read_text().replace("npcs:", "npcs: [unclosed", 1))
    problems = check_pack(pack)
    # The rooms of the broken file are not "unknown" to the exits of the other.
    assert len(problems) == 1, problems
    assert problems[0].startswith("hamlet/areas/mill_road.yaml:")
    assert "invalid YAML" in problems[0]


def test_bad_npc_references_in_living_data_have_lines(tmp_path: Path) -> None:
    pack = copy(HAMLET, tmp_path, "hamlet")
    living = pack / "living.yaml"
    text = living.read_text().replace("npcs:\n", "npcs:\n  nobody:\n    needs: {}\n", 1)
    living.write_text(text)
    problems = check_pack(pack)
    line = line_of(living, "  nobody:")
    assert problems == [
        f"hamlet/living.yaml:{line}: npc 'nobody': no NPC 'hamlet:nobody' in the world data"
    ]


def test_a_broken_npc_is_not_unknown_in_living_data(tmp_path: Path) -> None:
    pack = copy(HAMLET, tmp_path, "hamlet")
    area = pack / "areas" / "hamlet.yaml"
    area.write_text(
        area.read_text().replace("  - key: hollin\n", "  - key: hollin\n    mood: 3\n", 1)
    )
    problems = check_pack(pack)
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        f"hamlet/areas/hamlet.yaml:{line_of(area, 'mood: 3')}: npc 'hollin'"
    )


def test_a_failing_register_does_not_hide_the_rest(tmp_path: Path) -> None:
    """A register() that raises is one problem; the world data is still checked,
    and the pack's own check does not fail again on the same cause."""
    pack = copy(HAMLET, tmp_path, "hamlet")
    living = pack / "living.yaml"
    living.write_text(living.read_text().replace("needs:", "needz:", 1))
    area = pack / "areas" / "hamlet.yaml"
    area.write_text(
        area.read_text().replace("  - key: marta\n", "  - key: marta\n    mood: 3\n", 1)
    )
    problems = check_pack(pack)
    assert len(problems) == 2, problems
    assert "living.yaml" in problems[0]
    assert "needz" in problems[0]
    assert problems[1].startswith(f"hamlet/areas/hamlet.yaml:{line_of(area, 'mood: 3')}:")
