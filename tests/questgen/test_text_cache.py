"""topic_tokens caches per text (maid_stdlib.questgen.text): the cache must be
invisible -- same answers as the uncached algorithm, and callers own what they get."""

from __future__ import annotations

import re

import pytest

from maid_stdlib.questgen.text import mentions, topic_tokens

# -- the algorithm before the cache, copied verbatim -----------------------------------

_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset(
    """the a an and or of on in at to for from with by about into onto over under
    his her their its our your my this that these those some any all been being was
    were are is be has have had not but who whom which what when where why how
    there here near around road way""".split()
)


def _stem(word: str) -> str:
    if word.endswith("ves") and len(word) > 4:
        return word[:-3] + "f"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def uncached_topic_tokens(*texts: str | None) -> set[str]:
    out: set[str] = set()
    for text in texts:
        if not text:
            continue
        for word in _WORD.findall(text.lower().replace("_", " ")):
            word = word.strip("'")
            if len(word) < 3 or word in _STOP:
                continue
            out.add(_stem(word))
    return out


SAMPLES = [
    "Bandits on the north road",
    "The thieves' guild of Ashford",
    "wolves_in_the_forest",
    "Spiders! Lots of SPIDERS, and the queen's ladies.",
    "a an of to is",  # nothing significant
    "",
    "Hollin's hammer 'broke' near the smithy; glass, grass and moss",
    "hamlet:bandit_camp 2nd ambush 42",
    "Élise rode over the ridge",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_cached_tokens_equal_the_uncached_algorithm(text: str) -> None:
    expected = uncached_topic_tokens(text)
    assert topic_tokens(text) == expected
    assert topic_tokens(text) == expected  # the cached answer too
    assert isinstance(topic_tokens(text), set)


def test_several_texts_and_none_merge_like_before() -> None:
    texts = [SAMPLES[0], None, SAMPLES[1], "", SAMPLES[2], SAMPLES[0]]
    assert topic_tokens(*texts) == uncached_topic_tokens(*texts)
    assert topic_tokens() == set()
    assert topic_tokens(None, "") == set()


def test_the_sample_stems_are_the_documented_ones() -> None:
    # Keeps the comparison honest: the samples exercise each stemming rule.
    assert {"bandit", "north"} <= topic_tokens(SAMPLES[0])
    assert {"thief", "guild", "ashford"} <= topic_tokens(SAMPLES[1])
    assert {"wolf", "forest"} <= topic_tokens(SAMPLES[2])
    assert {"spider", "lady", "lot"} <= topic_tokens(SAMPLES[3])
    assert topic_tokens(SAMPLES[4]) == set()
    assert {"glass", "grass", "moss", "broke"} <= topic_tokens(SAMPLES[6])


def test_mutating_a_result_does_not_change_later_answers() -> None:
    text = "Wolves stalk the sheep pens of Brookhaven"
    first = topic_tokens(text)
    expected = set(first)
    first.add("intruder")
    first.discard("wolf")
    assert topic_tokens(text) == expected
    second = topic_tokens(text)
    assert second is not first
    second.clear()
    assert topic_tokens(text) == expected
    merged = topic_tokens(text, "bandits")
    merged.clear()
    assert topic_tokens(text) == expected
    assert topic_tokens(text, "bandits") == expected | {"bandit"}


def test_mentions_is_unchanged_by_earlier_mutations() -> None:
    text = "Smugglers hide crates in the cellar"
    topic_tokens(text).clear()
    topic_tokens("the smuggler ring").clear()
    assert mentions(text, "the smuggler ring")
    assert not mentions(text, "a wandering bard")
