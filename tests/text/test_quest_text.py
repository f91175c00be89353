"""The text toolkit: morphology, place prose, voice, the realiser's traces, the lint."""

from __future__ import annotations

import pytest

from maid_stdlib.text import (
    counted,
    indefinite,
    is_first_person,
    lint_text,
    place_phrase,
    possessive,
    pronouns,
    sentence_case,
    third_person,
    verb_for,
)
from maid_stdlib.text.realiser import check_template, clause, person, render, statement, thing

NAMES = ["Hollin", "Warden Tamsin", "Pell", "Mara Reed", "the Mill Road"]


def test_morphology_comes_from_inflect() -> None:
    assert indefinite("lump of iron ore") == "a lump of iron ore"
    assert indefinite("hour") == "an hour"
    assert counted(3, "grey wolf") == "3 grey wolves"
    assert counted(1, "a bandit scout") == "a bandit scout"
    assert possessive("Warden Tamsin") == "Warden Tamsin's"
    assert possessive("the wolves") == "the wolves'"
    assert verb_for("Hollin", "want") == "wants"
    assert verb_for("the millers", "want") == "want"
    assert sentence_case("first. second! third") == "First. Second! Third"


def test_a_room_reads_as_prose() -> None:
    assert place_phrase("Mill Road, The Old Oak", "Mill Road") == "the Old Oak on the Mill Road"
    assert place_phrase("Mill Road, Below the Weir") == "the Mill Road below the Weir"
    assert place_phrase("The Barracks") == "the Barracks"
    assert place_phrase("Hollin's Mill") == "Hollin's Mill"
    # A name with its own article keeps it, not "the A Trail Through the Pines".
    assert place_phrase("A Trail Through the Pines") == "a Trail Through the Pines"
    assert place_phrase("An Old Well") == "an Old Well"


def test_a_first_person_memory_is_retold_in_the_third_person() -> None:
    assert third_person("I learned that wolves are on the Mill Road", "Hollin") == (
        "Hollin learned that wolves are on the Mill Road"
    )
    assert third_person("I am tired and my mill is idle", "Hollin") == (
        "Hollin is tired and their mill is idle"
    )
    assert third_person("We lost our cart", "Hollin") is None


def test_a_mine_is_a_place_and_mine_is_the_speakers() -> None:
    memory = "Coin is missing from the mine's wage chest."
    assert not is_first_person(memory)
    assert not is_first_person("Ore comes up from the old mine again.")
    assert is_first_person("That pick is mine.")
    assert third_person("I went down the mine", "Tobin") == "Tobin went down the mine"
    # "Mine" as "my own" is the owner's, not the owner.
    assert third_person("The pick is mine", "Tobin") == "The pick is Tobin's"
    assert third_person("I lost my pick, and the pick is mine", "Tobin") == (
        "Tobin lost their pick, and the pick is theirs"
    )
    assert third_person("I lost my pick, and the pick is mine", "Tobin", pronouns("he")) == (
        "Tobin lost his pick, and the pick is his"
    )
    assert lint_text(memory, "third", NAMES) == []


