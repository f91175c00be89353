"""Pulling the model's fenced ``state`` block out of its reply.

The model narrates and appends, in the same reply, a block such as::

    ```state
    {"player.hp": -15, "npc.gwen.trust": +5}
    ```

Weak models write messy blocks, so the parser forgives: a missing closing fence, extra
fences (```` ```state ```` followed by ```` ```json ````), trailing commas, ``+N`` numbers,
unquoted keys, single quotes, Python literals, nested sections, prose around the block.
It never raises: anything it cannot read is ``{}`` and the turn goes on (the same
philosophy as a broken script). Only the model's reply is ever parsed; player text is
passed through :func:`neutralise_player_text` before it reaches the prompt, so a player
cannot plant a block for the model to echo.
"""

from __future__ import annotations

import json
import re
from typing import Any

STATE_FENCE = "```state"

_FENCE = r"(?:`{3,}|~{3,})"
_OPEN = re.compile(_FENCE + r"[ \t]*state\b", re.IGNORECASE)
# Fences that may sit between the label and the body, e.g. "```state\n```json\n{".
_LEAD = re.compile(r"(?:\s|" + _FENCE + r"[ \t]*[A-Za-z]*)*")
# The block's own closing fence, then any further bare fences; a later fence followed
# by a word on its line is the opening of some other block and is left alone.
_TAIL = re.compile(r"(?:[ \t]*\n?[ \t]*" + _FENCE + r")?(?:\s*" + _FENCE + r"(?![ \t]*\w))*")
_ANY_FENCE = re.compile(_FENCE)
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")


def neutralise_player_text(text: str) -> str:
    """Make player input unable to carry a code fence into the prompt.

    Runs of three or more backticks or tildes (the only things that open a fence)
    become a single character; zero-width characters that could hide a split fence
    are dropped first.
    """
    text = _ZERO_WIDTH.sub("", text)
    return re.sub(r"`{3,}|~{3,}", lambda m: m.group(0)[0], text)


def extract_delta(reply: str) -> tuple[str, dict[str, Any]]:
    """Split a model reply into (narration without the block, delta dict).

    Every ``state`` block is removed from the narration; the delta is the last one that
    parses. Malformed or missing blocks give ``{}``. Never raises.
    """
    try:
        return _extract(reply)
    except Exception:  # the turn must survive any reply; an unreadable block is {}
        return reply, {}


def _extract(reply: str) -> tuple[str, dict[str, Any]]:
    spans: list[tuple[int, int]] = []
    delta: dict[str, Any] = {}
    pos = 0
    while (m := _OPEN.search(reply, pos)) is not None:
        body_start = _LEAD.match(reply, m.end())
        start = body_start.end() if body_start else m.end()
        if start < len(reply) and reply[start] == "{":
            end = _matching_brace(reply, start)
            body = reply[start:end]
        else:
            nxt = _ANY_FENCE.search(reply, start)
            end = nxt.start() if nxt else len(reply)
            body = reply[start:end]
        tail = _TAIL.match(reply, end)
        end = tail.end() if tail else end
        spans.append((m.start(), end))
        parsed = _parse_body(body)
        if parsed:
            delta = parsed
        pos = max(end, m.end())
    if not spans:
        return reply, {}
    starts = [0] + [end for _, end in spans]
    stops = [start for start, _ in spans] + [len(reply)]
    pieces = [reply[a:b] for a, b in zip(starts, stops, strict=True)]
    clean = pieces[0]
    for piece in pieces[1:]:
        # A block cut out of mid-line prose leaves one space, not two.
        left, right = clean.rstrip(" \t"), piece.lstrip(" \t")
        inline = left and right and not left.endswith("\n") and not right.startswith("\n")
        clean = left + (" " if inline else "") + right
    if len(_ANY_FENCE.findall(clean)) % 2:
        # An unbalanced fence left behind is debris of the block, never narration.
        clean = re.sub(r"(?:\s*" + _FENCE + r"\s*)+$", "", clean)
    clean = re.sub(r"\n{3,}", "\n\n", clean).strip()
    return clean, delta


def _matching_brace(text: str, start: int) -> int:
    """Index just past the brace closing the one at ``start`` (end of text if none)."""
    depth = 0
    in_str: str | None = None
    i = start
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == in_str:
                in_str = None
        elif c in "\"'" and _opens_string(text, i):
            in_str = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif text.startswith("```", i) or text.startswith("~~~", i):
            return i  # a fence ends an unclosed body
        i += 1
    return len(text)


def _opens_string(text: str, i: int) -> bool:
    # An apostrophe inside a word ("Gwen's") is not a quote.
    return text[i] == '"' or not (i > 0 and text[i - 1].isalnum())


_FIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"//[^\n]*|#[^\n]*"), ""),
    (re.compile(r"[\u2212\u2013]"), "-"),
    (re.compile(r"(?<=[:\[,])(\s*)\+(?=\s*[\d.])"), r"\1"),
    (re.compile(r",\s*(?=[}\]])"), ""),
    (re.compile(r"([{,]\s*)([A-Za-z_][\w.\-]*)\s*:"), r'\1"\2":'),
    (re.compile(r"\bTrue\b"), "true"),
    (re.compile(r"\bFalse\b"), "false"),
    (re.compile(r"\bNone\b"), "null"),
    # A newline between two entries with no comma: `"a": 1\n"b": 2`.
    (re.compile(r'(["\deltruf])[ \t]*\n\s*(?=")'), r"\1,\n"),
)


def _parse_body(body: str) -> dict[str, Any]:
    body = body.strip()
    if not body:
        return {}
    if not body.startswith("{"):
        return _parse_lines(body)
    text = body.replace("\u201c", '"').replace("\u201d", '"')
    if text.count("{") > text.count("}"):
        text += "}" * (text.count("{") - text.count("}"))
    candidates = [text]
    fixed = text
    for pattern, repl in _FIXES:
        fixed = pattern.sub(repl, fixed)
    candidates.append(fixed)
    if '"' not in text:
        alt = text.replace("'", '"')
        for pattern, repl in _FIXES:
            alt = pattern.sub(repl, alt)
        candidates.append(alt)
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return _flatten(value)
    return {}


def _parse_lines(body: str) -> dict[str, Any]:
    """``player.hp: -10`` / ``player.hp = -10`` lines, for a model that forgot the braces."""
    out: dict[str, Any] = {}
    for line in body.splitlines():
        m = re.match(r"\s*[-*]?\s*[\"'`]?([A-Za-z_][\w.]*)[\"'`]?\s*[:=]\s*(.+?)\s*,?\s*$", line)
        if not m:
            continue
        raw = m.group(2).replace("\u2212", "-")
        raw = raw[1:] if raw.startswith("+") else raw
        try:
            out[m.group(1)] = json.loads(raw.replace("True", "true").replace("False", "false"))
        except ValueError:
            out[m.group(1)] = raw.strip("\"'")
    return out


def _flatten(value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    # {"player": {"hp": -10}} is the same change as {"player.hp": -10}.
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item:
            out.update(_flatten(item, path))
        else:
            out[path] = item
    return out
