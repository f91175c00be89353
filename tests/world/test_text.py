"""Small wording helpers of the world's text."""

from __future__ import annotations

import pytest

from maid_stdlib.world.text import speaker


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("a gate guard", "The gate guard"),
        ("An old miner", "The old miner"),
        ("some bandits", "The bandits"),
        ("Pell", "Pell"),
        ("the reeve", "The reeve"),
        ("apple-seller Nan", "Apple-seller Nan"),
    ],
)
def test_the_one_you_are_talking_to_is_named_with_the_definite_article(
    name: str, said: str
) -> None:
    assert speaker(name) == said
