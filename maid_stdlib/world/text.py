"""Directions and small text helpers shared by the world commands."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import cast

from maid_engine.english import english
from maid_engine.net.markup import HANG
from maid_engine.net.sanitize import clean_authored
from maid_stdlib.text.place import says_where

#: The ten directions in display order, with their short forms and opposites.
DIRECTIONS: tuple[str, ...] = (
    "north", "east", "south", "west", "northeast", "northwest", "southeast", "southwest",
    "up", "down",
)  # fmt: skip
SHORT: dict[str, str] = {
    "north": "n", "east": "e", "south": "s", "west": "w", "northeast": "ne",
    "northwest": "nw", "southeast": "se", "southwest": "sw", "up": "u", "down": "d",
}  # fmt: skip
ALIASES: dict[str, str] = {short: full for full, short in SHORT.items()}
OPPOSITE: dict[str, str] = {
    "north": "south", "south": "north", "east": "west", "west": "east",
    "northeast": "southwest", "southwest": "northeast", "northwest": "southeast",
    "southeast": "northwest", "up": "down", "down": "up",
}  # fmt: skip


def normalize_exit(name: str) -> str:
    """Lower-case exit name with short directions expanded ("N" -> "north")."""
    word = " ".join(name.lower().split())
    return ALIASES.get(word, word)


def exit_order(name: str) -> tuple[int, str]:
    """Sort key: the ten directions in compass order first, named exits after."""
    try:
        return (DIRECTIONS.index(name), name)
    except ValueError:
        return (len(DIRECTIONS), name)


def arrival_phrase(direction: str) -> str:
    """Where someone who left by ``direction`` appears from, seen from the new room."""
    back = OPPOSITE.get(direction)
    if back == "up":
        return "from above"
    if back == "down":
        return "from below"
    if back is not None:
        return f"from the {back}"
    return ""


def in_place(name: str) -> str:
    """A room's name as it follows "is": "in The Guard Post", "atop the Watchtower"."""
    return says_where(name) or f"in {name}"


def departure_phrase(direction: str) -> str:
    """How leaving by ``direction`` reads: "north", "up", "via the gate"."""
    return direction if direction in OPPOSITE else f"via {direction}"


def capitalize(text: str) -> str:
    """First letter upper-case, the rest untouched ("a rusty key" -> "A rusty key")."""
    return text[:1].upper() + text[1:]


@lru_cache(maxsize=2048)
def singular(word: str) -> str:
    """The singular of a plural noun ("casks" -> "cask", "wolves" -> "wolf"); ""
    when ``word`` is not a plural."""
    if len(word) < 3 or not word.isalpha():
        return ""
    found = english().singular_noun(word)
    return found if isinstance(found, str) else ""


def speaker(name: str) -> str:
    """How one known person or creature is named at the head of what it says or
    does to you: "a gate guard" -> "The gate guard" (the one you are talking to,
    not any), "Selena" stays "Selena"."""
    text = name.strip()
    lower = text.lower()
    for article in ("a ", "an ", "some "):
        if lower.startswith(article):
            text = "the " + text[len(article) :]
            break
    return capitalize(text)


def join_words(words: Iterable[str]) -> str:
    items = list(words)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _resolve_escape() -> Callable[[str], str]:
    # The telnet layer owns the markup syntax; use its escaper when it is there so
    # both sides agree on what is inert.
    for module in ("maid_engine.net.markup", "maid_engine.net"):
        try:
            found = getattr(importlib.import_module(module), "escape_markup", None)
        except ImportError:
            continue
        if callable(found):
            return cast(Callable[[str], str], found)
    return _fallback_escape


def _fallback_escape(text: str) -> str:
    return text.replace("|", "||")


_escape = _resolve_escape()


def escape_markup(text: str) -> str:
    """Make player-typed text inert as colour markup before echoing it to others."""
    return _escape(text)


def player_words(text: str) -> str:
    """What a player typed, ready to be shown to others: no bidi controls, zero-width
    characters or line separators (which could reorder, hide or break the line), and
    markup made inert."""
    return escape_markup(clean_authored(text))


#: An opening quotation mark and the one that closes it.
_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
#: Double quotation marks inside speech, as single ones.
_INNER_QUOTES = str.maketrans({'"': "'", "\u201c": "\u2018", "\u201d": "\u2019"})


def quoted_words(text: str) -> str:
    """What a player typed, ready to be shown inside double quotes (``You say,
    "..."``): :func:`player_words`, without the quotation marks the player put
    around all of it (``say "hello"`` reads ``"hello"``, not ``""hello""``) and
    with double quotation marks inside made single, so a quotation in the speech
    does not seem to close it (``He said 'run'``). Empty when nothing but quotes
    was typed."""
    safe = player_words(text).strip()
    if len(safe) >= 2 and _QUOTE_PAIRS.get(safe[0]) == safe[-1]:
        safe = safe[1:-1].strip()
    return safe.translate(_INNER_QUOTES)


def spoken(line: str) -> str:
    """Mark ``line`` as carrying someone's words: if it wraps, its continuation lines
    are indented, so padding the words can never start a line with text that looks
    like the game's own (``Overseer tells you, ...``)."""
    return HANG + line
