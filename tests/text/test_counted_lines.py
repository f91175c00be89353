"""A room's line about one thing, said of several of them."""

from __future__ import annotations

import pytest

from maid_stdlib.text.morph import counted_line


@pytest.mark.parametrize(
    ("line", "name", "count", "said"),
    [
        ("A grey wolf slinks here.", "a grey wolf", 2, "Two grey wolves slink here."),
        (
            "A lump of iron ore lies here.",
            "a lump of iron ore",
            3,
            "Three lumps of iron ore lie here.",
        ),
        (
            "A small cask of lamp oil waits beside the scales.",
            "a small cask of lamp oil",
            3,
            "Three small casks of lamp oil wait beside the scales.",
        ),
        ("A gate guard is here.", "a gate guard", 14, "14 gate guards are here."),
        ("An old miner watches the road.", "old miner", 2, "Two old miners watch the road."),
        ("A scout has a bow.", "a scout", 4, "Four scouts have a bow."),
        (
            "A new plough share, finished but not yet fetched, leans against the anvil.",
            "a new plough share",
            3,
            "Three new plough shares, finished but not yet fetched, lean against the anvil.",
        ),
        ("A sword, rusted, lies here.", "a sword", 2, "Two swords, rusted, lie here."),
        (
            "A tunnel crawler clicks its mandibles in the dark.",
            "a tunnel crawler",
            2,
            "Two tunnel crawlers click their mandibles in the dark.",
        ),
        (
            "A gate guard leans on his spear, keeping himself awake.",
            "a gate guard",
            2,
            "Two gate guards lean on their spear, keeping themselves awake.",
        ),
        # What it cannot rewrite: left to a count after the line.
        ("A sword, rusted lies here.", "a sword", 2, None),
        ("Pell is here.", "Pell", 2, None),
        ("Grey shapes slink about.", "a grey wolf", 2, None),
        ("A wolf here.", "a wolf", 2, None),
        ("A wolf slinks here.", "a wolf", 1, None),
    ],
)
def test_a_line_about_one_is_said_of_several(
    line: str, name: str, count: int, said: str | None
) -> None:
    assert counted_line(line, name, count) == said
