"""The giver's own voice, places with their preposition, and the lint rules that
keep the faults found by reading quests aloud from coming back."""

from __future__ import annotations

import pytest

from maid_stdlib.text import lint_text, third_person
from maid_stdlib.text.lint import Slot
from maid_stdlib.text.place import located
from maid_stdlib.text.voice import in_own_voice

NAMES = ["Mara Reed", "Warden Tamsin", "Hollin", "Hollin's Mill", "the gate guard"]


def test_a_step_for_the_quest_log_reads_in_the_givers_own_voice() -> None:
    said = "Will you tell the gate guard that Warden Tamsin will stand with them?"
    assert in_own_voice(said, "Warden Tamsin") == (
        "Will you tell the gate guard that I will stand with them?"
    )
    assert in_own_voice("Report back to Mara Reed with the answer.", "Mara Reed") == (
        "Report back to me with the answer."
    )
    assert in_own_voice("Mara Reed's stores are empty. Mara Reed wants iron.", "Mara Reed") == (
        "My stores are empty. I want iron."
    )
    assert in_own_voice("Report back to the gate guard.", "the gate guard") == "Report back to me."
    # A place named after the speaker is a name, not the speaker.
    kept = in_own_voice("Bring it to Hollin's Mill.", "Hollin", ["Hollin's Mill"])
    assert kept == "Bring it to Hollin's Mill."


def test_a_memory_that_names_its_owner_is_not_named_twice() -> None:
    assert third_person("A stranger helped Warden Tamsin when I needed help.", "Warden Tamsin") == (
        "A stranger helped Warden Tamsin when they needed help."
    )
    assert third_person("When I needed help, a stranger helped me.", "Mara Reed") == (
        "When Mara Reed needed help, a stranger helped them."
    )


def test_a_place_takes_its_preposition() -> None:
    assert located("the Mill Road") == "on the Mill Road"
    assert located("the Old Oak on the Mill Road") == ("at the Old Oak on the Mill Road")
    assert located("the Guard Post") == "at the Guard Post"
    assert located("Ashford") == "in Ashford"
    # A name that says where it is keeps its own word.
    assert located("Atop the Watchtower") == "atop the Watchtower"


@pytest.mark.parametrize(
    ("text", "slot", "speaker", "kind"),
    [
        (
            "Nobody came when Mara Reed asked for help with Mara Reed blames the guard for leaving "
            "the road to the bandits.",
            "third",
            "Mara Reed",
            "pasted_clause",
        ),
        (
            "Bandits threaten the Mill Road. The bandits are gone from the Old Oak.",
            "third",
            "Mara Reed",
            "contradiction",
        ),
        (
            "Warden Tamsin asks you to tell the gate guard that Warden Tamsin will stand by them.",
            "third",
            "Warden Tamsin",
            "speaker_named_again",
        ),
        (
            "Mara Reed and Warden Tamsin will not listen to each other. Will you help?",
            "first",
            "Mara Reed",
            "speaker_names_self",
        ),
        ("Bandits have been seen on Mill Road.", "third", "", "missing_article"),
        (
            "Bandits have been seen near The Bandit Camp.",
            "third",
            "",
            "capitalised_article_mid_sentence",
        ),
        (
            'Fighter1 took on "An End to the Bandits", and Mara Reed had a part in it.',
            "third",
            "Mara Reed",
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
            "Bandits threaten the Mill Road. Mara Reed learned that bandits are on the road.",
            "third",
            "Mara Reed",
        ),
        ("Bring the ore to Hollin's Mill, and I will pay.", "first", "Hollin"),
        (
            "Warden Tamsin is at odds with Mara Reed and wants you to hear Mara Reed out.",
            "third",
            "Warden Tamsin",
        ),
        (
            "When Mara Reed needed help, a stranger cleared the bandits from the Mill Road.",
            "third",
            "Mara Reed",
        ),
        ("Bandits have been seen at the Old Oak on the Mill Road.", "third", ""),
        ("The gate guard no longer feels safe.", "third", "the gate guard"),
    ],
)
def test_the_lint_passes_what_reads_well(text: str, slot: Slot, speaker: str) -> None:
    assert lint_text(text, slot, NAMES, speaker=speaker) == []
