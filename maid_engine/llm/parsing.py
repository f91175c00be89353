"""Getting one JSON object out of whatever a model actually wrote.

Models wrap JSON in ```json fences (sometimes never closed), add a sentence before
or after, leave trailing commas or write Python's True/None. :func:`extract_json`
copes with all of that and raises LLMBadResponse otherwise; callers then
validate the dict with a pydantic model (:func:`parse_model` does both).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from maid_engine.llm.errors import LLMBadResponse

__all__ = ["extract_json", "parse_model"]

#: Longer answers are cut before parsing: nothing we ask for is this big, and the
#: object scan must stay cheap on adversarial input.
MAX_INPUT_CHARS = 100_000
_MAX_CANDIDATES = 50
# Characters the brace scanner may visit per call, across all candidates: bounds
# the CPU time (this runs on the event loop) whatever the model sent.
_SCAN_BUDGET = 400_000

_FENCE_OPEN = re.compile(r"```[ \t]*(?:json5?|javascript|js)?[ \t]*\r?\n?", re.IGNORECASE)
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}

ModelT = TypeVar("ModelT", bound=BaseModel)


def _fenced_blocks(text: str) -> list[str]:
    blocks: list[str] = []
    pos = 0
    while True:
        opening = _FENCE_OPEN.search(text, pos)
        if opening is None:
            return blocks
        end = text.find("```", opening.end())
        if end == -1:
            # The model ran out of tokens or forgot the closing fence.
            blocks.append(text[opening.end() :])
            return blocks
        blocks.append(text[opening.end() : end])
        pos = end + 3


def _repair(text: str) -> str:
    """Drop trailing commas and turn Python literals into JSON, outside strings only."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
            continue
        if ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1
                continue
        if ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_PY_LITERALS.get(word, word))
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _balanced_end(text: str, start: int, limit: int) -> int:
    """Index just past the ``}`` closing the ``{`` at ``start``; -1 if not closed
    before index ``limit``."""
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, min(limit, len(text))):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1 if ch == "}" else -1
            if depth < 0:
                return -1
    return -1


class _NotAnObject(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__(type(value).__name__)
        self.value = value


def _loads(text: str) -> dict[str, Any] | None:
    """The object in ``text``; None if it is not valid JSON even after repair.

    Raises _NotAnObject when it is valid JSON but not an object.
    """
    text = text.strip()
    if not text:
        return None
    for attempt in (text, _repair(text)):
        try:
            value = json.loads(attempt)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
        raise _NotAnObject(value)
    return None


def _scan(text: str) -> dict[str, Any] | None:
    """The first balanced ``{...}`` in ``text`` that parses as an object."""
    pos = 0
    budget = _SCAN_BUDGET
    for _ in range(_MAX_CANDIDATES):
        start = text.find("{", pos)
        if start == -1 or budget <= 0:
            return None
        end = _balanced_end(text, start, start + budget)
        budget -= (end if end != -1 else len(text)) - start
        if end != -1:
            try:
                found = _loads(text[start:end])
            except _NotAnObject:
                found = None
            if found is not None:
                return found
        pos = start + 1
    return None


def extract_json(text: str | None) -> dict[str, Any]:
    """The single JSON object in a model's answer.

    Handles ```json fences (also unclosed), prose around the object, trailing
    commas and Python literals. A top-level array or scalar is rejected, as is
    text with no parseable object: both raise LLMBadResponse.
    """
    if text is None or not text.strip():
        raise LLMBadResponse("the response is empty")
    text = text.strip().lstrip("\ufeff")[:MAX_INPUT_CHARS]
    try:
        whole = _loads(text)
        if whole is not None:
            return whole
        for block in _fenced_blocks(text):
            found = _loads(block)
            if found is None:
                found = _scan(block)
            if found is not None:
                return found
    except _NotAnObject as exc:
        raise LLMBadResponse(f"expected a JSON object, got a {exc}") from None
    found = _scan(text)
    if found is not None:
        return found
    if "{" in text:
        raise LLMBadResponse("the response contains no complete JSON object")
    raise LLMBadResponse("the response contains no JSON object")


def parse_model(text: str | None, model: type[ModelT]) -> ModelT:
    """:func:`extract_json` then pydantic validation; any failure is LLMBadResponse."""
    data = extract_json(text)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'object'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise LLMBadResponse(f"the JSON does not match {model.__name__}: {problems}") from None
