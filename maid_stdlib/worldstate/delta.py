"""Pulling the model's fenced ``state`` block out of its reply.

The model narrates and appends, in the same reply, a block such as::

    ```state
    {"player.hp": -15, "npc.gwen.trust": +5}
    ```

Weak models write messy blocks, so the reader forgives what has one meaning only: a
missing closing fence or brace, extra fences (```` ```state ```` followed by
```` ```json ````), trailing commas, ``+N`` numbers, unquoted keys, single or mixed
quotes, Python literals, comments, nested sections, prose around the block. What it
forgave is named (:attr:`BlockReading.lenient`), so the turn's report can say so.

What it cannot read is never dropped silently: each unreadable block (or line of a
brace-less block) becomes an :class:`Unreadable` naming the line of the block, the
entry it was reading and the problem; the turn refuses it like any other change and
the next prompt carries the fix. :func:`read_reply` never raises.

Only the model's reply is ever parsed; player text is passed through
:func:`neutralise_player_text` before it reaches the prompt, so a player cannot plant
a block for the model to echo.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

STATE_FENCE = "```state"

log = logging.getLogger("maid.worldstate")

#: Longest block body read at all (a model's block is a few lines; anything far
#: longer is not a state block, and the lenient reader must stay cheap).
MAX_BODY = 8_000

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


@dataclass(frozen=True)
class Unreadable:
    """A part of a state block the reader could not make sense of."""

    line: int  # 1-based, counted from the block's first line
    key: str | None  # the last key read before the problem, when there was one
    problem: str  # what went wrong, in plain words
    text: str  # the offending line as sent (shortened)

    def where(self) -> str:
        """``line 2, at `player.hp``` (or ``line 2`` when no key was read yet)."""
        after = f", at `{self.key}`" if self.key else ""
        return f"line {self.line}{after}"


@dataclass
class BlockReading:
    """What became of one ``state`` block of a reply."""

    delta: dict[str, Any] = field(default_factory=dict)
    lenient: list[str] = field(default_factory=list)  # what was forgiven, in order
    unreadable: list[Unreadable] = field(default_factory=list)

    @property
    def result(self) -> Literal["strict", "lenient", "unreadable"]:
        if self.unreadable:
            return "unreadable"
        return "lenient" if self.lenient else "strict"


@dataclass
class Reading:
    """A model reply read: narration without blocks, the delta, and every block."""

    narration: str
    delta: dict[str, Any] = field(default_factory=dict)
    blocks: list[BlockReading] = field(default_factory=list)

    @property
    def lenient(self) -> list[str]:
        out: list[str] = []
        for block in self.blocks:
            out += [note for note in block.lenient if note not in out]
        return out

    @property
    def unreadable(self) -> list[Unreadable]:
        return [item for block in self.blocks for item in block.unreadable]


def extract_delta(reply: str) -> tuple[str, dict[str, Any]]:
    """Split a model reply into (narration without the block, delta dict).

    Every ``state`` block is removed from the narration; the delta is the last one that
    parses. Malformed or missing blocks give ``{}`` (:func:`read_reply` says why).
    Never raises.
    """
    reading = read_reply(reply)
    return reading.narration, reading.delta


def read_reply(reply: str) -> Reading:
    """Read a model reply: its narration, its delta, and how each block was read."""
    try:
        return _extract(reply)
    except Exception:  # the turn must survive any reply; what broke is reported
        log.exception("a state block broke the reader")
        broken = Unreadable(1, None, "the block could not be read at all", "")
        return Reading(reply, {}, [BlockReading(unreadable=[broken])])


def _extract(reply: str) -> Reading:
    spans: list[tuple[int, int]] = []
    blocks: list[BlockReading] = []
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
        tail_end = tail.end() if tail else end
        spans.append((m.start(), tail_end))
        block = _read_body(body)
        if body.strip() and not _ANY_FENCE.search(reply, end, tail_end):
            block.lenient.append("missing closing fence")
        blocks.append(block)
        if block.delta:
            delta = block.delta
        pos = max(tail_end, m.end())
    if not spans:
        return Reading(reply)
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
    return Reading(clean, delta, blocks)


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


# Each repair is named, so the report can say what was forgiven.
_FIXES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("comments", re.compile(r"//[^\n]*|#[^\n]*"), ""),
    ("a dash for a minus sign", re.compile(r"[\u2212\u2013]"), "-"),
    ("+N numbers", re.compile(r"(?<=[:\[,])(\s*)\+(?=\s*[\d.])"), r"\1"),
    ("trailing commas", re.compile(r",\s*(?=[}\]])"), ""),
    ("unquoted keys", re.compile(r"([{,]\s*)([A-Za-z_][\w.\-]*)\s*:"), r'\1"\2":'),
    ("Python literals", re.compile(r"\bTrue\b"), "true"),
    ("Python literals", re.compile(r"\bFalse\b"), "false"),
    ("Python literals", re.compile(r"\bNone\b"), "null"),
    # A newline between two entries with no comma: `"a": 1\n"b": 2`.
    (
        "missing commas between lines",
        re.compile(r'(["\'\deltruf])[ \t]*\n(?=[ \t]*["\'])'),
        r"\1,\n",
    ),
)

# What json's messages mean, in words a model (and a builder) reads at once.
_JSON_PROBLEMS = {
    "Expecting ',' delimiter": "expected a comma between entries",
    "Expecting ':' delimiter": 'expected a colon between the key and its change ("path": change)',
    "Expecting property name enclosed in double quotes": 'expected a quoted key ("path")',
    "Expecting value": "expected a value (a signed number, true or false)",
    "Extra data": "unexpected text after the closing brace",
    "Unterminated string starting at": "a quoted string is never closed",
    "Invalid control character at": "a line break inside a quoted string",
}
_LAST_KEY = re.compile(r"""["']((?:[^"'\\\n]|\\.){1,80})["']\s*:""")
_LAST_QUOTED = re.compile(r"""["']((?:[^"'\\\n]|\\.){1,80})["']""")
_NO_COLON = "Expecting ':' delimiter"
_APOSTROPHE = re.compile(r"\w'\w")
_OPENING_SINGLE = re.compile(r"(?<!\w)'")
_YAML_MARKUP = (yaml.AliasToken, yaml.AnchorToken, yaml.TagToken)


def _read_body(body: str) -> BlockReading:
    body = body.strip()
    if not body:
        return BlockReading()
    if len(body) > MAX_BODY:
        first = body.splitlines()[0]
        return BlockReading(
            unreadable=[Unreadable(1, None, f"the block is over {MAX_BODY} characters", first)]
        )
    if not body.startswith("{"):
        return _read_lines(body)
    reading = BlockReading()
    text = body
    if "\u201c" in text or "\u201d" in text:
        text = text.replace("\u201c", '"').replace("\u201d", '"')
        reading.lenient.append("curly quotes")
    if text.count("{") > text.count("}"):
        text += "}" * (text.count("{") - text.count("}"))
        reading.lenient.append("missing closing brace")
    try:
        value = json.loads(text)
    except ValueError:
        pass
    else:
        return _as_block(reading, value, text)
    fixed, notes = _repair(text)
    try:
        value = json.loads(fixed)
    except ValueError as exc:
        error = exc
    else:
        reading.lenient += notes
        return _as_block(reading, value, text)
    if "'" in text:
        if '"' not in text:
            # Single quotes only: read as double quotes, then the same repairs.
            alt, alt_notes = _repair(text.replace("'", '"'))
            try:
                value = json.loads(alt)
            except ValueError:
                pass
            else:
                reading.lenient += ["single quotes", *alt_notes]
                return _as_block(reading, value, text)
        # Mixed quotes: YAML's flow mappings read both kinds (and +N, trailing commas).
        loaded, yaml_error = _yaml_mapping(fixed)
        if loaded is not None:
            reading.lenient += ["single quotes" if '"' not in text else "mixed quotes", *notes]
            return _as_block(reading, loaded, text)
        if yaml_error is not None:
            # Its position is the better one when quotes of both kinds are about.
            reading.unreadable.append(_yaml_problem(fixed, yaml_error, body))
            return reading
    assert isinstance(error, json.JSONDecodeError)
    reading.unreadable.append(_json_problem(fixed, error, body))
    return reading


def _repair(text: str) -> tuple[str, list[str]]:
    notes: list[str] = []
    for name, pattern, repl in _FIXES:
        new = pattern.sub(repl, text)
        if new != text and name not in notes:
            notes.append(name)
        text = new
    return text, notes


def _yaml_mapping(text: str) -> tuple[dict[str, Any] | None, yaml.MarkedYAMLError | None]:
    """``text`` read as one YAML flow mapping (or None, with YAML's error if it gave
    one). Anchors, aliases and tags are refused before anything is built (an alias
    bomb must not reach :func:`_flatten`), and so is a key with no value (``{hp -10}``
    is not ``{"hp -10": null}``)."""
    try:
        if any(isinstance(token, _YAML_MARKUP) for token in yaml.scan(text)):
            return None, None
        value = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        return None, exc
    except yaml.YAMLError:
        return None, None
    if not isinstance(value, dict) or any(v is None for v in _flatten(value).values()):
        return None, None
    return value, None


def _as_block(reading: BlockReading, value: object, text: str) -> BlockReading:
    if isinstance(value, dict):
        reading.delta = _flatten(value)
    else:
        first = text.splitlines()[0]
        reading.unreadable.append(
            Unreadable(1, None, 'expected an object of "path": change pairs', first)
        )
    return reading


def _json_problem(fixed: str, error: json.JSONDecodeError, body: str) -> Unreadable:
    problem = _JSON_PROBLEMS.get(error.msg, error.msg[:1].lower() + error.msg[1:])
    return _problem_at(fixed, error.pos, problem, body, key_needs_colon=error.msg != _NO_COLON)


def _yaml_problem(fixed: str, error: yaml.MarkedYAMLError, body: str) -> Unreadable:
    said = error.problem or "unreadable"
    if said.startswith("expected ',' or"):
        problem = _JSON_PROBLEMS["Expecting ',' delimiter"]
    elif "end of stream" in said:
        problem = _JSON_PROBLEMS["Unterminated string starting at"]
    else:
        problem = said
    pos = error.problem_mark.index if error.problem_mark is not None else len(fixed)
    return _problem_at(fixed, pos, problem, body, key_needs_colon=True)


def _problem_at(
    fixed: str, pos: int, problem: str, body: str, *, key_needs_colon: bool
) -> Unreadable:
    # The entry being read: the last key before the problem (for a missing colon, the
    # last quoted word, which is the key that lacks it).
    keys = (_LAST_KEY if key_needs_colon else _LAST_QUOTED).findall(fixed, 0, pos)
    lines = body.splitlines()
    number = min(fixed.count("\n", 0, pos) + 1, len(lines))
    line = lines[number - 1]
    if _APOSTROPHE.search(line) and _OPENING_SINGLE.search(line):
        problem += " (an apostrophe inside 'single quotes' ends the string)"
    return Unreadable(number, keys[-1] if keys else None, problem, _shorten(line))


def _shorten(line: str, width: int = 60) -> str:
    line = line.strip()
    return line if len(line) <= width else line[: width - 1] + "…"


_LINE = re.compile(r"\s*[-*]?\s*[\"'`]?([A-Za-z_][\w.]*)[\"'`]?\s*[:=]\s*(.+?)\s*,?\s*$")


def _read_lines(body: str) -> BlockReading:
    """``player.hp: -10`` / ``player.hp = -10`` lines, for a model that forgot the
    braces. Each line stands alone: one that is not ``path: change`` is refused, the
    others are read."""
    reading = BlockReading(lenient=["no braces (one path: change a line)"])
    out: dict[str, Any] = {}
    last: str | None = None
    for number, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            reading.unreadable.append(
                Unreadable(number, last, "expected `path: change` on the line", _shorten(line))
            )
            continue
        last = m.group(1)
        raw = m.group(2).replace("\u2212", "-")
        raw = raw[1:] if raw.startswith("+") else raw
        try:
            out[last] = json.loads(raw.replace("True", "true").replace("False", "false"))
        except ValueError:
            out[last] = raw.strip("\"'")
    reading.delta = out
    return reading


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
