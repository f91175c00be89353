"""``maid check-pack`` on the heist pack: clean as shipped, and every problem of a
broken copy reported at once, each with its file and entry."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from maid_engine.cli import main
from maid_engine.packcheck import check_pack

HEIST = Path(__file__).resolve().parents[2] / "content_packs" / "heist"


def test_the_shipped_pack_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_pack(HEIST) == []
    assert main(["check-pack", str(HEIST)]) == 0
    assert capsys.readouterr().out.strip().endswith(": OK")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A copy of the pack with problems in six files at once."""
    pack = tmp_path / "heist"
    shutil.copytree(HEIST, pack, ignore=shutil.ignore_patterns("__pycache__"))
    areas = pack / "areas" / "counting_quarter.yaml"
    _edit(areas, "      west: tenements\n", "      west: cellar\n")
    _edit(
        areas,
        "    stats: {level: 5, hp: 50, damage: [2, 6], armor: 3}\n",
        "    stats: {level: 5, hp: fifty, damage: [2, 6], armor: 3}\n",
    )
    _edit(areas, "    valuables: {owner: vesk}\n", "    valuables: {owner: vosk}\n")
    _edit(
        areas,
        "    keywords: [tamsin, reed, clerk]\n",
        "    keywords: [tamsin, reed, clerk]\n    mood: sulky\n",
    )
    living = pack / "living.yaml"
    _edit(living, "        value: 0.22\n", "        value: 1.5\n")
    _edit(living, "    wealth: 900\n", "    wealth: 900\n    riches: 5\n")
    _edit(pack / "narrative.yaml", '"What {ally} Owes"', '"What {villain} Owes"')
    _edit(pack / "pack.yaml", "name: heist\n", "name: heist\nstart_room: plaza\n")
    _edit(pack / "quests.yaml", "        npc: tamsin\n", "        npc: tamsn\n")
    _edit(pack / "narrated" / "counting_house.yaml", "    initial: 7\n", "    initial: 70\n")
    return pack


def test_every_problem_is_reported_at_once(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = check_pack(broken)
    expected = [
        ("heist/areas/counting_quarter.yaml", "room 'counting_lane'", "heist:cellar"),
        ("heist/areas/counting_quarter.yaml", "npc 'hobb'", "stats.hp"),
        ("heist/areas/counting_quarter.yaml", "item 'strongbox'", "heist:vosk"),
        ("heist/areas/counting_quarter.yaml", "npc 'tamsin'", "mood"),
        ("heist/living.yaml", "npc 'tamsin'", "needs.economic.value"),
        ("heist/living.yaml", "npc 'vesk'", "riches"),
        ("heist/narrative.yaml", "heist.title", "{villain}"),
        ("heist/pack.yaml", "start_room", "heist:plaza"),
        ("heist/quests.yaml", "quest 'missing-page'", "heist:tamsn"),
        (
            "heist/narrated/counting_house.yaml",
            "room 'counting_house' (heist/areas/counting_quarter.yaml:",
            "player.nerve: initial 70 is above max 10",
        ),
    ]
    for file, entry, detail in expected:
        # ``file:line: `` where the line is known (the world and quest files).
        at = re.compile(rf"{re.escape(file)}(:\d+)?: ")
        assert any(at.match(p) and entry in p and detail in p for p in problems), (
            file,
            entry,
            detail,
            problems,
        )
    assert len(problems) >= len(expected)
    # Every file's problems name their line: world, quests, templates, the schema.
    assert all(re.match(r"heist/[\w/]+\.yaml:\d+: ", p) for p in problems), problems
    assert len(problems) == len(set(problems)), "a problem was reported twice"
    assert main(["check-pack", str(broken)]) == 1
    captured = capsys.readouterr()
    assert f"{len(problems)} problem(s) found" in captured.err
    assert captured.out.count("\n") == len(problems)


async def test_a_broken_pack_does_not_start(broken: Path) -> None:
    from maid_engine.config import Settings
    from maid_engine.content import PackError
    from maid_engine.engine import GameEngine
    from maid_engine.packcheck import find_pack_class

    engine = GameEngine(
        Settings(data_dir=broken.parent / "data"),
        packs=["ironvale", find_pack_class(broken)],
        use_store=False,
    )
    with pytest.raises(PackError) as caught:
        await engine.start()
    await engine.stop()
    message = str(caught.value)
    assert "content pack 'heist'" in message
    assert "problems in its data" in message
    assert "heist:cellar" in message
