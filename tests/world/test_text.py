"""Small wording helpers of the world's text."""

from __future__ import annotations

import pytest

from maid_stdlib.world.text import in_place, speaker


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


@pytest.mark.parametrize(
    ("room", "said"),
    [
        ("The Guard Post", "in The Guard Post"),
        ("Atop the Watchtower", "atop the Watchtower"),
        ("Beneath the Old Oak", "beneath the Old Oak"),
        ("Atop", "in Atop"),
        ("Market Row", "in Market Row"),
    ],
)
def test_a_room_named_for_where_it_is_takes_no_in(room: str, said: str) -> None:
    assert in_place(room) == said
