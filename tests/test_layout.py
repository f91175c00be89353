"""Ironvale, the shipped game, is named only by the tests that are about it.

The rule: a test file names Ironvale (its pack name, or the people and places of
its data: the pattern below) only when it lies in one of the folders of
``SHIPPED_GAME``, whose tests are about the shipped game on purpose:

- ``ironvale/``: Ironvale's own content, and the layers played on it (the Iron
  Crisis, the RPG rules on its people, its authored quest); its kit is
  ``ironvale/ironkit.py``;
- ``e2e*/``, ``reliability/``, ``security/``, ``simulate/``: the game as
  ``maid run`` and ``maid simulate`` start it (the default packs), end to end;
- ``heist/``: the heist pack extends Ironvale (it requires it, and where it
  attaches to Ironvale's map is part of what it is).

Every other test checks a mechanism, on Hamlet (``kits/hamlet``, the neutral
test world; under the RPG rules with ``kits.engines.HAMLET_RPG``) or on a small
world of its own, so Ironvale's content can change without breaking it. The
shared kits (``kits/``) are neutral too. A pack that requires Ironvale (the heist
pack, which the admin tests use) brings it in by its own ``requires``: those
tests name the heist pack's content, never Ironvale's.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: Folders (under tests/) whose tests are about the shipped game.
SHIPPED_GAME = frozenset(
    {
        "ironvale",
        "e2e",
        "e2e_client",
        "e2e_pipeline",
        "e2e_questgen",
        "reliability",
        "security",
        "simulate",
        "heist",
    }
)

#: Ironvale's pack name and the names of its people and places.
IRONVALE = re.compile(
    r"ironvale|gundrik|selena|voss|bram|kral|odda|watch_street|old trade road", re.IGNORECASE
)


def naming_ironvale() -> list[str]:
    """Test files outside SHIPPED_GAME that name Ironvale (paths relative to tests/)."""
    found: list[str] = []
    for path in sorted(TESTS.rglob("*")):
        if path.suffix not in {".py", ".yaml", ".yml"} or path == Path(__file__).resolve():
            continue
        relative = path.relative_to(TESTS)
        if relative.parts[0] in SHIPPED_GAME or "__pycache__" in relative.parts:
            continue
        if IRONVALE.search(path.read_text(encoding="utf-8")):
            found.append(relative.as_posix())
    return found


def test_the_pattern_finds_ironvale_names() -> None:
    # The check below is only as good as its pattern.
    for text in ("ironvale:watch_street", "Gundrik", "Selena's stall", "the Old Trade Road"):
        assert IRONVALE.search(text), text
    assert IRONVALE.search("a hamlet, a mill and a ford") is None


def test_the_shipped_game_folders_exist() -> None:
    missing = sorted(f for f in SHIPPED_GAME if not (TESTS / f).is_dir())
    assert missing == []


def test_only_the_shipped_games_tests_name_ironvale() -> None:
    assert naming_ironvale() == [], (
        "these tests name Ironvale: test the mechanism on Hamlet (tests/kits/hamlet), "
        "or move a test of Ironvale's content to tests/ironvale"
    )
