"""The giver's own voice, places with their preposition, and the lint rules that
keep the faults found by reading quests aloud from coming back."""

from __future__ import annotations

import pytest

from maid_stdlib.text import lint_text, third_person
from maid_stdlib.text.lint import Slot
from maid_stdlib.text.place import located
from maid_stdlib.text.voice import in_own_voice

NAMES = ["Selena", "Captain Voss", "Gundrik", "Gundrik's Smithy", "the gate guard"]


def test_a_step_for_the_quest_log_reads_in_the_givers_own_voice() -> None:
    said = "Will you tell the gate guard that Captain Voss will stand with them?"
    assert in_own_voice(said, "Captain Voss") == (
        "Will you tell the gate guard that I will stand with them?"
    )
    assert in_own_voice("Report back to Selena with the answer.", "Selena") == (
        "Report back to me with the answer."
    )
    assert in_own_voice("Selena's stores are empty. Selena wants iron.", "Selena") == (
        "My stores are empty. I want iron."
    )
    assert in_own_voice("Report back to the gate guard.", "the gate guard") == "Report back to me."
    # A place named after the speaker is a name, not the speaker.
    kept = in_own_voice("Bring it to Gundrik's Smithy.", "Gundrik", ["Gundrik's Smithy"])
    assert kept == "Bring it to Gundrik's Smithy."


def test_a_memory_that_names_its_owner_is_not_named_twice() -> None:
    assert third_person("A stranger helped Captain Voss when I needed help.", "Captain Voss") == (
        "A stranger helped Captain Voss when they needed help."
    )
    assert third_person("When I needed help, a stranger helped me.", "Selena") == (
        "When Selena needed help, a stranger helped them."
    )


def test_a_place_takes_its_preposition() -> None:
    assert located("the Old Trade Road") == "on the Old Trade Road"
    assert located("the Broken Wagon on the Old Trade Road") == (
        "at the Broken Wagon on the Old Trade Road"
    )
    assert located("the Guard Post") == "at the Guard Post"
    assert located("Ironvale") == "in Ironvale"


@pytest.mark.parametrize(
    ("text", "slot", "speaker", "kind"),
    [
        (
            "Nobody came when Selena asked for help with Selena blames the guard for leaving "
            "the road to the bandits.",
            "third",
            "Selena",
            "pasted_clause",
        ),
        (
            "Bandits threaten the Old Trade Road. The bandits are gone from the Broken Wagon.",
            "third",
            "Selena",
            "contradiction",
        ),
        (
            "Captain Voss asks you to tell the gate guard that Captain Voss will stand with them.",
            "third",
            "Captain Voss",
            "speaker_named_again",
        ),
        (
            "Selena and Captain Voss will not listen to each other. Will you help?",
            "first",
            "Selena",
            "speaker_names_self",
        ),
        ("Bandits have been seen on Old Trade Road.", "third", "", "missing_article"),
        (
            "Bandits have been seen near The Bandit Camp.",
            "third",
            "",
            "capitalised_article_mid_sentence",
        ),
        (
            'Fighter1 took on "An End to the Bandits", and Selena had a part in it.',
            "third",
            "Selena",
            "quoted_text",
        ),
    ],
)
def test_the_lint_flags_what_reading_aloud_found(
    text: str, slot: Slot, speaker: str, kind: str
) -> None:
    found = {d.kind for d in lint_text(text, slot, NAMES, speaker=speaker)}
    assert kind in found, found


@pytest.mark.parametrize(
    ("text", "slot", "speaker"),
    [
        (
            "Bandits threaten the Old Trade Road. Selena learned that bandits are on the road.",
            "third",
            "Selena",
        ),
        ("Bring the ore to Gundrik's Smithy, and I will pay.", "first", "Gundrik"),
        (
            "Captain Voss is at odds with Selena and wants you to hear Selena out.",
            "third",
            "Captain Voss",
        ),
        (
            "When Selena needed help, a stranger cleared the bandits from the Old Trade Road.",
            "third",
            "Selena",
        ),
        ("Bandits have been seen at the Broken Wagon on the Old Trade Road.", "third", ""),
        ("The gate guard no longer feels safe.", "third", "the gate guard"),
    ],
)
def test_the_lint_passes_what_reads_well(text: str, slot: Slot, speaker: str) -> None:
    assert lint_text(text, slot, NAMES, speaker=speaker) == []
