"""extract_json() and parse_model() on the shapes models actually produce."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from maid_engine.llm import LLMBadResponse, extract_json, parse_model

EXPECTED = {"title": "The Lost Ring", "summary": "Find it."}


@pytest.mark.parametrize(
    "text",
    [
        '{"title": "The Lost Ring", "summary": "Find it."}',
        '  \ufeff{"title": "The Lost Ring", "summary": "Find it."}\n',
        '```json\n{"title": "The Lost Ring", "summary": "Find it."}\n```',
        '```JSON\n{"title": "The Lost Ring", "summary": "Find it."}\n```\nHope this helps!',
        '```\n{"title": "The Lost Ring", "summary": "Find it."}\n```',
        '```json\n{"title": "The Lost Ring", "summary": "Find it."}',  # no closing fence
        'Sure! Here is the quest:\n{"title": "The Lost Ring", "summary": "Find it."}\nEnjoy.',
        'Here you go: ```json {"title": "The Lost Ring", "summary": "Find it.",} ``` bye',
        '{"title": "The Lost Ring", "summary": "Find it.",}',  # trailing comma
        '{\n  "title": "The Lost Ring",\n  "summary": "Find it.",\n}\n',
        'Note {this} first. {"title": "The Lost Ring", "summary": "Find it."}',
        'I think {"title": "The Lost Ring", "summary": "Find it."} and also {"x": 1}',
    ],
)
def test_extracts_the_object(text: str) -> None:
    assert extract_json(text) == EXPECTED


def test_strings_with_braces_commas_and_quotes_survive() -> None:
    text = 'Result: {"line": "He said \\"{ not json, }\\" and left,", "n": [1, 2,],}'
    assert extract_json(text) == {"line": 'He said "{ not json, }" and left,', "n": [1, 2]}


def test_nested_objects_and_python_literals() -> None:
    text = '{\'ignored\': 1} {"a": {"b": True, "c": None}, "d": False}'
    assert extract_json(text) == {"a": {"b": True, "c": None}, "d": False}


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "   ",
        "I cannot write that quest.",
        '{"title": "The Lost Ring", "summary": "Find',  # truncated mid-object
        '```json\n{"title": \n',
        '[{"title": "x"}]',  # not a single top-level object
        '"just a string"',
        "```json\n[1, 2, 3]\n```",
        "{not: json}",
    ],
)
def test_rejects_what_is_not_one_object(text: str | None) -> None:
    with pytest.raises(LLMBadResponse):
        extract_json(text)


def test_huge_adversarial_input_stays_fast() -> None:
    import time

    started = time.perf_counter()
    with pytest.raises(LLMBadResponse):
        extract_json("{" * 200_000)
    with pytest.raises(LLMBadResponse):
        extract_json('{"a": "' + "x" * 500_000)
    assert time.perf_counter() - started < 2.0


class Narrative(BaseModel):
    title: str = Field(min_length=1, max_length=60)
    summary: str = Field(min_length=5)


def test_parse_model_validates() -> None:
    text = '```json\n{"title": "The Lost Ring", "summary": "Find it."}\n```'
    model = parse_model(text, Narrative)
    assert model.title == "The Lost Ring"
    with pytest.raises(LLMBadResponse, match="summary"):
        parse_model('{"title": "The Lost Ring"}', Narrative)
    with pytest.raises(LLMBadResponse):
        parse_model("no json here", Narrative)
