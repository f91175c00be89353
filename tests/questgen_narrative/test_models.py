"""QuestNarrativeModel / QuestDialogueModel: the length limits, cleaning, strictness."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from questgen_narrative.narrative_helpers import DIALOGUE, NARRATIVE

from maid_stdlib.questgen.narrative import QuestDialogueModel, QuestNarrativeModel


def narrative(**overrides: Any) -> QuestNarrativeModel:
    return QuestNarrativeModel.model_validate({**NARRATIVE, **overrides})


def dialogue(**overrides: Any) -> QuestDialogueModel:
    return QuestDialogueModel.model_validate({**DIALOGUE, **overrides})


def test_valid_answers_pass() -> None:
    assert narrative().title == "The Iron Road"
    assert dialogue().completion.startswith("The road is clear?")


@pytest.mark.parametrize(
    "title",
    [
        "",
        "One two three four five six seven eight nine",  # 9 words
        "A" * 61,  # 61 characters
        "Line one\nline two",
    ],
)
def test_title_limits(title: str) -> None:
    with pytest.raises(ValidationError):
        narrative(title=title)


def test_title_at_the_limits_passes() -> None:
    assert narrative(title="One two three four five six seven eight").title
    assert narrative(title="A" * 60).title == "A" * 60


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("summary", "Too short"),  # 9 characters
        ("summary", "x" * 301),
        ("description", "x" * 49),
        ("description", "x" * 3001),
    ],
)
def test_summary_and_description_limits(field: str, value: str) -> None:
    with pytest.raises(ValidationError):
        narrative(**{field: value})


def test_summary_and_description_bounds_are_inclusive() -> None:
    assert narrative(summary="x" * 10, description="y" * 50).summary == "x" * 10
    assert len(narrative(summary="x" * 300, description="y" * 3000).description) == 3000


@pytest.mark.parametrize("field", ["offer", "progress", "completion"])
@pytest.mark.parametrize("value", ["Too short", "x" * 501])
def test_dialogue_limits(field: str, value: str) -> None:
    with pytest.raises(ValidationError):
        dialogue(**{field: value})


@pytest.mark.parametrize("missing", ["title", "summary", "description"])
def test_missing_narrative_field(missing: str) -> None:
    data = {k: v for k, v in NARRATIVE.items() if k != missing}
    with pytest.raises(ValidationError):
        QuestNarrativeModel.model_validate(data)


def test_non_strings_are_rejected() -> None:
    with pytest.raises(ValidationError):
        narrative(title=12345)
    with pytest.raises(ValidationError):
        dialogue(offer=["Hello there, traveller", "second"])


def test_extra_keys_are_ignored_and_complete_is_accepted() -> None:
    assert narrative(notes="model chatter").title == "The Iron Road"
    data = {k: v for k, v in DIALOGUE.items() if k != "completion"}
    model = QuestDialogueModel.model_validate({**data, "complete": "Well done, it is over now."})
    assert model.completion == "Well done, it is over now."


def test_text_is_cleaned_before_the_limits() -> None:
    model = narrative(title='  "**The Iron Road.**"  ', summary="## A summary that is long enough")
    assert model.title == "The Iron Road"
    assert model.summary == "A summary that is long enough"
    # Decoration does not count: 9 words of text plus emphasis markers still fail.
    with pytest.raises(ValidationError):
        narrative(title="**One two three four five six seven eight nine**")


@pytest.mark.parametrize(
    "text",
    [
        "Greetings {player_name}, the road is dangerous.",
        "Thank you, [Player Name], the road is clear now.",
        "Talk to [NPC] about the bandits on the road.",
    ],
)
def test_unfilled_placeholders_are_rejected(text: str) -> None:
    with pytest.raises(ValidationError):
        dialogue(offer=text)


def test_brackets_in_prose_are_fine() -> None:
    assert dialogue(offer="Bring me the [rare] ore from the Mill Road, please.").offer
