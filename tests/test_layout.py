"""The tests of the game-agnostic layers do not lean on the Ironvale content pack.

A stdlib mechanism is tested on a small neutral world (tests/kits), so that Ironvale's
content can change without breaking them and the stdlib stays game-agnostic in its
tests too. Tests of Ironvale's own content (or of the RPG layer on it) live in
tests/ironvale. The files below are not converted yet; the list may only shrink: a
listed file that no longer mentions Ironvale must leave it.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: The test folders of the game-agnostic layers (maid_stdlib).
STDLIB_FOLDERS = (
    "world",
    "living",
    "story",
    "questgen",
    "questgen_system",
    "consequences",
    "grounding",
    "worldstate",
    "narration",
)

#: Ironvale's pack name and the names of its people and places.
IRONVALE = re.compile(
    r"ironvale|gundrik|selena|voss|bram|kral|odda|watch_street|old trade road", re.IGNORECASE
)

#: Not converted yet (paths relative to tests/). Only ever remove entries.
NOT_YET_CONVERTED = frozenset(
    {
        "questgen_system/conftest.py",
        "questgen_system/qskit.py",
        "questgen_system/test_backpressure.py",
        "questgen_system/test_caps.py",
        "questgen_system/test_delivery.py",
        "questgen_system/test_economy.py",
        "questgen_system/test_intake.py",
        "questgen_system/test_llm_service.py",
        "questgen_system/test_persistence.py",
        "questgen_system/test_personalization.py",
        "questgen_system/test_scheduling.py",
        "questgen_system/test_stages.py",
    }
)


def mentioning_ironvale() -> set[str]:
    found: set[str] = set()
    for folder in STDLIB_FOLDERS:
        for path in sorted((TESTS / folder).rglob("*")):
            if path.suffix not in {".py", ".yaml", ".yml"}:
                continue
            if IRONVALE.search(path.read_text(encoding="utf-8")):
                found.add(path.relative_to(TESTS).as_posix())
    return found


def test_the_pattern_finds_ironvale_names() -> None:
    # The check below is only as good as its pattern.
    for text in ("ironvale:watch_street", "Gundrik", "Selena's stall", "the Old Trade Road"):
        assert IRONVALE.search(text), text
    assert IRONVALE.search("a hamlet, a mill and a ford") is None


def test_stdlib_tests_do_not_mention_ironvale_outside_the_list() -> None:
    unexpected = sorted(mentioning_ironvale() - NOT_YET_CONVERTED)
    assert unexpected == [], (
        "tests of the stdlib layers use Ironvale; test the mechanism on the neutral "
        "world in tests/kits, or move an Ironvale-content test to tests/ironvale"
    )


def test_the_not_yet_converted_list_only_names_files_that_still_need_it() -> None:
    converted = sorted(NOT_YET_CONVERTED - mentioning_ironvale())
    assert converted == [], "these no longer mention Ironvale: remove them from the list"
