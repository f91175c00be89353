"""`check_pack` reports the problems of every file at once, even when one of them
is read while the pack registers (the living.yaml of the test world)."""

from __future__ import annotations

import shutil
from pathlib import Path

from maid_engine.packcheck import check_pack

HAMLET = Path(__file__).resolve().parents[1] / "kits" / "hamlet"


def test_a_bad_living_file_does_not_hide_area_problems(tmp_path: Path) -> None:
    pack = tmp_path / "broken_hamlet"
    shutil.copytree(HAMLET, pack)
    living = pack / "living.yaml"
    living.write_text(living.read_text().replace("needs:", "needz:", 1))
    hamlet = pack / "areas" / "hamlet.yaml"
    text = hamlet.read_text()
    cut = text.index("exits:") + len("exits:\n")
    hamlet.write_text(text[:cut] + "      nowhere: no_such_room\n" + text[cut:])

    problems = check_pack(pack)

    assert any("living.yaml" in p and "needz" in p for p in problems), problems
    assert any(
        "hamlet.yaml" in p and "unknown room 'hamlet:no_such_room'" in p for p in problems
    ), problems


def test_the_test_world_is_clean() -> None:
    assert check_pack(HAMLET) == []
