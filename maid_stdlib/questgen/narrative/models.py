"""Pydantic models every LLM answer must pass before a player can see it.

The limits: a title of at most 8 words and 60 characters, a summary of
10-300 characters, a description of 50-3000, and 10-500 characters per dialogue line.
Text is cleaned (:func:`maid_engine.llm.sanitize_generated`: markdown emphasis,
headings, invisible characters) *before* the limits apply, so a model cannot pass a
length check with decoration that is stripped afterwards.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from maid_engine.llm import sanitize_generated

__all__ = [
    "DESCRIPTION_MAX",
    "DESCRIPTION_MIN",
    "DIALOGUE_MAX",
    "DIALOGUE_MIN",
    "SUMMARY_MAX",
    "SUMMARY_MIN",
    "TITLE_MAX_CHARS",
    "TITLE_MAX_WORDS",
    "QuestDialogueModel",
    "QuestNarrativeModel",
    "QuestTextModel",
]

TITLE_MAX_WORDS = 8
TITLE_MAX_CHARS = 60
SUMMARY_MIN, SUMMARY_MAX = 10, 300
DESCRIPTION_MIN, DESCRIPTION_MAX = 50, 3000
DIALOGUE_MIN, DIALOGUE_MAX = 10, 500

# A model that copies the schema literally, or leaves a slot for the player's name,
# writes "{player}" or "[NPC name]"; such text would reach players verbatim.
_PLACEHOLDER = re.compile(
    r"\{[^{}\n]{0,40}\}|\[[^\]\n]{0,30}\b(?:name|player|npc)\b[^\]\n]{0,30}\]", re.IGNORECASE
)
_QUOTES = "\"'\u201c\u201d\u2018\u2019`*"


def _clean(value: Any) -> Any:
    # Only strings are cleaned; anything else is left for strict type validation
    # to reject (a number or a list is not prose).
    return sanitize_generated(value) if isinstance(value, str) else value


def _no_placeholders(value: str) -> str:
    match = _PLACEHOLDER.search(value)
    if match:
        raise ValueError(f"contains an unfilled placeholder {match.group(0)!r}")
    return value


class _LLMText(BaseModel):
    # extra="ignore": models like to add fields ("notes", "tone"); they are harmless
    # and not worth a fallback. strict: a number or a list is not text.
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class QuestNarrativeModel(_LLMText):
    """The narrative call's answer: title, summary, description."""

    title: str = Field(min_length=1, max_length=TITLE_MAX_CHARS)
    summary: str = Field(min_length=SUMMARY_MIN, max_length=SUMMARY_MAX)
    description: str = Field(min_length=DESCRIPTION_MIN, max_length=DESCRIPTION_MAX)

    @field_validator("title", mode="before")
    @classmethod
    def _clean_title(cls, value: Any) -> Any:
        value = _clean(value)
        if isinstance(value, str):
            # Models quote titles and end them with a full stop; neither belongs there.
            value = value.strip(_QUOTES + " \n").rstrip(".").strip()
            if "\n" in value:
                raise ValueError("title spans several lines")
            value = " ".join(value.split())
        return value

    @field_validator("summary", "description", mode="before")
    @classmethod
    def _clean_text(cls, value: Any) -> Any:
        return _clean(value)

    @field_validator("title")
    @classmethod
    def _title_words(cls, value: str) -> str:
        words = len(value.split())
        if words > TITLE_MAX_WORDS:
            raise ValueError(f"title has {words} words (max {TITLE_MAX_WORDS})")
        return _no_placeholders(value)

    @field_validator("summary", "description")
    @classmethod
    def _text_placeholders(cls, value: str) -> str:
        return _no_placeholders(value)


class QuestDialogueModel(_LLMText):
    """The dialogue call's answer: what the giver says at offer, mid-quest, turn-in."""

    offer: str = Field(min_length=DIALOGUE_MIN, max_length=DIALOGUE_MAX)
    progress: str = Field(min_length=DIALOGUE_MIN, max_length=DIALOGUE_MAX)
    # "complete" too: the quest model's field is complete_dialogue, and models
    # echo whichever word they saw last.
    completion: str = Field(
        min_length=DIALOGUE_MIN,
        max_length=DIALOGUE_MAX,
        validation_alias=AliasChoices("completion", "complete"),
    )

    @field_validator("offer", "progress", "completion", mode="before")
    @classmethod
    def _clean_line(cls, value: Any) -> Any:
        return _clean(value)

    @field_validator("offer", "progress", "completion")
    @classmethod
    def _line_placeholders(cls, value: str) -> str:
        return _no_placeholders(value)


class QuestTextModel(QuestNarrativeModel, QuestDialogueModel):
    """The one quest call's answer: the narrative and the giver's three speeches,
    each field under the limits and cleaning of its own model."""