def test_a_retold_memory_uses_the_persons_pronouns() -> None:
    she = pronouns("she")
    assert third_person("I am tired and my mill is idle", "Mara Reed", she) == (
        "Mara Reed is tired and her mill is idle"
    )
    assert third_person("When I needed help, a stranger helped me.", "Mara Reed", she) == (
        "When Mara Reed needed help, a stranger helped her."
    )
    # After a pronoun the verb agrees as after a name ("she wants"), not as after "they".
    assert third_person("The carter cheated me, and now I want him gone", "Mara Reed", she) == (
        "The carter cheated Mara Reed, and now she wants him gone"
    )
    assert third_person("I know I'm right", "Tobin", pronouns("he")) == ("Tobin knows he is right")
    assert pronouns(None) == pronouns("they") == pronouns("nonsense")
    assert pronouns("they").be() == "are"
    assert pronouns("it").be() == "is"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Would you Hear Hollin's side of the dispute?", "capitalised_verb_mid_sentence"),
        ("Bring lump of iron ore to Hollin", "missing_article"),
        ("Go and hear what Warden Tamsin want.", "subject_verb_agreement"),
        ("Meet Mara Reed to hear what Mara Reed want.", "subject_verb_agreement"),
        ("Talk to Pell and finally Tell Hollin it was done?", "capitalised_verb_mid_sentence"),
        ("I learned that wolves are on the Mill Road.", "first_person_in_third_person_slot"),
        ("Wolves prowl Mill Road, The Old Oak.", "raw_place_name"),
        ("Hear Pell's side of the dispute over follow_up.", "internal_id"),
        ("Type accept gen-threat_elimination-6c09f8f3 to begin.", "internal_id"),
        ("Welcome, {player}.", "unfilled_placeholder"),
        ("The dispute over None is settled.", "unfilled_placeholder"),
        ("I am tired of the shouting. a guard will not listen to me.", "lowercase_sentence_start"),
    ],
)
def test_the_lint_flags_the_reported_defects(text: str, kind: str) -> None:
    assert kind in {d.kind for d in lint_text(text, "third", NAMES)}


@pytest.mark.parametrize(
    "text",
    [
        "Bring the lump of iron ore to Hollin.",
        "Hollin learned that wolves are on the Mill Road. Will he manage?",
        "Meet the millers to hear what they want.",
        "Defeat 3 grey wolves.",
        "Hear what Warden Tamsin wants. Take care on the road.",
        "Bring Pell safely to the Barracks.",
        "The last cart came three days ago. None since.",
    ],
)
def test_the_lint_passes_good_sentences(text: str) -> None:
    assert lint_text(text, "third", NAMES) == []


def test_first_person_is_fine_in_dialogue() -> None:
    assert lint_text("I learned that wolves are on the Mill Road.", "first", NAMES) == []


def test_every_sentence_records_its_facts_and_missing_facts_drop_sentences() -> None:
    values = {
        "npc": person("Hollin", "giver"),
        "threat": thing("wolves", "threat"),
        "memory": statement("Hollin saw wolves at dusk", "I saw wolves at dusk", "memory:1"),
        "objective": clause("Defeat 3 grey wolves", "objective:1"),
    }
    out = render(
        "{memory}. {threat} {threat.v_be} near. {stakes}. Will you {objective}? Please hurry.",
        values,
    )
    assert out.text == (
        "Hollin saw wolves at dusk. Wolves are near. Will you defeat 3 grey wolves? Please hurry."
    )
    assert [s.facts for s in out.sentences] == [
        ("memory:1",),
        ("threat",),
        ("objective:1",),
        ("flavour",),
    ]
    assert out.dropped == 1
    assert render("{memory.first}.", values).text == "I saw wolves at dusk."


def test_a_sentence_without_a_fact_must_be_reviewed_flavour() -> None:
    known = {"npc"}
    check_template("Please hurry. {npc} waits.", known)
    with pytest.raises(ValueError, match="no fact behind it"):
        check_template("The mill burned down. {npc} waits.", known)
    check_template("Nobody saw. {npc} waits.", known, flavour={"Nobody saw."})


def test_named_mentions_are_read_off_running_text() -> None:
    from maid_stdlib.text.mentions import named_mentions, unmatched_mentions

    text = (
        "Warden Tamsin watches the Mill Road. The Lord of the Vale sent Marcus Thorne. "
        "Will you help? I'll wait at Hollin's Mill."
    )
    found = named_mentions(text)
    assert found == [
        "Warden Tamsin",
        "Mill Road",
        "Lord of the Vale",
        "Marcus Thorne",
        "Hollin's Mill",
    ]
    known = ["Tamsin", "the Mill Road", "Hollin's Mill"]
    assert unmatched_mentions(found, known) == ["Lord of the Vale", "Marcus Thorne"]
    # A known name with "the" inside it is found however the mention is put.
    assert unmatched_mentions(["Lord of the Vale"], ["The Lord of the Vale"]) == []
    assert unmatched_mentions(["Chapel of the Deep Lamp"], ["the Chapel of the Lamp"]) == [
        "Chapel of the Deep Lamp"
    ]
