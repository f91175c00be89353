"""Quest handles: the words a player may type for a quest."""

from __future__ import annotations

from classic_rpg.systems.quests.handles import handle_word, match_handle, title_words


def test_title_words_drop_small_words_and_possessives() -> None:
    assert title_words("Trouble at Hollin's Mill") == ["trouble", "hollin", "mill"]
    assert title_words("A Call to Arms") == ["call", "arms"]
    assert title_words("The 3 of Us") == []


def test_the_handle_is_a_word_no_other_quest_shares() -> None:
    assert handle_word("Trouble at the Smithy", []) == "smithy"
    assert handle_word("Trouble at the Smithy", ["Smithy Woes"]) == "trouble"
    assert handle_word("A Call to Arms", ["Arms and a Call"]) is None


def test_matching_prefers_exact_titles_then_starts_then_words() -> None:
    titles = ["A Call to Arms", "A Call to Arms Again", "Arms Race"]
    assert match_handle(titles, "a call to arms").positions == (0,)
    assert match_handle(titles, "a call").positions == (0, 1)
    assert match_handle(titles, "race").unique == 2
    assert match_handle(titles, "arms").positions == (2,)  # "Arms Race" starts so
    assert match_handle(titles, "call again").unique == 1
    assert match_handle(titles, "dragons").positions == ()
    assert match_handle(titles, "   ").positions == ()
